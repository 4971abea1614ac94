SELECT l.address, l.listing_count::BIGINT, l.case_variants::BIGINT, l.first_seen, l.price, l.resource, l.resources,
       l.description, l.ecosystem, l.network, l.asset, l.suspicious_tld, l.admin_path,
       t.tags, coalesce(t.tag_count, 0)::BIGINT, l.price_points::BIGINT,
       coalesce(st.settlements, 0)::BIGINT, coalesce(st.settlements_30d, 0)::BIGINT, coalesce(st.volume, 0)::UBIGINT,
       coalesce(st.exact_price_share, 0)::DOUBLE, c.interval_cv,
       coalesce(nq.unattributed, 0)::BIGINT, coalesce(nq.below_price, 0)::BIGINT,
       coalesce(sla.samples, 0)::BIGINT, coalesce(sla.ok, 0)::BIGINT, sla.p50, sla.p95, sla.avg_latency, sla.last_ok,
       coalesce(sla.offers, 0)::BIGINT, coalesce(sla.offer_mismatches, 0)::BIGINT,
       r.agent_id IS NOT NULL, pr.proof_types, coalesce(li.denylisted, false), li.allow_label,
       coalesce(st.exact_settlements, 0)::BIGINT, att.address IS NOT NULL,
       sd.domain, sd.rank::BIGINT, sd.list, coalesce(sd.matching_offers, 0)::BIGINT,
       coalesce(pd.paid, 0)::BIGINT, coalesce(pd.delivered, 0)::BIGINT, coalesce(pd.undelivered, 0)::BIGINT,
       coalesce(pd.unpaid_failures, 0)::BIGINT
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
ORDER BY i.sid
