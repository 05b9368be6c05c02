"""Drives `POST /v1/responses` with the official openai package: a function
tool's round trip kept on the server (previous_response_id), then one the
client keeps itself (store=False), streamed by iterating the raw events and
by the package's `responses.stream` helper.

Usage: responses_client.py BASE_URL; prints one JSON document of what it read.
"""

import json
import sys

import openai

client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0, timeout=60)
tools = [
    {
        "type": "function",
        "name": "packing_list",
        "description": "Lists what to pack for a trip",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
seen = {}


def function_calls(response):
    return [item for item in response.output if item.type == "function_call"]


# Kept on the server: the call, then its output by previous_response_id.
first = client.responses.create(model="riverse", input="What do I pack for Tokyo?", tools=tools)
[call] = function_calls(first)
seen["call"] = [call.name, json.loads(call.arguments), first.status]
second = client.responses.create(
    model="riverse",
    previous_response_id=first.id,
    tools=tools,
    input=[{"type": "function_call_output", "call_id": call.call_id, "output": "umbrella, shoes"}],
)
seen["text"] = second.output_text
seen["counted"] = second.usage.total_tokens > 0
seen["retrieved"] = client.responses.retrieve(second.id).output_text

# Kept by the client: its conversation grows by each response's output.
conversation = [{"role": "user", "content": "And for Paris?"}]
seen["kinds"] = []
for event in client.responses.create(
    model="riverse", input=conversation, tools=tools, store=False, stream=True
):
    if not seen["kinds"] or seen["kinds"][-1] != event.type:
        seen["kinds"].append(event.type)
    if event.type == "response.completed":
        streamed = event.response
[call] = function_calls(streamed)
seen["streamed_call"] = [call.name, json.loads(call.arguments)]
conversation += streamed.output
conversation.append({"type": "function_call_output", "call_id": call.call_id, "output": "scarf"})
deltas = []
with client.responses.stream(model="riverse", input=conversation, tools=tools, store=False) as stream:
    for event in stream:
        if event.type == "response.output_text.delta":
            deltas.append(event.delta)
    final = stream.get_final_response()
seen["deltas"] = "".join(deltas)
seen["streamed_text"] = final.output_text
print(json.dumps(seen))
