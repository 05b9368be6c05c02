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

use std::sync::Arc;

use parking_lot::RwLock;

use riverse_protocol::{ErrorObject, error_codes, methods};
use riverse_tool::{FailureKind, Registry, ToolResult, WeakRegistry};
use serde_json::{Value, json};

/// The host's registry, once it is built.
#[derive(Clone, Default)]
pub struct HostLink {
    registry: Arc<RwLock<WeakRegistry>>,
}

impl std::fmt::Debug for HostLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = self.registry.read().upgrade().is_some();
        f.debug_struct("HostLink").field("set", &set).finish()
    }
}

impl HostLink {
    /// Points the link at `registry`, the latest that holds these tools.
    pub fn set(&self, registry: &Registry) {
        *self.registry.write() = registry.downgrade();
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
                let result = match registry.call(&name, arguments).await {
                    Ok(result) => result,
                    Err(err) => ToolResult::failed(FailureKind::Unavailable, err.to_string()),
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
