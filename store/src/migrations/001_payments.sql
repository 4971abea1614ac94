-- The payment ledger: one row per x402 authorization (payer, nonce) a paid route accepted, from the
-- claim before the answer is produced to its settlement. Signatures and headers are not stored;
-- a payload is remembered by its SHA-256 digest.
CREATE TABLE payments (
    id              INTEGER PRIMARY KEY,
    payer           TEXT    NOT NULL,            -- 0x-lowercase
    nonce           TEXT    NOT NULL,            -- 0x-lowercase, 32 bytes
    x402_version    INTEGER NOT NULL CHECK (x402_version IN (1, 2)),
    network         TEXT    NOT NULL,            -- as the buyer named it
    asset           TEXT    NOT NULL,
    pay_to          TEXT    NOT NULL,
    value           TEXT    NOT NULL,            -- atomic units authorised (decimal text: uint256)
    price           INTEGER NOT NULL,            -- atomic units the route costs
    route           TEXT    NOT NULL,            -- route template, e.g. /audit/{agentAddress}
    resource        TEXT    NOT NULL,            -- the URL paid for
    payload_digest  TEXT    NOT NULL,            -- sha256 of the decoded payment payload, hex
    payment_id      TEXT    UNIQUE,              -- x402 payment-identifier, when sent
    valid_before    INTEGER NOT NULL,            -- Unix seconds
    state           TEXT    NOT NULL CHECK (state IN ('reserved', 'settling', 'settled', 'failed', 'unknown', 'released')),
    tx_hash         TEXT,
    error           TEXT,
    answer_status   INTEGER,                     -- the paid answer, kept for idempotent replays
    answer_type     TEXT,
    answer_body     BLOB,
    settlement      TEXT,                        -- the PAYMENT-RESPONSE JSON sent with the answer
    created_at      INTEGER NOT NULL,            -- Unix seconds
    updated_at      INTEGER NOT NULL,
    UNIQUE (payer, nonce)
);
CREATE INDEX payments_open ON payments (state) WHERE state IN ('reserved', 'settling', 'unknown');
CREATE INDEX payments_route ON payments (route, state);
