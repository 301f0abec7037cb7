"""TOML edited as text: the scanner finds statements across multi-line values, and a table
appended is deleted back to the same bytes, whatever the file's last line looked like."""

from __future__ import annotations

import tomllib

import pytest

from symbolpack.integrations.installers import toml_edit as te

BLOCK = '[mcp_servers.symbolpack]\ncommand = "tldrs"\nargs = ["mcp"]\n'


@pytest.mark.parametrize("text", [
    "", "\n", 'model = "x"', 'model = "x"\n', 'model = "x"\n\n', 'model = "x"\n\n\n',
    'model = "x"\r\n', '# only a comment', '[a]\nb = 1 # c\n',
])
def test_append_then_delete_gives_the_same_bytes(text):
    added = te.append_table(text, BLOCK)
    assert tomllib.loads(added)["mcp_servers"]["symbolpack"] == {"command": "tldrs", "args": ["mcp"]}
    table = te.find_table(added, ("mcp_servers", "symbolpack"))
    assert te.delete_table(added, table) == text


def test_the_scanner_sees_through_multiline_arrays_and_strings():
    text = ('x = [\n  "a", # a comment ]\n  "]",\n]\ns = """\n[not.a.table]\n"""\nt = \'\'\'\n[nor]\'\'\'\n'
            '[mcp_servers."symbolpack"]  # ours\ncommand = \'old\'\nargs = [\n  "mcp",\n]\n\n[after]\n')
    stmts = te.scan(text)
    assert [(s.kind, s.key) for s in stmts] == [
        ("key", ("x",)), ("key", ("s",)), ("key", ("t",)), ("table", ("mcp_servers", "symbolpack")),
        ("key", ("command",)), ("key", ("args",)), ("table", ("after",))]
    table = te.find_table(text, ("mcp_servers", "symbolpack"))
    new = te.set_key(text, table, "args", '["mcp", "--x"]')
    assert tomllib.loads(new)["mcp_servers"]["symbolpack"]["args"] == ["mcp", "--x"]
    assert new.replace('["mcp", "--x"]', '[\n  "mcp",\n]') == text


def test_set_and_delete_a_key_in_place():
    text = '[t]\na = 1 # keep\nb = 2\n\n[u]\nc = 3\n'
    table = te.find_table(text, ("t",))
    added = te.set_key(text, table, "d", '"x"')
    assert added == '[t]\na = 1 # keep\nb = 2\nd = "x"\n\n[u]\nc = 3\n'
    assert te.delete_key(added, te.find_table(added, ("t",)), "d") == text
    assert te.delete_key(text, table, "a") == '[t]\nb = 2\n\n[u]\nc = 3\n'


def test_a_key_goes_under_a_header_that_has_none_and_no_final_newline():
    text = "[t]"
    assert te.set_key(text, te.find_table(text, ("t",)), "a", "1") == "[t]\na = 1\n"


def test_subtables_are_noticed():
    text = '[mcp_servers.symbolpack]\n[mcp_servers.symbolpack.env]\nFOO = "1"\n'
    table = te.find_table(text, ("mcp_servers", "symbolpack"))
    assert table.subtables and table.keys == ()


def test_unclosed_values_are_errors():
    with pytest.raises(te.TomlScanError):
        te.scan('a = [1, 2\n')
    with pytest.raises(te.TomlScanError):
        te.scan('a = """open\n')
