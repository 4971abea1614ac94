//! The buyer-trust pass: every launched token's buyers up to the day, each with what the rest of
//! the rebuild found about the wallet, judged by [`agentrep_model::assess_buyer_base`]. Read
//! last, after sellers, deployers and the directory; nothing here feeds the scores.

use std::collections::{HashMap, HashSet};

use agentrep_model::{
    BuyerFacts, BuyerTrust, DeployerRecord, DeployerVerdict, FlagHit, SellerRecord, SellerStanding, assess_buyer_base,
};

use crate::PipelineError;
use crate::directory::Directory;
use crate::engine::{Engine, query};

/// Each (token, buyer) up to the day, with the token's deployer and whether the buyer is the
/// deployer's: first funded by it, or its first funder. A launched token without a buy gets one
/// row with a null buyer.
const BUYERS_SQL: &str = "
WITH b AS (
    SELECT lower(token) AS token, lower(buyer) AS buyer, sum(buys)::UINTEGER AS buys, sum(tokens) AS tokens,
           epoch(min(first_at))::BIGINT AS first_at
    FROM token_buys WHERE first_at < {day_end} GROUP BY 1, 2
), l AS (
    SELECT lower(token) AS token, arg_min(lower(deployer), (launched_at, deployer)) AS deployer
    FROM token_launches WHERE launched_at < {day_end} GROUP BY 1
), f AS (
    SELECT lower(funded) AS funded, arg_min(lower(funder), (first_funded_at, funder)) AS funder
    FROM funding_edges WHERE first_funded_at < {day_end} GROUP BY 1
)
SELECT l.token, l.deployer, b.buyer, b.buys, b.tokens, b.first_at,
       coalesce(fb.funder = l.deployer, false) OR coalesce(fd.funder = b.buyer, false) AS insider
FROM l LEFT JOIN b USING (token)
LEFT JOIN f fb ON fb.funded = b.buyer
LEFT JOIN f fd ON fd.funded = l.deployer
ORDER BY l.token, b.buyer";

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

    fn standing(&self, address: &str) -> Option<SellerStanding> {
        let s = self.sellers.get(address)?;
        let a = &s.assessment;
        Some(SellerStanding {
            score: a.score,
            color: a.color,
            flags: a.flags.iter().map(|h: &FlagHit| h.key.as_str().to_owned()).collect(),
        })
    }
}

/// Judges every token launched up to the day (one without a buy is `MIXED`, with nothing to judge).
pub(crate) fn assess(
    db: &Engine,
    sellers: &[SellerRecord],
    deployers: &[DeployerRecord],
    directory: &Directory,
) -> Result<Vec<BuyerTrust>, PipelineError> {
    let known = Known::new(sellers, deployers, directory);
    let rows = query(db, "buyer trust", BUYERS_SQL, |r| {
        let token: String = r.get(0)?;
        let deployer: String = r.get(1)?;
        let Some(buyer) = r.get::<_, Option<String>>(2)? else { return Ok((token, deployer, None)) };
        Ok((
            token,
            deployer,
            Some(BuyerFacts {
                seller: known.standing(&buyer),
                registered_agent: known.agents.contains(buyer.as_str()),
                denylisted: known.denylisted.contains(buyer.as_str()),
                rug_deployer: known.rug_deployers.contains(buyer.as_str()),
                buys: r.get(3)?,
                tokens: r.get(4)?,
                first_at: r.get(5)?,
                insider: r.get(6)?,
                address: buyer,
            }),
        ))
    })?;
    // Rows come in token order: one verdict per run of a token.
    let mut out = Vec::new();
    let mut rows = rows.into_iter().peekable();
    while let Some((token, deployer, first)) = rows.next() {
        let mut buyers: Vec<BuyerFacts> = first.into_iter().collect();
        while let Some((_, _, b)) = rows.next_if(|(t, _, _)| *t == token) {
            buyers.extend(b);
        }
        out.push(assess_buyer_base(&token, &deployer, buyers));
    }
    Ok(out)
}
