"""A call's outcome as `riverse/call` answers it: the `ToolResult` once and
flat, cut to the bytes the host reads, with the sizes of what was cut, and
its content blocks (`Image`, `Audio`, `Resource`) within the bytes a result
may carry."""

from __future__ import annotations

from .contract import Audio, Image, Resource
from .errors import describe
from .wire import encode_json, not_json

# The most of a traceback sent with a failed call.
MAX_TRACEBACK_CHARS = 16 * 1024


class Limits:
    """What a result may carry, as the host says in `initialize`."""

    # `maxOutputBytes`: `data` and `error` are cut to it, and `structured`
    # may be no larger; None, nothing is cut.
    max_output_bytes: int | None = None
    # `maxContentBytes`: content blocks past it are left out.
    max_content_bytes: int = 16 * 1024 * 1024


LIMITS = Limits()


def outcome(
    success: bool, data: str, error: str, trace: str | None = None, content=(), left_out=(), structured=None
) -> dict:
    """The outcome of a call: the `ToolResult` once, with the sizes of what
    was cut and the traceback of a tool that raised."""
    result = {"success": success}
    result["data"], data_bytes = cut(data, LIMITS.max_output_bytes)
    if left_out:
        result["data"] = "\n".join(([result["data"]] if result["data"] else []) + list(left_out))
    if content:
        result["content"] = list(content)
    result["error"], error_bytes = cut(error, LIMITS.max_output_bytes)
    if structured is not None:
        result["structured"] = structured
    if data_bytes is not None:
        result["dataBytes"] = data_bytes
    if error_bytes is not None:
        result["errorBytes"] = error_bytes
    if trace:
        result["traceback"] = trace[-MAX_TRACEBACK_CHARS:]
    return result


def cut(text: str, max_bytes: int | None) -> tuple[str, int | None]:
    """`text` cut to `max_bytes` UTF-8 bytes at a character boundary, and its
    size before when it was cut, so the host can say so."""
    if max_bytes is None or len(text) <= max_bytes // 4:
        return text, None
    if text.isascii():  # one byte a character: no copy needed to measure
        if len(text) <= max_bytes:
            return text, None
        return text[:max_bytes], len(text)
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return text, None
    start = encoded[:max_bytes].decode("utf-8", "ignore")
    return start, len(encoded)


def structured_problem(structured, max_bytes: int | None) -> str | None:
    """What keeps `structured`, a result's structured output, from the host:
    not a dict, not JSON, or larger than `max_bytes` as JSON (it can't be cut
    as text can); None when it can go."""
    if not isinstance(structured, dict):
        return f"structured is {type(structured).__name__}, expected a dict (a JSON object)"
    try:
        encoded = encode_json(structured)
    except (TypeError, ValueError, RecursionError) as exc:
        return not_json(structured, "structured") or f"structured is not JSON ({describe(exc)})"
    if max_bytes is not None and len(encoded) > max_bytes // 4:
        size = len(encoded.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            return f"structured is {human_size(size)} as JSON, over the {human_size(max_bytes)} a result may hold"
    return None


class ContentError(Exception):
    """A `ToolResult.content` that is not a list of Image, Audio and Resource."""


def encode_content(content, max_content_bytes: int) -> tuple[list[dict], list[str]]:
    """`ToolResult.content` as the host reads it (binary data in base64), and
    a line for each block left out because the blocks before it filled the
    budget of `max_content_bytes`."""
    if content is None:
        return [], []
    if not isinstance(content, (list, tuple)):
        raise ContentError(f"content is {type(content).__name__}, expected a list")
    blocks, left_out, used = [], [], 0

    def binary(value, where: str, field: str) -> bytes:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        raise ContentError(f"{where} has {field} of type {type(value).__name__}, expected bytes")

    def optional_text(value, where: str, field: str):
        if value is None or isinstance(value, str):
            return value
        raise ContentError(f"{where} has {field} of type {type(value).__name__}, expected str")

    for index, item in enumerate(content):
        where = f"content[{index}]"
        if isinstance(item, (Image, Audio)):
            kind = "image" if isinstance(item, Image) else "audio"
            raw = binary(item.data, where, "data")
            mime = optional_text(item.mime_type, where, "mime_type") or ""
            size, block = len(raw), lambda raw=raw, kind=kind, mime=mime: {
                "type": kind, "data": base64_text(raw), "mime_type": mime}
            summary = f"[{kind} {mime}".rstrip() + (f", {human_size(size)}]" if size else "]")
        elif isinstance(item, Resource):
            if not isinstance(item.uri, str):
                raise ContentError(f"{where} has uri of type {type(item.uri).__name__}, expected str")
            text = optional_text(item.text, where, "text")
            blob = None if item.blob is None else binary(item.blob, where, "blob")
            mime = optional_text(item.mime_type, where, "mime_type")
            size = (len(blob) if blob is not None else 0) + (len(text.encode("utf-8", "surrogatepass")) if text else 0)

            def block(uri=item.uri, text=text, blob=blob, mime=mime):
                encoded = {"type": "resource", "uri": uri}
                if text is not None:
                    encoded["text"] = text
                if blob is not None:
                    encoded["blob"] = base64_text(blob)
                if mime is not None:
                    encoded["mime_type"] = mime
                return encoded

            summary = f"[resource {item.uri}" + (f" {mime}" if mime else "")
            summary += f", {human_size(size)}]" if size else "]"
        else:
            raise ContentError(f"{where} is {type(item).__name__}, expected Image, Audio or Resource")
        if used + size > max_content_bytes:
            left_out.append(f"{summary} left out: a result carries at most {human_size(max_content_bytes)} of content")
            continue
        used += size
        blocks.append(block())
    return blocks, left_out


def base64_text(raw: bytes) -> str:
    import base64

    return base64.b64encode(raw).decode("ascii")


def human_size(size: int) -> str:
    """`512 B`, `12.3 KB`, `2.0 MB`: as riverse-tool's `human_size`."""
    if size < 1000:
        return f"{size} B"
    value, units = size / 1000, ["KB", "MB", "GB"]
    while value >= 1000 and len(units) > 1:
        value /= 1000
        units.pop(0)
    return f"{value:.1f} {units[0]}"
