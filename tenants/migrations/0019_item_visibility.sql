-- An item's visibility (issue 43): `visible` (every item before), `hidden` (a draft only the
-- owner sees) or `scheduled` (hidden until its publish_on, shown from then on).
ALTER TABLE item ADD COLUMN visibility TEXT NOT NULL DEFAULT 'visible';
