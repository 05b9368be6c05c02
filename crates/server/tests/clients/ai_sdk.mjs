// The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`) against
// `riverse serve`'s /v1/chat/completions.
//
// Usage: node ai_sdk.mjs BASE_URL MODE; prints one JSON document of what it
// read. MODE is one of:
//   plain  generateText, then streamText (usage asked for with includeUsage)
//   tool   the same two with its own `tool` packing_list and two steps: the
//          SDK runs the tool the model calls and sends the result back
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, isStepCount, jsonSchema, streamText, tool } from "ai";

const provider = createOpenAICompatible({
  name: "riverse", baseURL: process.argv[2], apiKey: "sk-test", includeUsage: true,
});
const model = provider.chatModel("riverse");
const tools = {
  packing_list: tool({
    description: "Lists what to pack for a trip",
    inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
    execute: async ({ city }) => `umbrella and boots for ${city}`,
  }),
};

function usage(u) {
  return [u.inputTokens, u.outputTokens, u.totalTokens];
}

// What a run read: its text, each step's finish reason and tool calls, and
// the usage of all its steps.
async function seen(result) {
  const steps = await result.steps;
  return {
    text: await result.text,
    steps: steps.map((step) => [step.finishReason, step.toolCalls.map((call) => [call.toolName, call.input])]),
    usage: usage(await result.totalUsage),
  };
}

async function plain() {
  const options = { model, prompt: "Say hello", maxRetries: 0 };
  const whole = await seen(await generateText(options));
  const streamed = streamText(options);
  let text = "";
  for await (const delta of streamed.textStream) text += delta;
  return { whole, streamed: { ...(await seen(streamed)), deltas: text } };
}

async function toolRun() {
  const options = { model, tools, stopWhen: isStepCount(2), maxRetries: 0 };
  const whole = await seen(await generateText({ ...options, prompt: "What do I pack for Tokyo?" }));
  const streamed = streamText({ ...options, prompt: "What do I pack for Oslo?" });
  let text = "";
  for await (const delta of streamed.textStream) text += delta;
  return { whole, streamed: { ...(await seen(streamed)), deltas: text } };
}

const modes = { plain, tool: toolRun };
console.log(JSON.stringify(await modes[process.argv[3]]()));
