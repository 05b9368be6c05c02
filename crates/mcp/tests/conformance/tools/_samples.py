"""Media the conformance fixtures return: a 1x1 red PNG and a short WAV."""

import base64
import struct

RED_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def silent_wav(samples: int = 800, rate: int = 8000) -> bytes:
    """`samples` of silence, mono, 16 bits."""
    data = b"\x00\x00" * samples
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, 1, rate, rate * 2, 2, 16, b"data", len(data),
    )
    return header + data
