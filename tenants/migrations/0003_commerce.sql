-- Tessera storage schema, version 3: the store sells. Checkout state on carts (kind,
-- revision, stock holds, shipping location and option, coupons), richer orders (payment,
-- addresses, gift-card share), gift cards, subscriptions, digital files, and each tenant's
-- signing secret. Plain SQL that both backends accept (`@BYTES@` as in version 1).

-- The key this tenant's cookies, crumbs, cart tokens and download links are signed with
-- (hex, 32 random bytes). Made on first use; shared by every node through the database.
CREATE TABLE tenant_secret (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenant (id) ON DELETE CASCADE,
    secret TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

-- Shipping weight of one unit, for by-weight shipping rates.
ALTER TABLE product_variant ADD COLUMN weight_grams BIGINT NOT NULL DEFAULT 0;

-- kind: 'cart' (the visitor's cart) or 'subscription' (one subscription product, reached by
-- its cart token). revision counts changes (cached cart summaries are keyed by it). held:
-- some entry holds stock (the abandoned-cart sweep looks only at these).
ALTER TABLE cart ADD COLUMN kind TEXT NOT NULL DEFAULT 'cart';
ALTER TABLE cart ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE cart ADD COLUMN held BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE cart ADD COLUMN shipping_country TEXT;
ALTER TABLE cart ADD COLUMN shipping_region TEXT;
ALTER TABLE cart ADD COLUMN shipping_postal_code TEXT;
ALTER TABLE cart ADD COLUMN shipping_option_id TEXT;
CREATE INDEX cart_holding_stock ON cart (updated_ms) WHERE held;

-- held: the entry's units are taken from stock (until the cart is abandoned; checkout takes
-- them again if they were given back). attributes: the chosen variant's options (JSON).
ALTER TABLE cart_entry ADD COLUMN held BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE cart_entry ADD COLUMN weight_grams BIGINT NOT NULL DEFAULT 0;
ALTER TABLE cart_entry ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}';

CREATE TABLE cart_coupon (
    tenant_id BIGINT NOT NULL,
    cart_id TEXT NOT NULL,
    code TEXT NOT NULL,
    added_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, cart_id, code),
    FOREIGN KEY (tenant_id, cart_id) REFERENCES cart (tenant_id, id) ON DELETE CASCADE
);

-- kind: 'order' or 'subscription'. status: 'paid' or 'awaiting-payment' (a manual payment
-- method). gift_card_minor: the part of the grand total paid with gift cards. details:
-- addresses, shipping option, payment method, coupons and tax rules as JSON.
ALTER TABLE customer_order ADD COLUMN kind TEXT NOT NULL DEFAULT 'order';
ALTER TABLE customer_order ADD COLUMN gift_card_minor BIGINT NOT NULL DEFAULT 0;
ALTER TABLE customer_order ADD COLUMN paid_ms BIGINT;
ALTER TABLE customer_order ADD COLUMN details TEXT NOT NULL DEFAULT '{}';

ALTER TABLE order_line ADD COLUMN product_type BIGINT NOT NULL DEFAULT 1;
ALTER TABLE order_line ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}';
ALTER TABLE order_line ADD COLUMN additional_fields TEXT;

-- A gift card bought in this store; `order_id`/`line_position` name the order line that
-- bought it. Spent by later checkouts; the balance never goes below zero.
CREATE TABLE gift_card (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    code TEXT NOT NULL,
    currency TEXT NOT NULL,
    initial_minor BIGINT NOT NULL,
    balance_minor BIGINT NOT NULL CHECK (balance_minor >= 0),
    order_id TEXT NOT NULL,
    line_position BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, code)
);
CREATE INDEX gift_card_by_order ON gift_card (tenant_id, order_id);

-- What an order paid with a gift card.
CREATE TABLE gift_card_use (
    tenant_id BIGINT NOT NULL,
    code TEXT NOT NULL,
    order_id TEXT NOT NULL,
    amount_minor BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, code, order_id),
    FOREIGN KEY (tenant_id, code) REFERENCES gift_card (tenant_id, code) ON DELETE CASCADE
);

-- A subscription started by an order: its plan (billing period and cycles, 0 = never ends)
-- and when it bills next.
CREATE TABLE subscription (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    sku TEXT NOT NULL,
    quantity BIGINT NOT NULL,
    currency TEXT NOT NULL,
    unit_price_minor BIGINT NOT NULL,
    period_value BIGINT NOT NULL,
    period_unit TEXT NOT NULL,
    num_billing_cycles BIGINT NOT NULL,
    cycles_billed BIGINT NOT NULL,
    next_billing_ms BIGINT,
    status TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, order_id, item_id, sku)
);

-- The file a digital product delivers.
CREATE TABLE digital_file (
    tenant_id BIGINT NOT NULL,
    item_id TEXT NOT NULL,
    file_name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    content @BYTES@ NOT NULL,
    PRIMARY KEY (tenant_id, item_id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES item (tenant_id, id) ON DELETE CASCADE
);
