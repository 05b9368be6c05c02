//! Secrets taken out of what leaves a tool: its result, and what it says
//! and asks while it runs ([`riverse_secrets`] knows the values).

use riverse_secrets::Redactor;

use crate::content::Content;
use crate::context::{Question, SampleRequest};
use crate::result::ToolResult;

impl ToolResult {
    /// Replaces every secret in the result's text, content and structured
    /// output by `[secret:NAME]`.
    pub fn scrub_secrets(&mut self) {
        let Some(redactor) = riverse_secrets::current() else {
            return;
        };
        redactor.scrub_string(&mut self.data);
        redactor.scrub_string(&mut self.error);
        if let Some(structured) = &mut self.structured {
            redactor.scrub_value(structured);
        }
        for content in &mut self.content {
            scrub_content(&redactor, content);
        }
    }
}

fn scrub_content(redactor: &Redactor, content: &mut Content) {
    match content {
        Content::Image { data, .. } | Content::Audio { data, .. } => {
            redactor.scrub_string(data);
        }
        Content::Resource {
            uri, text, blob, ..
        } => {
            redactor.scrub_string(uri);
            for field in [text, blob].into_iter().flatten() {
                redactor.scrub_string(field);
            }
        }
    }
}

impl Question {
    pub(crate) fn scrub_secrets(&mut self) {
        if let Some(redactor) = riverse_secrets::current() {
            redactor.scrub_string(&mut self.message);
            redactor.scrub_value(&mut self.schema);
        }
    }
}

impl SampleRequest {
    pub(crate) fn scrub_secrets(&mut self) {
        if let Some(redactor) = riverse_secrets::current() {
            redactor.scrub_string(&mut self.prompt);
            if let Some(system) = &mut self.system {
                redactor.scrub_string(system);
            }
        }
    }
}
