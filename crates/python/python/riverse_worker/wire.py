"""The protocol's JSON lines: how they are written and read, what answers a
line that can't be read, which values can be written at all, and the
methods' names (riverse-protocol's `methods`)."""

from __future__ import annotations

import json
import math

from .errors import describe

WORKER_PROTOCOL_VERSION = "riverse-worker/4"
MCP_PROTOCOL_VERSION = "2025-06-18"

IMPORTING = "notifications/riverse/importing"
# A fork server's notification that a worker it forked has ended.
WORKER_EXITED = "notifications/riverse/exited"
HOST_TOOLS_LIST = "riverse/host/tools/list"
HOST_TOOLS_CALL = "riverse/host/tools/call"
HOST_ASK = "riverse/host/ask"
HOST_SAMPLE = "riverse/host/sample"
LOG_NOTIFICATION = "notifications/riverse/log"
PROGRESS_NOTIFICATION = "notifications/riverse/progress"
# A fork server refuses to fork with this code when a tool file started a
# thread at import; the host then starts fresh interpreters instead.
FORK_REFUSED = -32010


class RpcError(Exception):
    """A request's failure, answered as a JSON-RPC error."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def json_codec():
    """Compact JSON with non-ASCII text as it is, and its reader, both built
    once. `json.JSONEncoder.encode` builds a new C encoder at every call, half
    the cost of encoding a reply; `json.loads` given bytes guesses their
    encoding first, a third of the cost of reading a request."""
    from json import encoder

    decode = json.JSONDecoder().decode

    def read(line: bytes):
        return decode(line.decode("utf-8", "surrogatepass"))

    if encoder.c_make_encoder is None:  # no C accelerator in this Python
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode, read

    def unserializable(value):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    # No check for circular references (it needs a fresh table per call): a
    # tool's circular arguments to `ToolRegistry` end in a RecursionError.
    # No NaN or Infinity either: they are not JSON, and the host would take
    # the stream for corrupted; a tool sending one gets a ValueError.
    c_encode = encoder.c_make_encoder(
        None, unserializable, encoder.encode_basestring, None, ":", ",", False, False, False
    )
    return (lambda value: "".join(c_encode(value, 0))), read


encode_json, decode_json = json_codec()

# What `encode_json` writes as a JSON object's key: the rest it refuses.
JSON_KEYS = (str, int, float, type(None))


def not_json(value, where: str) -> str | None:
    """Why `encode_json` can't write `value`: the first part of it that is not
    JSON, named by its path from `where` (`schema['properties']['when'] is
    datetime`); None when none is found."""
    seen: set[int] = set()

    def walk(value, where: str) -> str | None:
        if value is None or isinstance(value, (str, bool, int)):
            return None
        if isinstance(value, float):
            return None if math.isfinite(value) else f"{where} is {value}, which JSON can't hold"
        if not isinstance(value, (dict, list, tuple)):
            return f"{where} is {type(value).__name__}, which is not JSON"
        if id(value) in seen:
            return f"{where} holds itself"
        seen.add(id(value))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(value, dict) and not isinstance(key, JSON_KEYS):
                return f"{where} has a key of type {type(key).__name__}, which is not JSON"
            if isinstance(key, float) and not math.isfinite(key):
                return f"{where} has the key {key}, which JSON can't hold"
            problem = walk(item, f"{where}[{key!r}]")
            if problem:
                return problem
        seen.discard(id(value))
        return None

    return walk(value, where)


def unreadable(line: bytes, exc: BaseException) -> dict:
    """The answer to a line this worker can't decode though it is JSON (CPython
    reads no integer of more than 4300 digits): an error for the request's id,
    so the host fails that one request and the worker serves on. Without an id
    it is a parse error, which the host takes for a corrupted stream."""
    request_id = top_level_id(line)
    if request_id is None:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": describe(exc)}}
    error = {"code": -32602, "message": f"its arguments can't be read: {describe(exc)}"}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def top_level_id(line: bytes):
    """The `id` member of the JSON object `line`, found without decoding the
    other members (one of which could not be); None when there is none."""
    import re  # on a failure only: every worker start would pay for it at the top

    token = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+')
    depth, key, previous = 0, None, None
    for match in token.finditer(line):
        text = match.group()
        if text in (b"{", b"["):
            depth += 1
        elif text in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and previous == b":" and key == b'"id"':
            try:
                found = json.loads(text)
            except ValueError:
                return None
            return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None
        elif depth == 1 and previous in (b"{", b","):
            key = text
        previous = text
    return None
