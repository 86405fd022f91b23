-- Tessera storage schema, version 15: the owner app's accounts (issue 43). An owner is a
-- person with an email (lower-cased, one account per address and site), a password
-- (Argon2id PHC string; NULL until they set it through their one-time link) and a role
-- (SPEC.md §3's numbers, the same roles the API tokens have).
CREATE TABLE owner_account (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    email TEXT NOT NULL,
    password_hash TEXT,
    role BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, email)
);

-- A signed-in owner (the `tessera-owner` cookie). Only the token's SHA-256 is kept, so a
-- copy of the table signs no one in; `csrf` is what the app sends back in `X-CSRF-Token`
-- on every write. A session lasts while it is used (`expires_ms` slides) up to a maximum
-- from `created_ms`; it goes with its account.
CREATE TABLE owner_session (
    tenant_id BIGINT NOT NULL,
    token_hash TEXT NOT NULL,
    account_id TEXT NOT NULL,
    csrf TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, account_id) REFERENCES owner_account (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX owner_session_by_account ON owner_session (tenant_id, account_id);

-- One-time links emailed or printed to owners, kept as their token's SHA-256: setting a
-- first password and resetting one name an account; an invite names the email and role of
-- the account it makes when it is used (account_id NULL). Spent once (`used_ms`).
CREATE TABLE owner_link (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL,
    purpose TEXT NOT NULL,
    account_id TEXT,
    email TEXT NOT NULL,
    role BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    used_ms BIGINT,
    PRIMARY KEY (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, account_id) REFERENCES owner_account (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX owner_link_by_email ON owner_link (tenant_id, email);
