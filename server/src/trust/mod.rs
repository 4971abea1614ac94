//! The x402 trust-provider protocol in both directions (`SCORING.md` § 5e): `POST /trust/evaluate`,
//! the evidence its answers are content-addressed by, the discovery document and the key set.

pub mod card;
pub mod evaluate;
pub mod sign;

pub use evaluate::{Asked, TRUST_TTL_SECS, evaluate, evidence, read_query};
pub use sign::{TrustSigner, jwks};
