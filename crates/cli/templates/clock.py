"""The current date and time in any time zone. Works offline. Its errors are in
the settings' `language` (en, ja or zh)."""

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.tools import BaseTool, ToolManifest, ToolResult

# Common city names people use instead of IANA zone names, in English,
# Japanese and Chinese.
CITY_ZONES = {
    "tokyo": "Asia/Tokyo",
    "osaka": "Asia/Tokyo",
    "london": "Europe/London",
    "paris": "Europe/Paris",
    "berlin": "Europe/Berlin",
    "new york": "America/New_York",
    "los angeles": "America/Los_Angeles",
    "sydney": "Australia/Sydney",
    "beijing": "Asia/Shanghai",
    "shanghai": "Asia/Shanghai",
    "hong kong": "Asia/Hong_Kong",
    "seoul": "Asia/Seoul",
    "singapore": "Asia/Singapore",
    "東京": "Asia/Tokyo",
    "大阪": "Asia/Tokyo",
    "ロンドン": "Europe/London",
    "パリ": "Europe/Paris",
    "ベルリン": "Europe/Berlin",
    "ニューヨーク": "America/New_York",
    "ロサンゼルス": "America/Los_Angeles",
    "シドニー": "Australia/Sydney",
    "北京": "Asia/Shanghai",
    "上海": "Asia/Shanghai",
    "香港": "Asia/Hong_Kong",
    "ソウル": "Asia/Seoul",
    "シンガポール": "Asia/Singapore",
    "东京": "Asia/Tokyo",
    "伦敦": "Europe/London",
    "巴黎": "Europe/Paris",
    "柏林": "Europe/Berlin",
    "纽约": "America/New_York",
    "洛杉矶": "America/Los_Angeles",
    "悉尼": "Australia/Sydney",
    "首尔": "Asia/Seoul",
    "新加坡": "Asia/Singapore",
}

UNKNOWN_ZONE = {
    "en": "unknown time zone {zone!r}",
    "ja": "不明なタイムゾーンです: {zone!r}",
    "zh": "未知的时区：{zone!r}",
}


class ClockTool(BaseTool):
    def __init__(self, config: dict):
        section = config.get("tools", {}).get("clock", {}) or {}
        self.default_zone = section.get("timezone", "UTC")
        self.unknown_zone = UNKNOWN_ZONE.get(config.get("language"), UNKNOWN_ZONE["en"])

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="clock",
            description="Get the current date and time, optionally in a time zone or city",
            parameters={"timezone": "IANA time zone or city, e.g. Asia/Tokyo, London (default UTC)"},
            examples=[
                "What time is it in Tokyo?",
                "What's the date today?",
                "東京は今何時？",
                "今日は何日？",
                "伦敦现在几点？",
                "今天几号？",
            ],
        )

    def execute(self, params: dict) -> ToolResult:
        requested = str(params.get("timezone") or self.default_zone).strip()
        zone_name = CITY_ZONES.get(requested.lower(), requested)
        try:
            zone = ZoneInfo(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            return ToolResult(success=False, data="", error=self.unknown_zone.format(zone=requested))
        now = datetime.now(zone)
        return ToolResult(success=True, data=now.strftime(f"%A %Y-%m-%d %H:%M:%S ({zone_name}, UTC%z)"))
