"""Episodes: what an agent is asked to do, and how its work is checked.

An episode is JSON (`evals/agent_ab/episodes/*.json`):
`{"name", "repo": "github:owner/name", "mirror": "owner+name", "start": commit,
"language", "steps": [{"apply"?: later commit, "intro"?, "questions": [...],
"edit"?: {...}}]}`. A question has `id`, `kind`, `text`, `accepted` (answers
graded right), optional `reject`, and a `verify` snippet; an edit has `id`,
`file`, `text`, a `check` snippet over the final file and a `reference` edit.

Repositories are never downloaded here: `mirror` names a folder under the
mirrors directory (`--mirrors`, or `$SYMBOLPACK_MIRRORS`) holding a clone,
`DIR/owner+name` or `DIR/owner+name/repo`. Snippets are Python written by the
episode's author (trusted like a test), evaluated with a few names bound.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...base.errors import NotFound, UsageError

QUESTION_KINDS = ("visible", "body", "changed", "unchanged", "lines")


@dataclass(frozen=True)
class Episode:
    name: str
    path: Path
    data: dict

    @property
    def steps(self) -> list[dict]:
        return self.data["steps"]

    def questions(self) -> list[tuple[int, dict]]:
        """(step number, question) for every question, in order (steps count from 1)."""
        return [(i, q) for i, step in enumerate(self.steps, 1) for q in step.get("questions", [])]

    def edits(self) -> list[tuple[int, dict]]:
        return [(i, step["edit"]) for i, step in enumerate(self.steps, 1) if step.get("edit")]


def load_episode(path: str | os.PathLike) -> Episode:
    """Read and validate an episode file; one clear error when it is not one."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotFound(f"no such episode file: {path}") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is not an episode (JSON): {exc}") from None
    problems = _shape_problems(data)
    if problems:
        raise UsageError(f"{path} is not a valid episode: {problems[0]}")
    return Episode(data["name"], p.resolve(), data)


def _shape_problems(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return ["the top level is not an object"]
    out = [f"missing field {k!r}" for k in ("name", "mirror", "start", "steps") if k not in data]
    if out:
        return out
    if not isinstance(data["steps"], list) or not data["steps"]:
        return ["steps must be a non-empty list"]
    seen: set[str] = set()
    for i, step in enumerate(data["steps"], 1):
        if not isinstance(step, dict):
            return [f"step {i} is not an object"]
        for q in step.get("questions", []):
            for k in ("id", "kind", "text", "accepted", "verify"):
                if k not in q:
                    out.append(f"step {i}: question {q.get('id', '?')} has no {k!r}")
            if q.get("kind") not in QUESTION_KINDS:
                out.append(f"step {i}: question {q.get('id', '?')} has kind {q.get('kind')!r}")
            if q.get("id") in seen:
                out.append(f"question id {q.get('id')} is used twice")
            seen.add(q.get("id", ""))
        edit = step.get("edit")
        if edit is not None:
            for k in ("id", "file", "text", "check", "reference"):
                if k not in edit:
                    out.append(f"step {i}: the edit has no {k!r}")
    return out


def mirrors_dir(explicit: str | None = None) -> Path | None:
    value = explicit or os.environ.get("SYMBOLPACK_MIRRORS")
    return Path(value) if value else None


def resolve_repository(ep: Episode, mirrors: str | None = None) -> Path:
    """The local clone of the episode's repository (never fetched from the network)."""
    mirror = ep.data["mirror"]
    if os.path.isabs(mirror) and os.path.isdir(mirror):
        return Path(mirror)
    base = mirrors_dir(mirrors)
    if base is not None:
        for cand in (base / mirror / "repo", base / mirror):
            if (cand / "HEAD").is_file() or (cand / ".git").exists():
                return cand
    repo = ep.data.get("repo", "").removeprefix("github:")
    raise NotFound(f"episode {ep.name}: no clone of {repo or mirror} found; clone it as "
                   f"MIRRORS/{mirror} (`git clone --mirror https://github.com/{repo} MIRRORS/{mirror}`) "
                   f"and pass --mirrors MIRRORS or set SYMBOLPACK_MIRRORS")


# --------------------------------------------------------------------------- snippets

def run_snippet(source: str, names: dict[str, Any]) -> Any:
    """Evaluate an episode's snippet: an expression, or a block whose last word is `return`."""
    scope: dict[str, Any] = {"re": re, "json": json, **names}
    try:
        return eval(compile(source, "<snippet>", "eval"), scope)
    except SyntaxError:
        pass
    body = "\n".join("    " + line for line in source.split("\n"))
    exec(compile("def _snippet():\n" + body, "<snippet>", "exec"), scope)
    return scope["_snippet"]()


def check_passes(source: str, text: str, path: str, repo: str | os.PathLike[str] | None = None) -> bool:
    """Whether an edit's `check` holds for a file's final text (a raising check fails).
    A check sees what the lab's checks see: `text`, `path`, `repo` (the run's work tree,
    for a check that imports the edited package) and `node(js)` (`node -e` there, its
    last line of output as JSON, None when that fails)."""
    where = os.fspath(repo) if repo is not None else None
    try:
        return bool(run_snippet(source, {"text": text, "path": path, "repo": where,
                                         "node": lambda js: _node_json(where, js)}))
    except Exception:
        return False


def _node_json(repo: str | None, js: str) -> Any:
    import subprocess

    try:
        done = subprocess.run(["node", "-e", js], cwd=repo, capture_output=True, text=True, timeout=30)
        last = [line for line in done.stdout.split("\n") if line.strip()]
        return json.loads(last[-1]) if last else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
