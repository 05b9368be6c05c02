//! Prefilled prompts saved on disk, so a new process skips prefilling the
//! routing prompts of a tool set it has seen before.
//!
//! Prefilling a tool set's prompts takes seconds on two cores; reading the
//! saved keys and values back takes milliseconds. An entry is keyed by the
//! model file, the prompt text and this format's version, so any change to
//! any of them simply misses.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use sha2::{Digest, Sha256};

use crate::inference::engine::State;
use crate::inference::model::KvCache;
use crate::model_file::location::{hex, size_and_time};
use crate::tuning::KEPT_PROMPT_FILES;

/// Bumped whenever the saved layout or the prompts' meaning changes.
const FORMAT: &str = "riverse-prompt-cache-1";

#[derive(Debug, Clone)]
pub(crate) struct PromptCache {
    dir: PathBuf,
    /// Identifies the model file: path, size and modification time.
    model: String,
}

impl PromptCache {
    pub fn new(dir: PathBuf, model_path: &Path) -> Self {
        let model = fs::metadata(model_path)
            .map(|metadata| format!("{} {}", model_path.display(), size_and_time(&metadata)))
            .unwrap_or_else(|_| model_path.display().to_string());
        PromptCache { dir, model }
    }

    fn entry_path(&self, key: &str) -> PathBuf {
        let mut hasher = Sha256::new();
        for part in [FORMAT, &self.model, key] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        self.dir
            .join(format!("{}.safetensors", &hex(&hasher.finalize())[..32]))
    }

    /// The state saved under `key` and the extra numbers saved with it.
    /// Any problem reading it is a miss.
    pub fn load(&self, key: &str, layers: usize) -> Option<(State, Vec<f32>)> {
        let path = self.entry_path(key);
        if !path.is_file() {
            return None;
        }
        let loaded = match candle_core::safetensors::load(&path, &Device::Cpu) {
            Ok(loaded) => loaded,
            Err(err) => {
                tracing::debug!("prompt cache {}: {err}", path.display());
                return None;
            }
        };
        let mut tensors: HashMap<String, Tensor> = loaded;
        let next = tensors.remove("next")?.to_vec1::<f32>().ok()?;
        let extra = tensors.remove("extra")?.to_vec1::<f32>().ok()?;
        let cache = KvCache::from_tensors(layers, tensors)?;
        Some((State { cache, next }, extra))
    }

    /// Saves `state` and `extra` under `key`. Failures only cost the next
    /// process a prefill, so they are logged, not returned.
    pub fn save(&self, key: &str, state: &State, extra: &[f32]) {
        if let Err(err) = self.try_save(key, state, extra) {
            tracing::debug!("prompt cache {}: {err}", self.dir.display());
        }
    }

    fn try_save(&self, key: &str, state: &State, extra: &[f32]) -> candle_core::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let mut tensors: HashMap<String, Tensor> = state.cache.to_tensors().into_iter().collect();
        tensors.insert(
            "next".to_owned(),
            Tensor::new(state.next.as_slice(), &Device::Cpu)?,
        );
        tensors.insert("extra".to_owned(), Tensor::new(extra, &Device::Cpu)?);
        let path = self.entry_path(key);
        // Written aside and renamed, so a reader never sees half a file.
        let partial = path.with_extension(format!("partial-{}", std::process::id()));
        candle_core::safetensors::save(&tensors, &partial)?;
        fs::rename(&partial, &path)?;
        self.prune();
        Ok(())
    }

    /// Removes the least recently written entries beyond [`KEPT_PROMPT_FILES`].
    fn prune(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "safetensors"))
            .filter_map(|path| Some((fs::metadata(&path).ok()?.modified().ok()?, path)))
            .collect();
        if files.len() <= KEPT_PROMPT_FILES {
            return;
        }
        files.sort();
        for (_, path) in &files[..files.len() - KEPT_PROMPT_FILES] {
            let _ = fs::remove_file(path);
        }
    }
}
