//! What running tools show and ask on the terminal, for `riverse chat`,
//! `riverse ask` and `riverse call`.
//!
//! [`ToolLines`] draws each running call as a live bar on stderr (plain
//! lines when stderr is piped, and no progress), with the lines the call
//! logs above it. [`Asker`] puts a tool's questions to the person at the
//! terminal, one at a time, or cancels them when there is nobody.
//! [`OutDir`] saves the images, audio and files results carry. A turn's
//! events reach them through [`TurnView`]; a direct call's through
//! [`CallView`], its listener.

mod approvals;
mod asker;
mod call_view;
mod form;
mod lines;
mod params;
mod prompt;
mod saved;
mod tasks;
mod turn_view;

pub use approvals::Approvals;
pub use asker::Asker;
pub use call_view::{CALL_ID, CallView};
pub use lines::{ToolLines, print_above_prompt, write_above_bars};
pub use saved::{OutDir, Saved, with_saved};
pub use tasks::{AbovePrompt, ChatTasks, ROWS_WRITTEN_WITHIN};
pub use turn_view::TurnView;
