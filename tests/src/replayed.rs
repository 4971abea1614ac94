//! A small world replayed onto a real local chain, with the fixture servers that stand for the
//! rest of the outside world, and `agentrep ingest` pointed at them: what the ingest's
//! end-to-end, fault and scheduler tests share.
//!
//! [`ReplayedWorld::shared`] builds it once per test run: the tiny world over 3 days, thinned
//! (the replay costs one anvil block per second that has a fact), replayed onto anvil and dumped;
//! every test then starts its own anvil from the dump ([`ReplayedWorld::node`]), so tests never
//! see each other's chain. [`ReplayedWorld::bazaars`] serves the world's listings as x402 Bazaar
//! discovery, one server per ecosystem (the ingest names a listing's ecosystem after the
//! discovery source that listed it), in chain terms (payTo translated), v1 and v2 items mixed and
//! a few malformed items among them. [`ReplayedWorld::undisturbed_ingest`] is one undisturbed
//! ingest of it, written once: what the ingest tests check and compare disturbed runs with.
//!
//! [`ReplayedWorld::to_world`] carries an ingested lake back into world terms (addresses, tokens,
//! agent ids, feedback indices and settlement transaction hashes), which is what the tests
//! compare and rebuild.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_ingest::sources::{Bounds, SourceName};
use agentrep_jobs::cli::SourceArg;
use agentrep_jobs::ingest::{Clock, IngestArgs};
use agentrep_lake::datasets::{
    FeedbackRow, FundingRow, LaunchObservationRow, LaunchRow, ListingRow, ProofRow, ReceiptRow, RegistrationRow,
    SettlementRow, TokenBuyRow,
};
use agentrep_lake::{Lake, Row};
use alloy::primitives::Address;
use anyhow::Context;
use chrono::NaiveDate;

use crate::chain::anvil::{Anvil, AnvilOptions};
use crate::chain::replay::{Replay, ReplayOptions, replay_on_new_anvil};
use crate::chain::{Thinning, thin_world};
use crate::fixtures::{BazaarFixture, BazaarOptions, Behaviour, SellerFixture, malformed_items, v1_item, v2_item};

/// Days of the replayed world (the generator's least).
pub const DAYS: u32 = 3;

/// The sources the tests run, in `SourceName::ALL`'s order (settlements need listings; funding
/// needs every actor): all but labels, agent cards and probes, whose facts a replay cannot date.
pub const CHAIN_SOURCES: &[SourceName] = &[
    SourceName::Marketplace,
    SourceName::Settlements,
    SourceName::Erc8004,
    SourceName::Launches,
    SourceName::Funding,
    SourceName::Proofs,
];

/// The world, its replay and the chain's dump.
#[derive(Debug)]
pub struct ReplayedWorld {
    dir: tempfile::TempDir,
    /// The replay: the address, token, agent and feedback maps.
    pub replay: Replay,
    /// The world's days.
    pub days: Vec<NaiveDate>,
    /// The lake of [`ReplayedWorld::undisturbed_ingest`], once it was written.
    undisturbed: OnceLock<Lake>,
}

impl ReplayedWorld {
    /// The replayed world of the test run, built on first use (about two minutes).
    ///
    /// # Panics
    /// When the world cannot be generated or replayed.
    pub fn shared() -> &'static ReplayedWorld {
        static SHARED: OnceLock<ReplayedWorld> = OnceLock::new();
        SHARED.get_or_init(|| {
            // Its own runtime on its own thread: callers may be inside a runtime already.
            std::thread::spawn(|| {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("runtime");
                rt.block_on(Self::build()).expect("the world replays")
            })
            .join()
            .expect("replay thread")
        })
    }

    async fn build() -> anyhow::Result<ReplayedWorld> {
        let dir = crate::shared_tempdir("replay")?;
        let config = WorldConfig { days: DAYS, ..WorldConfig::new(Scale::Tiny) };
        let generated = dir.path().join("generated");
        agentrep_datasets::generate(&config, &generated, &|_, _| {})?;
        thin_world(&Lake::new(&generated), &dir.path().join("world"), &Thinning::default())?;
        std::fs::remove_dir_all(&generated)?;
        let world = Lake::new(dir.path().join("world"));
        let (anvil, replay) = replay_on_new_anvil(&world, &ReplayOptions::default()).await?;
        // A block after the world's last second closes it: readers take a second only once a
        // later block shows it is complete. It comes at the next midnight, as on a live chain.
        let last = *replay.block_times.last().context("an empty replay")?;
        anvil.mine_at((last / 86_400 + 1) * 86_400).await?;
        anvil.dump_state(&dir.path().join("chain.json")).await?;
        Ok(ReplayedWorld { dir, replay, days: config.days(), undisturbed: OnceLock::new() })
    }

    /// What an undisturbed ingest of the replayed chain writes (every chain source, on a node and
    /// discovery servers of its own, from the world's receipts as the export job leaves them):
    /// the lake the ingest tests check against the world and compare disturbed runs with, written
    /// once per test run (about a minute). Read it; copy it before writing into it.
    ///
    /// # Panics
    /// When the ingest fails.
    pub fn undisturbed_ingest(&self) -> Lake {
        self.undisturbed
            .get_or_init(|| {
                // Its own runtime on its own thread: callers may be inside a runtime already.
                std::thread::scope(|scope| {
                    scope
                        .spawn(|| {
                            let rt = tokio::runtime::Builder::new_multi_thread()
                                .worker_threads(2)
                                .enable_all()
                                .build()
                                .expect("runtime");
                            rt.block_on(self.ingest_undisturbed()).expect("the replayed chain ingests")
                        })
                        .join()
                        .expect("ingest thread")
                })
            })
            .clone()
    }

    async fn ingest_undisturbed(&self) -> anyhow::Result<Lake> {
        let anvil = self.node();
        let bazaars = self.bazaars();
        let config_dir = self.dir.path().join("undisturbed-config");
        std::fs::create_dir_all(&config_dir)?;
        let config = self.write_config(&config_dir, anvil.url(), &bazaars);
        let lake = Lake::new(self.dir.path().join("undisturbed"));
        self.seed_receipts(&lake)?;
        let started = std::time::Instant::now();
        ingest(lake.root(), &config, CHAIN_SOURCES).await?;
        eprintln!("the undisturbed ingest took {:.1} s", started.elapsed().as_secs_f64());
        Ok(lake)
    }

    /// The (thinned) world lake the chain was replayed from: what an ingest must reproduce.
    /// Read it; copy it before writing into it.
    pub fn world(&self) -> Lake {
        Lake::new(self.world_dir())
    }

    /// The world lake's folder.
    pub fn world_dir(&self) -> PathBuf {
        self.dir.path().join("world")
    }

    /// A new anvil holding the replayed chain, keeping the last 64 blocks' states so a test can
    /// reorg them ([`crate::chain::reorg::reorg`]).
    ///
    /// # Panics
    /// When anvil does not start.
    pub fn node(&self) -> Anvil {
        let opts = AnvilOptions {
            load_state: Some(self.dir.path().join("chain.json")),
            keep_states: Some(64),
            ..AnvilOptions::default()
        };
        Anvil::start_with(&opts).expect("anvil starts from the replayed chain")
    }

    /// The world's newest listings (its last crawl), in world terms.
    ///
    /// # Panics
    /// When the world has no listings.
    pub fn last_listings(&self) -> (NaiveDate, Vec<ListingRow>) {
        let world = self.world();
        let last = world.partitions(agentrep_lake::Dataset::Listings).expect("listings").last().expect("a crawl").date;
        (last, world.read_partition::<ListingRow>(last).expect("listings read"))
    }

    /// Bazaar discovery servers for the world's newest listings, one per ecosystem, in chain terms:
    /// every other item in the v1 shape, and the malformed items among them.
    pub fn bazaars(&self) -> Vec<(String, BazaarFixture)> {
        let (_, listings) = self.last_listings();
        let mut by_ecosystem: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        for (i, listing) in listings.iter().enumerate() {
            let chain = ListingRow { pay_to: self.replay.translate(&listing.pay_to), ..listing.clone() };
            let item = if i % 2 == 0 { v2_item(&chain) } else { v1_item(&chain) };
            by_ecosystem.entry(listing.ecosystem.clone()).or_default().push(item);
        }
        by_ecosystem
            .into_iter()
            .map(|(ecosystem, mut items)| {
                // Bad items in the middle of the pages: skipped and counted, never fatal.
                let at = items.len() / 2;
                items.splice(at..at, malformed_items().into_iter().map(|(item, _)| item));
                (
                    ecosystem,
                    BazaarFixture::start_with(items, BazaarOptions { page_size: 7, ..BazaarOptions::default() }),
                )
            })
            .collect()
    }

    /// Like [`ReplayedWorld::bazaars`], but every listed resource is an endpoint of one loopback
    /// seller fixture (`/r<i>`) answering the listing's correct 402, so probes stay on loopback.
    pub fn bazaars_with_sellers(&self) -> (Vec<(String, BazaarFixture)>, SellerFixture) {
        self.bazaars_with_sellers_hosted(&BTreeMap::new())
    }

    /// Like [`ReplayedWorld::bazaars_with_sellers`], with the listings of the sellers in `hosted`
    /// (world payTo → host name) served under that host name instead of `127.0.0.1` (resolved to
    /// loopback with `probes.hosts`).
    pub fn bazaars_with_sellers_hosted(
        &self,
        hosted: &BTreeMap<String, String>,
    ) -> (Vec<(String, BazaarFixture)>, SellerFixture) {
        let (_, listings) = self.last_listings();
        let endpoints = listings
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let version = if i % 2 == 0 { 2 } else { 1 };
                let offer = Behaviour::Offer402 {
                    version,
                    pay_to: self.replay.translate(&l.pay_to),
                    asset: l.asset.clone(),
                    network: l.network.clone(),
                    amount: l.price_atomic,
                };
                (format!("/r{i}"), offer)
            })
            .collect();
        let sellers = SellerFixture::start(endpoints);
        let mut by_ecosystem: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        for (i, listing) in listings.iter().enumerate() {
            let url = sellers.url(&format!("/r{i}"));
            let resource = match hosted.get(&listing.pay_to) {
                Some(host) => url.replacen("127.0.0.1", host, 1),
                None => url,
            };
            let chain = ListingRow { pay_to: self.replay.translate(&listing.pay_to), resource, ..listing.clone() };
            let item = if i % 2 == 0 { v2_item(&chain) } else { v1_item(&chain) };
            by_ecosystem.entry(listing.ecosystem.clone()).or_default().push(item);
        }
        let bazaars = by_ecosystem
            .into_iter()
            .map(|(ecosystem, items)| (ecosystem, BazaarFixture::start_with(items, BazaarOptions::default())))
            .collect();
        (bazaars, sellers)
    }

    /// An `agentrep.toml` for `rpc` and these discovery servers: the chain read to its head (no
    /// confirmations: anvil's blocks are final), history from block 0, nothing else fetched
    /// (no facilitator refresh, no Farcaster hub), every fetch kept on loopback: probes may reach the
    /// loopback sellers of [`ReplayedWorld::bazaars_with_sellers`] (at most 1,000 a second), and
    /// registration files go to a closed loopback port instead of an IPFS gateway.
    pub fn config(&self, rpc: &str, bazaars: &[(String, BazaarFixture)]) -> String {
        let mut toml = format!(
            "[chain]\nrpc_urls = [\"{rpc}\"]\nuse_finalized = false\nconfirmations = 0\nreorg_depth = 8\n\
             start_block = 0\nrequest_timeout_ms = 5000\ninitial_backoff_ms = 20\n\n\
             [facilitators]\nrefresh = false\n\n[marketplace]\npage_size = 7\n\n\
             [probes]\nallow_private_targets = true\nper_host_per_second = 1000\ntimeout_ms = 2000\n\
             ipfs_gateway = \"http://127.0.0.1:9/ipfs/\"\n"
        );
        for (ecosystem, bazaar) in bazaars {
            toml.push_str(&format!(
                "\n[[marketplace.discovery]]\necosystem = \"{ecosystem}\"\nurl = \"{}\"\n",
                bazaar.discovery_url()
            ));
        }
        toml
    }

    /// The world's labels and lists as an operator configures them (chain terms): its facilitators'
    /// signers (`[[facilitators.list]]`), its exchange and bridge labels and its deny and allow
    /// entries (`[labels]`), so a deployment that ingests the replayed chain attributes its
    /// settlements and reads its lists as the world does. Appended to [`ReplayedWorld::config`].
    ///
    /// # Errors
    /// When the world lake cannot be read.
    pub fn operator_config(&self) -> anyhow::Result<String> {
        use agentrep_lake::datasets::{EntityLabelRow, ListEntryRow};
        let world = self.world();
        let quote = |s: &str| serde_json::to_string(s).expect("a string");
        let mut facilitators: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut extra = Vec::new();
        for (_, label) in read_dated::<EntityLabelRow>(&world)? {
            let address = self.replay.translate(&label.address);
            if label.entity == "facilitator" {
                facilitators.entry(label.name).or_default().push(quote(&address));
            } else {
                extra.push(format!(
                    "{{ address = {}, entity = {}, name = {} }}",
                    quote(&address),
                    quote(&label.entity),
                    quote(&label.name)
                ));
            }
        }
        let (mut deny, mut allow) = (Vec::new(), Vec::new());
        for (_, entry) in read_dated::<ListEntryRow>(&world)? {
            let line = format!(
                "{{ address = {}, category = {}, source = {} }}",
                quote(&self.replay.translate(&entry.address)),
                quote(&entry.category),
                quote(&entry.source)
            );
            if entry.list == "deny" { deny.push(line) } else { allow.push(line) }
        }
        let mut toml = String::new();
        for (name, mut signers) in facilitators {
            signers.sort();
            signers.dedup();
            toml.push_str(&format!(
                "
[[facilitators.list]]
name = {}
signers = [{}]
",
                quote(&name),
                signers.join(", ")
            ));
        }
        extra.sort();
        extra.dedup();
        deny.sort();
        deny.dedup();
        allow.sort();
        allow.dedup();
        toml.push_str(&format!(
            "
[labels]
extra = [
{}
]
deny = [
{}
]
allow = [
{}
]
",
            extra.join(
                ",
"
            ),
            deny.join(
                ",
"
            ),
            allow.join(
                ",
"
            )
        ));
        Ok(toml)
    }

    /// Writes [`ReplayedWorld::config`] into `dir/agentrep.toml` and returns its path.
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write_config(&self, dir: &Path, rpc: &str, bazaars: &[(String, BazaarFixture)]) -> PathBuf {
        let path = dir.join("agentrep.toml");
        std::fs::write(&path, self.config(rpc, bazaars)).expect("config written");
        path
    }

    /// Writes the world's receipts into `lake` in chain terms (buyer and agent translated), as the
    /// server's export job would have put them there before an ingest.
    ///
    /// # Errors
    /// When a lake cannot be read or written.
    pub fn seed_receipts(&self, lake: &Lake) -> anyhow::Result<()> {
        carry(&self.world(), lake, |r: ReceiptRow| ReceiptRow {
            buyer: self.replay.translate(&r.buyer),
            agent: self.replay.translate(&r.agent),
            ..r
        })
    }

    /// Writes the world's identity proofs that the chain does not replay (names: Basenames, ENS,
    /// Farcaster, Virtuals; Coinbase verifications are attestations on the chain) into `lake` in
    /// chain terms, as a deployment that gathered them would hold them.
    ///
    /// # Errors
    /// When a lake cannot be read or written.
    pub fn seed_names(&self, lake: &Lake) -> anyhow::Result<()> {
        let world = self.world();
        for p in world.partitions(agentrep_lake::Dataset::IdentityProofs)? {
            let rows: Vec<ProofRow> = world
                .read_partition::<ProofRow>(p.date)?
                .into_iter()
                .filter(|r| r.proof_type != crate::chain::plan::CB1_PROOF)
                .map(|r| ProofRow { address: self.replay.translate(&r.address), ..r })
                .collect();
            lake.write_partition(p.date, &rows)?;
        }
        Ok(())
    }

    /// Carries an ingested lake (chain terms) into a new lake at `out` in world terms: addresses,
    /// tokens, agent ids and feedback indices through the replay's maps, and each settlement's
    /// transaction hash to the world settlement it replays (matched on payer, payee, value and
    /// time), so receipts that cite world settlements still find them. Chain-only addresses (the
    /// replay's minter, router and traders) stay as they are. Only the datasets the chain sources
    /// write are carried.
    ///
    /// # Errors
    /// When a lake cannot be read or written.
    pub fn to_world(&self, ingested: &Lake, out: &Path) -> anyhow::Result<Lake> {
        let out = Lake::new(out);
        let address = |a: &str| -> String {
            a.parse::<Address>().ok().and_then(|c| self.replay.untranslate(c)).unwrap_or_else(|| a.to_owned())
        };
        let agents: HashMap<u64, u64> = self.replay.agents.iter().map(|(w, c)| (*c, *w)).collect();
        let feedback: HashMap<(u64, String, u64), u64> = self
            .replay
            .feedback_indices
            .iter()
            .map(|((agent, client, w), c)| ((*agent, client.clone(), *c), *w))
            .collect();

        // World settlement hashes by what the chain can see of them.
        let mut hashes: HashMap<(String, String, u64, i64), Vec<String>> = HashMap::new();
        for (_, s) in read_dated::<SettlementRow>(&self.world())? {
            hashes
                .entry((s.payer.clone(), s.pay_to.clone(), s.value, s.block_time.secs()))
                .or_default()
                .push(s.tx_hash);
        }
        carry(ingested, &out, |s: SettlementRow| {
            let (payer, pay_to) = (address(&s.payer), address(&s.pay_to));
            let key = (payer.clone(), pay_to.clone(), s.value, s.block_time.secs());
            let tx_hash = hashes.get_mut(&key).and_then(Vec::pop).unwrap_or(s.tx_hash);
            let facilitator = s.facilitator.as_deref().map(address);
            SettlementRow { payer, pay_to, tx_hash, facilitator, ..s }
        })?;
        carry(ingested, &out, |f: FundingRow| FundingRow {
            funded: address(&f.funded),
            funder: address(&f.funder),
            ..f
        })?;
        carry(ingested, &out, |r: RegistrationRow| RegistrationRow {
            agent_id: agents.get(&r.agent_id).copied().unwrap_or(r.agent_id),
            owner: address(&r.owner),
            agent_wallet: r.agent_wallet.as_deref().map(address),
            ..r
        })?;
        carry(ingested, &out, |f: FeedbackRow| {
            let agent_id = agents.get(&f.agent_id).copied().unwrap_or(f.agent_id);
            let client = address(&f.client);
            let feedback_index =
                feedback.get(&(agent_id, client.clone(), f.feedback_index)).copied().unwrap_or(f.feedback_index);
            FeedbackRow { agent_id, client, feedback_index, ..f }
        })?;
        carry(ingested, &out, |p: ProofRow| ProofRow { address: address(&p.address), ..p })?;
        carry(ingested, &out, |l: LaunchRow| LaunchRow {
            token: address(&l.token),
            deployer: address(&l.deployer),
            ..l
        })?;
        carry(ingested, &out, |o: LaunchObservationRow| LaunchObservationRow { token: address(&o.token), ..o })?;
        carry(ingested, &out, |b: TokenBuyRow| TokenBuyRow {
            token: address(&b.token),
            buyer: address(&b.buyer),
            ..b
        })?;
        carry(ingested, &out, |l: ListingRow| ListingRow { pay_to: address(&l.pay_to), ..l })?;
        Ok(out)
    }
}

/// Every row of a dataset with its partition day, oldest first.
///
/// # Errors
/// When the lake cannot be read.
pub fn read_dated<R: Row>(lake: &Lake) -> anyhow::Result<Vec<(NaiveDate, R)>> {
    let mut out = Vec::new();
    for p in lake.partitions(R::DATASET)? {
        out.extend(lake.read_partition::<R>(p.date)?.into_iter().map(|r| (p.date, r)));
    }
    Ok(out)
}

/// Copies every partition of `R` from `from` to `to`, mapping each row.
fn carry<R: Row>(from: &Lake, to: &Lake, map: impl FnMut(R) -> R) -> anyhow::Result<()> {
    let mut map = map;
    for p in from.partitions(R::DATASET)? {
        let rows: Vec<R> = from.read_partition::<R>(p.date)?.into_iter().map(&mut map).collect();
        to.write_partition(p.date, &rows)?;
    }
    Ok(())
}

/// Runs `agentrep ingest --source <source>` in this process against `config`, into `lake`, with
/// the chain's clock (the replayed chain's head is "now").
///
/// # Errors
/// As `agentrep ingest`.
pub async fn ingest(lake: &Path, config: &Path, sources: &[SourceName]) -> anyhow::Result<()> {
    let args = IngestArgs {
        lake: agentrep_lake::Lake::new(lake),
        rpc: None,
        config: Some(config.to_owned()),
        snapshots: lake.with_extension("snapshots"),
    };
    for source in sources {
        agentrep_jobs::ingest::ingest(&args, SourceArg::One(*source), Bounds::default(), Clock::Chain).await?;
    }
    Ok(())
}
