"""The package as an index would ship it: the wheel and the sdist built from this
checkout, and the wheel installed into a brand-new venv, where `tldrs` must work.

The new venv gets the wheel alone (`--no-deps --no-index`: no network). Its
dependencies are the ones this interpreter already has, made visible by a `.pth` file;
a `.pth` line adds a directory to sys.path without reading the `.pth` files inside it,
so the checkout's editable install stays out, and the tests assert that what runs is
the wheel's copy. The build runs without build isolation, with the hatchling of the
`dev` extra, so it needs no index either. See docs/RELEASING.md.
"""

from __future__ import annotations

import email.message
import email.parser
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from conftest import git

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # a dependency of the project on 3.10
    import tomli as tomllib

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _checkout_version() -> str:
    text = (ROOT / "symbolpack" / "_version.py").read_text()
    found = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.M)
    assert found, "symbolpack/_version.py sets no __version__"
    return found.group(1)


def _run(cmd: list[str | Path], **kwargs) -> subprocess.CompletedProcess:
    """Run a set-up step; one clear failure (the command and its stderr) if it fails."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300, **kwargs)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stderr[-3000:]}", pytrace=False)
    return proc


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Installed:
    venv: Path
    python: Path
    tldrs: Path
    site_packages: Path
    dist_info: Path
    repo: Path  # a git repository outside the checkout, with BIG.py committed
    env: dict


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    if find_spec("hatchling") is None:
        pytest.fail("hatchling, the build back end, is not importable: install the dev extra "
                    "(pip install -e '.[dev]'); the wheel is built without build isolation, offline", pytrace=False)
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
          "--wheel-dir", dist, ROOT])
    _run([sys.executable, "-m", "hatchling", "build", "--target", "sdist", "--directory", dist], cwd=ROOT)
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())
    return Built(wheels[0], sdists[0])


def _big_python_file(min_tokens: int) -> str:
    """A module of long functions, at least *min_tokens* tokens as the product counts them."""
    from symbolpack.base.tokens import count_tokens

    lines = ['"""A module big enough to be read as a skeleton."""', "", "import os", ""]
    k = 0
    while count_tokens("\n".join(lines)) < min_tokens:
        lines += [f"def compute_{k}(value, other=None):", f'    """Compute result {k}."""']
        lines += [f"    step_{i} = value * {i} + len(os.sep) + len(str(other))" for i in range(12)]
        lines += ["    return value", "", ""]
        k += 1
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Installed:
    from symbolpack.base.settings import DEFAULT_SMALL_FILE_TOKENS

    venv = tmp_path_factory.mktemp("wheel-venv") / "venv"
    _run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", built.wheel])
    site_packages = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                         .stdout.strip())
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages / "_symbolpack_test_deps.pth").write_text("".join(f"{p}\n" for p in ours))
    dist_infos = sorted(site_packages.glob("symbolpack-*.dist-info"))
    assert len(dist_infos) == 1, dist_infos

    repo = tmp_path_factory.mktemp("outside") / "repo"
    assert not repo.is_relative_to(ROOT)
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    # twice the default threshold: the read must be a skeleton under the default setting
    (repo / "BIG.py").write_text(_big_python_file(2 * DEFAULT_SMALL_FILE_TOKENS))
    git(repo, "add", "BIG.py")
    git(repo, "commit", "-q", "-m", "big file")

    # the environment of a user's shell: none of this test run's symbolpack settings
    # (conftest lowers the skeleton threshold for every process), the default threshold said aloud
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SYMBOLPACK_") and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               XDG_STATE_HOME=str(tmp_path_factory.mktemp("xdg-state")),
               SYMBOLPACK_SMALL_FILE_TOKENS=str(DEFAULT_SMALL_FILE_TOKENS))
    return Installed(venv, python, venv / "bin" / "tldrs", site_packages, dist_infos[0], repo, env)


def _tldrs(inst: Installed, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(inst.tldrs), *args], cwd=inst.repo, env=inst.env, capture_output=True, text=True,
                          timeout=120)


def _metadata(inst: Installed) -> email.message.Message:
    return email.parser.Parser().parsestr((inst.dist_info / "METADATA").read_text(encoding="utf-8"))


# -- the archives ---------------------------------------------------------------------


def test_the_wheel_carries_the_queries_the_pi_extension_and_the_license(built):
    with zipfile.ZipFile(built.wheel) as wheel:
        names = set(wheel.namelist())
        licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(licenses) == 1, sorted(n for n in names if ".dist-info/" in n)
        assert wheel.read(licenses[0]) == (ROOT / "LICENSE").read_bytes()
    queries = sorted(p.name for p in (ROOT / "queries").glob("*.scm"))
    assert queries, "no queries/*.scm in the checkout"
    missing = [f"symbolpack/queries/{q}" for q in queries if f"symbolpack/queries/{q}" not in names]
    missing += [n for n in ("symbolpack/integrations/pi/symbolpack.ts", "symbolpack/py.typed") if n not in names]
    assert missing == []
    assert [n for n in names if "__pycache__" in n or n.endswith(".pyc")] == []


def test_the_sdist_carries_license_readme_queries_and_tests(built):
    prefix = f"symbolpack-{_checkout_version()}/"
    with tarfile.open(built.sdist) as sdist:
        members = {m.name for m in sdist.getmembers() if m.isfile()}
    assert all(m.startswith(prefix) for m in members), sorted(members)[:5]
    inside = {m[len(prefix):] for m in members}

    def files_under(folder: str) -> list[str]:
        return [p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
                if p.is_file() and "__pycache__" not in p.parts]

    wanted = ["LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", *files_under("queries"), *files_under("tests")]
    assert "tests/test_packaging.py" in wanted and "queries/python.scm" in wanted
    assert [w for w in wanted if w not in inside] == []


# -- the installed wheel --------------------------------------------------------------


def test_the_installed_metadata_has_the_license_urls_classifiers_and_dependencies(installed):
    meta = _metadata(installed)
    assert meta["Name"] == "symbolpack"
    assert meta["Version"] == _checkout_version()
    assert meta["License-Expression"] == PYPROJECT["license"] == "MIT"
    assert "LICENSE" in meta.get_all("License-File", [])
    assert (installed.dist_info / "licenses" / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert "symbolpack authors" in (meta["Author"] or "") + (meta["Author-email"] or "")
    assert meta["Requires-Python"] == PYPROJECT["requires-python"]

    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL", []))
    assert urls == PYPROJECT["urls"]
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values()), urls

    classifiers = meta.get_all("Classifier", [])
    assert classifiers == PYPROJECT["classifiers"]
    for wanted in ("Development Status :: ", "Environment :: Console", "Intended Audience :: Developers",
                   "Operating System :: ", "Topic :: Software Development", "Typing :: Typed"):
        assert any(c.startswith(wanted) for c in classifiers), wanted
    # PEP 639: a License-Expression replaces the "License ::" classifiers; both at once is an error
    assert [c for c in classifiers if c.startswith("License ::")] == []
    minors = sorted(int(m) for m in re.findall(r"^Programming Language :: Python :: 3\.(\d+)$",
                                               "\n".join(classifiers), re.M))
    assert minors == list(range(10, 14)), minors
    assert meta["Requires-Python"] == f">=3.{minors[0]}"

    # installed with --no-deps: what the wheel declares is what a user's pip will fetch
    declared = {str(Requirement(r)) for r in meta.get_all("Requires-Dist", []) if "extra ==" not in r}
    assert declared == {str(Requirement(r)) for r in PYPROJECT["dependencies"]}
    keywords = set((meta["Keywords"] or "").split(","))
    assert keywords == set(PYPROJECT["keywords"]) and keywords


def test_what_runs_in_the_new_venv_is_the_wheels_copy(installed):
    probe = ("import symbolpack; from symbolpack.engine.languages import queries_dir; "
             "print(symbolpack.__file__); print(queries_dir())")
    proc = subprocess.run([str(installed.python), "-c", probe], cwd=installed.repo, env=installed.env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    module_file, queries = (Path(line) for line in proc.stdout.splitlines())
    assert module_file.is_relative_to(installed.site_packages), module_file
    assert Path(queries).is_relative_to(installed.site_packages), queries
    assert not module_file.resolve().is_relative_to(ROOT)


def test_tldrs_version_is_the_checkouts(installed):
    proc = _tldrs(installed, "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"symbolpack {_checkout_version()}"


def test_a_big_file_is_read_as_a_skeleton(installed):
    proc = _tldrs(installed, "read", "BIG.py", "--session-id", "s1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[SKELETON] BIG.py"), proc.stdout[:500]
    assert " elided: " in proc.stdout
    assert len(proc.stdout) < len((installed.repo / "BIG.py").read_text())


def test_the_embedded_eval_runs_and_the_oracle_holds(installed):
    proc = _tldrs(installed, "eval")
    assert proc.returncode == 0, proc.stderr[-2000:]
    for line in ("tokens: plain reads ", "oracle: every response held (0 failures)", "finished in "):
        assert line in proc.stdout, proc.stdout[-2000:]
