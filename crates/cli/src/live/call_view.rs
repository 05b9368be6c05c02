//! What a direct call (`riverse call`) shows and asks while it runs: its
//! bar and log lines, its questions, and `self.sample` from Riverse's own
//! LLM.

use std::sync::Arc;

use riverse_tool::{Answer, CallListener, LogLine, Progress, Question, SampleRequest, Sampler};

use riverse_agent::QuestionReply;

use super::asker::Asker;
use super::lines::ToolLines;

/// The id of a direct call's bar: it is the only call.
pub const CALL_ID: &str = "call";

/// The listener of one direct call of `tool`.
pub struct CallView {
    tool: String,
    lines: ToolLines,
    asker: Asker,
    /// Riverse's own LLM, or why there is none.
    sampler: Result<Arc<dyn Sampler>, String>,
}

impl CallView {
    pub fn new(
        tool: &str,
        lines: ToolLines,
        asker: Asker,
        sampler: Result<Arc<dyn Sampler>, String>,
    ) -> Self {
        CallView {
            tool: tool.to_owned(),
            lines,
            asker,
            sampler,
        }
    }
}

#[async_trait::async_trait]
impl CallListener for CallView {
    fn progress(&self, progress: &Progress) {
        self.lines.progress(CALL_ID, progress);
    }

    fn log(&self, line: &LogLine) {
        self.lines.log(&self.tool, line);
    }

    async fn ask(&self, question: Question) -> Answer {
        let (reply, answered) = QuestionReply::channel();
        self.asker.ask(CALL_ID, &self.tool, question, reply);
        answered.await.unwrap_or_else(|_| Answer::cancel())
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        match &self.sampler {
            Ok(sampler) => sampler.sample(request).await,
            Err(why) => Err(why.clone()),
        }
    }
}
