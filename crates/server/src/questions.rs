//! Questions a running tool asks the person behind a stream (`self.ask`).
//!
//! A streamed turn's question is opened here under an id of its own and
//! announced on the stream (`tool_call.question`). It waits for the answer
//! posted to `POST /v1/riverse/questions/{id}` (the `answers` module) until
//! its deadline, `ServerOptions::question_timeout`, past which the tool reads
//! a cancel. However it closes (answered, expired, or its call ended first)
//! the stream hears of it (`tool_call.question_closed`). A turn that nobody
//! can answer (one not streamed) cancels its questions at once: see
//! `turns::Asking`.
//!
//! Open questions live in this server's memory, like the turn that waits on
//! them: the answer must reach the server that runs the turn.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use riverse_tool::{Answer, AnswerAction, Question};
use tokio::sync::mpsc::{UnboundedSender, WeakUnboundedSender};
use tokio::task::AbortHandle;

use crate::error::AppError;
use crate::updates::{AskedQuestion, ClosedQuestion, Closing, Update};

/// How long a question waits for its answer unless the options say otherwise.
pub const DEFAULT_QUESTION_TIMEOUT: Duration = Duration::from_secs(300);

/// Gives the tool its answer; false when it no longer waits (its call ended).
pub type Reply = Box<dyn FnOnce(Answer) -> bool + Send>;

/// Every open question of this server, by id.
pub struct Questions {
    /// By question id; a question leaves it as it closes.
    open: Mutex<HashMap<String, Waiting>>,
    /// How long each waits for its answer.
    timeout: Duration,
    /// Numbers the turns, so that a turn's questions close with it.
    turns: AtomicU64,
}

/// An open question and what its answer goes to.
struct Waiting {
    /// The number of the turn that asked it.
    turn: u64,
    /// As the stream announced it (its schema checks the answer).
    asked: AskedQuestion,
    /// Where the answer goes: the call that waits.
    reply: Reply,
    /// The turn's updates, where its stream hears the question closed. Weak:
    /// an open question does not keep a finished turn's channel open.
    updates: WeakUnboundedSender<Update>,
    /// The task that expires it at its deadline.
    expiry: AbortHandle,
}

impl Waiting {
    /// Gives the tool `answer`, stops the expiry, and tells the turn's
    /// stream why the question closed: `reason`, or that the call had ended
    /// when the tool no longer took it. Whether it took it.
    fn close(self, answer: Answer, reason: Closing) -> bool {
        let Waiting {
            asked,
            reply,
            updates,
            expiry,
            ..
        } = self;
        expiry.abort();
        let action = answer.action;
        let taken = reply(answer);
        let (action, reason) = if taken {
            (action, reason)
        } else {
            (AnswerAction::Cancel, Closing::CallEnded)
        };
        if let Some(updates) = updates.upgrade() {
            let _ = updates.send(Update::QuestionClosed(ClosedQuestion {
                id: asked.id,
                call_id: asked.call_id,
                tool: asked.tool,
                action,
                reason,
            }));
        }
        taken
    }
}

impl Questions {
    /// Questions that wait `timeout` for their answers.
    pub fn new(timeout: Duration) -> Arc<Questions> {
        Arc::new(Questions {
            open: Mutex::new(HashMap::new()),
            timeout,
            turns: AtomicU64::new(0),
        })
    }

    /// The questions of a turn that reports on `updates`; they close when
    /// it is dropped.
    pub fn for_turn(self: &Arc<Self>, updates: &UnboundedSender<Update>) -> TurnQuestions {
        TurnQuestions {
            questions: self.clone(),
            turn: self.turns.fetch_add(1, Ordering::Relaxed),
            updates: updates.clone(),
        }
    }

    /// Answers question `id` with what `give` makes of it: a 404 when no
    /// such question is open (answered, expired, or never asked), the error
    /// of `give` (which leaves it open for a better answer), or the action
    /// the tool read.
    pub fn answer(
        &self,
        id: &str,
        give: impl FnOnce(&Question) -> Result<Answer, AppError>,
    ) -> Result<AnswerAction, AppError> {
        // Closed under the lock, which the turn takes before it says the
        // call finished: the stream hears the answer before the call's end.
        let mut open = self.open.lock();
        let Entry::Occupied(entry) = open.entry(id.to_owned()) else {
            return Err(not_open(id));
        };
        let answer = give(&entry.get().asked.question)?;
        let action = answer.action;
        if entry.remove().close(answer, Closing::Answered) {
            Ok(action)
        } else {
            Err(not_open(id))
        }
    }

    /// The deadline of question `id` passed: the tool reads a cancel.
    fn expire(&self, id: &str) {
        let mut open = self.open.lock();
        if let Some(waiting) = open.remove(id) {
            let waited = riverse_tool::seconds(self.timeout);
            let why = format!("nobody answered within serve.question_timeout ({waited})");
            waiting.close(Answer::unanswered(why), Closing::Expired);
        }
    }

    /// Closes the open questions that `closes` picks, as cancels for
    /// `reason`, under the lock (see [`Questions::answer`]).
    fn close_where(&self, closes: impl Fn(&Waiting) -> bool, reason: Closing) {
        let mut open = self.open.lock();
        let ids: Vec<String> = open
            .iter()
            .filter(|(_, waiting)| closes(waiting))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            if let Some(waiting) = open.remove(&id) {
                waiting.close(Answer::cancel(), reason);
            }
        }
    }

    /// How many questions are open (for tests).
    pub fn open_count(&self) -> usize {
        self.open.lock().len()
    }
}

/// Waits out a question's deadline, then expires it (unless it closed
/// first, which aborts this task, or the server has gone).
async fn expire_later(questions: Weak<Questions>, id: String, timeout: Duration) {
    tokio::time::sleep(timeout).await;
    if let Some(questions) = questions.upgrade() {
        questions.expire(&id);
    }
}

/// One turn's share of the questions. Dropped with the turn, it closes
/// those still open: the tool that asked has been stopped.
pub struct TurnQuestions {
    questions: Arc<Questions>,
    /// This turn's number among the server's turns.
    turn: u64,
    /// Where the turn reports: its questions are announced there.
    updates: UnboundedSender<Update>,
}

impl TurnQuestions {
    /// Opens the question call `call_id` asks, and announces it.
    pub fn ask(&self, call_id: String, tool: String, question: Question, reply: Reply) {
        let asked = AskedQuestion {
            id: format!("q_{}", uuid::Uuid::new_v4().simple()),
            call_id,
            tool,
            question,
            deadline: now_millis().saturating_add(
                i64::try_from(self.questions.timeout.as_millis()).unwrap_or(i64::MAX),
            ),
        };
        // Announced before it can close, so that the stream never hears of
        // a question closing that it was not told of.
        if self
            .updates
            .send(Update::QuestionAsked(asked.clone()))
            .is_err()
        {
            reply(Answer::cancel());
            return;
        }
        // Held while the expiry starts, so that it finds the question
        // however short the timeout.
        let mut open = self.questions.open.lock();
        let expiry = tokio::spawn(expire_later(
            Arc::downgrade(&self.questions),
            asked.id.clone(),
            self.questions.timeout,
        ))
        .abort_handle();
        open.insert(
            asked.id.clone(),
            Waiting {
                turn: self.turn,
                asked,
                reply,
                updates: self.updates.downgrade(),
                expiry,
            },
        );
    }

    /// Call `call_id` ended: its questions close, unanswered. Said before
    /// the call's end, so that the stream hears them close first.
    pub fn call_ended(&self, call_id: &str) {
        let turn = self.turn;
        self.questions.close_where(
            |waiting| waiting.turn == turn && waiting.asked.call_id == call_id,
            Closing::CallEnded,
        );
    }
}

impl Drop for TurnQuestions {
    fn drop(&mut self) {
        let turn = self.turn;
        // A tool still waiting reads a cancel; the stream, if it is still
        // read, ends with the turn.
        self.questions
            .close_where(|waiting| waiting.turn == turn, Closing::CallEnded);
    }
}

fn not_open(id: &str) -> AppError {
    AppError::not_found(format!(
        "question {id:?} is not open (answered, expired, or never asked)"
    ))
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
