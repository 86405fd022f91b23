-- Each template version keeps the SHA-256 of its files (paths and contents), written with
-- the version. A node that shares compiled templates between tenants with the same files
-- then finds a tenant's compiled folder from the tenant row alone, without reading and
-- hashing the files on the tenant's first page. Versions stored before this migration get
-- their hash from migrate.rs right after it (SQLite has no SHA-256 function).
ALTER TABLE template_version ADD COLUMN content_hash @BYTES@;
