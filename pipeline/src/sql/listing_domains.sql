-- The registrable domain of every current listing: `domains.rs` reads the resources, computes
-- each one's domain by the Public Suffix List in Rust, and fills the table this file creates.

-- name: resources
SELECT DISTINCT resource FROM cur ORDER BY 1

-- name: create
CREATE TEMP TABLE listing_domains (resource VARCHAR, domain VARCHAR)
