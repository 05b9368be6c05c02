use std::path::PathBuf;

/// Everything that can stop the embedded model from loading or running.
///
/// A wrong routing decision is not an error: [`crate::Route::None`] is a valid
/// answer. `Err` means the model itself could not be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The model file the options name is not there.
    #[error("embedded model {}: not found", path.display())]
    ModelNotFound { path: PathBuf },

    /// There is no cache directory to keep the default model in.
    #[error("embedded model: no cache directory to keep it in (no home directory)")]
    NoCacheDir,

    /// The model could not be fetched into the cache; `hint` says what to run
    /// by hand.
    #[error("can't fetch the embedded model: {reason}\n{hint}")]
    FetchFailed { reason: String, hint: String },

    /// A cached or fetched file does not have the expected contents.
    #[error(
        "embedded model {}: sha-256 {actual} does not match the expected {expected}",
        path.display()
    )]
    ChecksumMismatch {
        path: PathBuf,
        expected: String,
        actual: String,
    },

    /// The GGUF file is unreadable or lacks what a llama model needs.
    #[error("embedded model {}: {reason}", path.display())]
    InvalidModel { path: PathBuf, reason: String },

    /// The tokenizer could not be built from the GGUF metadata, or failed on
    /// some text.
    #[error("embedded model tokenizer: {0}")]
    Tokenizer(String),

    /// A tensor operation failed while running the model.
    #[error("embedded model inference failed: {0}")]
    Inference(#[from] candle_core::Error),

    /// The prompt does not fit the model's context window.
    #[error("embedded model: prompt of {tokens} tokens exceeds the context of {limit}")]
    ContextOverflow { tokens: usize, limit: usize },

    /// The caller stopped the work (see [`crate::ModelJob`]) before it
    /// ended: it went away or ran out of time.
    #[error("embedded model: the work was cancelled")]
    Cancelled,

    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Whether the error is about the model file itself (finding, fetching,
    /// checking or reading it), which another file can fix, rather than
    /// about running it.
    pub fn is_about_the_model_file(&self) -> bool {
        matches!(
            self,
            Error::ModelNotFound { .. }
                | Error::NoCacheDir
                | Error::FetchFailed { .. }
                | Error::ChecksumMismatch { .. }
                | Error::InvalidModel { .. }
        )
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
