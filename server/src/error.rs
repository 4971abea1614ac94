//! API errors and their one mapping to responses: `{"error": {"code", "message"}}`.

use hyper::StatusCode;

/// A service a request needed that failed behind it. What a client reads of the failure is which
/// service, in words it can act on (retry later, nothing was charged); the failure's own text,
/// which can carry the service's address, a transport's internals or a key in a URL, goes to the
/// log only, with its URLs cut to their hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upstream {
    /// The chain node payments and signatures are checked against.
    PaymentNetwork,
    /// The facilitator payments are verified and settled through.
    Facilitator,
    /// The chain node and endpoints a live re-score reads.
    LiveSources,
    /// The Farcaster hub featured casts are submitted to.
    FarcasterHub,
}

impl Upstream {
    /// Its name, as a client reads it.
    pub fn name(self) -> &'static str {
        match self {
            Upstream::PaymentNetwork => "the payment network",
            Upstream::Facilitator => "the payment facilitator",
            Upstream::LiveSources => "a live source",
            Upstream::FarcasterHub => "the Farcaster hub",
        }
    }

    /// Logs `detail` and returns what a client may read of it.
    pub fn failed(self, detail: &dyn std::fmt::Display) -> String {
        let detail = agentrep_payments::chain::scrub_urls(&detail.to_string());
        tracing::warn!(upstream = self.name(), error = %detail, "A service behind the request failed.");
        format!("{} could not be asked just now, retry later", self.name())
    }
}

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The address does not match `^0x[a-fA-F0-9]{40}$`.
    #[error("{0}")]
    InvalidAddress(String),
    /// A query, path or body parameter is malformed or out of range.
    #[error("{message}")]
    InvalidParam {
        /// Which parameter.
        param: String,
        /// What is wrong.
        message: String,
    },
    /// The body is not the JSON the route reads.
    #[error("{0}")]
    InvalidBody(String),
    /// The body is larger than the route reads.
    #[error("the request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    /// The body is not JSON.
    #[error("send the body as application/json, got '{0}'")]
    UnsupportedMediaType(String),
    /// No route at this path.
    #[error("no route at {0}")]
    NotFound(String),
    /// The address is valid but not in the snapshot.
    #[error("{0} is not indexed in the current snapshot")]
    NotIndexed(String),
    /// A named thing (category, tag) is not in the snapshot.
    #[error("{0}")]
    UnknownName(String),
    /// The path exists with other methods.
    #[error("method not allowed; allowed: {0}")]
    MethodNotAllowed(String),
    /// No snapshot has been loaded yet.
    #[error("no snapshot is loaded yet; run a rebuild first")]
    NoSnapshot,
    /// A paid route on a deployment that cannot settle payments (says what is missing).
    #[error("this deployment takes no payments: {0}; paid routes quote no terms")]
    PaymentsNotConfigured(crate::payment::PaymentsOff),
    /// A paid route whose answer needs what this deployment lacks (a signing key, live sources,
    /// a business-review source): refused before any terms are quoted. The text names what is
    /// missing.
    #[error("{message}")]
    PaidRouteUnavailable {
        /// Stable code (`paid_route_unavailable`, or the missing source's).
        code: &'static str,
        /// What is missing.
        message: String,
    },
    /// The payment network, facilitator or ledger could not be reached; nothing was charged.
    #[error("payments are unavailable right now: {0}; nothing was charged")]
    PaymentsUnavailable(String),
    /// A payment that conflicts with an earlier one (a reused `payment-identifier`, or one
    /// still being answered).
    #[error("{message}")]
    PaymentConflict {
        /// Stable code.
        code: &'static str,
        /// What happened.
        message: String,
    },
    /// Access to a paid answer that needs a proof of payment this request does not carry.
    #[error("{message}")]
    Forbidden {
        /// Stable code.
        code: &'static str,
        /// Why, and how to get access.
        message: String,
    },
    /// A source an answer reads could not be reached; nothing was charged.
    #[error("{message}")]
    SourceUnavailable {
        /// Stable code.
        code: &'static str,
        /// What failed.
        message: String,
    },
    /// A signed write whose signature is not the named signer's (or whose message does not say
    /// what the body says): nothing is stored.
    #[error("{message}")]
    Unauthorized {
        /// Stable code (`signature_mismatch`, `message_mismatch`, `stale_message`).
        code: &'static str,
        /// What is wrong.
        message: String,
    },
    /// Too many writes from one client or signer; retry after the given seconds.
    #[error("{message}")]
    RateLimited {
        /// Seconds until a retry is counted again (`Retry-After`).
        retry_after: u64,
        /// Which limit, and its numbers.
        message: String,
    },
    /// A thing a write names does not exist (a subscription, an indexed wallet or token).
    #[error("{message}")]
    Missing {
        /// Stable code.
        code: &'static str,
        /// What is missing.
        message: String,
    },
    /// A write that conflicts with what is known (a token already rugged, a wallet that may not
    /// buy a slot): refused before any payment.
    #[error("{message}")]
    Conflict {
        /// Stable code.
        code: &'static str,
        /// Why.
        message: String,
    },
    /// A paid answer this deployment cannot produce; refused before any payment is taken.
    #[error("{message}")]
    NotAvailable {
        /// Stable code.
        code: &'static str,
        /// Why.
        message: String,
    },
}

impl ApiError {
    /// A bad parameter.
    pub fn param(param: &str, message: impl Into<String>) -> Self {
        Self::InvalidParam { param: param.to_owned(), message: message.into() }
    }

    /// The write store failed a write or read: 503, nothing was stored.
    pub fn store(message: impl Into<String>) -> Self {
        Self::SourceUnavailable { code: "store_unavailable", message: message.into() }
    }

    /// A document of the served snapshot could not be read (501 `snapshot_unreadable`): the
    /// detail, which can name the snapshot's files, goes to the log only.
    pub fn snapshot_unreadable(what: &str, detail: &dyn std::fmt::Display) -> Self {
        tracing::warn!(document = what, error = %detail, "A snapshot document could not be read.");
        Self::NotAvailable {
            code: "snapshot_unreadable",
            message: format!(
                "the served snapshot's {what} could not be read; nothing was charged, and the next snapshot replaces it"
            ),
        }
    }

    /// HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::InvalidAddress(_) | ApiError::InvalidParam { .. } | ApiError::InvalidBody(_) => {
                StatusCode::BAD_REQUEST
            }
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::NotFound(_) | ApiError::NotIndexed(_) | ApiError::UnknownName(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NoSnapshot
            | ApiError::PaymentsNotConfigured(_)
            | ApiError::PaidRouteUnavailable { .. }
            | ApiError::PaymentsUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::PaymentConflict { .. } => StatusCode::CONFLICT,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::SourceUnavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::NotAvailable { .. } => StatusCode::NOT_IMPLEMENTED,
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Missing { .. } => StatusCode::NOT_FOUND,
        }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> String {
        match self {
            ApiError::InvalidAddress(_) => "invalid_address".to_owned(),
            ApiError::InvalidParam { param, .. } => format!("invalid_{param}"),
            ApiError::InvalidBody(_) => "invalid_body".to_owned(),
            ApiError::PayloadTooLarge(_) => "payload_too_large".to_owned(),
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type".to_owned(),
            ApiError::NotFound(_) => "not_found".to_owned(),
            ApiError::NotIndexed(_) => "not_indexed".to_owned(),
            ApiError::UnknownName(_) => "unknown_name".to_owned(),
            ApiError::MethodNotAllowed(_) => "method_not_allowed".to_owned(),
            ApiError::NoSnapshot => "no_snapshot".to_owned(),
            ApiError::PaymentsNotConfigured(_) => "payments_not_configured".to_owned(),
            ApiError::PaymentsUnavailable(_) => "payments_unavailable".to_owned(),
            ApiError::PaymentConflict { code, .. }
            | ApiError::PaidRouteUnavailable { code, .. }
            | ApiError::NotAvailable { code, .. }
            | ApiError::Forbidden { code, .. }
            | ApiError::Unauthorized { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Missing { code, .. }
            | ApiError::SourceUnavailable { code, .. } => (*code).to_owned(),
            ApiError::RateLimited { .. } => "rate_limited".to_owned(),
        }
    }

    /// Whether this is a refusal the deployment meant to give (a client's mistake, or a feature
    /// this deployment has turned off) rather than something that went wrong here: operators
    /// see the first at INFO or below, the second as a warning.
    pub fn is_expected(&self) -> bool {
        match self {
            ApiError::PaymentsUnavailable(_) | ApiError::SourceUnavailable { .. } => false,
            ApiError::NoSnapshot
            | ApiError::PaymentsNotConfigured(_)
            | ApiError::PaidRouteUnavailable { .. }
            | ApiError::NotAvailable { .. } => true,
            other => other.status().is_client_error(),
        }
    }
}
