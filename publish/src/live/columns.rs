//! `live-basis.parquet`: every seller's live basis as typed columns, one row per seller, written in
//! row groups of [`ROW_GROUP_SELLERS`] and compressed.
//!
//! The variable parts of a [`LiveBasis`] are parallel list columns (a payer's address, standing,
//! entity and first day are the same position of four lists), so numbers stay numbers and no key
//! is repeated per value. What the model reads as one object (the features, the listing, the last
//! probe) stays one JSON text per seller.
//!
//! The server does not decode the file when it loads a snapshot: [`LiveBases`] (a
//! [`KeyedFile`]) keeps its bytes and an index of sellers, and a paid re-score decodes the one row
//! it reads (the row group that holds it, that row only).

use std::sync::Arc;

use agentrep_model::live::{KnownPayer, LiveBasis, LiveListing, PayerStanding, PriceBound, ProbeSample};
use agentrep_model::sources::{SourceNote, UnknownSourceNote};
use arrow::array::{
    Array, ArrayRef, BooleanArray, BooleanBuilder, Int64Array, ListArray, ListBuilder, StringArray, StringBuilder,
    UInt8Array, UInt32Array, UInt64Array, UInt64Builder,
};
use arrow::datatypes::{ArrowPrimitiveType, Int64Type, UInt8Type, UInt32Type, UInt64Type};
use arrow::record_batch::RecordBatch;

use super::{LiveRow, LiveSellerV1};
use crate::PublishError;
use crate::keyed::{self, KeyedFile, RowCodec};
use crate::layout::LIVE_BASIS;

/// Sellers per row group: what one re-score decodes to read one seller.
pub const ROW_GROUP_SELLERS: usize = 512;

fn standing_code(s: PayerStanding) -> u8 {
    match s {
        PayerStanding::Seller => 0,
        PayerStanding::SellerFunded => 1,
        PayerStanding::Untrusted => 2,
        PayerStanding::Trusted => 3,
    }
}

fn standing_of(code: u8) -> Option<PayerStanding> {
    Some(match code {
        0 => PayerStanding::Seller,
        1 => PayerStanding::SellerFunded,
        2 => PayerStanding::Untrusted,
        3 => PayerStanding::Trusted,
        _ => return None,
    })
}

/// Writes the rows (in the order given) as `live-basis.parquet` ([`keyed::write`]).
///
/// # Errors
/// When a JSON column cannot be encoded or the Parquet writer fails.
pub fn write(rows: &[LiveRow<'_>]) -> Result<Vec<u8>, PublishError> {
    keyed::write::<LiveCodec>(rows)
}

/// [`write`] into `out` as the row groups complete.
///
/// # Errors
/// As [`write`], and when `out` fails.
pub fn write_to<W: std::io::Write + Send>(out: W, rows: &[LiveRow<'_>]) -> Result<(), PublishError> {
    keyed::write_to::<LiveCodec, _>(out, rows)
}

/// The columns of `live-basis.parquet`.
#[derive(Debug)]
pub struct LiveCodec;

impl RowCodec for LiveCodec {
    type Row<'a> = LiveRow<'a>;
    type Decoded = LiveSellerV1;
    const FILE: &'static str = crate::layout::LIVE_BASIS;
    const ROW_GROUP: usize = ROW_GROUP_SELLERS;

    fn key<'r>(row: &'r LiveRow<'_>) -> &'r str {
        row.seller
    }

    fn batch(rows: &[LiveRow<'_>]) -> Result<RecordBatch, PublishError> {
        batch(rows)
    }

    fn decode(batch: &RecordBatch, row: usize) -> Result<LiveSellerV1, PublishError> {
        decode(batch, row)
    }
}

/// A snapshot's `live-basis.parquet`, held compressed and indexed by seller: a paid re-score
/// decodes the one row it reads.
pub type LiveBases = KeyedFile<LiveCodec>;

fn bad(message: impl Into<String>) -> PublishError {
    keyed::table_error::<LiveCodec>(message)
}

fn json<'a, T: serde::Serialize>(
    rows: &[LiveRow<'a>],
    value: impl for<'r> Fn(&'r LiveRow<'a>) -> &'r T,
) -> Result<ArrayRef, PublishError> {
    let texts = rows.iter().map(|r| serde_json::to_string(value(r))).collect::<Result<Vec<_>, _>>();
    Ok(Arc::new(StringArray::from_iter_values(texts.map_err(PublishError::Encode)?)))
}

/// A nullable JSON text column: null where `value` is `None`.
fn optional_json<'a, T: serde::Serialize + 'a>(
    rows: &[LiveRow<'a>],
    value: impl Fn(&LiveRow<'a>) -> Option<&'a T>,
) -> Result<ArrayRef, PublishError> {
    let texts = rows.iter().map(|r| value(r).map(serde_json::to_string).transpose()).collect::<Result<Vec<_>, _>>();
    Ok(Arc::new(texts.map_err(PublishError::Encode)?.into_iter().collect::<StringArray>()))
}

fn numbers<T: ArrowPrimitiveType>(
    rows: &[LiveRow<'_>],
    values: impl Fn(&LiveBasis) -> Vec<Option<T::Native>>,
) -> ArrayRef {
    Arc::new(ListArray::from_iter_primitive::<T, _, _>(rows.iter().map(|r| Some(values(r.basis)))))
}

fn texts<'a, S: AsRef<str>>(rows: &[LiveRow<'a>], values: impl Fn(&LiveRow<'a>) -> Vec<S>) -> ArrayRef {
    let mut list = ListBuilder::new(StringBuilder::new());
    for r in rows {
        for v in values(r) {
            list.values().append_value(v);
        }
        list.append(true);
    }
    Arc::new(list.finish())
}

/// One row group's columns.
fn batch(rows: &[LiveRow<'_>]) -> Result<RecordBatch, PublishError> {
    let mut price_values = ListBuilder::new(ListBuilder::new(UInt64Builder::new()));
    let mut probe_offer_matches = ListBuilder::new(BooleanBuilder::new());
    for r in rows {
        for bound in &r.basis.prices {
            price_values.values().values().append_slice(&bound.prices);
            price_values.values().append(true);
        }
        price_values.append(true);
        for p in &r.basis.probes {
            probe_offer_matches.values().append_option(p.offer_matches);
        }
        probe_offer_matches.append(true);
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("seller", Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.seller)))),
        ("listing", json(rows, |r| r.listing)?),
        ("features", json(rows, |r| r.features)?),
        ("sources", texts(rows, |r| r.sources.iter().map(ToString::to_string).collect())),
        ("last_probe", json(rows, |r| &r.last_probe)?),
        ("day_end", Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.basis.day_end)))),
        ("evidence_from", Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.basis.evidence_from)))),
        ("exact_settlements", Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.basis.exact_settlements)))),
        ("last_trusted_at", Arc::new(rows.iter().map(|r| r.basis.last_trusted_at).collect::<Int64Array>())),
        ("last_at", Arc::new(rows.iter().map(|r| r.basis.last_at).collect::<Int64Array>())),
        ("listing_resource", texts(rows, |r| r.basis.listings.iter().map(|l| l.resource.as_str()).collect())),
        ("listing_pay_to", texts(rows, |r| r.basis.listings.iter().map(|l| l.pay_to.as_str()).collect())),
        ("listing_network", texts(rows, |r| r.basis.listings.iter().map(|l| l.network.as_str()).collect())),
        ("listing_asset", texts(rows, |r| r.basis.listings.iter().map(|l| l.asset.as_str()).collect())),
        ("listing_price", numbers::<UInt64Type>(rows, |b| b.listings.iter().map(|l| Some(l.price)).collect())),
        ("price_network", texts(rows, |r| r.basis.prices.iter().map(|p| p.network.as_str()).collect())),
        ("price_asset", texts(rows, |r| r.basis.prices.iter().map(|p| p.asset.as_str()).collect())),
        ("price_values", Arc::new(price_values.finish())),
        ("payer", texts(rows, |r| r.basis.payers.iter().map(|p| p.address.as_str()).collect())),
        (
            "payer_standing",
            numbers::<UInt8Type>(rows, |b| b.payers.iter().map(|p| Some(standing_code(p.standing))).collect()),
        ),
        ("payer_entity", numbers::<UInt32Type>(rows, |b| b.payers.iter().map(|p| p.entity.map(|e| e.0)).collect())),
        ("payer_first_day", numbers::<Int64Type>(rows, |b| b.payers.iter().map(|p| p.entity.map(|e| e.1)).collect())),
        ("settled_day", numbers::<Int64Type>(rows, |b| b.settled_days.iter().map(|d| Some(d.0)).collect())),
        ("settled_count", numbers::<UInt64Type>(rows, |b| b.settled_days.iter().map(|d| Some(d.1)).collect())),
        ("trusted_days", numbers::<Int64Type>(rows, |b| b.trusted_days.iter().copied().map(Some).collect())),
        ("active_days", numbers::<Int64Type>(rows, |b| b.active_days.iter().copied().map(Some).collect())),
        (
            "repeating_entities",
            numbers::<UInt32Type>(rows, |b| b.repeating_entities.iter().copied().map(Some).collect()),
        ),
        ("domain_resources", texts(rows, |r| r.basis.domain_resources.iter().map(String::as_str).collect())),
        ("unbound", optional_json(rows, |r| r.basis.unbound.as_ref())?),
        ("probe_resource", texts(rows, |r| r.basis.probes.iter().map(|p| p.resource.as_str()).collect())),
        ("probe_t", numbers::<Int64Type>(rows, |b| b.probes.iter().map(|p| Some(p.t)).collect())),
        ("probe_status", numbers::<UInt32Type>(rows, |b| b.probes.iter().map(|p| p.status).collect())),
        ("probe_latency_ms", numbers::<UInt32Type>(rows, |b| b.probes.iter().map(|p| p.latency_ms).collect())),
        ("probe_offer_version", numbers::<UInt32Type>(rows, |b| b.probes.iter().map(|p| p.offer_version).collect())),
        ("probe_offer_matches", Arc::new(probe_offer_matches.finish())),
    ];
    // Every column nullable: `try_from_iter` would infer nullability from the batch's own nulls, so
    // the empty batch that defines the schema would declare them all required.
    RecordBatch::try_from_iter_with_nullable(columns.into_iter().map(|(name, array)| (name, array, true)))
        .map_err(|e| bad(e.to_string()))
}

fn missing(name: &str) -> PublishError {
    bad(format!("column {name} is missing or of another type"))
}

fn column<'b, A: Array + 'static>(b: &'b RecordBatch, name: &str) -> Result<&'b A, PublishError> {
    keyed::column::<LiveCodec, A>(b, name)
}

/// One row's items of a list column.
fn items<A: Array + Clone + 'static>(b: &RecordBatch, row: usize, name: &str) -> Result<A, PublishError> {
    let list = column::<ListArray>(b, name)?.value(row);
    list.as_any().downcast_ref::<A>().cloned().ok_or_else(|| missing(name))
}

fn strings(b: &RecordBatch, row: usize, name: &str) -> Result<Vec<String>, PublishError> {
    Ok(items::<StringArray>(b, row, name)?.iter().map(|s| s.unwrap_or_default().to_owned()).collect())
}

/// The `sources` of a row, read back into notes.
fn notes(b: &RecordBatch, row: usize) -> Result<Vec<SourceNote>, PublishError> {
    strings(b, row, "sources")?
        .iter()
        .map(|s| {
            s.parse().map_err(|e: UnknownSourceNote| PublishError::Table { file: LIVE_BASIS, message: e.to_string() })
        })
        .collect()
}

fn text<'b>(b: &'b RecordBatch, row: usize, name: &str) -> Result<&'b str, PublishError> {
    Ok(column::<StringArray>(b, name)?.value(row))
}

fn from_json<T: serde::de::DeserializeOwned>(b: &RecordBatch, row: usize, name: &str) -> Result<T, PublishError> {
    serde_json::from_str(text(b, row, name)?).map_err(PublishError::Encode)
}

fn optional(a: &Int64Array, row: usize) -> Option<i64> {
    a.is_valid(row).then(|| a.value(row))
}

/// Parallel lists of one row must have one length.
fn same_length(what: &str, lengths: &[usize]) -> Result<usize, PublishError> {
    match lengths.split_first() {
        Some((first, rest)) if rest.iter().all(|l| l == first) => Ok(*first),
        None => Ok(0),
        _ => Err(bad(format!("the {what} columns differ in length: {lengths:?}"))),
    }
}

/// Row `row` of `b`.
fn decode(b: &RecordBatch, row: usize) -> Result<LiveSellerV1, PublishError> {
    let (l_resource, l_pay_to, l_network, l_asset) = (
        strings(b, row, "listing_resource")?,
        strings(b, row, "listing_pay_to")?,
        strings(b, row, "listing_network")?,
        strings(b, row, "listing_asset")?,
    );
    let l_price = items::<UInt64Array>(b, row, "listing_price")?;
    same_length("listing", &[l_resource.len(), l_pay_to.len(), l_network.len(), l_asset.len(), l_price.len()])?;
    let listings = l_resource
        .into_iter()
        .zip(l_pay_to)
        .zip(l_network)
        .zip(l_asset)
        .zip(l_price.values().iter())
        .map(|((((resource, pay_to), network), asset), price)| LiveListing {
            resource,
            pay_to,
            network,
            asset,
            price: *price,
        })
        .collect();

    let (p_network, p_asset) = (strings(b, row, "price_network")?, strings(b, row, "price_asset")?);
    let p_values = items::<ListArray>(b, row, "price_values")?;
    same_length("price", &[p_network.len(), p_asset.len(), p_values.len()])?;
    let mut prices = Vec::with_capacity(p_network.len());
    for (i, (network, asset)) in p_network.into_iter().zip(p_asset).enumerate() {
        let values = p_values.value(i);
        let values = values.as_any().downcast_ref::<UInt64Array>().ok_or_else(|| missing("price_values"))?;
        prices.push(PriceBound { network, asset, prices: values.values().to_vec() });
    }

    let payer = strings(b, row, "payer")?;
    let standing = items::<UInt8Array>(b, row, "payer_standing")?;
    let entity = items::<UInt32Array>(b, row, "payer_entity")?;
    let first_day = items::<Int64Array>(b, row, "payer_first_day")?;
    same_length("payer", &[payer.len(), standing.len(), entity.len(), first_day.len()])?;
    let payers = payer
        .into_iter()
        .enumerate()
        .map(|(i, address)| {
            let standing = standing_of(standing.value(i))
                .ok_or_else(|| bad(format!("unknown payer standing {}", standing.value(i))))?;
            let entity = (entity.is_valid(i) && first_day.is_valid(i)).then(|| (entity.value(i), first_day.value(i)));
            Ok(KnownPayer { address, standing, entity })
        })
        .collect::<Result<_, PublishError>>()?;

    let (settled_day, settled_count) =
        (items::<Int64Array>(b, row, "settled_day")?, items::<UInt64Array>(b, row, "settled_count")?);
    same_length("settled", &[settled_day.len(), settled_count.len()])?;

    let probe_resource = strings(b, row, "probe_resource")?;
    let probe_t = items::<Int64Array>(b, row, "probe_t")?;
    let status = items::<UInt32Array>(b, row, "probe_status")?;
    let latency = items::<UInt32Array>(b, row, "probe_latency_ms")?;
    let version = items::<UInt32Array>(b, row, "probe_offer_version")?;
    let matches = items::<BooleanArray>(b, row, "probe_offer_matches")?;
    same_length(
        "probe",
        &[probe_resource.len(), probe_t.len(), status.len(), latency.len(), version.len(), matches.len()],
    )?;
    let probes = probe_resource
        .into_iter()
        .enumerate()
        .map(|(i, resource)| ProbeSample {
            resource,
            t: probe_t.value(i),
            status: status.is_valid(i).then(|| status.value(i)),
            latency_ms: latency.is_valid(i).then(|| latency.value(i)),
            offer_version: version.is_valid(i).then(|| version.value(i)),
            offer_matches: matches.is_valid(i).then(|| matches.value(i)),
        })
        .collect();

    let basis = LiveBasis {
        day_end: column::<Int64Array>(b, "day_end")?.value(row),
        evidence_from: column::<Int64Array>(b, "evidence_from")?.value(row),
        listings,
        prices,
        payers,
        settled_days: settled_day.values().iter().copied().zip(settled_count.values().iter().copied()).collect(),
        exact_settlements: column::<UInt64Array>(b, "exact_settlements")?.value(row),
        trusted_days: items::<Int64Array>(b, row, "trusted_days")?.values().to_vec(),
        last_trusted_at: optional(column::<Int64Array>(b, "last_trusted_at")?, row),
        active_days: items::<Int64Array>(b, row, "active_days")?.values().to_vec(),
        last_at: optional(column::<Int64Array>(b, "last_at")?, row),
        repeating_entities: items::<UInt32Array>(b, row, "repeating_entities")?.values().to_vec(),
        domain_resources: strings(b, row, "domain_resources")?,
        // A basis written before the column existed has no unbound origin.
        unbound: match b.column_by_name("unbound").and_then(|c| c.as_any().downcast_ref::<StringArray>()) {
            Some(c) if c.is_valid(row) => Some(serde_json::from_str(c.value(row)).map_err(PublishError::Encode)?),
            _ => None,
        },
        probes,
    };
    Ok(LiveSellerV1 {
        listing: from_json(b, row, "listing")?,
        features: from_json(b, row, "features")?,
        basis,
        sources: notes(b, row)?,
        last_probe: from_json(b, row, "last_probe")?,
    })
}

#[cfg(test)]
mod tests {
    use arrow::array::StringArray;
    use bytes::Bytes;
    use parquet::arrow::ArrowWriter;

    use agentrep_model::features::DemandStats;
    use agentrep_model::{ListingInfo, ProbeSummary, SellerFeatures};

    use super::*;

    /// A seller whose every list length, null and standing depends on `i`.
    fn seller(i: u32) -> (String, LiveSellerV1) {
        let n = (i % 5) as usize;
        let day = 20_000 + i64::from(i);
        let basis = LiveBasis {
            day_end: day * 86_400,
            evidence_from: day * 86_400 - i64::from(i),
            listings: (0..n)
                .map(|k| LiveListing {
                    resource: format!("https://s{i}.example/api/{k}"),
                    pay_to: format!("0xPay{i}"),
                    network: "eip155:8453".into(),
                    asset: "0xusdc".into(),
                    price: 1_000 * k as u64,
                })
                .collect(),
            prices: (0..n % 3)
                .map(|k| PriceBound {
                    network: format!("eip155:{k}"),
                    asset: "0xusdc".into(),
                    prices: (0..=k as u64).map(|p| p * 10).collect(),
                })
                .collect(),
            payers: (0..n * 2)
                .map(|k| KnownPayer {
                    address: format!("0x{i:04x}{k:036x}"),
                    standing: [
                        PayerStanding::Seller,
                        PayerStanding::SellerFunded,
                        PayerStanding::Untrusted,
                        PayerStanding::Trusted,
                    ][k % 4],
                    entity: (k % 3 != 0).then_some((k as u32, day - k as i64)),
                })
                .collect(),
            settled_days: (0..n as i64).map(|d| (day - d, d as u64 * 7)).collect(),
            exact_settlements: u64::from(i) * 3,
            trusted_days: (0..n as i64 / 2).map(|d| day - d).collect(),
            last_trusted_at: i.is_multiple_of(2).then_some(day * 86_400 - 5),
            active_days: (0..n as i64).map(|d| day - d).collect(),
            last_at: i.is_multiple_of(3).then_some(day * 86_400 - 9),
            repeating_entities: (0..n as u32).collect(),
            domain_resources: (0..n % 2).map(|k| format!("https://s{i}.example/api/{k}")).collect(),
            unbound: (n > 1).then(|| agentrep_model::live::UnboundOrigin {
                rank: agentrep_model::live::OriginRank {
                    paid_class: 1,
                    probe_class: 0,
                    first_seen: day * 86_400,
                    origin: format!("https://s{i}.example"),
                },
                beside_bound: i.is_multiple_of(2),
                rival: (n > 2).then(|| agentrep_model::live::OriginRank {
                    paid_class: 2,
                    probe_class: 3,
                    first_seen: day * 86_400 + 1,
                    origin: format!("https://t{i}.example"),
                }),
            }),
            probes: (0..n)
                .map(|k| ProbeSample {
                    resource: format!("https://s{i}.example/api/{k}"),
                    t: day * 86_400 - k as i64,
                    status: (k != 1).then_some(402),
                    latency_ms: (k != 1).then_some(100 + k as u32),
                    offer_version: (k == 0).then_some(2),
                    offer_matches: (k == 0).then_some(i.is_multiple_of(2)),
                })
                .collect(),
        };
        let line = LiveSellerV1 {
            listing: ListingInfo { resource: format!("https://s{i}.example/api/0"), ..ListingInfo::default() },
            features: SellerFeatures {
                listing_count: n as u32,
                demand: DemandStats {
                    settlements: u64::from(i),
                    // A binary fraction: the features column is JSON, which serde_json reads back to
                    // the nearest double only with its `float_roundtrip` feature (not enabled).
                    weighted_entities: 0.5 * f64::from(i),
                    ..DemandStats::default()
                },
                ..SellerFeatures::default()
            },
            basis,
            sources: (0..n % 3).map(|k| SourceNote::Degraded(format!("source-{k}"))).collect(),
            last_probe: (i % 4 == 1).then(|| ProbeSummary {
                probed_at: day,
                status: None,
                error: Some("timeout".into()),
            }),
        };
        (format!("0x{i:040x}"), line)
    }

    fn file(sellers: &[(String, LiveSellerV1)]) -> Bytes {
        let rows: Vec<LiveRow<'_>> = sellers.iter().map(|(a, s)| LiveRow::decoded(a, s)).collect();
        Bytes::from(write(&rows).expect("writes"))
    }

    #[test]
    fn every_seller_reads_back_as_written_across_row_groups() {
        let sellers: Vec<_> = (0..ROW_GROUP_SELLERS as u32 * 2 + 7).map(seller).collect();
        let bases = LiveBases::read(file(&sellers)).expect("reads");
        assert_eq!(bases.len(), sellers.len());
        for (address, line) in &sellers {
            assert_eq!(bases.get(address).expect("decodes").as_ref(), Some(line), "{address}");
        }
        assert_eq!(bases.decode_all().expect("decodes"), sellers);
        assert!(!bases.contains("0xnot-a-seller"));
        assert_eq!(bases.get("0xnot-a-seller").expect("no error"), None);
        // Many at once, in any order, with repeats and unknowns: each known one once, in file order.
        let wanted: Vec<&str> =
            sellers.iter().rev().step_by(3).map(|(a, _)| a.as_str()).chain(["0xnot-a-seller"]).collect();
        let mut expected: Vec<_> = sellers.iter().rev().step_by(3).cloned().collect();
        expected.reverse();
        let twice = wanted.iter().chain(wanted.iter()).copied();
        assert_eq!(bases.get_many(twice).expect("decodes"), expected);
        assert_eq!(bases.get_many(std::iter::empty()).expect("decodes"), Vec::new());
    }

    #[test]
    fn the_parallel_writer_writes_the_sequential_writers_bytes() {
        let sellers: Vec<_> = (0..(ROW_GROUP_SELLERS * (keyed::GROUPS_IN_FLIGHT + 1) + 3) as u32).map(seller).collect();
        let rows: Vec<LiveRow<'_>> = sellers.iter().map(|(a, s)| LiveRow::decoded(a, s)).collect();
        let props = keyed::properties::<LiveCodec>();
        let mut sequential = Vec::new();
        let mut w = ArrowWriter::try_new(&mut sequential, keyed::schema::<LiveCodec>().expect("schema"), Some(props))
            .expect("writer");
        for chunk in rows.chunks(ROW_GROUP_SELLERS) {
            w.write(&batch(chunk).expect("batch")).expect("write");
            w.flush().expect("flush");
        }
        w.close().expect("close");
        assert!(write(&rows).expect("writes") == sequential, "the parallel writer's bytes differ");
    }

    #[test]
    fn an_empty_snapshot_writes_a_readable_file() {
        let bases = LiveBases::read(file(&[])).expect("reads");
        assert!(bases.is_empty());
    }

    #[test]
    fn a_file_of_other_columns_is_refused() {
        let batch =
            RecordBatch::try_from_iter(vec![("seller", Arc::new(StringArray::from_iter_values(["0xa"])) as ArrayRef)])
                .expect("batch");
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), None).expect("writer");
        w.write(&batch).expect("write");
        w.close().expect("close");
        let err = LiveBases::read(Bytes::from(buf)).expect_err("refused");
        assert!(err.to_string().contains("columns are not this version's"), "{err}");
        assert!(LiveBases::read(Bytes::from_static(b"not parquet")).is_err());
    }
}
