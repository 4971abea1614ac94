//! The registrable domain of every current listing, by the Public Suffix List (computed here, in
//! Rust, and handed to DuckDB as `listing_domains`), which `sql/domains.sql` (each seller's ranked
//! domain) and `sql/origins.sql` (the origins whose evidence counts for each seller, with the
//! probe SLAs and agentrep's paid calls over them) read after it.

use agentrep_lake::domain::registrable;

use crate::PipelineError;
use crate::engine::{Engine, query};
use crate::sql_files::LISTING_DOMAINS;

/// Fills `listing_domains(resource, domain)` from `cur` (`sql/listing_domains.sql`).
pub(crate) fn prepare(db: &Engine) -> Result<(), PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "listing domains", source };
    let resources: Vec<String> =
        query(db, "listing domains", LISTING_DOMAINS.section("resources")?, |r| r.get("resource"))?;
    db.execute("listing domains", LISTING_DOMAINS.section("create")?)?;
    {
        let mut appender = db.conn.appender("listing_domains").map_err(err)?;
        for resource in &resources {
            if let Some(domain) = registrable(resource) {
                appender.append_row(duckdb::params![resource, domain]).map_err(err)?;
            }
        }
        appender.flush().map_err(err)?;
    }
    Ok(())
}
