//! The embedded model as a provider: no HTTP, no key, works offline.
//!
//! The model routes with its own constrained scoring rather than free text: a
//! request that offers tools and ends with the user's message is answered with
//! at most one tool call; any other request (tool results to explain, or no
//! tools offered) with a short answer grounded in the results. The model is
//! loaded on first use, so commands that never ask it pay nothing.

use std::collections::HashMap;

use riverse_embedded::{ChatMessage, EmbeddedModel, EmbeddedOptions, Route};
use tokio::sync::{OnceCell, mpsc};

use crate::{ChatRequest, ChatResponse, Error, Message, Provider, TextSink, ToolCall};

pub struct EmbeddedProvider {
    options: EmbeddedOptions,
    model: OnceCell<EmbeddedModel>,
}

impl EmbeddedProvider {
    pub fn new(options: EmbeddedOptions) -> Self {
        EmbeddedProvider {
            options,
            model: OnceCell::new(),
        }
    }

    /// The model, found (fetched on first use) and loaded off the async threads.
    async fn model(&self) -> Result<EmbeddedModel, Error> {
        let model = self
            .model
            .get_or_try_init(|| {
                let options = self.options.clone();
                blocking(move || EmbeddedModel::load(&options))
            })
            .await?;
        Ok(model.clone())
    }
}

/// Runs model work on a blocking thread; its failures name the embedded model.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> riverse_embedded::Result<T> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| Error::Unavailable(format!("the embedded model stopped: {err}")))?
        .map_err(|err| Error::Unavailable(format!("the embedded model failed: {err}")))
}

#[async_trait::async_trait]
impl Provider for EmbeddedProvider {
    fn describe(&self) -> String {
        match (self.model.get(), &self.options.model_path) {
            (Some(model), _) => format!("the embedded model ({})", model.path().display()),
            (None, Some(path)) => format!("the embedded model ({})", path.display()),
            (None, None) => "the embedded model (SmolLM2-135M-Instruct)".to_owned(),
        }
    }

    fn supports_tools(&self) -> bool {
        true
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        let model = self.model().await?;
        if let (false, Some(Message::User(message))) =
            (request.tools.is_empty(), request.messages.last())
        {
            let (router, message, tools) = (model.clone(), message.clone(), request.tools.to_vec());
            let route = blocking(move || router.route(&message, &tools, &[])).await?;
            if let Route::Call { tool, params } = route {
                let call = ToolCall {
                    id: format!("call_{}", request.messages.len()),
                    name: tool,
                    arguments: serde_json::Value::Object(params).to_string(),
                };
                return Ok(ChatResponse {
                    text: String::new(),
                    tool_calls: vec![call],
                });
            }
        }
        let conversation = conversation(request.messages);
        let (pieces_tx, mut pieces) = mpsc::unbounded_channel::<String>();
        let answering = blocking(move || {
            model.answer(&conversation, &mut |piece: &str| {
                let _ = pieces_tx.send(piece.to_owned());
            })
        });
        tokio::pin!(answering);
        let mut on_text = on_text;
        let text = loop {
            tokio::select! {
                Some(piece) = pieces.recv() => {
                    if let Some(sink) = on_text.as_mut() {
                        sink(&piece);
                    }
                }
                text = &mut answering => break text?,
            }
        };
        // Pieces sent just before the answer finished.
        while let Ok(piece) = pieces.try_recv() {
            if let Some(sink) = on_text.as_mut() {
                sink(&piece);
            }
        }
        Ok(ChatResponse {
            text,
            tool_calls: Vec::new(),
        })
    }
}

/// The conversation as the model reads it. The agent's system prompt is written
/// for large models; the embedded model keeps its own. Tool results are named by
/// the call they answer.
fn conversation(messages: &[Message]) -> Vec<ChatMessage> {
    let mut names = HashMap::new();
    let mut out = Vec::new();
    for message in messages {
        match message {
            Message::System(_) => {}
            Message::User(text) => out.push(ChatMessage::user(text.clone())),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                for call in tool_calls {
                    names.insert(call.id.clone(), call.name.clone());
                }
                if !content.trim().is_empty() {
                    out.push(ChatMessage::assistant(content.clone()));
                }
            }
            Message::Tool {
                call_id,
                content,
                failed,
            } => out.push(ChatMessage::ToolResult {
                tool: names.get(call_id).cloned().unwrap_or_default(),
                content: content.clone(),
                failed: *failed,
            }),
        }
    }
    out
}
