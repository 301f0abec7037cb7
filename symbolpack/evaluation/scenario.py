"""The embedded default eval: a small sample repository and a scripted multi-turn session.

`tldrs eval` with no arguments must run anywhere in seconds, with nothing to
download, so the repository is built here from string constants: an auth flow
(`authenticate`, `validate_token`, `refresh_token`) in Python, its callers in
TypeScript and Go, its tests, and a policy file in a language no parser
handles. The script walks the situations that decide a read cache's worth:
context for one symbol, overlapping context for others, re-reads, an edit then
a re-request, an unchanged symbol, a drill-in, an unparsed file, a range read.

The turns ask for context packs when `symbolpack.api.context.context_pack` exists and
fall back to what an agent does without them: read the file, then drill into
the symbol (`--symbol`). The numbers are deterministic for a given counter.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from .harness import DRILL, EvalSession, PackJudge, isolated_state, load_pack_function, native_cost, summarize

TOKENS_PY = '''\
"""Signed session tokens: issue, validate, refresh, revoke."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field

DEFAULT_TTL = 3600
REFRESH_WINDOW = 300
ALGORITHM = "HS256"


class TokenError(Exception):
    """A token that is malformed, expired, revoked or forged."""


@dataclass
class Token:
    subject: str
    issued_at: int
    expires_at: int
    scopes: list[str] = field(default_factory=list)
    signature: str = ""

    def is_expired(self, now: int | None = None) -> bool:
        return (now if now is not None else int(time.time())) >= self.expires_at


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _sign(payload: dict, secret: str) -> str:
    """HMAC-SHA256 over the canonical JSON of *payload*."""
    body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    digest = hmac.new(secret.encode(), body, hashlib.sha256).digest()
    return _b64(digest)


def authenticate(username: str, password: str, users: dict, secret: str, ttl: int = DEFAULT_TTL) -> Token:
    """Check a password and issue a token for *username*."""
    record = users.get(username)
    if record is None:
        raise TokenError(f"unknown user {username!r}")
    salt = record["salt"].encode()
    expected = record["hash"]
    actual = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000).hex()
    if not hmac.compare_digest(expected, actual):
        raise TokenError("bad password")
    if record.get("locked"):
        raise TokenError(f"user {username!r} is locked")
    now = int(time.time())
    scopes = sorted(set(record.get("scopes", ["read"])))
    payload = {"sub": username, "iat": now, "exp": now + ttl, "scp": scopes}
    token = Token(username, now, now + ttl, scopes)
    token.signature = _sign(payload, secret)
    record["last_login"] = now
    return token


def validate_token(token: Token, secret: str, now: int | None = None, revoked: set | None = None) -> dict:
    """Return the token's claims, or raise TokenError when it must not be trusted."""
    if not token.signature:
        raise TokenError("unsigned token")
    payload = {"sub": token.subject, "iat": token.issued_at, "exp": token.expires_at, "scp": token.scopes}
    expected = _sign(payload, secret)
    if not hmac.compare_digest(expected, token.signature):
        raise TokenError("bad signature")
    if token.is_expired(now):
        raise TokenError("expired")
    if revoked and token.signature in revoked:
        raise TokenError("revoked")
    if token.issued_at > token.expires_at:
        raise TokenError("issued after it expires")
    claims = dict(payload)
    claims["ttl_left"] = token.expires_at - (now if now is not None else int(time.time()))
    claims["algorithm"] = ALGORITHM
    return claims


def refresh_token(token: Token, secret: str, ttl: int = DEFAULT_TTL, now: int | None = None) -> Token:
    """A fresh token for the same subject, allowed only near expiry."""
    claims = validate_token(token, secret, now)
    now = now if now is not None else int(time.time())
    if claims["ttl_left"] > REFRESH_WINDOW:
        raise TokenError("too early to refresh")
    scopes = list(token.scopes)
    if "refresh" not in scopes:
        raise TokenError("token may not be refreshed")
    payload = {"sub": token.subject, "iat": now, "exp": now + ttl, "scp": scopes}
    fresh = Token(token.subject, now, now + ttl, scopes)
    fresh.signature = _sign(payload, secret)
    if fresh.signature == token.signature:
        raise TokenError("refresh produced the same token")
    return fresh


class TokenStore:
    """Revocation list and issued-token bookkeeping."""

    def __init__(self) -> None:
        self.revoked: set[str] = set()
        self.issued: dict[str, list[Token]] = {}

    def remember(self, token: Token) -> None:
        self.issued.setdefault(token.subject, []).append(token)

    def revoke(self, token: Token) -> None:
        self.revoked.add(token.signature)

    def revoke_all(self, subject: str, keep_latest: bool = False, now: int | None = None) -> int:
        """Revoke every live token of *subject*; return how many were revoked."""
        tokens = sorted(self.issued.get(subject, []), key=lambda t: t.issued_at)
        if keep_latest and tokens:
            tokens = tokens[:-1]
        count = 0
        for token in tokens:
            if token.is_expired(now):
                continue
            if token.signature in self.revoked:
                continue
            self.revoked.add(token.signature)
            count += 1
        if not keep_latest:
            self.issued.pop(subject, None)
        return count

    def prune(self, now: int | None = None) -> int:
        """Forget expired tokens; return how many were forgotten."""
        dropped = 0
        for subject in list(self.issued):
            live = [t for t in self.issued[subject] if not t.is_expired(now)]
            dropped += len(self.issued[subject]) - len(live)
            if live:
                self.issued[subject] = live
            else:
                del self.issued[subject]
        expired = {t.signature for ts in self.issued.values() for t in ts if t.is_expired(now)}
        self.revoked -= expired
        return dropped


def encode_token(token: Token) -> str:
    """The wire form of *token*: base64url JSON of its fields, a dot, its signature."""
    body = {"sub": token.subject, "iat": token.issued_at, "exp": token.expires_at, "scp": token.scopes}
    raw = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return f"{_b64(raw)}.{token.signature}"


def decode_token(wire: str) -> Token:
    """Parse the wire form back into a Token; the signature is not checked here."""
    try:
        head, signature = wire.split(".", 1)
    except ValueError:
        raise TokenError("malformed token: no signature") from None
    padded = head + "=" * (-len(head) % 4)
    try:
        body = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, UnicodeDecodeError):
        raise TokenError("malformed token: bad body") from None
    missing = [key for key in ("sub", "iat", "exp") if key not in body]
    if missing:
        raise TokenError(f"malformed token: missing {', '.join(missing)}")
    if not isinstance(body["sub"], str) or not body["sub"]:
        raise TokenError("malformed token: empty subject")
    scopes = body.get("scp") or []
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise TokenError("malformed token: scopes must be strings")
    return Token(body["sub"], int(body["iat"]), int(body["exp"]), list(scopes), signature)


class KeyRing:
    """Signing secrets by key id, newest last: tokens signed with an older key stay
    valid until it is retired, so secrets can be rotated without logging users out."""

    def __init__(self, secrets: dict[str, str] | None = None) -> None:
        self.secrets: dict[str, str] = dict(secrets or {})
        self.retired: set[str] = set()

    @property
    def current(self) -> str:
        live = [kid for kid in self.secrets if kid not in self.retired]
        if not live:
            raise TokenError("no signing key")
        return live[-1]

    def rotate(self, kid: str, secret: str) -> None:
        if kid in self.secrets:
            raise ValueError(f"key {kid!r} exists")
        if len(secret) < 32:
            raise ValueError("a signing secret needs at least 32 characters")
        self.secrets[kid] = secret

    def retire(self, kid: str) -> None:
        if kid not in self.secrets:
            raise KeyError(kid)
        if kid == self.current and len(self.secrets) - len(self.retired) == 1:
            raise TokenError("cannot retire the only live key")
        self.retired.add(kid)

    def validate(self, token: Token, now: int | None = None, revoked: set | None = None) -> dict:
        """Validate against each live key, newest first; the first that verifies wins."""
        errors = []
        for kid in reversed([k for k in self.secrets if k not in self.retired]):
            try:
                claims = validate_token(token, self.secrets[kid], now, revoked)
            except TokenError as exc:
                errors.append(f"{kid}: {exc}")
                continue
            claims["kid"] = kid
            return claims
        raise TokenError("no key verifies this token (" + "; ".join(errors) + ")")


def has_scopes(claims: dict, required: list[str]) -> bool:
    """Whether *claims* grant every scope in *required* ('admin' grants all)."""
    granted = set(claims.get("scp", []))
    if "admin" in granted:
        return True
    return all(scope in granted for scope in required)


def audit_event(event: str, token: Token, **fields: object) -> dict:
    """A structured audit record: never the signature itself, only a short digest."""
    digest = hashlib.sha256(token.signature.encode()).hexdigest()[:12]
    record = {"event": event, "sub": token.subject, "token": digest, "at": int(time.time())}
    for key, value in fields.items():
        if key in record:
            raise ValueError(f"audit field {key!r} is reserved")
        record[key] = value
    return record
'''

MIDDLEWARE_TS = '''\
// Express-style middleware that guards routes with the auth service's tokens.
import { AuthClient, Claims, TokenError } from "./client";

export interface AuthedRequest {
  headers: Record<string, string | undefined>;
  claims?: Claims;
}

const BEARER = "Bearer ";

export function bearerToken(req: AuthedRequest): string | null {
  const header = req.headers["authorization"];
  if (!header || !header.startsWith(BEARER)) {
    return null;
  }
  return header.slice(BEARER.length).trim() || null;
}

export async function requireAuth(client: AuthClient, req: AuthedRequest, scopes: string[] = []): Promise<Claims> {
  const raw = bearerToken(req);
  if (raw === null) {
    throw new TokenError("missing bearer token");
  }
  const claims = await client.validateToken(raw);
  for (const scope of scopes) {
    if (!claims.scopes.includes(scope)) {
      throw new TokenError(`missing scope ${scope}`);
    }
  }
  if (claims.ttlLeft < 0) {
    throw new TokenError("expired");
  }
  req.claims = claims;
  client.metrics.increment("auth.ok");
  client.metrics.timing("auth.ttl_left", claims.ttlLeft);
  return claims;
}

export async function refreshSession(client: AuthClient, req: AuthedRequest): Promise<string> {
  const raw = bearerToken(req);
  if (raw === null) {
    throw new TokenError("missing bearer token");
  }
  const claims = await client.validateToken(raw);
  if (claims.ttlLeft > 300) {
    return raw;
  }
  const fresh = await client.refreshToken(raw);
  client.metrics.increment("auth.refreshed");
  req.claims = await client.validateToken(fresh);
  if (!req.claims) {
    throw new TokenError("refresh returned an invalid token");
  }
  return fresh;
}

export async function login(client: AuthClient, username: string, password: string): Promise<string> {
  if (!username || !password) {
    throw new TokenError("username and password are required");
  }
  const token = await client.authenticate(username, password);
  const claims = await client.validateToken(token);
  if (!claims.scopes.includes("read")) {
    throw new TokenError("account has no read scope");
  }
  client.metrics.increment("auth.login");
  client.audit.record({ event: "login", subject: claims.subject });
  client.audit.flush();
  return token;
}
'''

HANDLERS_GO = '''\
package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// AuthService is the slice of the auth service the handlers need.
type AuthService interface {
	Authenticate(username, password string) (string, error)
	ValidateToken(token string) (Claims, error)
	RefreshToken(token string) (string, error)
}

// Claims are what a valid token says about its bearer.
type Claims struct {
	Subject string   `json:"sub"`
	Scopes  []string `json:"scp"`
	TTLLeft int      `json:"ttl_left"`
}

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// LoginHandler exchanges a username and password for a token.
func LoginHandler(auth AuthService) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req loginRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		if req.Username == "" || req.Password == "" {
			http.Error(w, "username and password are required", http.StatusBadRequest)
			return
		}
		token, err := auth.Authenticate(req.Username, req.Password)
		if err != nil {
			http.Error(w, "invalid credentials", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"token": token})
	}
}

// RefreshHandler swaps a token near expiry for a fresh one.
func RefreshHandler(auth AuthService) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if raw == "" {
			http.Error(w, "missing token", http.StatusUnauthorized)
			return
		}
		claims, err := auth.ValidateToken(raw)
		if err != nil {
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		if time.Duration(claims.TTLLeft)*time.Second > 5*time.Minute {
			http.Error(w, "too early to refresh", http.StatusConflict)
			return
		}
		fresh, err := auth.RefreshToken(raw)
		if err != nil {
			http.Error(w, errors.Unwrap(err).Error(), http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"token": fresh})
	}
}
'''

TEST_TOKENS_PY = '''\
import hashlib

import pytest

from auth.tokens import Token, TokenError, TokenStore, authenticate, refresh_token, validate_token

SECRET = "s3cret"


def make_users(password="pw", scopes=("read", "refresh")):
    salt = "salt"
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 100_000).hex()
    return {"ada": {"salt": salt, "hash": digest, "scopes": list(scopes)}}


def test_authenticate_issues_a_signed_token():
    token = authenticate("ada", "pw", make_users(), SECRET)
    assert token.subject == "ada"
    assert token.signature
    assert validate_token(token, SECRET)["sub"] == "ada"


def test_authenticate_rejects_a_bad_password():
    with pytest.raises(TokenError):
        authenticate("ada", "nope", make_users(), SECRET)


def test_authenticate_rejects_a_locked_user():
    users = make_users()
    users["ada"]["locked"] = True
    with pytest.raises(TokenError, match="locked"):
        authenticate("ada", "pw", users, SECRET)


def test_validate_token_rejects_a_forged_signature():
    token = authenticate("ada", "pw", make_users(), SECRET)
    token.signature = token.signature[::-1]
    with pytest.raises(TokenError, match="signature"):
        validate_token(token, SECRET)


def test_validate_token_rejects_an_expired_token():
    token = authenticate("ada", "pw", make_users(), SECRET, ttl=10)
    with pytest.raises(TokenError, match="expired"):
        validate_token(token, SECRET, now=token.expires_at + 1)


def test_refresh_token_only_near_expiry():
    token = authenticate("ada", "pw", make_users(), SECRET, ttl=1000)
    with pytest.raises(TokenError, match="too early"):
        refresh_token(token, SECRET, now=token.issued_at)
    fresh = refresh_token(token, SECRET, now=token.expires_at - 10)
    assert fresh.expires_at > token.expires_at


def test_refresh_needs_the_refresh_scope():
    token = authenticate("ada", "pw", make_users(scopes=("read",)), SECRET, ttl=100)
    with pytest.raises(TokenError, match="may not be refreshed"):
        refresh_token(token, SECRET, now=token.expires_at - 10)


def test_revoke_all_keeps_the_latest_when_asked():
    store = TokenStore()
    users = make_users()
    for _ in range(3):
        store.remember(authenticate("ada", "pw", users, SECRET))
    assert store.revoke_all("ada", keep_latest=True) >= 0
    assert "ada" in store.issued
'''

POLICY_HCL = '''\
# Access policy for the auth service (HCL; no symbolpack parser handles it).
policy "tokens" {
  issuer    = "auth.example.internal"
  algorithm = "HS256"
  ttl       = "1h"

  refresh {
    window  = "5m"
    max_age = "30d"
    scopes  = ["refresh"]
  }

  lockout {
    attempts = 5
    period   = "15m"
  }
}

route "/login" {
  methods = ["POST"]
  public  = true
}

route "/refresh" {
  methods = ["POST"]
  scopes  = ["refresh"]
}

route "/admin/*" {
  methods = ["GET", "POST", "DELETE"]
  scopes  = ["admin"]
  audit   = true
}
'''

SAMPLE_FILES = {
    "src/auth/tokens.py": TOKENS_PY,
    "src/auth/middleware.ts": MIDDLEWARE_TS,
    "src/api/handlers.go": HANDLERS_GO,
    "tests/test_tokens.py": TEST_TOKENS_PY,
    "deploy/auth_policy.hcl": POLICY_HCL,
}

TOKENS = "src/auth/tokens.py"
MIDDLEWARE = "src/auth/middleware.ts"
HANDLERS = "src/api/handlers.go"
TESTS = "tests/test_tokens.py"
POLICY = "deploy/auth_policy.hcl"


def build_sample_repo(root: Path) -> Path:
    """Write the sample files under *root* and commit them (fixed author and date)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in SAMPLE_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {**os.environ, "GIT_AUTHOR_NAME": "eval", "GIT_AUTHOR_EMAIL": "eval@example.com",
           "GIT_COMMITTER_NAME": "eval", "GIT_COMMITTER_EMAIL": "eval@example.com",
           "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "sample auth service"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    if old not in text:
        raise AssertionError(f"scenario edit: {old!r} not in {rel}")
    path.write_text(text.replace(old, new, 1))


# --------------------------------------------------------------------------- turns

def context_turn(session: EvalSession, entries: list[tuple[str, str]]) -> None:
    """Context for some symbols: a context pack when the engine has one, else read + drill-in."""
    fn, _why = load_pack_function("context_pack", session.ws, entries[0][1], session_id=session.session_id)
    if fn is not None:
        for _path, name in entries:
            run_context_step(session, fn, name)
        return
    for path, name in entries:
        session.read(path)
        session.read(path, symbol=name, category=DRILL)


def run_context_step(session: EvalSession, fn: Callable, entry: str) -> None:
    """One context pack for *entry*, judged by a PackJudge and priced against reading the
    files its slices come from (natively, and with the diff-only reference).

    *fn* is called as ``fn(session.ws, entry, session_id=session.session_id)`` and must
    return the protocol's pack object (``v``, ``slices``, ``unchanged``, ``text``)."""
    judge = getattr(session, "_context_judge", None)
    if judge is None:
        judge = session._context_judge = PackJudge(delta=True, read_oracle=session.oracle)  # type: ignore[attr-defined]
    started = time.perf_counter()
    try:
        pack = fn(session.ws, entry, session_id=session.session_id)
    except Exception as exc:
        session.other_failures.append(f"[{session.turn}] context {entry}: engine raised {type(exc).__name__}: {exc}")
        return
    latency = (time.perf_counter() - started) * 1000
    failures = judge.apply(pack, session.file_lines)
    native = reference = 0
    slices = (pack.get("slices") or []) if isinstance(pack, dict) else []
    paths = sorted({p for s in slices if isinstance(s, dict) and isinstance(p := s.get("path"), str)})
    for path in paths:
        lines = session.file_lines(path)
        if lines is not None:
            native += native_cost(lines, None)
            reference += session.reference.cost(path, lines, None)
    session.record_pack("context", pack, latency, failures, native, reference, len(judge.summarized))


def scripted_turns(root: Path) -> list[tuple[str, Callable[[EvalSession], object]]]:
    """The scripted session: (label, action) in order."""

    def edit_then_rerequest(s: EvalSession) -> None:
        _edit(root, TOKENS, '        raise TokenError("expired")\n',
              '        raise TokenError(f"expired at {token.expires_at}")\n')
        _edit(root, MIDDLEWARE, '  client.metrics.increment("auth.refreshed");\n',
              '  client.metrics.increment("auth.refreshed");\n  client.audit.record({ event: "refresh", subject: claims.subject });\n')
        s.read(TOKENS)
        s.read(TOKENS, symbol="validate_token", category=DRILL)
        s.read(MIDDLEWARE)

    def unparsed(s: EvalSession) -> None:
        s.read(POLICY)
        _edit(root, POLICY, '    attempts = 5\n', '    attempts = 3\n')
        s.read(POLICY)

    return [
        ("first reads", lambda s: (s.read(TOKENS), s.read(MIDDLEWARE))),
        ("drill-in", lambda s: (s.read(TOKENS, symbol="validate_token", category=DRILL),
                                s.read(TOKENS, symbol="refresh_token", category=DRILL))),
        ("re-read", lambda s: (s.read(TOKENS), s.read(MIDDLEWARE))),
        ("context authenticate", lambda s: context_turn(s, [(TOKENS, "authenticate")])),
        ("callers and tests", lambda s: (s.read(HANDLERS), s.read(TESTS))),
        ("edit, re-request", edit_then_rerequest),
        ("context validate+refresh", lambda s: context_turn(s, [(TOKENS, "validate_token"), (TOKENS, "refresh_token"),
                                                                (MIDDLEWARE, "requireAuth")])),
        ("unchanged symbol", lambda s: (s.read(TOKENS, symbol="authenticate", category=DRILL),
                                        s.read(TOKENS, symbol="refresh_token", category=DRILL))),
        ("drill-in again", lambda s: (s.read(HANDLERS, symbol="RefreshHandler", category=DRILL),
                                      s.read(TOKENS, symbol="TokenStore.revoke_all", category=DRILL))),
        ("unparsed file", unparsed),
        ("range read", lambda s: (s.read(TESTS, offset=30, limit=25), s.read(TESTS, offset=30, limit=25),
                                  s.read(HANDLERS, offset=1, limit=20))),
        ("final re-read", lambda s: (s.read(TOKENS), s.read(MIDDLEWARE), s.read(HANDLERS), s.read(TESTS),
                                     s.read(POLICY))),
    ]


SAMPLE_SMALL_FILE_TOKENS = 400


def run_scenario(engine=None) -> dict:
    """Build the sample repository in a temporary directory, play the script, summarize.

    Uses whatever token counter is selected (see `harness.selected_counter`).
    """
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="symbolpack-eval-sample-") as tmp, isolated_state() as settings:
        # the sample's files are small (about 150 lines): read whole under the default
        # (files under 1,500 tokens), they would show none of the skeletons and deltas a
        # real project's files get, so the scenario lowers the threshold to its files' size
        settings = settings.replace(small_file_tokens=SAMPLE_SMALL_FILE_TOKENS)
        root = build_sample_repo(Path(tmp) / "sample")
        session = EvalSession(root, session_id="scenario", engine=engine, settings=settings)
        labels = []
        try:
            for label, action in scripted_turns(root):
                session.turn = label
                labels.append(label)
                action(session)
        finally:
            session.close()
        _fn, why = load_pack_function("context_pack", session.ws, "authenticate", session_id=session.session_id)
        return summarize(session, labels, kind="scenario",
                         repo=f"embedded sample (5 files, 4 languages; skeletons from {SAMPLE_SMALL_FILE_TOKENS} tokens)",
                         context=("context packs" if _fn else f"reads and drill-ins ({why})"),
                         seconds=round(time.perf_counter() - started, 2))
