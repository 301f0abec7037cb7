"""Sensitive names: the fast matcher agrees with fnmatch on every glob."""

from __future__ import annotations

import fnmatch

from hypothesis import given, settings
from hypothesis import strategies as st

from symbolpack.engine import sources

NAMES = st.text(alphabet="ab._-*", max_size=8)
GLOBS = st.text(alphabet="ab._-*?[]!", min_size=1, max_size=7)


@settings(max_examples=3000, deadline=None)
@given(extra=st.lists(GLOBS, max_size=3), name=NAMES)
def test_sensitive_names_match_as_fnmatch_matches_them(extra, name):
    patterns = sources.DEFAULT_SENSITIVE + tuple(extra)
    expected = any(fnmatch.fnmatchcase(name, p) for p in patterns)
    assert sources._sensitive_matcher(tuple(extra))(name) is expected


def test_default_sensitive_names():
    for name in (".env", ".env.local", "prod.env", "server.pem", "id_rsa", "id_rsa.pub", "credentials.json"):
        assert sources.is_sensitive(f"some/dir/{name}"), name
    for name in ("env.py", "pem.txt", "notes.md", "id.rs"):
        assert not sources.is_sensitive(f"some/dir/{name}"), name
