-- A cart line is a variant with its additional-fields answers: the same variant with other
-- answers (another engraving) is a line of its own (issue 40, finding 14), so (cart, item,
-- sku) is no longer unique. PostgreSQL drops the constraint; SQLite, which cannot drop one,
-- copies the table into one without it. Both keep an index for a cart's lines.
@PG@ ALTER TABLE cart_entry DROP CONSTRAINT cart_entry_tenant_id_cart_id_item_id_sku_key;
@SQLITE@ CREATE TABLE cart_entry_lines (tenant_id BIGINT NOT NULL, id TEXT NOT NULL, cart_id TEXT NOT NULL, item_id TEXT NOT NULL, sku TEXT NOT NULL, quantity BIGINT NOT NULL CHECK (quantity > 0), title TEXT NOT NULL, product_type BIGINT NOT NULL, currency TEXT NOT NULL, unit_price_minor BIGINT NOT NULL, additional_fields TEXT, added_ms BIGINT NOT NULL, held BOOLEAN NOT NULL DEFAULT TRUE, weight_grams BIGINT NOT NULL DEFAULT 0, attributes TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (tenant_id, id), FOREIGN KEY (tenant_id, cart_id) REFERENCES cart (tenant_id, id) ON DELETE CASCADE);
@SQLITE@ INSERT INTO cart_entry_lines (tenant_id, id, cart_id, item_id, sku, quantity, title, product_type, currency, unit_price_minor, additional_fields, added_ms, held, weight_grams, attributes) SELECT tenant_id, id, cart_id, item_id, sku, quantity, title, product_type, currency, unit_price_minor, additional_fields, added_ms, held, weight_grams, attributes FROM cart_entry;
@SQLITE@ DROP TABLE cart_entry;
@SQLITE@ ALTER TABLE cart_entry_lines RENAME TO cart_entry;
CREATE INDEX cart_entry_by_cart ON cart_entry (tenant_id, cart_id, item_id, sku);
