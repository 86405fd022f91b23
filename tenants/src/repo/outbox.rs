//! The email outbox and spent captcha challenges (migration 5; its due index, migration 24).
//!
//! Mail is written in the same transaction as what it tells about (the callers pass it to
//! [`enqueue_in`]), so a committed submission, notice or order always has its message, and
//! a message never tells about something that was rolled back. The mailer (in `api`) takes
//! due messages with a lease, sends them, and marks them sent (a site's batch in one write)
//! or schedules a retry.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::{Row, Tx};
use crate::store::Store;

/// A message to send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Email {
    /// `form-submission`, `restock`, `order-confirmation`, `member-confirmation` or
    /// `member-existing`.
    pub kind: String,
    /// `Name <address>` or an address.
    pub from: String,
    /// An address.
    pub to: String,
    /// Where answers go (a form's submitter), when not to `from`.
    pub reply_to: Option<String>,
    /// The subject line.
    pub subject: String,
    /// The plain-text part (always there).
    pub text: String,
    /// The HTML part, when the template has one.
    pub html: Option<String>,
}

/// A message in the outbox.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedEmail {
    /// The site that sends it.
    pub tenant: TenantId,
    /// 24-hex id (also in its `Message-ID`).
    pub id: String,
    /// The message.
    pub email: Email,
    /// When it was put in the outbox (epoch ms).
    pub created_ms: i64,
    /// Tries so far (a claimed message counts its current try).
    pub attempts: i64,
    /// When the mail server took it.
    pub sent_ms: Option<i64>,
    /// Why the last try failed.
    pub last_error: Option<String>,
}

const COLUMNS: &str = "tenant_id, id, kind, mail_from, mail_to, reply_to, subject, text_body, \
                       html_body, created_ms, attempts, sent_ms, last_error";

fn queued_of(r: &Row) -> Result<QueuedEmail> {
    Ok(QueuedEmail {
        tenant: TenantId(r.i64(0)?),
        id: r.text(1)?,
        email: Email {
            kind: r.text(2)?,
            from: r.text(3)?,
            to: r.text(4)?,
            reply_to: r.opt_text(5)?,
            subject: r.text(6)?,
            text: r.text(7)?,
            html: r.opt_text(8)?,
        },
        created_ms: r.i64(9)?,
        attempts: r.i64(10)?,
        sent_ms: r.opt_i64(11)?,
        last_error: r.opt_text(12)?,
    })
}

/// Puts `email` in the outbox inside the caller's transaction; it is due at once.
pub(crate) async fn enqueue_in(tx: &mut Tx, tenant: TenantId, email: &Email) -> Result<String> {
    let id = new_id();
    let (sql, params) = enqueue_statement(tenant, &id, email);
    tx.execute(&sql, params).await?;
    Ok(id)
}

/// The statement [`enqueue_in`] runs for `email` under the outbox id `id`: for a caller that
/// sends it together with others (the order's emails with its commit,
/// [`crate::sql::Tx::commit_after`]).
pub(crate) fn enqueue_statement(
    tenant: TenantId,
    id: &str,
    email: &Email,
) -> (String, Vec<crate::sql::SqlValue>) {
    let now = now_ms();
    (
        "INSERT INTO email_outbox (tenant_id, id, kind, mail_from, mail_to, reply_to, subject, text_body, \
         html_body, created_ms, attempts, next_attempt_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $10)"
            .to_owned(),
        params![
            tenant,
            id,
            email.kind.as_str(),
            email.from.as_str(),
            email.to.as_str(),
            email.reply_to.as_deref(),
            email.subject.as_str(),
            email.text.as_str(),
            email.html.as_deref(),
            now
        ],
    )
}

impl Store {
    /// Puts one message in the outbox on its own.
    pub async fn enqueue_email(&self, tenant: TenantId, email: &Email) -> Result<String> {
        let mut tx = self.write().await?;
        let id = enqueue_in(&mut tx, tenant, email).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Takes up to `limit` due messages of each site that has some (the mailer serves the
    /// node) for `lease_ms`: until then no other mailer takes them; if this one dies, they
    /// are due again when the lease ends. Each taken message counts one more attempt.
    pub async fn claim_due_emails(&self, lease_ms: i64, limit: usize) -> Result<Vec<QueuedEmail>> {
        let now = now_ms();
        // Which sites have mail due (the one statement across sites, as the cart sweep's),
        // then each site's own. The sites with unsent mail are found by skipping through the
        // due index (migration 24) from one site to the next, one probe each, and each is
        // kept if it has a message due now (another probe): not by reading every unsent
        // message, most of whose index entries are, under a stream of orders, of row
        // versions already claimed or sent.
        let tenants: Vec<i64> = {
            let mut tx = self.read().await?;
            tx.query(
                "WITH RECURSIVE due_site (id) AS (\
                   SELECT MIN(tenant_id) FROM email_outbox WHERE sent_ms IS NULL \
                   UNION ALL \
                   SELECT (SELECT MIN(tenant_id) FROM email_outbox WHERE sent_ms IS NULL AND tenant_id > due_site.id) \
                   FROM due_site WHERE due_site.id IS NOT NULL) \
                 SELECT id FROM due_site WHERE id IS NOT NULL AND EXISTS (SELECT 1 FROM email_outbox \
                   WHERE tenant_id = due_site.id AND sent_ms IS NULL AND next_attempt_ms <= $1) \
                 ORDER BY id",
                params![now],
            )
            .await?
            .iter()
            .map(|r| r.i64(0))
            .collect::<Result<_>>()?
        };
        let mut taken = Vec::new();
        for tenant in tenants.into_iter().map(TenantId) {
            let due: Vec<String> = {
                let mut tx = self.read().await?;
                tx.query(
                    "SELECT id FROM email_outbox WHERE tenant_id = $1 AND sent_ms IS NULL AND next_attempt_ms <= $2 \
                     ORDER BY next_attempt_ms, id LIMIT $3",
                    params![tenant, now, limit as i64],
                )
                .await?
                .iter()
                .map(|r| r.text(0))
                .collect::<Result<_>>()?
            };
            if due.is_empty() {
                continue;
            }
            // One write for the site's batch, not one per message: each write is a commit
            // (a WAL flush), and checkouts share the disk with the mailer. A message another
            // mailer leased meanwhile no longer matches the conditions and is left out
            // (PostgreSQL re-checks them on the row it waited for).
            let mut p = params![tenant, now + lease_ms, now];
            let mut marks = Vec::with_capacity(due.len());
            for id in &due {
                p.push(id.as_str().into());
                marks.push(format!("${}", p.len()));
            }
            let mut tx = self.write().await?;
            let rows = tx
                .query(
                    &format!(
                        "UPDATE email_outbox SET next_attempt_ms = $2, attempts = attempts + 1 \
                         WHERE tenant_id = $1 AND id IN ({}) AND sent_ms IS NULL AND next_attempt_ms <= $3 \
                         RETURNING {COLUMNS}",
                        marks.join(", ")
                    ),
                    p,
                )
                .await?;
            tx.commit().await?;
            let mut batch = rows.iter().map(queued_of).collect::<Result<Vec<_>>>()?;
            // In the order they fell due, as read above.
            batch.sort_by_key(|q| due.iter().position(|id| *id == q.id));
            taken.extend(batch);
        }
        Ok(taken)
    }

    /// The mail server took the message.
    pub async fn email_sent(&self, tenant: TenantId, id: &str) -> Result<()> {
        self.emails_sent(tenant, &[id]).await
    }

    /// The mail server took these messages of one site: all marked sent in one write (one
    /// commit for a mailer's batch, not one per message). Nothing when `ids` is empty.
    pub async fn emails_sent(&self, tenant: TenantId, ids: &[&str]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut p = params![tenant, now_ms()];
        let mut marks = Vec::with_capacity(ids.len());
        for id in ids {
            p.push((*id).into());
            marks.push(format!("${}", p.len()));
        }
        let mut tx = self.write().await?;
        tx.execute(
            &format!(
                "UPDATE email_outbox SET sent_ms = $2, last_error = NULL WHERE tenant_id = $1 AND id IN ({})",
                marks.join(", ")
            ),
            p,
        )
        .await?;
        tx.commit().await
    }

    /// Sending failed: try again at `retry_at_ms`.
    pub async fn email_failed(
        &self,
        tenant: TenantId,
        id: &str,
        error: &str,
        retry_at_ms: i64,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE email_outbox SET next_attempt_ms = $3, last_error = $4 WHERE tenant_id = $1 AND id = $2 \
             AND sent_ms IS NULL",
            params![tenant, id, retry_at_ms, error],
        )
        .await?;
        tx.commit().await
    }

    /// A site's outbox, oldest first (sent and waiting).
    pub async fn outbox(&self, tenant: TenantId) -> Result<Vec<QueuedEmail>> {
        let mut tx = self.read().await?;
        tx.query(
            &format!(
                "SELECT {COLUMNS} FROM email_outbox WHERE tenant_id = $1 ORDER BY created_ms, id"
            ),
            params![tenant],
        )
        .await?
        .iter()
        .map(queued_of)
        .collect()
    }

    /// Marks a captcha challenge used; false when it already was (a replay).
    pub async fn spend_captcha(
        &self,
        tenant: TenantId,
        challenge_id: &str,
        expires_ms: i64,
    ) -> Result<bool> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "INSERT INTO captcha_spent (tenant_id, challenge_id, expires_ms) VALUES ($1, $2, $3) \
                 ON CONFLICT (tenant_id, challenge_id) DO NOTHING",
                params![tenant, challenge_id, expires_ms],
            )
            .await?;
        tx.commit().await?;
        Ok(n == 1)
    }

    /// Forgets spent challenges that have expired anyway, site by site; returns how many.
    pub async fn sweep_spent_captchas(&self) -> Result<u64> {
        self.sweep_expired("captcha_spent", "expires_ms", now_ms() - 1)
            .await
    }
}
