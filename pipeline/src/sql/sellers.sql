-- Per-seller inputs besides listings and settlements, run after `listings.sql` and the settlement
-- pass (`settlements.sql`), whose tables they read. Placeholders: {day_end} (exclusive), {d1}, {d7},
-- {hub_min_fanout}, {hub_min_amount}, {hub_min_days}. Every address is lowercased here.
-- Wherever one row is picked among several, the order is total (determinism).

-- Funding: the first funder of each wallet, carried from day to day (`carry::FIRST_FUNDINGS`).
CREATE TEMP TABLE first_funder AS
SELECT funded, funder, epoch(first_funded_at)::BIGINT AS t, amount FROM carried_first_fundings;
DROP TABLE carried_first_fundings;

-- Hubs: labelled infrastructure, and wallets that first-funded many wallets with real amounts on
-- many days (dust fan-out does not make a hub).
CREATE TEMP TABLE hubs AS
SELECT DISTINCT lower(address) AS address FROM entity_labels WHERE added_at < {day_end}
UNION
SELECT funder FROM first_funder WHERE amount >= {hub_min_amount}
GROUP BY funder HAVING count(*) >= {hub_min_fanout} AND count(DISTINCT t // 86400) >= {hub_min_days};

-- ERC-8004: registrations whose agentWallet is the seller, and their non-revoked feedback with
-- values in 0..=100 (out-of-range values are excluded, not clamped). v is the rating in
-- millionths of a point.
CREATE TEMP TABLE reg AS
SELECT agent_id, lower(agent_wallet) AS address FROM erc8004_registrations
WHERE registered_at < {day_end} AND agent_wallet IS NOT NULL;

CREATE TEMP TABLE fb AS
SELECT i.sid, lower(f.client) AS client, epoch(f.block_time)::BIGINT AS t,
       (f.value * pow(10, 6 - f.value_decimals))::HUGEINT AS v
FROM erc8004_feedback f JOIN reg r USING (agent_id) JOIN seller_ids i ON i.address = r.address
WHERE NOT f.revoked AND f.block_time < {day_end};

-- Receipts naming a seller; tx_payer is the payer of the qualifying settlement the receipt cites
-- (`cited`, from the settlement pass).
CREATE TEMP TABLE rc AS
SELECT i.sid, lower(r.buyer) AS buyer, r.success, epoch(r.received_at)::BIGINT AS t, r.tx_hash IS NOT NULL AS cites,
       q.payer AS tx_payer
FROM receipts r JOIN seller_ids i ON i.address = lower(r.agent)
LEFT JOIN cited q ON q.sid = i.sid AND q.tx_hash = lower(r.tx_hash)
WHERE r.received_at < {day_end};

CREATE TEMP TABLE proofs AS
SELECT lower(address) AS address, string_agg(DISTINCT proof_type, ',' ORDER BY proof_type) AS proof_types
FROM identity_proofs WHERE verified_at < {day_end} GROUP BY 1;

-- Sellers with an operator attestation signed in the 24 hours up to the day's end (the `attested`
-- tier); attestations reach the lake from the server's store through `agentrep export-store`.
CREATE TEMP TABLE attested AS
SELECT DISTINCT lower(address) AS address FROM attestations WHERE signed_at >= {d1} AND signed_at < {day_end};

CREATE TEMP TABLE lists AS
SELECT lower(address) AS address,
       bool_or(list = 'deny') AS denylisted,
       min(category) FILTER (WHERE list = 'allow') AS allow_label
FROM address_lists WHERE added_at < {day_end} GROUP BY 1;

-- Dense wallet ids for the trust graph: every wallet that pays, sells, funds, is funded, reviews,
-- sends a receipt, is listed, proves an identity or deploys a token.
-- `h` is a 64-bit hash of the address: the big joins to wallet ids go through it (integers, not
-- 42-character strings).
CREATE TEMP TABLE wallets AS
SELECT address, hash(address) AS h, (row_number() OVER (ORDER BY address) - 1)::UINTEGER AS wid FROM (
    SELECT payer AS address FROM pp
    UNION SELECT address FROM seller_ids
    UNION SELECT funded FROM first_funder
    UNION SELECT funder FROM first_funder
    UNION SELECT client FROM fb
    UNION SELECT buyer FROM rc
    UNION SELECT address FROM lists
    UNION SELECT address FROM proofs
    UNION SELECT lower(deployer) FROM token_launches WHERE launched_at < {day_end}
);

-- Health probes of the current listings in the probe window, judged for each listing's wallet:
-- alive (200/201/204, or a 402 with a well-formed x402 offer) and whether the offer asked this
-- wallet to be paid at the listed terms. A probe written before the offer's wallets were recorded
-- (`offer_pay_tos` null or empty) keeps its `offer_matches` (a match with any listing of the URL).
-- `names_wallet`: the offer asks this wallet to be paid, at whatever terms.
-- A probe without an answer (status null) is dead, not unknown: `alive` is never null.
CREATE TEMP TABLE listing_probes AS
SELECT c.address, c.origin, p.resource, p.probed_at, p.status, p.latency_ms, p.alive, p.offer_version,
       CASE WHEN p.offer_version IS NULL THEN NULL
            WHEN len(coalesce(p.offer_pay_tos, [])) = 0 THEN p.offer_matches
            ELSE coalesce(p.offer_matches, false) AND list_contains(p.offer_pay_tos, c.address)
       END AS offer_matches,
       p.offer_version IS NOT NULL
           AND CASE WHEN len(coalesce(p.offer_pay_tos, [])) = 0 THEN coalesce(p.offer_matches, false)
                    ELSE list_contains(p.offer_pay_tos, c.address) END AS names_wallet
FROM (SELECT *, coalesce(status IN (200, 201, 204) OR (status = 402 AND offer_version IS NOT NULL), false) AS alive
      FROM probes WHERE probed_at >= {d7} AND probed_at < {day_end}) p
JOIN wallet_resources c USING (resource);
