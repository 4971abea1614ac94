//! The buyer-trust pass: every launched token's buyers up to the day, each put in its class with
//! what the rest of the rebuild found about the wallet, judged by
//! [`agentrep_model::assess_buyer_base`]. Read last, after sellers, deployers and the directory;
//! nothing here feeds the scores.
//!
//! A token can have more buyers than is worth moving out of DuckDB, so the work is split: Rust
//! classes each distinct known buyer once (the model's [`classify_buyer`]) into a table, DuckDB
//! adds up every token's classes and picks its largest buyers (`sql/buyers.sql`, over the carried
//! `token_buys` and `token_deployers` states the stage folds before it), and only those come back.

use std::collections::{HashMap, HashSet};

use agentrep_model::buyers::params::LISTED_BUYERS;
use agentrep_model::{
    BuyerClass, BuyerFacts, BuyerTrust, ClassTotal, DeployerRecord, DeployerVerdict, SellerRecord, SellerStanding,
    assess_buyer_base, classify_buyer,
};

use crate::PipelineError;
use crate::directory::Directory;
use crate::engine::{Engine, query};
use crate::sql_files::BUYERS;

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
    db.execute("buyer pairs", BUYERS.section("prepare")?)?;

    // Each distinct buyer's own class, once; unknown ones are left out of the table.
    let launched_pairs = BUYERS.section("launched_pairs")?;
    let fill = |section: &'static str| -> Result<String, PipelineError> {
        Ok(BUYERS
            .section(section)?
            .replace("{pairs}", launched_pairs)
            .replace("{unknown}", &BuyerClass::Unknown.rank().to_string())
            .replace("{listed}", &LISTED_BUYERS.to_string()))
    };
    let buyers = query(db, "buyers", &fill("distinct_buyers")?, |r| r.get::<_, String>("buyer"))?;
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
    for (token, total) in query(db, "buyer totals", &fill("totals")?, |r| {
        let class = BuyerClass::from_rank(r.get("rank")?).unwrap_or(BuyerClass::Unknown);
        Ok((
            r.get::<_, String>("token")?,
            ClassTotal { class, buyers: r.get("buyers")?, buys: r.get("buys")?, tokens: r.get("tokens")? },
        ))
    })? {
        totals.entry(token).or_default().push(total);
    }
    let mut top: HashMap<String, Vec<BuyerFacts>> = HashMap::new();
    for (token, facts) in query(db, "top buyers", &fill("top")?, |r| {
        let facts =
            known.facts(r.get("buyer")?, r.get("buys")?, r.get("tokens")?, r.get("first_at")?, r.get("insider")?);
        Ok((r.get::<_, String>("token")?, facts))
    })? {
        top.entry(token).or_default().push(facts);
    }
    let tokens = query(db, "buyer tokens", BUYERS.section("tokens")?, |r| {
        Ok((r.get::<_, String>("token")?, r.get::<_, String>("deployer")?))
    })?;
    db.execute("buyer pairs", BUYERS.section("drop")?)?;
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
