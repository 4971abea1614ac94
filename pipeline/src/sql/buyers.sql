-- The buyer-trust pass (`buyers.rs`). Every (token, buyer) up to the day is the carried
-- `token_buys` state itself (`carried_token_buys`, tokens as exact milli-tokens, so totals do not
-- depend on the order they are added in); the queries read it where it lies, joined with the
-- small tables `prepare` leaves, rather than copying its millions of rows into a table of their
-- own. The lake's addresses are lowercase already. `{pairs}` is `launched_pairs`.

-- name: prepare
-- Every launched token with its deployer (`launch_deployer`), and the (token, buyer) pairs in which
-- the buyer is the deployer's (`insiders`): first funded by it, or its first funder (from
-- `first_funder`, narrowed to deployers first so the pairs meet a small table); `buyer_classes`
-- is filled from Rust.
CREATE OR REPLACE TEMP TABLE launch_deployer AS SELECT token, deployer FROM carried_token_deployers;
DROP TABLE carried_token_deployers;
CREATE OR REPLACE TEMP TABLE deployer_links AS
SELECT funded AS buyer, funder AS deployer FROM first_funder WHERE funder IN (SELECT deployer FROM launch_deployer)
UNION
SELECT funder AS buyer, funded AS deployer FROM first_funder WHERE funded IN (SELECT deployer FROM launch_deployer);
CREATE OR REPLACE TEMP TABLE insiders AS
SELECT l.token, k.buyer FROM launch_deployer l JOIN deployer_links k USING (deployer);
DROP TABLE deployer_links;
CREATE OR REPLACE TEMP TABLE buyer_classes (buyer VARCHAR PRIMARY KEY, rank UTINYINT NOT NULL)

-- name: launched_pairs
-- The pairs of launched tokens (a buy of a token with no launch in the lake is not judged), with
-- their row in the carried state (`r`).
(SELECT carried_token_buys.rowid AS r, token, buyer, buys, milli, first_at
    FROM carried_token_buys SEMI JOIN launch_deployer USING (token))

-- name: distinct_buyers
SELECT DISTINCT buyer FROM {pairs}

-- name: tokens
-- Every token with its deployer, in token order (with or without a buy).
SELECT token, deployer FROM launch_deployer ORDER BY token

-- name: totals
-- Per token and class (insider first, then the buyer's own class, unknown when it has none).
SELECT token, rank, count(*)::UINTEGER AS buyers, sum(buys)::UBIGINT AS buys, sum(milli)::DOUBLE / 1e3 AS tokens
FROM (
    SELECT t.token, CASE WHEN i.buyer IS NOT NULL THEN 0 ELSE coalesce(c.rank, {unknown}) END::UTINYINT AS rank,
           t.buys, t.milli
    FROM {pairs} t LEFT JOIN insiders i USING (token, buyer) LEFT JOIN buyer_classes c USING (buyer)
)
GROUP BY 1, 2

-- name: top
-- Each token's largest buyers by tokens bought (ties by a hash of the address, so the pick is the
-- same every run): a top-n aggregate of row ids, far cheaper than a window over every pair.
SELECT t.token, t.buyer, t.buys::UINTEGER AS buys, t.milli::DOUBLE / 1e3 AS tokens,
       epoch(t.first_at)::BIGINT AS first_at, i.buyer IS NOT NULL AS insider
FROM (
    SELECT unnest(max_by(r, milli::HUGEINT * 18446744073709551616 + hash(buyer)::HUGEINT, {listed})) AS r
    FROM {pairs} GROUP BY token
) x JOIN carried_token_buys t ON t.rowid = x.r
LEFT JOIN insiders i ON i.token = t.token AND i.buyer = t.buyer

-- name: drop
-- The pass's tables, dropped once read (the carried state holds every pair).
DROP TABLE carried_token_buys; DROP TABLE insiders; DROP TABLE buyer_classes; DROP TABLE launch_deployer
