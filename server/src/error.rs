//! API errors and their one mapping to responses: `{"error": {"code", "message"}}`.

use hyper::StatusCode;

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The address does not match `^0x[a-fA-F0-9]{40}$`.
    #[error("{0}")]
    InvalidAddress(String),
    /// A query parameter is malformed or out of range.
    #[error("{message}")]
    InvalidParam {
        /// Which parameter.
        param: &'static str,
        /// What is wrong.
        message: String,
    },
    /// No route at this path.
    #[error("no route at {0}")]
    NotFound(String),
    /// The address is valid but not in the snapshot.
    #[error("{0} is not indexed in the current snapshot")]
    NotIndexed(String),
    /// The path exists with other methods.
    #[error("method not allowed; allowed: {0}")]
    MethodNotAllowed(&'static str),
    /// No snapshot has been loaded yet.
    #[error("no snapshot is loaded yet; run a rebuild first")]
    NoSnapshot,
}

impl ApiError {
    /// HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::InvalidAddress(_) | ApiError::InvalidParam { .. } => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) | ApiError::NotIndexed(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NoSnapshot => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> String {
        match self {
            ApiError::InvalidAddress(_) => "invalid_address".to_owned(),
            ApiError::InvalidParam { param, .. } => format!("invalid_{param}"),
            ApiError::NotFound(_) => "not_found".to_owned(),
            ApiError::NotIndexed(_) => "not_indexed".to_owned(),
            ApiError::MethodNotAllowed(_) => "method_not_allowed".to_owned(),
            ApiError::NoSnapshot => "no_snapshot".to_owned(),
        }
    }
}
