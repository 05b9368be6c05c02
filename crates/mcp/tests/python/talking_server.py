"""An MCP server written with the official Python SDK's MCPServer API whose
tools talk while they run: progress and log lines, an image, a question, a
request for a completion.

    python talking_server.py          serve on stdin/stdout
    python talking_server.py http     serve streamable HTTP on a free loopback
                                      port, and print the port
"""

import socket
import sys

import anyio
import uvicorn
from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("talking")

RED_PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@server.tool()
async def report(steps: int, ctx: Context) -> list[types.ContentBlock]:
    """Reports each step as progress and as a log line, then returns a chart."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
        await ctx.info(f"finished step {step}")
        # Riverse passes on at most one progress update every 50 ms.
        await anyio.sleep(0.1)
    return [
        types.TextContent(type="text", text="report ready"),
        types.ImageContent(type="image", data=RED_PIXEL_PNG, mimeType="image/png"),
    ]


class Confirmation(BaseModel):
    sure: bool


@server.tool()
async def confirm(question: str, ctx: Context) -> str:
    """Asks the user to confirm, and says what they answered."""
    result = await ctx.elicit(question, schema=Confirmation)
    if result.action == "accept":
        return f"accept: sure={result.data.sure}"
    return result.action


@server.tool()
async def summarise(text: str, ctx: Context) -> str:
    """Asks the client's LLM for a summary."""
    result = await ctx.session.create_message(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))],
        max_tokens=50,
        system_prompt="Answer in one line.",
    )
    return f"summary: {result.content.text}"


def serve_http() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run()
