-- The wallet graph trust runs on (`graph.rs`), read into Rust by wallet id: first fundings, hubs,
-- the denylist, the anchors, the sellers in seller order, the (seller, payer) pairs, and the
-- sellers a ranked domain or a Coinbase verification proves.

-- name: funding_forest
SELECT wf.wid AS child, wr.wid AS parent, ff.t FROM first_funder ff
JOIN wallets wf ON wf.h = hash(ff.funded) JOIN wallets wr ON wr.h = hash(ff.funder)

-- name: hubs
SELECT w.wid FROM hubs JOIN wallets w USING (address)

-- name: denylist
SELECT w.wid FROM lists JOIN wallets w USING (address) WHERE denylisted

-- name: anchors
SELECT w.wid, coalesce(pr.proof_types, '') AS proofs, coalesce(li.allow_label IS NOT NULL, false) AS allow
FROM wallets w LEFT JOIN proofs pr USING (address) LEFT JOIN lists li USING (address)
WHERE pr.address IS NOT NULL OR li.allow_label IS NOT NULL

-- name: seller_wids
SELECT w.wid FROM seller_ids i JOIN wallets w USING (address) ORDER BY i.sid

-- name: pairs
SELECT (pp.sid - 1)::UINTEGER AS seller, w.wid, pp.n::UBIGINT AS n, pp.spend::UBIGINT AS spend,
       pp.first_t::BIGINT AS first_t, pp.last_t::BIGINT AS last_t, pp.mask30::UBIGINT AS mask30
FROM pp JOIN wallets w ON w.h = pp.payer_h ORDER BY pp.sid, w.wid

-- name: proven_sellers
SELECT w.wid FROM seller_domain sd JOIN wallets w USING (address) WHERE sd.rank <= {domain_proven_rank}
UNION
SELECT w.wid FROM proofs pr JOIN seller_ids USING (address) JOIN wallets w USING (address)
WHERE list_contains(string_split(pr.proof_types, ','), 'cb1-verified')
