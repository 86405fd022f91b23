-- Tessera storage schema, version 1.
-- One text for both backends: `@AUTOID@` and `@BYTES@` are replaced per dialect
-- (PostgreSQL: identity BIGINT / BYTEA; SQLite: INTEGER PRIMARY KEY AUTOINCREMENT / BLOB).
-- Portable types only: BIGINT (money in minor units, instants in epoch ms), BOOLEAN, TEXT
-- (JSON documents are TEXT). Every table but `tenant` has tenant_id leading its primary key.

CREATE TABLE tenant (
    id @AUTOID@,
    identifier TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    status BIGINT NOT NULL,
    content_version BIGINT NOT NULL DEFAULT 1,
    template_version BIGINT,
    order_seq BIGINT NOT NULL DEFAULT 0,
    created_ms BIGINT NOT NULL
);

CREATE TABLE tenant_domain (
    host TEXT PRIMARY KEY,
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    is_primary BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX tenant_domain_by_tenant ON tenant_domain (tenant_id);

CREATE TABLE site_settings (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenant (id) ON DELETE CASCADE,
    website TEXT NOT NULL,
    website_settings TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE TABLE template_version (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, version)
);

CREATE TABLE template_file (
    tenant_id BIGINT NOT NULL,
    version BIGINT NOT NULL,
    path TEXT NOT NULL,
    content @BYTES@ NOT NULL,
    PRIMARY KEY (tenant_id, version, path),
    FOREIGN KEY (tenant_id, version) REFERENCES template_version (tenant_id, version) ON DELETE CASCADE
);

CREATE TABLE collection (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    url_id TEXT NOT NULL,
    title TEXT NOT NULL,
    navigation_title TEXT NOT NULL,
    description TEXT NOT NULL,
    kind BIGINT NOT NULL,
    type_name TEXT NOT NULL,
    ordering TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    homepage BOOLEAN NOT NULL,
    parent_id TEXT,
    position BIGINT NOT NULL,
    page_size BIGINT,
    data TEXT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, url_id)
);

CREATE TABLE item (
    tenant_id BIGINT NOT NULL,
    id TEXT NOT NULL,
    collection_id TEXT NOT NULL,
    url_id TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    excerpt TEXT NOT NULL,
    record_type BIGINT NOT NULL,
    product_type BIGINT,
    starred BOOLEAN NOT NULL,
    author TEXT,
    added_on BIGINT NOT NULL,
    publish_on BIGINT NOT NULL,
    updated_on BIGINT NOT NULL,
    start_date BIGINT,
    end_date BIGINT,
    position BIGINT NOT NULL,
    structured_content TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, collection_id, url_id),
    FOREIGN KEY (tenant_id, collection_id) REFERENCES collection (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX item_by_collection ON item (tenant_id, collection_id, position);

CREATE TABLE item_category (
    tenant_id BIGINT NOT NULL,
    item_id TEXT NOT NULL,
    name TEXT NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, item_id, name),
    FOREIGN KEY (tenant_id, item_id) REFERENCES item (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE item_tag (
    tenant_id BIGINT NOT NULL,
    item_id TEXT NOT NULL,
    name TEXT NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, item_id, name),
    FOREIGN KEY (tenant_id, item_id) REFERENCES item (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE category (
    tenant_id BIGINT NOT NULL,
    id TEXT NOT NULL,
    collection_id TEXT NOT NULL,
    display_name TEXT NOT NULL,
    parent_id TEXT,
    kind TEXT NOT NULL,
    page_rendering TEXT NOT NULL,
    display_index BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, collection_id) REFERENCES collection (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE product_variant (
    tenant_id BIGINT NOT NULL,
    item_id TEXT NOT NULL,
    sku TEXT NOT NULL,
    position BIGINT NOT NULL,
    attributes TEXT NOT NULL,
    currency TEXT NOT NULL,
    price_minor BIGINT NOT NULL,
    sale_price_minor BIGINT NOT NULL,
    on_sale BOOLEAN NOT NULL,
    qty_in_stock BIGINT NOT NULL CHECK (qty_in_stock >= 0),
    unlimited BOOLEAN NOT NULL,
    PRIMARY KEY (tenant_id, item_id, sku),
    FOREIGN KEY (tenant_id, item_id) REFERENCES item (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE navigation (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    items TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
);

CREATE TABLE header_footer (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenant (id) ON DELETE CASCADE,
    header TEXT NOT NULL,
    footer TEXT NOT NULL
);

CREATE TABLE commerce_preference (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    namespace TEXT NOT NULL,
    preferences TEXT NOT NULL,
    PRIMARY KEY (tenant_id, namespace)
);

CREATE TABLE multilingual_settings (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenant (id) ON DELETE CASCADE,
    settings TEXT NOT NULL
);

CREATE TABLE cart (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    purchased BOOLEAN NOT NULL,
    order_id TEXT,
    site_user_id TEXT,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE cart_entry (
    tenant_id BIGINT NOT NULL,
    id TEXT NOT NULL,
    cart_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    sku TEXT NOT NULL,
    quantity BIGINT NOT NULL CHECK (quantity > 0),
    title TEXT NOT NULL,
    product_type BIGINT NOT NULL,
    currency TEXT NOT NULL,
    unit_price_minor BIGINT NOT NULL,
    additional_fields TEXT,
    added_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, cart_id, item_id, sku),
    FOREIGN KEY (tenant_id, cart_id) REFERENCES cart (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE customer_order (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    order_number BIGINT NOT NULL,
    cart_id TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    currency TEXT NOT NULL,
    subtotal_minor BIGINT NOT NULL,
    tax_minor BIGINT NOT NULL,
    shipping_minor BIGINT NOT NULL,
    discount_minor BIGINT NOT NULL,
    grand_total_minor BIGINT NOT NULL,
    customer_email TEXT NOT NULL,
    status TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, order_number),
    UNIQUE (tenant_id, cart_id)
);

CREATE TABLE order_line (
    tenant_id BIGINT NOT NULL,
    order_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    item_id TEXT NOT NULL,
    sku TEXT NOT NULL,
    product_name TEXT NOT NULL,
    quantity BIGINT NOT NULL,
    unit_price_minor BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, order_id, position),
    FOREIGN KEY (tenant_id, order_id) REFERENCES customer_order (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE form (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    fields TEXT NOT NULL,
    settings TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE form_submission_key (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    submission_key TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    used_ms BIGINT,
    PRIMARY KEY (tenant_id, submission_key)
);

CREATE TABLE form_submission (
    tenant_id BIGINT NOT NULL,
    id TEXT NOT NULL,
    form_id TEXT NOT NULL,
    submission_key TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    answers TEXT NOT NULL,
    page TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, submission_key),
    FOREIGN KEY (tenant_id, form_id) REFERENCES form (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX form_submission_by_form ON form_submission (tenant_id, form_id, created_ms);

CREATE TABLE restock_signup (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    sku TEXT NOT NULL,
    email TEXT NOT NULL,
    join_mailing_list BOOLEAN NOT NULL,
    language TEXT,
    created_ms BIGINT NOT NULL,
    notified_ms BIGINT,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, item_id, sku, email)
);

CREATE TABLE site_user (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    email TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    display_name TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, email)
);

CREATE TABLE site_session (
    tenant_id BIGINT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT NOT NULL,
    xsrf_token TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, token),
    FOREIGN KEY (tenant_id, user_id) REFERENCES site_user (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE analytics_event (
    id @AUTOID@,
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    occurred_ms BIGINT NOT NULL,
    name TEXT NOT NULL,
    page_path TEXT NOT NULL,
    visitor_id TEXT,
    data TEXT NOT NULL
);
CREATE INDEX analytics_event_by_tenant ON analytics_event (tenant_id, occurred_ms);

CREATE TABLE performance_record (
    id @AUTOID@,
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    page_load_id TEXT NOT NULL,
    app TEXT NOT NULL,
    event TEXT NOT NULL,
    ts_ms BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX performance_record_by_tenant ON performance_record (tenant_id, ts_ms);
