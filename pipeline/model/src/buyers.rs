//! Buyer trust: what a launched token's buyers say about it (`SCORING.md` § 6b).
//!
//! Each buyer is put in one class from what agentrep already knows about the wallet (its own
//! seller assessment, the lists, ERC-8004, its deployer record, its first funding), and the
//! token's verdict weighs the classes by the tokens each buyer bought, so a flood of dust buys
//! moves nothing. Pure functions: the rebuild gathers the facts, this module judges them.

use serde::{Deserialize, Serialize};

use crate::decision::ShieldColor;

/// Thresholds of the verdict (`SCORING.md` § 6b).
pub mod params {
    /// Share of the bought tokens from flagged and insider buyers at which the base is bad.
    pub const BAD_SHARE: f64 = 0.30;
    /// Flagged buyers a bad base needs (unless insiders alone reach [`BAD_SHARE`]), so that one
    /// wallet of an outsider cannot brand a token.
    pub const BAD_BUYERS: u32 = 2;
    /// Share of the bought tokens from trusted buyers at which the base is strong.
    pub const STRONG_SHARE: f64 = 0.40;
    /// Share of the bought tokens from agents (trusted ones included) at which the base is an
    /// agent base.
    pub const AGENT_SHARE: f64 = 0.50;
    /// Distinct trusted (for strong) or agent (for agent) buyers either needs.
    pub const MIN_KNOWN_BUYERS: u32 = 3;
    /// Largest share of flagged and insider tokens a strong or agent base tolerates.
    pub const CLEAN_SHARE: f64 = 0.10;
    /// Buyers listed in a published verdict, by tokens bought (the totals count every buyer).
    pub const LISTED_BUYERS: usize = 100;
}

/// What the rebuild knows about one buyer of one token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuyerFacts {
    /// Lowercase address.
    pub address: String,
    /// Buys up to the day.
    pub buys: u32,
    /// Tokens bought up to the day.
    pub tokens: f64,
    /// First buy, Unix seconds.
    pub first_at: i64,
    /// Its own standing, when it is an indexed seller.
    pub seller: Option<SellerStanding>,
    /// A registered ERC-8004 agent (owner or agent wallet).
    pub registered_agent: bool,
    /// On the denylist.
    pub denylisted: bool,
    /// A deployer whose own launches say avoid (mostly rugs, or denylisted).
    pub rug_deployer: bool,
    /// First funded by the token's deployer, or the deployer's first funder.
    pub insider: bool,
}

/// An indexed seller's assessment, as far as buyer trust reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SellerStanding {
    /// Score, `None` when degraded.
    pub score: Option<u8>,
    /// Shield colour.
    pub color: ShieldColor,
    /// Keys of its raised flags.
    pub flags: Vec<String>,
}

/// What a buyer counts as, weightiest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuyerClass {
    /// Funded by the token's deployer (or funded it): the deployer buying its own token.
    Insider,
    /// Denylisted, a red-shield seller, or a deployer whose launches say avoid.
    Flagged,
    /// A seller with a green shield.
    Trusted,
    /// A registered agent or an indexed seller that is neither flagged nor trusted.
    Agent,
    /// Nothing known.
    Unknown,
}

impl BuyerClass {
    /// Every class, weightiest first.
    pub const ALL: [BuyerClass; 5] =
        [BuyerClass::Insider, BuyerClass::Flagged, BuyerClass::Trusted, BuyerClass::Agent, BuyerClass::Unknown];

    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            BuyerClass::Insider => "insider",
            BuyerClass::Flagged => "flagged",
            BuyerClass::Trusted => "trusted",
            BuyerClass::Agent => "agent",
            BuyerClass::Unknown => "unknown",
        }
    }
}

/// The verdict on a token's buyer base (seed § 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BuyerBaseVerdict {
    /// Trusted wallets bought a large share, and almost nothing came from flagged ones.
    StrongBuyerBase,
    /// Flagged wallets or the deployer's own bought a large share.
    BadBuyerBase,
    /// Agents bought most of it, and almost nothing came from flagged ones.
    AgentBuyerBase,
    /// None of the above, or too few buys to say.
    Mixed,
}

impl BuyerBaseVerdict {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            BuyerBaseVerdict::StrongBuyerBase => "STRONG_BUYER_BASE",
            BuyerBaseVerdict::BadBuyerBase => "BAD_BUYER_BASE",
            BuyerBaseVerdict::AgentBuyerBase => "AGENT_BUYER_BASE",
            BuyerBaseVerdict::Mixed => "MIXED",
        }
    }
}

/// One class's part of the buyer base.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassPart {
    /// The class.
    pub class: BuyerClass,
    /// Distinct buyers.
    pub buyers: u32,
    /// Share of the tokens bought, 0..=1.
    pub share: f64,
}

/// One buyer, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssessedBuyer {
    /// What was known.
    pub facts: BuyerFacts,
    /// What it counts as.
    pub class: BuyerClass,
    /// Why, one short phrase per signal.
    pub signals: Vec<String>,
    /// Its share of the tokens bought, 0..=1.
    pub share: f64,
}

/// A token's buyer base, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuyerTrust {
    /// Token address, lowercase.
    pub token: String,
    /// Its deployer, lowercase.
    pub deployer: String,
    /// The verdict.
    pub verdict: BuyerBaseVerdict,
    /// Distinct buyers.
    pub buyers: u32,
    /// Buys.
    pub buys: u64,
    /// Tokens bought.
    pub tokens: f64,
    /// Every class's part, in [`BuyerClass::ALL`] order.
    pub parts: Vec<ClassPart>,
    /// Why the verdict is what it is.
    pub reasons: Vec<String>,
    /// The largest buyers, by tokens bought, at most [`params::LISTED_BUYERS`].
    pub top: Vec<AssessedBuyer>,
}

impl BuyerTrust {
    /// A class's part.
    pub fn part(&self, class: BuyerClass) -> ClassPart {
        self.parts.iter().copied().find(|p| p.class == class).unwrap_or(ClassPart { class, buyers: 0, share: 0.0 })
    }
}

/// The class of one buyer, and the signals behind it.
pub fn classify_buyer(b: &BuyerFacts) -> (BuyerClass, Vec<String>) {
    let mut signals = Vec::new();
    if b.insider {
        signals.push("first funded by the token's deployer (or funded it)".to_owned());
        return (BuyerClass::Insider, signals);
    }
    if b.denylisted {
        signals.push("on the denylist".to_owned());
    }
    if b.rug_deployer {
        signals.push("deploys tokens that get rugged".to_owned());
    }
    if let Some(s) = b.seller.as_ref().filter(|s| s.color == ShieldColor::Red) {
        signals.push(format!("red-shield seller ({})", s.flags.join(", ")));
    }
    if !signals.is_empty() {
        return (BuyerClass::Flagged, signals);
    }
    if let Some(s) = &b.seller {
        let score = s.score.map_or_else(|| "unscored".to_owned(), |v| format!("score {v}"));
        if s.color == ShieldColor::Green {
            signals.push(format!("green-shield seller, {score}"));
            return (BuyerClass::Trusted, signals);
        }
        signals.push(format!("yellow-shield seller, {score}"));
        return (BuyerClass::Agent, signals);
    }
    if b.registered_agent {
        signals.push("registered ERC-8004 agent".to_owned());
        return (BuyerClass::Agent, signals);
    }
    (BuyerClass::Unknown, signals)
}

/// Judges a token's buyer base from every buyer's facts (any order).
pub fn assess_buyer_base(token: &str, deployer: &str, buyers: Vec<BuyerFacts>) -> BuyerTrust {
    use params::*;
    let total: f64 = buyers.iter().map(|b| b.tokens.max(0.0)).sum();
    let share = |tokens: f64| if total > 0.0 { tokens.max(0.0) / total } else { 0.0 };
    let mut assessed: Vec<AssessedBuyer> = buyers
        .into_iter()
        .map(|facts| {
            let (class, signals) = classify_buyer(&facts);
            let share = share(facts.tokens);
            AssessedBuyer { facts, class, signals, share }
        })
        .collect();
    let parts: Vec<ClassPart> = BuyerClass::ALL
        .iter()
        .map(|&class| {
            let of: Vec<&AssessedBuyer> = assessed.iter().filter(|a| a.class == class).collect();
            ClassPart { class, buyers: of.len() as u32, share: of.iter().map(|a| a.share).sum() }
        })
        .collect();
    let part = |c: BuyerClass| parts.iter().find(|p| p.class == c).copied().expect("every class");
    let (insider, flagged, trusted, agent) =
        (part(BuyerClass::Insider), part(BuyerClass::Flagged), part(BuyerClass::Trusted), part(BuyerClass::Agent));
    let bad_share = insider.share + flagged.share;
    let pct = |s: f64| format!("{:.0}%", s * 100.0);
    let mut reasons = Vec::new();
    let verdict = if assessed.is_empty() {
        reasons.push("no buys observed: nothing to judge".to_owned());
        BuyerBaseVerdict::Mixed
    } else if insider.share >= BAD_SHARE || (bad_share >= BAD_SHARE && insider.buyers + flagged.buyers >= BAD_BUYERS) {
        reasons.push(format!(
            "{} of the tokens bought went to {} flagged and {} insider wallets",
            pct(bad_share),
            flagged.buyers,
            insider.buyers
        ));
        BuyerBaseVerdict::BadBuyerBase
    } else if bad_share <= CLEAN_SHARE && trusted.share >= STRONG_SHARE && trusted.buyers >= MIN_KNOWN_BUYERS {
        reasons.push(format!(
            "{} of the tokens bought went to {} green-shield sellers",
            pct(trusted.share),
            trusted.buyers
        ));
        BuyerBaseVerdict::StrongBuyerBase
    } else if bad_share <= CLEAN_SHARE
        && trusted.share + agent.share >= AGENT_SHARE
        && trusted.buyers + agent.buyers >= MIN_KNOWN_BUYERS
    {
        reasons.push(format!(
            "{} of the tokens bought went to {} agents",
            pct(trusted.share + agent.share),
            trusted.buyers + agent.buyers
        ));
        BuyerBaseVerdict::AgentBuyerBase
    } else {
        reasons.push(format!(
            "trusted {}, agents {}, flagged or insider {}, unknown {} of the tokens bought",
            pct(trusted.share),
            pct(agent.share),
            pct(bad_share),
            pct(part(BuyerClass::Unknown).share)
        ));
        BuyerBaseVerdict::Mixed
    };
    let buys = assessed.iter().map(|a| u64::from(a.facts.buys)).sum();
    let count = assessed.len() as u32;
    assessed
        .sort_by(|a, b| b.facts.tokens.total_cmp(&a.facts.tokens).then_with(|| a.facts.address.cmp(&b.facts.address)));
    assessed.truncate(LISTED_BUYERS);
    BuyerTrust {
        token: token.to_owned(),
        deployer: deployer.to_owned(),
        verdict,
        buyers: count,
        buys,
        tokens: total,
        parts,
        reasons,
        top: assessed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buyer(n: u8, tokens: f64) -> BuyerFacts {
        BuyerFacts {
            address: format!("0x{n:040x}"),
            buys: 1,
            tokens,
            first_at: 0,
            seller: None,
            registered_agent: false,
            denylisted: false,
            rug_deployer: false,
            insider: false,
        }
    }

    fn seller(n: u8, tokens: f64, color: ShieldColor) -> BuyerFacts {
        BuyerFacts { seller: Some(SellerStanding { score: Some(80), color, flags: vec![] }), ..buyer(n, tokens) }
    }

    fn verdict(buyers: Vec<BuyerFacts>) -> BuyerBaseVerdict {
        assess_buyer_base("0xt", "0xd", buyers).verdict
    }

    #[test]
    fn classes_go_by_the_weightiest_signal() {
        let insider = BuyerFacts { insider: true, denylisted: true, ..buyer(1, 1.0) };
        assert_eq!(classify_buyer(&insider).0, BuyerClass::Insider);
        let red = seller(2, 1.0, ShieldColor::Red);
        assert_eq!(classify_buyer(&red).0, BuyerClass::Flagged);
        let listed_green = BuyerFacts { denylisted: true, ..seller(3, 1.0, ShieldColor::Green) };
        assert_eq!(classify_buyer(&listed_green).0, BuyerClass::Flagged, "the denylist outweighs a green shield");
        assert_eq!(classify_buyer(&seller(4, 1.0, ShieldColor::Green)).0, BuyerClass::Trusted);
        assert_eq!(classify_buyer(&seller(5, 1.0, ShieldColor::Yellow)).0, BuyerClass::Agent);
        let agent = BuyerFacts { registered_agent: true, ..buyer(6, 1.0) };
        assert_eq!(classify_buyer(&agent).0, BuyerClass::Agent);
        assert_eq!(classify_buyer(&buyer(7, 1.0)).0, BuyerClass::Unknown);
    }

    #[test]
    fn verdicts_weigh_tokens_not_wallets() {
        // Three green sellers buying most of it: strong.
        let strong = vec![
            seller(1, 300.0, ShieldColor::Green),
            seller(2, 300.0, ShieldColor::Green),
            seller(3, 300.0, ShieldColor::Green),
            buyer(4, 100.0),
        ];
        assert_eq!(verdict(strong.clone()), BuyerBaseVerdict::StrongBuyerBase);
        // The same green sellers buying dust next to unknown whales: not strong.
        let dust = vec![
            seller(1, 0.001, ShieldColor::Green),
            seller(2, 0.001, ShieldColor::Green),
            seller(3, 0.001, ShieldColor::Green),
            buyer(4, 1_000.0),
        ];
        assert_eq!(verdict(dust), BuyerBaseVerdict::Mixed);
        // Registered agents and yellow sellers: an agent base.
        let agents = vec![
            BuyerFacts { registered_agent: true, ..buyer(1, 300.0) },
            seller(2, 300.0, ShieldColor::Yellow),
            seller(3, 100.0, ShieldColor::Green),
            buyer(4, 200.0),
        ];
        assert_eq!(verdict(agents), BuyerBaseVerdict::AgentBuyerBase);
        assert_eq!(verdict(vec![]), BuyerBaseVerdict::Mixed);
    }

    #[test]
    fn one_outsider_wallet_cannot_brand_a_token_but_insiders_can() {
        let mut base = vec![
            seller(1, 300.0, ShieldColor::Green),
            seller(2, 300.0, ShieldColor::Green),
            seller(3, 300.0, ShieldColor::Green),
        ];
        // One denylisted wallet buys half: one wallet is not enough.
        base.push(BuyerFacts { denylisted: true, ..buyer(9, 900.0) });
        assert_eq!(verdict(base.clone()), BuyerBaseVerdict::Mixed);
        // A second flagged wallet: bad.
        base.push(BuyerFacts { rug_deployer: true, ..buyer(10, 10.0) });
        assert_eq!(verdict(base.clone()), BuyerBaseVerdict::BadBuyerBase);
        // The deployer's own wallet buying a third: bad on its own.
        let insider = vec![
            seller(1, 300.0, ShieldColor::Green),
            seller(2, 300.0, ShieldColor::Green),
            seller(3, 300.0, ShieldColor::Green),
            BuyerFacts { insider: true, ..buyer(9, 400.0) },
        ];
        assert_eq!(verdict(insider), BuyerBaseVerdict::BadBuyerBase);
    }

    #[test]
    fn totals_count_every_buyer_and_the_list_is_capped() {
        let buyers: Vec<BuyerFacts> = (0..150).map(|i| buyer(i, f64::from(i) + 1.0)).collect();
        let t = assess_buyer_base("0xt", "0xd", buyers);
        assert_eq!(t.buyers, 150);
        assert_eq!(t.top.len(), params::LISTED_BUYERS);
        assert_eq!(t.top[0].facts.tokens, 150.0, "largest first");
        let shares: f64 = t.parts.iter().map(|p| p.share).sum();
        assert!((shares - 1.0).abs() < 1e-9);
        assert_eq!(t.part(BuyerClass::Unknown).buyers, 150);
    }
}
