#!/usr/bin/env bash
# The tool environment's cost, with farm-bench, from the wheels of
# target/test-wheels (the tests' wheels; no network: uv and pip read them as
# local links, offline):
#   1. a start with nothing changed: `riverse tools` on a project whose tool
#      files declare packages (environment in sync) against the same project
#      with the declarations taken out (no environment), in pairs;
#   2. the first sync: `riverse sync --rebuild`, with uv and with pip.
#
#   crates/bench/environment/bench.sh [RIVERSE_BINARY] [RUNS]
#
# RIVERSE_BINARY defaults to target/release/riverse (cargo build --release -p riverse).
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
riverse=$(realpath "${1:-target/release/riverse}")
runs=${2:-10}
wheels="$here/target/test-wheels"
[ -f "$wheels/riverse-wheels.txt" ] || { echo "no wheels in $wheels: run the tests once (cargo test -p riverse-test-support)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export UV_OFFLINE=1 UV_FIND_LINKS="$wheels" UV_NO_CONFIG=1 UV_CACHE_DIR="$work/uv-cache"
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheels" PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CACHE_DIR="$work/pip-cache"
unset PIP_INDEX_URL UV_INDEX_URL

declared="$work/declared"
"$riverse" init "$declared" >/dev/null 2>&1
cp "$here/crates/bench/ask/tools.py" "$declared/agent/tools/bench_tools.py"
cat > "$declared/agent/tools/dates.py" <<'PY'
# /// script
# dependencies = ["python-dateutil==2.9.0.post0", "markupsafe==3.0.2", "six==1.17.0"]
# ///
import dateutil.parser
import markupsafe

from agent.tools import BaseTool, ToolManifest, ToolResult


class Dates(BaseTool):
    def manifest(self):
        return ToolManifest(name="parse_date", description="Parse a date", parameters={"text": "A date"})

    def execute(self, params):
        return ToolResult(True, markupsafe.escape(dateutil.parser.parse(params["text"]).isoformat()))
PY
plain="$work/plain"
cp -r "$declared" "$plain"
for file in "$plain"/agent/tools/*.py; do
  sed -i '/^# \/\/\/ script$/,/^# \/\/\/$/d' "$file"
done
"$riverse" --dir "$declared" sync >/dev/null
"$riverse" --dir "$plain" tools >/dev/null
echo "riverse: $riverse; tools: $("$riverse" --dir "$declared" tools --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tools"]))')"

echo "== a start with nothing changed: riverse tools, declarations in sync (A) vs none (B)"
farm-bench -n "$runs" --warmup 2 --timeout 600 --vs "$riverse --dir $plain tools" -- "$riverse" --dir "$declared" tools 2>&1 | grep -E 'wall|ratio'

echo "== the first sync with uv: riverse sync --rebuild (uv's cache warm)"
sed -i 's/^  installer: .*/  installer: uv/' "$declared/settings.yaml"
farm-bench -n "$runs" --warmup 1 --timeout 600 -- "$riverse" --dir "$declared" sync --rebuild 2>&1 | grep -E 'wall'

echo "== the first sync with pip: riverse sync --rebuild (pip's cache warm)"
sed -i 's/^  installer: .*/  installer: pip/' "$declared/settings.yaml"
farm-bench -n "$(( runs < 5 ? runs : 5 ))" --warmup 1 --timeout 900 -- "$riverse" --dir "$declared" sync --rebuild 2>&1 | grep -E 'wall'
