"""Streams a completion from `riverse serve` with the official openai package
and reads the `riverse` objects its chunks carry; answers the tool's question
through POST /v1/riverse/questions/{id} while the stream waits for it.

Usage: stream_client.py BASE_URL; prints one JSON document of what it read.
"""

import json
import sys
import urllib.request

import openai

base_url = sys.argv[1]
client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=60)
stream = client.chat.completions.create(
    model="riverse", stream=True, messages=[{"role": "user", "content": "Report?"}]
)
seen = {"kinds": [], "progress": [], "logs": [], "text": ""}
for chunk in stream:
    for choice in chunk.choices:
        if choice.delta.content:
            seen["text"] += choice.delta.content
    riverse = (chunk.model_extra or {}).get("riverse")
    if not riverse:
        continue
    kind = riverse["type"]
    seen["kinds"].append(kind)
    if kind == "tool_call.progress":
        seen["progress"].append([riverse["progress"], riverse["total"], riverse["message"]])
    elif kind == "tool_call.log":
        seen["logs"].append([riverse["level"], riverse["message"]])
    elif kind == "tool_call.question":
        seen["question"] = riverse["message"]
        answer = {"action": "accept", "content": {"title": "Q3", "format": "html", "overwrite": False}}
        request = urllib.request.Request(
            f"{base_url}/riverse/questions/{riverse['question_id']}",
            data=json.dumps(answer).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            seen["answered"] = [reply.status, json.load(reply)["action"]]
    elif kind == "tool_call.question_closed":
        seen["closed"] = [riverse["action"], riverse["reason"]]
    elif kind == "tool_call.finished":
        seen["result"] = riverse["data"]
print(json.dumps(seen))
