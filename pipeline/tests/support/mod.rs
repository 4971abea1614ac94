//! Hand-made lakes for the rebuild's integration tests: a builder that writes exactly the rows a
//! test names, plus an (empty) partition of every source for every day, as the daily jobs would.

#![allow(dead_code)]

use std::collections::BTreeMap;

use agentrep_lake::datasets::*;
use agentrep_lake::{Lake, Row, Timestamp};
use chrono::NaiveDate;

pub const USDC: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
pub const FACILITATOR: &str = "0xfac0000000000000000000000000000000000001";
pub const EXCHANGE: &str = "0xe8c0000000000000000000000000000000000001";
pub const BASE: &str = "eip155:8453";
/// Days 0..=LAST exist; the rebuild day is LAST.
pub const LAST: u32 = 9;

pub fn addr(n: u32) -> String {
    format!("0x{n:040x}")
}

pub fn day(d: i64) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 1).unwrap() + chrono::Duration::days(d)
}

pub fn at(d: i64, secs: i64) -> Timestamp {
    Timestamp::from_secs(day(d).and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp() + secs)
}

/// How a transfer reached the seller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// x402: a known facilitator, EIP-3009, on Base USDC.
    X402,
    /// A plain transfer.
    Plain,
    /// EIP-3009 through a sender that is not a known facilitator.
    UnknownSender,
    /// x402 on another network.
    Testnet,
}

#[derive(Debug, Default, Clone)]
pub struct LakeBuilder {
    /// (resource, payTo, price, first seen day, crawled from day, crawled to day).
    listings: Vec<(String, String, u64, i64, i64, i64)>,
    settlements: Vec<(i64, SettlementRow)>,
    funding: Vec<(i64, FundingRow)>,
    labels: Vec<(i64, EntityLabelRow)>,
    proofs: Vec<(i64, ProofRow)>,
    registrations: Vec<(i64, RegistrationRow)>,
    feedback: Vec<(i64, FeedbackRow)>,
    receipts: Vec<(i64, ReceiptRow)>,
    probes: Vec<(i64, ProbeRow)>,
    lists: Vec<(i64, ListEntryRow)>,
    launches: Vec<(i64, LaunchRow)>,
    observations: Vec<(i64, LaunchObservationRow)>,
    ranks: Vec<(i64, DomainRankRow)>,
    paid: Vec<(i64, PaidProbeRow)>,
    cards: Vec<(i64, AgentCardRow)>,
    origin_proofs: Vec<(i64, OriginProofRow)>,
    escrow: Vec<(i64, EscrowEventRow)>,
    tx: u32,
}

impl LakeBuilder {
    /// A lake with a labelled facilitator and exchange.
    pub fn new() -> Self {
        let mut b = Self::default();
        b.label(FACILITATOR, "facilitator");
        b.label(EXCHANGE, "exchange");
        b
    }

    pub fn label(&mut self, address: &str, entity: &str) -> &mut Self {
        self.labels.push((
            -90,
            EntityLabelRow {
                address: address.into(),
                entity: entity.into(),
                name: entity.into(),
                source: "test".into(),
                added_at: at(-90, 0),
            },
        ));
        self
    }

    /// A listing first seen on `first_day`, crawled every day from then (or day 0) to `LAST`.
    pub fn listing(&mut self, resource: &str, pay_to: &str, price: u64, first_day: i64) -> &mut Self {
        self.listings.push((resource.into(), pay_to.into(), price, first_day, first_day.max(0), i64::from(LAST)));
        self
    }

    /// A listing crawled on every day from `first_day` to `last_day` and on no other (negative days
    /// are before the lake's first day).
    pub fn listing_between(
        &mut self,
        resource: &str,
        pay_to: &str,
        price: u64,
        first_day: i64,
        last_day: i64,
    ) -> &mut Self {
        self.listings.push((resource.into(), pay_to.into(), price, first_day, first_day, last_day));
        self
    }

    pub fn pay(&mut self, d: i64, secs: i64, payer: &str, pay_to: &str, value: u64, via: Via) -> &mut Self {
        self.tx += 1;
        let (facilitator, eip3009, network) = match via {
            Via::X402 => (Some(FACILITATOR.to_owned()), true, BASE),
            Via::Plain => (None, false, BASE),
            Via::UnknownSender => (Some(addr(0xdead)), true, BASE),
            Via::Testnet => (Some(FACILITATOR.to_owned()), true, "eip155:84532"),
        };
        self.settlements.push((
            d,
            SettlementRow {
                tx_hash: format!("0x{:064x}", self.tx),
                log_index: 1,
                block_number: u64::from(self.tx),
                block_time: at(d, secs),
                payer: payer.into(),
                pay_to: pay_to.into(),
                value,
                asset: USDC.into(),
                facilitator,
                eip3009,
                network: network.into(),
                form: None,
                channel: None,
                builder_app: None,
                builder_wallet: None,
                builder_services: None,
            },
        ));
        self
    }

    pub fn fund(&mut self, funded: &str, funder: &str, d: i64, amount: u64) -> &mut Self {
        self.funding
            .push((d, FundingRow { funded: funded.into(), funder: funder.into(), first_funded_at: at(d, 0), amount }));
        self
    }

    pub fn proof(&mut self, address: &str, proof_type: &str, d: i64) -> &mut Self {
        self.proofs.push((
            d,
            ProofRow {
                address: address.into(),
                proof_type: proof_type.into(),
                source: "test".into(),
                verified_at: at(d, 0),
            },
        ));
        self
    }

    pub fn register(&mut self, agent_id: u64, wallet: &str) -> &mut Self {
        self.registrations.push((
            0,
            RegistrationRow {
                agent_id,
                owner: wallet.into(),
                agent_wallet: Some(wallet.into()),
                registration_uri: "ipfs://x".into(),
                registered_at: at(0, 0),
            },
        ));
        self
    }

    /// Agent `agent_id`'s registration file, fetched on day 0, naming `endpoints` as its services.
    pub fn card(&mut self, agent_id: u64, endpoints: &[&str]) -> &mut Self {
        self.cards.push((
            0,
            AgentCardRow {
                agent_id,
                uri: "ipfs://x".into(),
                fetched_at: at(0, 60),
                name: Some("agent".into()),
                description: None,
                endpoints: endpoints.iter().map(|e| (*e).to_owned()).collect(),
                wallets: Vec::new(),
                links_back: false,
                digest: Some("00".repeat(32)),
                error: None,
            },
        ));
        self
    }

    /// The origin-proof job's fetch of `origin`'s discovery document on day `d`: `signers` are the
    /// wallets whose proofs it held; `answered: false` is a fetch nothing answered.
    pub fn origin_proof(&mut self, d: i64, origin: &str, signers: &[&str], answered: bool) -> &mut Self {
        self.origin_proofs.push((
            d,
            OriginProofRow {
                origin: origin.into(),
                url: format!("{origin}/.well-known/x402"),
                fetched_at: at(d, 120),
                answered,
                signers: signers.iter().map(|s| (*s).to_owned()).collect(),
                proofs: signers.len() as u32,
                digest: answered.then(|| "00".repeat(32)),
                error: (!answered).then(|| "timeout".to_owned()),
            },
        ));
        self
    }

    /// Feedback with a value in whole points.
    pub fn review(&mut self, d: i64, agent_id: u64, client: &str, value: i64) -> &mut Self {
        let index = self.feedback.len() as u64 + 1;
        self.feedback.push((
            d,
            FeedbackRow {
                agent_id,
                client: client.into(),
                feedback_index: index,
                value,
                value_decimals: 0,
                tag1: "starred".into(),
                tag2: String::new(),
                revoked: false,
                block_time: at(d, 3_600),
            },
        ));
        self
    }

    pub fn receipt(&mut self, d: i64, buyer: &str, agent: &str, success: bool) -> &mut Self {
        self.receipts.push((
            d,
            ReceiptRow {
                buyer: buyer.into(),
                agent: agent.into(),
                tx_hash: None,
                success,
                latency_ms: Some(100),
                rating: None,
                comment: None,
                received_at: at(d, 7_200),
            },
        ));
        self
    }

    /// A receipt that cites the `n`-th payment of this builder by its transaction hash, spelled in
    /// upper case as a client might send it.
    pub fn receipt_citing(&mut self, d: i64, buyer: &str, agent: &str, success: bool, n: u32) -> &mut Self {
        self.receipt(d, buyer, agent, success);
        self.receipts.last_mut().expect("pushed").1.tx_hash = Some(format!("0X{n:064X}"));
        self
    }

    /// One probe a day of `resource` on days `from..=LAST`, written as before methodology 3.1
    /// (the offer's wallets not recorded: `offer` alone says whether it matched a listing).
    pub fn probes(&mut self, resource: &str, from: i64, status: Option<u32>, offer: Option<bool>) -> &mut Self {
        self.probes_naming(resource, from, status, offer, &[])
    }

    /// One probe a day of `resource` on days `from..=LAST` whose 402 (when `offer` is some) asks
    /// `pay_tos` to be paid.
    pub fn probes_naming(
        &mut self,
        resource: &str,
        from: i64,
        status: Option<u32>,
        offer: Option<bool>,
        pay_tos: &[&str],
    ) -> &mut Self {
        let mut named: Vec<String> = pay_tos.iter().map(|a| a.to_ascii_lowercase()).collect();
        named.sort();
        named.dedup();
        for d in from..=i64::from(LAST) {
            self.probes.push((
                d,
                ProbeRow {
                    resource: resource.into(),
                    probed_at: at(d, 600),
                    status,
                    ok: status.is_some_and(|s| [200, 201, 204, 401, 402, 403, 405].contains(&s)),
                    latency_ms: status.map(|_| 100 + d as u32),
                    error: status.is_none().then(|| "timeout".into()),
                    offer_version: offer.map(|_| 2),
                    offer_matches: offer,
                    offer_pay_tos: if offer.is_some() { named.clone() } else { Vec::new() },
                },
            ));
        }
        self
    }

    /// `domain` ranked `rank` in the list fetched on day `d`.
    pub fn rank(&mut self, d: i64, domain: &str, rank: u32) -> &mut Self {
        self.ranks.push((
            d,
            DomainRankRow {
                domain: domain.into(),
                rank,
                list: "tranco".into(),
                list_id: "test".into(),
                source: "test".into(),
                fetched_at: at(d, 60),
            },
        ));
        self
    }

    /// agentrep's paid call to `resource` of `pay_to` on day `d`: `settled` (the money moved) and
    /// `delivered`.
    pub fn paid_probe(&mut self, d: i64, resource: &str, pay_to: &str, settled: bool, delivered: bool) -> &mut Self {
        self.tx += 1;
        self.paid.push((
            d,
            PaidProbeRow {
                resource: resource.into(),
                pay_to: pay_to.into(),
                probed_at: at(d, 7_200),
                payer: addr(0xa9e),
                network: BASE.into(),
                asset: USDC.into(),
                amount: 10_000,
                nonce: format!("0x{:064x}", self.tx),
                status: Some(if delivered { 200 } else { 500 }),
                body_bytes: if delivered { 100 } else { 0 },
                delivered,
                settled: Some(settled),
                tx_hash: None,
                error: (!delivered).then(|| "http-500".into()),
            },
        ));
        self
    }

    /// agentrep's settled paid call to `resource` of `pay_to` on day `d`, answered with `status`
    /// (`None`: nothing answered) and a body of `body_bytes`.
    pub fn paid_answer(
        &mut self,
        d: i64,
        resource: &str,
        pay_to: &str,
        status: Option<u32>,
        body_bytes: u64,
    ) -> &mut Self {
        self.paid_probe(d, resource, pay_to, true, false);
        let row = &mut self.paid.last_mut().expect("pushed").1;
        row.status = status;
        row.body_bytes = body_bytes;
        row.delivered = status.is_some_and(|s| (200..300).contains(&s)) && body_bytes > 0;
        row.error = (!row.delivered).then(|| status.map_or("timeout".to_owned(), |s| format!("http-{s}")));
        self
    }

    pub fn deny(&mut self, address: &str) -> &mut Self {
        self.lists.push((
            -1,
            ListEntryRow {
                address: address.into(),
                list: "deny".into(),
                source: "test".into(),
                category: "scam:test".into(),
                added_at: at(-1, 0),
            },
        ));
        self
    }

    /// A token launched on day `d` with one observation a day: `path` gives (liquidity USDC,
    /// price, creator holding) by days since launch.
    pub fn launch(&mut self, token: &str, deployer: &str, d: i64, path: &[(u64, f64, f64)]) -> &mut Self {
        self.launches.push((
            d,
            LaunchRow {
                token: token.into(),
                deployer: deployer.into(),
                platform: "clanker".into(),
                name: "T".into(),
                symbol: "T".into(),
                launched_at: at(d, 60),
            },
        ));
        for (i, (liquidity, price, holding)) in path.iter().enumerate() {
            self.observations.push((
                d + i as i64,
                LaunchObservationRow {
                    token: token.into(),
                    liquidity: liquidity * 1_000_000,
                    swaps: 10,
                    holders: 10,
                    price: *price,
                    creator_holding: *holding,
                },
            ));
        }
        self
    }

    /// One more observation of a token on day `d` (an indexer re-run writes a second row).
    pub fn observe(&mut self, token: &str, d: i64, liquidity: u64, price: f64, holding: f64) -> &mut Self {
        self.observations.push((
            d,
            LaunchObservationRow {
                token: token.into(),
                liquidity: liquidity * 1_000_000,
                swaps: 10,
                holders: 10,
                price,
                creator_holding: holding,
            },
        ));
        self
    }

    /// An auth-capture escrow event of a payment from `payer` to `receiver`, operated by `operator`
    /// (anyone may open a payment to anyone with themselves as operator).
    pub fn escrow_event(
        &mut self,
        d: i64,
        action: agentrep_lake::EscrowAction,
        operator: &str,
        payer: &str,
        receiver: &str,
        amount: u64,
    ) -> &mut Self {
        self.tx += 1;
        self.escrow.push((
            d,
            EscrowEventRow {
                tx_hash: format!("0x{:064x}", self.tx),
                log_index: 1,
                block_number: u64::from(self.tx),
                block_time: at(d, 600),
                escrow: "0xbdea0d1bcc5966192b070fdf62ab4ef5b4420cff".into(),
                action: Some(action),
                payment: format!("0x{:064x}", 0xe5c0_0000u64 + u64::from(self.tx)),
                operator: operator.into(),
                payer: payer.into(),
                receiver: receiver.into(),
                token: USDC.into(),
                amount,
                fee: None,
            },
        ));
        self
    }

    /// The sellers of the day LAST, rebuilt from this lake written into a temporary folder.
    pub fn rebuild_sellers(&self) -> Vec<agentrep_model::SellerRecord> {
        let dir = tempfile::tempdir().unwrap();
        let lake = self.write(dir.path());
        agentrep_pipeline::rebuild(&lake, day(i64::from(LAST))).unwrap().0.sellers
    }

    /// Writes the lake; every source has a partition for every day 0..=LAST.
    pub fn write(&self, dir: &std::path::Path) -> Lake {
        let lake = Lake::new(dir);
        let mut listings: Vec<(i64, ListingRow)> = Vec::new();
        for (resource, pay_to, price, first, from, to) in &self.listings {
            for d in *from..=*to {
                listings.push((
                    d,
                    ListingRow {
                        resource: resource.clone(),
                        pay_to: pay_to.clone(),
                        network: BASE.into(),
                        asset: USDC.into(),
                        price_atomic: *price,
                        description: Some("test api".into()),
                        tags: vec!["data".into()],
                        ecosystem: "cdp-bazaar".into(),
                        first_seen: at(*first, 0),
                        last_seen: at(d, 3_600),
                    },
                ));
            }
        }
        write_all(&lake, &listings);
        write_all(&lake, &self.settlements);
        write_all(&lake, &self.funding);
        write_all(&lake, &self.labels);
        write_all(&lake, &self.proofs);
        write_all(&lake, &self.registrations);
        write_all(&lake, &self.feedback);
        write_all(&lake, &self.receipts);
        write_all(&lake, &self.probes);
        write_all(&lake, &self.lists);
        write_all(&lake, &self.launches);
        write_all(&lake, &self.observations);
        write_all(&lake, &self.ranks);
        write_all(&lake, &self.paid);
        write_all(&lake, &self.cards);
        write_all(&lake, &self.origin_proofs);
        write_all(&lake, &self.escrow);
        lake
    }
}

/// Writes rows by day, and an empty partition on each day 0..=LAST without rows.
fn write_all<R: Row + Clone>(lake: &Lake, rows: &[(i64, R)]) {
    let mut by_day: BTreeMap<i64, Vec<R>> = (0..=i64::from(LAST)).map(|d| (d, Vec::new())).collect();
    for (d, row) in rows {
        by_day.entry(*d).or_default().push(row.clone());
    }
    for (d, rows) in by_day {
        lake.write_partition(day(d), &rows).unwrap();
    }
}
