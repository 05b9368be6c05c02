//! A turn's trace span: `invoke_agent riverse`, as OpenTelemetry's GenAI
//! semantic conventions name an agent's turn, the parent of the turn's
//! `chat` spans (its model calls) and `execute_tool` spans (its tool calls).

use riverse_llm::tokens;
use riverse_tool::trace::TARGET;
use tracing::Span;
use tracing::field::Empty;

use super::{Turn, TurnError};

/// The name of a turn's span (a span's name is fixed where it is declared).
const TURN_SPAN: &str = "invoke_agent riverse";

/// The span of one turn; `conversation` names the conversation the turn
/// belongs to, if any. A caller that knows it (the server) runs the turn
/// inside this span, and the turn takes it for its own.
pub fn turn_span(conversation: Option<&str>) -> Span {
    tracing::info_span!(
        target: TARGET,
        "invoke_agent riverse",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = "riverse",
        gen_ai.conversation.id = conversation,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
        otel.status_description = Empty,
    )
}

/// The span a turn runs in: the caller's, when it runs the turn in a turn
/// span of its own, else a new one.
pub(super) fn for_turn() -> Span {
    let current = Span::current();
    let is_turn = current
        .metadata()
        .is_some_and(|meta| meta.target() == TARGET && meta.name() == TURN_SPAN);
    if is_turn { current } else { turn_span(None) }
}

/// How the turn ended: the tokens its model calls took, or its error.
pub(super) fn record_end(span: &Span, turn: &Result<Turn, TurnError>) {
    match turn {
        Ok(turn) => {
            if let Some(usage) = turn.usage {
                span.record("gen_ai.usage.input_tokens", tokens(usage.prompt_tokens));
                span.record(
                    "gen_ai.usage.output_tokens",
                    tokens(usage.completion_tokens),
                );
            }
        }
        Err(err) if !span.is_disabled() => {
            span.record("error.type", "llm");
            span.record("otel.status_description", err.to_string());
        }
        Err(_) => {}
    }
}
