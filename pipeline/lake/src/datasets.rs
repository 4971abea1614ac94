//! Every lake dataset, declared once: its folder name, its typed row and (from the row) its Arrow
//! schema, and (from its doc comments and units) its columns in the data dictionary
//! (`DATA_DICTIONARY.md`; a test keeps it in step).
//!
//! Addresses are stored as observed (listings may carry mixed case); every other dataset stores
//! lowercase addresses. Money is integer micro-USDC (`u64`), times are UTC microseconds.

use std::sync::Arc;

use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;

use crate::column::{Column, Timestamp};
use crate::dictionary::ColumnDoc;
use crate::forms::{EscrowAction, SettlementForm};

/// A typed row of one dataset.
pub trait Row: Sized + Send + Sync {
    /// The dataset the row belongs to.
    const DATASET: Dataset;
    /// The Arrow schema of the dataset.
    fn schema() -> SchemaRef;
    /// Builds one record batch from rows.
    fn to_batch(rows: &[Self]) -> RecordBatch;
    /// Reads rows back from a batch with this dataset's schema (the inverse of `to_batch`).
    ///
    /// # Errors
    /// When a column is missing or has another type than the schema says.
    fn from_batch(batch: &RecordBatch) -> Result<Vec<Self>, SchemaMismatch>;
}

/// A batch that does not have a dataset's schema.
#[derive(Debug, Clone, thiserror::Error)]
#[error("dataset {dataset}: column `{column}` is missing or not {expected}")]
pub struct SchemaMismatch {
    /// The dataset.
    pub dataset: &'static str,
    /// The column.
    pub column: &'static str,
    /// The type the schema expects.
    pub expected: String,
}

macro_rules! datasets {
    ($(
        $(#[$meta:meta])*
        $variant:ident => $name:literal, $row:ident {
            $( $(#[doc = $fdoc:literal])* $field:ident : $ty:ty $([$unit:literal])? ),* $(,)?
        }
    )*) => {
        /// The lake's datasets.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Dataset { $( $(#[$meta])* $variant ),* }

        impl Dataset {
            /// Every dataset, in dependency order.
            pub const ALL: &'static [Dataset] = &[ $( Dataset::$variant ),* ];

            /// Folder name under the lake root.
            pub fn name(self) -> &'static str {
                match self { $( Dataset::$variant => $name ),* }
            }

            /// Arrow schema (without the `date` partition column).
            pub fn schema(self) -> SchemaRef {
                match self { $( Dataset::$variant => <$row as Row>::schema() ),* }
            }

            /// Every column with its type, unit and meaning (the data dictionary's rows), from the
            /// declaration's doc comments and units.
            pub fn columns(self) -> Vec<ColumnDoc> {
                match self { $(
                    Dataset::$variant => vec![ $( {
                        let data_type = <$ty as Column>::data_type();
                        let unit: Option<&str> = None $( .or(Some($unit)) )?;
                        ColumnDoc {
                            name: stringify!($field).to_owned(),
                            unit: unit.or(ColumnDoc::implied_unit(&data_type)).map(str::to_owned),
                            nullable: <$ty as Column>::NULLABLE,
                            meaning: [$($fdoc),*].iter().map(|d| d.trim()).collect::<Vec<_>>().join(" "),
                            data_type,
                        }
                    } ),* ]
                ),* }
            }
        }

        $(
            $(#[$meta])*
            #[derive(Debug, Clone, PartialEq)]
            pub struct $row { $( $(#[doc = $fdoc])* pub $field: $ty ),* }

            impl Row for $row {
                const DATASET: Dataset = Dataset::$variant;

                fn schema() -> SchemaRef {
                    Arc::new(Schema::new(vec![ $(
                        Field::new(stringify!($field), <$ty as Column>::data_type(), <$ty as Column>::NULLABLE)
                    ),* ]))
                }

                fn to_batch(rows: &[Self]) -> RecordBatch {
                    let columns = vec![ $( <$ty as Column>::build(rows.iter().map(|r| &r.$field)) ),* ];
                    RecordBatch::try_new(Self::schema(), columns).expect("row builders match the schema")
                }

                #[allow(non_snake_case)]
                fn from_batch(batch: &RecordBatch) -> Result<Vec<Self>, SchemaMismatch> {
                    $(
                        let $field = {
                            let mismatch = || SchemaMismatch {
                                dataset: $name,
                                column: stringify!($field),
                                expected: <$ty as Column>::data_type().to_string(),
                            };
                            match batch.column_by_name(stringify!($field)) {
                                Some(column) if column.data_type() == &<$ty as Column>::data_type() => {
                                    <$ty as Column>::read(column.as_ref())
                                }
                                Some(_) => return Err(mismatch()),
                                // A column added to the dataset later: older partitions lack it.
                                None => <$ty as Column>::absent(batch.num_rows()).ok_or_else(mismatch)?,
                            }
                            .into_iter()
                        };
                    )*
                    $( let mut $field = $field; )*
                    Ok((0..batch.num_rows())
                        .map(|_| $row { $( $field: $field.next().expect("column length is the batch length") ),* })
                        .collect())
                }
            }
        )*
    };
}

datasets! {
    /// Marketplace listings (x402 Bazaar discovery), one partition per crawl day.
    Listings => "listings", ListingRow {
        /// URL of the paid endpoint.
        resource: String,
        /// Receiving wallet as listed (case as observed).
        pay_to: String,
        /// Network, `eip155:<id>` or a legacy short name.
        network: String,
        /// Asset contract address.
        asset: String,
        /// Advertised price in the asset's atomic units.
        price_atomic: u64 ["atomic units of the asset"],
        /// Listing description.
        description: Option<String>,
        /// Listing tags.
        tags: Vec<String>,
        /// Marketplace the listing came from.
        ecosystem: String,
        /// First time the crawler saw the listing.
        first_seen: Timestamp,
        /// Last time the crawler saw the listing.
        last_seen: Timestamp,
    }

    /// USDC settlements to candidate sellers, one partition per block day.
    Settlements => "settlements", SettlementRow {
        /// Transaction hash.
        tx_hash: String,
        /// Log index of the Transfer.
        log_index: u32,
        /// Block number.
        block_number: u64,
        /// Block time.
        block_time: Timestamp,
        /// Payer (Transfer.from).
        payer: String,
        /// Seller (Transfer.to).
        pay_to: String,
        /// Amount, micro-USDC.
        value: u64 ["micro-USDC"],
        /// Token contract that emitted the Transfer (USDC of the network).
        asset: String,
        /// Transaction sender when it is a known facilitator or relayer.
        facilitator: Option<String>,
        /// An EIP-3009 AuthorizationUsed precedes the Transfer in the same transaction.
        eip3009: bool,
        /// Network, `eip155:<id>`.
        network: String,
        /// How the funds reached the seller: `eip3009`, `permit2`, `upto`, `auth_capture`,
        /// `batch_claim` or `transfer` (x402.md § 8). Null in partitions written before forms were
        /// read: `eip3009` then tells an EIP-3009 settlement from a transfer.
        form: Option<SettlementForm>,
        /// The payment channel of a batch claim (`batch_claim`: one row per channel a claim raised,
        /// `value` the raise; the chain does not say how many calls it covers).
        channel: Option<String>,
        /// ERC-8021 app code on the settling transaction's calldata: a hint, any client can write it.
        builder_app: Option<String>,
        /// ERC-8021 wallet (facilitator) code on the calldata: a hint.
        builder_wallet: Option<String>,
        /// ERC-8021 service codes on the calldata (or a schema-0 suffix's codes), comma separated
        /// (a code is 1 to 32 of `[a-z0-9_]`): hints.
        builder_services: Option<String>,
    }

    /// The auth-capture escrow's outcomes for payments to candidate sellers, one partition per
    /// block day: authorizations, charges, captures, voids, reclaims and refunds. Only the escrowed
    /// payment's operator can capture, void or refund it; its payer can reclaim it after expiry.
    EscrowEvents => "escrow_events", EscrowEventRow {
        /// Transaction hash.
        tx_hash: String,
        /// Log index of the escrow's event.
        log_index: u32,
        /// Block number.
        block_number: u64,
        /// Block time.
        block_time: Timestamp,
        /// The escrow contract.
        escrow: String,
        /// `authorized`, `charged`, `captured`, `voided`, `reclaimed` or `refunded`.
        action: Option<EscrowAction>,
        /// The escrowed payment's hash (`paymentInfoHash`).
        payment: String,
        /// The payment's operator (the facilitator that may capture, void and refund).
        operator: String,
        /// The payment's payer.
        payer: String,
        /// The payment's receiver (the seller).
        receiver: String,
        /// The payment's token.
        token: String,
        /// Amount the action moved, micro-USDC.
        amount: u64 ["micro-USDC"],
        /// Fee taken at a capture or charge, micro-USDC (v1.0's basis points applied to `amount`).
        fee: Option<u64> ["micro-USDC"],
    }

    /// Health probes of listed endpoints, one partition per probe day.
    Probes => "probes", ProbeRow {
        /// URL probed.
        resource: String,
        /// When.
        probed_at: Timestamp,
        /// HTTP status, null when no answer.
        status: Option<u32>,
        /// Answered alive: 200, 201 or 204, or 402 with a well-formed x402 offer.
        ok: bool,
        /// Latency when answered, milliseconds.
        latency_ms: Option<u32> ["ms"],
        /// Error text when not answered.
        error: Option<String>,
        /// x402 version of a well-formed 402 offer (1: `accepts[]` body, 2: `PAYMENT-REQUIRED`
        /// header); null when the answer carried no well-formed offer.
        offer_version: Option<u32>,
        /// The offer's payTo, asset, network and price match a listing of the resource; null
        /// without an offer.
        offer_matches: Option<bool>,
        /// Every wallet the well-formed offer's terms ask to be paid, lowercase, sorted, without
        /// duplicates: which payTo the URL takes, whoever listed it. Empty without an offer, and in
        /// partitions written before methodology 3.1 (which read it as empty).
        offer_pay_tos: Vec<String>,
    }

    /// ERC-8004 IdentityRegistry registrations, one partition per block day.
    Erc8004Registrations => "erc8004_registrations", RegistrationRow {
        /// Agent id (ERC-721 token id).
        agent_id: u64,
        /// Token owner.
        owner: String,
        /// `agentWallet` metadata (payment address), if set.
        agent_wallet: Option<String>,
        /// Registration file URI.
        registration_uri: String,
        /// Block time of `Registered`.
        registered_at: Timestamp,
    }

    /// ERC-8004 ReputationRegistry feedback, one partition per block day.
    Erc8004Feedback => "erc8004_feedback", FeedbackRow {
        /// Agent id.
        agent_id: u64,
        /// Client that gave the feedback.
        client: String,
        /// 1-based index per (agent, client).
        feedback_index: u64,
        /// Raw value (`value / 10^decimals`).
        value: i64,
        /// Decimals of `value`.
        value_decimals: u32,
        /// First tag.
        tag1: String,
        /// Second tag.
        tag2: String,
        /// Revoked since.
        revoked: bool,
        /// Block time.
        block_time: Timestamp,
    }

    /// Identity proofs, one partition per verification day.
    IdentityProofs => "identity_proofs", ProofRow {
        /// Address the proof is about.
        address: String,
        /// One of the interface's proof types.
        proof_type: String,
        /// Where it was verified (attester, registry, resolver).
        source: String,
        /// When it was verified.
        verified_at: Timestamp,
    }

    /// First-funding edges (first inbound USDC or ETH), one partition per funding day.
    FundingEdges => "funding_edges", FundingRow {
        /// Funded address.
        funded: String,
        /// Funder.
        funder: String,
        /// Time of the first funding.
        first_funded_at: Timestamp,
        /// Amount, micro-USDC equivalent.
        amount: u64 ["micro-USDC"],
    }

    /// Token launches, one partition per launch day.
    TokenLaunches => "token_launches", LaunchRow {
        /// Token address.
        token: String,
        /// Creator wallet (tokenAdmin / payoutRecipient).
        deployer: String,
        /// Launch platform.
        platform: String,
        /// Token name.
        name: String,
        /// Token symbol.
        symbol: String,
        /// Launch time.
        launched_at: Timestamp,
    }

    /// Daily observations of launched tokens, one partition per observed day.
    LaunchObservations => "launch_observations", LaunchObservationRow {
        /// Token address.
        token: String,
        /// Pool liquidity, micro-USDC.
        liquidity: u64 ["micro-USDC"],
        /// Swaps that day.
        swaps: u32,
        /// Holders at the end of the day.
        holders: u32,
        /// Price in USD at the end of the day.
        price: f64 ["USD"],
        /// Share of its initial allocation the creator still holds, 0..=1.
        creator_holding: f64 ["share 0..=1"],
    }

    /// Buys of launched tokens, one row per (token, buyer, UTC day) with a buy, one partition per
    /// day. A buy is the token leaving the pool (the Uniswap v4 PoolManager, or a configured swap
    /// router) for a wallet other than the token's creator.
    TokenBuys => "token_buys", TokenBuyRow {
        /// Token address.
        token: String,
        /// Buying wallet (the recipient of the tokens).
        buyer: String,
        /// Buys that day.
        buys: u32,
        /// Tokens bought that day, whole tokens (wei / 1e18).
        tokens: f64 ["whole tokens"],
        /// Time of the day's first buy.
        first_at: Timestamp,
    }

    /// Buyer-signed receipts (from the server's store), one partition per receipt day.
    Receipts => "receipts", ReceiptRow {
        /// Buyer.
        buyer: String,
        /// Agent (seller).
        agent: String,
        /// Settlement transaction, if given.
        tx_hash: Option<String>,
        /// Whether the call succeeded.
        success: bool,
        /// Latency, milliseconds.
        latency_ms: Option<u32> ["ms"],
        /// Rating 0..=100.
        rating: Option<u32>,
        /// Free-text comment.
        comment: Option<String>,
        /// When the receipt was accepted.
        received_at: Timestamp,
    }

    /// The operator's signed score attestations (from the server's store, by `agentrep
    /// export-store`), one partition per signing day.
    Attestations => "attestations", AttestationRow {
        /// Subject wallet.
        address: String,
        /// Attested score.
        score: u32,
        /// When it was signed (the signed timestamp).
        signed_at: Timestamp,
        /// Operator address that signed.
        signer: String,
        /// Snapshot the score was read from.
        snapshot: String,
    }

    /// Wallets that claimed their badge with a signature (from the server's store, by `agentrep
    /// export-store`), one partition per claim day. A claim is a wallet's word about itself: it
    /// is shown, and it never raises a score.
    BadgeClaims => "badge_claims", BadgeClaimRow {
        /// The claiming wallet (the signer).
        address: String,
        /// When the claim was accepted.
        claimed_at: Timestamp,
        /// How the signature was checked: `eoa`, `erc1271` or `erc6492`.
        signer_kind: String,
    }

    /// Agent description files submitted with `POST /discover` (from the server's store, by
    /// `agentrep export-store`), one partition per submission day; the agent-card job fetches them.
    DiscoverySubmissions => "discovery_submissions", DiscoverySubmissionRow {
        /// The submission's id in the server's store.
        submission_id: u64,
        /// The file's URL (http or https, checked at submission).
        url: String,
        /// When it was submitted.
        submitted_at: Timestamp,
    }

    /// Denylist and allowlist entries, one partition per day they were added.
    AddressLists => "address_lists", ListEntryRow {
        /// Address.
        address: String,
        /// `deny` or `allow`.
        list: String,
        /// Where the entry came from.
        source: String,
        /// `<category>:<role>` for deny entries, a label for allow entries.
        category: String,
        /// When it was added.
        added_at: Timestamp,
    }

    /// ERC-8004 registration files (each agent's `agentURI`, fetched with the probe's safety rules),
    /// one partition per fetch day.
    AgentCards => "agent_cards", AgentCardRow {
        /// Agent id.
        agent_id: u64,
        /// The URI fetched (`https://`, `ipfs://` or `data:`).
        uri: String,
        /// When it was fetched.
        fetched_at: Timestamp,
        /// `name`.
        name: Option<String>,
        /// `description`.
        description: Option<String>,
        /// Service endpoints (`services[]`, or the older `endpoints[]`).
        endpoints: Vec<String>,
        /// Wallets the document declares (lowercase).
        wallets: Vec<String>,
        /// Whether the document links back to this service.
        links_back: bool,
        /// SHA-256 of the document's bytes, hex; null when it could not be fetched.
        digest: Option<String>,
        /// Why it could not be fetched or parsed.
        error: Option<String>,
    }

    /// Submitted agent description files as the agent-card job fetched them (the probe's safety
    /// rules), one partition per fetch day. What a file declares is an operator's lead for review:
    /// nothing here reaches a score.
    SubmittedCards => "submitted_cards", SubmittedCardRow {
        /// The submission it answers.
        submission_id: u64,
        /// The URL fetched.
        url: String,
        /// When it was fetched.
        fetched_at: Timestamp,
        /// `name`.
        name: Option<String>,
        /// `description`.
        description: Option<String>,
        /// Service endpoints (`services[]`, or the older `endpoints[]`).
        endpoints: Vec<String>,
        /// Wallets the document declares (lowercase).
        wallets: Vec<String>,
        /// SHA-256 of the document's bytes, hex; null when it could not be fetched.
        digest: Option<String>,
        /// Why it could not be fetched or parsed.
        error: Option<String>,
    }

    /// What each listed origin serves at `/.well-known/x402` (the x402 discovery document): the
    /// wallets whose ownership proofs it holds, each an EIP-191 signature of the origin's text by
    /// the wallet, verified by the origin-proof job; one row per fetch, one partition per fetch day.
    OriginProofs => "origin_proofs", OriginProofRow {
        /// The origin: scheme and authority, lowercase (`https://api.example.com`), as the
        /// listings' `origin` is computed.
        origin: String,
        /// The URL fetched.
        url: String,
        /// When it was fetched.
        fetched_at: Timestamp,
        /// The origin answered (any HTTP status): the row says what the origin serves now. False
        /// when nothing answered (a timeout, a refused or reset connection), which says nothing.
        answered: bool,
        /// Wallets whose signature of the origin's text the document holds, lowercase, sorted:
        /// each proof's recovered signer.
        signers: Vec<String>,
        /// Proofs the document held.
        proofs: u32,
        /// SHA-256 of the document's bytes, hex; null when none was fetched.
        digest: Option<String>,
        /// Why no document could be read (`http-404`, `bad-json`, `timeout`, …).
        error: Option<String>,
    }

    /// Marketplace crawl runs, one row per discovery URL per run, one partition per run day.
    CrawlRuns => "crawl_runs", CrawlRunRow {
        /// Discovery URL crawled.
        source_url: String,
        /// Marketplace name.
        ecosystem: String,
        /// Start of the run.
        started_at: Timestamp,
        /// End of the run.
        finished_at: Timestamp,
        /// Pages read.
        pages: u32,
        /// Items seen.
        items: u32,
        /// Listings kept (one per resource and accepted offer).
        listings: u32,
        /// Items skipped, as `reason=count`.
        skipped: Vec<String>,
        /// Why the run stopped early, if it did.
        error: Option<String>,
    }

    /// Entity labels: infrastructure wallets (exchanges, bridges, facilitators) and who says so,
    /// one partition per day they were added.
    EntityLabels => "entity_labels", EntityLabelRow {
        /// Address.
        address: String,
        /// `exchange`, `bridge` or `facilitator`.
        entity: String,
        /// Name of the entity, e.g. `coinbase`.
        name: String,
        /// Where the label came from.
        source: String,
        /// When it was added.
        added_at: Timestamp,
    }

    /// Derived: the rebuild's daily scores (history, movers, sparklines), one partition per day.
    /// Public ranked-domain lists (Tranco by default): the ranks of the registrable domains the
    /// lake's listings use, one partition per fetch day.
    DomainRanks => "domain_ranks", DomainRankRow {
        /// Registrable domain, lowercase (public suffix plus one label; private suffixes count,
        /// so `api.x.vercel.app` is `x.vercel.app`).
        domain: String,
        /// Rank in the list (1 = most visited).
        rank: u32,
        /// The list's name (`tranco`).
        list: String,
        /// The list's own id or date, as its publisher names it.
        list_id: String,
        /// Where the list was fetched from.
        source: String,
        /// When it was fetched.
        fetched_at: Timestamp,
    }

    /// agentrep's own paid calls to sellers (the paid probe, made with the operator's funds on a
    /// budget): what was paid, whether the money moved and whether an answer came; one partition
    /// per day of the calls.
    PaidProbes => "paid_probes", PaidProbeRow {
        /// The endpoint called (a current listing's resource).
        resource: String,
        /// The seller paid (the listing's payTo, lowercase).
        pay_to: String,
        /// When the paid call started.
        probed_at: Timestamp,
        /// agentrep's paying wallet, lowercase.
        payer: String,
        /// Network paid on, `eip155:<id>`.
        network: String,
        /// Asset contract, lowercase.
        asset: String,
        /// Amount authorized, atomic units (micro-USDC).
        amount: u64 ["micro-USDC"],
        /// The EIP-3009 authorization nonce, 0x-hex.
        nonce: String,
        /// Final HTTP status of the paid call, null when nothing answered.
        status: Option<u32>,
        /// Bytes of the answer's body.
        body_bytes: u64 ["bytes"],
        /// The answer was a 2xx with a body.
        delivered: bool,
        /// The authorization was used on chain (true), expired unused (false), or not known yet.
        settled: Option<bool>,
        /// The settlement transaction a `PAYMENT-RESPONSE` named, when one did.
        tx_hash: Option<String>,
        /// Why nothing was paid or delivered, when so (`offer-mismatch`, `too-expensive`, `http-500`, …).
        error: Option<String>,
    }

    DailyScores => "daily_scores", DailyScoreRow {
        /// Wallet.
        address: String,
        /// Score, null when degraded.
        score: Option<u32>,
        /// Preflight decision.
        decision: String,
        /// Settlements up to the day.
        settlements: u64,
        /// Volume up to the day, micro-USDC.
        volume: u64 ["micro-USDC"],
        /// Methodology version that computed the score.
        methodology: String,
    }
}

impl Dataset {
    /// True for datasets the rebuild writes rather than reads from sources.
    pub fn is_derived(self) -> bool {
        matches!(self, Dataset::DailyScores)
    }
}
