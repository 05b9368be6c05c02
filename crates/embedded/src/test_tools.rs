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

/// A tool of `name` whose `parameters` are `(name, meaning, type)`.
pub(crate) fn tool_with_types(name: &str, parameters: &[(&str, &str, &str)]) -> ToolManifest {
    let mut manifest = tool(
        name,
        "",
        &parameters
            .iter()
            .map(|(name, meaning, _)| (*name, *meaning))
            .collect::<Vec<_>>(),
    );
    manifest.parameter_types = parameters
        .iter()
        .map(|(name, _, declared)| ((*name).to_owned(), (*declared).into()))
        .collect();
    manifest
}
