-- Tessera storage schema, version 15: quarter-hour roll-ups of the analytics events, so the
-- owner's dashboard and analytics count days in the site's own time zone (every zone's
-- offset from UTC is a whole number of quarter hours) while reading a few rows per quarter
-- hour whatever the traffic. One row per site, metric, quarter hour and label:
--   event     label = the event's name           n = events
--   page      label = the page path of a visit   n = page views
--   referrer  label = the referring host         n = page views
--   session   label = the visit's session id     n = page views (distinct labels = visits)
-- The slot is the event's epoch milliseconds divided by 900 000. Events stored before this
-- version are rolled up here, so no history is lost.
CREATE TABLE analytics_slot (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    slot BIGINT NOT NULL,
    label TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, metric, slot, label)
);

INSERT INTO analytics_slot (tenant_id, metric, slot, label, n)
SELECT tenant_id, 'event', occurred_ms / 900000, name, COUNT(*)
FROM analytics_event WHERE name <> '' GROUP BY tenant_id, occurred_ms / 900000, name;

INSERT INTO analytics_slot (tenant_id, metric, slot, label, n)
SELECT tenant_id, 'page', occurred_ms / 900000, page_path, COUNT(*)
FROM analytics_event WHERE name IN ('pageview', 'page_view') AND page_path <> ''
GROUP BY tenant_id, occurred_ms / 900000, page_path;

INSERT INTO analytics_slot (tenant_id, metric, slot, label, n)
SELECT tenant_id, 'referrer', occurred_ms / 900000, referrer, COUNT(*)
FROM analytics_event WHERE name IN ('pageview', 'page_view') AND referrer IS NOT NULL AND referrer <> ''
GROUP BY tenant_id, occurred_ms / 900000, referrer;

@PG@ INSERT INTO analytics_slot (tenant_id, metric, slot, label, n) SELECT tenant_id, 'session', occurred_ms / 900000, CAST(data AS JSONB) ->> 'session', COUNT(*) FROM analytics_event WHERE name IN ('pageview', 'page_view') AND jsonb_typeof(CAST(data AS JSONB) -> 'session') = 'string' AND CAST(data AS JSONB) ->> 'session' <> '' GROUP BY tenant_id, occurred_ms / 900000, CAST(data AS JSONB) ->> 'session';
@SQLITE@ INSERT INTO analytics_slot (tenant_id, metric, slot, label, n) SELECT tenant_id, 'session', occurred_ms / 900000, json_extract(data, '$.session'), COUNT(*) FROM analytics_event WHERE name IN ('pageview', 'page_view') AND json_type(data, '$.session') = 'text' AND json_extract(data, '$.session') <> '' GROUP BY tenant_id, occurred_ms / 900000, json_extract(data, '$.session');
