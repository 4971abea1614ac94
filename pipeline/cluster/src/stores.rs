//! Object stores by URL, for the client, the scheduler and the executors alike: `file://` is the
//! local filesystem, `s3://<bucket>` an S3 client configured from the usual `AWS_*` variables
//! (the lake's own configuration), built on first use and kept.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use url::Url;

/// See the module documentation.
#[derive(Debug, Default)]
pub struct BucketStores {
    other: DefaultObjectStoreRegistry,
    buckets: RwLock<HashMap<String, Arc<dyn ObjectStore>>>,
}

impl BucketStores {
    fn bucket_name(url: &Url) -> Result<&str> {
        url.host_str()
            .filter(|b| !b.is_empty())
            .ok_or_else(|| DataFusionError::Configuration(format!("{url} names no bucket (expected s3://bucket/…)")))
    }
}

impl ObjectStoreRegistry for BucketStores {
    fn register_store(&self, url: &Url, store: Arc<dyn ObjectStore>) -> Option<Arc<dyn ObjectStore>> {
        match (url.scheme(), url.host_str()) {
            ("s3", Some(bucket)) => self.buckets.write().expect("bucket stores").insert(bucket.to_owned(), store),
            _ => self.other.register_store(url, store),
        }
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        if url.scheme() != "s3" {
            return self.other.get_store(url);
        }
        let bucket = Self::bucket_name(url)?;
        if let Some(store) = self.buckets.read().expect("bucket stores").get(bucket) {
            return Ok(Arc::clone(store));
        }
        let store: Arc<dyn ObjectStore> = Arc::new(
            AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .build()
                .map_err(|e| DataFusionError::ObjectStore(Box::new(e)))?,
        );
        let mut buckets = self.buckets.write().expect("bucket stores");
        Ok(Arc::clone(buckets.entry(bucket.to_owned()).or_insert(store)))
    }
}
