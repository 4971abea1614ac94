-- Score attestations the operator signed (GET /attestation/{address}): one row per signature.
-- A signature is public by design (it is handed to anyone who asks), so it is kept, to serve the
-- same attestation again within the hour and to list attestations in /attestations.json.
CREATE TABLE attestations (
    id          INTEGER PRIMARY KEY,
    address     TEXT    NOT NULL,            -- 0x-lowercase subject
    score       INTEGER NOT NULL CHECK (score BETWEEN 0 AND 100),
    timestamp   INTEGER NOT NULL,            -- Unix seconds, as signed
    nonce       INTEGER NOT NULL,            -- as signed
    snapshot    TEXT    NOT NULL,            -- the snapshot the score is read from
    signer      TEXT    NOT NULL,            -- 0x-lowercase operator address
    signature   TEXT    NOT NULL             -- 65 bytes, hex
);
CREATE INDEX attestations_address ON attestations (address, timestamp);
CREATE INDEX attestations_timestamp ON attestations (timestamp);

-- How often each address's attestation was fetched (GET /attestation-engagement), counted in
-- memory and added here in batches.
CREATE TABLE attestation_fetches (
    address     TEXT    PRIMARY KEY,
    fetches     INTEGER NOT NULL,
    last_at     INTEGER NOT NULL
);
