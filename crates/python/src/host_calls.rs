//! Requests a worker makes of the host while one of its tools runs.
//!
//! Riverse's `agent.tools.ToolRegistry` lets a tool list and call the other
//! tools. In a worker it is backed by the host's own registry: the worker asks
//! `riverse/host/tools/list` and `riverse/host/tools/call`, and the call runs
//! like any other, with its deadline, its isolation and every tool source.
//!
//! The pool reaches the registry through a [`HostLink`], set once the registry
//! exists (and again when hot reload puts the same tools in a new registry),
//! holding it weakly: the registry holds the pool's tools, so a strong link
//! would keep both alive forever.
//!
//! What a sandboxed worker asks is answered within its sandbox, so that the
//! host is no way out of it: a nested call runs only a tool whose own
//! sandbox the caller's holds ([`Sandbox::holds`]), or one the caller's
//! `calls` names; a sample is asked only where the caller's sandbox allows
//! it ([`Sandbox::allows_sample`]).

use std::sync::Arc;

use parking_lot::RwLock;

use riverse_process::sandbox::Sandbox;
use riverse_protocol::{ErrorObject, error_codes, methods};
use riverse_tool::{CallFailure, Registry, ToolResult, WeakRegistry};
use serde_json::{Value, json};

/// The host's registry, once it is built, as the workers of one pool reach it.
#[derive(Clone, Default)]
pub struct HostLink {
    registry: Arc<RwLock<WeakRegistry>>,
    /// The sandbox of the pool whose workers ask; `None` for an unsandboxed
    /// pool, whose tools can do whatever the host could for them.
    caller: Option<Arc<Sandbox>>,
}

impl std::fmt::Debug for HostLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = self.registry.read().upgrade().is_some();
        let caller = self.caller.as_ref().map(|sandbox| sandbox.label.as_str());
        f.debug_struct("HostLink")
            .field("set", &set)
            .field("caller", &caller)
            .finish()
    }
}

impl HostLink {
    /// Points the link at `registry`, the latest that holds these tools.
    pub fn set(&self, registry: &Registry) {
        *self.registry.write() = registry.downgrade();
    }

    /// The same link, for workers confined to `sandbox`.
    pub fn for_caller(&self, sandbox: Option<Sandbox>) -> HostLink {
        HostLink {
            registry: self.registry.clone(),
            caller: sandbox.map(Arc::new),
        }
    }

    /// Why the caller's sandbox keeps it from asking `method` at all, if it
    /// does (the requests that reach beyond the worker but not through a
    /// tool: a sample of the LLM).
    pub(crate) fn refusal(&self, method: &str) -> Option<ErrorObject> {
        let caller = self.caller.as_deref()?;
        (method == methods::HOST_SAMPLE && !caller.allows_sample()).then(|| ErrorObject {
            code: error_codes::INVALID_REQUEST,
            message: format!(
                "sandbox: self.sample is outside {label}, whose network is off; set {label}.sample: true to allow it",
                label = caller.label
            ),
            data: None,
        })
    }

    /// Why the caller may not run `name` through the host, if it may not.
    fn nested_refusal(&self, registry: &Registry, name: &str) -> Option<CallFailure> {
        let caller = self.caller.as_deref()?;
        if caller.calls.iter().any(|allowed| allowed == name) {
            return None;
        }
        let tool = registry.get(name)?;
        let why = match tool.sandbox() {
            Some(target) => caller.holds(target).err()?,
            None => "it runs in no sandbox".to_owned(),
        };
        Some(CallFailure::SandboxedCaller {
            tool: name.to_owned(),
            sandbox: caller.label.clone(),
            why,
        })
    }

    fn registry(&self) -> Result<Registry, ErrorObject> {
        self.registry.read().upgrade().ok_or_else(|| ErrorObject {
            code: error_codes::INTERNAL_ERROR,
            message: "the host's tool registry is not available".into(),
            data: None,
        })
    }

    /// Answers one request from a worker.
    pub(crate) async fn answer(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        match method {
            methods::HOST_TOOLS_LIST => {
                let registry = self.registry()?;
                let tools: Vec<Value> = registry.available_manifests().map(|m| json!(m)).collect();
                Ok(json!({ "tools": tools }))
            }
            methods::HOST_TOOLS_CALL => {
                let params = params.unwrap_or_default();
                let name = params["name"].as_str().unwrap_or_default().to_owned();
                let arguments = match params.get("arguments") {
                    Some(Value::Object(arguments)) => arguments.clone(),
                    _ => Default::default(),
                };
                let registry = self.registry()?;
                if let Some(refused) = self.nested_refusal(&registry, &name) {
                    return Ok(json!(ToolResult::from(refused)));
                }
                let result = match registry.call(&name, arguments).await {
                    Ok(result) => result,
                    Err(err) => ToolResult::from(CallFailure::from(err)),
                };
                Ok(json!(result))
            }
            other => Err(ErrorObject {
                code: error_codes::METHOD_NOT_FOUND,
                message: format!("method not found: {other}"),
                data: None,
            }),
        }
    }
}
