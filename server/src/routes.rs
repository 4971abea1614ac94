//! The one route table: it drives dispatch, the 405 answers and `/health`'s endpoint list.

use hyper::Method;

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
}

/// One row of the table.
#[derive(Debug)]
pub struct RouteDef {
    /// Method.
    pub method: Method,
    /// Path template under the base path.
    pub path: &'static str,
    /// `none` or `x402`.
    pub auth: &'static str,
    /// Price in USDC, for paid routes and paid variants.
    pub price: Option<&'static str>,
    /// What it answers.
    pub purpose: &'static str,
}

/// Every route, in the order `/health` lists them.
pub const ROUTES: &[RouteDef] = &[
    RouteDef {
        method: Method::GET,
        path: "/leaderboard",
        auth: "none",
        price: None,
        purpose: "ranked agents; limit (default 100, max 500), ecosystem, network, sparkline=1",
    },
    RouteDef {
        method: Method::GET,
        path: "/score/{address}",
        auth: "none",
        price: None,
        purpose: "free score preview; unknown addresses get preliminary signals",
    },
    RouteDef {
        method: Method::GET,
        path: "/score/{address}?live=1",
        auth: "x402",
        price: Some("0.05"),
        purpose: "paid live re-score (answers 402 until payments are enabled)",
    },
    RouteDef {
        method: Method::GET,
        path: "/preflight/{address}",
        auth: "none",
        price: None,
        purpose: "decision BLOCK / CAUTION / PROCEED / PROCEED_LOW_VALUE with score, shield and category",
    },
    RouteDef {
        method: Method::GET,
        path: "/trust-shield/{address}",
        auth: "none",
        price: None,
        purpose: "shield colour and flags only",
    },
    RouteDef {
        method: Method::GET,
        path: "/history/{address}",
        auth: "none",
        price: None,
        purpose: "daily score series; days (default 30, max 90)",
    },
    RouteDef {
        method: Method::GET,
        path: "/deployer/{address}",
        auth: "none",
        price: None,
        purpose: "token-deployer score, verdict, outcomes and launches",
    },
    RouteDef {
        method: Method::GET,
        path: "/badge/{address}.svg",
        auth: "none",
        price: None,
        purpose: "embeddable SVG badge",
    },
    RouteDef {
        method: Method::GET,
        path: "/movers",
        auth: "none",
        price: None,
        purpose: "top daily score gainers and losers",
    },
    RouteDef {
        method: Method::GET,
        path: "/scores.csv",
        auth: "none",
        price: None,
        purpose: "CSV export of every scored seller",
    },
    RouteDef {
        method: Method::GET,
        path: "/exports/scores.parquet",
        auth: "none",
        price: None,
        purpose: "Parquet export of scores",
    },
    RouteDef {
        method: Method::GET,
        path: "/exports/history.parquet",
        auth: "none",
        price: None,
        purpose: "Parquet export of daily score history",
    },
    RouteDef {
        method: Method::GET,
        path: "/health",
        auth: "none",
        price: None,
        purpose: "every endpoint with auth and price",
    },
    RouteDef {
        method: Method::GET,
        path: "/status",
        auth: "none",
        price: None,
        purpose: "snapshot id and date, payment state, recent job runs",
    },
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
            let path = def.path.split('?').next().unwrap().replace("{address}", "0xab");
            assert!(matches!(parse(&def.method, &path), Match::Found(_)), "{path}");
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
