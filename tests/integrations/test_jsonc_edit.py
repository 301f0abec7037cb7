"""JSON with comments as Gemini CLI 0.61 reads it, edited as text: what parses, and inserts
that a delete undoes byte for byte."""

from __future__ import annotations

import pytest

from symbolpack.integrations.installers import jsonc_edit as jc

LAYOUTS = {  # name -> a settings file as a person might have written it
    "comments": '{\n  // my theme\n  "theme": "Dracula", /* inline */\n  "ui": {"hideBanner": true} // trailing\n}\n',
    "odd indent": '{\n     "a": 1,\n     "b": {\n\t"c": [1,\n 2]\n     }\n}',
    "crlf": '{\r\n  // note\r\n  "theme": "x"\r\n}\r\n',
    "tabs": '{\n\t"theme": "x"\n}\n',
    "one line": '{"theme": "x"}',
    "empty": "{}",
    "block comment last": '{\n  "a": 1\n  /* the end */\n}\n',
    "commas in comments": '{\n  "a": 1 /* x, y */, // p, q\n  "b": {"c": 2} /* r, s */\n}\n',
    "url in string": '{\n  "proxy": "http://example.com//x" // not a comment inside the string\n}\n',
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_insert_then_delete_gives_the_same_bytes(name):
    text = LAYOUTS[name]
    root = jc.parse(text)
    value = {"symbolpack": {"command": "tldrs", "args": ["mcp"]}}
    added = jc.insert_member(text, root, "mcpServers", value)
    after = jc.parse(added)
    assert after.value == {**root.value, "mcpServers": value}
    assert jc.delete_member(added, after, "mcpServers") == text


def test_an_empty_object_with_inner_space_comes_back_closed():
    text = "{ }\n"
    added = jc.insert_member(text, jc.parse(text), "k", 1)
    assert added == '{\n  "k": 1\n}\n'
    assert jc.delete_member(added, jc.parse(added), "k") == "{}\n"


def test_inserted_members_take_the_files_indentation_and_line_ends():
    text = '{\r\n    "mcpServers": {\r\n        "git": {"command": "uvx"}\r\n    }\r\n}\r\n'
    root = jc.parse(text)
    servers = jc.find(root, ("mcpServers",))
    new = jc.insert_member(text, servers, "symbolpack", {"command": "tldrs", "args": ["mcp"]})
    assert new == ('{\r\n    "mcpServers": {\r\n        "git": {"command": "uvx"},\r\n'
                   '        "symbolpack": {\r\n            "command": "tldrs",\r\n            "args": ["mcp"]\r\n'
                   '        }\r\n    }\r\n}\r\n')


def test_a_comment_after_the_last_member_stays_on_its_line():
    text = '{\n  "a": 1 // about a\n}\n'
    new = jc.insert_member(text, jc.parse(text), "b", 2)
    assert new == '{\n  "a": 1, // about a\n  "b": 2\n}\n'


def test_deleting_a_member_that_is_not_last_keeps_the_rest():
    text = '{\n  "command": "tldrs",\n  "args": ["mcp"],\n  "trust": true // mine\n}\n'
    once = jc.delete_member(text, jc.parse(text), "command")
    twice = jc.delete_member(once, jc.parse(once), "args")
    assert twice == '{\n  "trust": true // mine\n}\n'


def test_commas_inside_comments_are_not_the_separator():
    text = '{"a": 1 /* x, y */, "b": 2, /* p, */ "c": 3}'
    once = jc.delete_member(text, jc.parse(text), "c")
    assert once == '{"a": 1 /* x, y */, "b": 2}'  # a comment just before a member goes with it
    assert jc.loads(jc.delete_member(text, jc.parse(text), "b")) == {"a": 1, "c": 3}


def test_replacing_a_value_keeps_everything_around_it():
    text = '{"command": /* old */ "old", "args": []}'
    root = jc.parse(text)
    assert jc.replace_value(text, root.member("command").value, "new") == '{"command": /* old */ "new", "args": []}'


@pytest.mark.parametrize("text, where", [
    ('{"a": 1,}', "trailing comma"),           # strip-json-comments 3 keeps commas; JSON.parse refuses them
    ('{"a": [1, 2,]}', "trailing comma"),
    ('\ufeff{"a": 1}', "unexpected"),           # JSON.parse refuses a byte order mark
    ('{"a": 1} x', "unexpected"),
    ("{'a': 1}", "unexpected \"'\" at line 1, column 2"),
    ('{"a": 1, }', "expected a key at line 1, column 10, found a trailing comma"),
    ('{"a" 1}', "expected ':'"),
    ("", "end of file"),
])
def test_what_gemini_refuses_is_refused_with_a_position(text, where):
    with pytest.raises(jc.JsoncError, match=where):
        jc.parse(text)


def test_comments_of_both_kinds_are_ignored_and_strings_are_not_comments():
    text = '/* head */ {"a": "//x", /* mid */ "b": [1, /* c */ 2] // tail\n}'
    assert jc.loads(text) == {"a": "//x", "b": [1, 2]}


def test_an_unclosed_block_comment_runs_to_the_end_as_in_gemini():
    assert jc.loads('{"a": 1} /* open') == {"a": 1}
    with pytest.raises(jc.JsoncError, match="end of file"):
        jc.parse('{"a": /* open 1}')


def test_duplicate_keys_resolve_as_json_parse_does():
    root = jc.parse('{"a": 1, "a": 2}')
    assert root.value == {"a": 2} and root.member("a").value.value == 2


# --------------------------------------------------------------------------- any layout

from hypothesis import given, settings, strategies as st  # noqa: E402

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)), max_leaves=8)


@st.composite
def layouts(draw):
    """A JSON object dumped in some layout, with comments sprinkled where JSON allows whitespace."""
    data = draw(st.dictionaries(st.text(max_size=6).filter(lambda k: k != "symbolpack"), _values, max_size=4))
    indent = draw(st.sampled_from([None, 0, 1, 2, 4, "\t"]))
    text = jc_dumps(data, indent)
    comments = draw(st.lists(st.sampled_from([" // c, {x}\n", " /* a, b */ ", "/**/"]), max_size=4))
    spots, in_string, escaped = [], False, False
    for i, ch in enumerate(text):  # where JSON allows whitespace: after a separator, outside strings
        if in_string:
            in_string, escaped = (ch != '"' or escaped), (ch == "\\" and not escaped)
        elif ch == '"':
            in_string = True
        elif ch in ",{[:":
            spots.append(i + 1)
    for comment in comments:
        at = draw(st.sampled_from(spots))
        text = text[:at] + comment + text[at:]
        spots = [s + len(comment) if s >= at else s for s in spots]
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return data, text + draw(st.sampled_from(["", "\n", "\r\n"]))


def jc_dumps(data, indent):
    import json

    return json.dumps(data, indent=indent)


@settings(max_examples=300, deadline=None)
@given(layouts(), _values)
def test_any_layout_parses_to_its_data_and_an_insert_is_undone_exactly(case, value):
    data, text = case
    root = jc.parse(text)
    assert root.value == data
    added = jc.insert_member(text, root, "symbolpack", value)
    after = jc.parse(added)
    assert after.value == {**data, "symbolpack": value}
    assert jc.delete_member(added, after, "symbolpack") == text
