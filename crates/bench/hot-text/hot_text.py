"""What `riverse mcp` holds resident, and the order its code is laid out in.

`riverse mcp` serves 200 tool files to a minimal newline-delimited JSON-RPC
client: `initialize`, `tools/list`, then one call of each of 198 tools. Then
the server's memory is read from /proc: VmRSS, and with --detail where it
lies (the binary's code, its relocated read-only data, the heap, shared
libraries), from /proc/PID/smaps.

    python3 crates/bench/hot-text/hot_text.py measure target/release/riverse [--runs N] [--detail]

`order` remakes crates/cli/hot-text.order, the functions the binary's linker
lays out first (crates/cli/build.rs): it runs the same session, then
`riverse tools --json` and `riverse call` on the same project, with
trace.c's page tracer loaded, and lists every function on a page of code
they ran, in the order the pages were first run. Run it on a release build
of the source it is for (symbol names carry their crate's hash):

    python3 crates/bench/hot-text/hot_text.py order target/release/riverse
"""

import argparse
import collections
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ORDER = HERE.parent.parent / "cli" / "hot-text.order"
TOOLS = 200
CALLS = 198

TOOL = '''import os
import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class Tool(BaseTool):
    def manifest(self):
        return ToolManifest(
            name="{name}",
            description="Benchmark tool {name}",
            parameters={{"text": "what the tool works on"}},
            examples=["Use {name}"],
        )

    def execute(self, params):
        return ToolResult(success=True, data="{name}: " + params.get("text", ""))
'''


def project(root: pathlib.Path) -> pathlib.Path:
    tools = root / "agent" / "tools"
    tools.mkdir(parents=True)
    for index in range(TOOLS):
        name = f"tool_{index:03}"
        (tools / f"{name}.py").write_text(TOOL.format(name=name))
    interpreter = json.dumps(sys.executable)
    (root / "settings.yaml").write_text(f"python: {{interpreter: {interpreter}}}\n")
    return root


class Session:
    """`riverse mcp` on stdio, driven one request at a time."""

    def __init__(self, riverse: str, dir: pathlib.Path, env: dict):
        self.process = subprocess.Popen(
            [riverse, "--dir", str(dir), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.next_id = 0

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = json.loads(self.process.stdout.readline())
        if "result" not in reply:
            raise SystemExit(f"{method} failed: {reply}")
        return reply["result"]

    def serve_all(self) -> None:
        client = {"name": "hot-text", "version": "0"}
        self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = self.request("tools/list", {})["tools"]
        if len(listed) != TOOLS:
            raise SystemExit(f"riverse mcp listed {len(listed)} tools, not {TOOLS}")
        for index in range(CALLS):
            name = f"tool_{index:03}"
            result = self.request("tools/call", {"name": name, "arguments": {"text": "x"}})
            if result.get("isError"):
                raise SystemExit(f"{name} failed: {result}")

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def status_field(pid: int, name: str) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise SystemExit(f"no {name} in /proc/{pid}/status")


def smaps(pid: int) -> dict:
    """Resident and anonymous KiB by (mapping's file name, permissions)."""
    totals = collections.defaultdict(collections.Counter)
    key = None
    for line in pathlib.Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if "-" in parts[0] and not parts[0].endswith(":"):
            name = os.path.basename(parts[5]) if len(parts) > 5 else "[anonymous]"
            key = (name, parts[1])
        elif parts[0] in ("Rss:", "Anonymous:"):
            totals[key][parts[0]] += int(parts[1])
    return totals


def measure(args) -> None:
    with tempfile.TemporaryDirectory() as root:
        dir = project(pathlib.Path(root))
        resident = []
        for _ in range(args.runs):
            session = Session(args.riverse, dir, dict(os.environ))
            session.serve_all()
            time.sleep(0.2)
            pid = session.process.pid
            rss = status_field(pid, "VmRSS")
            threads = status_field(pid, "Threads")
            resident.append(rss)
            print(f"VmRSS {rss / 1024:.2f} MiB, {threads} threads", flush=True)
            if args.detail:
                for (name, perms), kib in sorted(smaps(pid).items(), key=lambda e: -e[1]["Rss:"]):
                    if kib["Rss:"] >= 64:
                        print(f"  {name[:32]:32} {perms} {kib['Rss:']:6} KiB, anonymous {kib['Anonymous:']:6}")
            session.close()
        print(
            f"median {statistics.median(resident) / 1024:.2f} MiB over {len(resident)} runs"
            f" ({min(resident) / 1024:.2f}-{max(resident) / 1024:.2f})"
        )


def traced_pages(args, dir: pathlib.Path, work: pathlib.Path) -> list:
    tracer = work / "trace.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(tracer), str(HERE / "trace.c")], check=True)
    out = work / "pages.txt"
    env = dict(
        os.environ,
        LD_PRELOAD=str(tracer),
        TRACE_EXE=os.path.basename(args.riverse),
        TRACE_OUT=str(out),
    )
    session = Session(args.riverse, dir, env)
    session.serve_all()
    session.close()
    for command in (["tools", "--json"], ["call", "tool_000", "--params", '{"text": "x"}']):
        subprocess.run(
            [args.riverse, "--dir", str(dir), *command],
            env=env,
            stdout=subprocess.DEVNULL,
            check=True,
        )
    pages = []
    for line in out.read_text().splitlines():
        page = int(line, 16)
        if page not in pages:
            pages.append(page)
    return pages


def order(args) -> None:
    with tempfile.TemporaryDirectory() as root:
        work = pathlib.Path(root)
        dir = project(work / "project")
        pages = traced_pages(args, dir, work)
    first_run = {page: rank for rank, page in enumerate(pages)}
    symbols = subprocess.run(
        ["nm", "--print-size", "--defined-only", args.riverse],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ranked = []
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in "tTwW":
            continue
        address, size, name = int(parts[0], 16), int(parts[1], 16), parts[3]
        ranks = [
            first_run[page]
            for page in range(address & ~4095, address + size, 4096)
            if page in first_run
        ]
        if size and ranks:
            ranked.append((min(ranks), address, name, size))
    ranked.sort()
    names = list(dict.fromkeys(name for _, _, name, _ in ranked))
    ORDER.write_text("\n".join(names) + "\n")
    size = sum(entry[3] for entry in ranked)
    print(f"{len(pages)} pages run, {len(names)} functions ({size / 2**20:.1f} MiB) in {ORDER}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measuring = commands.add_parser("measure")
    measuring.add_argument("riverse")
    measuring.add_argument("--runs", type=int, default=5)
    measuring.add_argument("--detail", action="store_true")
    ordering = commands.add_parser("order")
    ordering.add_argument("riverse")
    args = parser.parse_args()
    args.riverse = os.path.abspath(args.riverse)
    measure(args) if args.command == "measure" else order(args)


if __name__ == "__main__":
    main()
