"""The secrets of the call running now (`tools.<name>.secrets` in settings),
for `self.secret(NAME)`: given with each call, forgotten when it ends."""

from __future__ import annotations

_tool: str | None = None
_given: dict = {}


class SecretUnavailable(LookupError):
    """The tool asked for a secret the settings don't give it, or one that
    could not be read."""


_NONE: dict = {}


def begin(tool: str, secrets) -> None:
    """Called for every call: with no secrets it only notes the tool's name."""
    global _tool, _given
    _tool = tool
    _given = secrets if isinstance(secrets, dict) else _NONE


def end() -> None:
    global _tool, _given
    _tool = None
    _given = _NONE


def secret(name: str) -> str:
    name = str(name)
    if name not in _given:
        tool = _tool or "this tool"
        raise SecretUnavailable(
            f'secret "{name}" is not given to {tool}: name it in settings.yaml under '
            f"tools.{_tool or '<tool>'}.secrets (and define it under secrets:)"
        )
    value = _given[name]
    if isinstance(value, dict):
        raise SecretUnavailable(f'secret "{name}" could not be read: {value.get("error")}')
    return value
