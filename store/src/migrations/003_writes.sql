-- What users write: signed records (receipts, badge claims, watchlist entries), webhook
-- subscriptions and their delivery outbox, paid slots and watches, discovery submissions, and the
-- rate-limit hits that must survive a restart.
--
-- A signed record keeps the message and signature it was accepted with; its fields are read from
-- the message, never from the unsigned body. `message_hash` (SHA-256 of the message, hex) is
-- unique per kind: a message is accepted once, and posted again it answers the record it made.

CREATE TABLE receipts (
    id           INTEGER PRIMARY KEY,
    message_hash TEXT    NOT NULL UNIQUE,
    buyer        TEXT    NOT NULL,           -- 0x-lowercase signer
    agent        TEXT    NOT NULL,           -- 0x-lowercase seller
    success      INTEGER NOT NULL CHECK (success IN (0, 1)),
    tx_hash      TEXT,                       -- as signed
    latency_ms   INTEGER CHECK (latency_ms >= 0),
    rating       INTEGER CHECK (rating BETWEEN 0 AND 100),
    comment      TEXT,                       -- as signed
    signed_at    INTEGER NOT NULL,           -- the message's timestamp, Unix milliseconds
    received_at  INTEGER NOT NULL,           -- Unix seconds
    signer_kind  TEXT    NOT NULL CHECK (signer_kind IN ('eoa', 'erc1271', 'erc6492')),
    message      TEXT    NOT NULL,
    signature    TEXT    NOT NULL            -- 0x hex
);
CREATE INDEX receipts_agent ON receipts (agent, id);
CREATE INDEX receipts_received ON receipts (received_at, id);

CREATE TABLE badge_claims (
    id           INTEGER PRIMARY KEY,
    message_hash TEXT    NOT NULL UNIQUE,
    address      TEXT    NOT NULL,           -- 0x-lowercase signer
    signed_at    INTEGER NOT NULL,           -- Unix milliseconds
    claimed_at   INTEGER NOT NULL,           -- Unix seconds
    signer_kind  TEXT    NOT NULL CHECK (signer_kind IN ('eoa', 'erc1271', 'erc6492')),
    message      TEXT    NOT NULL,
    signature    TEXT    NOT NULL
);
CREATE INDEX badge_claims_address ON badge_claims (address, id);
CREATE INDEX badge_claims_claimed ON badge_claims (claimed_at, id);

-- One row per (subscriber, watched wallet): a later signed message replaces the entry's label and
-- threshold. `last_score` is the score at the last digest (the baseline the next change is measured
-- from), `prev_score` the one at the digest before (what the last digest reported a move from).
CREATE TABLE watchlist (
    id              INTEGER PRIMARY KEY,
    subscriber      TEXT    NOT NULL,
    watched         TEXT    NOT NULL,
    label           TEXT,
    threshold_delta INTEGER NOT NULL CHECK (threshold_delta BETWEEN 1 AND 100),
    message_hash    TEXT    NOT NULL UNIQUE,
    signed_at       INTEGER NOT NULL,
    added_at        INTEGER NOT NULL,
    signer_kind     TEXT    NOT NULL CHECK (signer_kind IN ('eoa', 'erc1271', 'erc6492')),
    message         TEXT    NOT NULL,
    signature       TEXT    NOT NULL,
    last_score      INTEGER,
    prev_score      INTEGER,
    last_snapshot   TEXT,                    -- the snapshot of the last digest
    webhook_url     TEXT,                    -- the receiver the watcher signed for its digests (a `webhook:` line)
    UNIQUE (subscriber, watched)
);

-- Score-change webhook subscriptions. `secret` signs deliveries (Standard Webhooks, `whsec_…`);
-- it is shown once, at subscription. Active until `grace_until` (30 days) or a paid extension.
CREATE TABLE webhook_subscriptions (
    id               INTEGER PRIMARY KEY,
    subscriber       TEXT    NOT NULL,
    watched          TEXT    NOT NULL,
    url              TEXT    NOT NULL,
    threshold_delta  INTEGER NOT NULL CHECK (threshold_delta BETWEEN 1 AND 100),
    secret           TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    grace_until      INTEGER NOT NULL,
    last_score       INTEGER,                 -- the score last notified (or seen at subscription)
    last_snapshot    TEXT,                    -- the snapshot it was read from
    last_notified_at INTEGER,
    UNIQUE (subscriber, watched, url)
);
CREATE INDEX webhook_subscriptions_subscriber ON webhook_subscriptions (subscriber, id);

-- Paid extensions of a subscription (POST /webhook/extend): each adds 30 days once its payment
-- (the ledger row) is settled; an unsettled one extends nothing.
CREATE TABLE webhook_extensions (
    id              INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES webhook_subscriptions (id),
    payment_id      INTEGER NOT NULL UNIQUE REFERENCES payments (id),
    days            INTEGER NOT NULL,
    bought_at       INTEGER NOT NULL
);

-- Paid slots: sponsored agents (`agent`, 25.00 a week) and creators (`creator`, 10.00 a week), and
-- rug-alert watches (`rug-alert`, 2.00 for 30 days). A slot counts once its payment is settled.
-- Slots never reach a score, a decision or an organic rank.
CREATE TABLE paid_slots (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('agent', 'creator', 'rug-alert')),
    address     TEXT    NOT NULL,            -- the agent, creator or token
    buyer       TEXT    NOT NULL,            -- the payer
    payment_id  INTEGER NOT NULL UNIQUE REFERENCES payments (id),
    starts_at   INTEGER NOT NULL,
    ends_at     INTEGER NOT NULL,
    -- rug alerts: where the alert goes, who asked, its signing secret, when it fired
    subscriber  TEXT,
    url         TEXT,
    secret      TEXT,
    alerted_at  INTEGER
);
CREATE INDEX paid_slots_kind ON paid_slots (kind, ends_at);
CREATE INDEX paid_slots_address ON paid_slots (address, kind);

-- Deliveries (Standard Webhooks): one row per event and target, enqueued in the transaction that
-- read the state it reports. `webhook_id` is the `webhook-id` header: the same on every attempt.
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY,
    webhook_id      TEXT    NOT NULL UNIQUE,
    event_type      TEXT    NOT NULL,        -- score.changed, token.rugged, watchlist.digest
    event_key       TEXT    NOT NULL UNIQUE, -- (source, target, snapshot): an event is enqueued once
    subscription_id INTEGER REFERENCES webhook_subscriptions (id),
    slot_id         INTEGER REFERENCES paid_slots (id),
    url             TEXT    NOT NULL,
    secret          TEXT    NOT NULL,
    payload         TEXT    NOT NULL,        -- the JSON body, signed as is
    created_at      INTEGER NOT NULL,        -- Unix seconds; also the signed webhook-timestamp base
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         INTEGER NOT NULL,        -- Unix milliseconds of the next attempt
    leased_until    INTEGER,                 -- Unix milliseconds: a worker holds it until then
    last_status     INTEGER,
    last_error      TEXT,
    delivered_at    INTEGER
);
CREATE INDEX deliveries_due ON deliveries (state, next_at);
CREATE INDEX deliveries_subscription ON deliveries (subscription_id, id);

-- Agent description files submitted for indexing (POST /discover), read by the agent-card job
-- through the export.
CREATE TABLE discovery_submissions (
    id           INTEGER PRIMARY KEY,
    url          TEXT    NOT NULL UNIQUE,
    submitted_at INTEGER NOT NULL,
    client       TEXT    NOT NULL            -- SHA-256 of the client address, hex (not the address)
);
CREATE INDEX discovery_submitted ON discovery_submissions (submitted_at, id);

-- Rate-limit hits that must survive a restart (the 5 webhook subscriptions an hour per client).
CREATE TABLE rate_hits (
    bucket TEXT    NOT NULL,                 -- limit name and key
    at     INTEGER NOT NULL                  -- Unix milliseconds
);
CREATE INDEX rate_hits_bucket ON rate_hits (bucket, at);
