"""Riverse's Python worker: imports drop-in tools and serves them over MCP on stdio.

The host writes this package into its cache and imports it from there, so
Python keeps its bytecode (or hands it the modules' sources on the command
line where there is no cache), and speaks newline-delimited JSON-RPC 2.0 to
it: `initialize` (its options, the sandbox's rules among them),
`riverse/discovery` for the fate of every file, `riverse/call` for a tool's
`ToolResult`, once and flat. A worker forked after discovery is given every
tool's file and class in `initialize` and instantiates each tool at its first
call. It is also a standalone MCP server (`tools/list`, `tools/call`):

    python path/to/riverse_worker TOOLS_DIR [CONFIG_JSON_FILE]

While a tool runs, what it says and asks (`self.log`, `self.progress`,
`self.ask`, `self.sample`) goes to the host as `notifications/riverse/log` and
`.../progress` and as `riverse/host/ask` and `riverse/host/sample` requests.

It provides `agent.tools` (BaseTool, ToolManifest, ToolResult, ToolRegistry,
Image, Audio, Resource, Answer) to the tool files, so they import it as they
would in any Riverse project. Standard library only.

Its modules, each with one job:
    server         the JSON-RPC loop: initialize, discovery, calls
    wire           the protocol's JSON lines and method names
    contract       what a tool imports: BaseTool, ToolManifest, ToolResult...
    shim           the `agent.tools` module the tool files import
    discovery      importing the tool files and finding their tools
    manifest       checking a tool's manifest
    call           running one call and checking what it returned
    outcome        a call's outcome as the host reads it, content blocks too
    host_channel   what a running tool says and asks of the host
    host_registry  `ToolRegistry`: the host's tools, called from a tool
    mcp_shapes     what a standalone MCP server lists and answers
    errors         failures located in the tool files
    import_hints   what to declare for a module that is missing
    sandbox_rules  which rule of the sandbox a refused call broke
    fork_server    the fork server: imports once, forks workers
    process        the worker as a process: private protocol descriptors,
                   its name, ending with the host and what its tools left

This module is how a worker starts: spawned by the host (`boot`, or
`serve_as_spawned` where the package is not cached), or as a standalone
MCP server (`main`).
"""

from __future__ import annotations

import json
import os
import sys

from . import bytecode, process
from .process import PROCESS_LABEL, name_process, take_protocol_streams
from .server import Server

__all__ = ["boot", "main", "serve_as_spawned"]


def boot() -> None:
    """Serves as a worker the host started with the bootstrap in
    `package.rs`, which put the package's directory first on sys.path and
    turned bytecode writing on, to import it: both are undone. The project
    directory is not on the path: tools and the LLM can write there, so a
    `json.py` there would replace a module this worker and its tools import;
    tools import the project's code as `agent.tools.*` and `agent.*` (see
    `shim`). Issue 41, finding 3."""
    bytecode.ROOT = os.path.join(os.path.dirname(sys.path[0]), "tool-bytecode")
    del sys.path[0]
    sys.dont_write_bytecode = bool(sys.flags.dont_write_bytecode)
    serve_as_spawned()


def serve_as_spawned() -> None:
    # The label is for `ps`: tools see sys.argv as `python -c` leaves it (a
    # library that parses sys.argv would take the label for its options).
    del sys.argv[1:]
    name_process(PROCESS_LABEL)
    main([])


def main(argv: list[str]) -> None:
    """Serves the tools directory `argv[0]` (`agent/tools` by default), with
    the settings of the JSON file `argv[1]` when given, until the protocol
    stream ends."""
    tools_dir = argv[0] if argv else os.path.join("agent", "tools")
    config = {}
    if len(argv) > 1:
        with open(argv[1], encoding="utf-8") as file:
            config = json.load(file)
    end = process.end_with_the_host()
    if end is not None:
        process.become_subreaper()
    proto_in, proto_out = take_protocol_streams()
    Server(proto_in, proto_out, tools_dir, config, end).serve()
    if end is not None:
        end()
