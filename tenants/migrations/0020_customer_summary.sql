-- The owner's customers list at 100,000 orders (issue 43): one row per site and buyer
-- (lower-cased email) with what the list shows of their orders, rewritten from that buyer's
-- orders in the transaction of every write to one of them (placed, paid, cancelled,
-- refunded, expired), so a page of the list reads its rows by index instead of aggregating
-- every order of the site. live_*: orders not in test mode; all_*: test orders too (a store
-- in test mode counts them). *_orders: orders placed (not expired); *_spent: the grand
-- totals of the paid ones not cancelled, less what was refunded of them; *_last: when the
-- last of them was placed, NULL for none.
CREATE TABLE customer_summary (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    live_orders BIGINT NOT NULL DEFAULT 0,
    live_spent BIGINT NOT NULL DEFAULT 0,
    live_last BIGINT,
    all_orders BIGINT NOT NULL DEFAULT 0,
    all_spent BIGINT NOT NULL DEFAULT 0,
    all_last BIGINT,
    PRIMARY KEY (tenant_id, email)
);
-- The list's two orders: the latest buyers first, then by email.
CREATE INDEX customer_summary_by_live_last ON customer_summary (tenant_id, live_last DESC, email);
CREATE INDEX customer_summary_by_all_last ON customer_summary (tenant_id, all_last DESC, email);

INSERT INTO customer_summary (tenant_id, email, live_orders, live_spent, live_last, all_orders, all_spent, all_last)
SELECT tenant_id, LOWER(customer_email),
    CAST(SUM(CASE WHEN status <> 'expired' AND test_mode = FALSE THEN 1 ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN status <> 'expired' AND test_mode = FALSE AND paid_ms IS NOT NULL AND cancelled_ms IS NULL
        THEN grand_total_minor - refunded_minor ELSE 0 END) AS BIGINT),
    MAX(CASE WHEN status <> 'expired' AND test_mode = FALSE THEN created_ms END),
    CAST(SUM(CASE WHEN status <> 'expired' THEN 1 ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN status <> 'expired' AND paid_ms IS NOT NULL AND cancelled_ms IS NULL
        THEN grand_total_minor - refunded_minor ELSE 0 END) AS BIGINT),
    MAX(CASE WHEN status <> 'expired' THEN created_ms END)
FROM customer_order GROUP BY tenant_id, LOWER(customer_email);

-- The page's members and subscribers, looked up by the list's lower-cased email.
CREATE INDEX site_user_by_lower_email ON site_user (tenant_id, LOWER(email));
CREATE INDEX mailing_list_subscriber_by_lower_email ON mailing_list_subscriber (tenant_id, LOWER(email));

-- The dashboard's to-do counts (orders to fulfil, unpaid ones), counted in this index
-- rather than over every order's row.
CREATE INDEX customer_order_by_state ON customer_order (tenant_id, status, fulfilment, cancelled_ms, test_mode);
