-- A member's carts are found by (tenant, member) (repo/commerce/member_carts.rs); most carts
-- are a visitor's, with no member, and every one of them was an entry under the same key
-- (tenant, NULL) that no query reads: one more index write per new cart, all on the same
-- leaf page. The index now holds members' carts only; lookups by a member (`site_user_id =
-- $2`) imply the condition on both backends.
DROP INDEX cart_site_user;
CREATE INDEX cart_site_user ON cart (tenant_id, site_user_id) WHERE site_user_id IS NOT NULL;
