-- Tessera storage schema, version 10: files an owner uploads (images and PDFs the site's
-- content links to), served at /_tessera/files/<id>/<name>. Kept in the database like
-- template files, so every node serves them and a backup holds them.
CREATE TABLE site_asset (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    file_name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size BIGINT NOT NULL,
    content @BYTES@ NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
