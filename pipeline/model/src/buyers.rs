//! Buyer trust: what a launched token's buyers say about it (`SCORING.md` § 6b).
//!
//! Each buyer is put in one class from what agentrep already knows about the wallet (its own
//! seller assessment, the lists, ERC-8004, its deployer record, its first funding), and the
//! token's verdict weighs the classes by the tokens each buyer bought, so a flood of dust buys
//! moves nothing. Pure functions: the rebuild gathers the facts, this module judges them.
//!
//! A popular token has more buyers than a payload should list, so the verdict is reached from
//! per-class totals ([`ClassTotal`], which the rebuild adds up with [`classify_buyer`]'s classes)
//! and only the largest buyers are listed; [`assess_buyers`] does both from every buyer's facts.

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
    pub const LISTED_BUYERS: usize = 10;
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
    pub flags: Vec<crate::FlagKey>,
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

    /// Its position in [`BuyerClass::ALL`], weightiest first (0 = insider).
    pub fn rank(self) -> u8 {
        self as u8
    }

    /// The class at a [`BuyerClass::rank`].
    pub fn from_rank(rank: u8) -> Option<Self> {
        Self::ALL.get(usize::from(rank)).copied()
    }

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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

/// What one class of a token's buyers adds up to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassTotal {
    /// The class.
    pub class: BuyerClass,
    /// Distinct buyers.
    pub buyers: u32,
    /// Their buys.
    pub buys: u64,
    /// The tokens they bought.
    pub tokens: f64,
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
    /// The largest buyers, by tokens bought (then address), at most [`params::LISTED_BUYERS`].
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
        let keys: Vec<&str> = s.flags.iter().map(|k| k.as_str()).collect();
        signals.push(format!("red-shield seller ({})", keys.join(", ")));
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

/// Judges a token's buyer base from every buyer's facts (any order): the totals of
/// [`classify_buyer`]'s classes, and the largest buyers listed.
pub fn assess_buyers(token: &str, deployer: &str, buyers: Vec<BuyerFacts>) -> BuyerTrust {
    let mut totals: Vec<ClassTotal> =
        BuyerClass::ALL.iter().map(|&class| ClassTotal { class, buyers: 0, buys: 0, tokens: 0.0 }).collect();
    for b in &buyers {
        let t = &mut totals[usize::from(classify_buyer(b).0.rank())];
        t.buyers += 1;
        t.buys += u64::from(b.buys);
        t.tokens += b.tokens.max(0.0);
    }
    let mut top = buyers;
    top.sort_by(|a, b| b.tokens.total_cmp(&a.tokens).then_with(|| a.address.cmp(&b.address)));
    top.truncate(params::LISTED_BUYERS);
    assess_buyer_base(token, deployer, &totals, top)
}

/// Judges a token's buyer base from its per-class totals (a class may be missing: none of its
/// buyers) and its largest buyers (listed as given, at most [`params::LISTED_BUYERS`]).
pub fn assess_buyer_base(token: &str, deployer: &str, totals: &[ClassTotal], top: Vec<BuyerFacts>) -> BuyerTrust {
    use params::*;
    let total_of = |c: BuyerClass| {
        totals.iter().filter(|t| t.class == c).fold(ClassTotal { class: c, buyers: 0, buys: 0, tokens: 0.0 }, |a, t| {
            ClassTotal {
                class: c,
                buyers: a.buyers + t.buyers,
                buys: a.buys + t.buys,
                tokens: a.tokens + t.tokens.max(0.0),
            }
        })
    };
    let all: Vec<ClassTotal> = BuyerClass::ALL.iter().map(|&c| total_of(c)).collect();
    let total: f64 = all.iter().map(|t| t.tokens).sum();
    let share = |tokens: f64| if total > 0.0 { tokens.max(0.0) / total } else { 0.0 };
    let parts: Vec<ClassPart> =
        all.iter().map(|t| ClassPart { class: t.class, buyers: t.buyers, share: share(t.tokens) }).collect();
    let part = |c: BuyerClass| parts[usize::from(c.rank())];
    let (insider, flagged, trusted, agent) =
        (part(BuyerClass::Insider), part(BuyerClass::Flagged), part(BuyerClass::Trusted), part(BuyerClass::Agent));
    let buyers: u32 = all.iter().map(|t| t.buyers).sum();
    let bad_share = insider.share + flagged.share;
    let pct = |s: f64| format!("{:.0}%", s * 100.0);
    let mut reasons = Vec::new();
    let verdict = if buyers == 0 {
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
    let top = top
        .into_iter()
        .take(LISTED_BUYERS)
        .map(|facts| {
            let (class, signals) = classify_buyer(&facts);
            let share = share(facts.tokens);
            AssessedBuyer { facts, class, signals, share }
        })
        .collect();
    BuyerTrust {
        token: token.to_owned(),
        deployer: deployer.to_owned(),
        verdict,
        buyers,
        buys: all.iter().map(|t| t.buys).sum(),
        tokens: total,
        parts,
        reasons,
        top,
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
        assess_buyers("0xt", "0xd", buyers).verdict
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
    fn ranks_follow_the_weight_order() {
        for (i, c) in BuyerClass::ALL.iter().enumerate() {
            assert_eq!(usize::from(c.rank()), i);
            assert_eq!(BuyerClass::from_rank(c.rank()), Some(*c));
        }
        assert_eq!(BuyerClass::from_rank(5), None);
    }

    #[test]
    fn totals_count_every_buyer_and_the_list_is_capped() {
        let buyers: Vec<BuyerFacts> = (0..150).map(|i| buyer(i, f64::from(i) + 1.0)).collect();
        let t = assess_buyers("0xt", "0xd", buyers);
        assert_eq!(t.buyers, 150);
        assert_eq!(t.top.len(), params::LISTED_BUYERS);
        assert_eq!(t.top[0].facts.tokens, 150.0, "largest first");
        let shares: f64 = t.parts.iter().map(|p| p.share).sum();
        assert!((shares - 1.0).abs() < 1e-9);
        assert_eq!(t.part(BuyerClass::Unknown).buyers, 150);
    }
}
