//! A response being made: its output so far, and how it ends, completed or
//! failed, kept in the store when its request said `store`.

use riverse_agent::Turn;
use riverse_store::{Store, StoredResponse};
use serde_json::Value;

use super::object::{ResponseHead, Status};
use super::output::Output;
use crate::error::AppError;

pub struct Draft {
    pub head: ResponseHead,
    pub output: Output,
    /// The conversation before this response's output, as Responses input
    /// items: the previous response's, then this request's.
    pub before: Vec<Value>,
}

impl Draft {
    /// Ends the response with the finished turn: the events that tell it,
    /// and its object, kept first when it is to be.
    pub async fn complete(&mut self, turn: &Turn, store: &Store) -> (Vec<Value>, Value) {
        let events = self.output.finish(turn);
        let status = Status::Completed {
            usage: turn.usage,
            calls: &turn.tool_calls,
            skills: &turn.skills,
        };
        let object = self.head.object(status, self.output.items());
        self.keep(store, &object).await;
        (events, object)
    }

    /// Ends the response with the turn's failure: its object, kept first
    /// when it is to be.
    pub async fn fail(&mut self, error: &AppError, store: &Store) -> Value {
        self.output.fail();
        let status = Status::Failed {
            error,
            calls: self.output.ended_calls(),
        };
        let object = self.head.object(status, self.output.items());
        self.keep(store, &object).await;
        object
    }

    /// Stores the response with the conversation it ends. A store that
    /// fails is logged: the client still gets its response, and only a
    /// request going on from it will find it missing.
    async fn keep(&self, store: &Store, object: &Value) {
        if !self.head.store {
            return;
        }
        let mut items = self.before.clone();
        items.extend(self.output.items().iter().cloned());
        let stored = StoredResponse {
            id: self.head.id.clone(),
            previous_id: self.head.previous_response_id.clone(),
            created_at: i64::try_from(self.head.created_at).unwrap_or(i64::MAX),
            response: object.clone(),
            items,
        };
        if let Err(err) = store.save_response(&stored).await {
            tracing::error!("can't store response {}: {err}", stored.id);
        }
    }
}
