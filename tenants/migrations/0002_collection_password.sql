-- Tessera storage schema, version 2: password-protected collections (lock screens, page
-- type 103). The column holds an Argon2id PHC string, never the password itself; NULL means
-- the collection is public. Plain SQL that both backends accept.

ALTER TABLE collection ADD COLUMN password_hash TEXT;
