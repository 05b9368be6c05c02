//! Riverse's skills: instructions or tool steps that a turn applies when a
//! message calls for them.
//!
//! [`load`] reads a skills directory ([`SkillsOptions`]) into a [`SkillSet`]:
//! Riverse's `*.yaml` files (one skill, or a `skills:` list), its bundled
//! `skills_{language}.yaml`, and `NAME/SKILL.md` folders. Every file yields
//! [`Entry`]s; a malformed one is an entry with a [`LoadError`] (file, line,
//! key) and never stops the others. A [`Skill`] is the same whatever its
//! format: a [`Trigger`], an instruction, [`Step`]s, variables, examples.
//!
//! [`SkillSet::keyword_matches`] and [`SkillSet::explicit`] pick the skills a
//! message applies ([`fold`] compares text in any script and case);
//! [`run_steps`] runs a skill's steps through a [`StepHost`] (a tool call by
//! name, the LLM's reply to a prompt), interpolating `{var}` with
//! [`interpolate_text`] and [`interpolate_value`]. [`Skill::read_file`] reads
//! a SKILL.md skill's files without leaving its folder, and [`Skill::manifest`]
//! lists them with SHA-256 digests for `skill://` URIs. [`eval`] scores which
//! skill a chooser picks for each example.
//!
//! Left to the caller: settings (riverse-agent turns them into
//! [`SkillsOptions`]), putting an instruction into a prompt, asking the LLM
//! to choose a skill, hot reload, and serving skills over MCP.

mod content;
mod error;
pub mod eval;
mod files;
mod interpolate;
mod load;
mod matching;
mod model;
mod parse;
mod raw;
mod set;
mod steps;

pub use content::{SkillFile, digest};
pub use error::LoadError;
pub use files::FileError;
pub use interpolate::{interpolate_text, interpolate_value};
pub use load::{SkillsOptions, load};
pub use matching::{fold, slash_command};
pub use model::{Skill, Source, SourceKind, Step, Trigger, is_valid_skill_name};
pub use set::{Entry, Explicit, SkillSet, Status};
pub use steps::{SkillRun, StepHost, StepOutput, StepRecord, run_steps};
