-- Paid member areas (issue 44): a member who joined an area by buying its plan product keeps
-- the order that granted it, so cancelling or refunding that order (or cancelling the
-- subscription it started) ends the membership. NULL for an area joined for free (or
-- imported).
ALTER TABLE site_user_area ADD COLUMN order_id TEXT;
CREATE INDEX site_user_area_by_order ON site_user_area (tenant_id, order_id);
