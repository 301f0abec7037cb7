"""Names -> symbols: one lookup for `read --symbol` and `context ENTRY`."""

from __future__ import annotations

import json
import shlex

import pytest

from symbolpack.engine.lookup import resolve
from symbolpack.reads.hints import shell_word
from symbolpack.reads.views import Segment, elided_marker

from conftest import tldrs
from conftest import python_symbols

OVERLOADED = [
    "from typing import overload",
    "",
    "class A:",
    "    @overload",
    "    def f(self, x: int) -> int: ...",
    "    @overload",
    "    def f(self, x: str) -> str: ...",
    "    def f(self, x):",
    '        """The implementation."""',
    "        return x",
]


def test_a_name_shared_by_overloads_names_the_implementation():
    syms = python_symbols(OVERLOADED)
    assert resolve("A.f", syms).lines == (8, 10)
    assert resolve("f", syms).lines == (8, 10)
    assert resolve("A.f#2", syms).lines == (6, 7)  # an explicit local id still picks that one


def test_one_line_overloads_alike_are_no_stubs_of_one_another(make_repo):
    """C#'s `=> expr` overloads have their body on their last line alone, as a stub has:
    the last of two alike was read as the implementation, so a real agent asking for
    `PrecisionScale` and `PrecisionScale#2` got the second one only."""
    source = ["public static class Ext {",
              "    /// <summary>Scale for a decimal.</summary>",
              "    public static int PrecisionScale(this decimal d, int p)",
              "        => Check(d, p);",
              "",
              "    /// <summary>Scale for a nullable decimal.</summary>",
              "    public static int PrecisionScale(this decimal? d, int p)",
              "        => Check(d ?? 0, p);",
              "}"]
    root = make_repo({"Ext.cs": "\n".join(source) + "\n"})
    both = tldrs(root, "read", "Ext.cs", "--symbol", "Ext.PrecisionScale", "--session-id", "s", check=True).stdout
    assert both.splitlines()[0].startswith(
        "[SYMBOLS] Ext.cs: 2 symbols, each whole, as it is now: Ext.PrecisionScale (lines 2-4, declared on 3), "
        "Ext.PrecisionScale#2 (lines 6-8, declared on 7)."), both


def test_a_class_named_like_its_constructors_is_the_class(make_repo):
    """C#'s constructors share their class's name: `AutoMapperConfigurationException`
    was refused as ambiguous between the class and its three constructors, and a real
    agent spent a call on it. The class holds them: the name reads the class."""
    source = ["namespace Mapping;", "", "public class ConfigError : Exception", "{",
              "    public ConfigError() { }",
              "    public ConfigError(string message) : base(message) { }",
              "    public ConfigError(string message, Exception inner) : base(message, inner) { }",
              "    public ConfigError(Exception inner) : base(inner.Message, inner) { }",
              "    public string Detail { get; set; }", "}"]
    root = make_repo({"ConfigError.cs": "\n".join(source) + "\n"})
    out = tldrs(root, "read", "ConfigError.cs", "--symbol", "ConfigError", "--session-id", "s", check=True).stdout
    assert [line.split("\t")[0].strip() for line in out.splitlines() if "\t" in line] == [str(n) for n in range(3, 11)], out


def test_a_name_defined_several_times_reads_them_all_and_a_local_id_one(make_repo):
    """Not overloads: a definition per platform (Rust's macro per `cfg`), each whole.
    The name reads every one of them, the header naming each by its local id (one
    of them, whichever, made real agents re-read the others by lines); `name#2` reads
    the second alone."""
    source = ["import sys", "", "if sys.platform == 'win32':", "    def home():", "        import os",
              "        return os.environ['USERPROFILE']", "else:", "    def home():",
              "        import os", "        # the longer one", "        return os.environ['HOME']"]
    root = make_repo({"m.py": "\n".join(source) + "\n"})
    both = tldrs(root, "read", "m.py", "--symbol", "home", "--session-id", "s", check=True).stdout
    assert both.splitlines()[0] == (
        '[SYMBOLS] m.py: 2 symbols, each whole, as it is now: home (lines 4-6), home#2 (lines 8-11). "home" '
        'names both (overloads, or the same name in several scopes); pass one of these ids for that one alone.')
    assert [line.split("\t")[0].strip() for line in both.splitlines()[1:]] == ["4", "5", "6", "8", "9", "10", "11"]
    second = tldrs(root, "read", "m.py", "--symbol", "home#2", "--session-id", "s", check=True).stdout
    assert "'HOME'" in second and "USERPROFILE" not in second


def test_resolve_all_gives_one_family_whole_and_refuses_many_scopes():
    from symbolpack.engine.lookup import resolve_all
    from symbolpack.base.errors import UsageError

    syms = python_symbols(OVERLOADED)
    assert [s.lines for s in resolve_all("f", syms)] == [(8, 10)]  # typing overloads: the implementation
    five = "\n".join(f"class C{i}:\n    def get(self):\n        return {i}\n" for i in range(5)).split("\n")
    with pytest.raises(UsageError, match="ambiguous"):
        resolve_all("get", python_symbols(five))
    three = five[:12]
    assert [s.qualname for s in resolve_all("get", python_symbols(three))] == ["C0.get", "C1.get", "C2.get"]
    assert [s.qualname for s in resolve_all("C1.get", python_symbols(three))] == ["C1.get"]


def test_read_and_context_pick_the_same_symbol(make_repo):
    root = make_repo({"m.py": "\n".join(OVERLOADED) + "\n"})
    read = json.loads(tldrs(root, "read", "m.py", "--symbol", "A.f", "--session-id", "s",
                            "--format", "json", check=True).stdout)
    pack = json.loads(tldrs(root, "context", "m.py:A.f", "--no-delta", "--format", "json", check=True).stdout)
    entry = [s for s in pack["slices"] if s["id"] == pack["entry"]][0]
    assert read["scope"] == {"start": entry["lines"][0], "end": entry["lines"][1]} == {"start": 8, "end": 10}


def test_elision_hints_are_one_shell_word_each():
    for name in ("P.new", "impl P.new", "it's", "f#2", "Vec<T>.push"):
        assert shell_word(name) == shlex.quote(name)
        marker = elided_marker(["x"] * 9, Segment("elided", 2, 8, symbol=f"a.rs:rust:{name}"))
        assert shlex.split(marker.split(" elided: ", 1)[1]) == ["--symbol", name]


def test_a_miss_names_each_suggestion_once():
    """Two files defining the same name: the suggestion lists it once, so the five
    names it shows are five different ones."""
    from symbolpack.engine.lookup import no_match_message, rank

    first = python_symbols(["def bench():", "    return 1", "", "def benches():", "    return 2"])
    second = python_symbols(["def bench():", "    return 3"])
    message = no_match_message("bnch", rank("bnch", first + second, limit=10), "the repository")
    names = message.split("did you mean: ", 1)[1].rstrip("?").split(", ")
    assert names.count("bench") == 1 and "benches" in names, message


def test_a_qualified_name_in_the_language_s_own_spelling_or_without_outer_scopes_is_found():
    """Ruby agents wrote `Jar#initialize` and `Helpers.redirect` for `Sinatra.Cookies.Jar.initialize`
    and `Sinatra.Helpers.redirect`, and paid a call for each refusal."""
    from symbolpack.base.errors import UsageError
    from symbolpack.engine.index import parse_bytes
    from symbolpack.engine.symbols import bind

    source = "\n".join(["module Sinatra", "  module Helpers", "    def redirect(uri)", "      uri", "    end", "  end",
                        "  class Jar", "    def initialize(app)", "      @app = app", "    end",
                        "    def redirect(uri)", "      uri", "    end", "  end", "end", ""])
    records, _, error = parse_bytes(source.encode(), "ruby")
    assert not error
    syms = bind("base.rb", "ruby", records)
    assert resolve("Helpers.redirect", syms).qualname == "Sinatra.Helpers.redirect"
    assert resolve("Jar#initialize", syms).qualname == "Sinatra.Jar.initialize"
    assert resolve("Sinatra::Jar#initialize", syms).qualname == "Sinatra.Jar.initialize"
    assert resolve("jar.REDIRECT", syms).qualname == "Sinatra.Jar.redirect"  # case folded last
    with pytest.raises(UsageError, match="ambiguous"):  # a bare name two symbols share stays ambiguous
        resolve("redirect", syms)


def test_a_javascript_method_is_found_by_its_prototype_spelling():
    """A mocha agent asked for `Runner.prototype.hook` (as the code assigns it), was
    shown where the words occur, and read the method by lines."""
    from symbolpack.engine.index import parse_bytes
    from symbolpack.engine.symbols import bind

    source = ("function Runner() {}\n\nRunner.prototype.hook = function (name, fn) {\n  return fn(name);\n};\n")
    records, _, error = parse_bytes(source.encode(), "javascript")
    assert not error
    syms = bind("runner.js", "javascript", records)
    assert resolve("Runner.prototype.hook", syms).qualname == "Runner.hook"


def test_a_rust_method_is_found_without_its_impl_scope():
    """axum agents wrote `Router.has_routes` for `impl Router.has_routes` and were refused."""
    from symbolpack.engine.index import parse_bytes
    from symbolpack.engine.symbols import bind

    source = ("struct Router;\nimpl Router {\n    fn has_routes(&self) -> bool {\n        true\n    }\n}\n"
              "trait Context { fn context(self) -> u8; }\nimpl Context for Option<u8> {\n"
              "    fn context(self) -> u8 {\n        1\n    }\n}\n")
    records, _, error = parse_bytes(source.encode(), "rust")
    assert not error
    syms = bind("mod.rs", "rust", records)
    quals = {s.qualname for s in syms}
    assert "impl Router.has_routes" in quals, quals
    assert resolve("Router.has_routes", syms).qualname == "impl Router.has_routes"
    assert resolve("Router::has_routes", syms).qualname == "impl Router.has_routes"
    target = next(q for q in quals if q.startswith("impl Context for") and q.endswith(".context"))
    assert resolve("Option.context", syms).qualname == target


def test_a_symbols_answer_names_an_overloads_implementation_by_its_name(make_repo):
    """After `@overload` stubs the implementation's local id is `f#3`; the answer calls it
    `A.f`, the name that reads it ("#5" puzzled real agents)."""
    root = make_repo({"m.py": "\n".join(OVERLOADED) + "\n\n\ndef g():\n    return 1\n"})
    out = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "A.f", "--symbol", "g", check=True).stdout
    assert out.splitlines()[0].startswith("[SYMBOLS] m.py: 2 symbols, each whole, as it is now: A.f (lines 8-10")


def test_a_name_without_the_question_mark_its_declaration_ends_in_finds_it():
    """C#'s `explicit operator byte[]?`, asked for as `operator byte[]` by three real
    agents, had come back as the lines around it; Ruby's `empty?` asked as `empty` too."""
    from symbolpack.engine.lookup import resolve
    from symbolpack.engine.symbols import bind, parse_bytes

    source = b"namespace N {\\npublic class JToken {\\n    public static explicit operator byte[]?(JToken v) { return null; }\\n}\\n}\\n"
    records, _, error = parse_bytes(source, "csharp", references=False)
    symbols = bind("JToken.cs", "csharp", records)
    assert error is None
    assert resolve("operator byte[]", symbols).qualname == "N.JToken.operator byte[]?"
    assert resolve("JToken.operator byte[]", symbols).qualname == "N.JToken.operator byte[]?"
