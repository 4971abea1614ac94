//! The closed sets print as their wire names: `display_as_wire_name!(T, …)` implements `Display`
//! for types with an `as_str(self) -> &'static str`.

/// `Display` as `as_str()`.
macro_rules! display_as_wire_name {
    ($($ty:ty),*) => {
        $(impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        })*
    };
}
pub(crate) use display_as_wire_name;
