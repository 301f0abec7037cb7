"""The package's layers hold: folders import only from folders below them, and no
module imports itself back through others (no cycles).

Every import counts: at module level, inside functions (the lazy imports the
start-up path relies on) and under `TYPE_CHECKING`. The order is ARCHITECTURE.md's
folder table; the test checks the table names the same folders in the same order.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "symbolpack"

# Bottom to top. Folders on one rank are siblings: neither imports the other.
LAYERS: list[tuple[str, ...]] = [
    ("base",),
    ("engine",),
    ("reads",),
    ("state",),
    ("packs",),
    ("api",),
    ("integrations", "evaluation"),
    ("cli",),
]
FRONT_DOOR = {"symbolpack", "symbolpack._version"}  # the package's __init__ and its version


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under *package*."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's own modules *name* imports, wherever the import statement sits."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target not in known and "." in target:
            target = target.rpartition(".")[0]
        if target in known and target != name:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:  # `from . import x` names a module; `from .m import f` names m
                add(f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                spec = node.args[0].value
                if spec.startswith("."):
                    dots = len(spec) - len(spec.lstrip("."))
                    base = here.split(".")[: len(here.split(".")) - (dots - 1)]
                    spec = ".".join(base + [spec.lstrip(".")])
                add(spec)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def folder(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and module not in FRONT_DOOR else None


def upward_imports(graph: dict[str, set[str]], layers: list[tuple[str, ...]]) -> list[str]:
    rank = {f: i for i, names in enumerate(layers) for f in names}
    bad = []
    for module, targets in sorted(graph.items()):
        mine = folder(module)
        if mine is None:
            continue
        for target in sorted(targets):
            theirs = folder(target)
            if target == "symbolpack._version" or theirs == mine:
                continue
            if theirs is None or rank[theirs] >= rank[mine]:
                bad.append(f"{module} ({mine}) imports {target} ({theirs or 'the package front door'})")
    return bad


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# --------------------------------------------------------------------------- the package itself

def test_the_top_of_the_package_holds_only_the_front_door_and_the_layer_folders():
    folders = {f for names in LAYERS for f in names}
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", "_version.py", "py.typed", *folders}
    for name in folders:
        assert (PACKAGE / name / "__init__.py").is_file(), f"{name}/ is not a package"


def test_no_folder_imports_from_a_folder_above_it():
    assert upward_imports(import_graph(PACKAGE), LAYERS) == []


def test_no_module_imports_itself_back_through_others():
    assert cycles(import_graph(PACKAGE)) == []


def test_architecture_md_lists_the_folders_bottom_to_top_as_the_test_does():
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z]+)/` \| (\d+) \|", table, re.M)
    assert rows, "ARCHITECTURE.md's layout table is missing"
    listed: dict[int, list[str]] = {}
    for name, rank in rows:
        listed.setdefault(int(rank), []).append(name)
    assert [tuple(sorted(listed[k])) for k in sorted(listed)] == [tuple(sorted(names)) for names in LAYERS]


# --------------------------------------------------------------------------- the checks can fail

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "symbolpack"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize("statement", [
    "from ..reads.read import decide",  # module level
    "def f():\n    from ..reads import read\n",  # inside a function
    "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ..reads.read import decide\n",  # for type checkers only
    "import symbolpack.reads.read\n",  # absolute
    "def f():\n    from importlib import import_module\n    import_module('symbolpack.reads.read')\n",
])
def test_an_upward_import_is_found_wherever_it_sits(tmp_path, statement):
    root = _package(tmp_path, {"base/__init__.py": "", "base/log.py": statement,
                               "reads/__init__.py": "", "reads/read.py": "def decide(): pass\n"})
    assert upward_imports(import_graph(root), LAYERS) == [
        "symbolpack.base.log (base) imports symbolpack.reads.read (reads)"]


def test_siblings_on_one_rank_may_not_import_each_other(tmp_path):
    root = _package(tmp_path, {"integrations/__init__.py": "", "integrations/mcp.py": "from ..evaluation import oracle\n",
                               "evaluation/__init__.py": "", "evaluation/oracle.py": ""})
    assert upward_imports(import_graph(root), LAYERS) == [
        "symbolpack.integrations.mcp (integrations) imports symbolpack.evaluation.oracle (evaluation)"]


def test_a_downward_import_and_one_within_a_folder_pass(tmp_path):
    root = _package(tmp_path, {"base/__init__.py": "", "base/log.py": "",
                               "reads/__init__.py": "", "reads/views.py": "",
                               "reads/read.py": "from ..base import log\nfrom .views import x\n"})
    graph = import_graph(root)
    assert graph["symbolpack.reads.read"] == {"symbolpack.base.log", "symbolpack.reads.views"}
    assert upward_imports(graph, LAYERS) == []


def test_a_cycle_through_a_lazy_import_is_found(tmp_path):
    root = _package(tmp_path, {"engine/__init__.py": "", "engine/index.py": "from .outline import f\n",
                               "engine/outline.py": "def f():\n    from .rendercache import g\n",
                               "engine/rendercache.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n"
                                                        "    from .index import Index\n"})
    assert cycles(import_graph(root)) == [
        ["symbolpack.engine.index", "symbolpack.engine.outline", "symbolpack.engine.rendercache"]]


def test_a_package_and_its_own_module_importing_each_other_is_a_cycle(tmp_path):
    root = _package(tmp_path, {"packs/__init__.py": "", "packs/resolve/__init__.py": "def r():\n    from .go import G\n",
                               "packs/resolve/go.py": "from . import Resolver\n"})
    assert cycles(import_graph(root)) == [["symbolpack.packs.resolve", "symbolpack.packs.resolve.go"]]
