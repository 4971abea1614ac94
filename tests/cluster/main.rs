//! Past one machine, proven on loopback: the lake on an S3-compatible bucket (a local
//! `moto_server`), read and written through the same `Lake` as a folder, and the rebuild of a
//! bucket lake publishing the folder lake's snapshot byte for byte; and the rebuild's settlement
//! pass on a Ballista cluster (`agentrep cluster` processes) publishing the embedded run's.

mod ballista;
mod bucket;
mod replicas;
