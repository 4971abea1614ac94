-- Each seller's ERC-8004 feedback and receipts by wallet id (`sellers.rs`), for the demand
-- weighing: who reviewed, who posted a receipt, and whom the receipt's transaction paid.

-- name: reviews
SELECT (fb.sid - 1)::UINTEGER AS seller, w.wid, fb.t, fb.v::BIGINT AS v FROM fb JOIN wallets w ON w.address = fb.client
ORDER BY fb.sid, w.wid, fb.t, fb.v

-- name: receipts
SELECT (rc.sid - 1)::UINTEGER AS seller, wb.wid AS buyer, rc.success, rc.t, wq.wid AS payer, rc.cites FROM rc
JOIN wallets wb ON wb.address = rc.buyer LEFT JOIN wallets wq ON wq.address = rc.tx_payer
ORDER BY rc.sid, wb.wid, rc.t, rc.success, wq.wid, rc.cites
