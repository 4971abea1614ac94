//! The known non-seller wallets of a snapshot as the server holds them: each wallet's facts in a
//! fixed-width row, addresses as 20 bytes in sorted order beside them, looked up by binary search.
//!
//! A snapshot of the real economy names tens of millions of one-off payers (BENCHMARKS.md § 4v:
//! 33.8M rows, a 2.25 GB `counterparties.csv`); held as parsed rows in a map keyed by address
//! string they took most of the server's 12.3 GiB. Here a wallet costs 76 bytes, and a lookup
//! gives back the same [`CounterpartyCsvRowV1`] the file says, so every read that answers from a
//! counterparty answers as before.

use std::collections::HashMap;

use chrono::NaiveDate;

use crate::PublishError;
use crate::wire::CounterpartyCsvRowV1;

/// A wallet's facts, fixed width (days since 1970-01-01, [`NO_DAY`] for none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Facts {
    payments: u64,
    spent: u64,
    spent_7d: u64,
    payments_7d: u64,
    sellers_paid: u32,
    funded: u32,
    sellers_paid_7d: u32,
    first_paid_day: i32,
    last_paid_day: i32,
    denylisted: bool,
}

/// No day.
const NO_DAY: i32 = i32::MIN;

fn day_number(day: Option<&str>) -> Result<i32, String> {
    match day {
        None => Ok(NO_DAY),
        Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .filter(|d| d.format("%Y-%m-%d").to_string() == text)
            .map(|d| d.to_epoch_days())
            .ok_or_else(|| format!("{text:?} is not a day (YYYY-MM-DD)")),
    }
}

fn day_text(day: i32) -> Option<String> {
    (day != NO_DAY).then(|| NaiveDate::from_epoch_days(day)).flatten().map(|d| d.format("%Y-%m-%d").to_string())
}

impl Facts {
    fn of(row: &CounterpartyCsvRowV1) -> Result<Self, String> {
        Ok(Self {
            payments: row.payments,
            spent: row.spent,
            spent_7d: row.spent_7d,
            payments_7d: row.payments_7d,
            sellers_paid: row.sellers_paid,
            funded: row.funded,
            sellers_paid_7d: row.sellers_paid_7d,
            first_paid_day: day_number(row.first_paid_day.as_deref())?,
            last_paid_day: day_number(row.last_paid_day.as_deref())?,
            denylisted: row.denylisted,
        })
    }

    fn row(&self, address: String) -> CounterpartyCsvRowV1 {
        CounterpartyCsvRowV1 {
            address,
            payments: self.payments,
            sellers_paid: self.sellers_paid,
            funded: self.funded,
            denylisted: self.denylisted,
            spent: self.spent,
            spent_7d: self.spent_7d,
            payments_7d: self.payments_7d,
            sellers_paid_7d: self.sellers_paid_7d,
            first_paid_day: day_text(self.first_paid_day),
            last_paid_day: day_text(self.last_paid_day),
        }
    }
}

/// A lowercase `0x` address as its 20 bytes; `None` for anything else.
fn address_bytes(address: &str) -> Option<[u8; 20]> {
    let hex_digits = address.strip_prefix("0x")?;
    if hex_digits.len() != 40 || hex_digits.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let mut bytes = [0u8; 20];
    hex::decode_to_slice(hex_digits, &mut bytes).ok()?;
    Some(bytes)
}

fn address_text(bytes: &[u8; 20]) -> String {
    format!("0x{}", hex::encode(bytes))
}

/// The known non-seller wallets, looked up by address.
#[derive(Debug, Default)]
pub struct Counterparties {
    /// Addresses in ascending order, distinct; `facts[i]` is `addresses[i]`'s.
    addresses: Vec<[u8; 20]>,
    facts: Vec<Facts>,
    /// Wallets whose address is not lowercase `0x` hex of 20 bytes (a rebuild writes none; kept
    /// so that a row the file holds is never dropped).
    others: HashMap<String, Facts>,
}

/// Builds a [`Counterparties`] from rows in any order, straight into its two columns (a file the
/// publisher wrote is in address order already, so nothing is sorted or copied).
#[derive(Debug, Default)]
struct Builder {
    addresses: Vec<[u8; 20]>,
    facts: Vec<Facts>,
    others: HashMap<String, Facts>,
    sorted: bool,
}

impl Builder {
    /// For about `rows` rows.
    fn with_capacity(rows: usize) -> Self {
        Self { addresses: Vec::with_capacity(rows), facts: Vec::with_capacity(rows), sorted: true, ..Self::default() }
    }

    fn push(&mut self, row: &CounterpartyCsvRowV1) -> Result<(), String> {
        let facts = Facts::of(row).map_err(|e| format!("{}: {e}", row.address))?;
        self.add(&row.address, facts);
        Ok(())
    }

    fn add(&mut self, address: &str, facts: Facts) {
        match address_bytes(address) {
            Some(key) => {
                if self.addresses.last().is_some_and(|last| *last >= key) {
                    self.sorted = false;
                }
                self.addresses.push(key);
                self.facts.push(facts);
            }
            None => {
                self.others.insert(address.to_owned(), facts);
            }
        }
    }

    fn finish(self) -> Counterparties {
        let Self { addresses, facts, others, sorted } = self;
        if sorted {
            return Counterparties { addresses, facts, others };
        }
        // A stable sort keeps the rows of one address in file order; the last of them is kept, as
        // a map filled in file order would keep it.
        let mut order: Vec<u32> = (0..addresses.len() as u32).collect();
        order.sort_by_key(|i| addresses[*i as usize]);
        let mut held = Counterparties { others, ..Counterparties::default() };
        for (n, i) in order.iter().map(|i| *i as usize).enumerate() {
            let last_of_its_address = order.get(n + 1).is_none_or(|next| addresses[*next as usize] != addresses[i]);
            if last_of_its_address {
                held.addresses.push(addresses[i]);
                held.facts.push(facts[i]);
            }
        }
        held
    }
}

impl Counterparties {
    /// The rows of a `counterparties.csv` (as the publisher writes it, or older snapshots' with
    /// fewer columns).
    ///
    /// # Errors
    /// A row that does not parse, or a day that is not `YYYY-MM-DD`.
    pub fn from_csv(bytes: &[u8]) -> Result<Self, PublishError> {
        let mut builder = Builder::with_capacity(0);
        let mut reader = csv::Reader::from_reader(bytes);
        for row in reader.deserialize::<CounterpartyCsvRowV1>() {
            let row = row.map_err(|e| PublishError::Csv(e.to_string()))?;
            builder.push(&row).map_err(PublishError::Csv)?;
        }
        Ok(builder.finish())
    }

    /// The rows of a `counterparties.parquet` ([`crate::exports::counterparties`]), read by
    /// column name.
    ///
    /// # Errors
    /// A column missing or of another type, or a file that does not decode.
    pub fn from_parquet(bytes: bytes::Bytes) -> Result<Self, PublishError> {
        use arrow::array::{Array, AsArray as _};
        use arrow::datatypes::{Date32Type, UInt32Type, UInt64Type};
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

        use crate::exports::counterparty_column as name;
        fn column<'b>(
            batch: &'b arrow::record_batch::RecordBatch,
            name: &str,
            data_type: &arrow::datatypes::DataType,
        ) -> Result<&'b dyn Array, PublishError> {
            match batch.column_by_name(name) {
                Some(c) if c.data_type() == data_type => Ok(c.as_ref()),
                _ => Err(PublishError::Table {
                    file: crate::layout::COUNTERPARTIES,
                    message: format!("no {data_type} column {name}"),
                }),
            }
        }
        use arrow::datatypes::DataType::{Boolean, Date32, UInt32, UInt64, Utf8};
        let file = ParquetRecordBatchReaderBuilder::try_new(bytes).map_err(PublishError::Parquet)?;
        let rows = usize::try_from(file.metadata().file_metadata().num_rows()).unwrap_or(0);
        let reader = file.with_batch_size(crate::exports::EXPORT_BATCH_ROWS).build().map_err(PublishError::Parquet)?;
        let mut builder = Builder::with_capacity(rows);
        for batch in reader {
            let batch = batch
                .map_err(|e| PublishError::Table { file: crate::layout::COUNTERPARTIES, message: e.to_string() })?;
            let address = column(&batch, name::ADDRESS, &Utf8)?.as_string::<i32>();
            let u64s = |n| column(&batch, n, &UInt64).map(|c| c.as_primitive::<UInt64Type>());
            let u32s = |n| column(&batch, n, &UInt32).map(|c| c.as_primitive::<UInt32Type>());
            let days = |n| column(&batch, n, &Date32).map(|c| c.as_primitive::<Date32Type>());
            let (payments, spent, spent_7d, payments_7d) =
                (u64s(name::PAYMENTS)?, u64s(name::SPENT)?, u64s(name::SPENT_7D)?, u64s(name::PAYMENTS_7D)?);
            let (sellers_paid, funded, sellers_paid_7d) =
                (u32s(name::SELLERS_PAID)?, u32s(name::FUNDED)?, u32s(name::SELLERS_PAID_7D)?);
            let (first, last) = (days(name::FIRST_PAID_DAY)?, days(name::LAST_PAID_DAY)?);
            let denylisted = column(&batch, name::DENYLISTED, &Boolean)?.as_boolean();
            let day = |a: &arrow::array::Date32Array, i: usize| if a.is_null(i) { NO_DAY } else { a.value(i) };
            for i in 0..batch.num_rows() {
                let facts = Facts {
                    payments: payments.value(i),
                    spent: spent.value(i),
                    spent_7d: spent_7d.value(i),
                    payments_7d: payments_7d.value(i),
                    sellers_paid: sellers_paid.value(i),
                    funded: funded.value(i),
                    sellers_paid_7d: sellers_paid_7d.value(i),
                    first_paid_day: day(first, i),
                    last_paid_day: day(last, i),
                    denylisted: denylisted.value(i),
                };
                builder.add(address.value(i), facts);
            }
        }
        Ok(builder.finish())
    }

    /// From rows in any order (of one address, the last is kept).
    ///
    /// # Errors
    /// A day that is not `YYYY-MM-DD`.
    pub fn from_rows<'a>(rows: impl IntoIterator<Item = &'a CounterpartyCsvRowV1>) -> Result<Self, PublishError> {
        let mut builder = Builder::with_capacity(0);
        for row in rows {
            builder.push(row).map_err(PublishError::Csv)?;
        }
        Ok(builder.finish())
    }

    /// Wallets held.
    pub fn len(&self) -> usize {
        self.addresses.len() + self.others.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The wallet's row, as the file holds it.
    pub fn get(&self, address: &str) -> Option<CounterpartyCsvRowV1> {
        match address_bytes(address) {
            Some(key) => {
                let i = self.addresses.binary_search(&key).ok()?;
                Some(self.facts[i].row(address.to_owned()))
            }
            None => self.others.get(address).map(|f| f.row(address.to_owned())),
        }
    }

    /// The `n` wallets that spent most (qualifying volume), ties by address; none that spent
    /// nothing.
    pub fn top_spenders(&self, n: usize) -> Vec<CounterpartyCsvRowV1> {
        // Index order is address order, so (spend descending, index) is (spend, address).
        let by_spend = |a: &u32, b: &u32| {
            let (fa, fb) = (&self.facts[*a as usize], &self.facts[*b as usize]);
            fb.spent.cmp(&fa.spent).then(a.cmp(b))
        };
        let mut spenders: Vec<u32> =
            (0..self.facts.len() as u32).filter(|i| self.facts[*i as usize].spent > 0).collect();
        if spenders.len() > n && n > 0 {
            spenders.select_nth_unstable_by(n - 1, by_spend);
        }
        spenders.truncate(n);
        spenders.sort_unstable_by(by_spend);
        let mut top: Vec<CounterpartyCsvRowV1> = spenders
            .into_iter()
            .map(|i| self.facts[i as usize].row(address_text(&self.addresses[i as usize])))
            .collect();
        top.extend(self.others.iter().filter(|(_, f)| f.spent > 0).map(|(a, f)| f.row(a.clone())));
        top.sort_by(|a, b| b.spent.cmp(&a.spent).then_with(|| a.address.cmp(&b.address)));
        top.truncate(n);
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(address: &str, spent: u64, first: Option<&str>) -> CounterpartyCsvRowV1 {
        CounterpartyCsvRowV1 {
            address: address.to_owned(),
            payments: spent / 10 + 1,
            sellers_paid: 2,
            funded: 3,
            denylisted: spent == 0,
            spent,
            spent_7d: spent / 2,
            payments_7d: 1,
            sellers_paid_7d: 1,
            first_paid_day: first.map(str::to_owned),
            last_paid_day: first.map(|_| "2026-12-01".to_owned()),
        }
    }

    fn addr(n: u8) -> String {
        format!("0x{}", hex::encode([n; 20]))
    }

    #[test]
    fn a_lookup_gives_back_the_row_the_file_holds() {
        let rows = vec![
            row(&addr(0xab), 500, Some("2025-06-01")),
            row(&addr(0x01), 0, None),
            row("not-an-address", 7, Some("1969-12-31")),
        ];
        let held = Counterparties::from_rows(&rows).unwrap();
        assert_eq!(held.len(), 3);
        for r in &rows {
            assert_eq!(held.get(&r.address).as_ref(), Some(r));
        }
        assert_eq!(held.get(&addr(0x02)), None);
        assert_eq!(held.get(&addr(0xab).to_uppercase().replace("0X", "0x")), None);
    }

    #[test]
    fn the_csv_reads_as_its_rows() {
        let rows = vec![row(&addr(0x01), 9, Some("2026-01-31")), row(&addr(0x02), 0, None)];
        let mut csv = csv::Writer::from_writer(Vec::new());
        for r in &rows {
            csv.serialize(r).unwrap();
        }
        let held = Counterparties::from_csv(&csv.into_inner().unwrap()).unwrap();
        assert_eq!(held.get(&addr(0x01)).as_ref(), Some(&rows[0]));
        assert_eq!(held.get(&addr(0x02)).as_ref(), Some(&rows[1]));
        let bad = "address,payments,sellersPaid,funded,denylisted,spentMicroUsdc,firstPaidDay\n0x01,1,1,0,false,5,2026-13-01\n";
        assert!(Counterparties::from_csv(bad.as_bytes()).is_err());
    }

    #[test]
    fn the_parquet_file_reads_as_the_csv_written_from_the_same_rows() {
        use agentrep_model::records::Counterparty;
        let wallet = |n: u8, spent: u64, paid: Option<i64>| Counterparty {
            address: addr(n),
            payments: spent / 3,
            sellers_paid: 1,
            funded: u32::from(n),
            denylisted: n == 7,
            spent,
            spent_7d: spent / 5,
            payments_7d: 2,
            sellers_paid_7d: 1,
            first_paid_at: paid,
            last_paid_at: paid.map(|t| t + 3 * 86_400 + 1),
        };
        let rows = vec![wallet(1, 90, Some(1_764_000_000)), wallet(7, 0, None), wallet(9, 12, Some(86_399))];
        let export = crate::exports::counterparties();
        let mut parquet = Vec::new();
        export.write_parquet(&mut parquet, &rows).unwrap();
        let mut csv = Vec::new();
        export.write_csv(&mut csv, &rows).unwrap();
        let (from_parquet, from_csv) =
            (Counterparties::from_parquet(parquet.clone().into()).unwrap(), Counterparties::from_csv(&csv).unwrap());
        assert_eq!(from_parquet.len(), 3);
        for r in &rows {
            let row = from_parquet.get(&r.address).expect("held");
            assert_eq!(Some(&row), from_csv.get(&r.address).as_ref(), "{}", r.address);
            assert_eq!((row.spent, row.denylisted, row.funded), (r.spent, r.denylisted, r.funded));
        }
        assert_eq!(from_parquet.get(&addr(1)).unwrap().last_paid_day.as_deref(), Some("2025-11-27"));
        // The CSV a static export converts from the Parquet file is the one written from the rows.
        let mut converted = Vec::new();
        export.write_csv_from_parquet(parquet.into(), &mut converted).unwrap();
        assert_eq!(String::from_utf8(converted).unwrap(), String::from_utf8(csv).unwrap());
    }

    #[test]
    fn rows_out_of_order_are_sorted_and_the_last_of_an_address_kept() {
        let rows = vec![row(&addr(0x09), 1, None), row(&addr(0x03), 2, None), row(&addr(0x09), 3, None)];
        let held = Counterparties::from_rows(&rows).unwrap();
        assert_eq!(held.len(), 2);
        assert_eq!(held.get(&addr(0x09)).map(|r| r.spent), Some(3));
        assert_eq!(held.get(&addr(0x03)).map(|r| r.spent), Some(2));
    }

    #[test]
    fn top_spenders_rank_by_spend_then_address() {
        let rows: Vec<_> = [(0x05, 10), (0x01, 30), (0x02, 10), (0x03, 0), (0x04, 20)]
            .into_iter()
            .map(|(a, spent)| row(&addr(a), spent, None))
            .chain([row("0xzz", 20, None)])
            .collect();
        let held = Counterparties::from_rows(&rows).unwrap();
        let top: Vec<(String, u64)> = held.top_spenders(4).into_iter().map(|r| (r.address, r.spent)).collect();
        assert_eq!(top, vec![(addr(0x01), 30), (addr(0x04), 20), ("0xzz".to_owned(), 20), (addr(0x02), 10)]);
        assert_eq!(held.top_spenders(100).len(), 5, "the one that spent nothing is no buyer");
        assert!(held.top_spenders(0).is_empty());
    }
}
