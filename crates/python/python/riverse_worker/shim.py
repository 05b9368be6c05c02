"""The `agent.tools` module the tool files import, provided by the worker."""

from __future__ import annotations

import os
import sys
import types

from . import contract

# What `from agent.tools import ...` finds, `ToolRegistry` among them.
EXPORTED = ("BaseTool", "ToolManifest", "ToolResult", "ToolRegistry", "Image", "Audio", "Resource", "Answer")


def install_shim(tools_dir: str) -> None:
    """Makes `agent.tools` importable, with its package path on the tools
    directory so `agent.tools._helper` and sibling tool files resolve there.
    In Riverse's layout (`agent/tools/`) the `agent` package is the folder
    that holds the tools directory, so `agent.config`, `agent.utils` and any
    other package kept there import as they do in Riverse."""
    installed = sys.modules.get("agent.tools")
    if installed is not None and getattr(installed, "__path__", None) == [tools_dir]:
        return  # a forked worker: the fork server installed it and imported the tools
    agent = types.ModuleType("agent")
    parent = os.path.dirname(tools_dir)
    in_layout = os.path.basename(tools_dir) == "tools" and os.path.isdir(parent)
    agent.__path__ = [parent] if in_layout else []
    tools = types.ModuleType("agent.tools", "Riverse drop-in tools")
    tools.__path__ = [tools_dir]
    tools.__package__ = "agent.tools"
    for name in EXPORTED:
        if name != "ToolRegistry":
            setattr(tools, name, getattr(contract, name))
    tools.__getattr__ = registry_on_first_use(tools)
    tools.__all__ = list(EXPORTED)
    agent.tools = tools
    sys.modules["agent"] = agent
    sys.modules["agent.tools"] = tools


def registry_on_first_use(tools: types.ModuleType):
    """The `__getattr__` of `agent.tools`, which imports `ToolRegistry` when
    a tool first asks for it: most never call the host's tools, and every
    worker start would pay for its import."""

    def attribute(name: str):
        if name != "ToolRegistry":
            raise AttributeError(f"module 'agent.tools' has no attribute {name!r}")
        from .host_registry import ToolRegistry

        tools.ToolRegistry = ToolRegistry
        return ToolRegistry

    return attribute
