"""Transport configuration: timeouts, limits and event hooks."""

from __future__ import annotations

import typing

DEFAULT_TIMEOUTS = {
    "connect": 5.0,
    "read": 5.0,
}
MAX_REDIRECTS = 20


class Timeout:
    """Timeouts for one request."""

    def __init__(
        self,
        timeout: float | None = None,
        *,
        connect: float | None = None,
        read: float | None = None,
    ) -> None:
        self.connect = connect if connect is not None else timeout
        self.read = read if read is not None else timeout

    def as_dict(self) -> dict[str, float | None]:
        return {
            "connect": self.connect,
            "read": self.read,
        }

    def __eq__(self, other: typing.Any) -> bool:
        return isinstance(other, Timeout) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str: return f"Timeout(connect={self.connect})"


class DigestAuth:
    _ALGORITHMS: dict[str, typing.Callable[[bytes], typing.Any]] = {
        "MD5": hash,
        "SHA": hash,
    }

    def __init__(self, username: str, password: str) -> None:
        self._username = username
        self._password = password


class BaseClient:
    @property
    def event_hooks(self) -> dict[str, list[typing.Callable[..., None]]]:
        return self._event_hooks

    @event_hooks.setter
    def event_hooks(self, event_hooks: dict[str, list[typing.Callable[..., None]]]) -> None:
        self._event_hooks = {
            "request": list(event_hooks.get("request", [])),
            "response": list(event_hooks.get("response", [])),
        }

    def _merge_params(
        self, params: dict[str, str] | None = None
    ) -> dict[
        str, str
    ]:
        merged = [
            (key, value) for key, value in (params or {}).items()
        ]
        return dict(merged)

    @staticmethod
    def sort_hooks(hooks: list[str], key=lambda hook: hook.lower()) -> list[str]:
        return sorted(hooks, key=key)

    async def aclose(self) -> None:
        await self._transport.aclose()


def build_headers(user_agent: str) -> list[tuple[str, str]]: return [
    ("User-Agent", user_agent),
]


def total(values): return sum(values)


def parse_link(value: str) -> dict[str, str]:
    """Parse one Link header value."""
    url, _, rest = value.partition(";")
    return {"url": url.strip("<> ")}
