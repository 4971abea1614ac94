//! The live re-score's SLA statistics are the rebuild's: `agentrep_model::live::sla_stats` against
//! the SQL the rebuild runs (`quantile_cont` cast to `BIGINT`, integer mean), on many windows.

use agentrep_model::live::{ProbeSample, sla_stats};

#[test]
fn live_sla_quantiles_are_the_rebuilds() {
    let db = duckdb::Connection::open_in_memory().expect("duckdb");
    let mut seed: u64 = 0x5eed;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    for window in 0..300 {
        let n = 1 + next(40) as usize;
        let probes: Vec<ProbeSample> = (0..n)
            .map(|i| ProbeSample {
                resource: "https://x.example/".into(),
                t: i as i64,
                status: Some(if next(4) == 0 { 500 } else { 200 }),
                latency_ms: Some(next(2_000) as u32),
                offer_version: None,
                offer_matches: None,
            })
            .collect();
        let values: Vec<String> =
            probes.iter().filter(|p| p.alive()).map(|p| format!("({})", p.latency_ms.unwrap_or(0))).collect();
        let refs: Vec<&ProbeSample> = probes.iter().collect();
        let live = sla_stats(&refs);
        if values.is_empty() {
            assert_eq!(live.latency_p50_ms, None);
            continue;
        }
        let sql = format!(
            "SELECT quantile_cont(x, 0.5)::BIGINT AS p50, quantile_cont(x, 0.95)::BIGINT AS p95, \
             (sum(x) // count(x))::BIGINT AS avg \
             FROM (VALUES {}) t(x)",
            values.join(",")
        );
        let batch: (i64, i64, i64) =
            db.query_row(&sql, [], |r| Ok((r.get("p50")?, r.get("p95")?, r.get("avg")?))).expect("query");
        let live = (
            i64::from(live.latency_p50_ms.expect("p50")),
            i64::from(live.latency_p95_ms.expect("p95")),
            i64::from(live.avg_latency_ms.expect("avg")),
        );
        assert_eq!(live, batch, "window {window}: {values:?}");
    }
}
