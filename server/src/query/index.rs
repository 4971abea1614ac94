//! The query index of a snapshot: every seller and deployer row with the lookups the queries
//! need (by address, rank order, tags, categories, words, stems), built once when a snapshot
//! loads.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use agentrep_publish::categories;
use agentrep_publish::wire::{AgentRowV1, DeployerRowV1, EvidenceTier, TagCountV1};

use super::text::{self, Field, MAX_DESCRIPTION_WORDS, WordIndex};

/// Tags `/tags` lists.
pub const TOP_TAGS: usize = 100;

/// Position of an agent row.
pub type AgentId = u32;

/// What `POST /match` filters and ranks on, one small row per seller, contiguous (a common stem
/// touches every seller).
#[derive(Debug, Clone, Copy, Default)]
pub struct MatchKey {
    /// Score when a buyer may pay the seller (ranked), else `None`.
    pub payable_score: Option<u8>,
    /// Advertised price, micro-USDC.
    pub price: Option<u64>,
    /// ERC-8004 registered.
    pub registered: bool,
    /// Has an identity proof.
    pub verified: bool,
    /// Something proves the seller (`evidenceTier: proven`): ranked before unproven matches.
    pub proven: bool,
}

/// Every indexed seller and scored deployer, with lookups.
#[derive(Debug, Default, Clone)]
pub struct AgentIndex {
    /// Seller rows in address order.
    pub rows: Vec<AgentRowV1>,
    by_address: HashMap<String, AgentId>,
    /// Ranked sellers in leaderboard order.
    pub ranked: Vec<AgentId>,
    /// Every seller, best first.
    pub best: Vec<AgentId>,
    /// Lowercase tag → sellers, best first.
    pub tags: BTreeMap<String, Vec<AgentId>>,
    /// The most used tags, most used first.
    pub top_tags: Vec<TagCountV1>,
    /// Category slug → sellers: ranked ones by category rank, then the others best first.
    pub categories: HashMap<&'static str, Vec<AgentId>>,
    /// Words of descriptions and tags.
    pub words: WordIndex,
    /// Stems of descriptions and tags.
    pub stems: WordIndex,
    /// Per seller, by position: what intent matching filters on.
    pub match_keys: Vec<MatchKey>,
    /// Deployer rows in address order.
    pub deployers: Vec<DeployerRowV1>,
    deployer_by_address: HashMap<String, u32>,
    /// Launched token → (deployer row, launch position).
    token_launch: HashMap<String, (u32, u32)>,
}

/// Best first: score descending (unscored last), then leaderboard rank, then address.
pub fn best_first(a: &AgentRowV1, b: &AgentRowV1) -> Ordering {
    b.score
        .cmp(&a.score)
        .then_with(|| a.rank.unwrap_or(u32::MAX).cmp(&b.rank.unwrap_or(u32::MAX)))
        .then_with(|| a.address.cmp(&b.address))
}

impl AgentIndex {
    /// Builds the lookups.
    pub fn build(mut rows: Vec<AgentRowV1>, mut deployers: Vec<DeployerRowV1>) -> Self {
        rows.sort_by(|a, b| a.address.cmp(&b.address));
        deployers.sort_by(|a, b| a.address.cmp(&b.address));
        let by_address = rows.iter().enumerate().map(|(i, r)| (r.address.clone(), i as AgentId)).collect();
        let mut ranked: Vec<AgentId> =
            (0..rows.len() as AgentId).filter(|i| rows[*i as usize].rank.is_some()).collect();
        ranked.sort_by_key(|i| rows[*i as usize].rank);

        let mut best: Vec<AgentId> = (0..rows.len() as AgentId).collect();
        best.sort_by(|a, b| best_first(&rows[*a as usize], &rows[*b as usize]));

        let mut tags: BTreeMap<String, Vec<AgentId>> = BTreeMap::new();
        let mut categories: HashMap<&'static str, Vec<AgentId>> = HashMap::new();
        for &i in &best {
            let row = &rows[i as usize];
            let mut seen: Vec<String> =
                row.tags.iter().map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()).collect();
            seen.sort();
            seen.dedup();
            for tag in seen {
                tags.entry(tag).or_default().push(i);
            }
            let slug = categories::find(&row.category).map_or(categories::OTHER, |c| c.slug);
            categories.entry(slug).or_default().push(i);
        }
        for members in categories.values_mut() {
            members.sort_by(|a, b| {
                let (ra, rb) = (&rows[*a as usize], &rows[*b as usize]);
                match (ra.category_rank, rb.category_rank) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => best_first(ra, rb),
                }
            });
        }
        let mut top_tags: Vec<TagCountV1> =
            tags.iter().map(|(tag, ids)| TagCountV1 { tag: tag.clone(), count: ids.len() as u32 }).collect();
        top_tags.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.tag.cmp(&b.tag)));
        top_tags.truncate(TOP_TAGS);

        let stemmer = text::stemmer();
        let mut words = WordIndex::default();
        let mut stems = WordIndex::default();
        for (i, row) in rows.iter().enumerate() {
            let i = i as AgentId;
            let description: Vec<String> =
                text::words(row.description.as_deref().unwrap_or_default()).take(MAX_DESCRIPTION_WORDS).collect();
            let tag_words: Vec<String> = row.tags.iter().flat_map(|t| text::words(t).collect::<Vec<_>>()).collect();
            stems.add(i, Field::Description, description.iter().map(|w| text::stem(&stemmer, w)));
            stems.add(i, Field::Tag, tag_words.iter().map(|w| text::stem(&stemmer, w)));
            words.add(i, Field::Description, description);
            words.add(i, Field::Tag, tag_words);
        }
        words.finish();
        stems.finish();
        let match_keys = rows
            .iter()
            .map(|r| MatchKey {
                payable_score: if super::payable(r) { r.score } else { None },
                proven: r.evidence_tier == EvidenceTier::Proven,
                price: r.price.as_ref().and_then(|p| p.amount.parse().ok()),
                registered: r.erc8004_registered,
                verified: !r.proofs.is_empty(),
            })
            .collect();
        let deployer_by_address = deployers.iter().enumerate().map(|(i, d)| (d.address.clone(), i as u32)).collect();
        let token_launch = deployers
            .iter()
            .enumerate()
            .flat_map(|(i, d)| d.tokens.iter().enumerate().map(move |(j, t)| (t.token.clone(), (i as u32, j as u32))))
            .collect();
        Self {
            rows,
            by_address,
            ranked,
            best,
            tags,
            top_tags,
            categories,
            words,
            stems,
            match_keys,
            deployers,
            deployer_by_address,
            token_launch,
        }
    }

    /// Rewrites rows in place where an overlay lowers them: what a row says of its decision and
    /// shield only (nothing the lookups are built on moves).
    pub(crate) fn lower_rows(&mut self, mut lower: impl FnMut(&mut AgentRowV1)) {
        for row in &mut self.rows {
            lower(row);
        }
    }

    /// The row of an address (lowercase).
    pub fn agent(&self, address: &str) -> Option<&AgentRowV1> {
        self.by_address.get(address).map(|i| &self.rows[*i as usize])
    }

    /// The row at a position.
    pub fn row(&self, id: AgentId) -> &AgentRowV1 {
        &self.rows[id as usize]
    }

    /// The deployer row of an address (lowercase).
    pub fn deployer(&self, address: &str) -> Option<&DeployerRowV1> {
        self.deployer_by_address.get(address).map(|i| &self.deployers[*i as usize])
    }

    /// The deployer that launched a token, and that launch.
    pub fn launch_of(&self, token: &str) -> Option<(&DeployerRowV1, &agentrep_publish::wire::TokenLaunchV1)> {
        let (d, j) = self.token_launch.get(token)?;
        let deployer = &self.deployers[*d as usize];
        Some((deployer, &deployer.tokens[*j as usize]))
    }

    /// Sellers whose address starts with `prefix` (lowercase, `0x…`).
    pub fn address_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = AgentId> + 'a {
        let start = self.rows.partition_point(|r| r.address.as_str() < prefix);
        self.rows[start..]
            .iter()
            .take_while(move |r| r.address.starts_with(prefix))
            .enumerate()
            .map(move |(k, _)| (start + k) as AgentId)
    }

    /// Deployers whose address starts with `prefix`.
    pub fn deployer_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a DeployerRowV1> + 'a {
        let start = self.deployers.partition_point(|d| d.address.as_str() < prefix);
        self.deployers[start..].iter().take_while(move |d| d.address.starts_with(prefix))
    }
}
