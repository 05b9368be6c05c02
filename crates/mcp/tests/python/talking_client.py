"""Calls tools of an MCP server over streamable HTTP (or stdio) with the
official Python SDK's client, and prints what it saw as one JSON document.

    python talking_client.py PLAN.json

PLAN:
  "url":         the server's endpoint, or
  "command":     [PROGRAM, ARG, ...]: a server to start and talk to over stdio
  "level":       sent with logging/setLevel first, when given
  "elicitation": how the client answers elicitation/create:
                 {"action": "accept", "content": {...}}, {"action": "decline"},
                 "hang" (never answers; counts the requests withdrawn), or
                 absent (the client declares no elicitation)
  "sampling":    the text the client's "LLM" answers sampling/createMessage
                 with, or absent (the client declares no sampling)
  "list":        true to list the tools first
  "calls":       [CALL, ...], one after the other

CALL:
  "tool", "arguments"
  "progress":     true to send a progress token and record the updates
  "until_log":    waits, after the call, for a log line whose data starts
                  with this (log lines may come on another stream than the
                  result)
  "cancel_asked": starts the call, cancels it once the client is asked a
                  question, and waits until that question is withdrawn

Prints {"calls": [{"isError", "text", "content", "progress"}, ...],
"logs": [{"level", "logger", "data"}], "asked": [params...],
"sampled": [params...], "withdrawn": N}, and "tools" (each as listed)
when it listed them. A call whose result has structured content has it as
"structured" too.
"""

import asyncio
import json
import sys

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

# Waits for something the server is to send; past it the test fails,
# showing what did arrive.
PATIENCE = 60


class Seen:
    def __init__(self):
        self.logs = []
        self.asked = []
        self.sampled = []
        self.withdrawn = 0
        self.log_arrived = asyncio.Event()
        self.question_arrived = asyncio.Event()
        self.question_withdrawn = asyncio.Event()

    async def on_log(self, params):
        self.logs.append({"level": params.level, "logger": params.logger, "data": params.data})
        self.log_arrived.set()

    def elicitation(self, answer):
        async def answer_question(context, params):
            self.asked.append(params.model_dump(by_alias=True, exclude_none=True))
            self.question_arrived.set()
            if answer == "hang":
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    self.withdrawn += 1
                    self.question_withdrawn.set()
                    raise
            return types.ElicitResult(action=answer["action"], content=answer.get("content"))

        return answer_question

    def sampling(self, text):
        async def complete(context, params):
            self.sampled.append(params.model_dump(by_alias=True, exclude_none=True))
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=text),
                model="test-model",
                stop_reason="endTurn",
            )

        return complete

    async def log_starting(self, prefix):
        while not any(str(line["data"]).startswith(prefix) for line in self.logs):
            self.log_arrived.clear()
            await self.log_arrived.wait()


def described(result):
    texts = [block.text for block in result.content if block.type == "text"]
    others = [block.model_dump(by_alias=True, exclude_none=True) for block in result.content if block.type != "text"]
    seen = {"isError": bool(result.is_error), "text": "\n".join(texts), "content": others}
    if result.structured_content is not None:
        seen["structured"] = result.structured_content
    return seen


async def run_call(client, seen, call):
    progress = []

    async def on_progress(value, total, message):
        progress.append({"progress": value, "total": total, "message": message})

    arguments = call.get("arguments", {})
    callback = on_progress if call.get("progress") else None
    if call.get("cancel_asked"):
        running = asyncio.create_task(client.call_tool(call["tool"], arguments, progress_callback=callback))
        await asyncio.wait_for(seen.question_arrived.wait(), PATIENCE)
        running.cancel()
        try:
            await running
        except asyncio.CancelledError:
            pass
        await asyncio.wait_for(seen.question_withdrawn.wait(), PATIENCE)
        return {"cancelled": True}
    result = await client.call_tool(call["tool"], arguments, progress_callback=callback)
    if "until_log" in call:
        try:
            await asyncio.wait_for(seen.log_starting(call["until_log"]), PATIENCE)
        except TimeoutError:
            pass
    seen_call = described(result)
    seen_call["progress"] = progress
    return seen_call


async def main(plan):
    seen = Seen()
    options = {"logging_callback": seen.on_log}
    if "elicitation" in plan:
        options["elicitation_callback"] = seen.elicitation(plan["elicitation"])
    if "sampling" in plan:
        options["sampling_callback"] = seen.sampling(plan["sampling"])
    calls = []
    tools = None
    if "command" in plan:
        server = StdioServerParameters(command=plan["command"][0], args=plan["command"][1:])
    else:
        server = streamable_http_client(plan["url"])
    async with Client(server, mode=plan.get("mode", "legacy"), **options) as client:
        protocol = client.protocol_version
        if "level" in plan:
            await client.set_logging_level(plan["level"])
        if plan.get("list"):
            listed = await client.list_tools()
            tools = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed.tools]
        for call in plan["calls"]:
            calls.append(await run_call(client, seen, call))
    seen_all = {"calls": calls, "logs": seen.logs, "asked": seen.asked, "sampled": seen.sampled, "withdrawn": seen.withdrawn, "protocol": protocol}
    if tools is not None:
        seen_all["tools"] = tools
    return seen_all


if __name__ == "__main__":
    with open(sys.argv[1]) as file:
        plan = json.load(file)
    print(json.dumps(asyncio.run(main(plan))))
