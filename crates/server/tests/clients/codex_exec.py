"""The Codex CLI running one `codex exec` task against `riverse serve`'s
/v1/responses, through a custom model provider (`wire_api = "responses"`).

Usage: codex_exec.py BASE_URL CODEX PROMPT; prints one JSON document of what
it read: Codex's exit status, its last message (`-o`; Codex exits 0 with an
empty one when a stream breaks, so read the text), the items of its turn
(`--json` events: commands it ran with their output, messages), and the
errors it reported.

Codex runs in a throwaway CODEX_HOME and working directory, with no
approvals or sandbox (its tool commands run as they are), and with what
reaches the internet off: plugins (a git and GitHub sync at start), analytics
(OTLP metrics), web search; shell_snapshot (a login shell at start), goals
and sub-agents are off too, leaving it fewer tools. No retries: a failure
fails at once.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

CONFIG = """
model = "riverse"
model_provider = "riverse"
approval_policy = "never"
sandbox_mode = "danger-full-access"
web_search = "disabled"

[model_providers.riverse]
name = "Riverse"
base_url = "{base_url}"
wire_api = "responses"
env_key = "RIVERSE_API_KEY"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000

[features]
plugins = false
shell_snapshot = false
goals = false

[agents]
enabled = false

[analytics]
enabled = false
"""


def item_seen(item):
    if item["type"] == "command_execution":
        return [item["type"], item["command"], item["aggregated_output"], item["exit_code"]]
    if item["type"] == "agent_message":
        return [item["type"], item["text"]]
    if item["type"] == "error":
        return [item["type"], item["message"]]
    return [item["type"]]


def main():
    base_url, codex, prompt = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        (pathlib.Path(home) / "config.toml").write_text(CONFIG.format(base_url=base_url))
        last = pathlib.Path(work) / "last-message.txt"
        done = subprocess.run(
            [codex, "exec", "--strict-config", "--skip-git-repo-check", "--ephemeral", "--color", "never",
             "--json", "-C", work, "-o", str(last), prompt],
            env={**os.environ, "CODEX_HOME": home, "RIVERSE_API_KEY": "sk-test"},
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        )
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        seen = {
            "status": done.returncode,
            "last_message": last.read_text() if last.exists() else None,
            "items": [item_seen(e["item"]) for e in events if e["type"] == "item.completed"],
            "errors": [e.get("message") or e.get("error") for e in events if e["type"] in ("error", "turn.failed")],
        }
        if done.returncode != 0:
            seen["stderr"] = done.stderr[-2000:]
    print(json.dumps(seen))


main()
