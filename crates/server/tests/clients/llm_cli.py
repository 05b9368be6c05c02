"""The `llm` CLI (Simon Willison's) against `riverse serve`'s
/v1/chat/completions, as an extra OpenAI model of a throwaway LLM_USER_PATH.

Usage: llm_cli.py BASE_URL MODE; prints one JSON document of what it read.
Runs the `llm` beside this interpreter; MODE is one of:
  plain  `llm -m riverse PROMPT`, streamed as it is by default, then with
         --no-stream (llm fails on a reply without usage)
  tool   the same two with `--functions` defining packing_list: llm runs the
         tool when the model calls it and sends the result back
Each run's printed answer is read, and then what llm logged of it (`llm logs
--json`: the usage it recorded, its tool calls and their results).
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

LLM = pathlib.Path(sys.executable).parent / "llm"
FUNCTIONS = '''
def packing_list(city: str) -> str:
    "Lists what to pack for a trip."
    return f"umbrella and boots for {city}"
'''


def configured(home, base_url):
    # api_key_name names the key in keys.json; without it llm sends
    # "Bearer DUMMY_KEY". supports_tools is what lets --functions through.
    (home / "extra-openai-models.yaml").write_text(
        f"- model_id: riverse\n"
        f"  model_name: riverse\n"
        f"  api_base: \"{base_url}\"\n"
        f"  api_key_name: riverse\n"
        f"  supports_tools: true\n"
    )
    (home / "keys.json").write_text(json.dumps({"riverse": "sk-test"}))
    return {**os.environ, "LLM_USER_PATH": str(home)}


def llm(env, *args):
    done = subprocess.run([LLM, *args], env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise SystemExit(f"llm {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def logged(env):
    """What llm logged of the run: each of its requests' usage, tool calls and
    the tool results it sent."""
    return [
        {
            "usage": [entry["input_tokens"], entry["output_tokens"]],
            "tool_calls": [[call["name"], call["arguments"]] for call in entry["tool_calls"] or []],
            "tool_results": [result["output"] for result in entry["tool_results"] or []],
        }
        for entry in json.loads(llm(env, "logs", "--json", "--count", "0"))
    ]


def run(base_url, prompt, *options):
    """Runs llm once, in a home of its own; its answer and what it logged."""
    with tempfile.TemporaryDirectory() as home:
        env = configured(pathlib.Path(home), base_url)
        answer = llm(env, "-m", "riverse", *options, prompt)
        return {"answer": answer.strip(), "logged": logged(env)}


def main():
    base_url, mode = sys.argv[1], sys.argv[2]
    if mode == "plain":
        seen = {
            "streamed": run(base_url, "Say hello"),
            "whole": run(base_url, "Say hello", "--no-stream"),
        }
    else:
        seen = {
            "streamed": run(base_url, "What do I pack for Tokyo?", "--functions", FUNCTIONS),
            "whole": run(base_url, "What do I pack for Oslo?", "--functions", FUNCTIONS, "--no-stream"),
        }
    print(json.dumps(seen))


main()
