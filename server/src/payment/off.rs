//! Why a deployment takes no payments: what `/status`, every paid route's 503 and `serve --check`
//! say, typed until it becomes their words. A failure's own text (which can carry a node's URL
//! and its key, or the store's path) goes to the log where it happens, never into one of these.

/// Why paid routes are off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PaymentsOff {
    /// `serve` has not started them yet.
    #[error("payments were not started")]
    NotStarted,
    /// No `AGENTREP_PAY_TO`: the deployment's choice (the demo's).
    #[error("no operator address is configured (AGENTREP_PAY_TO)")]
    NoPayTo,
    /// `AGENTREP_PAY_TO` does not parse.
    #[error("AGENTREP_PAY_TO is not an address")]
    PayToNotAnAddress,
    /// No `AGENTREP_PAYMENT_RPC`.
    #[error(
        "no node on the payment network is configured (AGENTREP_PAYMENT_RPC): payments could not be checked or settled"
    )]
    NoNode,
    /// Neither a relayer key nor a facilitator.
    #[error("no way to settle is configured (AGENTREP_RELAYER_KEY or AGENTREP_FACILITATOR_URL)")]
    NoSettler,
    /// `AGENTREP_RELAYER_KEY` is not a private key (never echoed).
    #[error("AGENTREP_RELAYER_KEY is not a 32-byte hex private key")]
    RelayerKeyInvalid,
    /// A service the payments need did not answer or could not be set up (the log says why).
    #[error("{0} (the server's log says why)")]
    Failed(Failed),
    /// The write store, which holds the payment ledger, did not open.
    #[error("the write store (the payment ledger) could not be opened")]
    NoLedger,
}

/// What failed while payments started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Failed {
    /// The payment network's node, asked for its chain id.
    #[error("the payment network's node did not answer with its chain id")]
    Node,
    /// The relayer's client.
    #[error("the relayer could not be set up")]
    Relayer,
    /// The facilitator's client.
    #[error("the facilitator could not be set up")]
    Facilitator,
    /// The ledger, read to release payments a stopped process left reserved.
    #[error("the payment ledger could not be read")]
    Ledger,
}

impl Failed {
    /// Logs `error` (URLs cut to their hosts) and names the failure for the client.
    pub fn logged(self, error: &dyn std::fmt::Display) -> PaymentsOff {
        let detail = agentrep_payments::chain::scrub_urls(&error.to_string());
        tracing::warn!(target: "server::payments", error = %detail, "{self}");
        PaymentsOff::Failed(self)
    }
}

impl PaymentsOff {
    /// Whether a deployment meant to take payments and could not (a mistake `serve --check`
    /// names), rather than chose to take none.
    pub fn is_misconfiguration(self) -> bool {
        !matches!(self, PaymentsOff::NotStarted | PaymentsOff::NoPayTo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a client reads of a failure is its kind: the failure's own text, which names the
    /// node's URL and, for a hosted node, its key, stays in the log.
    #[test]
    fn a_failure_reaches_clients_as_its_kind_only() {
        let transport = "error sending request for url (https://base.example/v2/SECRETKEY): connection refused";
        for failed in [Failed::Node, Failed::Relayer, Failed::Facilitator, Failed::Ledger] {
            let said = failed.logged(&transport).to_string();
            assert!(said.ends_with("(the server's log says why)"), "{said}");
            assert!(
                !said.contains("SECRETKEY") && !said.contains("base.example") && !said.contains("refused"),
                "{said}"
            );
        }
        assert!(!PaymentsOff::NoPayTo.is_misconfiguration());
        assert!(PaymentsOff::Failed(Failed::Node).is_misconfiguration());
    }
}
