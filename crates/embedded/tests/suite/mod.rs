mod answer;
mod bounds;
mod loading;
mod provider;
mod routing;
mod routing_asks;
mod routing_codes;
mod routing_values;
mod tokenizer;
mod usage;

use std::sync::OnceLock;

use riverse_embedded::{EmbeddedModel, fetch, location};
use riverse_tool::ToolManifest;

/// The default model, fetched into the shared cache if absent (once per
/// machine: parallel test binaries wait on the fetch's lock) and loaded once
/// for every test of this binary.
pub fn model() -> &'static EmbeddedModel {
    static MODEL: OnceLock<EmbeddedModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        let cache = location::default_cache_dir().expect("HOME or XDG_CACHE_HOME is set");
        let path =
            fetch::ensure_cached(&cache, "python3", /*progress*/ false).expect("fetch the model");
        EmbeddedModel::load_file(&path).expect("load the embedded model")
    })
}

/// The example tools `riverse init` writes, as their manifests. The
/// templates in `crates/cli/templates` are the source; the cli's tests check
/// that `riverse tools --json` lists exactly these.
pub fn template_tools() -> Vec<ToolManifest> {
    serde_json::from_str(include_str!("../../eval/template-tools.json")).expect("valid manifests")
}
