//! Hooks (`agent/hooks/*.py`) run in a supervised pool of their own: its
//! workers import the hook files instead of the tools
//! (`WorkerInit::hooks`) and serve each `Hook` subclass as a tool named
//! `FILE:CLASS` that answers with the hook's decision. Every hook call has
//! the `hooks.timeout` deadline, after which its worker is replaced.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use riverse_protocol::{FileFate, FileReport, WorkerError};
use riverse_tool::{
    AfterCall, BeforeCall, CallContext, CallHooks, FailureKind, HookInfo, OnHookError, Params,
    ToolResult, result_json,
};
use serde::Deserialize;
use serde_json::Value;

use crate::{PythonOptions, WorkerPool, resolve_interpreter};

/// What hooks need beside a pool's options, whose `tools_dir` is the hooks
/// directory.
#[derive(Debug, Clone)]
pub struct HookOptions {
    pub python: PythonOptions,
    /// `hooks.timeout`: the deadline of one hook's answer.
    pub timeout: Duration,
    /// `hooks.on_error`.
    pub on_error: OnHookError,
}

/// What the hooks directory held: the hooks to run (`None` when it holds
/// no hook file, so calls pay nothing), every file's fate, and why the
/// hooks could not be read at all, if they could not.
#[derive(Default)]
pub struct FoundHooks {
    pub hooks: Option<Arc<PythonHooks>>,
    pub files: Vec<FileReport>,
    pub error: Option<String>,
}

/// The hooks of one generation, over their pool.
pub struct PythonHooks {
    pool: Option<WorkerPool>,
    hooks: Vec<HookInfo>,
    /// Each file that failed to load, by the name its hook entry has, with
    /// why: every call is that hook's failure (see `hooks.on_error`).
    broken: Vec<(String, String)>,
    timeout: Duration,
    on_error: OnHookError,
}

/// The hook files of `dir`, as the worker reads them: `*.py` not starting
/// with `_`, in name order.
pub fn hook_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".py") && !name.starts_with('_'))
        .collect();
    files.sort();
    files
}

/// Imports the hook files in a hook pool. No file, no pool: the registry
/// then holds no hooks.
pub async fn python_hooks(options: HookOptions) -> FoundHooks {
    let dir = options.python.project_dir.join(&options.python.tools_dir);
    let files = hook_files(&dir);
    if files.is_empty() {
        return FoundHooks::default();
    }
    let python = &options.python;
    let failed = |error: String| {
        // Unreadable hooks are one failing hook, so that calls are refused
        // (or let through) as `hooks.on_error` says.
        let hooks = PythonHooks {
            pool: None,
            hooks: vec![HookInfo {
                name: "hooks".into(),
                before: true,
                after: false,
            }],
            broken: vec![("hooks".into(), error.clone())],
            timeout: options.timeout,
            on_error: options.on_error,
        };
        FoundHooks {
            hooks: Some(Arc::new(hooks)),
            files: Vec::new(),
            error: Some(error),
        }
    };
    let interpreter = match resolve_interpreter(python.interpreter.as_deref(), &python.project_dir)
    {
        Ok(interpreter) => interpreter,
        Err(err) => return failed(err.to_string()),
    };
    let pool = WorkerPool::for_hooks(python.clone(), interpreter);
    let discovery = match pool.discover().await {
        Ok(discovery) => discovery,
        Err(err) => return failed(err.to_string()),
    };
    if python.prestart {
        pool.prestart();
    }
    let mut hooks = Vec::new();
    let mut broken = Vec::new();
    for report in &discovery.files {
        if report.fate == FileFate::Failed {
            let error = report
                .error
                .clone()
                .map(|error| error.located())
                .unwrap_or_else(|| "failed".into());
            broken.push((report.file.clone(), error));
            hooks.push(HookInfo {
                name: report.file.clone(),
                before: true,
                after: false,
            });
        }
        for class in &report.classes {
            let name = format!("{}:{}", report.file, class.class_name);
            match (&class.error, &class.manifest) {
                (Some(error), _) => {
                    broken.push((name.clone(), error.clone().located()));
                    hooks.push(HookInfo {
                        name,
                        before: true,
                        after: false,
                    });
                }
                (None, Some(manifest)) => hooks.push(HookInfo {
                    name,
                    before: manifest.get("before") == Some(&Value::Bool(true)),
                    after: manifest.get("after") == Some(&Value::Bool(true)),
                }),
                (None, None) => {}
            }
        }
    }
    let hooks = PythonHooks {
        pool: Some(pool),
        hooks,
        broken,
        timeout: options.timeout,
        on_error: options.on_error,
    };
    FoundHooks {
        hooks: Some(Arc::new(hooks)),
        files: discovery.files,
        error: None,
    }
}

impl PythonHooks {
    /// Runs `hook`'s `phase` on the pool: its decision, or why it failed.
    async fn ask(&self, hook: &str, arguments: Params) -> Result<Decision, String> {
        if let Some((_, error)) = self.broken.iter().find(|(name, _)| name == hook) {
            return Err(format!("it could not be loaded: {error}"));
        }
        let Some(pool) = &self.pool else {
            return Err("no hook worker".into());
        };
        let result = pool
            .call(hook, arguments, self.timeout, &CallContext::none())
            .await;
        if !result.success {
            return Err(match result.failure {
                Some(FailureKind::Timeout) => format!(
                    "it did not answer within hooks.timeout ({})",
                    crate::seconds(self.timeout)
                ),
                _ => result.error,
            });
        }
        let decision: Decision = serde_json::from_str(&result.data)
            .map_err(|err| format!("its answer can't be read: {err}"))?;
        if decision.decision.as_deref() == Some("error") {
            return Err(decision.reason().unwrap_or("it failed").to_owned());
        }
        Ok(decision)
    }
}

/// A hook's answer, as the worker writes it (`hooks.py`).
#[derive(Deserialize)]
struct Decision {
    decision: Option<String>,
    reason: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
}

impl Decision {
    fn reason(&self) -> Option<&str> {
        self.reason.as_ref().and_then(Value::as_str)
    }

    fn reason_text(&self) -> String {
        self.reason().unwrap_or_default().to_owned()
    }

    fn unknown(&self) -> String {
        format!("an unknown decision {:?}", self.decision.as_deref())
    }
}

/// A hook's arguments: the phase and the call (the result is added after
/// it).
fn arguments(phase: &str, call: &Value) -> Params {
    let mut arguments = Params::new();
    arguments.insert("phase".into(), Value::from(phase));
    arguments.insert("call".into(), call.clone());
    arguments
}

#[async_trait::async_trait]
impl CallHooks for PythonHooks {
    fn hooks(&self) -> &[HookInfo] {
        &self.hooks
    }

    fn on_error(&self) -> OnHookError {
        self.on_error
    }

    async fn before(&self, hook: &str, call: &Value) -> Result<BeforeCall, String> {
        let decision = self.ask(hook, arguments("before", call)).await?;
        match decision.decision.as_deref() {
            Some("go") => Ok(BeforeCall::Go),
            Some("deny") => Ok(BeforeCall::Deny(decision.reason_text())),
            Some("ask") => Ok(BeforeCall::Ask(decision.reason_text())),
            Some("rewrite") => match decision.params {
                Some(Value::Object(params)) => Ok(BeforeCall::Rewrite(params)),
                _ => Err("Rewrite(params) needs a dict of arguments".into()),
            },
            _ => Err(decision.unknown()),
        }
    }

    async fn after(
        &self,
        hook: &str,
        call: &Value,
        result: &ToolResult,
    ) -> Result<AfterCall, String> {
        let mut arguments = arguments("after", call);
        arguments.insert("result".into(), result_json(result));
        let decision = self.ask(hook, arguments).await?;
        match decision.decision.as_deref() {
            Some("keep") => Ok(AfterCall::Keep),
            Some("replace") => {
                let given = decision.result.unwrap_or_default();
                let success = given.get("success") == Some(&Value::Bool(true));
                let text = |key: &str| {
                    given
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                let mut replaced = if success {
                    ToolResult::ok(text("data"))
                } else {
                    ToolResult::tool_error(text("error"))
                };
                replaced.structured = given.get("structured").cloned();
                Ok(AfterCall::Replace(Box::new(replaced)))
            }
            _ => Err(decision.unknown()),
        }
    }
}
