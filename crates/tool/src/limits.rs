//! The bound every call's output keeps, whichever source runs it.

/// `tools.max_output_bytes`, as every part that runs or reads a call takes it:
/// the registry cuts a result's `data` and `error` past it (with a marker), a
/// Python worker cuts them before sending, and a source reads no reply longer
/// than [`CallLimits::reply_bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    pub max_output_bytes: usize,
    /// The bytes a result's content blocks (images, audio, files) may hold
    /// together; blocks past it are left out, and the result's text says so.
    pub max_content_bytes: usize,
}

impl CallLimits {
    /// The longest reply a host reads for one result of text only: `data`
    /// and `error` of `max_output_bytes` each, every byte escaped into six
    /// (`\u0001`) in the worst case, and 64 KiB for the envelope and a
    /// traceback. Hosts discard a longer reply as it streams by and fail its
    /// call, so a peer's reply never costs more memory than this.
    pub fn reply_bytes(self) -> usize {
        const ENVELOPE: usize = 64 * 1024;
        self.max_output_bytes
            .saturating_mul(12)
            .saturating_add(ENVELOPE)
    }

    /// [`CallLimits::reply_bytes`] for a source whose results may carry
    /// content blocks (a Python worker, an MCP server): plus the blocks as
    /// base64, four characters for three bytes.
    pub fn reply_bytes_with_content(self) -> usize {
        self.reply_bytes()
            .saturating_add(self.max_content_bytes.saturating_mul(4) / 3)
    }
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            max_output_bytes: 64 * 1024,
            max_content_bytes: 16 * 1024 * 1024,
        }
    }
}
