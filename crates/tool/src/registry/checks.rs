//! Typed input and output in the registry: each available tool's schemas
//! compiled once, when the generation is built, and every call of every
//! source checked against them on its way in and out.

use super::{Entry, Registry, Tables};
use crate::failure::CallFailure;
use crate::params::Params;
use crate::result::ToolResult;
use crate::typed::TypedSchemas;

impl Tables {
    /// `entry`, with the schemas of an available tool compiled and kept for
    /// its calls; a tool whose schema can't be compiled is an error.
    pub(super) fn compile_schemas(&mut self, entry: Entry) -> Entry {
        let Entry::Available {
            manifest,
            source,
            tool,
        } = entry
        else {
            return entry;
        };
        match TypedSchemas::compile(&manifest, !tool.checks_own_arguments()) {
            Ok(None) => {}
            Ok(Some(typed)) => {
                self.typed.insert(manifest.name.clone(), typed);
            }
            Err(why) => {
                return Entry::Error {
                    name: Some(manifest.name.clone()),
                    error: format!("tool \"{}\": {why}", manifest.name),
                    manifest: Some(manifest),
                    source,
                };
            }
        }
        Entry::Available {
            manifest,
            source,
            tool,
        }
    }
}

impl Registry {
    /// The arguments of a call of `name`, when they fit its input schema;
    /// otherwise why the call fails.
    pub(super) fn check_arguments(
        &self,
        name: &str,
        params: Params,
    ) -> Result<Params, CallFailure> {
        let Some(typed) = self.inner.typed.get(name) else {
            return Ok(params);
        };
        typed
            .check_arguments(params)
            .map_err(|why| CallFailure::BadArguments {
                tool: Some(name.to_owned()),
                why,
            })
    }

    /// `name`'s result once checked: a success whose structured result
    /// does not fit its output schema (or is missing where it has one) is a
    /// failure, and a structured result without text is given its JSON as
    /// text.
    pub(super) fn check_result(&self, name: &str, mut result: ToolResult) -> ToolResult {
        if result.success
            && let Some(typed) = self.inner.typed.get(name)
            && let Err(why) = typed.check_structured(result.structured.as_ref())
        {
            return ToolResult::from(CallFailure::BadOutput {
                tool: name.to_owned(),
                why,
            });
        }
        result.text_from_structured();
        result
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    use super::*;
    use crate::{
        CallContext, FailureKind, Found, RegistryOptions, Status, Tool, ToolManifest, ToolSource,
    };

    /// Answers each call with the structured result its `give` argument holds.
    struct Gives {
        manifest: ToolManifest,
        source: ToolSource,
        checks_own_arguments: bool,
    }

    #[async_trait::async_trait]
    impl Tool for Gives {
        fn manifest(&self) -> &ToolManifest {
            &self.manifest
        }
        fn source(&self) -> &ToolSource {
            &self.source
        }
        fn checks_own_arguments(&self) -> bool {
            self.checks_own_arguments
        }
        async fn call(&self, params: Params, _: Duration, _: &CallContext) -> ToolResult {
            let mut result = ToolResult::ok("");
            result.structured = params.get("give").cloned().filter(|given| !given.is_null());
            result
        }
    }

    fn registry(manifest: Value, checks_own_arguments: bool) -> Registry {
        let tool = Gives {
            manifest: serde_json::from_value(manifest).unwrap(),
            source: ToolSource::Python {
                file: "gives.py".into(),
            },
            checks_own_arguments,
        };
        let found = Found::Tool {
            tool: Arc::new(tool),
            available: true,
        };
        Registry::new(vec![found], RegistryOptions::default())
    }

    fn typed_tool() -> Value {
        json!({
            "name": "gives", "description": "d",
            "input_schema": {"type": "object", "properties": {
                "give": {"type": ["object", "null"]},
                "n": {"type": "integer", "minimum": 1}
            }, "additionalProperties": false},
            "output_schema": {"type": "object", "properties": {"degrees": {"type": "number"}},
                              "required": ["degrees"]}
        })
    }

    async fn call(registry: &Registry, arguments: Value) -> ToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("{arguments}")
        };
        registry.call("gives", arguments).await.unwrap()
    }

    #[tokio::test]
    async fn a_structured_result_that_fits_reads_as_its_json_when_it_has_no_text() {
        let registry = registry(typed_tool(), false);
        let result = call(&registry, json!({"give": {"degrees": 21.5}, "n": "2"})).await;
        assert_eq!(result.structured, Some(json!({"degrees": 21.5})));
        assert_eq!(result.data, r#"{"degrees":21.5}"#);
        assert!(result.success, "{result:?}");
    }

    #[tokio::test]
    async fn arguments_that_do_not_fit_fail_before_the_tool_runs() {
        let registry = registry(typed_tool(), false);
        let result = call(&registry, json!({"give": {"degrees": 1}, "n": 0})).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::BadParameters));
        assert_eq!(
            result.error,
            "tool \"gives\": the arguments do not fit its input_schema: at /n: must be >=1, but got 0"
        );
    }

    #[tokio::test]
    async fn a_structured_result_that_does_not_fit_or_is_missing_fails_the_call() {
        let registry = registry(typed_tool(), false);
        let result = call(&registry, json!({"give": {"degrees": "warm"}})).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::ToolError));
        assert_eq!(
            result.error,
            "tool \"gives\": its structured result does not fit its output_schema: \
             at /degrees: want number, but got string"
        );
        assert_eq!(result.structured, None);
        let result = call(&registry, json!({})).await;
        assert_eq!(
            result.error,
            "tool \"gives\": it declares an output_schema but returned no structured result"
        );
    }

    #[tokio::test]
    async fn a_source_that_checks_its_own_arguments_is_left_to_it() {
        let registry = registry(typed_tool(), true);
        let result = call(&registry, json!({"give": {"degrees": 3}, "extra": true})).await;
        assert!(result.success, "{result:?}");
    }

    #[test]
    fn a_tool_whose_schema_cant_be_compiled_is_an_error_by_its_name() {
        let mut manifest = typed_tool();
        manifest["output_schema"] = json!({"$ref": "https://example.com/forecast.json"});
        let registry = registry(manifest, false);
        let entry = &registry.entries()[0];
        assert_eq!(entry.status(), Status::Error);
        let error = entry.error().unwrap();
        assert!(
            error.starts_with(
                "tool \"gives\": its output_schema is not a JSON Schema Riverse can use: "
            ),
            "{error}"
        );
    }
}
