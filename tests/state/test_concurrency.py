"""Many processes reading in one session at once: no lost update, no corrupt JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import session_dir, stored_files


def test_parallel_readers_lose_no_update(make_repo):
    files = {f"m{i}.txt": "".join(f"line {j} of {i}\n" for j in range(50)) for i in range(12)}
    root = make_repo(files)
    env = {**os.environ}
    env.pop("SYMBOLPACK_SESSION_ID", None)
    script = (
        "import sys\n"
        "from symbolpack.cli import main\n"
        "for name in sys.argv[1:]:\n"
        "    assert main(['read', name, '--session-id', 'shared', '--format', 'json']) == 0\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, *[f"m{(i + k) % 12}.txt" for k in range(6)]],
                         cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for i in range(8)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    data = json.loads((session_dir(root, "shared") / "session.json").read_text())
    assert sum(data["stats"]["reads"].values()) == 48  # every read counted: nothing lost
    assert set(stored_files(root, "shared")) == set(files)  # every file's copy survived
    reads = data["stats"]["reads"]
    # a read that meets another's answer not yet delivered (saved, not committed)
    # is plain, so a file can be read whole more than once while they race
    assert set(reads) == {"full", "unchanged"} and reads["full"] >= 12
    # once every answer is delivered, every record holds: each file is unchanged
    for name in files:
        again = subprocess.run([sys.executable, "-m", "symbolpack.cli", "read", name, "--session-id", "shared",
                                "--format", "json"], cwd=root, env=env, capture_output=True, text=True, check=True)
        assert json.loads(again.stdout)["mode"] == "unchanged", name
