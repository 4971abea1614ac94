//! A local S3-compatible server for the bucket-lake tests: moto's S3 service run as its own
//! process (`moto_server`, installed into `.tools/s3` by `scripts/fetch-test-clients.sh`) on
//! 127.0.0.1 with a port of its choosing; killed by its own id on drop.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use agentrep_lake::{BucketUrl, Lake, LakeLocation};

use crate::test_clients;

/// A running `moto_server`.
#[derive(Debug)]
pub struct S3Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

/// The credentials the tests sign with (the server checks none).
const KEY_ID: &str = "agentrep-test";
const SECRET: &str = "agentrep-test-secret";

impl S3Server {
    /// Starts the server and waits until it listens.
    ///
    /// # Panics
    /// When it cannot be installed or started, or says nothing of its address within 60 s.
    pub fn start() -> Self {
        let program = test_clients().join("s3/bin/moto_server");
        let mut child = Command::new(&program)
            .args(["-H", "127.0.0.1", "-p", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", program.display()));
        // Werkzeug prints ` * Running on http://127.0.0.1:PORT` once it listens (on either pipe,
        // depending on its version); every other line is request logging.
        let (tx, rx) = mpsc::channel();
        for pipe in [
            Box::new(child.stdout.take().expect("piped")) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().expect("piped")),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Some(at) = line.find("Running on http://127.0.0.1:") {
                        let _ = tx.send(line[at + "Running on ".len()..].trim().to_owned());
                    }
                }
            });
        }
        let endpoint = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(endpoint) => endpoint,
            Err(_) => {
                let _ = child.kill();
                panic!("moto_server did not say where it listens within 60 s");
            }
        };
        Self { child, endpoint }
    }

    /// Creates a bucket: a plain `PUT /bucket`, which is all S3's CreateBucket is (the lake's
    /// `object_store` client has no call for it: buckets are the operator's to make).
    ///
    /// # Panics
    /// When the server refuses.
    pub fn create_bucket(&self, name: &str) {
        let answer = self.request("PUT", &format!("/{name}"));
        assert!(answer.starts_with("HTTP/1.1 200"), "creating bucket {name}: {answer}");
    }

    /// Deletes one object, as an operator would with the bucket's own tools.
    ///
    /// # Panics
    /// When the server refuses.
    pub fn delete_object(&self, bucket: &str, key: &str) {
        let answer = self.request("DELETE", &format!("/{bucket}/{key}"));
        assert!(answer.starts_with("HTTP/1.1 204"), "deleting {bucket}/{key}: {answer}");
    }

    /// Deletes an (empty) bucket.
    ///
    /// # Panics
    /// When the server refuses.
    pub fn delete_bucket(&self, name: &str) {
        let answer = self.request("DELETE", &format!("/{name}"));
        assert!(answer.starts_with("HTTP/1.1 204"), "deleting bucket {name}: {answer}");
    }

    /// Writes one object, as an operator (or an attacker with the bucket's keys) would.
    ///
    /// # Panics
    /// When the server refuses.
    pub fn put_object(&self, bucket: &str, key: &str, body: &[u8]) {
        let answer = self.request_with_body("PUT", &format!("/{bucket}/{key}"), body);
        assert!(answer.starts_with("HTTP/1.1 200"), "writing {bucket}/{key}: {answer}");
    }

    /// One HTTP/1.1 request with an `Authorization` header that names the test credentials (moto
    /// checks no signatures, but refuses some calls that carry none); the whole answer.
    fn request(&self, method: &str, path: &str) -> String {
        self.request_with_body(method, path, b"")
    }

    fn request_with_body(&self, method: &str, path: &str, body: &[u8]) -> String {
        use std::io::{Read, Write};
        let host = self.endpoint.trim_start_matches("http://");
        let auth = format!(
            "AWS4-HMAC-SHA256 Credential={KEY_ID}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0"
        );
        let mut stream = std::net::TcpStream::connect(host).expect("moto accepts");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {auth}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .expect("request sent");
        stream.write_all(body).expect("body sent");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("moto answers");
        answer
    }

    /// The `AWS_*` variables an operator sets for this server, as the operators' guide documents them.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ACCESS_KEY_ID", KEY_ID.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.to_owned()),
        ]
    }

    /// The lake at `s3://bucket/prefix` on this server, its local copies in `cache`, configured
    /// without the process environment.
    ///
    /// # Panics
    /// When the location does not parse or the client cannot be built.
    pub fn lake(&self, url: &str, cache: &std::path::Path) -> Lake {
        let url: BucketUrl = url.parse().expect("an s3:// address");
        let settings = [
            ("aws_endpoint", self.endpoint.as_str()),
            ("aws_allow_http", "true"),
            ("aws_region", "us-east-1"),
            ("aws_access_key_id", KEY_ID),
            ("aws_secret_access_key", SECRET),
        ];
        Lake::open_with(&LakeLocation::Bucket(url), cache, &settings).expect("bucket lake")
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
