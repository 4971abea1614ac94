//! The one route table: it drives dispatch, the 405 answers and `/health`'s endpoint list.

use hyper::Method;

use crate::respond::mime;

/// A route with its parameters parsed from the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `GET /leaderboard`.
    Leaderboard,
    /// `GET /score/{address}`.
    Score(String),
    /// `GET /preflight/{address}`.
    Preflight(String),
    /// `GET /trust-shield/{address}`.
    TrustShield(String),
    /// `GET /history/{address}`.
    History(String),
    /// `GET /deployer/{address}`.
    Deployer(String),
    /// `GET /badge/{address}.svg`.
    Badge(String),
    /// `GET /movers`.
    Movers,
    /// `GET /scores.csv`.
    ScoresCsv,
    /// `GET /exports/scores.parquet`.
    ScoresParquet,
    /// `GET /exports/history.parquet`.
    HistoryParquet,
    /// `GET /health`.
    Health,
    /// `GET /status`.
    Status,
    /// `GET /openapi.json`.
    OpenApi,
}

/// An integer query parameter's bounds; handlers and the OpenAPI description read the same value.
#[derive(Debug, Clone, Copy)]
pub struct IntParam {
    /// Name.
    pub name: &'static str,
    /// Value when absent.
    pub default: u32,
    /// Smallest accepted.
    pub min: u32,
    /// Largest accepted.
    pub max: u32,
}

/// `GET /leaderboard?limit=`.
pub const LEADERBOARD_LIMIT: IntParam = IntParam { name: "limit", default: 100, min: 1, max: 500 };
/// `GET /history/{address}?days=`.
pub const HISTORY_DAYS: IntParam = IntParam { name: "days", default: 30, min: 1, max: 90 };

/// A query parameter of a route.
#[derive(Debug, Clone, Copy)]
pub enum Param {
    /// Bounded integer.
    Int(IntParam, &'static str),
    /// `1` or absent.
    Flag(&'static str, &'static str),
    /// Free text.
    Text(&'static str, &'static str),
}

/// A paid variant of a free route, selected by a query flag.
#[derive(Debug, Clone, Copy)]
pub struct PaidVariant {
    /// The query that selects it, e.g. `live=1`.
    pub query: &'static str,
    /// Price in USDC.
    pub price: &'static str,
    /// What is bought.
    pub purpose: &'static str,
}

/// One row of the table.
#[derive(Debug)]
pub struct RouteDef {
    /// Method (every route of this issue is a `GET`, which also answers `HEAD`).
    pub method: &'static str,
    /// Path template under the base path; `{address}` matches `^0x[a-fA-F0-9]{40}$`.
    pub path: &'static str,
    /// What it answers.
    pub purpose: &'static str,
    /// Query parameters.
    pub query: &'static [Param],
    /// A paid variant, if any.
    pub paid: Option<PaidVariant>,
    /// Content type of a 200.
    pub content_type: &'static str,
    /// Statuses it can answer besides 200 (and 304 for cached reads).
    pub errors: &'static [u16],
}

impl RouteDef {
    /// A free `GET` route with no query parameters that answers 200 (or 304) and 405 only.
    const fn get(path: &'static str, purpose: &'static str, content_type: &'static str) -> Self {
        Self { method: "GET", path, purpose, query: &[], paid: None, content_type, errors: &[] }
    }

    /// The same route with query parameters.
    const fn query(self, query: &'static [Param]) -> Self {
        Self { query, ..self }
    }

    /// The same route with more error statuses.
    const fn errors(self, errors: &'static [u16]) -> Self {
        Self { errors, ..self }
    }

    /// The same route with a paid variant.
    const fn paid(self, paid: PaidVariant) -> Self {
        Self { paid: Some(paid), ..self }
    }
}

/// Every route, in the order `/health` and `/openapi.json` list them.
pub const ROUTES: &[RouteDef] = &[
    RouteDef::get("/leaderboard", "ranked agents, score descending (seed 2.1)", mime::JSON)
        .query(&[
            Param::Int(LEADERBOARD_LIMIT, "entries to return"),
            Param::Text("ecosystem", "only agents indexed from this marketplace"),
            Param::Text("network", "all, base, eip155:8453, base-sepolia, polygon or solana"),
            Param::Flag("sparkline", "add sparkline7d: the last 7 daily scores"),
        ])
        .errors(&[400]),
    RouteDef::get(
        "/score/{address}",
        "free score preview (seed 2.4); unknown addresses get preliminary signals, never a null body",
        mime::JSON,
    )
    .query(&[Param::Flag("live", "paid live re-score")])
    .errors(&[400, 402])
    .paid(PaidVariant {
        query: "live=1",
        price: "0.05",
        purpose: "paid live re-score (answers 402 with x402 terms; settlement is not enabled yet)",
    }),
    RouteDef::get(
        "/preflight/{address}",
        "decision BLOCK / CAUTION / PROCEED / PROCEED_LOW_VALUE with score, shield and category",
        mime::JSON,
    )
    .errors(&[400]),
    RouteDef::get("/trust-shield/{address}", "shield colour and flags only", mime::JSON).errors(&[400, 404]),
    RouteDef::get("/history/{address}", "daily score series", mime::JSON)
        .query(&[Param::Int(HISTORY_DAYS, "days of history, newest last")])
        .errors(&[400, 404]),
    RouteDef::get("/deployer/{address}", "token-deployer score, verdict, outcomes and launches", mime::JSON)
        .errors(&[400, 404]),
    RouteDef::get("/badge/{address}.svg", "embeddable SVG badge (grey 'not indexed' for unknown addresses)", mime::SVG)
        .errors(&[400]),
    RouteDef::get("/movers", "top daily score gainers and losers", mime::JSON),
    RouteDef::get("/scores.csv", "CSV export of every scored seller, ranked ones first", mime::CSV),
    RouteDef::get("/exports/scores.parquet", "Parquet export of scores", mime::PARQUET),
    RouteDef::get("/exports/history.parquet", "Parquet export of daily score history", mime::PARQUET),
    RouteDef::get("/health", "every endpoint with auth and price", mime::JSON),
    RouteDef::get("/status", "snapshot id and date, payment state, recent job runs", mime::JSON),
    RouteDef::get("/openapi.json", "this API's OpenAPI 3.0 description, generated from the route table", mime::JSON),
];

/// What a path under the base path is.
#[derive(Debug, PartialEq, Eq)]
pub enum Match {
    /// A known route with an allowed method.
    Found(Route),
    /// A known path with another method; carries the allowed ones.
    WrongMethod(&'static str),
    /// No such path.
    NotFound,
}

fn parse_path(path: &str) -> Option<Route> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    Some(match segments.as_slice() {
        ["leaderboard"] => Route::Leaderboard,
        ["score", a] => Route::Score((*a).to_owned()),
        ["preflight", a] => Route::Preflight((*a).to_owned()),
        ["trust-shield", a] => Route::TrustShield((*a).to_owned()),
        ["history", a] => Route::History((*a).to_owned()),
        ["deployer", a] => Route::Deployer((*a).to_owned()),
        ["badge", file] => Route::Badge(file.strip_suffix(".svg")?.to_owned()),
        ["movers"] => Route::Movers,
        ["scores.csv"] => Route::ScoresCsv,
        ["exports", "scores.parquet"] => Route::ScoresParquet,
        ["exports", "history.parquet"] => Route::HistoryParquet,
        ["health"] => Route::Health,
        ["status"] => Route::Status,
        ["openapi.json"] => Route::OpenApi,
        _ => return None,
    })
}

/// Matches a method and a path (already stripped of the base path).
pub fn parse(method: &Method, path: &str) -> Match {
    match parse_path(path) {
        Some(route) if method == Method::GET || method == Method::HEAD => Match::Found(route),
        Some(_) => Match::WrongMethod("GET, HEAD"),
        None => Match::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_path_parses() {
        for def in ROUTES {
            let path = def.path.replace("{address}", "0xab");
            let method: Method = def.method.parse().unwrap();
            assert!(matches!(parse(&method, &path), Match::Found(_)), "{path}");
        }
    }

    #[test]
    fn methods_and_unknown_paths() {
        assert_eq!(parse(&Method::POST, "/leaderboard"), Match::WrongMethod("GET, HEAD"));
        assert_eq!(parse(&Method::GET, "/nope"), Match::NotFound);
        assert_eq!(parse(&Method::GET, "/badge/0xab"), Match::NotFound);
        assert_eq!(parse(&Method::GET, "/badge/0xab.svg"), Match::Found(Route::Badge("0xab".into())));
    }
}
