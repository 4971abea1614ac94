-- Ranked domains per seller, after `sellers.sql` (which judged the window's probes per listing,
-- `listing_probes`) and after `listing_domains(resource, domain)` was filled from `cur` with the
-- Public Suffix List. Placeholders: {day_end}, {ranks_cutoff}.

-- The newest rank of each domain among the lists fetched in the window (a list older than that
-- proves nothing any more).
CREATE TEMP TABLE ranks AS
SELECT domain, rank, list || ' ' || list_id AS list FROM (
    SELECT *, row_number() OVER (PARTITION BY domain ORDER BY fetched_at DESC, rank, list, list_id, source) AS rn
    FROM domain_ranks WHERE fetched_at >= {ranks_cutoff} AND fetched_at < {day_end}
) WHERE rn = 1;

-- Per (seller, ranked domain of one of its current listings): the probes of the window whose
-- well-formed offer asked that seller to be paid at its listed terms, and those that did not (a
-- stranger's listing of the seller's URL sees the seller's offers as mismatching, so it never
-- makes the domain look shared).
CREATE TEMP TABLE domain_offers AS
SELECT p.address, d.domain, r.rank, r.list,
       count(*) FILTER (WHERE p.offer_matches) AS matching,
       count(*) FILTER (WHERE p.offer_matches = false) AS mismatching
FROM listing_probes p
JOIN listing_domains d USING (resource)
JOIN ranks r USING (domain)
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
