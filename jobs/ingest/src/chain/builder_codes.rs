//! ERC-8021 builder codes: the attribution suffix a settlement's calldata may end with (`x402.md`
//! § 8), read back into the app, wallet (facilitator) and service codes it names.
//!
//! Layout, read from the end: a 16-byte marker (`0x8021` eight times), a schema id, then the
//! schema's data. Schema 0 is `codes ‖ codesLength (1 byte) ‖ 0x00`, the codes ASCII and comma
//! separated; schema 2 (what x402's builder-code extension writes) is `cbor ‖ cborLength (2 bytes,
//! big-endian) ‖ 0x02`, the CBOR a map with `a` (app), `w` (wallet) and `s` (service codes) among
//! its keys. Anyone who builds a transaction writes any code they like, so these are hints of
//! which stacks pay a seller and never evidence: a code that is not 1 to 32 of `[a-z0-9_]` is
//! dropped, so nothing but such a code reaches a published file.

/// The 16 bytes that end every ERC-8021 suffix.
pub const MARKER: [u8; 16] =
    [0x80, 0x21, 0x80, 0x21, 0x80, 0x21, 0x80, 0x21, 0x80, 0x21, 0x80, 0x21, 0x80, 0x21, 0x80, 0x21];

/// The codes of one suffix.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuilderCodes {
    /// The app that exposed the paid endpoint (`a`).
    pub app: Option<String>,
    /// The wallet or facilitator that settled (`w`).
    pub wallet: Option<String>,
    /// Service codes (`s`), or the codes of a schema-0 suffix, which gives them no role.
    pub services: Vec<String>,
}

impl BuilderCodes {
    /// The `settlements` columns: app, wallet, and the service codes comma separated (no code
    /// holds a comma; `None` when there are none).
    pub fn into_columns(self) -> (Option<String>, Option<String>, Option<String>) {
        let services = (!self.services.is_empty()).then(|| self.services.join(","));
        (self.app, self.wallet, services)
    }

    fn is_empty(&self) -> bool {
        self.app.is_none() && self.wallet.is_none() && self.services.is_empty()
    }
}

/// The builder codes `calldata` ends with; `None` when it ends with no well-formed suffix of a
/// schema this reader knows (0 or 2), or the suffix names no valid code.
pub fn parse(calldata: &[u8]) -> Option<BuilderCodes> {
    let body = calldata.strip_suffix(&MARKER[..])?;
    let (&schema, body) = body.split_last()?;
    let codes = match schema {
        0 => {
            let (&len, body) = body.split_last()?;
            let codes = body.get(body.len().checked_sub(usize::from(len))?..)?;
            let text = std::str::from_utf8(codes).ok()?;
            BuilderCodes { services: text.split(',').filter_map(valid).collect(), ..BuilderCodes::default() }
        }
        2 => {
            let (body, len) = body.split_last_chunk::<2>()?;
            let cbor = body.get(body.len().checked_sub(usize::from(u16::from_be_bytes(*len)))?..)?;
            schema2(cbor)?
        }
        _ => return None,
    };
    (!codes.is_empty()).then_some(codes)
}

/// A code as x402 allows it: 1 to 32 of lowercase letters, digits and `_`.
fn valid(code: &str) -> Option<String> {
    let ok = (1..=32).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    ok.then(|| code.to_owned())
}

/// The map of a schema-2 suffix: `a`, `w` and `s` read, other keys (`r`, `m`) skipped.
fn schema2(cbor: &[u8]) -> Option<BuilderCodes> {
    let mut r = Cbor { data: cbor, at: 0 };
    let (major, entries) = r.head()?;
    if major != MAP {
        return None;
    }
    let mut codes = BuilderCodes::default();
    for _ in 0..entries {
        let key = r.text()?;
        match key {
            "a" => codes.app = valid(r.text()?),
            "w" => codes.wallet = valid(r.text()?),
            "s" => {
                let (major, n) = r.head()?;
                match major {
                    ARRAY => {
                        for _ in 0..n {
                            codes.services.extend(valid(r.text()?));
                        }
                    }
                    TEXT => codes.services.extend(valid(r.take_text(n)?)),
                    _ => return None,
                }
            }
            _ => r.skip(0)?,
        }
    }
    (r.at == cbor.len()).then_some(codes)
}

const UNSIGNED: u8 = 0;
const NEGATIVE: u8 = 1;
const BYTES: u8 = 2;
const TEXT: u8 = 3;
const ARRAY: u8 = 4;
const MAP: u8 = 5;
/// Nesting beyond this is refused (the suffix is attacker-written).
const MAX_DEPTH: usize = 8;

/// A reader of definite-length CBOR (RFC 8949) items.
struct Cbor<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Cbor<'a> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// An item's major type and argument (lengths up to 8 bytes; indefinite lengths refused).
    fn head(&mut self) -> Option<(u8, u64)> {
        let b = self.byte()?;
        let (major, info) = (b >> 5, b & 0x1f);
        let arg = match info {
            0..=23 => u64::from(info),
            24 => u64::from(self.byte()?),
            25..=27 => {
                let n = 1usize << (info - 24);
                let bytes = self.data.get(self.at..self.at + n)?;
                self.at += n;
                bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
            }
            _ => return None,
        };
        Some((major, arg))
    }

    fn take_text(&mut self, len: u64) -> Option<&'a str> {
        let end = self.at.checked_add(usize::try_from(len).ok()?)?;
        let bytes = self.data.get(self.at..end)?;
        self.at = end;
        std::str::from_utf8(bytes).ok()
    }

    fn text(&mut self) -> Option<&'a str> {
        match self.head()? {
            (TEXT, len) => self.take_text(len),
            _ => None,
        }
    }

    /// Skips one item of any of the types above.
    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (major, arg) = self.head()?;
        match major {
            UNSIGNED | NEGATIVE => {}
            BYTES | TEXT => {
                let end = self.at.checked_add(usize::try_from(arg).ok()?)?;
                self.data.get(self.at..end)?;
                self.at = end;
            }
            ARRAY => (0..arg).try_for_each(|_| self.skip(depth + 1))?,
            MAP => (0..arg.checked_mul(2)?).try_for_each(|_| self.skip(depth + 1))?,
            _ => return None,
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use alloy::primitives::hex;

    use super::*;

    /// `calldata ‖ suffix`, the suffix given without its marker.
    fn with_suffix(suffix_hex: &str) -> Vec<u8> {
        let mut data = hex::decode("a9059cbb0000").unwrap();
        data.extend(hex::decode(suffix_hex).unwrap());
        data.extend(MARKER);
        data
    }

    #[test]
    fn reads_the_specifications_vectors() {
        // ERC-8021's and x402's builder-code extension's examples (the encoder of the PyPI `x402`
        // package gives the same bytes).
        let app = parse(&with_suffix("a161616862635f6d79617070000c02")).unwrap();
        assert_eq!(app, BuilderCodes { app: Some("bc_myapp".into()), ..BuilderCodes::default() });
        let both = parse(&with_suffix("a261616862635f6d7961707061777062635f6d79666163696c697461746f72001f02")).unwrap();
        assert_eq!(both.wallet.as_deref(), Some("bc_myfacilitator"));
        let all =
            parse(&with_suffix("a36161666d795f6170706177666d795f666163617381696d795f636c69656e74002002")).unwrap();
        assert_eq!(
            all,
            BuilderCodes {
                app: Some("my_app".into()),
                wallet: Some("my_fac".into()),
                services: vec!["my_client".into()]
            }
        );
        let schema0 = parse(&with_suffix("62635f62386e6f733561380b00")).unwrap();
        assert_eq!(schema0.services, vec!["bc_b8nos5a8".to_owned()]);
    }

    #[test]
    fn refuses_what_is_not_a_suffix() {
        assert_eq!(parse(&hex::decode("a9059cbb").unwrap()), None, "no marker");
        assert_eq!(parse(&MARKER), None, "a marker alone");
        assert_eq!(parse(&with_suffix("a161616862635f6d79617070000c07")), None, "unknown schema");
        assert_eq!(parse(&with_suffix("a161616862635f6d79617070ffff02")), None, "length past the calldata");
        assert_eq!(parse(&with_suffix("a2616162000402")), None, "a map of two entries cut after one key");
    }

    #[test]
    fn drops_codes_outside_the_alphabet() {
        // {"a": "<b>x</b>", "w": "ok_1"}: the markup is dropped, the valid code kept.
        let cbor = hex::decode("a2616168 3c623e783c2f623e 6177 646f6b5f31".replace(' ', "")).unwrap();
        let mut suffix = cbor.clone();
        suffix.extend((cbor.len() as u16).to_be_bytes());
        suffix.push(2);
        let codes = parse(&with_suffix(&hex::encode(suffix))).unwrap();
        assert_eq!(codes, BuilderCodes { wallet: Some("ok_1".into()), ..BuilderCodes::default() });
    }

    #[test]
    fn skips_keys_it_does_not_read() {
        // {"m": h'0102', "a": "app"}
        let cbor: Vec<u8> = vec![0xa2, 0x61, b'm', 0x42, 1, 2, 0x61, b'a', 0x63, b'a', b'p', b'p'];
        let mut suffix = cbor.clone();
        suffix.extend((cbor.len() as u16).to_be_bytes());
        suffix.push(2);
        assert_eq!(parse(&with_suffix(&hex::encode(suffix))).unwrap().app.as_deref(), Some("app"));
    }
}
