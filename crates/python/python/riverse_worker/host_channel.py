"""What a running tool says and asks of the host (`self.log`, `progress`,
`ask`, `sample`, and `ToolRegistry`'s requests), over the protocol stream
of the call in flight."""

from __future__ import annotations

import sys

from .wire import HOST_ASK, HOST_SAMPLE, LOG_NOTIFICATION, PROGRESS_NOTIFICATION

# The bounds riverse-tool's `CallContext` keeps; the worker keeps them too, so
# a tool that logs in a loop does not fill the pipe with lines the host drops.
MAX_LOG_LINES = 1000
MAX_MESSAGE_CHARS = 4096
PROGRESS_INTERVAL = 0.05

# This worker's server, once it serves: the way to the host.
HOST = None


class HostError(RuntimeError):
    """The host answered a worker's request with an error."""

    def __init__(self, method: str, reason: str):
        super().__init__(f"the host could not answer {method}: {reason}")
        self.reason = reason


def ask_host(method: str, params: dict):
    """One request to the host while a tool runs; its result."""
    if HOST is None:
        raise RuntimeError("ToolRegistry needs the Riverse host")
    return HOST.ask_host(method, params)


class CallChannel:
    """The running call's way to the host. Outside a call (at import, in
    `__init__`), or with no Riverse host (a standalone MCP server), log lines
    go to stderr, progress nowhere, a question is a cancel and a sample an
    error."""

    def __init__(self):
        self.server = None
        self.logs = 0
        self.dropped = 0
        self.last_progress = None

    def begin(self, server) -> None:
        self.server, self.logs, self.dropped, self.last_progress = server, 0, 0, None

    def end(self) -> None:
        if self.server is not None and self.dropped:
            self.server.notify(LOG_NOTIFICATION, {"dropped": self.dropped})
        self.server = None

    def log(self, message: str, level: str) -> None:
        if self.server is None:
            sys.stderr.write(f"[{level}] {message}\n")
            return
        if self.logs >= MAX_LOG_LINES:
            self.dropped += 1
            return
        self.logs += 1
        self.server.notify(LOG_NOTIFICATION, {"level": level, "message": message[:MAX_MESSAGE_CHARS]})

    def progress(self, progress, total, message) -> None:
        for name, value in (("progress", progress), ("total", total)):
            if value is not None and (type(value) is bool or not isinstance(value, (int, float))):
                raise TypeError(f"progress(): {name} is {type(value).__name__}, expected a number")
        if progress is None:
            raise TypeError("progress(): progress is None, expected a number")
        import math

        for name, value in (("progress", progress), ("total", total)):
            if value is not None and not math.isfinite(value):
                raise ValueError(f"progress(): {name} is {value}, expected a finite number")
        if self.server is None:
            return
        import time

        now = time.monotonic()
        complete = total is not None and progress >= total
        if self.last_progress is not None and now - self.last_progress < PROGRESS_INTERVAL and not complete:
            return
        self.last_progress = now
        update = {"progress": progress}
        if total is not None:
            update["total"] = total
        if message is not None:
            update["message"] = str(message)[:MAX_MESSAGE_CHARS]
        self.server.notify(PROGRESS_NOTIFICATION, update)

    def ask(self, message: str, schema: dict) -> tuple[str, dict]:
        """The person's action ("accept", "decline" or "cancel") and the
        fields they accepted."""
        if self.server is None:
            return "cancel", {}
        try:
            answer = self.server.ask_host(HOST_ASK, {"message": message[:MAX_MESSAGE_CHARS], "schema": schema})
        except HostError:
            return "cancel", {}
        action = answer.get("action")
        content = answer.get("content")
        if action not in ("accept", "decline", "cancel"):
            action = "cancel"
        return action, content if isinstance(content, dict) and action == "accept" else {}

    def sample(self, prompt: str, max_tokens, system) -> str:
        if max_tokens is not None and (type(max_tokens) is not int or max_tokens < 1):
            raise ValueError(f"sample(): max_tokens is {max_tokens!r}, expected a positive int")
        if self.server is None:
            raise RuntimeError("sample() needs the Riverse host, while the tool runs")
        request = {"prompt": prompt}
        if max_tokens is not None:
            request["maxTokens"] = max_tokens
        if system is not None:
            request["system"] = str(system)
        try:
            answer = self.server.ask_host(HOST_SAMPLE, request)
        except HostError as exc:
            raise RuntimeError(exc.reason) from None
        return str(answer.get("text", ""))


# The call in flight's channel (a worker runs one call at a time).
CALLS = CallChannel()
