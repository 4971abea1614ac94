//! The business-review source `GET /snapshot/{placeId}` sells: Google's Places API (New), the
//! provider whose place ids the seed's example uses, read with the operator's key
//! (`AGENTREP_PLACES_API_KEY`; `AGENTREP_PLACES_URL` names another host speaking its wire
//! format). One `GET /v1/places/{id}` with a field mask of exactly what the answer shows: the
//! name, the address, the rating and its count, the reviews the API returns (at most 5), the map
//! link. The key travels in a header marked sensitive and is never logged or echoed.

use std::time::Duration;

use agentrep_ingest::web::plain_client;
use agentrep_ingest::web::reqwest::header::HeaderValue;
use agentrep_ingest::web::reqwest::{Client, StatusCode, Url};
use agentrep_publish::wire::{PlaceReviewV1, PlaceSnapshotV1, version};
use serde::Deserialize;

use crate::{ApiError, env};

/// The fields asked for (`X-Goog-FieldMask`): what the answer shows, nothing billed beyond it.
pub const FIELD_MASK: &str = "id,displayName,formattedAddress,rating,userRatingCount,reviews,googleMapsUri";

/// The Places API's public host.
pub const DEFAULT_URL: &str = "https://places.googleapis.com";

/// Longest wait for the source.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Longest place id accepted (Google's are under 300 characters).
const MAX_PLACE_ID: usize = 512;

/// The configured source.
#[derive(Clone)]
pub struct PlacesSource {
    base: Url,
    key: HeaderValue,
    http: Client,
}

impl std::fmt::Debug for PlacesSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlacesSource").field("base", &self.base.as_str()).field("key", &"<redacted>").finish()
    }
}

/// Why a business-review source cannot be set up (never echoing its key).
#[derive(Debug, thiserror::Error)]
pub enum PlacesConfigError {
    /// The base URL does not parse.
    #[error("the Places API's URL is not a URL")]
    NotAUrl(#[source] url::ParseError),
    /// The base URL is not http(s).
    #[error("the Places API's URL must be http or https")]
    NotHttp,
    /// The key cannot travel in a header.
    #[error("the Places API key is not a valid header value")]
    KeyNotAHeader,
    /// The HTTP client could not be built.
    #[error("the Places API's HTTP client cannot be built")]
    Client(#[source] agentrep_ingest::web::ClientError),
}

impl PlacesSource {
    /// The source `AGENTREP_PLACES_API_KEY` (and `AGENTREP_PLACES_URL`) configure; `None`
    /// without a key. A URL that is not http(s), or a key that is not a header value, is refused
    /// (the refusal never echoes the key).
    pub(crate) fn read(r: &mut crate::config::Reader) -> Option<Self> {
        use crate::config::Problem;
        let key = env::PLACES_API_KEY.get()?;
        let base = env::PLACES_URL.get().unwrap_or_else(|| DEFAULT_URL.to_owned());
        match Self::new(base.trim(), key.trim()) {
            Ok(source) => Some(source),
            Err(bad) => {
                let (var, problem) = match bad {
                    PlacesConfigError::NotAUrl(e) => (&env::PLACES_URL, Problem::NotAUrl(e)),
                    PlacesConfigError::NotHttp => {
                        (&env::PLACES_URL, Problem::Refused("must be http or https".to_owned()))
                    }
                    PlacesConfigError::KeyNotAHeader => {
                        (&env::PLACES_API_KEY, Problem::Refused("is not a valid header value".to_owned()))
                    }
                    PlacesConfigError::Client(why) => (&env::PLACES_URL, Problem::NoClient(why)),
                };
                r.refuse(var, problem);
                None
            }
        }
    }

    /// A source at `base` with `key`.
    ///
    /// # Errors
    /// When the URL is not http(s) or the key is not a header value.
    pub fn new(base: &str, key: &str) -> Result<Self, PlacesConfigError> {
        let base = Url::parse(base).map_err(PlacesConfigError::NotAUrl)?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(PlacesConfigError::NotHttp);
        }
        let mut key = HeaderValue::from_str(key).map_err(|_| PlacesConfigError::KeyNotAHeader)?;
        key.set_sensitive(true);
        Ok(Self { base, key, http: plain_client(TIMEOUT).map_err(PlacesConfigError::Client)? })
    }

    /// The source's host, for `/status` and logs.
    pub fn host(&self) -> &str {
        self.base.host_str().unwrap_or_default()
    }

    /// Reads `place_id` now.
    ///
    /// # Errors
    /// `not_found` when the source knows no such place; `source_unavailable` when it cannot be
    /// read (the sale is then released: nothing is charged).
    pub async fn snapshot(&self, place_id: &str, now: String) -> Result<PlaceSnapshotV1, ApiError> {
        let mut url = self.base.clone();
        url.path_segments_mut()
            .map_err(|()| unavailable("the configured URL cannot take a path".to_owned()))?
            .pop_if_empty()
            .extend(["v1", "places", place_id]);
        let resp = self
            .http
            .get(url)
            .header("X-Goog-Api-Key", self.key.clone())
            .header("X-Goog-FieldMask", FIELD_MASK)
            .send()
            .await
            .map_err(|e| unavailable(format!("the business-review source did not answer ({})", kind(&e))))?;
        match resp.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND | StatusCode::BAD_REQUEST => {
                return Err(ApiError::Missing {
                    code: "place_not_found",
                    message: format!("the business-review source knows no place {place_id}; nothing was charged"),
                });
            }
            status => {
                return Err(unavailable(format!("the business-review source answered HTTP {}", status.as_u16())));
            }
        }
        let place: Place = resp
            .json()
            .await
            .map_err(|_| unavailable("the business-review source answered something that is not a place".to_owned()))?;
        Ok(PlaceSnapshotV1 {
            version: version("place-snapshot"),
            place_id: place_id.to_owned(),
            name: place.display_name.map(|t| t.text),
            address: place.formatted_address,
            rating: place.rating,
            rating_count: place.user_rating_count.unwrap_or(0),
            reviews: place.reviews.into_iter().take(5).map(Review::into_wire).collect(),
            maps_url: place.google_maps_uri,
            source: "google-places".to_owned(),
            read_at: now,
        })
    }
}

/// A place id as the route accepts it: 1 to 512 of `A-Z a-z 0-9 _ -` (Google's alphabet), so
/// nothing else reaches the source's URL and a malformed id is refused before any terms.
///
/// # Errors
/// `invalid_placeId` otherwise.
pub fn place_id(text: &str) -> Result<&str, ApiError> {
    let ok = !text.is_empty()
        && text.len() <= MAX_PLACE_ID
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then_some(text)
        .ok_or_else(|| ApiError::param("placeId", "a place id is 1 to 512 characters of A-Z, a-z, 0-9, '_' and '-'"))
}

fn unavailable(message: String) -> ApiError {
    ApiError::SourceUnavailable { code: "source_unavailable", message: format!("{message}; nothing was charged") }
}

/// What kind of failure, without the URL (which is the operator's configuration).
fn kind(e: &agentrep_ingest::web::reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "request failed"
    }
}

/// The Places API's `Place`, the fields of [`FIELD_MASK`].
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Place {
    display_name: Option<LocalizedText>,
    formatted_address: Option<String>,
    rating: Option<f64>,
    user_rating_count: Option<u64>,
    #[serde(default)]
    reviews: Vec<Review>,
    google_maps_uri: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LocalizedText {
    text: String,
    language_code: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Review {
    rating: Option<f64>,
    text: Option<LocalizedText>,
    original_text: Option<LocalizedText>,
    author_attribution: Option<Author>,
    publish_time: Option<String>,
    relative_publish_time_description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Author {
    display_name: Option<String>,
}

impl Review {
    fn into_wire(self) -> PlaceReviewV1 {
        let text = self.text.or(self.original_text);
        PlaceReviewV1 {
            rating: self.rating,
            language: text.as_ref().and_then(|t| t.language_code.clone()),
            text: text.map(|t| t.text),
            author: self.author_attribution.and_then(|a| a.display_name),
            published_at: self.publish_time,
            relative_time: self.relative_publish_time_description,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_ids_are_checked_before_they_reach_a_url() {
        assert!(place_id("ChIJN1t_tDeuEmsRUsoyG83frY4").is_ok());
        for bad in ["", "a/b", "../x", "a?b", "a b", &"x".repeat(513)] {
            assert!(place_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_key_never_shows_in_debug() {
        let s = PlacesSource::new("http://127.0.0.1:9", "secret-key-123").unwrap();
        assert!(!format!("{s:?}").contains("secret-key-123"));
    }
}
