"""The current date and time in any time zone. Works offline."""

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.tools import BaseTool, ToolManifest, ToolResult

# Common city names people use instead of IANA zone names.
CITY_ZONES = {
    "tokyo": "Asia/Tokyo",
    "london": "Europe/London",
    "paris": "Europe/Paris",
    "berlin": "Europe/Berlin",
    "new york": "America/New_York",
    "los angeles": "America/Los_Angeles",
    "sydney": "Australia/Sydney",
    "beijing": "Asia/Shanghai",
    "shanghai": "Asia/Shanghai",
    "singapore": "Asia/Singapore",
    "東京": "Asia/Tokyo",
    "北京": "Asia/Shanghai",
}


class ClockTool(BaseTool):
    def __init__(self, config: dict):
        section = config.get("tools", {}).get("clock", {}) or {}
        self.default_zone = section.get("timezone", "UTC")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="clock",
            description="Get the current date and time, optionally in a time zone or city",
            parameters={"timezone": "IANA time zone or city, e.g. Asia/Tokyo, London (default UTC)"},
            examples=["What time is it in Tokyo?", "What's the date today?", "東京は今何時？"],
        )

    def execute(self, params: dict) -> ToolResult:
        requested = str(params.get("timezone") or self.default_zone).strip()
        zone_name = CITY_ZONES.get(requested.lower(), requested)
        try:
            zone = ZoneInfo(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            return ToolResult(success=False, data="", error=f"unknown time zone {requested!r}")
        now = datetime.now(zone)
        return ToolResult(success=True, data=now.strftime(f"%A %Y-%m-%d %H:%M:%S ({zone_name}, UTC%z)"))
