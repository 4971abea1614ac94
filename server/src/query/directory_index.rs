//! The directory rows of a snapshot with their lookups (proofs by type and address, the
//! denylist, identities by wallet, funding by funded wallet, funders' fan-out, top buyers), built
//! once per snapshot; `directory.rs` reads them.

use std::collections::{BTreeMap, HashMap};

use agentrep_model::usdc;
use agentrep_publish::counterparties::Counterparties;
use agentrep_publish::reader::DirectoryRows;
use agentrep_publish::wire::{BuyerV1, IdentityRowV1};

/// Buyers `/top-buyers` can list.
pub const TOP_BUYERS: usize = 100;

/// The directory rows with their lookups, built once per snapshot.
#[derive(Debug, Default, Clone)]
pub struct DirectoryIndex {
    /// Rows as published.
    pub rows: DirectoryRows,
    pub(crate) proofs_by_type: BTreeMap<String, Vec<u32>>,
    pub(crate) proofs_by_address: HashMap<String, Vec<u32>>,
    pub(crate) denylist: Vec<u32>,
    pub(crate) identity_by_wallet: HashMap<String, u32>,
    pub(crate) funding_by_funded: HashMap<String, u32>,
    pub(crate) fan_out: HashMap<String, u32>,
    /// Listings by their resource's key ([`super::resource::ResourceKey`]).
    pub(crate) listings_by_url: HashMap<String, Vec<u32>>,
    /// Listings by their resource's host.
    pub(crate) listings_by_host: HashMap<String, Vec<u32>>,
    /// The biggest buyers, by qualifying spend.
    pub top_buyers: Vec<BuyerV1>,
}

impl DirectoryIndex {
    /// Builds the lookups; `counterparties` give the buyers.
    pub fn build(rows: DirectoryRows, counterparties: &Counterparties) -> Self {
        let mut proofs_by_type: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (i, p) in rows.proofs.iter().enumerate() {
            proofs_by_type.entry(p.kind.clone()).or_default().push(i as u32);
        }
        let mut proofs_by_address: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, p) in rows.proofs.iter().enumerate() {
            proofs_by_address.entry(p.address.clone()).or_default().push(i as u32);
        }
        for ids in proofs_by_type.values_mut() {
            ids.sort_by(|a, b| rows.proofs[*a as usize].address.cmp(&rows.proofs[*b as usize].address));
        }
        let mut denylist: Vec<u32> =
            rows.lists.iter().enumerate().filter(|(_, l)| l.list == "deny").map(|(i, _)| i as u32).collect();
        denylist.sort_by(|a, b| rows.lists[*a as usize].address.cmp(&rows.lists[*b as usize].address));
        let mut identity_by_wallet = HashMap::new();
        for (i, id) in rows.identities.iter().enumerate() {
            if let Some(w) = &id.agent_wallet {
                identity_by_wallet.entry(w.clone()).or_insert(i as u32);
            }
        }
        let funding_by_funded = rows.funding.iter().enumerate().map(|(i, f)| (f.funded.clone(), i as u32)).collect();
        let mut fan_out: HashMap<String, u32> = HashMap::new();
        for f in &rows.funding {
            *fan_out.entry(f.funder.clone()).or_default() += 1;
        }
        let mut listings_by_url: HashMap<String, Vec<u32>> = HashMap::new();
        let mut listings_by_host: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, l) in rows.listings.iter().enumerate() {
            if let Some(key) = super::resource::ResourceKey::parse(&l.resource) {
                listings_by_host.entry(key.host.clone()).or_default().push(i as u32);
                listings_by_url.entry(key.url).or_default().push(i as u32);
            }
        }
        let top_buyers = counterparties
            .top_spenders(TOP_BUYERS)
            .into_iter()
            .map(|c| BuyerV1 {
                address: c.address,
                spent_usdc: usdc(c.spent),
                payments: c.payments,
                sellers_paid: c.sellers_paid,
                spent_7d_usdc: usdc(c.spent_7d),
                denylisted: c.denylisted,
            })
            .collect();
        Self {
            rows,
            proofs_by_type,
            proofs_by_address,
            denylist,
            identity_by_wallet,
            funding_by_funded,
            fan_out,
            listings_by_url,
            listings_by_host,
            top_buyers,
        }
    }

    /// This index with `listings` added (the claims an overlay carries, crawled since the
    /// snapshot): what the URL preflight reads in a lowered snapshot.
    pub fn with_listings(&self, listings: &[agentrep_publish::wire::ListingRowV1]) -> Self {
        let mut index = self.clone();
        for l in listings {
            let i = index.rows.listings.len() as u32;
            index.rows.listings.push(l.clone());
            if let Some(key) = super::resource::ResourceKey::parse(&l.resource) {
                index.listings_by_host.entry(key.host.clone()).or_default().push(i);
                index.listings_by_url.entry(key.url).or_default().push(i);
            }
        }
        index
    }

    /// The ERC-8004 agent whose agentWallet is `address`.
    pub fn identity(&self, address: &str) -> Option<&IdentityRowV1> {
        self.identity_by_wallet.get(address).map(|i| &self.rows.identities[*i as usize])
    }

    /// Proof types of an address.
    pub fn proofs_of(&self, address: &str) -> Vec<String> {
        self.proofs_by_address
            .get(address)
            .into_iter()
            .flatten()
            .map(|i| self.rows.proofs[*i as usize].kind.clone())
            .collect()
    }
}

impl DirectoryIndex {
    /// Whether a denylist entry names `address` (lowercase).
    pub fn is_denylisted(&self, address: &str) -> bool {
        self.denylist.binary_search_by(|i| self.rows.lists[*i as usize].address.as_str().cmp(address)).is_ok()
    }
}
