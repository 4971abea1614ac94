//! The price table: every paid answer, its price, what it sells and what it needs besides
//! payments to deliver it. The route table names these rows; handlers, MCP tools and the paid
//! flow read them from here, never from the route table.

/// The paid answer of a route: the whole route, or a variant of a free one selected by a query
/// flag.
#[derive(Debug, Clone, Copy)]
pub struct PaidVariant {
    /// The query that selects it (`live=1`); `None` when every answer of the route is paid.
    pub query: Option<&'static str>,
    /// Price in micro-USDC.
    pub price: u64,
    /// What is bought, as the 402 terms describe it.
    pub description: &'static str,
    /// What is bought, as `/catalog` and OpenAPI explain it.
    pub purpose: &'static str,
    /// What the answer depends on besides payments; missing ones refuse the route before any
    /// terms (the payment needs' `check`).
    pub needs: &'static [Need],
}

impl PaidVariant {
    /// The path a buyer calls: the route's, with the selecting query.
    pub fn path(&self, route_path: &str) -> String {
        match self.query {
            Some(q) => format!("{route_path}?{q}"),
            None => route_path.to_owned(),
        }
    }

    /// The price as USDC text, e.g. `0.05`.
    pub fn price_text(&self) -> String {
        agentrep_publish::payloads::usdc_text(self.price)
    }
}

/// Price of a live re-score (seed §4.1), micro-USDC.
pub const LIVE_RESCORE: PaidVariant = PaidVariant {
    query: Some("live=1"),
    price: agentrep_publish::payloads::LIVE_RESCORE_PRICE,
    description: "agentrep live re-score of one seller: its settlements since the snapshot and a probe of its endpoints now, with a signed receipt that unlocks ?full=1 for 24 hours",
    purpose: "paid live re-score: the seller's settlements since the snapshot and a probe of its endpoints now, folded into the snapshot's features and assessed by the rebuild's model; its signed receipt unlocks ?full=1 for 24 hours (a deployment without live sources or a signing key answers 503 before quoting terms)",
    needs: &[Need::LiveSources, Need::SigningKey],
};

/// Price of an audit (seed §4.4), micro-USDC.
pub const AUDIT: PaidVariant = PaidVariant {
    query: None,
    price: 250_000,
    description: "agentrep audit of one wallet: every published document (score, proofs, launches, settlements, SLA, ERC-8004, history)",
    purpose: "comprehensive audit: score, proofs, launches, settlements, SLA, ERC-8004, flags, history and breakdown (x402, settled on chain before the answer is sent)",
    needs: &[],
};

/// Price of a risk report (seed §4.4), micro-USDC.
pub const RISK_REPORT: PaidVariant = PaidVariant {
    query: None,
    price: 500_000,
    description: "agentrep risk report: verdict AVOID, CAUTION or OK, heuristic flags and a signed attestation",
    purpose: "risk report: verdict AVOID / CAUTION / OK from the seller's decision and the deployer's record, heuristic flags, and a signed attestation (a deployment without a signing key answers 503 before quoting terms)",
    needs: &[Need::SigningKey],
};

/// Price of a batch of up to 10 audits (seed §4.4), micro-USDC.
pub const AUDIT_BATCH: PaidVariant = PaidVariant {
    query: None,
    price: 1_000_000,
    description: "agentrep audits of up to 10 wallets",
    purpose: "audits of up to 10 wallets in one call (unindexed ones are listed, not audited; refused unpaid if none is indexed)",
    needs: &[],
};

/// Price of the full proofs export (seed §4.3), micro-USDC.
pub const PROOFS_EXPORT: PaidVariant = PaidVariant {
    query: None,
    price: 1_000_000,
    description: "agentrep export of every verified identity proof",
    purpose: "every verified identity proof, without a page cap (optional type)",
    needs: &[],
};

/// Price of a launch platform's token export (seed §4.4), micro-USDC.
pub const CLAWD_EXPORT: PaidVariant = PaidVariant {
    query: None,
    price: 500_000,
    description: "agentrep export of every indexed token of one launch platform",
    purpose: "every indexed token of one launch platform, with its creator's score and verdict",
    needs: &[],
};

/// Price of a token creator's audit (seed §4.4), micro-USDC.
pub const CREATOR_AUDIT: PaidVariant = PaidVariant {
    query: None,
    price: 500_000,
    description: "agentrep audit of one token creator",
    purpose: "token creator profile: tokens launched, sample tokens, proofs and the full deployer record",
    needs: &[],
};

/// Price of a place's review snapshot (seed §4.4), micro-USDC.
pub const PLACE_SNAPSHOT: PaidVariant = PaidVariant {
    query: None,
    price: 100_000,
    description: "review snapshot of a real-world business",
    purpose: "review snapshot of a real-world business (name, address, rating, number of ratings, recent reviews, when read) from the operator's business-review source (Google's Places API); without one, 503 no_business_source and no terms",
    needs: &[Need::BusinessReviews],
};

/// Price of a webhook subscription's 30-day extension (seed §4.4), micro-USDC.
pub const WEBHOOK_EXTEND: PaidVariant = PaidVariant {
    query: None,
    price: 5_000_000,
    description: "agentrep webhook extension: 30 more days of score-change deliveries for one subscription",
    purpose: "extends one score-change subscription by 30 days (from the end of its free or paid period); an unknown subscription is refused before any terms",
    needs: &[],
};

/// Price of a sponsored agent slot (seed §4.4), micro-USDC.
pub const SPONSOR_AGENT: PaidVariant = PaidVariant {
    query: None,
    price: 25_000_000,
    description: "agentrep sponsored slot for one agent, 7 days",
    purpose: "a 7-day sponsored slot for an indexed agent, listed at /sponsored apart from the ranking; it changes no score, decision or rank, and a BLOCK wallet cannot buy one",
    needs: &[],
};

/// Price of a sponsored creator slot (seed §4.4), micro-USDC.
pub const SPONSOR_CREATOR: PaidVariant = PaidVariant {
    query: None,
    price: 10_000_000,
    description: "agentrep sponsored slot for one token creator, 7 days",
    purpose: "a 7-day sponsored slot for an indexed token creator, listed at /sponsored apart from rankings; an AVOID creator cannot buy one",
    needs: &[],
};

/// Price of a featured cast (seed §4.4), micro-USDC.
pub const FEATURED_CAST: PaidVariant = PaidVariant {
    query: None,
    price: 5_000_000,
    description: "agentrep featured cast: one Farcaster cast about an indexed token, now",
    purpose: "a Farcaster cast about an indexed token (its launch and its deployer's record, marked as paid), signed with the operator's signer and submitted to its hub now; 200 castHash. Refused before any terms for an unknown or rugged token or an AVOID deployer",
    needs: &[Need::Farcaster],
};

/// Price of a rug alert (seed §4.4), micro-USDC.
pub const RUG_ALERT: PaidVariant = PaidVariant {
    query: None,
    price: 2_000_000,
    description: "agentrep rug alert: one signed webhook if the token is flipped to rugged within 30 days",
    purpose: "watches an indexed, not yet rugged token for 30 days; a signed webhook (Standard Webhooks) fires when a snapshot shows it rugged",
    needs: &[],
};

/// Price of a trader attestation (seed §4.4), micro-USDC.
pub const TRADER_ATTESTATION: PaidVariant = PaidVariant {
    query: None,
    price: 1_000_000,
    description: "agentrep verified-trader attestation (EIP-712, signed by the operator)",
    purpose: "an EIP-712 attestation of the address's clawd-trader tier, signed like the score attestations; only for an address with a clawd-trader-{tier} proof (refused before any terms otherwise)",
    needs: &[Need::SigningKey],
};

/// One thing a paid route's answer depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The operator's signing key (`AGENTREP_SIGNING_KEY`): signed receipts and attestations.
    SigningKey,
    /// The live sources (`AGENTREP_LIVE_SOURCES`): the chain and probe rules a live read uses.
    LiveSources,
    /// A source of real-world business reviews (`AGENTREP_PLACES_API_KEY`).
    BusinessReviews,
    /// A Farcaster account, its signer key and a hub (`AGENTREP_FARCASTER_*`): featured casts.
    Farcaster,
}

impl Need {
    /// What it is, for a refusal or a log line.
    pub fn describe(self) -> &'static str {
        match self {
            Need::SigningKey => {
                "the operator's signing key (AGENTREP_SIGNING_KEY), which signs what the answer promises"
            }
            Need::LiveSources => {
                "live sources (AGENTREP_LIVE_SOURCES, an agentrep.toml whose chain is the seller's network)"
            }
            Need::BusinessReviews => {
                "a source of real-world business reviews (AGENTREP_PLACES_API_KEY: the operator's Google Places API key)"
            }
            Need::Farcaster => {
                "a Farcaster signer and hub (AGENTREP_FARCASTER_FID, AGENTREP_FARCASTER_SIGNER_KEY, AGENTREP_FARCASTER_HUB_URL)"
            }
        }
    }

    /// What provides it, in a word (the integrators' guide's table).
    pub fn variable(self) -> &'static str {
        match self {
            Need::SigningKey => "`AGENTREP_SIGNING_KEY`",
            Need::LiveSources => "`AGENTREP_LIVE_SOURCES`",
            Need::BusinessReviews => "`AGENTREP_PLACES_API_KEY` (without it: 503 `no_business_source`)",
            Need::Farcaster => {
                "`AGENTREP_FARCASTER_FID`, `AGENTREP_FARCASTER_SIGNER_KEY`, `AGENTREP_FARCASTER_HUB_URL`"
            }
        }
    }
}
