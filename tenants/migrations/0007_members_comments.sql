-- Tessera storage schema, version 7: member areas, comments and likes. A site user confirms their email before
-- they can sign in (`verified_ms`; members that existed before are confirmed), belongs to
-- member areas, and a sign-up waits for its emailed link in `site_user_verification` (the
-- token is kept only as its SHA-256, so the table cannot sign anyone in).
ALTER TABLE site_user ADD COLUMN verified_ms BIGINT;
UPDATE site_user SET verified_ms = created_ms;

CREATE TABLE site_user_area (
    tenant_id BIGINT NOT NULL,
    site_user_id TEXT NOT NULL,
    member_area_id TEXT NOT NULL,
    granted_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, site_user_id, member_area_id),
    FOREIGN KEY (tenant_id, site_user_id) REFERENCES site_user (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE site_user_verification (
    tenant_id BIGINT NOT NULL,
    token_hash TEXT NOT NULL,
    site_user_id TEXT NOT NULL,
    member_area_id TEXT,
    redirect TEXT NOT NULL,
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, site_user_id) REFERENCES site_user (tenant_id, id) ON DELETE CASCADE
);

-- Comments members write on items, waiting for the owner unless the site lets them show at
-- once (state 'pending', 'approved' or 'rejected'); only approved ones are public and
-- counted. The author's name is kept as it was written, so it stays when the member goes.
CREATE TABLE item_comment (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    site_user_id TEXT,
    author_name TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    moderated_ms BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX item_comment_item ON item_comment (tenant_id, item_id, state, created_ms);

-- One like per visitor (their crumb) and item.
CREATE TABLE item_like (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    visitor TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, item_id, visitor)
);
