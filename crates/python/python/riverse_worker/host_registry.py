"""Riverse's `ToolRegistry` as a tool sees it: the host's registry, whose
tools a tool may call through the host."""

from __future__ import annotations

from . import host_channel
from .contract import BaseTool, ToolManifest, ToolResult
from .wire import HOST_TOOLS_CALL, HOST_TOOLS_LIST


class ToolRegistry:
    """The host's registry, so a call made here runs like any other (its
    deadline, its isolation, every tool source). Built inside `execute`, not
    at import or in `__init__`: the host's registry exists only once
    discovery is over."""

    def __init__(self, config: dict, enabled=True, **_ignored):
        self.config = config
        self._tools: dict[str, HostTool] = {}
        if enabled is False:
            return
        for listed in host_channel.ask_host(HOST_TOOLS_LIST, {}).get("tools", []):
            manifest = ToolManifest(
                name=listed["name"],
                description=listed.get("description", ""),
                parameters=listed.get("parameters") or {},
                examples=listed.get("examples") or [],
                parameter_types=listed.get("parameter_types") or {},
                input_schema=listed.get("input_schema"),
                output_schema=listed.get("output_schema"),
                annotations=listed.get("annotations"),
            )
            self._tools[manifest.name] = HostTool(self, manifest)

    @staticmethod
    def list_registered_tool_names() -> list[str]:
        """The tool modules, as Riverse's tools.yaml lists them."""
        from .discovery import tool_files  # discovery imports this module

        host = host_channel.HOST
        tools_dir = host.discovery.tools_dir if host and host.discovery else ""
        return [name[:-3] for name in tool_files(tools_dir)]

    def list_available(self) -> list[ToolManifest]:
        return [tool.manifest() for tool in self._tools.values()]

    def get_tool(self, name: str):
        return self._tools.get(name)

    def execute(self, name: str, params: dict) -> ToolResult:
        result = host_channel.ask_host(HOST_TOOLS_CALL, {"name": name, "arguments": dict(params or {})})
        structured = result.get("structured")
        return ToolResult(
            success=result.get("success") is True,
            data=str(result.get("data", "")),
            error=str(result.get("error", "")),
            structured=structured if isinstance(structured, dict) else None,
        )


class HostTool(BaseTool):
    """A tool of the host's registry, as `ToolRegistry.get_tool` returns it."""

    def __init__(self, registry: ToolRegistry, manifest: ToolManifest):
        self.config = registry.config
        self._registry = registry
        self._manifest = manifest

    def manifest(self) -> ToolManifest:
        return self._manifest

    def execute(self, params: dict) -> ToolResult:
        return self._registry.execute(self._manifest.name, params)


ToolRegistry.__module__ = "agent.tools"
