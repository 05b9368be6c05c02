//! The front end's side of a call ([`CallListener`]), and the listeners of
//! calls that have no person behind them.

use std::sync::Arc;

use super::messages::{Answer, LogLine, Progress, Question, SampleRequest};
use crate::approval::{Approval, ApprovalRequest};

/// The front end's side of a call. Each method has the answer of a front end
/// that has nobody to show or ask: nothing shown, a cancel, no LLM.
#[async_trait::async_trait]
pub trait CallListener: Send + Sync {
    fn progress(&self, _progress: &Progress) {}
    fn log(&self, _line: &LogLine) {}
    /// The call runs on as the task `task_id` of its tool's server
    /// ([`crate::CallContext::handed_over`]).
    fn handed_over(&self, _task_id: &str) {}
    async fn ask(&self, _question: Question) -> Answer {
        Answer::cancel()
    }
    /// Whether a call that needs approval may run. By default the request
    /// is a question ([`ApprovalRequest::question`]): an accept is a yes (for
    /// the session when its content says `for_session: true`), a decline a
    /// no, a cancel no answer.
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        match request.question() {
            Ok(question) => Approval::from_answer(&self.ask(question).await),
            Err(unshown) => Approval::Unanswered(unshown.to_string()),
        }
    }
    /// A completion, or why there is none.
    async fn sample(&self, _request: SampleRequest) -> Result<String, String> {
        Err("no LLM is there to sample from".into())
    }
}

/// An LLM a front end falls back on for `self.sample` when its client
/// offers none: Riverse's own (the embedded model included).
#[async_trait::async_trait]
pub trait Sampler: Send + Sync {
    async fn sample(&self, request: SampleRequest) -> Result<String, String>;
}

/// A front end with nobody to show or ask, but an LLM for samples: a call
/// made straight through an API (`POST /v1/tools/{name}/call`).
pub struct SamplesOnly(pub Arc<dyn Sampler>);

#[async_trait::async_trait]
impl CallListener for SamplesOnly {
    async fn approve(&self, _request: ApprovalRequest) -> Approval {
        Approval::Unanswered("a direct call has nobody to ask".into())
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        self.0.sample(request).await
    }
}

/// Nobody listens: what a call made without a front end gets.
pub(super) struct Nobody;

#[async_trait::async_trait]
impl CallListener for Nobody {
    async fn approve(&self, _request: ApprovalRequest) -> Approval {
        Approval::Unanswered("nobody is there to ask".into())
    }
}
