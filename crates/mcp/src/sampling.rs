//! `self.sample` as MCP's sampling (`sampling/createMessage`), both ways: a
//! [`SampleRequest`] as the request a client's LLM answers, and a server's
//! request as a sample a Riverse front end answers.

// Sampling is deprecated by the 2026-07-28 protocol (SEP-2577); the
// protocols before it, which every client of today speaks, have it.
#![allow(deprecated)]

use riverse_tool::SampleRequest;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, Role, SamplingMessage,
    SamplingMessageContentBlock,
};

/// The completion's length asked for when the tool names none: room for a
/// few paragraphs, which is what a tool asks a model for.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 1000;

/// The model a completion Riverse gives a server is said to come from.
const RIVERSE_MODEL: &str = "riverse";

/// The request that asks a client's LLM for `request`: the prompt as one
/// user message.
pub(crate) fn create_message(request: SampleRequest) -> CreateMessageRequestParams {
    let max_tokens = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut params = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(request.prompt)],
        max_tokens,
    );
    params.system_prompt = request.system;
    params
}

/// The text of a client's completion, or why there is none.
pub(crate) fn completion(result: CreateMessageResult) -> Result<String, String> {
    let texts: Vec<String> = result
        .message
        .content
        .into_vec()
        .into_iter()
        .filter_map(|block| match block {
            SamplingMessageContentBlock::Text(text) => Some(text.text),
            _ => None,
        })
        .collect();
    if texts.is_empty() {
        return Err(format!(
            "the client's LLM ({}) answered with no text",
            result.model
        ));
    }
    Ok(texts.join("\n"))
}

/// A server's `sampling/createMessage` as one prompt: the text of its one
/// message, or of each message after its role when there are several.
pub(crate) fn sample_request(params: CreateMessageRequestParams) -> Result<SampleRequest, String> {
    let several = params.messages.len() > 1;
    let mut prompt = Vec::new();
    for message in params.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        for block in message.content.into_vec() {
            let SamplingMessageContentBlock::Text(text) = block else {
                return Err("Riverse samples text only; the request holds other content".into());
            };
            prompt.push(if several {
                format!("{role}: {}", text.text)
            } else {
                text.text
            });
        }
    }
    if prompt.is_empty() {
        return Err("the request holds no message to answer".into());
    }
    Ok(SampleRequest {
        prompt: prompt.join("\n\n"),
        system: params.system_prompt,
        max_tokens: Some(params.max_tokens),
    })
}

/// A completion as the reply to `sampling/createMessage`.
pub(crate) fn create_message_result(text: String) -> CreateMessageResult {
    CreateMessageResult::new(SamplingMessage::assistant_text(text), RIVERSE_MODEL.into())
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_sample_is_asked_as_one_user_message() {
        let params = create_message(SampleRequest {
            prompt: "Summarise".into(),
            system: Some("Be brief".into()),
            max_tokens: None,
        });
        assert_eq!(
            json!(params),
            json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Summarise"}}],
                "systemPrompt": "Be brief",
                "maxTokens": DEFAULT_MAX_TOKENS
            })
        );
        assert_eq!(
            sample_request(params).unwrap(),
            SampleRequest {
                prompt: "Summarise".into(),
                system: Some("Be brief".into()),
                max_tokens: Some(DEFAULT_MAX_TOKENS),
            }
        );
    }

    #[test]
    fn a_conversation_is_read_with_its_roles() {
        let params = CreateMessageRequestParams::new(
            vec![
                SamplingMessage::user_text("Hi"),
                SamplingMessage::assistant_text("Hello"),
                SamplingMessage::user_text("Go on"),
            ],
            10,
        );
        assert_eq!(
            sample_request(params).unwrap().prompt,
            "user: Hi\n\nassistant: Hello\n\nuser: Go on"
        );
    }

    #[test]
    fn a_completion_reads_back_as_its_text() {
        assert_eq!(
            completion(create_message_result("Done.".into())).unwrap(),
            "Done."
        );
    }
}
