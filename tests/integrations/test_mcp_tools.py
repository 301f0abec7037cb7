"""The MCP tools' schemas and argument checks (pure), and the tools over a real
repository in-process."""

from __future__ import annotations

import os

import pytest

from symbolpack.base.settings import Settings
from symbolpack.integrations.mcp.tools import TOOLS, BadArguments, SymbolpackTools

BY_NAME = {t.name: t for t in TOOLS}


def test_the_schemas_list_each_parameter_once_with_its_type():
    shapes = {t.name: {n: (p["type"], p.get("default")) for n, p in t.listing()["inputSchema"]["properties"].items()}
              for t in TOOLS}
    assert shapes == {
        "read_file": {"path": ("string", None), "offset": ("integer", None), "limit": ("integer", None),
                      "symbol": ("string", None), "symbols": ("array", None), "known": ("array", None),
                      "session_id": ("string", None)},
        "context": {"entry": ("string", None), "depth": ("integer", 2), "budget": ("integer", None),
                    "known": ("array", None), "session_id": ("string", None)},
        "diff_context": {"base": ("string", "HEAD"), "budget": ("integer", None), "no_delta": ("boolean", False),
                         "known": ("array", None), "session_id": ("string", None)},
        "search_symbols": {"query": ("string", None), "limit": ("integer", 10)},
        "refresh": {"path": ("string", None), "offset": ("integer", None), "limit": ("integer", None),
                    "session_id": ("string", None)},
        "session_status": {"session_id": ("string", None)},
    }
    known = BY_NAME["read_file"].listing()["inputSchema"]["properties"]["known"]
    assert known["items"] == {"type": "string"}
    for tool in TOOLS:
        text = str(tool.listing())
        assert "--" not in text and "tldrs " not in text, tool.name  # the tools' words, not the CLI's


def test_arguments_get_their_defaults_and_nulls_count_as_absent():
    assert BY_NAME["context"].arguments({"entry": "f", "budget": None}) == {
        "entry": "f", "depth": 2, "budget": None, "known": None, "session_id": None}
    assert BY_NAME["read_file"].arguments({"path": "a.py", "known": ["k2", "k3"]})["known"] == ["k2", "k3"]
    assert BY_NAME["read_file"].arguments({"path": "a.py", "offset": 3.0})["offset"] == 3  # a whole float
    assert BY_NAME["diff_context"].arguments({}) == {"base": "HEAD", "budget": None, "no_delta": False,
                                                    "known": None, "session_id": None}


@pytest.mark.parametrize("tool,given,message", [
    ("read_file", {"path": "a.py", "offset": 2.5}, 'read_file: argument "offset" must be an integer, got 2.5'),
    ("read_file", {"path": ["a.py"]}, 'read_file: argument "path" must be a string, got ["a.py"]'),
    ("read_file", {"path": 10 ** 60}, 'read_file: argument "path" must be a string, got 1' + "0" * 36 + "..."),
    ("session_status", {"session": "s"}, 'session_status: unknown argument "session"; it takes session_id'),
    ("search_symbols", {}, 'search_symbols: missing required argument "query"'),
    ("read_file", {"path": "a.py", "known": "k2"}, 'read_file: argument "known" must be a list of strings, got "k2"'),
    ("read_file", {"path": "a.py", "known": ["k2", 3]},
     'read_file: argument "known" must be a list of strings, got ["k2", 3]'),
])
def test_bad_arguments_are_one_line(tool, given, message):
    with pytest.raises(BadArguments) as err:
        BY_NAME[tool].arguments(given)
    assert str(err.value) == message and "\n" not in message


def answer_id(text: str) -> str:
    """The id an answer's last line gives the model to pass back."""
    last = text.splitlines()[-1]
    assert last.startswith("[answer "), text
    return last[len("[answer "):].split("]")[0].split(";")[0].split(":")[0]


def test_the_tools_in_process(make_repo, tmp_path):
    root = make_repo({"app.py": "def helper():\n    return 1\n\n\n" + "".join(
        f"def helper_{k}(value):\n    return value + {k}\n\n\n" for k in range(8))})  # a marker costs less
    tools = SymbolpackTools(str(root), Settings(state_dir=str(tmp_path / "state")), "in-process")
    try:
        first = tools.call("read_file", {"path": "app.py"})
        assert first.text.startswith("     1\tdef helper():\n     2\t    return 1\n") and not first.is_error
        ident = answer_id(first.text)
        assert first.text.endswith(f'[answer {ident}] To read app.py again, pass known=["{ident}"] (and the ids '
                                   f'of other answers about it you still see).')
        assert first.commit is not None  # committed by the protocol once the answer is out
        first.commit()
        again = tools.call("read_file", {"path": "app.py", "known": [ident]}).text
        assert again.startswith("[UNCHANGED] app.py: exactly as you already have it from your earlier reads.\n")
        assert again.endswith(f"; relies on {ident}] Next read of this file: known=[\"{ident}\", \"{answer_id(again)}\"]") and answer_id(again) != ident
        # no ids, or ids of nothing this file was answered with: the text again, never a marker
        for known in (None, [], ["nosuchid"], [answer_id(again)]):
            plain = tools.call("read_file", {"path": "app.py", "known": known}).text
            # ids that show nothing of it: said first, so the model does not take them for ignored
            said = ("[FILE] app.py: 36 lines, whole, as it is now: your first whole read of it (the answers you "
                    "passed showed parts of it at most).\n") if known else ""
            assert plain.startswith(said + "     1\tdef helper():"), (known, plain[:200])
        outside = tools.call("read_file", {"path": str(tmp_path / "state")})
        assert outside.is_error and outside.text.startswith(f"{tmp_path / 'state'} is outside the workspace "
                                                            f"({os.path.realpath(root)});")
        found = tools.call("search_symbols", {"query": "helper"})
        assert found.text.startswith("app.py:1-2  function helper") and found.commit is None
    finally:
        tools.close()
