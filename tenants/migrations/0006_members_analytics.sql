-- Tessera storage schema, version 6: a site user's language (`POST
-- /api/site-users/account/locale`), the open cart each member keeps across devices, and the
-- referring host of an analytics event (the owner's "top referrers").
ALTER TABLE site_user ADD COLUMN locale TEXT;
CREATE INDEX cart_site_user ON cart (tenant_id, site_user_id);
ALTER TABLE analytics_event ADD COLUMN referrer TEXT;
