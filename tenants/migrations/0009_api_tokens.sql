-- Tessera storage schema, version 9: the owner API's tokens (`tessera token create`). One
-- row per token of a site, with its role (SPEC.md §3's role numbers). Only the token's
-- SHA-256 is kept, so the table cannot call the API; a revoked token keeps its row (and
-- when it was revoked) for the owner's record. Tokens are looked up by site and digest:
-- the request's host names the site first, so another site's token finds nothing.
CREATE TABLE api_token (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    role BIGINT NOT NULL,
    name TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    revoked_ms BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX api_token_by_hash ON api_token (tenant_id, token_hash);
