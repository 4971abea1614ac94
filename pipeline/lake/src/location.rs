//! Where a lake lives: a local folder (the default) or a prefix of an S3-compatible bucket.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A lake's location, as an operator writes it after `--lake`: a folder path, or
/// `s3://bucket/prefix` for a bucket (endpoint, region and credentials from the usual `AWS_*`
/// variables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LakeLocation {
    /// A folder on this machine.
    Folder(PathBuf),
    /// A prefix of an S3-compatible bucket.
    Bucket(BucketUrl),
}

/// `s3://bucket/prefix`: a bucket and the prefix (no leading or trailing `/`, maybe empty) the
/// lake's keys start with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BucketUrl {
    /// The bucket's name.
    pub bucket: String,
    /// The key prefix, without slashes at either end.
    pub prefix: String,
}

/// A location that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadLocation(String);

impl FromStr for BucketUrl {
    type Err = BadLocation;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rest = s
            .strip_prefix("s3://")
            .ok_or_else(|| BadLocation(format!("{s:?} is not an s3:// address (s3://bucket/prefix)")))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        // S3's own rule: 3 to 63 lowercase letters, digits, dots and hyphens.
        let valid_bucket = (3..=63).contains(&bucket.len())
            && bucket.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
        if !valid_bucket {
            return Err(BadLocation(format!(
                "{s:?}: the bucket name must be 3 to 63 lowercase letters, digits, dots or hyphens"
            )));
        }
        let prefix = prefix.trim_matches('/');
        if prefix.split('/').any(|segment| segment == "." || segment == "..") || prefix.contains("//") {
            return Err(BadLocation(format!("{s:?}: the prefix must not have empty, `.` or `..` segments")));
        }
        Ok(Self { bucket: bucket.to_owned(), prefix: prefix.to_owned() })
    }
}

impl fmt::Display for BucketUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.prefix.is_empty() {
            write!(f, "s3://{}", self.bucket)
        } else {
            write!(f, "s3://{}/{}", self.bucket, self.prefix)
        }
    }
}

impl FromStr for LakeLocation {
    type Err = BadLocation;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() {
            return Err(BadLocation("an empty lake location".into()));
        }
        if s.starts_with("s3://") {
            return s.parse().map(Self::Bucket);
        }
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(BadLocation(format!(
                "{s:?}: {scheme}:// lakes are not supported (a folder, or s3://bucket/prefix)"
            )));
        }
        Ok(Self::Folder(PathBuf::from(s)))
    }
}

impl fmt::Display for LakeLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Folder(path) => write!(f, "{}", path.display()),
            Self::Bucket(url) => url.fmt(f),
        }
    }
}

impl From<PathBuf> for LakeLocation {
    fn from(path: PathBuf) -> Self {
        Self::Folder(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_buckets_parse() {
        assert_eq!("demo/lake".parse::<LakeLocation>().unwrap(), LakeLocation::Folder("demo/lake".into()));
        let bucket = |b: &str, p: &str| LakeLocation::Bucket(BucketUrl { bucket: b.into(), prefix: p.into() });
        assert_eq!("s3://agentrep-lake".parse::<LakeLocation>().unwrap(), bucket("agentrep-lake", ""));
        assert_eq!("s3://agentrep-lake/".parse::<LakeLocation>().unwrap(), bucket("agentrep-lake", ""));
        assert_eq!("s3://lake.v2/prod/base/".parse::<LakeLocation>().unwrap(), bucket("lake.v2", "prod/base"));
        assert_eq!(bucket("lake.v2", "prod/base").to_string(), "s3://lake.v2/prod/base");
        assert_eq!(bucket("lake.v2", "").to_string(), "s3://lake.v2");
    }

    #[test]
    fn bad_locations_say_why() {
        for bad in ["", "s3://", "s3://ab/x", "s3://Upper/x", "s3://lake/a//b", "s3://lake/../etc", "gs://lake/x"] {
            let err = bad.parse::<LakeLocation>().unwrap_err();
            assert!(!err.to_string().is_empty(), "{bad}");
        }
    }
}
