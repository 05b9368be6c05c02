#!/usr/bin/env bash
# Times `riverse ask` as a whole process on a project of eight tools (the
# three `riverse init` writes and the five of tools.py), on the embedded
# default, one message at a time: the median of each, after one warm-up run
# (which also prefills the tool set's prompts once), with farm-bench.
#
#   crates/bench/ask/bench.sh [RIVERSE_BINARY] [RUNS]
#
# RIVERSE_BINARY defaults to target/release/riverse (cargo build --release -p riverse).
# EMBEDDED_MODEL=FILE runs that GGUF file instead of the default model
# (embedded.model_path), for side-by-side measurements of another model.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
riverse=$(realpath "${1:-target/release/riverse}")
runs=${2:-5}
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
"$riverse" init "$project/demo" >/dev/null 2>&1
cp "$here/tools.py" "$project/demo/agent/tools/bench_tools.py"
if [[ -n "${EMBEDDED_MODEL:-}" ]]; then
  printf '\nembedded:\n  model_path: %s\n' "$(realpath "$EMBEDDED_MODEL")" >> "$project/demo/settings.yaml"
fi
echo "riverse: $riverse; tools: $("$riverse" --dir "$project/demo" tools --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tools"]))')"
for message in \
  "What time is it in Tokyo?" \
  "Convert 5 miles to km" \
  "What is 23 times 19?" \
  "Remind me to water the plants at 6pm" \
  "Thanks, that's all!"; do
  echo "== $message"
  farm-bench -n "$runs" --warmup 1 --timeout 600 -- "$riverse" --dir "$project/demo" ask "$message" 2>&1 | grep -E 'wall|peak'
done
