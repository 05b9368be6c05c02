"""An MCP server written with the official Python SDK whose tools have typed
output, on stdio: `forecast` says tomorrow's weather in words and gives it
as data that fits its output schema (derived from `Forecast`); `reading`
gives data only, which the SDK also writes as JSON text."""

from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

server = MCPServer("typed-demo")


class Forecast(BaseModel):
    city: str
    degrees: float
    notes: str = ""


@server.tool()
def forecast(city: str, notes_length: int = 0) -> Annotated[CallToolResult, Forecast]:
    """Tomorrow's weather in a city, in words and as data."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"Mild in {city} tomorrow, 21.5 degrees")],
        structured_content={"city": city, "degrees": 21.5, "notes": "n" * notes_length},
    )


@server.tool()
def reading(city: str) -> Forecast:
    """Today's temperature in a city, as data."""
    return Forecast(city=city, degrees=18.0)


if __name__ == "__main__":
    server.run()
