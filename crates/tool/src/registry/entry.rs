//! What the sources found, and what the registry made of each: [`Found`]
//! in, an [`Entry`] (a row of `riverse tools`) out.

use std::sync::Arc;

use serde::Serialize;

use crate::Tool;
use crate::manifest::{ToolManifest, ToolSource};

/// What a tool source yields: a tool, or a failure to produce one. Clones
/// share the tool.
#[derive(Clone)]
pub enum Found {
    Tool {
        tool: Arc<dyn Tool>,
        /// False when the tool's own availability check said no.
        available: bool,
    },
    Failure {
        source: ToolSource,
        /// The tool's name, when it got far enough to have one.
        name: Option<String>,
        error: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Available,
    Unavailable,
    Error,
    Conflict,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Unavailable => "unavailable",
            Status::Error => "error",
            Status::Conflict => "conflict",
        }
    }
}

/// One row of `riverse tools`: a tool, or a file or server that failed to yield one.
#[derive(Clone)]
pub enum Entry {
    /// Callable.
    Available {
        manifest: ToolManifest,
        source: ToolSource,
        tool: Arc<dyn Tool>,
    },
    /// A good tool that is switched off: by its own `is_available()`, or by
    /// the caller's [`ToolPolicy`](crate::ToolPolicy).
    Unavailable {
        manifest: ToolManifest,
        source: ToolSource,
        reason: String,
    },
    /// A good tool whose name an earlier tool took.
    Conflict {
        manifest: ToolManifest,
        source: ToolSource,
        reason: String,
    },
    /// A file or server that yielded no usable tool; `manifest` when it got
    /// as far as having one (an invalid name).
    Error {
        name: Option<String>,
        manifest: Option<ToolManifest>,
        source: ToolSource,
        error: String,
    },
}

impl Entry {
    pub fn name(&self) -> Option<&str> {
        match self {
            Entry::Error { name, .. } => name.as_deref(),
            other => other.manifest().map(|manifest| manifest.name.as_str()),
        }
    }

    pub fn manifest(&self) -> Option<&ToolManifest> {
        match self {
            Entry::Available { manifest, .. }
            | Entry::Unavailable { manifest, .. }
            | Entry::Conflict { manifest, .. } => Some(manifest),
            Entry::Error { manifest, .. } => manifest.as_ref(),
        }
    }

    pub fn source(&self) -> &ToolSource {
        match self {
            Entry::Available { source, .. }
            | Entry::Unavailable { source, .. }
            | Entry::Conflict { source, .. }
            | Entry::Error { source, .. } => source,
        }
    }

    pub fn status(&self) -> Status {
        match self {
            Entry::Available { .. } => Status::Available,
            Entry::Unavailable { .. } => Status::Unavailable,
            Entry::Conflict { .. } => Status::Conflict,
            Entry::Error { .. } => Status::Error,
        }
    }

    /// Why the entry is not available.
    pub fn error(&self) -> Option<&str> {
        match self {
            Entry::Available { .. } => None,
            Entry::Unavailable { reason, .. } | Entry::Conflict { reason, .. } => Some(reason),
            Entry::Error { error, .. } => Some(error),
        }
    }
}

/// As `riverse tools --json` and `GET /v1/tools` show it: every field
/// present, empty where the entry has no manifest, but for `input_schema`,
/// `output_schema` and `annotations`, there where the tool declares them.
impl Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let manifest = self.manifest();
        let empty = ToolManifest::default();
        let shown = manifest.unwrap_or(&empty);
        let mut row = serializer.serialize_struct("Entry", 12)?;
        row.serialize_field("name", &self.name())?;
        row.serialize_field("description", &manifest.map(|m| &m.description))?;
        row.serialize_field("parameters", &shown.parameters)?;
        row.serialize_field("examples", &shown.examples)?;
        row.serialize_field("parameter_types", &shown.parameter_types)?;
        if let Some(schema) = &shown.input_schema {
            row.serialize_field("input_schema", schema)?;
        }
        if let Some(schema) = &shown.output_schema {
            row.serialize_field("output_schema", schema)?;
        }
        if let Some(annotations) = &shown.annotations {
            row.serialize_field("annotations", annotations)?;
        }
        row.serialize_field("source", self.source())?;
        row.serialize_field("status", &self.status())?;
        row.serialize_field("error", &self.error())?;
        row.serialize_field("warnings", &shown.type_warnings())?;
        row.end()
    }
}

/// What a source's own "no" means, in its own terms.
pub(super) fn unavailable_reason(source: &ToolSource) -> String {
    match source {
        ToolSource::Agent { file } => format!("enabled: false in {}", file.display()),
        _ => "is_available() returned False".into(),
    }
}
