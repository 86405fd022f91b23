-- The owner's customers, subscriptions and gift cards (issue 43): a gift card gets an id to
-- name it by (its code is the buyer's secret), what a gift card paid and was given back
-- stays in its history, and the lists that aggregate over orders read indexes.

-- id: 24 hex characters; cards issued before get random ones.
ALTER TABLE gift_card ADD COLUMN id TEXT NOT NULL DEFAULT '';
@PG@ UPDATE gift_card SET id = SUBSTR(MD5(RANDOM()::TEXT || code), 1, 24);
@SQLITE@ UPDATE gift_card SET id = LOWER(HEX(RANDOMBLOB(12)));
CREATE UNIQUE INDEX gift_card_by_id ON gift_card (tenant_id, id);
CREATE INDEX gift_card_by_placed ON gift_card (tenant_id, created_ms DESC, code);

-- refunded_ms: when what it paid went back on the card (its order cancelled or expired
-- unpaid); such a use no longer counts against the card.
ALTER TABLE gift_card_use ADD COLUMN refunded_ms BIGINT;

-- A customer's orders, and the customers' list aggregating over every order by email: the
-- index holds what the list sums, so it is read without the table rows.
CREATE INDEX customer_order_by_email ON customer_order (tenant_id, LOWER(customer_email), created_ms, status, test_mode, paid_ms, cancelled_ms, grand_total_minor, refunded_minor);

-- The owner's subscriptions, newest first.
CREATE INDEX subscription_by_placed ON subscription (tenant_id, created_ms DESC, id);
