//! What the pages for people show, built from the same reads as the API: the leaderboard from
//! the index, a profile from the published score and history documents, the og image's rows.
//! The models are plain data; `crate::pages` renders them.

use agentrep_model::{Address, FlagKey};
use agentrep_publish::layout::WalletDoc;
use agentrep_publish::wire::{AgentRowV1, Decision, HistoryV1, ScorePayloadV1, Severity, ShieldColor};
use serde::Serialize;

use super::agents::{HistoryQuery, history};
use crate::ServedSnapshot;
use crate::http::params::Bounded;

/// Rows per leaderboard page.
pub const PAGE_ROWS: usize = 50;

/// An agent's card: the profile page and the widget share it.
#[derive(Debug, Serialize)]
pub struct CardModel {
    /// Address.
    pub address: String,
    /// Score, none when not measured.
    pub score: Option<u8>,
    /// Preflight decision.
    pub decision: Decision,
    /// Shield colour (an unindexed wallet's is the model's, as every read answers it).
    pub color: ShieldColor,
    /// Description.
    pub description: Option<String>,
    /// What a missing score means.
    pub basis_text: String,
}

/// The card of an indexed seller, or of an address agentrep does not index.
pub fn card(snap: &ServedSnapshot, a: &Address) -> (CardModel, bool) {
    match snap.index.agent(a.as_str()) {
        Some(r) => (card_of(r), true),
        None => {
            let denylisted = snap.counterparties.get(a.as_str()).is_some_and(|c| c.denylisted);
            let (decision, color) = agentrep_model::decision::unindexed(denylisted);
            let card = CardModel {
                address: a.to_string(),
                score: None,
                decision,
                color,
                description: None,
                basis_text: "Not indexed: agentrep has no listing of this wallet, which is not a low score.".to_owned(),
            };
            (card, false)
        }
    }
}

fn card_of(r: &AgentRowV1) -> CardModel {
    CardModel {
        address: r.address.clone(),
        score: r.score,
        decision: r.decision,
        color: r.shield.color,
        description: r.description.clone(),
        basis_text: "Degraded: a required source failed or is stale, so no score is given (not a zero).".to_owned(),
    }
}

/// A leaderboard row.
#[derive(Debug, Serialize)]
pub struct RowModel {
    /// Rank.
    pub rank: u32,
    /// Address.
    pub address: String,
    /// Score.
    pub score: u8,
    /// Shield colour.
    pub color: ShieldColor,
    /// Description.
    pub description: Option<String>,
    /// Settled jobs.
    pub jobs: u64,
    /// Volume, USDC, two decimals.
    pub volume: String,
    /// Category slug.
    pub category: String,
}

/// The leaderboard page.
#[derive(Debug, Serialize)]
pub struct LeaderboardModel {
    /// Rows of the page.
    pub rows: Vec<RowModel>,
    /// Page number, from 1.
    pub page: u32,
    /// Pages.
    pub pages: u32,
    /// Previous page, if any.
    pub prev_page: Option<u32>,
    /// Next page, if any.
    pub next_page: Option<u32>,
    /// Ranked sellers.
    pub ranked: usize,
    /// Indexed sellers.
    pub indexed: usize,
    /// While the history is still filling: how far it has come.
    pub history_filling: Option<agentrep_publish::wire::HistoryFillingV1>,
}

/// `GET /` query.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
pub struct LeaderboardPageQuery {
    /// Page of 50 ranked agents.
    #[serde(default)]
    pub page: Bounded<1, 1, 10_000>,
}

/// One page of ranked sellers.
pub fn leaderboard(snap: &ServedSnapshot, q: &LeaderboardPageQuery) -> LeaderboardModel {
    let ranked = &snap.index.ranked;
    let pages = ranked.len().div_ceil(PAGE_ROWS).max(1) as u32;
    let page = q.page.get().min(pages);
    let rows = ranked
        .iter()
        .skip((page as usize - 1) * PAGE_ROWS)
        .take(PAGE_ROWS)
        .map(|id| {
            let r = snap.index.row(*id);
            RowModel {
                rank: r.rank.unwrap_or_default(),
                address: r.address.clone(),
                score: r.score.unwrap_or_default(),
                color: r.shield.color,
                description: r.description.clone(),
                jobs: r.metrics.job_count,
                volume: format!("{:.2}", r.metrics.usdc_volume),
                category: r.category.clone(),
            }
        })
        .collect();
    LeaderboardModel {
        rows,
        page,
        pages,
        prev_page: (page > 1).then(|| page - 1),
        next_page: (page < pages).then(|| page + 1),
        ranked: ranked.len(),
        indexed: snap.index.rows.len(),
        history_filling: None,
    }
}

/// A raised flag with what it means.
#[derive(Debug, Serialize)]
pub struct FlagModel {
    /// Key.
    pub key: FlagKey,
    /// Severity.
    pub severity: Severity,
    /// What was measured.
    pub detail: String,
    /// What it means for a buyer.
    pub explainer: String,
}

/// A score component.
#[derive(Debug, Serialize)]
pub struct ComponentModel {
    /// Name.
    pub name: String,
    /// Points, `–` without evidence.
    pub points: String,
    /// Maximum.
    pub max: String,
    /// Confidence, percent.
    pub confidence: String,
}

/// A labelled figure.
#[derive(Debug, Serialize)]
pub struct MetricModel {
    /// Label.
    pub label: &'static str,
    /// Value as shown.
    pub value: String,
}

/// The history sparkline, drawn in a 60-unit-high box.
#[derive(Debug, Default, Serialize)]
pub struct SparklineModel {
    /// `x,y` pairs of the polyline.
    pub points: String,
    /// Width of the drawing.
    pub width: usize,
    /// Days shown.
    pub days: usize,
    /// First day and score.
    pub first: String,
    /// First score.
    pub first_score: String,
    /// Last day.
    pub last: String,
    /// Last score.
    pub last_score: String,
}

/// Horizontal units per day of the sparkline.
const SPARK_STEP: usize = 10;

/// The sparkline of a score series (days without a score are skipped).
pub fn sparkline(series: &[(String, Option<u8>)]) -> SparklineModel {
    let scored: Vec<(usize, &String, u8)> =
        series.iter().enumerate().filter_map(|(i, (d, s))| s.map(|s| (i, d, s))).collect();
    let (Some(first), Some(last)) = (scored.first(), scored.last()) else { return SparklineModel::default() };
    let points = scored
        .iter()
        .map(|(i, _, s)| format!("{},{:.1}", i * SPARK_STEP, 58.0 - f64::from(*s) * 0.56))
        .collect::<Vec<_>>()
        .join(" ");
    SparklineModel {
        points,
        width: (series.len().max(2) - 1) * SPARK_STEP,
        days: series.len(),
        first: first.1.clone(),
        first_score: first.2.to_string(),
        last: last.1.clone(),
        last_score: last.2.to_string(),
    }
}

/// An agent's profile page.
#[derive(Debug, Serialize)]
pub struct AgentModel {
    /// The card.
    pub agent: CardModel,
    /// Raised flags.
    pub flags: Vec<FlagModel>,
    /// Score components.
    pub breakdown: Vec<ComponentModel>,
    /// The formula.
    pub formula: String,
    /// Figures.
    pub metrics: Vec<MetricModel>,
    /// History.
    pub history: SparklineModel,
}

/// The profile of an address: the published score document and history of an indexed seller,
/// or just the card of an unknown address (`false`).
pub fn agent(snap: &ServedSnapshot, a: &Address) -> (AgentModel, bool) {
    let (card, indexed) = card(snap, a);
    let score: Option<ScorePayloadV1> = snap
        .wallet(WalletDoc::Score, a.as_str())
        .ok()
        .flatten()
        .and_then(|blob| serde_json::from_slice(&blob.body).ok());
    let history: Option<HistoryV1> = history(snap, a, &HistoryQuery { days: Bounded(90) })
        .ok()
        .and_then(|blob| serde_json::from_slice(&blob.body).ok());
    let Some(score) = score else {
        return (
            AgentModel {
                agent: card,
                flags: Vec::new(),
                breakdown: Vec::new(),
                formula: String::new(),
                metrics: Vec::new(),
                history: SparklineModel::default(),
            },
            indexed,
        );
    };
    let flags = score
        .trust_shield
        .flags
        .iter()
        .map(|f| FlagModel {
            key: f.key,
            severity: f.severity,
            detail: f.detail.clone(),
            explainer: FlagKey::def(f.key).explainer.to_owned(),
        })
        .collect();
    let breakdown = score
        .score_breakdown
        .components
        .iter()
        .map(|c| ComponentModel {
            name: c.name.clone(),
            points: c.points.map_or_else(|| "–".to_owned(), |p| format!("{p:.1}")),
            max: format!("{:.0}", c.max),
            confidence: format!("{:.0}%", c.confidence * 100.0),
        })
        .collect();
    let m = &score.metrics.metrics;
    let metrics = vec![
        MetricModel { label: "Settled jobs", value: m.job_count.to_string() },
        MetricModel { label: "Volume (USDC)", value: format!("{:.2}", m.usdc_volume) },
        MetricModel {
            label: "Success rate",
            value: m.success_rate.map_or_else(|| "not measured".to_owned(), |r| format!("{:.0}%", r * 100.0)),
        },
        MetricModel {
            label: "Days since last job",
            value: m.days_since_last_job.map_or_else(|| "never".to_owned(), |d| d.to_string()),
        },
        MetricModel {
            label: "Probe uptime (7 days)",
            value: format!("{:.0}% of {}", m.sla.ok_rate * 100.0, m.sla.samples),
        },
        MetricModel {
            label: "Latency p50",
            value: m.sla.latency_p50_ms.map_or_else(|| "–".to_owned(), |l| format!("{l} ms")),
        },
        MetricModel { label: "Category", value: score.category.primary.clone() },
        MetricModel { label: "Confidence", value: format!("{:.0}%", score.confidence * 100.0) },
    ];
    let series: Vec<(String, Option<u8>)> =
        history.map(|h| h.series.into_iter().map(|p| (p.date, p.score)).collect()).unwrap_or_default();
    (
        AgentModel {
            agent: card,
            flags,
            breakdown,
            formula: score.score_breakdown.formula.clone(),
            metrics,
            history: sparkline(&series),
        },
        indexed,
    )
}

/// A row of the og image.
#[derive(Debug, Serialize)]
pub struct OgRowModel {
    /// Label (description or address).
    pub label: String,
    /// Score as shown.
    pub score: String,
    /// Dot colour.
    pub fill: &'static str,
}

/// The og image: the leaderboard's top 5, or one agent.
#[derive(Debug, Serialize)]
pub struct OgModel {
    /// Title.
    pub title: String,
    /// Subtitle.
    pub subtitle: String,
    /// Rows.
    pub rows: Vec<OgRowModel>,
}

/// `GET /og.png` query.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
pub struct OgQuery {
    /// One agent instead of the top 5.
    #[schemars(pattern(r"^0x[a-fA-F0-9]{40}$"))]
    pub addr: Option<String>,
    /// Leaderboard page whose top 5 to show.
    #[serde(default)]
    pub page: Bounded<1, 1, 10_000>,
}

fn fill(color: ShieldColor) -> &'static str {
    agentrep_publish::svg::badge_color(Some(color))
}

fn shorten(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(chars - 1).collect::<String>())
    }
}

/// The og image's model.
pub fn og(snap: &ServedSnapshot, agent: Option<&Address>, page: u32) -> OgModel {
    match agent {
        Some(a) => {
            let (card, _) = card(snap, a);
            OgModel {
                title: shorten(card.description.as_deref().unwrap_or("agent"), 40),
                subtitle: a.to_string(),
                rows: vec![OgRowModel {
                    label: format!("{} · {} shield", card.decision.as_str(), card.color.as_str()),
                    score: card.score.map_or_else(|| "–".to_owned(), |s| format!("{s}/100")),
                    fill: fill(card.color),
                }],
            }
        }
        None => {
            let start = (page as usize - 1) * 5;
            OgModel {
                title: "agentrep leaderboard".to_owned(),
                subtitle: format!("top agents ranked {} to {}", start + 1, start + 5),
                rows: snap
                    .index
                    .ranked
                    .iter()
                    .skip(start)
                    .take(5)
                    .map(|id| {
                        let r = snap.index.row(*id);
                        OgRowModel {
                            label: shorten(r.description.as_deref().unwrap_or(&r.address), 48),
                            score: r.score.unwrap_or_default().to_string(),
                            fill: fill(r.shield.color),
                        }
                    })
                    .collect(),
            }
        }
    }
}
