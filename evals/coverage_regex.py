#!/usr/bin/env python3
"""How many regex-visible definitions does `tldrs structure` find?

For a repository and a language (python, go or rust), count the lines a plain
regex takes for a definition:

  python  ``^\\s*(async\\s+)?def\\s+NAME``, ``^\\s*class\\s+NAME``
  go      ``^func\\s`` (name after an optional receiver), ``^type\\s+NAME\\s+(struct|interface)``
  rust    ``fn``, ``struct``, ``enum``, ``trait`` items with optional ``pub(...)``,
          ``async``/``const``/``unsafe``/``extern "C"`` qualifiers

and look each one up among the symbols ``tldrs structure PATH --format json``
returns of kinds function/method/constructor/class/struct/enum/trait/interface,
per file by (name, header line). A symbol's header line is the line its
signature starts on (its span may start earlier, at decorators, attributes or
doc comments). It reports the percentage of regex hits found, per category, and
a sample of misses; regex hits that tree-sitter places inside a string or a
comment (docstring examples, commented-out code) are counted apart, since they
are not definitions. A hit found only as a symbol of another kind is reported
as such. It reports; it asserts nothing.

Example:
    python evals/coverage_regex.py /tmp/corpora/sqla7 --lang python
    python evals/coverage_regex.py /tmp/corpora/ripgrep --lang rust --misses 30 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

KINDS = frozenset({"function", "method", "constructor", "class", "struct", "enum", "trait", "interface"})

_VIS = r"(?:pub(?:\(.*?\))?\s+)?"
PATTERNS: dict[str, list[tuple[str, re.Pattern]]] = {
    "python": [
        ("def", re.compile(r"^\s*(?:async\s+)?def\s+(\w+)")),
        ("class", re.compile(r"^\s*class\s+(\w+)")),
    ],
    "go": [
        ("func", re.compile(r"^func\s+(?:\([^)]*\)\s*)?(\w+)")),
        ("type", re.compile(r"^type\s+(\w+)(?:\[[^\]]*\])?\s+(?:struct|interface)\b")),
    ],
    "rust": [
        ("fn", re.compile(r"^\s*" + _VIS + r"(?:default\s+)?(?:async\s+)?(?:const\s+)?(?:unsafe\s+)?"
                          r"(?:extern\s+\"C\"\s+)?fn\s+(r#\w+|\w+)")),
        ("struct", re.compile(r"^\s*" + _VIS + r"struct\s+(\w+)")),
        ("enum", re.compile(r"^\s*" + _VIS + r"enum\s+(\w+)")),
        ("trait", re.compile(r"^\s*" + _VIS + r"(?:unsafe\s+)?(?:auto\s+)?trait\s+(\w+)")),
    ],
}
SUFFIXES = {"python": (".py", ".pyi"), "go": (".go",), "rust": (".rs",)}
_NOT_CODE = frozenset({"string", "comment", "string_content", "raw_string_literal", "interpreted_string_literal",
                       "raw_string_literal_content", "line_comment", "block_comment", "concatenated_string"})
_MACRO = frozenset({"token_tree", "macro_invocation", "macro_definition"})


def find_repo_root(path: Path) -> Path | None:
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def source_files(path: Path, lang: str) -> list[Path]:
    if find_repo_root(path) is not None:
        out = subprocess.run(
            ["git", "-C", str(path), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")
        files = [path / p for p in out.split("\0") if p]
    else:
        files = [Path(d) / f for d, _, fs in os.walk(path) for f in fs if ".git" not in Path(d).parts]
    return sorted(p for p in files if p.suffix in SUFFIXES[lang] and p.is_file())


def regex_hits(data: bytes, lang: str) -> list[tuple[int, str, str, str]]:
    """(1-based line, category, name, line text) for every regex definition."""
    hits = []
    for no, raw in enumerate(data.split(b"\n"), 1):
        line = raw.decode("utf-8", "replace")
        for category, pattern in PATTERNS[lang]:
            m = pattern.match(line)
            if m:
                hits.append((no, category, m.group(1), line.strip()))
                break
    return hits


class NotCode:
    """Whether a line's first character sits inside a string or comment ("text"), or
    inside a macro's unparsed token tree ("macro": real code tree-sitter cannot see)."""

    def __init__(self, lang: str):
        from tree_sitter_language_pack import get_parser

        self.parser = get_parser(lang)  # type: ignore[arg-type]

    def lines(self, data: bytes, wanted: list[int]) -> dict[int, str]:
        tree = self.parser.parse(data)
        lines = data.split(b"\n")
        out: dict[int, str] = {}
        for no in wanted:
            text = lines[no - 1]
            col = len(text) - len(text.lstrip())
            node = tree.root_node.descendant_for_point_range((no - 1, col), (no - 1, col))
            while node is not None:
                if node.type in _NOT_CODE:
                    out[no] = "text"
                    break
                if node.type in _MACRO:
                    out[no] = "macro"
                    break
                node = node.parent
        return out


def header_line(sym: dict, file_lines: list[bytes]) -> int:
    """The line the symbol's signature starts on (its span may begin at decorators)."""
    start, end = sym["lines"]
    first = (sym.get("signature") or "").split("\n", 1)[0].strip()
    if first:
        needle = first.encode("utf-8", "replace")
        for no in range(start, min(end, len(file_lines)) + 1):
            if needle in file_lines[no - 1]:
                return no
    return start


def run_structure(tldrs: str, path: Path) -> dict:
    env = dict(os.environ)
    tmp = None
    if "SYMBOLPACK_DIR" not in env:
        tmp = tempfile.mkdtemp(prefix="sp-cov-")
        env["SYMBOLPACK_DIR"] = tmp
    try:
        proc = subprocess.run([tldrs, "structure", str(path), "--format", "json"], env=env,
                              cwd=tempfile.gettempdir(), capture_output=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"coverage_regex: tldrs structure failed: {proc.stderr.decode(errors='replace')}")
    return json.loads(proc.stdout)


def find_tldrs() -> str:
    here = Path(sys.executable).parent / "tldrs"
    if here.exists():
        return str(here)
    found = shutil.which("tldrs")
    if found:
        return found
    raise SystemExit("coverage_regex: cannot find the tldrs executable (use --tldrs)")


def coverage(path: Path, lang: str, tldrs: str, sample: int, seed: int = 0) -> dict:
    path = path.resolve()
    root = find_repo_root(path) or path
    doc = run_structure(tldrs, path)
    by_file: dict[Path, list[dict]] = {}
    for f in doc.get("files", []):
        p = Path(f["path"])
        by_file[p if p.is_absolute() else root / p] = f.get("symbols", [])

    not_code = NotCode(lang)
    total = Counter()
    found = Counter()
    other_kind = Counter()
    in_string = Counter()
    in_macro = Counter()
    kinds_seen = Counter()
    misses: list[dict] = []
    other_kind_samples: list[dict] = []
    files = source_files(path, lang)
    unindexed = 0
    for file in files:
        data = file.read_bytes()
        hits = regex_hits(data, lang)
        if not hits:
            continue
        lines = data.split(b"\n")
        symbols = by_file.get(file)
        if symbols is None:
            unindexed += 1
            symbols = []
        index: dict[tuple[str, int], set[str]] = defaultdict(set)
        for sym in symbols:
            index[(sym["name"], header_line(sym, lines))].add(sym["kind"])
            kinds_seen[sym["kind"]] += 1
        noncode = not_code.lines(data, [h[0] for h in hits])
        rel = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
        for no, category, name, text in hits:
            where = noncode.get(no)
            if where == "text":
                in_string[category] += 1
                continue
            total[category] += 1
            kinds = index.get((name, no), set())
            if kinds & KINDS:
                found[category] += 1
            else:
                entry = {"path": rel, "line": no, "category": category, "name": name, "text": text[:160]}
                if where == "macro":
                    in_macro[category] += 1
                    entry["in_macro"] = True
                if kinds:
                    other_kind[category] += 1
                    entry["found_as"] = sorted(kinds)
                    other_kind_samples.append(entry)
                misses.append(entry)

    rng = random.Random(seed)
    sample_misses = sorted(rng.sample(misses, min(sample, len(misses))), key=lambda m: (m["path"], m["line"]))
    all_total, all_found = sum(total.values()), sum(found.values())
    return {
        "path": str(path),
        "language": lang,
        "files": len(files),
        "files_not_in_structure_output": unindexed,
        "regex_hits": all_total,
        "found": all_found,
        "percent": 100.0 * all_found / all_total if all_total else None,
        "by_category": {c: {"regex": total[c], "found": found[c],
                            "percent": 100.0 * found[c] / total[c] if total[c] else None,
                            "found_with_other_kind": other_kind[c],
                            "missed_inside_macro_body": in_macro[c],
                            "skipped_in_string_or_comment": in_string[c]}
                        for c, _ in PATTERNS[lang]},
        "symbol_kinds_in_output": dict(kinds_seen.most_common()),
        "miss_count": len(misses),
        "miss_names": dict(Counter(m["name"] for m in misses).most_common(15)),
        "sample_misses": sample_misses,
        "found_with_other_kind_sample": other_kind_samples[:sample],
    }


def print_report(r: dict) -> None:
    pct = f"{r['percent']:.1f}%" if r["percent"] is not None else "n/a"
    print(f"{r['language']}: {r['path']}  ({r['files']} files, {r['files_not_in_structure_output']} "
          f"with regex hits missing from structure output)")
    print(f"  found {r['found']}/{r['regex_hits']} regex definitions = {pct}")
    for c, v in r["by_category"].items():
        p = f"{v['percent']:.1f}%" if v["percent"] is not None else "n/a"
        extra = f", {v['found_with_other_kind']} only as another kind" if v["found_with_other_kind"] else ""
        if v["missed_inside_macro_body"]:
            extra += f", {v['missed_inside_macro_body']} misses inside macro bodies"
        print(f"    {c:<7} {v['found']:>6}/{v['regex']:<6} {p:>7}   "
              f"({v['skipped_in_string_or_comment']} regex hits in strings/comments not counted{extra})")
    print(f"  symbol kinds in output: {r['symbol_kinds_in_output']}")
    if r["miss_count"]:
        print(f"  {r['miss_count']} misses; most common names: {r['miss_names']}")
        print("  sample misses:")
        for m in r["sample_misses"]:
            extra = f"  [found as {', '.join(m['found_as'])}]" if "found_as" in m else ""
            extra += "  [inside a macro body]" if m.get("in_macro") else ""
            print(f"    {m['path']}:{m['line']}  {m['text']}{extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", help="a repository (or a directory in one)")
    ap.add_argument("--lang", required=True, choices=sorted(PATTERNS))
    ap.add_argument("--misses", type=int, default=20, help="how many misses to sample (default 20)")
    ap.add_argument("--tldrs", default=None, help="the tldrs executable (default: next to this python)")
    ap.add_argument("--json", action="store_true", help="emit the results as JSON")
    args = ap.parse_args(argv)
    path = Path(args.path).expanduser()
    if not path.is_dir():
        ap.error(f"no such directory: {path}")
    result = coverage(path, args.lang, args.tldrs or find_tldrs(), args.misses)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
