//! The registry: every tool the agent may call, and every failure to get one.

mod approve;
mod call;
mod checks;
mod entry;
mod hooked;
mod options;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::Tool;
use crate::approval::ApprovalPolicy;
use crate::limits::CallLimits;
use crate::manifest::ToolManifest;
use crate::name::is_valid_name;
use crate::typed::TypedSchemas;
pub use call::CallError;
use entry::unavailable_reason;
pub use entry::{Entry, Found, Status};
pub use options::{RegistryOptions, ToolPolicy};

/// The tools of one generation. Cheap to clone: clones share the tools.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Tables>,
}

/// A registry reached without keeping it alive: what a source hands its tools
/// so they can call other tools (Riverse's `ToolRegistry` inside a Python tool)
/// without a cycle between the registry and the source.
#[derive(Clone, Default)]
pub struct WeakRegistry {
    inner: std::sync::Weak<Tables>,
}

impl WeakRegistry {
    pub fn upgrade(&self) -> Option<Registry> {
        self.inner.upgrade().map(|inner| Registry { inner })
    }

    /// Whether this reaches `registry`'s very generation.
    pub fn is_of(&self, registry: &Registry) -> bool {
        std::ptr::eq(self.inner.as_ptr(), Arc::as_ptr(&registry.inner))
    }
}

struct Tables {
    entries: Vec<Entry>,
    /// Name to index in `entries`, for available tools only.
    available: HashMap<String, usize>,
    /// The compiled schemas of the available tools that declare one.
    typed: HashMap<String, TypedSchemas>,
    options: RegistryOptions,
}

impl Registry {
    /// Builds the registry from what the sources found, in order: for a name
    /// claimed twice, the first available tool wins.
    pub fn new(found: Vec<Found>, options: RegistryOptions) -> Self {
        let mut tables = Tables {
            entries: Vec::with_capacity(found.len()),
            available: HashMap::new(),
            typed: HashMap::new(),
            options,
        };
        for item in found {
            let entry = tables.admit(item);
            let entry = tables.compile_schemas(entry);
            if let Entry::Available { manifest, .. } = &entry {
                tables
                    .available
                    .insert(manifest.name.clone(), tables.entries.len());
            }
            tables.entries.push(entry);
        }
        Registry {
            inner: Arc::new(tables),
        }
    }

    /// Whether `other` is this very generation (a clone of it), not merely
    /// one with the same tools.
    pub fn is_same(&self, other: &Registry) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    pub fn downgrade(&self) -> WeakRegistry {
        WeakRegistry {
            inner: Arc::downgrade(&self.inner),
        }
    }
}

impl Tables {
    fn admit(&self, found: Found) -> Entry {
        let (tool, available) = match found {
            Found::Failure {
                source,
                name,
                error,
            } => {
                return Entry::Error {
                    name,
                    manifest: None,
                    source,
                    error,
                };
            }
            Found::Tool { tool, available } => (tool, available),
        };
        let manifest = tool.manifest().clone();
        let source = tool.source().clone();
        let name = manifest.name.clone();
        if !is_valid_name(&name) {
            return Entry::Error {
                name: Some(name.clone()),
                manifest: Some(manifest),
                source,
                error: format!(
                    "invalid tool name {name:?}: names must match ^[A-Za-z0-9_-]{{1,64}}$"
                ),
            };
        }
        let unavailable = |reason: String| Entry::Unavailable {
            manifest: manifest.clone(),
            source: source.clone(),
            reason,
        };
        if let Some(reason) = self.policy(&name).disabled.clone() {
            return unavailable(reason);
        }
        if !available {
            return unavailable(unavailable_reason(&source));
        }
        if let Some(&winner) = self.available.get(&name) {
            return Entry::Conflict {
                reason: format!(
                    "name \"{name}\" is already taken by {}",
                    self.entries[winner].source()
                ),
                manifest,
                source,
            };
        }
        Entry::Available {
            manifest,
            source,
            tool,
        }
    }

    fn policy(&self, name: &str) -> &ToolPolicy {
        static NONE: std::sync::LazyLock<ToolPolicy> =
            std::sync::LazyLock::new(ToolPolicy::default);
        self.options.policies.get(name).unwrap_or(&NONE)
    }
}

impl Registry {
    /// Every entry, in source order.
    pub fn entries(&self) -> &[Entry] {
        &self.inner.entries
    }

    /// The manifests of the tools that may be called, in source order.
    pub fn available_manifests(&self) -> impl Iterator<Item = &ToolManifest> {
        self.inner.entries.iter().filter_map(|entry| match entry {
            Entry::Available { manifest, .. } => Some(manifest),
            _ => None,
        })
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        match &self.inner.entries[*self.inner.available.get(name)?] {
            Entry::Available { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// Whether calls of `name` run, ask first, or are refused.
    pub fn approval(&self, name: &str) -> &ApprovalPolicy {
        &self.inner.policy(name).approval
    }

    /// The bounds every call keeps.
    pub fn limits(&self) -> CallLimits {
        self.inner.options.limits
    }

    /// The deadline of one call of `name`.
    pub fn timeout(&self, name: &str) -> Duration {
        self.inner
            .policy(name)
            .timeout
            .unwrap_or(self.inner.options.default_timeout)
    }
}

#[cfg(test)]
mod tests;
pub mod trace;
