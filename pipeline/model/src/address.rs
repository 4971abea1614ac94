//! Wallet addresses: validated against `^0x[a-fA-F0-9]{40}$` and normalised to lowercase.

use std::fmt;

/// A lowercase `0x`-prefixed 20-byte hex address; mixed-case input is accepted and normalised,
/// so case duplicates of one wallet compare equal.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Address(String);

/// Why a string is not an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressError {
    /// The rejected input, truncated for display.
    pub input: String,
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not an address matching ^0x[a-fA-F0-9]{{40}}$", self.input)
    }
}

impl std::error::Error for AddressError {}

impl Address {
    /// Parses and lowercases an address.
    pub fn parse(input: &str) -> Result<Self, AddressError> {
        let valid = input.len() == 42 && input.starts_with("0x") && input[2..].bytes().all(|b| b.is_ascii_hexdigit());
        if valid {
            Ok(Self(input.to_ascii_lowercase()))
        } else {
            let input: String = input.chars().take(64).collect();
            Err(AddressError { input })
        }
    }

    /// The lowercase text form.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Consumes the address into its lowercase text form.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Address({})", self.0)
    }
}

impl AsRef<str> for Address {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_case_is_normalised() {
        let a = Address::parse("0xAbCdEf0123456789aBcDeF0123456789AbCdEf01").unwrap();
        assert_eq!(a.as_str(), "0xabcdef0123456789abcdef0123456789abcdef01");
        let b = Address::parse("0xabcdef0123456789abcdef0123456789abcdef01").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn rejects_bad_shapes() {
        for bad in [
            "",
            "0x",
            "abcdef0123456789abcdef0123456789abcdef0123",
            "0xZZcdef0123456789abcdef0123456789abcdef01",
            "0xabcdef0123456789abcdef0123456789abcdef0",
            "0Xabcdef0123456789abcdef0123456789abcdef01",
        ] {
            assert!(Address::parse(bad).is_err(), "{bad} accepted");
        }
    }
}
