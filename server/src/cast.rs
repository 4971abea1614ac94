//! Featured casts on Farcaster: a `CastAdd` message signed with the operator's Ed25519 signer key
//! and submitted to the configured hub's HTTP API (`POST /v1/submitMessage`, the protobuf
//! `Message` as the body), as Farcaster's protocol specification defines it: `MessageData` is
//! serialised once (`data_bytes`), its BLAKE3 digest truncated to 20 bytes is the message's hash
//! and cast id, and the signer signs that hash. The hub checks the signature and that the key is
//! registered for the account; the cast hash it answers is the one computed here.

use std::time::Duration;

use agentrep_ingest::web::plain_client;
use agentrep_ingest::web::reqwest::{Client, Url};
use ed25519_dalek::{Signer, SigningKey};
use prost::Message as _;

use crate::{SecretKey, env};

/// Seconds from the Unix epoch to Farcaster's (2021-01-01T00:00:00Z).
pub const FARCASTER_EPOCH: i64 = 1_609_459_200;
/// Longest cast text, bytes (the protocol's limit for a cast that is not a long cast).
pub const MAX_CAST_BYTES: usize = 320;
/// How long the hub may take to take a cast.
const HUB_TIMEOUT: Duration = Duration::from_secs(10);

/// `MessageData` (message.proto): the fields a cast needs.
#[derive(Clone, PartialEq, prost::Message)]
struct MessageData {
    #[prost(int32, tag = "1")]
    kind: i32,
    #[prost(uint64, tag = "2")]
    fid: u64,
    #[prost(uint32, tag = "3")]
    timestamp: u32,
    #[prost(int32, tag = "4")]
    network: i32,
    #[prost(message, optional, tag = "5")]
    cast_add_body: Option<CastAddBody>,
}

/// `CastAddBody`: text and embedded URLs.
#[derive(Clone, PartialEq, prost::Message)]
struct CastAddBody {
    #[prost(string, tag = "4")]
    text: String,
    #[prost(message, repeated, tag = "6")]
    embeds: Vec<Embed>,
}

/// `Embed` with its `url` arm.
#[derive(Clone, PartialEq, prost::Message)]
struct Embed {
    #[prost(string, optional, tag = "1")]
    url: Option<String>,
}

/// The signed envelope, `Message`.
#[derive(Clone, PartialEq, prost::Message)]
struct Envelope {
    #[prost(message, optional, tag = "1")]
    data: Option<MessageData>,
    #[prost(bytes = "vec", tag = "2")]
    hash: Vec<u8>,
    #[prost(int32, tag = "3")]
    hash_scheme: i32,
    #[prost(bytes = "vec", tag = "4")]
    signature: Vec<u8>,
    #[prost(int32, tag = "5")]
    signature_scheme: i32,
    #[prost(bytes = "vec", tag = "6")]
    signer: Vec<u8>,
    #[prost(bytes = "vec", optional, tag = "7")]
    data_bytes: Option<Vec<u8>>,
}

const MESSAGE_TYPE_CAST_ADD: i32 = 1;
const HASH_SCHEME_BLAKE3: i32 = 1;
const SIGNATURE_SCHEME_ED25519: i32 = 1;

/// The operator's Farcaster account, signer and hub.
#[derive(Clone)]
pub struct Caster {
    fid: u64,
    key: SigningKey,
    network: i32,
    hub: Url,
    http: Client,
}

impl std::fmt::Debug for Caster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Caster").field("fid", &self.fid).field("hub", &self.hub.origin()).finish_non_exhaustive()
    }
}

/// A signed cast, ready to submit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedCast {
    /// The protobuf `Message`.
    pub bytes: Vec<u8>,
    /// Its hash (the cast id), `0x` hex.
    pub hash: String,
}

/// Why a cast was not taken.
#[derive(Debug, thiserror::Error)]
pub enum CastError {
    /// The hub could not be reached or did not answer in time.
    #[error("the Farcaster hub could not be reached: {0}")]
    Unreachable(String),
    /// The hub refused the message.
    #[error("the Farcaster hub refused the cast ({status}): {detail}")]
    Refused {
        /// HTTP status.
        status: u16,
        /// What it said (its first 300 characters).
        detail: String,
    },
    /// The hub took it under another hash than the one signed.
    #[error("the Farcaster hub answered hash {answered}, not {signed}")]
    HashMismatch {
        /// What was signed.
        signed: String,
        /// What it answered.
        answered: String,
    },
}

impl Caster {
    /// The caster `AGENTREP_FARCASTER_*` configure; `None` when none is configured, and a
    /// refusal when some but not all are set or one is malformed (it never echoes the key).
    pub(crate) fn read(r: &mut crate::config::Reader) -> Option<Self> {
        use crate::config::Problem;
        let together = [&env::FARCASTER_FID, &env::FARCASTER_SIGNER_KEY, &env::FARCASTER_HUB_URL];
        let unset: Vec<_> = together.iter().filter(|v| v.get().is_none()).collect();
        if unset.len() == together.len() {
            return None;
        }
        for var in &unset {
            r.refuse(
                var,
                Problem::Refused(
                    "is unset: featured casts need the account, its signer key and a hub together".to_owned(),
                ),
            );
        }
        let network = r.parse(&env::FARCASTER_NETWORK, |v| match v {
            "mainnet" => Ok(1),
            "testnet" => Ok(2),
            "devnet" => Ok(3),
            other => Err(Problem::Refused(format!("is `{other}`, not mainnet, testnet or devnet"))),
        });
        let fid = r.parse(&env::FARCASTER_FID, |v| v.parse::<u64>().map_err(|_| Problem::NotANumber(v.to_owned())));
        let seed = r.parse(&env::FARCASTER_SIGNER_KEY, |v| {
            SecretKey::new(v.to_owned()).bytes32("the key").map_err(Problem::NotAKey)
        });
        let hub = r.parse(&env::FARCASTER_HUB_URL, |v| match Url::parse(v) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(url),
            Ok(_) => Err(Problem::Refused("must be http or https".to_owned())),
            Err(e) => Err(Problem::NotAUrl(e)),
        });
        match Self::new(fid?, seed?, network.unwrap_or(1), hub?) {
            Ok(caster) => Some(caster),
            Err(why) => {
                r.refuse(&env::FARCASTER_HUB_URL, Problem::NoClient(why));
                None
            }
        }
    }

    /// A caster for account `fid` signing with the Ed25519 `seed`, on `network` (1 mainnet).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(fid: u64, seed: [u8; 32], network: i32, hub: Url) -> Result<Self, agentrep_ingest::web::ClientError> {
        Ok(Self { fid, key: SigningKey::from_bytes(&seed), network, hub, http: plain_client(HUB_TIMEOUT)? })
    }

    /// The signer's public key, `0x` hex (what the key registry lists).
    pub fn signer(&self) -> String {
        format!("0x{}", hex::encode(self.key.verifying_key().as_bytes()))
    }

    /// The account.
    pub fn fid(&self) -> u64 {
        self.fid
    }

    /// Signs a cast of `text` embedding `embed`, at Unix time `now`.
    pub fn sign(&self, text: &str, embed: Option<&str>, now: i64) -> SignedCast {
        let data = MessageData {
            kind: MESSAGE_TYPE_CAST_ADD,
            fid: self.fid,
            timestamp: u32::try_from(now - FARCASTER_EPOCH).unwrap_or(0),
            network: self.network,
            cast_add_body: Some(CastAddBody {
                text: text.to_owned(),
                embeds: embed.map(|url| Embed { url: Some(url.to_owned()) }).into_iter().collect(),
            }),
        };
        let data_bytes = data.encode_to_vec();
        let hash = blake3::hash(&data_bytes).as_bytes()[..20].to_vec();
        let signature = self.key.sign(&hash).to_bytes().to_vec();
        let envelope = Envelope {
            data: Some(data),
            hash: hash.clone(),
            hash_scheme: HASH_SCHEME_BLAKE3,
            signature,
            signature_scheme: SIGNATURE_SCHEME_ED25519,
            signer: self.key.verifying_key().as_bytes().to_vec(),
            data_bytes: Some(data_bytes),
        };
        SignedCast { bytes: envelope.encode_to_vec(), hash: format!("0x{}", hex::encode(hash)) }
    }

    /// Submits a signed cast; answers its hash once the hub took it.
    ///
    /// # Errors
    /// When the hub cannot be reached, refuses it, or answers another hash.
    pub async fn submit(&self, cast: &SignedCast) -> Result<String, CastError> {
        let url = self.hub.join("v1/submitMessage").map_err(|e| CastError::Unreachable(e.to_string()))?;
        let resp = self
            .http
            .post(url)
            .header("content-type", "application/octet-stream")
            .body(cast.bytes.clone())
            .send()
            .await
            .map_err(|e| CastError::Unreachable(e.to_string()))?;
        let status = resp.status().as_u16();
        let body = resp.text().await.map_err(|e| CastError::Unreachable(e.to_string()))?;
        if !(200..300).contains(&status) {
            return Err(CastError::Refused { status, detail: body.chars().take(300).collect() });
        }
        let answered = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["hash"].as_str().map(str::to_lowercase))
            .unwrap_or_default();
        if answered != cast.hash {
            return Err(CastError::HashMismatch { signed: cast.hash.clone(), answered });
        }
        Ok(answered)
    }
}

#[cfg(test)]
mod tests {
    use ed25519_dalek::{Signature, Verifier};

    use super::*;

    #[test]
    fn a_cast_is_signed_over_the_blake3_digest_of_its_data_bytes() {
        let caster = Caster::new(7, [9u8; 32], 1, Url::parse("http://127.0.0.1:1/").unwrap()).unwrap();
        let cast = caster.sign("hello", Some("https://agentrep.test/t/0x1"), FARCASTER_EPOCH + 100);
        let envelope = Envelope::decode(cast.bytes.as_slice()).unwrap();
        let data_bytes = envelope.data_bytes.clone().unwrap();
        assert_eq!(envelope.data.as_ref().unwrap().encode_to_vec(), data_bytes, "data and data_bytes agree");
        assert_eq!(envelope.hash, blake3::hash(&data_bytes).as_bytes()[..20]);
        assert_eq!(cast.hash, format!("0x{}", hex::encode(&envelope.hash)));
        let signature = Signature::from_slice(&envelope.signature).unwrap();
        assert!(caster.key.verifying_key().verify(&envelope.hash, &signature).is_ok());
        let data = envelope.data.unwrap();
        assert_eq!((data.kind, data.fid, data.timestamp, data.network), (1, 7, 100, 1));
        assert_eq!(data.cast_add_body.unwrap().embeds[0].url.as_deref(), Some("https://agentrep.test/t/0x1"));
    }
}
