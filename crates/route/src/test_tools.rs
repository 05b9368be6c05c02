//! Manifests for the unit tests: a name, a description and parameters with
//! their meanings.

use riverse_tool::ToolManifest;

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
