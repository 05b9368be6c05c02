# /// script
# dependencies = ["requests>=2.31"]
# ///
"""Current weather for a city, from wttr.in (needs the network). The block
above declares the package it imports: Riverse installs it into the project's
tool environment, .riverse/venv, before the tools load."""

from urllib.parse import quote

import requests

from agent.tools import BaseTool, ToolManifest, ToolResult


class WeatherTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="weather",
            description="Get the current weather of a city",
            parameters={"city": "City name, e.g. Tokyo, London"},
            examples=["What's the weather in Tokyo?", "Is it raining in London?"],
        )

    def execute(self, params: dict) -> ToolResult:
        city = params.get("city", "").strip()
        if not city:
            return ToolResult(success=False, data="", error="missing city")
        if city.strip(".") == "":
            # `.` and `..` are not cities: as a path segment they name another page.
            return ToolResult(success=False, data="", error=f"not a city: {city!r}")
        try:
            # One path segment, whatever the city holds: `/`, `?` or `#`
            # would otherwise reach another page of the service.
            url = f"https://wttr.in/{quote(city, safe='')}"
            reply = requests.get(url, params={"format": "3"}, timeout=10)
            reply.raise_for_status()
        except requests.RequestException as exc:
            return ToolResult(success=False, data="", error=f"weather service unreachable: {exc}")
        return ToolResult(success=True, data=reply.text.strip())

    def is_available(self) -> bool:
        return self.config.get("tools", {}).get("weather", {}).get("enabled", True)
