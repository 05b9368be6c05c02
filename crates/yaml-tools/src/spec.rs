//! One entry of an agents list, checked into an [`AgentSpec`].
//!
//! ```yaml
//! - name: weather_query
//!   type: http                      # or command
//!   description: "..."
//!   parameters: {city: "City name"}
//!   examples: ["What's the weather in Tokyo"]
//!   enabled: true
//!   http: {url: "https://wttr.in/{city}", method: GET, headers: {}, query_template: {},
//!          body_template: {} or "text", timeout: 15, result_path: "a.b",
//!          redirect: same-host}          # none | same-host | any
//!   command: {template: "prog --flag {param}", timeout: 30, shell: false,
//!             allowed_params: {param: [a, b]},
//!             allow_options: false,     # true, or a list of parameters
//!             allow_interpreter: false}
//! ```

use std::time::Duration;

use indexmap::IndexMap;
use riverse_tool::ToolManifest;
use serde_json::{Map, Value};

use crate::programs::{check_command, ignores_double_dash};
use crate::shell::ShellTemplate;
use crate::words::Word;

/// Riverse's defaults for `http.timeout` and `command.timeout`.
const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(15);
const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

/// A checked agent entry.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    pub manifest: ToolManifest,
    /// `enabled`, true unless the entry says otherwise.
    pub enabled: bool,
    pub action: Action,
}

#[derive(Debug, Clone)]
pub enum Action {
    Http(HttpSpec),
    Command(CommandSpec),
}

#[derive(Debug, Clone)]
pub struct HttpSpec {
    /// With `{param}` placeholders, filled URL-encoded.
    pub url: String,
    /// Upper case: GET, POST, PUT, PATCH, DELETE or HEAD.
    pub method: String,
    /// Values may name environment variables as `${NAME}`.
    pub headers: Vec<(String, String)>,
    /// Query pairs with `{param}` placeholders in the values.
    pub query: Vec<(String, String)>,
    pub body: Option<BodyTemplate>,
    pub timeout: Duration,
    /// The keys (or list indexes) of `result_path`; empty: the whole reply.
    pub result_path: Vec<String>,
    /// Which redirects are followed.
    pub redirect: Redirect,
}

/// `http.redirect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    /// A redirect is the reply: a 3xx fails the call.
    None,
    /// Followed while the scheme, host and port stay those of the request
    /// the template built (the default).
    SameHost,
    /// Followed anywhere; the template's headers go only to its own host.
    Any,
}

#[derive(Debug, Clone)]
pub enum BodyTemplate {
    /// Sent as JSON, placeholders filled in every string inside.
    Json(Value),
    /// Sent as it is once filled.
    Text(String),
}

#[derive(Debug, Clone)]
pub struct CommandSpec {
    pub timeout: Duration,
    /// A parameter's permitted values.
    pub allowed_params: IndexMap<String, Vec<String>>,
    /// The parameters whose values may start with `-`.
    pub allow_options: ParamSet,
    /// The parameters whose values may begin an argument (and so be read as
    /// an option). Without a shell, words after a literal `--` are left out.
    pub leading_params: Vec<String>,
    pub(crate) words: Vec<Word>,
    /// The template as read for `sh`, with `shell: true` (every value a
    /// positional parameter).
    pub(crate) script: Option<ShellTemplate>,
}

/// A choice of parameters: all of them or those named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamSet {
    All,
    Named(Vec<String>),
}

impl ParamSet {
    pub fn contains(&self, param: &str) -> bool {
        match self {
            ParamSet::All => true,
            ParamSet::Named(params) => params.iter().any(|named| named == param),
        }
    }
}

/// What is wrong with an entry: its name when it has one, the field, why.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError {
    pub name: Option<String>,
    pub field: String,
    pub message: String,
}

impl SpecError {
    /// `agents[2] "home_lights": http.url: missing`
    pub fn describe(&self, index: usize) -> String {
        let entry = match &self.name {
            Some(name) => format!("agents[{index}] {name:?}"),
            None => format!("agents[{index}]"),
        };
        match self.field.as_str() {
            "" => format!("{entry}: {}", self.message),
            field => format!("{entry}: {field}: {}", self.message),
        }
    }
}

/// `a string`, `a list`: a JSON value's kind for messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Reads the fields of one mapping, naming the field at fault.
struct Fields<'a> {
    /// `http.` for the fields of `http`.
    prefix: String,
    map: &'a Map<String, Value>,
    name: Option<String>,
}

impl Fields<'_> {
    fn error(&self, field: &str, message: impl Into<String>) -> SpecError {
        SpecError {
            name: self.name.clone(),
            field: format!("{}{field}", self.prefix),
            message: message.into(),
        }
    }

    fn expected(&self, field: &str, what: &str, found: &Value) -> SpecError {
        self.error(field, format!("expected {what}, found {}", kind_of(found)))
    }

    fn get(&self, field: &str) -> Option<&Value> {
        self.map.get(field).filter(|value| !value.is_null())
    }

    fn string(&self, field: &str) -> Result<Option<String>, SpecError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(self.expected(field, "a string", other)),
        }
    }

    fn required_string(&self, field: &str) -> Result<String, SpecError> {
        match self.string(field)? {
            Some(text) if !text.trim().is_empty() => Ok(text),
            _ => Err(self.error(field, "missing")),
        }
    }

    fn boolean(&self, field: &str) -> Result<Option<bool>, SpecError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(Value::String(text)) => match text.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" => Ok(Some(true)),
                "false" | "no" | "off" => Ok(Some(false)),
                _ => Err(self.error(field, format!("expected true or false, found {text:?}"))),
            },
            Some(other) => Err(self.expected(field, "true or false", other)),
        }
    }

    fn seconds(&self, field: &str, default: Duration) -> Result<Duration, SpecError> {
        let secs = match self.get(field) {
            None => return Ok(default),
            Some(Value::Number(number)) => number.as_f64(),
            Some(Value::String(text)) => text.trim().parse::<f64>().ok(),
            Some(other) => return Err(self.expected(field, "a number of seconds", other)),
        };
        secs.filter(|secs| secs.is_finite() && *secs > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| self.error(field, "expected a positive number of seconds"))
    }

    fn mapping(&self, field: &str) -> Result<Option<&Map<String, Value>>, SpecError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(self.expected(field, "a mapping", other)),
        }
    }

    /// A mapping whose values are scalars, as text.
    fn text_pairs(&self, field: &str) -> Result<Vec<(String, String)>, SpecError> {
        let Some(map) = self.mapping(field)? else {
            return Ok(Vec::new());
        };
        map.iter()
            .map(|(key, value)| match scalar_text(value) {
                Some(text) => Ok((key.clone(), text)),
                None => Err(self.expected(&format!("{field}.{key}"), "a string", value)),
            })
            .collect()
    }

    fn nested(&self, field: &str) -> Result<Option<Fields<'_>>, SpecError> {
        Ok(self.mapping(field)?.map(|map| Fields {
            prefix: format!("{}{field}.", self.prefix),
            map,
            name: self.name.clone(),
        }))
    }
}

/// A string, number or boolean as text; `None` for structures.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null => Some(String::new()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

impl AgentSpec {
    pub fn parse(entry: &Value) -> Result<AgentSpec, SpecError> {
        let Value::Object(map) = entry else {
            return Err(SpecError {
                name: None,
                field: String::new(),
                message: format!("expected a mapping, found {}", kind_of(entry)),
            });
        };
        let mut fields = Fields {
            prefix: String::new(),
            map,
            name: None,
        };
        let name = fields.required_string("name")?;
        fields.name = Some(name.clone());
        let parameters: IndexMap<String, String> =
            fields.text_pairs("parameters")?.into_iter().collect();
        let examples = match fields.get("examples") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    scalar_text(item)
                        .ok_or_else(|| fields.expected(&format!("examples[{i}]"), "a string", item))
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(fields.expected("examples", "a list of strings", other)),
        };
        let kind = fields.required_string("type")?;
        let action = match kind.as_str() {
            "http" => Action::Http(http_spec(&fields)?),
            "command" => Action::Command(command_spec(&fields)?),
            other => {
                return Err(
                    fields.error("type", format!("expected http or command, found {other:?}"))
                );
            }
        };
        Ok(AgentSpec {
            manifest: ToolManifest {
                name,
                description: fields.string("description")?.unwrap_or_default(),
                parameters,
                examples,
                parameter_types: IndexMap::new(),
                input_schema: None,
                output_schema: None,
                annotations: None,
            },
            enabled: fields.boolean("enabled")?.unwrap_or(true),
            action,
        })
    }
}

fn http_spec(entry: &Fields<'_>) -> Result<HttpSpec, SpecError> {
    let Some(http) = entry.nested("http")? else {
        return Err(entry.error("http", "missing: an http agent needs http.url"));
    };
    let method = http
        .string("method")?
        .unwrap_or_else(|| "GET".into())
        .to_ascii_uppercase();
    if !HTTP_METHODS.contains(&method.as_str()) {
        return Err(http.error(
            "method",
            format!(
                "expected one of {}, found {method:?}",
                HTTP_METHODS.join(", ")
            ),
        ));
    }
    let body = match http.get("body_template") {
        None => None,
        Some(Value::String(text)) => Some(BodyTemplate::Text(text.clone())),
        Some(template @ Value::Object(_)) => Some(BodyTemplate::Json(template.clone())),
        Some(other) => return Err(http.expected("body_template", "a mapping or a string", other)),
    };
    let result_path = http
        .string("result_path")?
        .map(|path| {
            path.split('.')
                .filter(|key| !key.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Ok(HttpSpec {
        url: http.required_string("url")?,
        method,
        headers: http.text_pairs("headers")?,
        query: http.text_pairs("query_template")?,
        body,
        timeout: http.seconds("timeout", DEFAULT_HTTP_TIMEOUT)?,
        result_path,
        redirect: redirect(&http)?,
    })
}

fn redirect(http: &Fields<'_>) -> Result<Redirect, SpecError> {
    match http.string("redirect")?.as_deref().map(str::trim) {
        None | Some("same-host") => Ok(Redirect::SameHost),
        Some("none") => Ok(Redirect::None),
        Some("any") => Ok(Redirect::Any),
        Some(other) => Err(http.error(
            "redirect",
            format!("expected none, same-host or any, found {other:?}"),
        )),
    }
}

fn command_spec(entry: &Fields<'_>) -> Result<CommandSpec, SpecError> {
    let Some(command) = entry.nested("command")? else {
        return Err(entry.error("command", "missing: a command agent needs command.template"));
    };
    let template = command.required_string("template")?;
    let Some(split) = shlex::split(&template) else {
        return Err(command.error("template", "unbalanced quotes"));
    };
    let allowed_params = allowed_params(&command)?;
    let shell = command.boolean("shell")?.unwrap_or(false);
    let allow_interpreter = command.boolean("allow_interpreter")?.unwrap_or(false);
    let words: Vec<Word> = split.iter().map(|word| Word::from_unquoted(word)).collect();
    let script = match shell {
        true => Some(
            ShellTemplate::parse(&template)
                .map_err(|message| command.error("template", message))?,
        ),
        false => None,
    };
    let commands = match &script {
        Some(script) => script.commands.clone(),
        None => vec![words.clone()],
    };
    if !allow_interpreter {
        for words in &commands {
            check_command(words, &allowed_params)
                .map_err(|message| command.error("template", message))?;
        }
    }
    let leading_params = leading_params(&commands, /*after_double_dash*/ !shell);
    Ok(CommandSpec {
        timeout: command.seconds("timeout", DEFAULT_COMMAND_TIMEOUT)?,
        allowed_params,
        allow_options: allow_options(&command)?,
        leading_params,
        words,
        script,
    })
}

fn allowed_params(command: &Fields<'_>) -> Result<IndexMap<String, Vec<String>>, SpecError> {
    let mut allowed_params = IndexMap::new();
    if let Some(allowed) = command.mapping("allowed_params")? {
        for (param, values) in allowed {
            let field = format!("allowed_params.{param}");
            let Value::Array(values) = values else {
                return Err(command.expected(&field, "a list of values", values));
            };
            let values = values
                .iter()
                .map(|value| {
                    scalar_text(value)
                        .ok_or_else(|| command.expected(&field, "a list of values", value))
                })
                .collect::<Result<Vec<_>, _>>()?;
            allowed_params.insert(param.clone(), values);
        }
    }
    Ok(allowed_params)
}

/// `allow_options`: true, false, or a list of parameters.
fn allow_options(command: &Fields<'_>) -> Result<ParamSet, SpecError> {
    match command.get("allow_options") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(param) => Ok(param.clone()),
                other => Err(command.expected("allow_options", "a list of parameters", other)),
            })
            .collect::<Result<_, _>>()
            .map(ParamSet::Named),
        _ => Ok(match command.boolean("allow_options")? {
            Some(true) => ParamSet::All,
            _ => ParamSet::Named(Vec::new()),
        }),
    }
}

/// The parameters whose values may begin a word of any command. A word
/// after a literal `--` is an operand to programs that follow the usual
/// convention; `after_double_dash` leaves such words out.
fn leading_params(commands: &[Vec<Word>], after_double_dash: bool) -> Vec<String> {
    let mut leading: Vec<String> = Vec::new();
    for words in commands {
        // `env -- prog {value}`: that `--` is the wrapper's, not prog's;
        // `find -- {value}` reads `-delete` after it.
        let honours_double_dash =
            after_double_dash && !words.first().is_some_and(ignores_double_dash);
        for word in words {
            if honours_double_dash && word.literal().as_deref() == Some("--") {
                break;
            }
            for param in word.leading_params() {
                if !leading.iter().any(|known| known == param) {
                    leading.push(param.to_owned());
                }
            }
        }
    }
    leading
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn error(entry: Value) -> String {
        AgentSpec::parse(&entry).unwrap_err().describe(3)
    }

    #[test]
    fn a_full_http_entry_is_read() {
        let spec = AgentSpec::parse(&json!({
            "name": "weather_query", "type": "http", "description": "weather",
            "parameters": {"city": "City name"}, "examples": ["Tokyo?"], "enabled": "false",
            "http": {"url": "https://wttr.in/{city}", "method": "get", "headers": {"Accept": "application/json"},
                     "query_template": {"format": "j1"}, "timeout": "5", "result_path": "current_condition.0"}
        }))
        .unwrap();
        assert_eq!(spec.manifest.parameters["city"], "City name");
        assert!(!spec.enabled);
        let Action::Http(http) = spec.action else {
            panic!()
        };
        assert_eq!(http.method, "GET");
        assert_eq!(http.timeout, Duration::from_secs(5));
        assert_eq!(http.result_path, ["current_condition", "0"]);
        assert_eq!(http.query, [("format".to_owned(), "j1".to_owned())]);
    }

    #[test]
    fn errors_name_the_entry_and_the_field() {
        assert_eq!(
            error(json!("weather")),
            "agents[3]: expected a mapping, found a string"
        );
        assert_eq!(error(json!({"type": "http"})), "agents[3]: name: missing");
        assert_eq!(
            error(json!({"name": "w", "type": "ftp"})),
            "agents[3] \"w\": type: expected http or command, found \"ftp\""
        );
        assert_eq!(
            error(json!({"name": "w", "type": "http", "http": {"method": "GET"}})),
            "agents[3] \"w\": http.url: missing"
        );
        assert_eq!(
            error(json!({"name": "w", "type": "http", "http": {"url": "http://x", "timeout": -1}})),
            "agents[3] \"w\": http.timeout: expected a positive number of seconds"
        );
        assert_eq!(
            error(
                json!({"name": "c", "type": "command", "command": {"template": "ls", "allowed_params": {"d": "a"}}})
            ),
            "agents[3] \"c\": command.allowed_params.d: expected a list of values, found a string"
        );
        assert_eq!(
            error(json!({"name": "c", "type": "command"})),
            "agents[3] \"c\": command: missing: a command agent needs command.template"
        );
    }
}
