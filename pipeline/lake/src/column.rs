//! Rust field types that map to Arrow columns, and the builders that turn rows into arrays.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, ListBuilder, StringArray, StringBuilder,
    TimestampMicrosecondArray, UInt32Array, UInt64Array,
};
use arrow::datatypes::{DataType, Field, TimeUnit};
use arrow::datatypes::{Float64Type, Int64Type, TimestampMicrosecondType, UInt32Type, UInt64Type};

/// A UTC instant with microsecond precision, stored as Arrow `Timestamp(Microsecond)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// From Unix seconds.
    pub fn from_secs(secs: i64) -> Self {
        Self(secs * 1_000_000)
    }

    /// Unix seconds, rounded down.
    pub fn secs(self) -> i64 {
        self.0.div_euclid(1_000_000)
    }
}

/// A Rust type that is one lake column.
pub trait Column: Sized {
    /// The Arrow type of the column.
    fn data_type() -> DataType;
    /// Whether the column may hold nulls.
    const NULLABLE: bool = false;
    /// Builds the column from the field of every row.
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef
    where
        Self: 'a;
    /// Reads every value of a column written by [`Column::build`] (the inverse of `build`).
    ///
    /// # Panics
    /// When the array is not of [`Column::data_type`]; callers check the schema first.
    fn read(array: &dyn Array) -> Vec<Self>;
    /// The values of `rows` rows of a partition written before this column existed, for a column
    /// that may be added to a dataset (an empty list reads as nothing observed); `None` for the
    /// columns every partition has.
    fn absent(_rows: usize) -> Option<Vec<Self>> {
        None
    }
}

macro_rules! primitive_column {
    ($ty:ty, $dt:expr, $array:ty, $arrow:ty) => {
        impl Column for $ty {
            fn data_type() -> DataType {
                $dt
            }
            fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(<$array>::from_iter_values(values.copied()))
            }
            fn read(array: &dyn Array) -> Vec<Self> {
                array.as_primitive::<$arrow>().values().to_vec()
            }
        }
        impl Column for Option<$ty> {
            fn data_type() -> DataType {
                $dt
            }
            const NULLABLE: bool = true;
            fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(values.copied().collect::<$array>())
            }
            fn read(array: &dyn Array) -> Vec<Self> {
                array.as_primitive::<$arrow>().iter().collect()
            }
        }
    };
}

primitive_column!(u32, DataType::UInt32, UInt32Array, UInt32Type);
primitive_column!(u64, DataType::UInt64, UInt64Array, UInt64Type);
primitive_column!(i64, DataType::Int64, Int64Array, Int64Type);
primitive_column!(f64, DataType::Float64, Float64Array, Float64Type);

impl Column for bool {
    fn data_type() -> DataType {
        DataType::Boolean
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(values.map(|v| Some(*v)).collect::<BooleanArray>())
    }
    fn read(array: &dyn Array) -> Vec<Self> {
        array.as_boolean().iter().map(|v| v.unwrap_or(false)).collect()
    }
}

impl Column for Option<bool> {
    const NULLABLE: bool = true;
    fn data_type() -> DataType {
        DataType::Boolean
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(values.copied().collect::<BooleanArray>())
    }
    fn read(array: &dyn Array) -> Vec<Self> {
        array.as_boolean().iter().collect()
    }
}

impl Column for Timestamp {
    fn data_type() -> DataType {
        DataType::Timestamp(TimeUnit::Microsecond, None)
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(TimestampMicrosecondArray::from_iter_values(values.map(|t| t.0)))
    }
    fn read(array: &dyn Array) -> Vec<Self> {
        array.as_primitive::<TimestampMicrosecondType>().values().iter().map(|v| Timestamp(*v)).collect()
    }
}

impl Column for String {
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(StringArray::from_iter_values(values))
    }
    fn read(array: &dyn Array) -> Vec<Self> {
        array.as_string::<i32>().iter().map(|v| v.unwrap_or_default().to_owned()).collect()
    }
}

impl Column for Option<String> {
    fn data_type() -> DataType {
        DataType::Utf8
    }
    const NULLABLE: bool = true;
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(values.map(|v| v.as_deref()).collect::<StringArray>())
    }
    fn read(array: &dyn Array) -> Vec<Self> {
        array.as_string::<i32>().iter().map(|v| v.map(str::to_owned)).collect()
    }
    fn absent(rows: usize) -> Option<Vec<Self>> {
        Some(vec![None; rows])
    }
}

impl Column for Vec<String> {
    fn data_type() -> DataType {
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        let mut builder = ListBuilder::new(StringBuilder::new());
        for list in values {
            for item in list {
                builder.values().append_value(item);
            }
            builder.append(true);
        }
        Arc::new(builder.finish())
    }
    fn read(array: &dyn Array) -> Vec<Self> {
        array
            .as_list::<i32>()
            .iter()
            .map(|list| list.map(|items| <String as Column>::read(items.as_ref())).unwrap_or_default())
            .collect()
    }
    fn absent(rows: usize) -> Option<Vec<Self>> {
        Some(vec![Vec::new(); rows])
    }
}
