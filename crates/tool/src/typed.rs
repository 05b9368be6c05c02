//! Typed input and output: a manifest's JSON Schemas (`input_schema`,
//! `output_schema`) compiled once, when the registry admits the tool, and a
//! call's arguments and structured result checked against them. A mismatch
//! is told by the JSON path of the value at fault.
//!
//! Schemas are read as JSON Schema 2020-12 unless their `$schema` names an
//! earlier draft. A `$ref` resolves within the schema (`#/$defs/...`) or to a
//! draft's meta-schema; one to a file or the network is refused when the
//! schema is compiled: nothing is read from outside.

use boon::{CompileError, Compiler, Draft, SchemaIndex, Schemas, UrlLoader, ValidationError};
use serde_json::Value;

use crate::manifest::ToolManifest;
use crate::params::Params;

/// The most mismatches one message names; past them it counts.
const MAX_NAMED: usize = 3;

/// A tool's schemas, compiled.
pub(crate) struct TypedSchemas {
    input: Option<Compiled>,
    output: Option<Compiled>,
}

/// One schema, compiled on its own (two schemas may share an `$id`).
struct Compiled {
    schemas: Schemas,
    index: SchemaIndex,
}

impl TypedSchemas {
    /// The manifest's schemas compiled, leaving out its `input_schema` when
    /// `check_input` is false (its source checks the arguments itself);
    /// `None` when nothing is left to check. A schema that can't be compiled
    /// is an error naming it.
    pub(crate) fn compile(
        manifest: &ToolManifest,
        check_input: bool,
    ) -> Result<Option<TypedSchemas>, String> {
        let input = manifest.input_schema.as_ref().filter(|_| check_input);
        let output = manifest.output_schema.as_ref();
        if input.is_none() && output.is_none() {
            return Ok(None);
        }
        Ok(Some(TypedSchemas {
            input: input
                .map(|schema| compile("input_schema", schema))
                .transpose()?,
            output: output
                .map(|schema| compile("output_schema", schema))
                .transpose()?,
        }))
    }

    /// The arguments, when they fit the input schema; otherwise why not.
    pub(crate) fn check_arguments(&self, params: Params) -> Result<Params, String> {
        let Some(input) = &self.input else {
            return Ok(params);
        };
        let arguments = Value::Object(params);
        if let Err(error) = input.schemas.validate(&arguments, input.index) {
            return Err(format!(
                "the arguments do not fit its input_schema: {}",
                mismatches(&error)
            ));
        }
        match arguments {
            Value::Object(params) => Ok(params),
            _ => Ok(Params::new()),
        }
    }

    /// Whether a successful call's structured result fits the output
    /// schema; a tool that declares one must give one, as MCP requires.
    pub(crate) fn check_structured(&self, structured: Option<&Value>) -> Result<(), String> {
        let Some(output) = &self.output else {
            return Ok(());
        };
        let Some(structured) = structured else {
            return Err("it declares an output_schema but returned no structured result".into());
        };
        match output.schemas.validate(structured, output.index) {
            Ok(()) => Ok(()),
            Err(error) => Err(format!(
                "its structured result does not fit its output_schema: {}",
                mismatches(&error)
            )),
        }
    }
}

/// `schema`, the manifest's `field`, compiled.
fn compile(field: &str, schema: &Value) -> Result<Compiled, String> {
    // The schema's own address: where a relative `$ref` would resolve, and
    // what errors name.
    let url = format!("urn:riverse:{field}");
    let mut compiler = Compiler::new();
    compiler.set_default_draft(Draft::V2020_12);
    compiler.use_loader(Box::new(NothingOutside));
    let mut schemas = Schemas::new();
    if let Err(error) = compiler.add_resource(&url, schema.clone()) {
        return Err(unusable(field, &error));
    }
    match compiler.compile(&url, &mut schemas) {
        Ok(index) => Ok(Compiled { schemas, index }),
        Err(error) => Err(unusable(field, &error)),
    }
}

/// Why the manifest's `field` could not be compiled.
fn unusable(field: &str, error: &CompileError) -> String {
    match error {
        CompileError::ValidationError { src, .. } => format!(
            "its {field} is not a valid JSON Schema: {}",
            mismatches(src)
        ),
        other => format!("its {field} is not a JSON Schema Riverse can use: {other:#}"),
    }
}

/// Refuses every document a schema refers to outside itself.
struct NothingOutside;

impl UrlLoader for NothingOutside {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!(
            "{url} is outside the schema, and Riverse reads no file or network address for a schema"
        )
        .into())
    }
}

/// What did not fit, each mismatch at its JSON path: the innermost errors
/// of the tree the validator gives, the first few of them.
fn mismatches(error: &ValidationError<'_, '_>) -> String {
    let mut found = Vec::new();
    innermost(error, &mut found);
    // By path: the validator's own order follows a hash map's.
    found.sort_by_cached_key(|error| error.instance_location.to_string());
    let mut named: Vec<String> = found
        .iter()
        .take(MAX_NAMED)
        .map(|error| {
            if error.instance_location.tokens.is_empty() {
                error.kind.to_string()
            } else {
                format!("at {}: {}", error.instance_location, error.kind)
            }
        })
        .collect();
    if found.len() > MAX_NAMED {
        named.push(format!("and {} more", found.len() - MAX_NAMED));
    }
    named.join("; ")
}

fn innermost<'e, 's, 'v>(
    error: &'e ValidationError<'s, 'v>,
    found: &mut Vec<&'e ValidationError<'s, 'v>>,
) {
    if error.causes.is_empty() {
        found.push(error);
    }
    for cause in &error.causes {
        innermost(cause, found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn typed(input: Value, output: Value) -> TypedSchemas {
        let manifest = ToolManifest {
            name: "t".into(),
            input_schema: Some(input),
            output_schema: Some(output),
            ..ToolManifest::default()
        };
        TypedSchemas::compile(&manifest, true).unwrap().unwrap()
    }

    fn order_schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                "required": ["city"]
            }},
            "properties": {
                "name": {"type": "string"},
                "size": {"enum": ["small", "large"]},
                "address": {"$ref": "#/$defs/address"}
            },
            "required": ["name"],
            "additionalProperties": false
        })
    }

    fn arguments(value: Value) -> Params {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn arguments_that_fit_pass_unchanged() {
        let typed = typed(order_schema(), json!({}));
        let fitting = arguments(json!({"name": "Ada", "size": "large",
                                       "address": {"city": "Oslo"}}));
        assert_eq!(typed.check_arguments(fitting.clone()), Ok(fitting));
    }

    #[test]
    fn each_mismatch_of_the_arguments_is_named_by_its_path() {
        let typed = typed(order_schema(), json!({}));
        let wrong = arguments(json!({"size": "medium", "address": {"city": 7}}));
        assert_eq!(
            typed.check_arguments(wrong),
            Err(
                "the arguments do not fit its input_schema: missing properties 'name'; \
                 at /address/city: want string, but got number; \
                 at /size: value must be one of 'small', 'large'"
                    .to_owned()
            )
        );
        let extra = arguments(json!({"name": "Ada", "colour": "red"}));
        assert_eq!(
            typed.check_arguments(extra),
            Err(
                "the arguments do not fit its input_schema: additionalProperties 'colour' not allowed"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_structured_result_is_checked_and_required() {
        let output = json!({
            "type": "object",
            "properties": {"degrees": {"type": "number"},
                           "hours": {"type": "array", "items": {"type": "integer"}}},
            "required": ["degrees"]
        });
        let typed = typed(json!({"type": "object"}), output);
        assert_eq!(
            typed.check_structured(Some(&json!({"degrees": 21.5, "hours": [1, 2]}))),
            Ok(())
        );
        assert_eq!(
            typed.check_structured(Some(&json!({"degrees": "warm", "hours": [1, "2"]}))),
            Err("its structured result does not fit its output_schema: \
                 at /degrees: want number, but got string; \
                 at /hours/1: want integer, but got string"
                .to_owned())
        );
        assert_eq!(
            typed.check_structured(None),
            Err("it declares an output_schema but returned no structured result".to_owned())
        );
    }

    #[test]
    fn past_three_mismatches_the_rest_are_counted() {
        let typed = typed(
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({}),
        );
        let wrong = arguments(json!({"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}));
        let message = typed.check_arguments(wrong).unwrap_err();
        assert!(message.ends_with("; and 2 more"), "{message}");
    }

    #[test]
    fn a_schema_is_compiled_only_where_something_is_checked() {
        let plain = ToolManifest::default();
        assert!(TypedSchemas::compile(&plain, true).unwrap().is_none());
        let input_only = ToolManifest {
            input_schema: Some(order_schema()),
            ..ToolManifest::default()
        };
        assert!(TypedSchemas::compile(&input_only, false).unwrap().is_none());
    }

    #[test]
    fn a_schema_that_is_not_one_or_reaches_outside_is_refused_by_name() {
        let broken = ToolManifest {
            output_schema: Some(json!({"type": "whole number"})),
            ..ToolManifest::default()
        };
        assert_eq!(
            TypedSchemas::compile(&broken, true).err().unwrap(),
            "its output_schema is not a valid JSON Schema: at /type: value must be one of \
             'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; \
             at /type: want array, but got string"
        );
        let outside = ToolManifest {
            input_schema: Some(json!({"properties": {
                "profile": {"$ref": "http://127.0.0.1:9/profile.json"}
            }})),
            ..ToolManifest::default()
        };
        assert_eq!(
            TypedSchemas::compile(&outside, true).err().unwrap(),
            "its input_schema is not a JSON Schema Riverse can use: error loading \
             http://127.0.0.1:9/profile.json: http://127.0.0.1:9/profile.json is outside \
             the schema, and Riverse reads no file or network address for a schema"
        );
    }

    #[test]
    fn an_earlier_draft_named_by_its_schema_is_read_as_that_draft() {
        // Draft 7 reads `items` as an array of schemas by position.
        let typed = typed(
            json!({"$schema": "http://json-schema.org/draft-07/schema#",
                   "properties": {"pair": {"items": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({}),
        );
        assert!(
            typed
                .check_arguments(arguments(json!({"pair": ["a", 1]})))
                .is_ok()
        );
        assert!(
            typed
                .check_arguments(arguments(json!({"pair": [1, "a"]})))
                .is_err()
        );
    }
}
