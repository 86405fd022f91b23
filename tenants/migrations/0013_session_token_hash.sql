-- A member's session token (the `tessera-member` cookie) is a bearer secret: the store now
-- keeps only its SHA-256 (hex), as it does for the owner API's tokens and the sign-up
-- links, so a copy of the table cannot sign anyone in. The tokens stored before cannot be
-- told from their hashes, so they are dropped: every member is signed out once.
DELETE FROM site_session;
ALTER TABLE site_session RENAME COLUMN token TO token_hash;
