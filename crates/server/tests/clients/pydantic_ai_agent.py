"""A pydantic-ai Agent (OpenAIChatModel with an OpenAIProvider at a base_url)
against `riverse serve`'s /v1/chat/completions.

Usage: pydantic_ai_agent.py BASE_URL MODE; prints one JSON document of what
it read. MODE is one of:
  plain  an agent without tools: run(), then run_stream()
  tool   an agent with `@agent.tool_plain` packing_list: run(), which calls
         the tool when the model asks and goes on to the model's answer
"""

import asyncio
import json
import sys

from pydantic_ai import Agent
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

model = OpenAIChatModel("riverse", provider=OpenAIProvider(base_url=sys.argv[1], api_key="sk-test"))


def usage(u):
    return [u.input_tokens, u.output_tokens, u.total_tokens]


async def plain():
    agent = Agent(model)
    whole = await agent.run("Say hello")
    text = ""
    async with agent.run_stream("Say hello") as stream:
        async for delta in stream.stream_text(delta=True):
            text += delta
        streamed_usage = stream.usage
    return {
        "whole": {"text": whole.output, "usage": usage(whole.usage)},
        "streamed": {"text": text, "usage": usage(streamed_usage)},
    }


async def tool_loop():
    agent = Agent(model)

    @agent.tool_plain
    def packing_list(city: str) -> str:
        """Lists what to pack for a trip."""
        return f"umbrella and boots for {city}"

    result = await agent.run("What do I pack for Tokyo?")
    calls = [
        [part.tool_name, part.args_as_dict()]
        for message in result.all_messages()
        for part in message.parts
        if isinstance(part, ToolCallPart)
    ]
    return {"calls": calls, "answer": result.output, "usage": usage(result.usage)}


print(json.dumps(asyncio.run({"plain": plain, "tool": tool_loop}[sys.argv[2]]())))
