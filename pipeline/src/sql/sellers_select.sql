-- One row per seller, read by column name in `sellers.rs` (`read_row`): every column carries the
-- name Rust reads it by.
SELECT l.address, l.listing_count::BIGINT AS listing_count, l.case_variants::BIGINT AS case_variants, l.first_seen,
       l.price, l.resource, l.resources, l.description, l.ecosystem, l.network, l.asset,
       coalesce(lr.suspicious_tld, false) AS suspicious_tld, coalesce(lr.admin_path, false) AS admin_path, t.tags, coalesce(t.tag_count, 0)::BIGINT AS tag_count, l.price_points::BIGINT AS price_points,
       coalesce(st.settlements, 0)::BIGINT AS settlements, coalesce(st.settlements_30d, 0)::BIGINT AS settlements_30d,
       coalesce(st.volume, 0)::UBIGINT AS volume, coalesce(st.exact_price_share, 0)::DOUBLE AS exact_price_share,
       c.interval_cv, coalesce(nq.unattributed, 0)::BIGINT AS unattributed,
       coalesce(nq.below_price, 0)::BIGINT AS below_price,
       coalesce(sla.samples, 0)::BIGINT AS sla_samples, coalesce(sla.ok, 0)::BIGINT AS sla_ok,
       sla.p50 AS latency_p50, sla.p95 AS latency_p95, sla.avg_latency, sla.last_ok,
       coalesce(sla.offers, 0)::BIGINT AS offers, coalesce(sla.offer_mismatches, 0)::BIGINT AS offer_mismatches,
       r.agent_id IS NOT NULL AS erc8004_registered, pr.proof_types,
       coalesce(li.denylisted, false) AS denylisted, li.allow_label,
       coalesce(st.exact_settlements, 0)::BIGINT AS exact_settlements, att.address IS NOT NULL AS attested,
       sd.domain, sd.rank::BIGINT AS domain_rank, sd.list AS domain_list,
       coalesce(sd.matching_offers, 0)::BIGINT AS matching_offers,
       coalesce(pd.paid, 0)::BIGINT AS paid, coalesce(pd.delivered, 0)::BIGINT AS delivered,
       coalesce(pd.undelivered, 0)::BIGINT AS undelivered, coalesce(pd.unpaid_failures, 0)::BIGINT AS unpaid_failures,
       coalesce(pd.inconclusive, 0)::BIGINT AS inconclusive, coalesce(pd.undelivered_days, 0)::BIGINT AS undelivered_days
FROM seller_listing l
JOIN seller_ids i USING (address)
LEFT JOIN seller_tags t USING (address)
LEFT JOIN settle st USING (address)
LEFT JOIN nonq nq USING (address)
LEFT JOIN cadence c USING (address)
LEFT JOIN sla USING (address)
LEFT JOIN (SELECT address, min(agent_id) AS agent_id FROM reg GROUP BY 1) r USING (address)
LEFT JOIN proofs pr USING (address)
LEFT JOIN lists li USING (address)
LEFT JOIN attested att USING (address)
LEFT JOIN seller_domain sd USING (address)
LEFT JOIN paid pd USING (address)
LEFT JOIN listing_risks lr USING (address)
ORDER BY i.sid
