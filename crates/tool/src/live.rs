//! The registry of a long-running command, replaced whole when the tools change.

use std::sync::Arc;

use tokio::sync::watch;

use crate::Registry;

/// The registry in use now. Each reader takes the current generation as a
/// [`Registry`] clone, so a call in flight keeps its tools (and their
/// workers) alive until it finishes, while the next call sees the
/// replacement. Cheap to clone: clones share the same slot.
#[derive(Clone)]
pub struct LiveRegistry {
    slot: Arc<watch::Sender<Registry>>,
}

impl LiveRegistry {
    pub fn new(registry: Registry) -> Self {
        LiveRegistry {
            slot: Arc::new(watch::Sender::new(registry)),
        }
    }

    /// The generation in use now.
    pub fn current(&self) -> Registry {
        self.slot.borrow().clone()
    }

    /// Makes `registry` the one every later reader gets, and wakes every
    /// [`LiveRegistry::changes`] receiver. The replaced generation lives on
    /// until its last clone is dropped.
    pub fn replace(&self, registry: Registry) {
        self.slot.send_replace(registry);
    }

    /// A receiver that is woken at each replacement made after this call.
    pub fn changes(&self) -> watch::Receiver<Registry> {
        self.slot.subscribe()
    }
}

impl From<Registry> for LiveRegistry {
    fn from(registry: Registry) -> Self {
        LiveRegistry::new(registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RegistryOptions;

    #[tokio::test]
    async fn a_replacement_reaches_readers_and_wakes_receivers() {
        let first = Registry::new(Vec::new(), RegistryOptions::default());
        let live = LiveRegistry::new(first.clone());
        let mut changes = live.changes();
        assert!(live.current().is_same(&first));
        let second = Registry::new(Vec::new(), RegistryOptions::default());
        live.replace(second.clone());
        changes.changed().await.expect("the slot is alive");
        assert!(changes.borrow_and_update().is_same(&second));
        assert!(live.current().is_same(&second));
        // The old generation is still whole for whoever holds it.
        assert!(!first.is_same(&second));
    }
}
