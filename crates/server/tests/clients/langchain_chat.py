"""LangChain's ChatOpenAI (langchain-openai) against `riverse serve`'s
/v1/chat/completions.

Usage: langchain_chat.py BASE_URL MODE; prints one JSON document of what it
read. MODE is one of:
  plain  a question with invoke(), then with stream() (usage asked for with
         stream_usage, which LangChain leaves off for a base_url of its own)
  tool   bind_tools([packing_list]) and the usual loop: invoke, run each of
         the message's tool_calls, send the ToolMessages back, until an answer
"""

import json
import sys

from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

chat = ChatOpenAI(
    base_url=sys.argv[1], api_key="sk-test", model="riverse", max_retries=0, timeout=60, stream_usage=True
)


@tool
def packing_list(city: str) -> str:
    """Lists what to pack for a trip."""
    return f"umbrella and boots for {city}"


def usage(message):
    u = message.usage_metadata
    return [u["input_tokens"], u["output_tokens"], u["total_tokens"]] if u else None


def plain():
    whole = chat.invoke("Say hello")
    streamed = None
    for chunk in chat.stream("Say hello"):
        streamed = chunk if streamed is None else streamed + chunk
    return {
        "whole": {"text": whole.text, "usage": usage(whole)},
        "streamed": {"text": streamed.text, "usage": usage(streamed)},
    }


def tool_loop():
    with_tools = chat.bind_tools([packing_list])
    messages = [HumanMessage("What do I pack for Tokyo?")]
    calls = []
    for _ in range(4):
        reply = with_tools.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return {"calls": calls, "answer": reply.text, "usage": usage(reply)}
        for call in reply.tool_calls:
            calls.append([call["name"], call["args"]])
            messages.append(ToolMessage(packing_list.invoke(call["args"]), tool_call_id=call["id"]))
    raise RuntimeError("no answer after 4 rounds")


print(json.dumps({"plain": plain, "tool": tool_loop}[sys.argv[2]]()))
