-- Ranked domains and agentrep's paid calls, per seller, after `sellers.sql` (which made `cur`) and
-- after `listing_domains(resource, domain)` was filled from `cur` with the Public Suffix List.
-- Placeholders: {day_end}, {d7}, {d30}, {ranks_cutoff}.

-- The newest rank of each domain among the lists fetched in the window (a list older than that
-- proves nothing any more).
CREATE TEMP TABLE ranks AS
SELECT domain, rank, list || ' ' || list_id AS list FROM (
    SELECT *, row_number() OVER (PARTITION BY domain ORDER BY fetched_at DESC, rank, list, list_id, source) AS rn
    FROM domain_ranks WHERE fetched_at >= {ranks_cutoff} AND fetched_at < {day_end}
) WHERE rn = 1;

-- Per (seller, ranked domain of one of its current listings): the probes of the window whose
-- well-formed offer matched the listing (payTo included) and those that did not.
CREATE TEMP TABLE domain_offers AS
SELECT lower(c.pay_to) AS address, d.domain, r.rank, r.list,
       count(*) FILTER (WHERE p.offer_matches) AS matching,
       count(*) FILTER (WHERE p.offer_matches = false) AS mismatching
FROM cur c
JOIN listing_domains d USING (resource)
JOIN ranks r USING (domain)
JOIN probes p ON p.resource = c.resource AND p.probed_at >= {d7} AND p.probed_at < {day_end}
GROUP BY ALL;

-- A ranked domain stands for a seller when its offers in the window name that seller's wallet
-- and no other's: a domain whose offers name several sellers is a platform (many tenants), and
-- proves nobody's standing. Ties pick the best rank, then the domain.
CREATE TEMP TABLE seller_domain AS
SELECT address, arg_min(domain, (rank, domain)) AS domain, min(rank) AS rank,
       arg_min(list, (rank, domain)) AS list, arg_min(matching, (rank, domain)) AS matching_offers
FROM domain_offers
WHERE matching > 0 AND mismatching = 0
  AND domain IN (SELECT domain FROM domain_offers WHERE matching > 0 GROUP BY 1 HAVING count(DISTINCT address) = 1)
GROUP BY 1;

-- agentrep's own paid calls of the last 30 days: settled (the authorization was used on chain),
-- and whether each delivered. A call whose run was interrupted after it was authorized
-- (`interrupted`) lost its answer with the run: it is no evidence about the seller.
CREATE TEMP TABLE paid AS
SELECT lower(pay_to) AS address,
       count(*) FILTER (WHERE settled) AS paid,
       count(*) FILTER (WHERE settled AND delivered) AS delivered,
       count(*) FILTER (WHERE settled AND NOT delivered) AS undelivered,
       count(*) FILTER (WHERE settled = false AND NOT delivered) AS unpaid_failures
FROM paid_probes WHERE probed_at >= {d30} AND probed_at < {day_end} AND error IS DISTINCT FROM 'interrupted'
GROUP BY 1;
