//! The server's configuration is read once, at start, from the environment (`env.rs` names every
//! variable): [`crate::ServerConfig::from_env`] reads every part and refuses a value it cannot use
//! with the variable named, never dropping it for a default. Every refusal of one start is
//! collected, so an operator (and `serve --check`) sees all of them at once.

use std::fmt;

use crate::env::EnvVar;

/// Why a variable's value is refused.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// Not a whole number above zero.
    #[error("must be a positive whole number, not {0:?}")]
    NotAPositiveNumber(String),
    /// Not a whole number.
    #[error("must be a whole number, not {0:?}")]
    NotANumber(String),
    /// Not `0x` and 40 hex digits.
    #[error("is not an address (0x and 40 hex digits): {0:?}")]
    NotAnAddress(String),
    /// A comma-separated list with an entry that is not an address.
    #[error("lists {0:?}, which is not an address")]
    ListsANonAddress(String),
    /// A network agentrep takes no payments on.
    #[error("is {0:?}, not base or base-sepolia")]
    UnknownNetwork(String),
    /// Not a switch.
    #[error("must be 1 or true (on), 0 or false (off), not {0:?}")]
    NotASwitch(String),
    /// A value its reader refused, in the reader's words (which never echo a secret).
    #[error("{0}")]
    Refused(String),
    /// Not a URL.
    #[error("is not a URL")]
    NotAUrl(#[source] url::ParseError),
    /// A file it names that could not be read.
    #[error("names a file that could not be read")]
    Unreadable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Not the key it must hold (the error names no part of the value).
    #[error(transparent)]
    NotAKey(#[from] crate::secret::KeyError),
    /// Not an address range.
    #[error(transparent)]
    NotARange(#[from] crate::writes::limits::CidrError),
    /// The HTTP client it configures cannot be built.
    #[error(transparent)]
    NoClient(#[from] agentrep_ingest::web::ClientError),
}

/// A variable whose value is refused.
#[derive(Debug, thiserror::Error)]
#[error("{variable}: {problem}")]
pub struct BadVariable {
    /// The variable.
    pub variable: &'static str,
    /// What is wrong with its value.
    #[source]
    pub problem: Problem,
}

/// Every variable one start refused.
#[derive(Debug)]
pub struct BadConfiguration(pub Vec<BadVariable>);

impl fmt::Display for BadConfiguration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let refused: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        write!(f, "the server's configuration is refused: {}", refused.join("; "))
    }
}

impl std::error::Error for BadConfiguration {}

/// Reads variables and collects what it refuses; a refused value reads as unset, so every part is
/// read and every refusal of one start is reported together.
#[derive(Debug, Default)]
pub(crate) struct Reader {
    refused: Vec<BadVariable>,
}

impl Reader {
    /// Records that `var`'s value is refused.
    pub(crate) fn refuse(&mut self, var: &EnvVar, problem: Problem) {
        self.refused.push(BadVariable { variable: var.name, problem });
    }

    /// `var` read by `parse`; `None` when unset or refused.
    pub(crate) fn parse<T>(&mut self, var: &EnvVar, parse: impl FnOnce(&str) -> Result<T, Problem>) -> Option<T> {
        let value = var.get()?;
        match parse(&value) {
            Ok(v) => Some(v),
            Err(problem) => {
                self.refuse(var, problem);
                None
            }
        }
    }

    /// A whole number above zero.
    pub(crate) fn positive(&mut self, var: &EnvVar) -> Option<u64> {
        self.parse(var, |v| match v.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(Problem::NotAPositiveNumber(v.to_owned())),
        })
    }

    /// A switch: `1`/`true` on, `0`/`false` off, unset off.
    pub(crate) fn switch(&mut self, var: &EnvVar) -> bool {
        self.parse(var, |v| match v.to_ascii_lowercase().as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            _ => Err(Problem::NotASwitch(v.to_owned())),
        })
        .unwrap_or(false)
    }

    /// What was refused.
    pub(crate) fn into_refused(self) -> Vec<BadVariable> {
        self.refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NUMBER: EnvVar = EnvVar::plain("A_TEST_NUMBER", "1", "a test's number");

    #[test]
    fn a_refused_value_is_named_and_every_refusal_is_kept() {
        let mut r = Reader::default();
        r.refuse(&NUMBER, Problem::NotAPositiveNumber("0".into()));
        r.refuse(&NUMBER, Problem::NotASwitch("yes".into()));
        let err = BadConfiguration(r.into_refused());
        assert_eq!(err.0.len(), 2);
        let text = err.to_string();
        assert!(text.contains("A_TEST_NUMBER: must be a positive whole number, not \"0\""), "{text}");
        assert!(text.contains("not \"yes\""), "{text}");
        assert!(Reader::default().into_refused().is_empty());
    }
}
