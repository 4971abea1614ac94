-- What each seller's live re-score builds on (`live_basis.rs`), read in seller order (0-based
-- seller index) from the tables of `sellers.sql`, `domains.sql` and `origins.sql`.

-- name: payers
SELECT (pp.sid - 1)::UINTEGER AS seller, w.address FROM pp JOIN wallets w ON w.h = pp.payer_h
ORDER BY pp.sid, w.wid

-- name: days
SELECT (sid - 1)::UINTEGER AS seller, day, n FROM seller_days ORDER BY 1, 2

-- name: probes
-- The probes of the window at the seller's counted origins, each offer judged for the seller as
-- the SLA pass judges it.
SELECT (i.sid - 1)::UINTEGER AS seller, p.resource, (epoch_us(p.probed_at) // 1000000)::BIGINT AS t,
       p.status, p.latency_ms, p.offer_version, p.offer_matches
FROM counted_probes p JOIN counted_origins o USING (address, origin) JOIN seller_ids i USING (address)
ORDER BY 1, 3, 2

-- name: listings
-- The seller's current listings, each saying whether its probes count for the seller (a counted
-- origin, and a resource that took the wallet or a wallet none of whose resources did): every
-- listing's price bounds a settlement, and the counted listings are what a live re-score probes
-- and whose probes its window keeps.
SELECT (i.sid - 1)::UINTEGER AS seller, c.resource, c.pay_to, c.network, c.net,
       c.asset, c.price_atomic::UBIGINT AS price,
       o.origin IS NOT NULL AND (t.resource IS NOT NULL OR i.address NOT IN (SELECT address FROM taken_resources)) AS counted
FROM cur c JOIN seller_ids i ON i.address = lower(c.pay_to)
LEFT JOIN counted_origins o ON o.address = i.address AND o.origin = c.origin
LEFT JOIN taken_resources t ON t.address = i.address AND t.resource = c.resource
ORDER BY 1, 2, c.net, c.asset, c.price_atomic

-- name: facilitators
SELECT address FROM facilitators ORDER BY 1

-- name: oracle_payers
SELECT address FROM oracle_payers ORDER BY 1

-- name: domain_resources
-- The current resources served from each seller's ranked domain.
SELECT (i.sid - 1)::UINTEGER AS seller, c.resource FROM wallet_resources c
JOIN listing_domains d USING (resource) JOIN seller_ids i USING (address)
JOIN seller_domain sd ON sd.address = i.address AND sd.domain = d.domain ORDER BY 1, 2

-- name: unbound
-- Each seller's counted origin nobody binds, its rank and its rival.
SELECT (i.sid - 1)::UINTEGER AS seller, u.origin, u.paid_class::UTINYINT AS paid_class,
       u.probe_class::UTINYINT AS probe_class, u.first_seen, u.beside_bound, u.rival_origin,
       u.rival_paid_class::UTINYINT AS rival_paid_class, u.rival_probe_class::UTINYINT AS rival_probe_class,
       u.rival_first_seen
FROM unbound_rivals u JOIN seller_ids i USING (address) ORDER BY 1, 2
