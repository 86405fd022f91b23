-- Every table's key leads with tenant_id (so the schema can be distributed by tenant_id,
-- e.g. on Citus; see README "Running many nodes"), and the rate-limit buckets move from
-- each node's memory into the store, so a limit holds across nodes.
--
-- analytics_event and performance_record had `id` (an identity / AUTOINCREMENT column) as
-- their whole key. On PostgreSQL the key becomes (tenant_id, id). SQLite cannot have a
-- composite key on an AUTOINCREMENT column (nor change a table's key without rebuilding
-- it), and the embedded store is never distributed, so there the same pair gets a unique
-- index instead. Lines marked for one backend are kept for that backend only (migrate.rs).
@PG@ ALTER TABLE analytics_event DROP CONSTRAINT analytics_event_pkey;
@PG@ ALTER TABLE analytics_event ADD PRIMARY KEY (tenant_id, id);
@PG@ ALTER TABLE performance_record DROP CONSTRAINT performance_record_pkey;
@PG@ ALTER TABLE performance_record ADD PRIMARY KEY (tenant_id, id);
@SQLITE@ CREATE UNIQUE INDEX analytics_event_tenant_key ON analytics_event (tenant_id, id);
@SQLITE@ CREATE UNIQUE INDEX performance_record_tenant_key ON performance_record (tenant_id, id);

-- One token bucket (GCRA) per tenant and key (a family of calls and a client address):
-- `tat_ms` is the bucket's theoretical arrival time, epoch ms. A row whose tat_ms has
-- passed is a full bucket, the same as no row, and is swept.
CREATE TABLE rate_limit (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    bucket TEXT NOT NULL,
    tat_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, bucket)
);
CREATE INDEX rate_limit_by_tat ON rate_limit (tat_ms);
