-- The mailer reads the outbox site by site (repo/outbox.rs): which sites have unsent mail,
-- then each site's due messages in the order they fell due. The due index of migration 5
-- had no site in it, so each of those reads walked every site's due entries, and under a
-- steady stream of orders most of them were entries of row versions already claimed or
-- sent (each message is written three times within a second: queued, claimed, sent). The
-- index now starts with the site: the sites are found by skipping from one to the next,
-- and a site's due messages are one range of it, in due order with the id as the tie.
DROP INDEX email_outbox_due;
CREATE INDEX email_outbox_due ON email_outbox (tenant_id, next_attempt_ms, id) WHERE sent_ms IS NULL;
