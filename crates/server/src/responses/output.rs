//! A response's output items, built from its turn's updates as they come,
//! with the stream events each step is told by. The streamed reply and the
//! whole one are built alike, so they list the same items in the same order:
//! each run of the model's text is a `message` (text said before Riverse's
//! calls is one of its own; the answer is the last), each of Riverse's calls
//! an `mcp_call` from its start to its end, and each call of the client's
//! tools a `function_call`, last.
//!
//! Events carry no `sequence_number`: the stream numbers them as it sends them.

use riverse_agent::{CallRecord, Turn, TurnEvent};
use riverse_llm::ToolCall;
use serde_json::{Value, json};

use super::items::SERVER_LABEL;
use crate::updates::Update;

#[derive(Debug, Default)]
pub struct Output {
    items: Vec<Value>,
    /// The message whose text is streaming: its index in `items`, and its
    /// text so far.
    message: Option<(usize, String)>,
    /// Riverse's calls that have started and not ended: each call's id and
    /// the index of its item.
    running: Vec<(String, usize)>,
    /// Riverse's calls that have ended, in the order they did.
    ended: Vec<CallRecord>,
}

impl Output {
    pub fn items(&self) -> &[Value] {
        &self.items
    }

    /// Riverse's calls that have ended so far.
    pub fn ended_calls(&self) -> &[CallRecord] {
        &self.ended
    }

    /// Takes one update of the running turn; the events it is told by.
    pub fn update(&mut self, update: &Update) -> Vec<Value> {
        let mut events = Vec::new();
        match update {
            Update::Event(TurnEvent::AnswerDelta(text)) if !text.is_empty() => {
                self.say(text, &mut events);
            }
            Update::Event(TurnEvent::ToolCallStarted {
                call_id,
                tool,
                params,
            }) => {
                self.close_message(None, &mut events);
                let item = json!({
                    "type": "mcp_call",
                    "id": new_id("mcp"),
                    "call_id": call_id,
                    "server_label": SERVER_LABEL,
                    "name": tool,
                    "arguments": params.text(),
                    "output": null,
                    "error": null,
                    "status": "in_progress",
                });
                let index = self.add(item, &mut events);
                self.running.push((call_id.clone(), index));
            }
            Update::Event(TurnEvent::ToolCallFinished(record)) => {
                self.end_call(record, &mut events);
            }
            // The answer is the last message's text, already streamed;
            // progress, logs and questions have no item of OpenAI's.
            _ => {}
        }
        events
    }

    /// Ends the output with the finished turn: the answer closes the last
    /// message (or is one of its own, when none streamed), then come the
    /// client's calls. No message is there when the model said nothing but
    /// called the client's tools.
    pub fn finish(&mut self, turn: &Turn) -> Vec<Value> {
        let mut events = Vec::new();
        let answer = Some(turn.answer.as_str()).filter(|answer| !answer.is_empty());
        if self.message.is_some() {
            self.close_message(answer, &mut events);
        } else if answer.is_some_and(|answer| !self.said_last(answer))
            || (answer.is_none() && turn.client_calls.is_empty())
        {
            self.say(&turn.answer, &mut events);
            self.close_message(None, &mut events);
        }
        for call in &turn.client_calls {
            self.hand_back(call, &mut events);
        }
        events
    }

    /// Leaves what is unfinished as the turn failed: the message with the
    /// text said so far and the calls still running, `incomplete`.
    pub fn fail(&mut self) {
        if let Some((index, text)) = self.message.take() {
            let item = &mut self.items[index];
            item["content"] = json!([output_text(&text)]);
            item["status"] = json!("incomplete");
        }
        for (_, index) in self.running.drain(..) {
            let item = &mut self.items[index];
            item["status"] = json!("incomplete");
            item["error"] = json!("the response failed before the call ended");
        }
    }

    /// Whether `text` is the last message, with only Riverse's calls after
    /// it: what the model said with calls of both kinds, which streamed
    /// before its own calls ran and is the answer that goes with the client's.
    fn said_last(&self, text: &str) -> bool {
        let last_message = self
            .items
            .iter()
            .rposition(|item| item["type"] == "message");
        last_message.is_some_and(|index| {
            self.items[index]["content"][0]["text"] == text
                && self.items[index + 1..]
                    .iter()
                    .all(|item| item["type"] == "mcp_call")
        })
    }

    /// Adds `item` as it starts; its index.
    fn add(&mut self, item: Value, events: &mut Vec<Value>) -> usize {
        let index = self.items.len();
        events.push(json!({
            "type": "response.output_item.added", "output_index": index, "item": item,
        }));
        self.items.push(item);
        index
    }

    fn done(&self, index: usize, events: &mut Vec<Value>) {
        events.push(json!({
            "type": "response.output_item.done", "output_index": index, "item": self.items[index],
        }));
    }

    /// Adds `text` to the message streaming, starting one when none is.
    fn say(&mut self, text: &str, events: &mut Vec<Value>) {
        let (index, said) = match self.message.take() {
            Some(message) => message,
            None => {
                let item = json!({
                    "type": "message", "id": new_id("msg"), "status": "in_progress",
                    "role": "assistant", "content": [],
                });
                let index = self.add(item, events);
                events.push(json!({
                    "type": "response.content_part.added",
                    "item_id": self.items[index]["id"], "output_index": index, "content_index": 0,
                    "part": output_text(""),
                }));
                (index, String::new())
            }
        };
        if !text.is_empty() {
            events.push(json!({
                "type": "response.output_text.delta",
                "item_id": self.items[index]["id"], "output_index": index, "content_index": 0,
                "delta": text, "logprobs": [],
            }));
        }
        self.message = Some((index, said + text));
    }

    /// Ends the message streaming, if one is, with `text` when given (the
    /// turn's answer as the agent keeps it), else what streamed.
    fn close_message(&mut self, text: Option<&str>, events: &mut Vec<Value>) {
        let Some((index, said)) = self.message.take() else {
            return;
        };
        let text = text.unwrap_or(&said);
        let item_id = self.items[index]["id"].clone();
        events.push(json!({
            "type": "response.output_text.done",
            "item_id": item_id, "output_index": index, "content_index": 0,
            "text": text, "logprobs": [],
        }));
        events.push(json!({
            "type": "response.content_part.done",
            "item_id": item_id, "output_index": index, "content_index": 0,
            "part": output_text(text),
        }));
        let item = &mut self.items[index];
        item["content"] = json!([output_text(text)]);
        item["status"] = json!("completed");
        self.done(index, events);
    }

    fn end_call(&mut self, record: &CallRecord, events: &mut Vec<Value>) {
        let running = self
            .running
            .iter()
            .position(|(call_id, _)| *call_id == record.call_id);
        let index = match running {
            Some(position) => self.running.remove(position).1,
            // Every call is started first; one that somehow wasn't still
            // gets its item.
            None => {
                let item = json!({
                    "type": "mcp_call", "id": new_id("mcp"), "call_id": record.call_id,
                    "server_label": SERVER_LABEL,
                    "name": record.tool, "arguments": record.params.text(),
                    "output": null, "error": null, "status": "in_progress",
                });
                self.add(item, events)
            }
        };
        let item = &mut self.items[index];
        if record.succeeded() {
            item["output"] = json!(record.data);
            // Riverse's own field, as in its call records: the tool's
            // structured result beside the text.
            if let Some(structured) = &record.structured {
                item["structured"] = structured.clone();
            }
            item["status"] = json!("completed");
        } else {
            item["error"] = json!(record.error);
            item["status"] = json!("failed");
        }
        self.ended.push(record.clone());
        self.done(index, events);
    }

    /// A call of the client's tools, whole: its arguments in one delta.
    fn hand_back(&mut self, call: &ToolCall, events: &mut Vec<Value>) {
        let id = new_id("fc");
        let index = self.add(
            json!({
                "type": "function_call", "id": id, "call_id": call.id, "name": call.name,
                "arguments": "", "status": "in_progress",
            }),
            events,
        );
        events.push(json!({
            "type": "response.function_call_arguments.delta",
            "item_id": id, "output_index": index, "delta": call.arguments,
        }));
        events.push(json!({
            "type": "response.function_call_arguments.done",
            "item_id": id, "output_index": index, "arguments": call.arguments,
        }));
        let item = &mut self.items[index];
        item["arguments"] = json!(call.arguments);
        item["status"] = json!("completed");
        self.done(index, events);
    }
}

fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": []})
}

/// A call's params as the JSON text of an item's `arguments`; the model's
/// own text when they were not an object.
fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4().simple())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pretty_assertions::assert_eq;

    use super::*;

    fn delta(text: &str) -> Update {
        Update::Event(TurnEvent::AnswerDelta(text.into()))
    }

    use riverse_agent::Arguments;

    fn weather(success: bool) -> CallRecord {
        let result = if success {
            riverse_tool::ToolResult::ok("sunny")
        } else {
            riverse_tool::ToolResult::tool_error("no sky")
        };
        let params = Arguments::from_value(json!({"city": "Tokyo"}));
        CallRecord::finished("c1", "weather", params, result, Duration::from_millis(3))
    }

    fn turn(answer: &str, client_calls: Vec<ToolCall>) -> Turn {
        Turn {
            answer: answer.into(),
            tool_calls: Vec::new(),
            messages: Vec::new(),
            limits_reached: false,
            usage: None,
            client_calls,
            skills: Vec::new(),
        }
    }

    fn kinds(events: &[Value]) -> Vec<&str> {
        events
            .iter()
            .map(|event| event["type"].as_str().unwrap())
            .collect()
    }

    /// The items without their ids, which are random.
    fn shapes(output: &Output) -> Vec<Value> {
        output
            .items()
            .iter()
            .map(|item| {
                let mut item = item.clone();
                item.as_object_mut().unwrap().remove("id");
                item
            })
            .collect()
    }

    #[test]
    fn text_before_a_call_is_a_message_of_its_own_and_the_answer_the_last() {
        let mut output = Output::default();
        let mut events = Vec::new();
        for update in [
            delta("Let me "),
            delta("check."),
            Update::Event(TurnEvent::ToolCallStarted {
                call_id: "c1".into(),
                tool: "weather".into(),
                params: Arguments::from_value(json!({"city": "Tokyo"})),
            }),
            Update::Event(TurnEvent::ToolCallFinished(weather(true))),
            delta("Sunny."),
        ] {
            events.extend(output.update(&update));
        }
        events.extend(output.finish(&turn("Sunny.", Vec::new())));
        assert_eq!(
            kinds(&events),
            vec![
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.output_item.done",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
            ]
        );
        assert_eq!(
            shapes(&output),
            vec![
                json!({"type": "message", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}]}),
                json!({"type": "mcp_call", "call_id": "c1", "server_label": "riverse", "name": "weather",
                       "arguments": "{\"city\":\"Tokyo\"}", "output": "sunny", "error": null,
                       "status": "completed"}),
                json!({"type": "message", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}),
            ]
        );
        // Each item is added and done under one id and index.
        assert_eq!(events[0]["item"]["id"], events[6]["item"]["id"]);
        assert_eq!(events[7]["output_index"], 1);
        assert_eq!(events[8]["item"]["output"], "sunny");
        assert_eq!(events[3]["item_id"], output.items()[0]["id"]);
        assert_eq!(output.ended_calls(), &[weather(true)]);
    }

    #[test]
    fn client_calls_come_last_and_no_empty_message_goes_with_them() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "packing_list".into(),
            arguments: "{\"city\":\"Tokyo\"}".into(),
        };
        let mut output = Output::default();
        let events = output.finish(&turn("", vec![call]));
        assert_eq!(
            kinds(&events),
            vec![
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
            ]
        );
        assert_eq!(events[0]["item"]["arguments"], "");
        assert_eq!(events[1]["delta"], "{\"city\":\"Tokyo\"}");
        assert_eq!(
            shapes(&output),
            vec![
                json!({"type": "function_call", "call_id": "call_1", "name": "packing_list",
                        "arguments": "{\"city\":\"Tokyo\"}", "status": "completed"})
            ]
        );
        // With nothing said and no call, the answer is still a message.
        let mut empty = Output::default();
        empty.finish(&turn("", Vec::new()));
        assert_eq!(empty.items()[0]["content"][0]["text"], "");
    }

    #[test]
    fn text_said_with_both_kinds_of_call_is_one_message_before_them() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "packing_list".into(),
            arguments: "{}".into(),
        };
        let mut output = Output::default();
        for update in [
            delta("Checking."),
            Update::Event(TurnEvent::ToolCallStarted {
                call_id: "c1".into(),
                tool: "weather".into(),
                params: Arguments::from_value(json!({"city": "Tokyo"})),
            }),
            Update::Event(TurnEvent::ToolCallFinished(weather(true))),
        ] {
            output.update(&update);
        }
        output.finish(&turn("Checking.", vec![call]));
        let types: Vec<&Value> = output.items().iter().map(|item| &item["type"]).collect();
        assert_eq!(types, vec!["message", "mcp_call", "function_call"]);
    }

    #[test]
    fn an_answer_that_did_not_stream_is_a_message_whole() {
        let mut output = Output::default();
        let events = output.finish(&turn("Sunny.", Vec::new()));
        assert_eq!(events[2]["delta"], "Sunny.");
        assert_eq!(output.items()[0]["content"][0]["text"], "Sunny.");
    }

    #[test]
    fn a_calls_structured_result_rides_beside_its_output() {
        let mut result = riverse_tool::ToolResult::ok("21.5 degrees");
        result.structured = Some(json!({"degrees": 21.5}));
        let params = Arguments::from_value(json!({"city": "Oslo"}));
        let record =
            CallRecord::finished("c1", "forecast", params, result, Duration::from_millis(3));
        let mut output = Output::default();
        output.update(&Update::Event(TurnEvent::ToolCallFinished(record)));
        let item = &output.items()[0];
        assert_eq!(item["output"], "21.5 degrees");
        assert_eq!(item["structured"], json!({"degrees": 21.5}));
        let mut plain = Output::default();
        plain.update(&Update::Event(TurnEvent::ToolCallFinished(weather(true))));
        assert_eq!(plain.items()[0].get("structured"), None);
    }

    #[test]
    fn a_failed_turn_leaves_what_it_started_incomplete() {
        let mut output = Output::default();
        output.update(&delta("Half"));
        output.fail();
        assert_eq!(output.items()[0]["status"], "incomplete");
        assert_eq!(output.items()[0]["content"][0]["text"], "Half");
        let mut calling = Output::default();
        calling.update(&Update::Event(TurnEvent::ToolCallStarted {
            call_id: "c1".into(),
            tool: "weather".into(),
            params: Arguments::default(),
        }));
        calling.fail();
        assert_eq!(calling.items()[0]["status"], "incomplete");
        let mut failed_call = Output::default();
        failed_call.update(&Update::Event(TurnEvent::ToolCallFinished(weather(false))));
        assert_eq!(
            (
                &failed_call.items()[0]["output"],
                &failed_call.items()[0]["error"]
            ),
            (&Value::Null, &json!("no sky"))
        );
    }
}
