//! Live and batch agree on the same evidence. A rebuild of the world's last day from a lake cut
//! in the middle of that day's probes is the snapshot; the settlements and probes after the cut
//! are the live evidence, folded in with the live re-score's merge; a rebuild from the whole lake
//! is the batch. Wherever the evidence moved no trust (the trust graph is the rebuild's: a live
//! re-score never recomputes it), live and batch features, scores and decisions are equal.

use std::collections::{BTreeMap, BTreeSet};

use agentrep_lake::datasets::{ProbeRow, SettlementRow};
use agentrep_lake::{Dataset, Lake};
use agentrep_model::live::{LiveEvidence, ProbeSample, TransferSample, merge};
use agentrep_model::{SellerFeatures, SellerRecord, assess_seller};

/// The fields the trust graph decides: a live re-score keeps the snapshot's.
fn trust_fields(f: &SellerFeatures) -> String {
    let d = &f.demand;
    format!(
        "{} {} {} {:?} {:?} {:?} {:?} {:?} {} {:?}",
        d.payers,
        d.entities,
        d.trusted_entities,
        d.weighted_entities,
        d.trust_mass,
        d.repeat_ratio,
        d.top_entity_share,
        d.interval_cv,
        d.seller_funded_payers,
        f.reputation
    )
}

#[test]
fn live_and_batch_agree_on_the_same_evidence() {
    let world = agentrep_tests::shared_world();
    let day = *world.days().last().expect("days");
    let day_end = (day + chrono::Duration::days(1)).and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp();
    let dir = tempfile::tempdir().expect("temp dir");
    let (full_dir, cut_dir) = (dir.path().join("full"), dir.path().join("cut"));
    agentrep_tests::copy_dir(world.lake().root(), &full_dir).expect("copy");
    agentrep_tests::copy_dir(world.lake().root(), &cut_dir).expect("copy");
    let (full, snapshot_lake) = (Lake::new(&full_dir), Lake::new(&cut_dir));

    let settlements: Vec<SettlementRow> = full.read_partition(day).expect("settlements");
    let probes: Vec<ProbeRow> = full.read_partition(day).expect("probes");
    let mut probe_times: Vec<i64> = probes.iter().map(|p| p.probed_at.secs()).collect();
    probe_times.sort_unstable();
    let cut = probe_times[probe_times.len() / 2];
    let (early, late): (Vec<_>, Vec<_>) = settlements.into_iter().partition(|r| r.block_time.secs() < cut);
    snapshot_lake.write_partition(day, &early).expect("cut settlements");
    let (early_probes, late_probes): (Vec<_>, Vec<_>) = probes.into_iter().partition(|r| r.probed_at.secs() < cut);
    snapshot_lake.write_partition(day, &early_probes).expect("cut probes");
    // The settlements source of the cut lake had read up to the cut.
    let checkpoint = serde_json::json!({ "next_block": null, "covered_until": cut - 1 });
    snapshot_lake.write_checkpoint("settlements", &checkpoint).expect("checkpoint");
    assert!(!late.is_empty() && !late_probes.is_empty(), "the world has evidence after the cut");
    assert!(snapshot_lake.partitions(Dataset::Settlements).expect("parts").iter().any(|p| p.date == day));

    let (snapshot, _) = agentrep_pipeline::rebuild(&snapshot_lake, day).expect("snapshot rebuild");
    let (batch, _) = agentrep_pipeline::rebuild(&full, day).expect("batch rebuild");
    let batch: BTreeMap<&str, &SellerRecord> = batch.sellers.iter().map(|s| (s.address.as_str(), s)).collect();
    let facilitators: BTreeSet<String> = snapshot.facilitators.iter().cloned().collect();

    let (mut equal, mut with_evidence, mut trust_moved, mut new_payers) = (0, 0, 0, 0);
    for s in &snapshot.sellers {
        let Some(b) = batch.get(s.address.as_str()) else { continue };
        let transfers: Vec<TransferSample> =
            late.iter().filter(|r| r.pay_to == s.address).cloned().map(agentrep_server::live::transfer).collect();
        let resources: BTreeSet<&str> = s.live.listings.iter().map(|l| l.resource.as_str()).collect();
        let live_probes: Vec<ProbeSample> = late_probes
            .iter()
            .filter(|p| resources.contains(p.resource.as_str()))
            .map(|p| agentrep_server::live::probe(p, &s.address))
            .collect();
        let evidence = LiveEvidence { as_of: day_end - 1, transfers, probes: live_probes };
        let (live, report) = merge(&s.address, &s.features, &s.live, &facilitators, &evidence);
        let moved = !evidence.transfers.is_empty() || !evidence.probes.is_empty();
        with_evidence += usize::from(moved);
        // Probes and the clock need no trust: live equals batch whatever else happened.
        assert_eq!(live.sla, b.features.sla, "{}: probe window", s.address);
        assert_eq!(live.demand.unattributed, b.features.demand.unattributed, "{}", s.address);
        assert_eq!(live.demand.below_price, b.features.demand.below_price, "{}", s.address);
        if report.from_new_payers > 0 {
            // Payers the snapshot does not know wait for the rebuild: batch counts them, live not.
            new_payers += 1;
            assert!(live.demand.settlements < b.features.demand.settlements, "{}", s.address);
            continue;
        }
        if trust_fields(&b.features) != trust_fields(&s.features) {
            trust_moved += 1;
            assert_eq!(
                trust_fields(&live),
                trust_fields(&s.features),
                "{}: live keeps the snapshot's trust",
                s.address
            );
            continue;
        }
        assert_eq!(live, b.features, "{}: live and batch features", s.address);
        let (l, r) = (assess_seller(&live), assess_seller(&b.features));
        assert_eq!((l.score, l.decision, &l.flags), (r.score, r.decision, &r.flags), "{}", s.address);
        assert_eq!(l.score, b.assessment.score);
        equal += usize::from(moved);
    }
    eprintln!("live vs batch: {equal} equal with evidence, {trust_moved} moved trust, {new_payers} with new payers");
    assert!(with_evidence >= 500, "the cut leaves evidence for many sellers ({with_evidence})");
    assert!(equal >= 200, "live equals batch for sellers whose evidence moved no trust ({equal})");
}
