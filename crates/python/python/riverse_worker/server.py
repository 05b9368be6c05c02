"""The JSON-RPC loop a worker serves: `initialize` (its options, the
sandbox's rules, then discovery), `riverse/call` and `riverse/discovery`
for the Riverse host, `tools/list` and `tools/call` for any MCP client."""

from __future__ import annotations

import _thread
import os
import sys

from . import host_channel, process, secrets
from .call import call_tool
from .discovery import Discovery, LazyTools
from .errors import describe
from .host_channel import CALLS, HostError
from .outcome import LIMITS
from .wire import (
    IMPORTING,
    MCP_PROTOCOL_VERSION,
    WORKER_PROTOCOL_VERSION,
    RpcError,
    decode_json,
    encode_json,
    top_level_id,
    unreadable,
)

# Starts a stderr line naming whose output follows; the host reads and drops it.
# The host's key follows it (see `Server.initialize`).
LABEL_MARKER = b"\0riverse-label:"


class Server:
    """One worker's side of the protocol stream: it answers the host's
    requests in turn, and asks the host on a running tool's behalf."""

    def __init__(self, proto_in, proto_out, tools_dir: str, config: dict, end=None, sandbox=None):
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.default_tools_dir = tools_dir
        self.default_config = config
        # Ends the worker and what its tools started, when it leads a process
        # group of its own (see `process.end_with_the_host`); else None.
        self.end = end
        # The rules of the sandbox it runs in (`sandbox_rules.SandboxRules`),
        # from `initialize` or inherited from a fork server; None in none.
        self.sandbox = sandbox
        self.discovery: Discovery | LazyTools | None = None
        # A hook worker's hooks (`hooks.HookDiscovery`), answered directly.
        self.hooks = None
        # Whether to mark in stderr whose output follows (see `label`).
        self.labels = False
        self.marker = LABEL_MARKER
        self.current_label: str | None = None
        self.host_requests = 0
        self.asking = _thread.allocate_lock()
        # The fork server this worker became, if it did (see `fork_server`).
        self.fork = None
        # Notifications a signal handler could not send while a message was
        # being written (see `send`).
        self.queued: list[dict] = []
        self.sending = False
        host_channel.HOST = self

    def ask_host(self, method: str, params: dict):
        """Sends a request to the host and reads until its answer; the host
        sends nothing else to a worker that is running a tool but
        notifications, which need no answer. Threads of a tool ask one at a
        time: the one asking reads the stream."""
        with self.asking:
            return self.ask_host_alone(method, params)

    def ask_host_alone(self, method: str, params: dict):
        self.host_requests += 1
        request_id = f"worker-{self.host_requests}"
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        for line in self.proto_in:
            try:
                message = decode_json(line)
            except (ValueError, RecursionError) as exc:
                if top_level_id(line) == request_id:
                    raise HostError(method, f"its answer can't be read: {describe(exc)}") from None
                continue
            if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                error = message.get("error")
                if error:
                    raise HostError(method, str(error.get("message")))
                return message.get("result") or {}
        raise RuntimeError("the host closed the protocol stream")

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def send(self, message: dict) -> None:
        line = encode_json(message)
        # A fork server's SIGCHLD handler sends too: while this writes, it
        # only queues what it has to say (see `notify_from_handler`).
        self.sending = True
        try:
            self.proto_out.write(line.encode("utf-8", "replace") + b"\n")
            self.proto_out.flush()
        finally:
            self.sending = False
        while self.queued:
            self.send(self.queued.pop(0))

    def notify_from_handler(self, method: str, params: dict) -> None:
        """A notification from a signal handler: sent now, or after the
        message being written when the signal came."""
        self.queued.append({"jsonrpc": "2.0", "method": method, "params": params})
        if not self.sending:
            while self.queued:
                self.send(self.queued.pop(0))

    def serve(self) -> None:
        for line in self.proto_in:
            try:
                message = decode_json(line)
            except (ValueError, RecursionError) as exc:
                self.send(unreadable(line, exc))
                continue
            if not isinstance(message, dict) or "method" not in message or "id" not in message:
                continue  # notifications and stray responses need no answer
            request_id = message["id"]
            try:
                result = self.dispatch(message["method"], message.get("params") or {})
                self.send({"jsonrpc": "2.0", "id": request_id, "result": result})
            except RpcError as exc:
                self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": exc.code, "message": str(exc)}})
            except Exception as exc:  # noqa: BLE001 - the worker itself must keep serving
                error = {"code": -32603, "message": describe(exc)}
                self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    def dispatch(self, method: str, params: dict):
        # The host's calls come first: they are nearly every request.
        if method == "riverse/call" and self.discovery is not None:
            return self.call(params)
        if method == "initialize":
            return self.initialize(params)
        if method == "ping":
            return {}
        if method == "riverse/fork":
            if self.fork is None:
                raise RpcError(-32601, "method not found: riverse/fork")
            return self.fork.fork_worker()
        if self.discovery is None:
            raise RpcError(-32002, "not initialized")
        if method in ("tools/list", "riverse/discovery") and isinstance(self.discovery, LazyTools):
            self.discover(self.discovery.tools_dir, self.discovery.config, [])
        if method == "tools/list":
            from .mcp_shapes import listed_tool

            return {"tools": [listed_tool(m) for m in self.discovery.manifests.values()]}
        if method == "tools/call":
            from .mcp_shapes import mcp_call_result

            manifest = getattr(self.discovery, "manifests", {}).get(str(params.get("name")))
            return mcp_call_result(self.call(params), manifest)
        if method == "riverse/discovery":
            return {"files": self.discovery.files}
        raise RpcError(-32601, f"method not found: {method}")

    def call(self, params: dict) -> dict:
        """One tool call, its output labelled with the tool's name."""
        name = str(params.get("name"))
        self.label(name)
        if self.labels:  # a Riverse host, which hears what the tool says
            CALLS.begin(self)
        secrets.begin(name, params.get("secrets"))
        try:
            if self.hooks is not None:
                return self.hooks.call(name, dict(params.get("arguments") or {}))
            return call_tool(self.discovery, name, dict(params.get("arguments") or {}), self.sandbox)
        finally:
            CALLS.end()
            secrets.end()

    def initialize(self, params: dict) -> dict:
        capabilities = params.get("capabilities") or {}
        options = (capabilities.get("experimental") or {}).get("riverse") or {}
        if self.discovery is None and self.fork is None:
            self.take_options(options)
            if isinstance(options.get("forkSocket"), int):
                from .fork_server import ForkServer

                self.fork = ForkServer(self, options)
                return self.initialized(params)
            tools_dir = options.get("toolsDir") or self.default_tools_dir
            config = options.get("config", self.default_config)
            if options.get("hooks"):
                from .hooks import HookDiscovery  # hook workers only

                self.discovery = self.hooks = HookDiscovery(tools_dir, config, options.get("skip") or [], self.announce)
                self.label("hooks")
            elif isinstance(options.get("tools"), dict):
                self.discovery = LazyTools(tools_dir, config, options["tools"])
            else:
                self.discover(tools_dir, config, options.get("skip") or [])
        return self.initialized(params)

    def take_options(self, options: dict) -> None:
        """The host's options (riverse-protocol's `WorkerInit`), taken up
        before any tool file is imported: the sandbox's rules among them."""
        self.labels = bool(options)
        if options.get("labelKey"):
            self.marker = LABEL_MARKER + str(options["labelKey"]).encode() + b":"
        if isinstance(options.get("maxOutputBytes"), int):
            LIMITS.max_output_bytes = max(0, options["maxOutputBytes"])
        if isinstance(options.get("maxContentBytes"), int):
            LIMITS.max_content_bytes = max(0, options["maxContentBytes"])
        if self.sandbox is None and options.get("sandbox") is not None:
            from .sandbox_rules import start_rules  # sandboxed workers only

            self.sandbox = start_rules(options["sandbox"])
        if self.end is not None and self.sandbox is not None:
            process.enter_own_signal_domain(self.sandbox.landlock_abi)

    def discover(self, tools_dir: str, config: dict, skip: list[str]) -> None:
        self.discovery = Discovery(tools_dir, config, skip, self.announce, self.sandbox)
        self.label("python")

    def initialized(self, params: dict) -> dict:
        return {
            "protocolVersion": params.get("protocolVersion") or MCP_PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "riverse-python", "version": WORKER_PROTOCOL_VERSION},
        }

    def announce(self, file: str) -> None:
        self.send({"jsonrpc": "2.0", "method": IMPORTING, "params": {"file": file}})
        self.label(file)

    def label(self, name: str) -> None:
        """Tells the Riverse host, in the stderr stream itself, that what follows
        there comes from `name`, so output is attributed in order. Written only
        when it changes; a standalone MCP server writes none."""
        if not self.labels or name == self.current_label:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass  # a tool closed or broke it; the marker still goes out
        try:
            os.write(2, self.marker + name.encode("utf-8", "replace") + b"\n")
        except OSError:
            return  # stderr is gone: there is no output left to attribute
        self.current_label = name
