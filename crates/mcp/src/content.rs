//! A result's content blocks as MCP carries them, both ways: Riverse's
//! [`Content`] as MCP content (image, audio, an embedded resource, or a link
//! to a resource whose bytes the tool did not give), and back.

use riverse_tool::Content;
use rmcp::model::{ContentBlock, Resource, ResourceContents};

/// `block` as MCP content.
pub(crate) fn to_mcp(block: Content) -> ContentBlock {
    match block {
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        Content::Resource {
            uri,
            text,
            blob,
            mime_type,
        } => {
            let contents = match (text, blob) {
                (Some(text), _) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    meta: None,
                },
                (None, Some(blob)) => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    meta: None,
                },
                // Nothing to embed: MCP names a resource by a link, whose
                // name is required; the URI's last segment serves.
                (None, None) => {
                    let name = uri
                        .trim_end_matches('/')
                        .rsplit('/')
                        .next()
                        .filter(|name| !name.is_empty())
                        .unwrap_or(&uri)
                        .to_owned();
                    let mut link = Resource::new(uri, name);
                    link.mime_type = mime_type;
                    return ContentBlock::resource_link(link);
                }
            };
            ContentBlock::resource(contents)
        }
    }
}

/// An MCP block as Riverse content; `None` for text, which is read as the
/// result's `data`, and for kinds this version of MCP does not know.
pub(crate) fn from_mcp(block: &ContentBlock) -> Option<Content> {
    match block {
        ContentBlock::Text(_) => None,
        ContentBlock::Image(image) => Some(Content::Image {
            data: image.data.clone(),
            mime_type: image.mime_type.clone(),
        }),
        ContentBlock::Audio(audio) => Some(Content::Audio {
            data: audio.data.clone(),
            mime_type: audio.mime_type.clone(),
        }),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => Some(Content::Resource {
                uri: uri.clone(),
                text: Some(text.clone()),
                blob: None,
                mime_type: mime_type.clone(),
            }),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => Some(Content::Resource {
                uri: uri.clone(),
                text: None,
                blob: Some(blob.clone()),
                mime_type: mime_type.clone(),
            }),
            _ => None,
        },
        ContentBlock::ResourceLink(link) => Some(Content::Resource {
            uri: link.uri.clone(),
            text: None,
            blob: None,
            mime_type: link.mime_type.clone(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn resource(text: Option<&str>, blob: Option<&str>) -> Content {
        Content::Resource {
            uri: "file:///srv/report.pdf".into(),
            text: text.map(str::to_owned),
            blob: blob.map(str::to_owned),
            mime_type: Some("application/pdf".into()),
        }
    }

    #[test]
    fn blocks_are_written_as_mcp_spells_them() {
        let image = Content::image(b"\x89PNG", "image/png");
        assert_eq!(
            json!(to_mcp(image)),
            json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
        );
        assert_eq!(
            json!(to_mcp(resource(None, Some("AAE=")))),
            json!({"type": "resource", "resource": {
                "uri": "file:///srv/report.pdf", "mimeType": "application/pdf", "blob": "AAE="}})
        );
        assert_eq!(
            json!(to_mcp(resource(None, None))),
            json!({"type": "resource_link", "uri": "file:///srv/report.pdf",
                   "name": "report.pdf", "mimeType": "application/pdf"})
        );
    }

    #[test]
    fn every_block_reads_back_as_it_was() {
        let blocks = [
            Content::image(b"\x89PNG", "image/png"),
            Content::Audio {
                data: "UklGRg==".into(),
                mime_type: "audio/wav".into(),
            },
            resource(Some("hello"), None),
            resource(None, Some("AAE=")),
            resource(None, None),
        ];
        for block in blocks {
            assert_eq!(from_mcp(&to_mcp(block.clone())), Some(block));
        }
        assert_eq!(from_mcp(&ContentBlock::text("data")), None);
    }
}
