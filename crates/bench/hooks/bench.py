"""What one no-op hook costs a warm call over `riverse mcp`: two projects,
the same echo tool, one with a hook whose `before_call` lets every call go
on, driven by one newline-delimited JSON-RPC client in alternating blocks
so that a shared machine's noise falls on both alike.

    python3 crates/bench/hooks/bench.py target/release/riverse [CALLS_PER_BLOCK] [BLOCKS]
"""

import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ECHO = '''from agent.tools import BaseTool, ToolManifest, ToolResult


class Echo(BaseTool):
    def manifest(self):
        return ToolManifest(name="echo", description="Echo", parameters={"text": "text"})

    def execute(self, params):
        return ToolResult(True, params.get("text", ""))
'''

NO_OP_HOOK = '''from agent.hooks import Hook


class NoOp(Hook):
    def before_call(self, call):
        return None
'''


def project(root: pathlib.Path, name: str, hook: bool) -> pathlib.Path:
    dir = root / name
    (dir / "agent/tools").mkdir(parents=True)
    (dir / "agent/tools/echo.py").write_text(ECHO)
    if hook:
        (dir / "agent/hooks").mkdir(parents=True)
        (dir / "agent/hooks/noop.py").write_text(NO_OP_HOOK)
    return dir


class Session:
    def __init__(self, binary: str, dir: pathlib.Path):
        self.process = subprocess.Popen(
            [binary, "--dir", str(dir), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.id = 0
        info = {"name": "bench", "version": "1"}
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            reply = json.loads(self.process.stdout.readline())
            if reply.get("id") == self.id:
                return reply

    def call(self) -> float:
        started = time.perf_counter()
        reply = self.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        assert reply["result"]["content"][0]["text"] == "hi", reply
        return time.perf_counter() - started

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    binary = sys.argv[1]
    per_block = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    blocks = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with tempfile.TemporaryDirectory() as root:
        root = pathlib.Path(root)
        sessions = {
            "no hook": Session(binary, project(root, "plain", False)),
            "one no-op hook": Session(binary, project(root, "hooked", True)),
        }
        samples = {name: [] for name in sessions}
        for session in sessions.values():
            for _ in range(200):
                session.call()
        for _ in range(blocks):
            for name, session in sessions.items():
                samples[name].extend(session.call() for _ in range(per_block))
        for session in sessions.values():
            session.close()
    base = statistics.median(samples["no hook"])
    for name, times in samples.items():
        times.sort()
        p50, p99 = statistics.median(times), times[int(len(times) * 0.99)]
        print(f"{name:15} p50 {p50 * 1e6:7.1f} us  p99 {p99 * 1e6:8.1f} us  p50 ratio {p50 / base:.2f}")


if __name__ == "__main__":
    main()
