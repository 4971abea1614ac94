SELECT l.address, l.listing_count, l.case_variants, l.first_seen, l.price, l.resource, l.resources,
       l.description, l.ecosystem, l.network, l.asset, l.suspicious_tld, l.admin_path,
       t.tags, coalesce(t.tag_count, 0),
       coalesce(st.settlements, 0), coalesce(st.settlements_30d, 0), coalesce(st.volume, 0),
       st.last_settlement, coalesce(st.active_days_30d, 0), coalesce(st.self_payments, 0),
       coalesce(st.exact_price_share, 0), st.median_price_ratio,
       coalesce(py.distinct_payers, 0), coalesce(py.repeat_payer_ratio, 0), coalesce(py.top_payer_share, 0),
       c.interval_cv,
       coalesce(f.payers_with_funder, 0), coalesce(f.top_funder_share, 0), coalesce(f.seller_funded_share, 0),
       coalesce(sla.samples, 0), coalesce(sla.ok, 0), coalesce(sla.p50, 0), coalesce(sla.p95, 0),
       coalesce(sla.avg_latency, 0), sla.last_ok,
       r.agent_id IS NOT NULL,
       coalesce(fe.feedback_count, 0), coalesce(fe.feedback_clients, 0), coalesce(fe.paid_clients, 0),
       coalesce(fe.paid_sum, 0), coalesce(fe.paid_count, 0),
       coalesce(rc.receipts, 0), coalesce(rc.successes, 0),
       pr.proof_types, coalesce(li.denylisted, false), li.allow_label
FROM seller_listing l
LEFT JOIN seller_tags t USING (address)
LEFT JOIN settle st USING (address)
LEFT JOIN payers py USING (address)
LEFT JOIN cadence c USING (address)
LEFT JOIN funding f USING (address)
LEFT JOIN sla USING (address)
LEFT JOIN (SELECT address, min(agent_id) AS agent_id FROM reg GROUP BY 1) r USING (address)
LEFT JOIN feedback fe USING (address)
LEFT JOIN rcpt rc USING (address)
LEFT JOIN proofs pr USING (address)
LEFT JOIN lists li USING (address)
ORDER BY l.address
