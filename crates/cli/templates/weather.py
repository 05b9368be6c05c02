# /// script
# dependencies = ["requests>=2.31"]
# ///
"""Current weather for a city, from wttr.in (needs the network). The block
above declares the package it imports: Riverse installs it into the project's
tool environment, .riverse/venv, before the tools load.

Its errors are short and in the settings' `language` (en, ja or zh); the
exception behind one is logged at debug level (shown with `riverse -vv`)."""

from urllib.parse import quote, urlsplit

import requests

from agent.tools import BaseTool, ToolManifest, ToolResult

# The service asked, unless tools.weather.base_url names another (a mirror,
# or a local stand-in while testing).
BASE_URL = "https://wttr.in"

MESSAGES = {
    "en": {
        "missing": "missing city",
        "not_a_city": "not a city: {city!r}",
        "unreachable": "can't reach the weather service ({host})",
        "slow": "the weather service ({host}) did not answer in time",
        "unknown": "unknown city {city!r}",
        "status": "the weather service ({host}) answered HTTP {status}",
    },
    "ja": {
        "missing": "都市名がありません",
        "not_a_city": "都市名ではありません: {city!r}",
        "unreachable": "天気サービス ({host}) に接続できません",
        "slow": "天気サービス ({host}) が時間内に応答しませんでした",
        "unknown": "不明な都市です: {city!r}",
        "status": "天気サービス ({host}) が HTTP {status} を返しました",
    },
    "zh": {
        "missing": "缺少城市名",
        "not_a_city": "不是城市名：{city!r}",
        "unreachable": "无法连接天气服务 ({host})",
        "slow": "天气服务 ({host}) 没有及时响应",
        "unknown": "未知的城市：{city!r}",
        "status": "天气服务 ({host}) 返回了 HTTP {status}",
    },
}

class WeatherTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        section = config.get("tools", {}).get("weather", {}) or {}
        self.base_url = str(section.get("base_url") or BASE_URL).rstrip("/")
        self.messages = MESSAGES.get(config.get("language"), MESSAGES["en"])

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="weather",
            description="Get the current weather of a city",
            parameters={"city": "City name, e.g. Tokyo, London"},
            examples=[
                "What's the weather in Tokyo?",
                "Is it raining in London?",
                "大阪の天気は？",
                "北京今天天气怎么样？",
            ],
        )

    def fail(self, message: str, **values) -> ToolResult:
        return ToolResult(success=False, data="", error=self.messages[message].format(**values))

    def execute(self, params: dict) -> ToolResult:
        city = params.get("city", "").strip()
        if not city:
            return self.fail("missing")
        if city.strip(".") == "":
            # `.` and `..` are not cities: as a path segment they name another page.
            return self.fail("not_a_city", city=city)
        host = urlsplit(self.base_url).netloc or self.base_url
        try:
            # One path segment, whatever the city holds: `/`, `?` or `#`
            # would otherwise reach another page of the service.
            url = f"{self.base_url}/{quote(city, safe='')}"
            reply = requests.get(url, params={"format": "3"}, timeout=10)
        except requests.RequestException as exc:
            self.log(f"{url}: {exc}", level="debug")
            slow = isinstance(exc, requests.Timeout)
            return self.fail("slow" if slow else "unreachable", host=host)
        if reply.status_code == 404:
            return self.fail("unknown", city=city)
        if not reply.ok:
            return self.fail("status", host=host, status=reply.status_code)
        return ToolResult(success=True, data=reply.text.strip())

    def is_available(self) -> bool:
        return self.config.get("tools", {}).get("weather", {}).get("enabled", True)
