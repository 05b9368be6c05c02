"""A client-side function tool round trip through `riverse serve` with the
official openai package: once not streamed, once streamed (the calls read
from `delta.tool_calls`, the usage from the last chunk).

Usage: openai_client_tools.py BASE_URL; prints one JSON document of what it read.
"""

import json
import sys

import openai

client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0, timeout=60)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "packing_list",
            "description": "Lists what to pack for a trip",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def packing_list(city):
    return f"umbrella for {city}"


def whole():
    messages = [{"role": "user", "content": "What do I pack for Tokyo?"}]
    reply = client.chat.completions.create(model="riverse", messages=messages, tools=TOOLS)
    choice = reply.choices[0]
    seen = {
        "finish_reason": choice.finish_reason,
        "calls": [[c.function.name, json.loads(c.function.arguments)] for c in choice.message.tool_calls],
        "server_calls": [c["tool"] for c in reply.model_extra["riverse"]["tool_calls"]],
    }
    messages.append(choice.message.model_dump(exclude_none=True))
    for call in choice.message.tool_calls:
        result = packing_list(**json.loads(call.function.arguments))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    reply = client.chat.completions.create(model="riverse", messages=messages, tools=TOOLS)
    seen["answer"] = reply.choices[0].message.content
    seen["usage"] = reply.usage.total_tokens > 0
    return seen


def streamed():
    messages = [{"role": "user", "content": "What do I pack for Oslo?"}]
    calls, finish, usage = {}, None, None
    stream = client.chat.completions.create(
        model="riverse", messages=messages, tools=TOOLS, stream=True,
        stream_options={"include_usage": True},
    )
    for chunk in stream:
        if chunk.usage:
            usage = chunk.usage.total_tokens
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                call["id"] += delta.id or ""
                call["name"] += delta.function.name or ""
                call["arguments"] += delta.function.arguments or ""
    seen = {"finish_reason": finish, "calls": [[c["name"], json.loads(c["arguments"])] for c in calls.values()],
            "usage": bool(usage)}
    messages.append({
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls.values()
        ],
    })
    for call in calls.values():
        result = packing_list(**json.loads(call["arguments"]))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    text = ""
    for chunk in client.chat.completions.create(model="riverse", messages=messages, tools=TOOLS, stream=True):
        for choice in chunk.choices:
            text += choice.delta.content or ""
    seen["answer"] = text
    return seen


print(json.dumps({"whole": whole(), "streamed": streamed()}))
