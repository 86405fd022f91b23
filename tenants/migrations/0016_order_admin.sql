-- Running orders from the owner's app (issue 43): an order's state machine (payment in
-- `status`, which gains 'partially-refunded' and 'refunded'; `fulfilment`; `cancelled_ms`),
-- what was refunded, the buyer's name for search, each line's shipped and refunded units,
-- the shipments, the refunds and the order's history. Plain SQL both backends accept,
-- except the name backfill (JSON functions differ).

-- fulfilment: 'unfulfilled', 'partially-fulfilled', 'fulfilled' or 'not-required' (nothing
-- ships). refunded_minor: what was given back of the charge (a refund in flight counts, so
-- two refunds at once cannot give back more than was charged). customer_name: the billing
-- (else shipping) name, for the owner's search.
ALTER TABLE customer_order ADD COLUMN fulfilment TEXT NOT NULL DEFAULT 'unfulfilled';
ALTER TABLE customer_order ADD COLUMN cancelled_ms BIGINT;
ALTER TABLE customer_order ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0;
ALTER TABLE customer_order ADD COLUMN customer_name TEXT NOT NULL DEFAULT '';

ALTER TABLE order_line ADD COLUMN fulfilled_quantity BIGINT NOT NULL DEFAULT 0;
ALTER TABLE order_line ADD COLUMN refunded_quantity BIGINT NOT NULL DEFAULT 0;

-- Orders placed before: nothing ships unless a physical line does; what does not ship was
-- delivered with payment.
UPDATE customer_order SET fulfilment = 'not-required' WHERE NOT EXISTS (SELECT 1 FROM order_line l WHERE l.tenant_id = customer_order.tenant_id AND l.order_id = customer_order.id AND l.product_type = 1);
UPDATE order_line SET fulfilled_quantity = quantity WHERE product_type <> 1 AND EXISTS (SELECT 1 FROM customer_order o WHERE o.tenant_id = order_line.tenant_id AND o.id = order_line.order_id AND o.status = 'paid');
@PG@ UPDATE customer_order SET customer_name = TRIM(COALESCE(NULLIF(TRIM(COALESCE(details::json->'billingAddress'->>'firstName', '') || ' ' || COALESCE(details::json->'billingAddress'->>'lastName', '')), ''), COALESCE(details::json->'shippingAddress'->>'firstName', '') || ' ' || COALESCE(details::json->'shippingAddress'->>'lastName', '')));
@SQLITE@ UPDATE customer_order SET customer_name = TRIM(COALESCE(NULLIF(TRIM(COALESCE(json_extract(details, '$.billingAddress.firstName'), '') || ' ' || COALESCE(json_extract(details, '$.billingAddress.lastName'), '')), ''), COALESCE(json_extract(details, '$.shippingAddress.firstName'), '') || ' ' || COALESCE(json_extract(details, '$.shippingAddress.lastName'), '')));

-- The owner's list: newest first, paged by (created_ms, id).
CREATE INDEX customer_order_by_placed ON customer_order (tenant_id, created_ms DESC, id DESC);

-- A shipment: some units of some lines (JSON `[{"position", "quantity"}]`), with the
-- carrier and tracking number the buyer is sent.
CREATE TABLE order_fulfilment (
    tenant_id BIGINT NOT NULL,
    order_id TEXT NOT NULL,
    id TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    carrier TEXT NOT NULL DEFAULT '',
    tracking_number TEXT NOT NULL DEFAULT '',
    lines TEXT NOT NULL,
    PRIMARY KEY (tenant_id, order_id, id),
    FOREIGN KEY (tenant_id, order_id) REFERENCES customer_order (tenant_id, id) ON DELETE CASCADE
);

-- A refund: 'pending' while the payment provider is asked (its amount already counted in
-- customer_order.refunded_minor), then 'done' (with the provider's reference) or 'failed'
-- (the amount and units given back to what is refundable).
CREATE TABLE order_refund (
    tenant_id BIGINT NOT NULL,
    order_id TEXT NOT NULL,
    id TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    lines TEXT NOT NULL DEFAULT '[]',
    reason TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    reference TEXT,
    PRIMARY KEY (tenant_id, order_id, id),
    FOREIGN KEY (tenant_id, order_id) REFERENCES customer_order (tenant_id, id) ON DELETE CASCADE
);

-- What happened to an order, in order (seq per order): kind ('placed', 'paid', 'fulfilled',
-- 'cancelled', 'refunded', 'refund-failed', 'confirmation-resent', 'expired'), who did it
-- (an owner's email or a token's name; '' for the store itself) and what (JSON).
CREATE TABLE order_event (
    tenant_id BIGINT NOT NULL,
    order_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    kind TEXT NOT NULL,
    actor TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (tenant_id, order_id, seq),
    FOREIGN KEY (tenant_id, order_id) REFERENCES customer_order (tenant_id, id) ON DELETE CASCADE
);

-- The history of orders placed before: when each was placed, and when a pay-later one was
-- marked paid.
INSERT INTO order_event (tenant_id, order_id, seq, at_ms, kind, actor, data) SELECT tenant_id, id, 1, created_ms, 'placed', '', '{}' FROM customer_order;
INSERT INTO order_event (tenant_id, order_id, seq, at_ms, kind, actor, data) SELECT tenant_id, id, 2, paid_ms, 'paid', '', '{}' FROM customer_order WHERE paid_ms IS NOT NULL AND paid_ms > created_ms;
