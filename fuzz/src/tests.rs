//! The short run inside `make test`: every target's committed corpus, then a bounded run of
//! seeded mutations of it. Not coverage-guided (that is `make fuzz`), but it runs every target on
//! every commit, so a parser change that panics on a known input, or on a near neighbour of one,
//! fails here first.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use super::{TARGETS, Target};

/// Mutated inputs per target in the short run.
const SHORT_RUN: usize = 20_000;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn corpus(target: &Target) -> Vec<Vec<u8>> {
    let dir = corpus_dir().join(target.name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    files.sort();
    files.iter().map(|f| std::fs::read(f).expect("a corpus file")).collect()
}

/// A small, seeded xorshift: the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// Tokens the parsers branch on, spliced in whole.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"=",
    b"&",
    b"%",
    b"%00",
    b"%ff",
    b"\\u0000",
    b"\n",
    b"\0",
    b"0x",
    b"null",
    b"true",
    b"-1",
    b"1e999",
    b"18446744073709551616",
    b"http://",
    b"https://",
    b"://",
    b"@",
    b"[::1]",
    b"127.0.0.1",
    b"0177.0.0.1",
    b"data:",
    b";base64,",
    b"x402Version",
    b"accepts",
    b"eip155:8453",
    b"\xff\xfe",
    b"\xf0\x9f\x92\xa5",
];

fn mutate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = corpus[rng.below(corpus.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(8) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = rng.next() as u8;
            }
            2 => out.insert(at, rng.next() as u8),
            3 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, token.iter().copied());
            }
            4 if !out.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            5 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + 1 + rng.below(32)).min(out.len());
                let piece = out[start..end].to_vec();
                out.splice(at..at, piece);
            }
            6 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len() + 1);
                out.truncate(at);
                out.extend_from_slice(&other[from..]);
            }
            _ => out.truncate(at),
        }
    }
    out
}

/// Runs `input`, turning a panic into the failure's description.
fn run(target: &Target, input: &[u8]) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| (target.run)(input))).map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        format!("{}: {what}\n  input: {:?}", target.name, String::from_utf8_lossy(input))
    })
}

#[test]
fn every_target_has_a_corpus_and_every_corpus_a_target() {
    let mut folders: Vec<String> = std::fs::read_dir(corpus_dir())
        .expect("fuzz/corpus")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut names: Vec<String> = TARGETS.iter().map(|t| t.name.to_owned()).collect();
    names.sort();
    assert_eq!(folders, names, "fuzz/corpus/ has one folder per target of TARGETS");
    for target in TARGETS {
        assert!(!corpus(target).is_empty(), "{} has an empty corpus", target.name);
    }
}

#[test]
fn every_target_survives_its_corpus_and_a_short_mutation_run() {
    let std_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    for target in TARGETS {
        let corpus = corpus(target);
        let seed =
            target.name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let mut rng = Rng(seed | 1);
        let inputs = corpus.iter().cloned().chain((0..SHORT_RUN).map(|_| mutate(&mut rng, &corpus)));
        failures.extend(inputs.filter_map(|input| run(target, &input).err()).take(3));
    }
    std::panic::set_hook(std_hook);
    assert!(failures.is_empty(), "{} failing inputs:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_route_targets_reach_every_route_that_reads_a_query_or_a_body() {
    let endpoints = agentrep_server::routes::endpoints();
    let queries = endpoints.iter().filter(|e| e.query.is_some()).count();
    let bodies = endpoints.iter().filter(|e| e.body.is_some()).count();
    assert!(queries > 10, "{queries} routes read a query");
    assert_eq!(
        queries,
        endpoints.iter().filter(|e| e.parse_query.is_some()).count(),
        "every query type has its parser"
    );
    // A body given only as a schema (`body_with`) has no type to read it as: today only `/mcp`
    // (the `mcp_message` target reads its bodies), so a new one is a decision made here.
    let schema_only: Vec<&str> =
        endpoints.iter().filter(|e| e.body.is_some() && e.parse_body.is_none()).map(|e| e.path).collect();
    assert!(bodies > schema_only.len(), "{bodies} routes read a body");
    assert!(schema_only.iter().all(|p| *p == "/mcp"), "routes whose body no fuzz target reads: {schema_only:?}");
}
