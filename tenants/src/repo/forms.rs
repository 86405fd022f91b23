//! Forms, single-use submission keys, submissions and the site's mailing list.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

/// A site form (SPEC "Form": fields, submission message, redirect, disclaimer, captcha).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Form {
    /// 24-hex id (generated when empty).
    #[serde(default)]
    pub id: String,
    /// Name.
    pub name: String,
    /// Field definitions (array of `{ id, type, title, required, ... }`).
    #[serde(default)]
    pub fields: Value,
    /// submissionMessage, submissionHtml, successRedirect, disclaimer, captcha ...
    #[serde(default)]
    pub settings: Map<String, Value>,
}

/// A stored submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormSubmission {
    /// 24-hex id.
    pub id: String,
    /// The form.
    pub form_id: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// Field id → value.
    pub answers: Value,
    /// pageTitle, pageId, contentSource, pagePath ...
    pub page: Value,
}

/// An address on a site's mailing list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscriber {
    /// Lower-cased.
    pub email: String,
    /// What added it: `form:<form id>` or `restock`.
    pub source: String,
    /// Epoch ms.
    pub created_ms: i64,
}

/// A form from a row of `id, name, fields, settings`.
fn form_of(r: &crate::sql::Row) -> Result<Form> {
    Ok(Form {
        id: r.text(0)?,
        name: r.text(1)?,
        fields: r.json(2)?,
        settings: r.json(3)?,
    })
}

pub(crate) async fn put_form_in(tx: &mut Tx, tenant: TenantId, form: &Form) -> Result<String> {
    let id = if form.id.is_empty() {
        new_id()
    } else {
        form.id.clone()
    };
    tx.execute(
        "INSERT INTO form (tenant_id, id, name, fields, settings) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (tenant_id, id) DO UPDATE SET name = EXCLUDED.name, fields = EXCLUDED.fields, settings = EXCLUDED.settings",
        params![tenant, id.as_str(), form.name.as_str(), &form.fields, serde_json::to_string(&form.settings)?],
    )
    .await?;
    Ok(id)
}

impl Store {
    /// Creates or replaces a form; returns its id.
    pub async fn put_form(&self, tenant: TenantId, form: &Form) -> Result<String> {
        let mut tx = self.write().await?;
        let id = put_form_in(&mut tx, tenant, form).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(id)
    }

    /// Deletes a form and its submissions (a content change: a page's block that shows it
    /// then answers "This form has not been configured yet."). Subscribers it signed up stay
    /// on the mailing list. Whether there was such a form.
    pub async fn delete_form(&self, tenant: TenantId, id: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        tx.execute(
            "DELETE FROM form_submission WHERE tenant_id = $1 AND form_id = $2",
            params![tenant, id],
        )
        .await?;
        let gone = tx
            .execute(
                "DELETE FROM form WHERE tenant_id = $1 AND id = $2",
                params![tenant, id],
            )
            .await?;
        if gone == 0 {
            return Ok(false);
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(true)
    }

    /// One form.
    pub async fn form(&self, tenant: TenantId, id: &str) -> Result<Option<Form>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                "SELECT id, name, fields, settings FROM form WHERE tenant_id = $1 AND id = $2",
                params![tenant, id],
            )
            .await?;
        row.as_ref().map(form_of).transpose()
    }

    /// Issues a single-use submission key valid for `ttl_ms` (SPEC `FormSubmissionKey`).
    pub async fn create_submission_key(&self, tenant: TenantId, ttl_ms: i64) -> Result<String> {
        let key = format!("{}{}", new_id(), new_id());
        let now = now_ms();
        let mut tx = self.write().await?;
        tx.execute(
            "INSERT INTO form_submission_key (tenant_id, submission_key, created_ms, expires_ms) VALUES ($1, $2, $3, $4)",
            params![tenant, key.as_str(), now, now + ttl_ms],
        )
        .await?;
        tx.commit().await?;
        Ok(key)
    }

    /// Stores a submission, consuming its key in the same transaction: a key works once,
    /// before it expires, for its own tenant only. `Invalid` for a bad key, `NotFound` for
    /// an unknown form. `mails` (the notices to the form's storage addresses) go into the
    /// outbox, and `subscriber` (a newsletter form's email) onto the site's mailing list,
    /// in the same transaction: all of it is saved, or none.
    #[allow(clippy::too_many_arguments)]
    pub async fn save_submission(
        &self,
        tenant: TenantId,
        key: &str,
        form_id: &str,
        answers: &Value,
        page: &Value,
        mails: &[crate::Email],
        subscriber: Option<&str>,
    ) -> Result<FormSubmission> {
        let now = now_ms();
        let mut tx = self.write().await?;
        if tx
            .query_opt(
                "SELECT 1 FROM form WHERE tenant_id = $1 AND id = $2",
                params![tenant, form_id],
            )
            .await?
            .is_none()
        {
            return Err(StoreError::NotFound(format!("form {form_id}")));
        }
        let used = tx
            .execute(
                "UPDATE form_submission_key SET used_ms = $3 WHERE tenant_id = $1 AND submission_key = $2 \
                 AND used_ms IS NULL AND expires_ms > $3",
                params![tenant, key, now],
            )
            .await?;
        if used == 0 {
            return Err(StoreError::Invalid(
                "the form submission key is unknown, used or expired".into(),
            ));
        }
        let sub = FormSubmission {
            id: new_id(),
            form_id: form_id.to_owned(),
            created_ms: now,
            answers: answers.clone(),
            page: page.clone(),
        };
        tx.execute(
            "INSERT INTO form_submission (tenant_id, id, form_id, submission_key, created_ms, answers, page) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            params![tenant, sub.id.as_str(), form_id, key, now, answers, page],
        )
        .await?;
        for mail in mails {
            super::outbox::enqueue_in(&mut tx, tenant, mail).await?;
        }
        // A newsletter form's email joins the list in the same transaction: a failure here
        // must not leave the answer saved and the key spent, or the visitor's retry is
        // refused for a key they never got to use.
        if let Some(email) = subscriber {
            tx.execute(
                "INSERT INTO mailing_list_subscriber (tenant_id, email, source, created_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (tenant_id, email) DO NOTHING",
                params![tenant, email.trim().to_lowercase().as_str(), format!("form:{form_id}").as_str(), now],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(sub)
    }

    /// A form's submissions, oldest first.
    pub async fn form_submissions(
        &self,
        tenant: TenantId,
        form_id: &str,
    ) -> Result<Vec<FormSubmission>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT id, form_id, created_ms, answers, page FROM form_submission \
                 WHERE tenant_id = $1 AND form_id = $2 ORDER BY created_ms, id",
                params![tenant, form_id],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(FormSubmission {
                    id: r.text(0)?,
                    form_id: r.text(1)?,
                    created_ms: r.i64(2)?,
                    answers: r.json(3)?,
                    page: r.json(4)?,
                })
            })
            .collect()
    }

    /// How many submissions each of the site's forms has (forms without any are left out):
    /// one grouped count, for the owner's list of forms.
    pub async fn form_submission_counts(
        &self,
        tenant: TenantId,
    ) -> Result<std::collections::HashMap<String, u64>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT form_id, COUNT(*) FROM form_submission WHERE tenant_id = $1 GROUP BY form_id",
                params![tenant],
            )
            .await?;
        rows.iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?.max(0) as u64)))
            .collect()
    }

    /// The site's mailing list, oldest first.
    pub async fn subscribers(&self, tenant: TenantId) -> Result<Vec<Subscriber>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT email, source, created_ms FROM mailing_list_subscriber WHERE tenant_id = $1 ORDER BY created_ms, email",
                params![tenant],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(Subscriber {
                    email: r.text(0)?,
                    source: r.text(1)?,
                    created_ms: r.i64(2)?,
                })
            })
            .collect()
    }

    /// The site's forms, by name.
    pub async fn forms(&self, tenant: TenantId) -> Result<Vec<Form>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT id, name, fields, settings FROM form WHERE tenant_id = $1 ORDER BY name, id",
                params![tenant],
            )
            .await?;
        rows.iter().map(form_of).collect()
    }
}
