// The openai package for Node against `riverse serve`'s /v1/responses.
//
// Usage: node openai_responses.mjs BASE_URL MODE; prints one JSON document of
// what it read. MODE is one of:
//   plain  a question not streamed, then through the SDK's stream helper
//          (which insists on OpenAI's event sequence), keeping the event types
//   tool   its own function tool `packing_list` run to an answer, as the docs
//          do it: the response's output items sent back as input with a
//          function_call_output for each function_call; once not streamed,
//          once with the stream helper
//   mixed  one round in which the model calls Riverse's tool and this one's:
//          Riverse's comes as an mcp_call item with its output, this one's
//          as a function_call, and all the items go back as input
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.argv[2], apiKey: "sk-test", maxRetries: 0, timeout: 60_000 });
const model = "riverse";
const tools = [{
  type: "function",
  name: "packing_list",
  description: "Lists what to pack for a trip",
  strict: true,
  parameters: {
    type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false,
  },
}];

function packingList({ city }) {
  return `umbrella and boots for ${city}`;
}

function usage(u) {
  return u ? [u.input_tokens, u.output_tokens, u.total_tokens] : null;
}

// A streamed response through the helper: its final response, and the types
// of the events that made it (a run of deltas as one).
async function streamed(params) {
  const stream = client.responses.stream(params);
  const types = [];
  for await (const event of stream) {
    if (types.at(-1) !== event.type) types.push(event.type);
  }
  return { response: await stream.finalResponse(), types };
}

async function plain() {
  const whole = await client.responses.create({ model, input: "Say hello" });
  const { response, types } = await streamed({ model, input: "Say hello" });
  return {
    whole: { status: whole.status, text: whole.output_text, usage: usage(whole.usage) },
    streamed: { status: response.status, text: response.output_text, usage: usage(response.usage), types },
  };
}

// Answers the function calls of `response`, adding its output and the
// results to `input`; the calls.
function answerCalls(input, response) {
  const calls = response.output.filter((item) => item.type === "function_call");
  input.push(...response.output);
  for (const call of calls) {
    input.push({ type: "function_call_output", call_id: call.call_id, output: packingList(JSON.parse(call.arguments)) });
  }
  return calls.map((call) => [call.name, JSON.parse(call.arguments)]);
}

// Asks until the model answers, each turn as `ask` does it.
async function toolLoop(question, ask) {
  const input = [{ role: "user", content: question }];
  const calls = [];
  for (let round = 0; round < 4; round++) {
    const response = await ask(input);
    const asked = answerCalls(input, response);
    if (asked.length === 0) {
      return { calls, answer: response.output_text, usage: usage(response.usage) };
    }
    calls.push(...asked);
  }
  throw new Error("no answer after 4 rounds");
}

async function tool() {
  const whole = await toolLoop("What do I pack for Tokyo?", (input) =>
    client.responses.create({ model, input, tools }));
  const stream = await toolLoop("What do I pack for Oslo?", async (input) =>
    (await streamed({ model, input, tools })).response);
  return { whole, streamed: stream };
}

async function mixed() {
  const input = [{ role: "user", content: "Weather and packing for Tokyo?" }];
  const first = await client.responses.create({ model, input, tools });
  const seen = {
    items: first.output.map((item) => [item.type, item.name, item.output ?? item.arguments]),
    ids: first.output.map((item) => item.call_id ?? item.id),
    calls: answerCalls(input, first),
  };
  const second = await client.responses.create({ model, input, tools });
  seen.answer = second.output_text;
  return seen;
}

const modes = { plain, tool, mixed };
console.log(JSON.stringify(await modes[process.argv[3]]()));
