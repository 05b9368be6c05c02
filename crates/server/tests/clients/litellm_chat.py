"""LiteLLM's completion() against `riverse serve`'s /v1/chat/completions, as
an OpenAI-compatible provider (`openai/<model>` with api_base).

Usage: litellm_chat.py BASE_URL MODE; prints one JSON document of what it
read. MODE is one of:
  plain  a question not streamed, then streamed with the usage chunk
  tool   its own tool `packing_list` in `tools`, run to an answer
Run it with LITELLM_LOCAL_MODEL_COST_MAP=True: else LiteLLM fetches its model
cost map from GitHub on import.
"""

import json
import sys

import litellm

OPTIONS = dict(model="openai/riverse", api_base=sys.argv[1], api_key="sk-test", num_retries=0, timeout=60)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "packing_list",
            "description": "Lists what to pack for a trip",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def packing_list(city):
    return f"umbrella and boots for {city}"


def usage(u):
    return [u.prompt_tokens, u.completion_tokens, u.total_tokens] if u else None


def plain():
    messages = [{"role": "user", "content": "Say hello"}]
    whole = litellm.completion(messages=messages, **OPTIONS)
    text, streamed_usage = "", None
    stream = litellm.completion(messages=messages, stream=True, stream_options={"include_usage": True}, **OPTIONS)
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
        streamed_usage = getattr(chunk, "usage", None) or streamed_usage
    return {
        "whole": {"text": whole.choices[0].message.content, "usage": usage(whole.usage)},
        "streamed": {"text": text, "usage": usage(streamed_usage)},
    }


def tool_loop():
    messages = [{"role": "user", "content": "What do I pack for Tokyo?"}]
    calls = []
    for _ in range(4):
        reply = litellm.completion(messages=messages, tools=TOOLS, tool_choice="auto", **OPTIONS)
        choice = reply.choices[0]
        if choice.finish_reason != "tool_calls":
            return {"calls": calls, "answer": choice.message.content, "usage": usage(reply.usage)}
        messages.append(choice.message.model_dump())
        for call in choice.message.tool_calls:
            arguments = json.loads(call.function.arguments)
            calls.append([call.function.name, arguments])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": packing_list(**arguments)})
    raise RuntimeError("no answer after 4 rounds")


print(json.dumps({"plain": plain, "tool": tool_loop}[sys.argv[2]]()))
