//! Work on the write store, off the async runtime: SQLite commits sync to disk, and a request must
//! not stall the runtime's few threads while one does.

use std::sync::Arc;

use agentrep_store::{Store, StoreError};

use crate::ApiError;

/// Runs `f` on the store on a blocking thread; the error in words.
pub(crate) async fn on_store<T: Send + 'static>(
    store: &Arc<Store>,
    f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, String> {
    let store = store.clone();
    match tokio::task::spawn_blocking(move || f(&store)).await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(e) => Err(format!("the store task failed: {e}")),
    }
}

/// [`on_store`] for a read whose failure the client sees as 501 `store_unavailable`.
pub(crate) async fn read_store<T: Send + 'static>(
    store: &Arc<Store>,
    f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    on_store(store, f).await.map_err(|message| ApiError::NotAvailable { code: "store_unavailable", message })
}
