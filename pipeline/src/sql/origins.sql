-- Which origins' evidence counts for each seller (methodology 3.1, ownership proofs 3.2; SCORING.md
-- § 1 "Origins"), then the probe SLAs and agentrep's paid calls over those origins alone. Run after
-- `domains.sql` (`seller_domain`) and `sellers.sql` (`reg`, `listing_probes`). Placeholders:
-- {day_end}, {d30}, {suspicious_tlds}, {admin_segments}.
--
-- A probe or a paid call is evidence about the origin it reached. Anyone can list any URL under any
-- wallet, and serve a 402 naming any wallet, so an origin's evidence counts for a wallet when the
-- wallet's owner bound itself to that origin, or when the origin is the best the wallet has among
-- those nobody binds: a stranger can add failing origins, never outvote the seller's own.

-- Origins a wallet's owner bound itself to:
-- - ERC-8004: a registration whose agentWallet is the wallet (set only with the wallet's own
--   signature) and whose agent's newest card names an endpoint on the origin;
-- - a ranked domain that stands for the wallet (`seller_domain`: its offers name the wallet and
--   nobody else), for every listed origin on that domain;
-- - an ownership proof (3.2): the origin's text signed by the wallet's key, served by the origin
--   in its `/.well-known/x402` document, at the origin's newest fetch of the window that got an
--   answer (so a proof the origin takes down unbinds it, and an origin that did not answer keeps
--   what it last served). A stranger cannot sign the seller's payTo over the stranger's host, and
--   the seller's own proof copied there signs the seller's origin, not the host.
CREATE TEMP TABLE bound_origins AS
SELECT DISTINCT address, origin FROM (
    SELECT r.address, lower(regexp_extract(trim(e.endpoint), '^https?://[^/?#]+')) AS origin
    FROM reg r
    JOIN (SELECT agent_id, arg_max(endpoints, (fetched_at, uri)) AS endpoints
          FROM agent_cards WHERE fetched_at < {day_end} AND error IS NULL GROUP BY 1) c USING (agent_id),
         unnest(c.endpoints) AS e(endpoint)
    UNION ALL
    SELECT w.address, w.origin
    FROM wallet_resources w
    JOIN listing_domains d USING (resource)
    JOIN seller_domain sd ON sd.address = w.address AND sd.domain = d.domain
    UNION ALL
    SELECT unnest(p.signers) AS address, p.origin
    FROM (SELECT origin, arg_max(signers, (fetched_at, url)) AS signers
          FROM origin_proofs WHERE answered AND fetched_at >= {d30} AND fetched_at < {day_end} GROUP BY 1) p
) WHERE origin <> '';

-- Which URL a listing names is a claim too, even on the seller's own host: a probe counts for the
-- wallet at the resources whose 402 asked the wallet to be paid at its listed terms in the window
-- (the URL takes the wallet), or at every resource of a wallet none of whose resources did (a dead
-- seller is dead everywhere). So a stranger who lists a made-up path of the seller's host under
-- the seller's payTo adds nothing but 404s nobody counts.
CREATE TEMP TABLE taken_resources AS
SELECT address, resource FROM listing_probes GROUP BY 1, 2 HAVING bool_or(coalesce(offer_matches, false));

CREATE TEMP TABLE counted_probes AS
SELECT p.* FROM listing_probes p
WHERE EXISTS (SELECT 1 FROM taken_resources t WHERE t.address = p.address AND t.resource = p.resource)
   OR p.address NOT IN (SELECT address FROM taken_resources);

-- agentrep's own paid calls of the last 30 days, with the origin each reached and what the answer
-- showed (`agentrep_model::PaidCallOutcome::of`, the same rule): non-delivery is a 402 after
-- payment, a 5xx or a 2xx with an empty body; no answer, a redirect, a 204 or another 4xx shows
-- nothing either way. A call whose run was interrupted after it was authorized (`interrupted`)
-- lost its answer with the run: it is no evidence about the seller.
CREATE TEMP TABLE listing_paid AS
SELECT lower(pay_to) AS address, lower(regexp_extract(trim(resource), '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')) AS origin,
       settled, delivered, probed_at::DATE AS day,
       CASE WHEN status = 204 THEN 'inconclusive'
            WHEN status BETWEEN 200 AND 299 AND body_bytes > 0 THEN 'delivered'
            WHEN status BETWEEN 200 AND 299 OR status = 402 OR status BETWEEN 500 AND 599 THEN 'not-delivered'
            ELSE 'inconclusive' END AS outcome
FROM paid_probes WHERE probed_at >= {d30} AND probed_at < {day_end} AND error IS DISTINCT FROM 'interrupted';

-- Every origin of every seller (its current listings' and those its paid calls reached), with its
-- evidence: how its paid calls went (0 delivered and none failed, 1 none settled, 2 one settled and
-- undelivered) and how its probes went (0 last probe alive and no offer for another wallet or
-- terms, 1 no probe, 2 last probe alive with mismatching offers, 3 last probe dead); and whether
-- it may be the wallet's best origin nobody binds (`eligible`, 3.2): when a resource of the wallet
-- took it in the window, an origin that was probed and never answered a 402 naming the wallet (at
-- any terms) may not, since it is no evidence of the wallet (a dead or made-up listing the seller
-- adds beside the host that takes its buyers' money cannot stand in for that host). An origin
-- nothing probed yet stays eligible, and so does one whose 402 names the wallet at other terms
-- than listed: a stranger's host that took the wallet must not outrank a seller's listing the
-- prober has not reached, or whose listing lags its price.
CREATE TEMP TABLE seller_origins AS
WITH listed AS (
    SELECT w.address, w.origin, epoch(min(c.first_seen))::BIGINT AS first_seen
    FROM wallet_resources w JOIN cur c ON lower(c.pay_to) = w.address AND c.resource = w.resource
    GROUP BY 1, 2
), probed AS (
    SELECT address, origin, count(*) AS samples, count(*) FILTER (WHERE alive) AS ok,
           count(*) FILTER (WHERE offer_matches = false) AS mismatches,
           arg_max(alive, (probed_at, resource)) AS last_ok
    FROM counted_probes GROUP BY 1, 2
), paid_calls AS (
    SELECT address, origin, count(*) FILTER (WHERE settled AND outcome = 'delivered') AS delivered,
           count(*) FILTER (WHERE settled AND outcome = 'not-delivered') AS undelivered
    FROM listing_paid GROUP BY 1, 2
), named AS (
    SELECT DISTINCT address, origin FROM listing_probes WHERE names_wallet
), probed_at_all AS (
    SELECT DISTINCT address, origin FROM listing_probes
)
SELECT address, origin, l.first_seen, coalesce(p.samples, 0) AS samples, coalesce(p.ok, 0) AS ok,
       coalesce(p.mismatches, 0) AS mismatches, p.last_ok,
       coalesce(pd.delivered, 0) AS delivered, coalesce(pd.undelivered, 0) AS undelivered,
       CASE WHEN coalesce(pd.undelivered, 0) > 0 THEN 2 WHEN coalesce(pd.delivered, 0) > 0 THEN 0 ELSE 1 END AS paid_class,
       CASE WHEN p.last_ok IS NULL THEN 1 WHEN NOT p.last_ok THEN 3 WHEN p.mismatches > 0 THEN 2 ELSE 0 END AS probe_class,
       b.address IS NOT NULL AS bound,
       nm.address IS NOT NULL OR pa.address IS NULL OR address NOT IN (SELECT address FROM taken_resources) AS eligible
FROM listed l
FULL JOIN paid_calls pd USING (address, origin)
LEFT JOIN probed p USING (address, origin)
LEFT JOIN bound_origins b USING (address, origin)
LEFT JOIN named nm USING (address, origin)
LEFT JOIN probed_at_all pa USING (address, origin)
WHERE address IN (SELECT address FROM seller_ids);

-- Each wallet's eligible origins nobody binds among those it currently lists, ranked (`rn` 1 is the
-- best): by its paid calls, then its probes, then the earliest listed, then the origin's text.
CREATE TEMP TABLE unbound_ranked AS
SELECT *, row_number() OVER (PARTITION BY address ORDER BY paid_class, probe_class, first_seen, origin) AS rn
FROM seller_origins WHERE NOT bound AND first_seen IS NOT NULL AND eligible;

-- The origins whose evidence counts for each seller: every bound origin, and its best unbound one
-- (an origin it no longer lists counts only when bound). Beside a bound origin, the best unbound
-- one counts only when none of its evidence is bad (what a stranger's host adds can then only
-- help, and a seller that moved to an origin nothing has probed yet keeps its listings there).
CREATE TEMP TABLE counted_origins AS
SELECT address, origin, true AS bound FROM seller_origins WHERE bound
UNION ALL
SELECT address, origin, false AS bound FROM unbound_ranked
WHERE rn = 1
  AND (address NOT IN (SELECT address FROM seller_origins WHERE bound)
       OR (paid_class < 2 AND ok = samples AND mismatches = 0));

-- Each wallet's counted origin nobody binds, with its rank, whether it counts beside a bound origin
-- (then only while clean) and the next of its ranked origins nobody binds (its rival). Evidence
-- newer than the snapshot there can lower the wallet only while the rebuild would still count that
-- origin with it (`LiveBasis::unbound`): a stranger's host that answered well at the rebuild and
-- fails after it lowers nobody when the seller's own origin would then count, and a seller's only
-- origin failing lowers it at once.
CREATE TEMP TABLE unbound_rivals AS
SELECT o.address, o.origin, o.paid_class, o.probe_class, o.first_seen,
       EXISTS (SELECT 1 FROM seller_origins b WHERE b.address = o.address AND b.bound) AS beside_bound,
       r.origin AS rival_origin, r.paid_class AS rival_paid_class, r.probe_class AS rival_probe_class,
       r.first_seen AS rival_first_seen
FROM unbound_ranked o
LEFT JOIN unbound_ranked r ON r.address = o.address AND r.rn = 2
WHERE o.rn = 1 AND EXISTS (SELECT 1 FROM counted_origins c WHERE c.address = o.address AND c.origin = o.origin);

-- What the seller's listings say of it, over the listings whose probes count (a counted origin,
-- and a resource that took the wallet or a wallet none of whose resources did): a secrets path
-- listed as a paid API, a suspicious top-level domain.
CREATE TEMP TABLE listing_risks AS
SELECT w.address,
       bool_or(regexp_matches(lower(w.resource), '^https?://[^/:]+\.({suspicious_tlds})(:[0-9]+)?(/|$)')) AS suspicious_tld,
       bool_or(regexp_matches(lower(w.resource), '/({admin_segments})(/|[?#]|$)')) AS admin_path
FROM wallet_resources w JOIN counted_origins o USING (address, origin)
WHERE EXISTS (SELECT 1 FROM taken_resources t WHERE t.address = w.address AND t.resource = w.resource)
   OR w.address NOT IN (SELECT address FROM taken_resources)
GROUP BY 1;

-- The probe SLA of each seller over its counted origins.
CREATE TEMP TABLE sla AS
SELECT p.address,
       count(*) AS samples,
       count(*) FILTER (WHERE alive) AS ok,
       quantile_cont(p.latency_ms, 0.5) FILTER (WHERE alive)::BIGINT AS p50,
       quantile_cont(p.latency_ms, 0.95) FILTER (WHERE alive)::BIGINT AS p95,
       (sum(p.latency_ms) FILTER (WHERE alive) // count(p.latency_ms) FILTER (WHERE alive))::BIGINT AS avg_latency,
       arg_max(alive, (p.probed_at, p.resource)) AS last_ok,
       count(*) FILTER (WHERE p.offer_version IS NOT NULL) AS offers,
       count(*) FILTER (WHERE p.offer_matches = false) AS offer_mismatches
FROM counted_probes p JOIN counted_origins o USING (address, origin)
GROUP BY 1;

-- agentrep's paid calls of each seller at its counted origins: settled (the authorization was used
-- on chain), what each answer showed, and on how many days one showed non-delivery.
CREATE TEMP TABLE paid AS
SELECT p.address,
       count(*) FILTER (WHERE settled) AS paid,
       count(*) FILTER (WHERE settled AND outcome = 'delivered') AS delivered,
       count(*) FILTER (WHERE settled AND outcome = 'not-delivered') AS undelivered,
       count(*) FILTER (WHERE settled AND outcome = 'inconclusive') AS inconclusive,
       count(DISTINCT day) FILTER (WHERE settled AND outcome = 'not-delivered') AS undelivered_days,
       count(*) FILTER (WHERE settled = false AND NOT delivered) AS unpaid_failures
FROM listing_paid p JOIN counted_origins o USING (address, origin)
GROUP BY 1;
