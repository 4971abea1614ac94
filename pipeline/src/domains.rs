//! The registrable domain of every current listing, by the Public Suffix List (computed here, in
//! Rust, and handed to DuckDB as `listing_domains`), then `sql/domains.sql`: each seller's ranked
//! domain, and `sql/origins.sql`: the origins whose evidence counts for each seller, with the
//! probe SLAs and agentrep's paid calls over them.

use agentrep_lake::domain::registrable;

use crate::PipelineError;
use crate::engine::Engine;

/// Fills `listing_domains(resource, domain)` from `cur` and runs `sql/domains.sql` and
/// `sql/origins.sql`.
pub(crate) fn prepare(db: &Engine) -> Result<(), PipelineError> {
    let err = |source| PipelineError::Duckdb { pass: "listing domains", source };
    let resources: Vec<String> = {
        let mut stmt = db.conn.prepare("SELECT DISTINCT resource FROM cur ORDER BY 1").map_err(err)?;
        stmt.query_map([], |r| r.get("resource")).map_err(err)?.collect::<Result<_, _>>().map_err(err)?
    };
    db.conn.execute_batch("CREATE TEMP TABLE listing_domains (resource VARCHAR, domain VARCHAR)").map_err(err)?;
    {
        let mut appender = db.conn.appender("listing_domains").map_err(err)?;
        for resource in &resources {
            if let Some(domain) = registrable(resource) {
                appender.append_row(duckdb::params![resource, domain]).map_err(err)?;
            }
        }
        appender.flush().map_err(err)?;
    }
    db.execute_file(&crate::sql_files::DOMAINS)?;
    db.execute_file(&crate::sql_files::ORIGINS)
}
