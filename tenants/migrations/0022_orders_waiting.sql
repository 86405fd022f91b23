-- Orders waiting for their number (placed under a provisional, negative one and not yet
-- numbered in a group: see repo/commerce/numbering.rs). Few at any time, so a small
-- partial index lets the start-up and minute sweeps find them without reading every order.
CREATE INDEX customer_order_waiting ON customer_order (tenant_id, created_ms) WHERE order_number < 0;
