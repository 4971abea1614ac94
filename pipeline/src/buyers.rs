//! The buyer-trust pass: every launched token's buyers up to the day, each put in its class with
//! what the rest of the rebuild found about the wallet, judged by
//! [`agentrep_model::assess_buyer_base`]. Read last, after sellers, deployers and the directory;
//! nothing here feeds the scores.
//!
//! A token can have more buyers than is worth moving out of DuckDB, so the work is split: Rust
//! classes each distinct known buyer once (the model's [`classify_buyer`]) into a table, DuckDB
//! adds up every token's classes and picks its largest buyers, and only those come back.

use std::collections::{HashMap, HashSet};

use agentrep_model::buyers::params::LISTED_BUYERS;
use agentrep_model::{
    BuyerClass, BuyerFacts, BuyerTrust, ClassTotal, DeployerRecord, DeployerVerdict, SellerRecord, SellerStanding,
    assess_buyer_base, classify_buyer,
};

use crate::directory::Directory;
use crate::engine::{Engine, query};
use crate::{PipelineError, carry};

/// Every launched token with its deployer (`launch_deployer`), and the (token, buyer) pairs in
/// which the buyer is the deployer's (`insiders`): first funded by it, or its first funder (from
/// the seller pass's `first_funder`, narrowed to deployers first so the pairs meet a small table).
/// Every (token, buyer) up to the day is the carried [`carry::TOKEN_BUYS`] state itself
/// (`carried_token_buys`, tokens as exact milli-tokens, so totals do not depend on the order they
/// are added in); the queries below read it where it lies, joined with these two small tables,
/// rather than copying its millions of rows into a table of their own. The lake's addresses are
/// lowercase already.
const PAIRS_SQL: &str = "
CREATE OR REPLACE TEMP TABLE launch_deployer AS SELECT token, deployer FROM carried_token_deployers;
DROP TABLE carried_token_deployers;
CREATE OR REPLACE TEMP TABLE deployer_links AS
SELECT funded AS buyer, funder AS deployer FROM first_funder WHERE funder IN (SELECT deployer FROM launch_deployer)
UNION
SELECT funder AS buyer, funded AS deployer FROM first_funder WHERE funded IN (SELECT deployer FROM launch_deployer);
CREATE OR REPLACE TEMP TABLE insiders AS
SELECT l.token, k.buyer FROM launch_deployer l JOIN deployer_links k USING (deployer);
DROP TABLE deployer_links;
CREATE OR REPLACE TEMP TABLE buyer_classes (buyer VARCHAR PRIMARY KEY, rank UTINYINT NOT NULL)";

/// The pairs of launched tokens (a buy of a token with no launch in the lake is not judged), with
/// their row in the carried state (`r`).
const LAUNCHED_PAIRS: &str = "(SELECT carried_token_buys.rowid AS r, token, buyer, buys, milli, first_at
    FROM carried_token_buys SEMI JOIN launch_deployer USING (token))";

const DISTINCT_BUYERS_SQL: &str = "SELECT DISTINCT buyer FROM {pairs}";

/// Every token with its deployer, in token order (with or without a buy).
const TOKENS_SQL: &str = "SELECT token, deployer FROM launch_deployer ORDER BY token";

/// Per token and class (insider first, then the buyer's own class, unknown when it has none).
const TOTALS_SQL: &str = "
SELECT token, rank, count(*)::UINTEGER AS buyers, sum(buys)::UBIGINT AS buys, sum(milli)::DOUBLE / 1e3 AS tokens
FROM (
    SELECT t.token, CASE WHEN i.buyer IS NOT NULL THEN 0 ELSE coalesce(c.rank, {unknown}) END::UTINYINT AS rank,
           t.buys, t.milli
    FROM {pairs} t LEFT JOIN insiders i USING (token, buyer) LEFT JOIN buyer_classes c USING (buyer)
)
GROUP BY 1, 2";

/// Each token's largest buyers by tokens bought (ties by a hash of the address, so the pick is
/// the same every run): a top-n aggregate of row ids, far cheaper than a window over every pair.
const TOP_SQL: &str = "
SELECT t.token, t.buyer, t.buys::UINTEGER AS buys, t.milli::DOUBLE / 1e3 AS tokens,
       epoch(t.first_at)::BIGINT AS first_at, i.buyer IS NOT NULL AS insider
FROM (
    SELECT unnest(max_by(r, milli::HUGEINT * 18446744073709551616 + hash(buyer)::HUGEINT, {listed})) AS r
    FROM {pairs} GROUP BY token
) x JOIN carried_token_buys t ON t.rowid = x.r
LEFT JOIN insiders i ON i.token = t.token AND i.buyer = t.buyer";

/// The pass's tables, dropped once read (the carried state holds every pair).
const DROP_SQL: &str =
    "DROP TABLE carried_token_buys; DROP TABLE insiders; DROP TABLE buyer_classes; DROP TABLE launch_deployer";

/// What the rest of the rebuild knows about wallets, by address.
struct Known<'a> {
    sellers: HashMap<&'a str, &'a SellerRecord>,
    agents: HashSet<&'a str>,
    denylisted: HashSet<&'a str>,
    rug_deployers: HashSet<&'a str>,
}

impl<'a> Known<'a> {
    fn new(sellers: &'a [SellerRecord], deployers: &'a [DeployerRecord], directory: &'a Directory) -> Self {
        let agents = directory
            .identities
            .iter()
            .flat_map(|i| std::iter::once(i.owner.as_str()).chain(i.agent_wallet.as_deref()))
            .collect();
        let denylisted = directory.lists.iter().filter(|l| l.list == "deny").map(|l| l.address.as_str()).collect();
        let rug_deployers = deployers
            .iter()
            .filter(|d| d.assessment.verdict == DeployerVerdict::Avoid || d.assessment.sketchy)
            .map(|d| d.address.as_str())
            .collect();
        Self { sellers: sellers.iter().map(|s| (s.address.as_str(), s)).collect(), agents, denylisted, rug_deployers }
    }

    /// A buyer's facts: what is known of the wallet, plus its buys of one token.
    fn facts(&self, address: String, buys: u32, tokens: f64, first_at: i64, insider: bool) -> BuyerFacts {
        let a = address.as_str();
        BuyerFacts {
            seller: self.sellers.get(a).map(|s| SellerStanding {
                score: s.assessment.score,
                color: s.assessment.color,
                flags: s.assessment.flags.iter().map(|h| h.key).collect(),
            }),
            registered_agent: self.agents.contains(a),
            denylisted: self.denylisted.contains(a),
            rug_deployer: self.rug_deployers.contains(a),
            buys,
            tokens,
            first_at,
            insider,
            address,
        }
    }
}

fn duckdb(pass: &'static str) -> impl Fn(duckdb::Error) -> PipelineError {
    move |source| PipelineError::Duckdb { pass, source }
}

/// Judges every token launched up to the day (one without a buy is `MIXED`, with nothing to judge).
pub(crate) fn assess(
    db: &Engine,
    sellers: &[SellerRecord],
    deployers: &[DeployerRecord],
    directory: &Directory,
) -> Result<Vec<BuyerTrust>, PipelineError> {
    let known = Known::new(sellers, deployers, directory);
    carry::materialise(db, &carry::TOKEN_DEPLOYERS)?;
    carry::materialise(db, &carry::TOKEN_BUYS)?;
    db.execute("buyer pairs", PAIRS_SQL)?;

    // Each distinct buyer's own class, once; unknown ones are left out of the table.
    let fill = |sql: &str| {
        sql.replace("{pairs}", LAUNCHED_PAIRS)
            .replace("{unknown}", &BuyerClass::Unknown.rank().to_string())
            .replace("{listed}", &LISTED_BUYERS.to_string())
    };
    let buyers = query(db, "buyers", &fill(DISTINCT_BUYERS_SQL), |r| r.get::<_, String>("buyer"))?;
    {
        let mut appender = db.conn.appender("buyer_classes").map_err(duckdb("buyer classes"))?;
        for buyer in buyers {
            let (class, _) = classify_buyer(&known.facts(buyer.clone(), 0, 0.0, 0, false));
            if class != BuyerClass::Unknown {
                appender.append_row(duckdb::params![buyer, class.rank()]).map_err(duckdb("buyer classes"))?;
            }
        }
        appender.flush().map_err(duckdb("buyer classes"))?;
    }

    let mut totals: HashMap<String, Vec<ClassTotal>> = HashMap::new();
    for (token, total) in query(db, "buyer totals", &fill(TOTALS_SQL), |r| {
        let class = BuyerClass::from_rank(r.get("rank")?).unwrap_or(BuyerClass::Unknown);
        Ok((
            r.get::<_, String>("token")?,
            ClassTotal { class, buyers: r.get("buyers")?, buys: r.get("buys")?, tokens: r.get("tokens")? },
        ))
    })? {
        totals.entry(token).or_default().push(total);
    }
    let mut top: HashMap<String, Vec<BuyerFacts>> = HashMap::new();
    for (token, facts) in query(db, "top buyers", &fill(TOP_SQL), |r| {
        let facts =
            known.facts(r.get("buyer")?, r.get("buys")?, r.get("tokens")?, r.get("first_at")?, r.get("insider")?);
        Ok((r.get::<_, String>("token")?, facts))
    })? {
        top.entry(token).or_default().push(facts);
    }
    let tokens =
        query(db, "buyer tokens", TOKENS_SQL, |r| Ok((r.get::<_, String>("token")?, r.get::<_, String>("deployer")?)))?;
    db.execute("buyer pairs", DROP_SQL)?;
    Ok(tokens
        .into_iter()
        .map(|(token, deployer)| {
            let totals = totals.remove(&token).unwrap_or_default();
            let mut top = top.remove(&token).unwrap_or_default();
            top.sort_by(|a, b| b.tokens.total_cmp(&a.tokens).then_with(|| a.address.cmp(&b.address)));
            assess_buyer_base(&token, &deployer, &totals, top)
        })
        .collect())
}
