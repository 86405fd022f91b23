-- Tessera storage schema, version 8: daily roll-ups of the analytics events, so an owner's
-- summary reads a few rows a day instead of every event. One row per site, metric, UTC day
-- and label, `n` counted up by the batch writer as events are appended:
--   event     label = the event's name           n = events
--   page      label = the page path of a visit   n = visits
--   referrer  label = the referring host         n = visits
--   visitor   label = the visitor cookie         n = visits (distinct labels = unique visitors)
-- The day is the event's epoch milliseconds divided by 86 400 000. Events stored before
-- this version are rolled up here, so no history is lost.
CREATE TABLE analytics_day (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    day BIGINT NOT NULL,
    label TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, metric, day, label)
);

INSERT INTO analytics_day (tenant_id, metric, day, label, n)
SELECT tenant_id, 'event', occurred_ms / 86400000, name, COUNT(*)
FROM analytics_event GROUP BY tenant_id, occurred_ms / 86400000, name;

INSERT INTO analytics_day (tenant_id, metric, day, label, n)
SELECT tenant_id, 'page', occurred_ms / 86400000, page_path, COUNT(*)
FROM analytics_event WHERE name IN ('pageview', 'page_view') AND page_path <> ''
GROUP BY tenant_id, occurred_ms / 86400000, page_path;

INSERT INTO analytics_day (tenant_id, metric, day, label, n)
SELECT tenant_id, 'referrer', occurred_ms / 86400000, referrer, COUNT(*)
FROM analytics_event WHERE name IN ('pageview', 'page_view') AND referrer IS NOT NULL AND referrer <> ''
GROUP BY tenant_id, occurred_ms / 86400000, referrer;

INSERT INTO analytics_day (tenant_id, metric, day, label, n)
SELECT tenant_id, 'visitor', occurred_ms / 86400000, visitor_id, COUNT(*)
FROM analytics_event WHERE name IN ('pageview', 'page_view') AND visitor_id IS NOT NULL AND visitor_id <> ''
GROUP BY tenant_id, occurred_ms / 86400000, visitor_id;
