//! Restock ("back in stock") flows (SPEC.md §3 "Restock signup", §5 "Restock"): a
//! visitor's sign-up for a sold-out variant (the address, the captcha, the store's
//! preferences and the live stock checked, then the sign-up stored), and the owner's
//! sending of the notices, once per signer, through the outbox. The routes are
//! [`crate::routes::restock`].

use std::net::IpAddr;

use template_lang::value::Node;
use tenants::{Store, StoreError, TenantId};

use super::captcha::{Captcha, Refusal};
use crate::email::Outbox;
use crate::http::site::Site;

/// An address the mailer can send the restock notice to
/// ([`tenants::email_address::deliverable`]), with SPEC.md §5's 2-4 letter (ASCII)
/// top-level part on top.
pub fn restock_email_ok(email: &str) -> bool {
    let Some(email) = tenants::email_address::deliverable(email) else {
        return false;
    };
    email.rsplit_once('.').is_some_and(|(_, tld)| {
        (2..=4).contains(&tld.len()) && tld.bytes().all(|b| b.is_ascii_alphabetic())
    })
}

/// A visitor's sign-up as sent.
pub struct Wish<'a> {
    pub product_id: &'a str,
    /// The variant's sku.
    pub variant_id: &'a str,
    pub email: Option<&'a str>,
    pub join_mailing_list: bool,
    pub captcha: Option<&'a str>,
    pub language: Option<&'a str>,
}

/// Why a sign-up was not taken.
#[derive(Debug, thiserror::Error)]
pub enum SignUpError {
    #[error("no email was given")]
    EmailBlank,
    #[error("the email is not one the notice can be sent to")]
    EmailInvalid,
    #[error("the language is not a language tag")]
    Language,
    #[error("the captcha was refused: {0}")]
    Captcha(Refusal),
    /// The site has no such product, or the product no such variant.
    #[error("the site has no such variant")]
    UnknownVariant,
    /// The product does not take sign-ups.
    #[error("the product does not take restock sign-ups")]
    NotEnabled,
    /// The variant is in stock (live stock, not the page's).
    #[error("the variant is in stock")]
    InStock,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A product's merchandising preference (`restockNotificationsEnabled` ...).
fn merchandising_flag(site: &Site, product_id: &str, key: &str) -> bool {
    site.content
        .render
        .merchandising
        .pointer(&[product_id, key])
        .is_some_and(|n| match n {
            Node::Bool(b) => *b,
            Node::Array(a) => !a.is_empty(),
            _ => false,
        })
}

/// A language tag as a sign-up may give it: 1-35 letters, digits and dashes.
fn language_ok(lang: &str) -> bool {
    !lang.is_empty()
        && lang.len() <= 35
        && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Takes a visitor's sign-up on `site` (the visitor at `client`): the address, the
/// language, the captcha, then whether the product takes sign-ups and the variant is sold
/// out right now; the mailing list is joined only where the product offers it.
pub async fn sign_up(
    store: &Store,
    captcha: &Captcha,
    site: &Site,
    client: IpAddr,
    w: Wish<'_>,
) -> Result<(), SignUpError> {
    let email = w.email.unwrap_or("").trim();
    if email.is_empty() {
        return Err(SignUpError::EmailBlank);
    }
    if !restock_email_ok(email) {
        return Err(SignUpError::EmailInvalid);
    }
    if w.language.is_some_and(|l| !language_ok(l)) {
        return Err(SignUpError::Language);
    }
    captcha
        .check(store, site, client, w.captcha)
        .await
        .map_err(SignUpError::Captcha)?;
    let t = site.tenant.id;
    // The product page only offers sign-ups when the store takes them, for variants that
    // are sold out right now (live stock, not the page's).
    if site
        .content
        .render
        .merchandising
        .pointer(&[w.product_id])
        .is_none()
    {
        return Err(SignUpError::UnknownVariant);
    }
    if !merchandising_flag(site, w.product_id, "restockNotificationsEnabled") {
        return Err(SignUpError::NotEnabled);
    }
    let stock = store.stock(t, w.product_id).await?;
    match stock.iter().find(|l| l.sku == w.variant_id) {
        None => return Err(SignUpError::UnknownVariant),
        Some(l) if l.unlimited || l.qty_in_stock > 0 => return Err(SignUpError::InStock),
        Some(_) => {}
    }
    let join =
        w.join_mailing_list && merchandising_flag(site, w.product_id, "mailingListSignUpEnabled");
    // Stored only if still sold out, checked again under the variant's lock: a raise at
    // this moment either comes first (the variant is in stock) or finds the sign-up.
    match store
        .restock_signup_if_sold_out(t, w.product_id, w.variant_id, email, join, w.language)
        .await
    {
        Ok(_) => Ok(()),
        Err(StoreError::NotFound(_)) => Err(SignUpError::UnknownVariant),
        Err(StoreError::Conflict(_)) => Err(SignUpError::InStock),
        Err(e) => Err(e.into()),
    }
}

/// Emails every waiting signer of each variant `(product id, sku)` of `tenant` (once
/// each) and marks them notified, variant by variant: `notice` is a variant's email, the
/// same words for every signer, only the address differs. How many went out per variant;
/// the first store failure stops the sending (what went before stays sent).
pub async fn send_notices(
    store: &Store,
    outbox: &Outbox,
    tenant: TenantId,
    variants: &[(&str, &str)],
    notice: impl Fn(&str, &str) -> tenants::Email,
) -> Result<Vec<u64>, StoreError> {
    let mut counts = Vec::with_capacity(variants.len());
    for &(product, sku) in variants {
        let template = notice(product, sku);
        let sent = store
            .send_restock_notices(tenant, product, sku, |s| {
                Some(tenants::Email {
                    to: s.email.clone(),
                    ..template.clone()
                })
            })
            .await?;
        if sent > 0 {
            outbox.nudge();
        }
        counts.push(sent);
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restock_emails_follow_spec_rules() {
        for ok in ["a@b.co", "ann.lee+shop@example.test", "x@mail.example.info"] {
            assert!(restock_email_ok(ok), "{ok}");
        }
        let long = format!("{}@example.com", "a".repeat(250));
        for bad in [
            "",
            "a@",
            "@b.co",
            "a@b",
            "a@b.c",
            "a@b.museum",
            "a b@c.de",
            "a@b@c.de",
            "a@b.c0m",
            &long,
        ] {
            assert!(!restock_email_ok(bad), "{bad}");
        }
    }
}
