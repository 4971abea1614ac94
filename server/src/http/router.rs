//! Matching a method and path against the route table. Templates are compiled once: literal
//! segments and `{name}` parameters, which may carry a literal suffix (`{address}.svg`).

use std::collections::HashMap;

use hyper::Method;

use crate::endpoints::{Endpoint, Scope};

#[derive(Debug)]
enum Segment {
    Literal(&'static str),
    Param { name: &'static str, suffix: &'static str },
}

#[derive(Debug)]
struct Compiled {
    route: usize,
    segments: Vec<Segment>,
}

/// Parameters taken from the path, in template order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PathParams(Vec<(&'static str, String)>);

impl PathParams {
    /// One parameter, as a route with a single `{name}` would have matched it.
    pub fn one(name: &'static str, value: String) -> Self {
        Self(vec![(name, value)])
    }

    /// The value of `{name}`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

/// What a path under the base path is.
#[derive(Debug, PartialEq, Eq)]
pub enum Match {
    /// A route (its index in the table) with an allowed method.
    Found(usize, PathParams),
    /// A known path with other methods; carries the allowed ones (`GET, HEAD, POST`).
    WrongMethod(String),
    /// A known path asked for `OPTIONS` (a CORS preflight); carries the allowed methods.
    Options(String),
    /// No such path.
    NotFound,
}

/// The compiled table: API routes (under the base path) and origin routes (pages, `/mcp`), each
/// bucketed by segment count for a short scan.
#[derive(Debug)]
pub struct Router {
    table: &'static [&'static Endpoint],
    api: HashMap<usize, Vec<Compiled>>,
    origin: HashMap<usize, Vec<Compiled>>,
}

fn compile(template: &'static str) -> Vec<Segment> {
    template
        .trim_start_matches('/')
        .split('/')
        .map(|seg| match seg.strip_prefix('{').and_then(|s| s.split_once('}')) {
            Some((name, suffix)) => Segment::Param { name, suffix },
            None => Segment::Literal(seg),
        })
        .collect()
}

impl Router {
    /// Compiles every endpoint of `table`; a match names its index there.
    pub fn new(table: &'static [&'static Endpoint]) -> Self {
        let mut api: HashMap<usize, Vec<Compiled>> = HashMap::new();
        let mut origin: HashMap<usize, Vec<Compiled>> = HashMap::new();
        for (route, def) in table.iter().enumerate() {
            let segments = compile(def.path);
            let scope = if def.scope == Scope::Origin { &mut origin } else { &mut api };
            scope.entry(segments.len()).or_default().push(Compiled { route, segments });
        }
        // Literal segments win over parameters at the same position, so a `{param}` template
        // never shadows a literal sibling of the same length.
        for bucket in api.values_mut().chain(origin.values_mut()) {
            bucket.sort_by_key(|c| c.segments.iter().map(|s| matches!(s, Segment::Param { .. })).collect::<Vec<_>>());
        }
        Self { table, api, origin }
    }

    fn params(compiled: &Compiled, segments: &[&str]) -> Option<PathParams> {
        let mut params = Vec::new();
        for (seg, raw) in compiled.segments.iter().zip(segments) {
            match seg {
                Segment::Literal(lit) if lit == raw => {}
                Segment::Literal(_) => return None,
                Segment::Param { name, suffix } => {
                    let value = raw.strip_suffix(suffix)?;
                    if value.is_empty() {
                        return None;
                    }
                    params.push((*name, percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned()));
                }
            }
        }
        Some(PathParams(params))
    }

    /// Matches a request path: API routes against `api_path` (the path without the base path,
    /// when it was under it), origin routes against the whole path.
    pub fn route(&self, method: &Method, api_path: Option<&str>, path: &str) -> Match {
        if let Some(rest) = api_path {
            match self.route_in(&self.api, method, rest) {
                Match::NotFound => {}
                found => return found,
            }
        }
        self.route_in(&self.origin, method, path)
    }

    fn route_in(&self, scope: &HashMap<usize, Vec<Compiled>>, method: &Method, path: &str) -> Match {
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let Some(bucket) = scope.get(&segments.len()) else { return Match::NotFound };
        let mut allowed: Vec<&'static str> = Vec::new();
        for compiled in bucket {
            let Some(params) = Self::params(compiled, &segments) else { continue };
            let def = &self.table[compiled.route];
            if def.method == *method || (def.method == Method::GET && method == Method::HEAD) {
                return Match::Found(compiled.route, params);
            }
            allowed.push(def.method.as_str());
            if def.method == Method::GET {
                allowed.push("HEAD");
            }
        }
        if allowed.is_empty() {
            return Match::NotFound;
        }
        allowed.sort_unstable();
        allowed.dedup();
        let list = allowed.join(", ");
        if method == Method::OPTIONS { Match::Options(list) } else { Match::WrongMethod(list) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::endpoints;

    #[test]
    fn every_table_path_matches_its_own_row() {
        let router = Router::new(endpoints());
        for (i, def) in endpoints().iter().enumerate() {
            let path = def.path.replace("{address}", "0xab").replace(['{', '}'], "");
            let method: Method = def.method.as_str().parse().unwrap();
            let api = (def.scope == Scope::Api).then_some(path.as_str());
            match router.route(&method, api, &path) {
                Match::Found(found, _) => assert_eq!(found, i, "{path} matched {}", endpoints()[found].path),
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    #[test]
    fn methods_suffixes_and_unknown_paths() {
        let router = Router::new(endpoints());
        let api = |method: &Method, path: &str| router.route(method, Some(path), &format!("/api/agent{path}"));
        assert!(matches!(api(&Method::POST, "/leaderboard"), Match::WrongMethod(m) if m == "GET, HEAD"));
        assert!(matches!(api(&Method::OPTIONS, "/leaderboard"), Match::Options(_)));
        assert_eq!(api(&Method::GET, "/nope"), Match::NotFound);
        assert_eq!(
            router.route(&Method::GET, None, "/leaderboard"),
            Match::NotFound,
            "API routes live under the base path"
        );
        assert_eq!(api(&Method::GET, "/badge/0xab"), Match::NotFound);
        let Match::Found(i, params) = api(&Method::GET, "/badge/0xab.svg") else { panic!() };
        assert_eq!((endpoints()[i].path, params.get("address")), ("/badge/{address}.svg", Some("0xab")));
        let Match::Found(i, params) = api(&Method::GET, "/tags/web%20search") else { panic!() };
        assert_eq!((endpoints()[i].path, params.get("tag")), ("/tags/{tag}", Some("web search")));
    }
}
