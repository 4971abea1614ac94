//! Rust field types that map to Arrow columns, and the builders that turn rows into arrays.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, ListBuilder, StringArray, StringBuilder,
    TimestampMicrosecondArray, UInt32Array, UInt64Array,
};
use arrow::datatypes::{DataType, Field, TimeUnit};

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
}

macro_rules! primitive_column {
    ($ty:ty, $dt:expr, $array:ty) => {
        impl Column for $ty {
            fn data_type() -> DataType {
                $dt
            }
            fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(<$array>::from_iter_values(values.copied()))
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
        }
    };
}

primitive_column!(u32, DataType::UInt32, UInt32Array);
primitive_column!(u64, DataType::UInt64, UInt64Array);
primitive_column!(i64, DataType::Int64, Int64Array);
primitive_column!(f64, DataType::Float64, Float64Array);

impl Column for bool {
    fn data_type() -> DataType {
        DataType::Boolean
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(values.map(|v| Some(*v)).collect::<BooleanArray>())
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
}

impl Column for Timestamp {
    fn data_type() -> DataType {
        DataType::Timestamp(TimeUnit::Microsecond, None)
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(TimestampMicrosecondArray::from_iter_values(values.map(|t| t.0)))
    }
}

impl Column for String {
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(StringArray::from_iter_values(values))
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
}
