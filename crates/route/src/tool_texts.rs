//! What a tool is recognised by, for every rule that reads a manifest.

use riverse_tool::ToolManifest;

/// The texts a tool is recognised by: its description, its name with
/// separators as spaces (`convert_units` reads "convert units"), and its
/// examples.
pub fn tool_texts(tool: &ToolManifest) -> Vec<String> {
    let mut texts = vec![tool.description.clone(), tool.name.replace(['_', '-'], " ")];
    texts.extend(tool.examples.iter().cloned());
    texts
}
