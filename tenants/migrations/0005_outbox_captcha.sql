-- Tessera storage schema, version 5: the email outbox and spent captcha challenges. Plain
-- SQL that both backends accept.

-- Every email the sites send: written in the same transaction as what it tells about (a
-- form submission, a restock notice, an order), sent afterwards by the mailer, which
-- retries with back-off until the mail server takes it. A message is never lost to a
-- crash: until `sent_ms` is set it is sent again.
CREATE TABLE email_outbox (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    -- 'form-submission', 'restock' or 'order-confirmation'.
    kind TEXT NOT NULL,
    mail_from TEXT NOT NULL,
    mail_to TEXT NOT NULL,
    reply_to TEXT,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT,
    created_ms BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    -- When the mailer may (next) try it; a mailer that takes it moves this past its lease,
    -- so two nodes never send one message at once.
    next_attempt_ms BIGINT NOT NULL,
    sent_ms BIGINT,
    last_error TEXT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX email_outbox_due ON email_outbox (next_attempt_ms) WHERE sent_ms IS NULL;

-- Captcha challenges already used: a solved challenge works once, on whichever node.
CREATE TABLE captcha_spent (
    tenant_id BIGINT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    challenge_id TEXT NOT NULL,
    -- After this the challenge has expired anyway and the row can go.
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, challenge_id)
);
