//! Tools that say and ask things while they run, and give content beside
//! their data; projects served with them.

use riverse_server::ServerOptions;
use riverse_store::Liveness;
use riverse_test_support::Project;

use super::support::{Adjust, Backend, Served, serve_project, settings_yaml};

/// `report`: logs, reports progress, asks how to write the report (a text
/// field, an enum and a boolean, with defaults), and writes it as a file
/// when the answer is an accept.
pub const REPORT: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult, Resource


class Report(BaseTool):
    def manifest(self):
        return ToolManifest(name="report", description="writes a report, asking how", parameters={})

    def execute(self, params):
        self.log("reading 3 pages")
        self.progress(1, 3, "page 1 of 3")
        self.log("page 2 was slow", level="warning")
        self.progress(3, 3, "all pages read")
        answer = self.ask("How should the report be written?", schema={
            "type": "object",
            "properties": {
                "title": {"type": "string", "title": "Title", "default": "Quarterly"},
                "format": {"type": "string", "title": "Format", "enum": ["pdf", "html"], "default": "pdf"},
                "overwrite": {"type": "boolean", "title": "Overwrite the old one", "default": True},
            },
            "required": ["title", "format"],
        })
        if not answer.accepted:
            return ToolResult(True, f"not written: {answer.action}")
        content = answer.content
        written = f"written: {content['title']} as {content['format']}, overwrite={content.get('overwrite')}"
        return ToolResult(True, written, content=[
            Resource(f"file:///srv/{content['title']}.{content['format']}",
                     blob=b"%PDF-1.4 report", mime_type="application/pdf"),
        ])
"#;

/// `paint`: draws a 64-pixel blue square as a PNG, a short tone as a WAV,
/// and a note as a text file, logging as it goes.
pub const PAINT: &str = r#"
import math
import struct
import zlib

from agent.tools import BaseTool, ToolManifest, ToolResult, Image, Audio, Resource


def png(width, height, rgb):
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def wav(rate=8000, seconds=0.25):
    samples = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / rate)))
                       for n in range(int(rate * seconds)))
    fmt = struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    return b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt " + fmt + b"data" + struct.pack("<I", len(samples)) + samples


class Paint(BaseTool):
    def manifest(self):
        return ToolManifest(name="paint", description="draws a square", parameters={})

    def execute(self, params):
        self.log("mixing blue")
        self.log("drawing 64 by 64")
        return ToolResult(True, "a blue square", content=[
            Image(png(64, 64, (37, 99, 235)), "image/png"),
            Audio(wav(), "audio/wav"),
            Resource("file:///srv/square.txt", text="a blue square, 64 by 64", mime_type="text/plain"),
        ])
"#;

/// A project with the talking tools (and the weather tool), its LLM at
/// `api_base`, `extra` settings, and the options `adjust` changes.
pub async fn served_talking(
    backend: &Backend,
    api_base: &str,
    extra: &str,
    adjust: Adjust,
) -> Served {
    let project = Project::new();
    project.fixture("weather.py");
    project.tool("report.py", REPORT);
    project.tool("paint.py", PAINT);
    project.settings(&settings_yaml(api_base, extra));
    serve_project(project, backend, Liveness::default(), adjust).await
}

/// Questions that expire at once: nobody in a test answers them in time.
pub fn quick_questions(options: &mut ServerOptions) {
    options.question_timeout = std::time::Duration::from_millis(50);
}
