//! Manifests for the unit tests of routing and answers.

use riverse_tool::ToolManifest;

/// A tool of `name` described as `description`, with `parameters` and their
/// meanings.
pub(crate) fn tool(name: &str, description: &str, parameters: &[(&str, &str)]) -> ToolManifest {
    ToolManifest {
        name: name.into(),
        description: description.into(),
        parameters: parameters
            .iter()
            .map(|(name, meaning)| ((*name).to_owned(), (*meaning).to_owned()))
            .collect(),
        ..ToolManifest::default()
    }
}
