//! The form submit flow (SPEC.md §8 "Form submission"): the form, its answers checked by
//! [`tenants::form_answers`], the captcha, then the submission key spent, the answers
//! saved, the notices to the form's storage addresses queued and, for a newsletter form, its
//! email put on the mailing list, all in one transaction; then the mailer is nudged. The
//! routes are [`crate::routes::forms`].

use std::net::IpAddr;
use std::time::Duration;

use serde_json::{Map, Value};
use tenants::form_answers::{self, Problems};
use tenants::{Form, Store, StoreError};

use super::captcha::{Captcha, Refusal};
use crate::email::Outbox;
use crate::http::site::Site;

/// How long a submission key works (it is asked for on submit, so minutes are plenty).
pub const KEY_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// Why a submission was not saved.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The site has no form with this id.
    #[error("the form is not configured")]
    NotConfigured,
    /// The answers do not pass the form's checks: the problems by field id.
    #[error("the answers do not pass the form's checks")]
    Answers(Problems),
    /// The form asks for a captcha and it did not pass.
    #[error("the captcha was refused: {0}")]
    Captcha(Refusal),
    /// The submission key is unknown, spent or expired.
    #[error("the submission key is unknown, spent or expired")]
    KeySpent,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the flow works with: the store, the captcha provider and the mailer's outbox.
#[derive(Clone, Copy)]
pub struct Forms<'a> {
    pub store: &'a Store,
    pub captcha: &'a Captcha,
    pub outbox: &'a Outbox,
}

/// What a visitor sent, whichever way it came.
pub struct Sent {
    /// A submission key, or none for a page post (the flow takes one itself).
    pub key: Option<String>,
    /// Field id → answer, as sent.
    pub answers: Map<String, Value>,
    /// The captcha token.
    pub captcha: Option<String>,
    /// The page it was sent from (stored with the answers, shown in the notice).
    pub page: Value,
}

/// The notice of a submission to write: to the form's storage address, about these
/// (checked) answers sent from `page`.
pub struct Notice<'a> {
    pub form: &'a Form,
    pub answers: &'a Map<String, Value>,
    pub page: &'a Value,
    pub to: &'a str,
}

/// Whether submissions must pass the captcha (`settings.captcha`).
pub fn wants_captcha(form: &Form) -> bool {
    form.settings.get("captcha").and_then(Value::as_bool) == Some(true)
}

/// Whether the form signs its visitor up for the mailing list (`settings.newsletter`).
pub fn is_newsletter(form: &Form) -> bool {
    form.settings.get("newsletter").and_then(Value::as_bool) == Some(true)
}

/// Where the form's submissions are mailed (`settings.storage.emails`, the builder's
/// recipients, or an older form's single `settings.storage.email`): the addresses the
/// mailer can send to.
pub fn storage_addresses(form: &Form) -> Vec<&str> {
    let Some(storage) = form.settings.get("storage") else {
        return Vec::new();
    };
    let listed = storage
        .get("emails")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>());
    let single = storage.get("email").and_then(Value::as_str);
    listed
        .unwrap_or_else(|| single.into_iter().collect())
        .into_iter()
        .filter(|a| form_answers::email_ok(a))
        .collect()
}

/// The answers to store, or every field's problem.
pub fn check_answers(
    form: &Form,
    sent: &Map<String, Value>,
) -> Result<Map<String, Value>, SubmitError> {
    form_answers::check(&form.fields, sent).map_err(SubmitError::Answers)
}

impl Forms<'_> {
    /// The site's form `id`.
    pub async fn form(&self, site: &Site, id: &str) -> Result<Form, SubmitError> {
        self.store
            .form(site.tenant.id, id)
            .await?
            .ok_or(SubmitError::NotConfigured)
    }

    /// A fresh submission key of the site: single use, for [`KEY_LIFETIME`].
    pub async fn new_key(&self, site: &Site) -> Result<String, StoreError> {
        self.store
            .create_submission_key(site.tenant.id, KEY_LIFETIME.as_millis() as i64)
            .await
    }

    /// Checks and stores a submission to `form` of `site` by the visitor at `client`: its
    /// answers, then its captcha, then the key (single use; a page post is given one), the
    /// answers, a notice to each storage address (written once by `notice`) and, for a
    /// newsletter form, its email on the mailing list, in one transaction. Whether the form is a newsletter's.
    pub async fn submit(
        &self,
        site: &Site,
        client: IpAddr,
        form: &Form,
        sent: Sent,
        notice: impl AsyncFnOnce(Notice<'_>) -> tenants::Email,
    ) -> Result<bool, SubmitError> {
        let answers = check_answers(form, &sent.answers)?;
        if wants_captcha(form) {
            self.captcha
                .check(self.store, site, client, sent.captcha.as_deref())
                .await
                .map_err(SubmitError::Captcha)?;
        }
        let key = match sent.key {
            Some(k) => k,
            None => self.new_key(site).await?,
        };
        // One notice, written once, to each address.
        let to = storage_addresses(form);
        let mut mails = Vec::new();
        if let Some(first) = to.first() {
            let mail = notice(Notice {
                form,
                answers: &answers,
                page: &sent.page,
                to: first,
            })
            .await;
            for other in &to[1..] {
                let mut m = mail.clone();
                m.to = (*other).to_owned();
                mails.push(m);
            }
            mails.insert(0, mail);
        }
        let stored = Value::Object(answers.clone());
        let newsletter = is_newsletter(form);
        let subscriber = newsletter
            .then(|| form_answers::first_email(&form.fields, &answers))
            .flatten();
        let saved = self
            .store
            .save_submission(
                site.tenant.id,
                &key,
                &form.id,
                &stored,
                &sent.page,
                &mails,
                subscriber.as_deref(),
            )
            .await;
        match saved {
            Ok(_) => {}
            Err(StoreError::Invalid(_)) => return Err(SubmitError::KeySpent),
            Err(StoreError::NotFound(_)) => return Err(SubmitError::NotConfigured),
            Err(e) => return Err(e.into()),
        }
        if !mails.is_empty() {
            self.outbox.nudge();
        }
        Ok(newsletter)
    }
}
