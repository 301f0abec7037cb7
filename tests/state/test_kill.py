"""Crash safety with real processes: reads SIGKILLed at random moments near the end
of their run. An answer counts as received only if its whole JSON arrived; after
every received answer the agent's copy (rebuilt by the oracle from received
answers alone) must hold no wrong line and the answer must lean on nothing the
agent does not hold (PROTOCOL: intent first, commit after delivery).

The file is large enough that a whole answer does not fit a pipe's buffer: when
the test does not drain the pipe, the process blocks in the middle of writing
and the kill lands there, after its record was saved. That is the moment an
engine that commits before delivering gets wrong, so the test can fail on it."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from symbolpack.evaluation.oracle import ReadOracle

from conftest import git

KILLS = 240


def _module(salt: int, n: int = 90) -> list[str]:
    out = ["import os", ""]
    for k in range(n):
        out += [f"def f{k}(a):", f'    """Doc {k}."""'] + [f"    v{i} = a + {salt * i + k}" for i in range(16)]
        out += ["    return a", ""]
    return out


def _read_cmd(path: Path, rng: random.Random, total: int) -> list[str]:
    cmd = [sys.executable, "-m", "symbolpack.cli", "read", str(path), "--format", "json", "--session-id", "kill"]
    pick = rng.random()
    if pick < 0.3:
        start = rng.randint(1, total)
        cmd += ["--offset", str(start), "--limit", str(rng.randint(1, 30))]
    elif pick < 0.4:
        cmd += ["--symbol", f"f{rng.randint(0, 89)}"]
    return cmd


def test_killed_reads_never_leave_a_wrong_copy(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    path = root / "mod.py"
    versions = [_module(1), _module(2), _module(1)[:60] + _module(3)[60:]]
    lines = versions[0]
    path.write_text("\n".join(lines) + "\n")
    env = {**os.environ, "SYMBOLPACK_DIR": str(tmp_path / "state")}
    rng = random.Random(7)

    # how long a read takes here, to aim the kills at the end of the run
    durations = []
    for _ in range(5):
        began = time.monotonic()
        subprocess.run(_read_cmd(path, rng, len(lines)), cwd=root, env=env, capture_output=True, check=True)
        durations.append(time.monotonic() - began)
    subprocess.run([sys.executable, "-m", "symbolpack.cli", "session", "clear", "--session-id", "kill"],
                   cwd=root, env=env, capture_output=True, check=True)
    typical = sorted(durations)[len(durations) // 2]

    oracle = ReadOracle()
    received = lost = 0
    for step in range(KILLS):
        if rng.random() < 0.3:
            lines = rng.choice(versions)
            if rng.random() < 0.5:
                lines = list(lines)
                lines[rng.randrange(len(lines))] = f"    edited_{step} = 1"
            path.write_text("\n".join(lines) + "\n")
        proc = subprocess.Popen(_read_cmd(path, rng, len(lines)), cwd=root, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        chunks: list[bytes] = []
        drain = rng.random() < 0.5
        reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read())) if drain else None
        if reader:
            reader.start()
        time.sleep(typical * rng.uniform(0.55, 1.3))
        proc.send_signal(signal.SIGKILL)
        if reader:
            reader.join()
            out = chunks[0]
        else:
            out = proc.stdout.read()
        proc.wait()
        try:
            response = json.loads(out)
        except ValueError:
            lost += 1
            continue  # the agent got nothing usable: as if the answer never came
        if response.get("mode") == "error":
            continue
        received += 1
        problems = oracle.apply(response)
        assert not problems, (step, problems, response["mode"])
        wrong = oracle.check("mod.py", path.read_text())
        assert not wrong, (step, wrong, response["mode"], response["text"][:500])
    # the kills must really land on both sides of the answer for the test to mean anything
    assert received > KILLS // 10 and lost > KILLS // 10, (received, lost)
