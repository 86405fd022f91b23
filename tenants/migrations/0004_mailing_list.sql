-- Tessera storage schema, version 4: each site's mailing list. Newsletter forms and restock
-- signups that opt in add to it; an address is on a site's list once. Plain SQL that both
-- backends accept.

CREATE TABLE mailing_list_subscriber (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    -- Lower-cased, so one address is one subscriber however it was typed.
    email TEXT NOT NULL,
    -- What added it: 'form:<form id>' or 'restock'.
    source TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, email)
);
