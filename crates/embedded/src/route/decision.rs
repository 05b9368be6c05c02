//! Deciding from the candidates' scores: the tool that serves, covers and
//! reaches what is asked and leads `none` by enough for the message's
//! form, or no tool.

use riverse_route::MessageForm;

use crate::route::choose::CandidateScore;
use crate::tuning::{
    CALL_MARGIN, CHANGE_MARGIN, FRAGMENT_MARGIN, GENERAL_MARGIN, STATEMENT_MARGIN,
};

/// The winning tool's index among `scores`, or `None` for no tool.
///
/// A tool must serve the message's action and cover its subject, and beat
/// `none` by [`CALL_MARGIN`], by more when the message's form asks for
/// nothing (see [`form_margin`]), and by [`CHANGE_MARGIN`] more when it
/// changes things, the message names none of its actions and is a
/// question or a statement (which ask no change of it). A `general`
/// question (see `riverse_route::asks_general`) must be won by
/// [`GENERAL_MARGIN`] more.
pub(crate) fn decide(scores: &[CandidateScore], form: MessageForm, general: bool) -> Option<usize> {
    let (none, tools) = scores.split_last()?;
    let lead = |score: &CandidateScore| {
        let asks_nothing = matches!(form, MessageForm::Question | MessageForm::Statement);
        let change = if score.unasked_change && asks_nothing {
            CHANGE_MARGIN
        } else {
            0.0
        };
        score.combined - none.combined - change
    };
    let (best, top) = tools
        .iter()
        .enumerate()
        .filter(|(_, score)| score.serves && score.covered && score.reaches && !score.incomplete)
        .max_by(|a, b| lead(a.1).total_cmp(&lead(b.1)))?;
    let general_margin = if general { GENERAL_MARGIN } else { 0.0 };
    (lead(top) > CALL_MARGIN + form_margin(form) + general_margin).then_some(best)
}

/// The best-scoring tool, however little it wins by: the call of a request
/// that must call one.
pub(crate) fn best_tool(scores: &[CandidateScore]) -> Option<usize> {
    let (_none, tools) = scores.split_last()?;
    tools
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.combined.total_cmp(&b.1.combined))
        .map(|(best, _)| best)
}

/// What a tool must win by beyond [`CALL_MARGIN`] for a message of `form`.
fn form_margin(form: MessageForm) -> f32 {
    match form {
        MessageForm::Question | MessageForm::Request => 0.0,
        MessageForm::Fragment => FRAGMENT_MARGIN,
        MessageForm::Statement => STATEMENT_MARGIN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(combined: &[f32]) -> Vec<CandidateScore> {
        combined
            .iter()
            .enumerate()
            .map(|(index, &combined)| CandidateScore {
                name: format!("candidate {index}"),
                model: combined,
                similarity: 0.0,
                shape: false,
                fit: 0,
                combined,
                pruned: false,
                serves: true,
                covered: true,
                unasked_change: false,
                incomplete: false,
                reaches: true,
            })
            .collect()
    }

    #[test]
    fn a_tool_is_called_only_when_clearly_ahead_of_none() {
        let question = MessageForm::Question;
        assert_eq!(
            decide(&scores(&[1.0, 9.0, 3.0, 4.5]), question, false),
            Some(1)
        );
        assert_eq!(
            decide(&scores(&[1.0, 8.0, 3.0, 4.5]), question, false),
            None,
            "8 is ahead of none by less than the margin"
        );
        assert_eq!(
            decide(&scores(&[1.0, 4.0 + CALL_MARGIN, 4.0]), question, false),
            None,
            "a tie with the margin is not enough"
        );
        assert_eq!(
            decide(&scores(&[2.0]), question, false),
            None,
            "only none on offer"
        );
        assert_eq!(decide(&[], question, false), None);
    }

    #[test]
    fn a_tool_that_does_not_serve_the_action_is_never_chosen() {
        let question = MessageForm::Question;
        let mut scored = scores(&[9.0, 7.0, 1.0]);
        scored[0].serves = false;
        assert_eq!(
            decide(&scored, question, false),
            Some(1),
            "the next that serves"
        );
        scored[1].serves = false;
        assert_eq!(decide(&scored, question, false), None, "no tool serves");
        assert_eq!(best_tool(&scored), Some(0), "a required call takes any");
    }

    #[test]
    fn a_tool_whose_call_is_incomplete_gives_way_to_the_next() {
        let question = MessageForm::Question;
        let mut scored = scores(&[9.0, 7.0, 1.0]);
        scored[0].incomplete = true;
        assert_eq!(decide(&scored, question, false), Some(1));
        scored[1].incomplete = true;
        assert_eq!(decide(&scored, question, false), None);
    }

    #[test]
    fn a_statement_needs_a_tool_further_ahead() {
        let ahead = CALL_MARGIN + STATEMENT_MARGIN.min(FRAGMENT_MARGIN) / 2.0 + 0.5;
        let close_call = scores(&[ahead, 0.0]);
        assert_eq!(decide(&close_call, MessageForm::Request, false), Some(0));
        assert_eq!(decide(&close_call, MessageForm::Statement, false), None);
        let far_ahead = scores(&[CALL_MARGIN + STATEMENT_MARGIN + 0.5, 0.0]);
        assert_eq!(decide(&far_ahead, MessageForm::Statement, false), Some(0));
    }

    #[test]
    fn a_general_question_needs_a_tool_further_ahead() {
        let question = MessageForm::Question;
        let close_call = scores(&[CALL_MARGIN + GENERAL_MARGIN / 2.0, 0.0]);
        assert_eq!(decide(&close_call, question, false), Some(0));
        assert_eq!(decide(&close_call, question, true), None);
        let far_ahead = scores(&[CALL_MARGIN + GENERAL_MARGIN + 0.5, 0.0]);
        assert_eq!(decide(&far_ahead, question, true), Some(0));
    }
}
