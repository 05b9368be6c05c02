//! `parameter_types` as tool authors write them.
//!
//! Riverse treats a declared type as documentation with a conversion where it
//! is clear: one known name (`int`, `float`, `bool`, `string`, `list`, `dict`
//! and their synonyms) converts the value; a union (`bool|int|float|string`)
//! or a name Riverse doesn't know passes the value through as it came, and the
//! JSON Schema says so (a type array, or no type at all).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// How one parameter's value is written when it must be a single scalar
/// (see [`DeclaredType::param_type`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    #[serde(alias = "integer")]
    Int,
    #[serde(alias = "number")]
    Float,
    #[serde(alias = "boolean")]
    Bool,
}

impl ParamType {
    /// The JSON Schema type name.
    pub fn json_type(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Int => "integer",
            ParamType::Float => "number",
            ParamType::Bool => "boolean",
        }
    }
}

/// One type name Riverse knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Int,
    Float,
    Bool,
    List,
    Object,
}

impl Kind {
    pub(crate) fn from_name(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "str" | "string" | "text" => Kind::String,
            "int" | "integer" => Kind::Int,
            "float" | "number" => Kind::Float,
            "bool" | "boolean" => Kind::Bool,
            "list" | "array" => Kind::List,
            "dict" | "object" => Kind::Object,
            _ => return None,
        })
    }

    /// The JSON Schema type name.
    pub fn json_type(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Int => "integer",
            Kind::Float => "number",
            Kind::Bool => "boolean",
            Kind::List => "array",
            Kind::Object => "object",
        }
    }
}

/// A `parameter_types` value exactly as the author wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DeclaredType(String);

impl DeclaredType {
    pub fn new(written: impl Into<String>) -> Self {
        DeclaredType(written.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The members of a union (one for a plain name): a known kind, or the
    /// name as written when Riverse doesn't know it.
    fn members(&self) -> impl Iterator<Item = Result<Kind, &str>> {
        self.0
            .split('|')
            .map(str::trim)
            .map(|name| Kind::from_name(name).ok_or(name))
    }

    /// The kind a value is converted to: only a single known name converts.
    pub fn conversion(&self) -> Option<Kind> {
        let mut members = self.members();
        match (members.next(), members.next()) {
            (Some(Ok(kind)), None) => Some(kind),
            _ => None,
        }
    }

    /// How a value is written for this parameter when it must be one scalar
    /// (routing, prompts): text unless the declaration is one scalar kind.
    pub fn param_type(&self) -> ParamType {
        match self.conversion() {
            Some(Kind::Int) => ParamType::Int,
            Some(Kind::Float) => ParamType::Float,
            Some(Kind::Bool) => ParamType::Bool,
            _ => ParamType::String,
        }
    }

    /// The JSON Schema `type`: a name, an array of names for a union, or
    /// `None` when a member is unknown (any value is accepted).
    pub fn schema_type(&self) -> Option<Value> {
        let mut names: Vec<&'static str> = Vec::new();
        for member in self.members() {
            let name = member.ok()?.json_type();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        match names.as_slice() {
            [one] => Some(json!(one)),
            _ => Some(json!(names)),
        }
    }

    /// The declaration in JSON Schema's names, unknown names as written.
    pub fn label(&self) -> String {
        let names: Vec<&str> = self
            .members()
            .map(|member| match member {
                Ok(kind) => kind.json_type(),
                Err(name) => name,
            })
            .collect();
        names.join("|")
    }

    /// The names in the declaration Riverse doesn't know.
    pub fn unknown_names(&self) -> Vec<&str> {
        self.members().filter_map(Result::err).collect()
    }
}

impl From<&str> for DeclaredType {
    fn from(written: &str) -> Self {
        DeclaredType::new(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn synonyms_name_the_same_kind() {
        for (written, kind) in [
            ("str", Kind::String),
            ("string", Kind::String),
            ("int", Kind::Int),
            ("integer", Kind::Int),
            ("float", Kind::Float),
            ("number", Kind::Float),
            ("bool", Kind::Bool),
            ("boolean", Kind::Bool),
            ("list", Kind::List),
            ("dict", Kind::Object),
            ("object", Kind::Object),
            (" Int ", Kind::Int),
        ] {
            assert_eq!(
                DeclaredType::new(written).conversion(),
                Some(kind),
                "{written}"
            );
        }
    }

    #[test]
    fn a_union_converts_nothing_and_lists_its_schema_types() {
        let union = DeclaredType::new("bool|int|float|string");
        assert_eq!(union.conversion(), None);
        assert_eq!(union.param_type(), ParamType::String);
        assert_eq!(
            union.schema_type(),
            Some(json!(["boolean", "integer", "number", "string"]))
        );
        assert!(union.unknown_names().is_empty());
        assert_eq!(
            DeclaredType::new("int|integer").schema_type(),
            Some(json!("integer"))
        );
    }

    #[test]
    fn an_unknown_name_has_no_schema_type_and_is_reported() {
        let unknown = DeclaredType::new("datetime|int");
        assert_eq!(unknown.conversion(), None);
        assert_eq!(unknown.schema_type(), None);
        assert_eq!(unknown.unknown_names(), vec!["datetime"]);
    }
}
