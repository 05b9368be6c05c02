// The openai package for Node against `riverse serve`'s /v1/chat/completions.
//
// Usage: node openai_chat.mjs BASE_URL MODE; prints one JSON document of what
// it read. MODE is one of:
//   plain  a question not streamed, then streamed with the usage chunk
//   tool   its own tool `packing_list` run to an answer, the first turn not
//          streamed, the second through the SDK's stream helper
//   mixed  one round in which the model calls Riverse's tool and this one's:
//          only this one's comes back, Riverse's is in `riverse.tool_calls`
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.argv[2], apiKey: "sk-test", maxRetries: 0, timeout: 60_000 });
const model = "riverse";
const tools = [{
  type: "function",
  function: {
    name: "packing_list",
    description: "Lists what to pack for a trip",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
}];

function packingList({ city }) {
  return `umbrella and boots for ${city}`;
}

function usage(u) {
  return u ? [u.prompt_tokens, u.completion_tokens, u.total_tokens] : null;
}

async function plain() {
  const messages = [{ role: "user", content: "Say hello" }];
  const whole = await client.chat.completions.create({ model, messages });
  let text = "", streamedUsage = null;
  const stream = await client.chat.completions.create({
    model, messages, stream: true, stream_options: { include_usage: true },
  });
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? "";
    streamedUsage = chunk.usage ?? streamedUsage;
  }
  return {
    whole: { text: whole.choices[0].message.content, usage: usage(whole.usage) },
    streamed: { text, usage: usage(streamedUsage) },
  };
}

// Runs the calls of `message` locally, adding it and their results.
function answerCalls(messages, message) {
  messages.push(message);
  for (const call of message.tool_calls) {
    const result = packingList(JSON.parse(call.function.arguments));
    messages.push({ role: "tool", tool_call_id: call.id, content: result });
  }
  return message.tool_calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)]);
}

// Asks until the model answers, each turn as `ask` does it; the calls it
// made and its answer.
async function toolLoop(question, ask) {
  const messages = [{ role: "user", content: question }];
  const calls = [];
  for (let round = 0; round < 4; round++) {
    const reply = await ask(messages);
    const choice = reply.choices[0];
    if (choice.finish_reason !== "tool_calls") {
      return { calls, answer: choice.message.content, usage: usage(reply.usage) };
    }
    calls.push(...answerCalls(messages, choice.message));
  }
  throw new Error("no answer after 4 rounds");
}

async function tool() {
  const whole = await toolLoop("What do I pack for Tokyo?", (messages) =>
    client.chat.completions.create({ model, messages, tools }));
  const streamed = await toolLoop("What do I pack for Oslo?", (messages) =>
    client.chat.completions.stream({ model, messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion());
  return { whole, streamed };
}

async function mixed() {
  const messages = [{ role: "user", content: "Weather and packing for Tokyo?" }];
  const first = await client.chat.completions.create({ model, messages, tools });
  const choice = first.choices[0];
  const seen = {
    finish_reason: choice.finish_reason,
    ids: choice.message.tool_calls.map((call) => call.id),
    calls: answerCalls(messages, choice.message),
    riverse_calls: first.riverse.tool_calls.map((call) => [call.tool, call.data]),
  };
  const second = await client.chat.completions.create({ model, messages, tools });
  seen.answer = second.choices[0].message.content;
  return seen;
}

const modes = { plain, tool, mixed };
console.log(JSON.stringify(await modes[process.argv[3]]()));
