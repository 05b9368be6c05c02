//! What a result carries besides its text: images, audio and resources
//! (`ToolResult(..., content=[Image, Audio, Resource])` in a Python tool).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// One block of a result's content. Binary data is held as base64 text, as
/// every wire Riverse speaks (the worker protocol, MCP, the store, the page)
/// carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    Image {
        data: String,
        mime_type: String,
    },
    Audio {
        data: String,
        mime_type: String,
    },
    /// A file or document by URI, with its text or its bytes when the tool
    /// gave them.
    Resource {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl Content {
    /// An image from its bytes.
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// `image`, `audio` or `resource`.
    pub fn kind(&self) -> &'static str {
        match self {
            Content::Image { .. } => "image",
            Content::Audio { .. } => "audio",
            Content::Resource { .. } => "resource",
        }
    }

    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Content::Image { mime_type, .. } | Content::Audio { mime_type, .. } => Some(mime_type),
            Content::Resource { mime_type, .. } => mime_type.as_deref(),
        }
    }

    /// The block's bytes decoded (a text resource's text as UTF-8); `None`
    /// when its base64 does not decode, or a resource holds only its URI.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match self {
            Content::Image { data, .. } | Content::Audio { data, .. } => STANDARD.decode(data).ok(),
            Content::Resource {
                blob: Some(blob), ..
            } => STANDARD.decode(blob).ok(),
            Content::Resource {
                text: Some(text), ..
            } => Some(text.clone().into_bytes()),
            Content::Resource { .. } => None,
        }
    }

    /// How many bytes the block holds, from its base64 length (no decoding);
    /// a resource's text and blob both count.
    pub fn size(&self) -> usize {
        let decoded = |base64: &str| base64.trim_end_matches('=').len() * 3 / 4;
        match self {
            Content::Image { data, .. } | Content::Audio { data, .. } => decoded(data),
            Content::Resource { text, blob, .. } => {
                blob.as_deref().map_or(0, decoded) + text.as_deref().map_or(0, str::len)
            }
        }
    }

    /// A text resource's text: what an LLM can read of a block as it is.
    pub fn text(&self) -> Option<&str> {
        match self {
            Content::Resource {
                text: Some(text), ..
            } => Some(text),
            _ => None,
        }
    }

    /// The line an LLM that cannot see the block reads in its place:
    /// `[image image/png, 12.3 KB]`, `[resource file:///r.pdf application/pdf, 2.0 MB]`.
    pub fn summary(&self) -> String {
        let mut line = format!("[{}", self.kind());
        if let Content::Resource { uri, .. } = self {
            line.push(' ');
            line.push_str(uri);
        }
        if let Some(mime_type) = self.mime_type().filter(|mime| !mime.is_empty()) {
            line.push(' ');
            line.push_str(mime_type);
        }
        if self.size() > 0 {
            line.push_str(", ");
            line.push_str(&human_size(self.size()));
        }
        line.push(']');
        line
    }

    /// Whether `line` is a block's [`Content::summary`]: where the block
    /// itself is shown, the line need not be repeated.
    pub fn is_summary(line: &str) -> bool {
        let Some(inner) = line
            .trim()
            .strip_prefix('[')
            .and_then(|line| line.strip_suffix(']'))
        else {
            return false;
        };
        let kind = inner.split([' ', ',']).next().unwrap_or_default();
        matches!(kind, "image" | "audio" | "resource") && !inner.contains(['[', ']', '\n'])
    }

    /// A file name for the block when it is saved, from its URI or its kind
    /// and type: `report.pdf`, `image-1.png`.
    pub fn file_name(&self, index: usize) -> String {
        if let Content::Resource { uri, .. } = self {
            let last = uri.rsplit('/').next().unwrap_or_default();
            let safe: String = last
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
                .collect();
            if !safe.is_empty() && !safe.starts_with('.') {
                return format!("{index}-{safe}");
            }
        }
        let extension = self
            .mime_type()
            .and_then(|mime| mime.split('/').nth(1))
            .map(|sub| sub.split(['+', ';']).next().unwrap_or(sub))
            .filter(|sub| !sub.is_empty() && sub.chars().all(|c| c.is_ascii_alphanumeric()))
            .unwrap_or("bin");
        format!("{}-{index}.{extension}", self.kind())
    }
}

/// `512 B`, `12.3 KB`, `2.0 MB`, `1.1 GB`.
pub fn human_size(bytes: usize) -> String {
    const UNITS: [&str; 3] = ["KB", "MB", "GB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_block_is_written_with_its_type() {
        let image = Content::image(b"\x89PNG", "image/png");
        assert_eq!(
            json!(image),
            json!({"type": "image", "data": "iVBORw==", "mime_type": "image/png"})
        );
        assert_eq!(image.bytes().unwrap(), b"\x89PNG");
        assert_eq!(image.size(), 4);
        let read: Content = serde_json::from_value(
            json!({"type": "resource", "uri": "file:///a.txt", "text": "hi"}),
        )
        .unwrap();
        assert_eq!(read.text(), Some("hi"));
    }

    #[test]
    fn a_summary_names_kind_type_and_size() {
        let image = Content::image(&vec![0; 12_345], "image/png");
        assert_eq!(image.summary(), "[image image/png, 12.3 KB]");
        assert!(Content::is_summary(&image.summary()));
        assert!(!Content::is_summary("[imagine this]"));
        assert!(!Content::is_summary("image image/png, 12.3 KB"));
        let pdf = Content::Resource {
            uri: "file:///srv/report.pdf".into(),
            text: None,
            blob: Some(STANDARD.encode(vec![1; 2_000_000])),
            mime_type: Some("application/pdf".into()),
        };
        assert_eq!(
            pdf.summary(),
            "[resource file:///srv/report.pdf application/pdf, 2.0 MB]"
        );
        assert_eq!(pdf.file_name(2), "2-report.pdf");
        assert_eq!(image.file_name(1), "image-1.png");
    }

    #[test]
    fn a_file_name_never_leaves_the_folder() {
        let sneaky = Content::Resource {
            uri: "file:///../../etc/..".into(),
            text: Some("x".into()),
            blob: None,
            mime_type: Some("text/plain; charset=utf-8".into()),
        };
        assert_eq!(sneaky.file_name(0), "resource-0.plain");
    }
}
