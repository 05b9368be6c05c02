mod answer;
mod loading;
mod routing;
mod tokenizer;

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
        let path = fetch::ensure_cached(&cache, "python3", false).expect("fetch the model");
        EmbeddedModel::load_file(&path).expect("load the embedded model")
    })
}

/// The example tools `riverse init` writes, as their manifests.
pub fn template_tools() -> Vec<ToolManifest> {
    serde_json::from_value(serde_json::json!([
        {
            "name": "clock",
            "description": "Get the current date and time, optionally in a time zone or city",
            "parameters": {"timezone": "IANA time zone or city, e.g. Asia/Tokyo, London (default UTC)"},
            "examples": ["What time is it in Tokyo?", "What's the date today?", "東京は今何時？"]
        },
        {
            "name": "convert_units",
            "description": "Convert a value between units of length, mass, volume, speed or temperature",
            "parameters": {
                "value": "The number to convert",
                "from_unit": "Unit of the value, e.g. km, lb, F",
                "to_unit": "Unit to convert to, e.g. mi, kg, C"
            },
            "examples": ["How many miles is 10 km?", "Convert 100 F to C", "5 pounds in kilograms"],
            "parameter_types": {"value": "float"}
        },
        {
            "name": "weather",
            "description": "Get the current weather of a city",
            "parameters": {"city": "City name, e.g. Tokyo, London"},
            "examples": ["What's the weather in Tokyo?", "Is it raining in London?"]
        }
    ]))
    .expect("valid manifests")
}
