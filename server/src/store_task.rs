//! Work on the write store, off the async runtime: SQLite commits sync to disk, and a request must
//! not stall the runtime's few threads while one does.
//!
//! A failure stays typed ([`StoreFailure`]) up to the response, where it becomes words a client
//! can act on and nothing of the server's internals: a store error's text names the store's file,
//! so the detail goes to the log only.

use std::sync::Arc;

use agentrep_store::{Store, StoreError};
use tracing::warn;

use crate::ApiError;

/// A store operation that failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreFailure {
    /// The store refused it (its text names the file).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The blocking task running it panicked or was cancelled.
    #[error("the store task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

impl StoreFailure {
    /// Logs the detail and returns what a client may read: that `what` could not be used just
    /// now, and that nothing was stored.
    pub(crate) fn public(&self, what: &str) -> String {
        warn!(error = %self, "{what} failed");
        format!("{what} could not be used just now; nothing was stored, retry later")
    }
}

/// Runs `f` on the store on a blocking thread.
pub(crate) async fn on_store<T: Send + 'static>(
    store: &Arc<Store>,
    f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreFailure> {
    let store = store.clone();
    Ok(tokio::task::spawn_blocking(move || f(&store)).await??)
}

/// [`on_store`] for a read whose failure the client sees as 501 `store_unavailable`.
pub(crate) async fn read_store<T: Send + 'static>(
    store: &Arc<Store>,
    f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    on_store(store, f)
        .await
        .map_err(|e| ApiError::NotAvailable { code: "store_unavailable", message: e.public("the write store") })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a client reads of a store failure names no file, whichever family of routes it
    /// reaches (the reads, the writes, the payment ledger).
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_store_failure_reaches_the_client_without_the_stores_path() {
        let dir = std::env::temp_dir().join(format!("agentrep-store-task-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Arc::new(Store::open(&dir.join("agentrep-store.sqlite")).unwrap());
        fn failing(_: &Store) -> Result<(), StoreError> {
            let path = "/srv/agentrep/private/agentrep-store.sqlite".to_owned();
            Err(StoreError::Corrupt { path, message: "a row this build did not write".into() })
        }
        let read = read_store(&store, failing).await.unwrap_err();
        let written = on_store(&store, failing).await.map_err(|e| ApiError::store(e.public("the write store")));
        let ledger =
            on_store(&store, failing).await.map_err(|e| ApiError::PaymentsUnavailable(e.public("the payment ledger")));
        for error in [read, written.unwrap_err(), ledger.unwrap_err()] {
            let text = format!("{error} {error:?}");
            assert!(!text.contains("/srv/agentrep"), "{text}");
            assert!(text.contains("retry later"), "{text}");
            assert!(error.status().is_server_error(), "{text}");
        }
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
