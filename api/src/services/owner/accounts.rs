//! Owner accounts' flows behind `routes::owner::accounts` and `tessera owner`: signing in
//! (Argon2id, the same time for an unknown address), one-time links (a first password, a
//! forgotten one, an invitation) and spending them. Nothing here knows HTTP; the handlers
//! turn sessions into cookies and errors into answers.

use std::time::Duration;

use serde_json::json;
use tenants::{
    LinkPurpose, LinkUsed, NewOwnerLink, OwnerAccount, OwnerSession, Store, StoreError, TenantId,
};

use crate::email::Composer;
use crate::http::owner::{SESSION_LIFE, role_name};
use crate::http::signing::random_hex;
use crate::services::passwords;

/// Passwords shorter than this are refused.
pub const MIN_PASSWORD: usize = 8;
/// Longer ones too (a bound on what one request makes Argon2 hash).
pub const MAX_PASSWORD: usize = 128;

/// How long a first-password or reset link works.
pub const RESET_TTL: Duration = Duration::from_secs(3600);
/// How long an invitation works.
pub const INVITE_TTL: Duration = Duration::from_secs(7 * 86_400);

/// The app's screens the links open, on the site's own origin.
pub const RESET_PATH: &str = "/config/reset";
pub const SET_PASSWORD_PATH: &str = "/config/set-password";
pub const INVITE_PATH: &str = "/config/invite";

use crate::email::compose::{OWNER_INVITE as INVITE_EMAIL, OWNER_RESET as RESET_EMAIL};

/// Why a sign-in was refused.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// No address (the field's name).
    #[error("the email address is missing")]
    NoEmail,
    /// No password.
    #[error("the password is missing")]
    NoPassword,
    /// No account with this address and this password (or none set yet): one answer.
    #[error("the email address or the password is wrong")]
    Wrong,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Signs an owner in with their address and password: a new session. An unknown address,
/// an account without a password and a wrong password take as long to refuse.
pub async fn sign_in(
    store: &Store,
    tenant: TenantId,
    email: &str,
    password: String,
) -> Result<(OwnerSession, OwnerAccount), SignInError> {
    if email.trim().is_empty() {
        return Err(SignInError::NoEmail);
    }
    if password.is_empty() {
        return Err(SignInError::NoPassword);
    }
    let account = store.owner_account_by_email(tenant, email).await?;
    let hash = account.as_ref().and_then(|a| a.password_hash.clone());
    // A password longer than any account's can be is refused without hashing, whatever
    // the address: its quick answer says nothing about the account.
    let ok = password.chars().count() <= MAX_PASSWORD && passwords::matches(password, hash).await;
    let Some(account) = account.filter(|_| ok) else {
        return Err(SignInError::Wrong);
    };
    let session = store
        .create_owner_session(tenant, &account.id, SESSION_LIFE)
        .await?;
    Ok((session, account))
}

/// Why a password was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PasswordRule {
    #[error("the password is too short")]
    Short,
    #[error("the password is too long")]
    Long,
}

/// `password` if it is [`MIN_PASSWORD`] to [`MAX_PASSWORD`] characters long.
pub fn check_password(password: &str) -> Result<(), PasswordRule> {
    match password.chars().count() {
        n if n < MIN_PASSWORD => Err(PasswordRule::Short),
        n if n > MAX_PASSWORD => Err(PasswordRule::Long),
        _ => Ok(()),
    }
}

/// Why a link could not be spent.
#[derive(Debug, thiserror::Error)]
pub enum UseLinkError {
    #[error(transparent)]
    Password(#[from] PasswordRule),
    /// Expired, used, unknown or another site's.
    #[error("the link is spent")]
    Spent,
    #[error(transparent)]
    Hashing(#[from] passwords::HashFailed),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Spends a link's `token` with the password it sets: the account has it (an invitation
/// makes the account), its other sessions end, and it is signed in.
pub async fn use_link(
    store: &Store,
    tenant: TenantId,
    token: &str,
    password: String,
) -> Result<LinkUsed, UseLinkError> {
    check_password(&password)?;
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(UseLinkError::Spent);
    }
    let digest = tenants::secret_digest(token);
    // Hashing costs; a spent link is refused before it.
    if store.owner_link(tenant, &digest).await?.is_none() {
        return Err(UseLinkError::Spent);
    }
    let hash = passwords::hash(password).await?;
    store
        .use_owner_link(tenant, &digest, &hash, SESSION_LIFE)
        .await?
        .ok_or(UseLinkError::Spent)
}

/// A new link's token and the link itself on `origin` (the site's own).
pub fn new_link(origin: &str, path: &str) -> (String, String) {
    let token = random_hex(32);
    let link = format!("{origin}{path}?token={token}");
    (token, link)
}

/// Makes a first-password link for an account (printed by `tessera owner add`; no email).
/// `None` when the site has no account with the address.
pub async fn set_password_link(
    store: &Store,
    tenant: TenantId,
    email: &str,
    origin: &str,
) -> tenants::Result<Option<String>> {
    let (token, link) = new_link(origin, SET_PASSWORD_PATH);
    let made = store
        .create_owner_link(
            tenant,
            &NewOwnerLink {
                purpose: LinkPurpose::SetPassword,
                token_hash: tenants::secret_digest(&token),
                email: email.to_owned(),
                role: 0,
                ttl_ms: RESET_TTL.as_millis() as i64,
            },
            |_, _| None,
        )
        .await?;
    Ok(made.then_some(link))
}

/// How a link's email is written: the site's composer, its title and origin.
pub struct LinkMail {
    pub composer: Composer,
    pub site_title: String,
    pub origin: String,
}

/// Emails a reset link to the address if the site has an account with it; nothing
/// otherwise (what the caller says is the same either way). `Invalid` for an address mail
/// cannot go to.
pub async fn request_reset(
    store: &Store,
    outbox: &crate::email::Outbox,
    tenant: TenantId,
    email: &str,
    mail: LinkMail,
) -> tenants::Result<()> {
    let (token, link) = new_link(&mail.origin, RESET_PATH);
    let made = store
        .create_owner_link(
            tenant,
            &NewOwnerLink {
                purpose: LinkPurpose::Reset,
                token_hash: tenants::secret_digest(&token),
                email: email.to_owned(),
                role: 0,
                ttl_ms: RESET_TTL.as_millis() as i64,
            },
            |_, to| {
                let data = json!({
                    "website": {"siteTitle": mail.site_title},
                    "email": to,
                    "link": link,
                    "linkMinutes": RESET_TTL.as_secs() / 60,
                    "signInUrl": format!("{}/config", mail.origin),
                });
                Some(mail.composer.email(RESET_EMAIL, &data, to, None))
            },
        )
        .await?;
    if made {
        outbox.nudge();
    }
    Ok(())
}

/// Emails an invitation to make an account with `role` on the site. `Conflict` when the
/// address has an account; `Invalid` when mail cannot go to it.
pub async fn invite(
    store: &Store,
    outbox: &crate::email::Outbox,
    tenant: TenantId,
    email: &str,
    role: u8,
    invited_by: &str,
    mail: LinkMail,
) -> tenants::Result<()> {
    let (token, link) = new_link(&mail.origin, INVITE_PATH);
    store
        .create_owner_link(
            tenant,
            &NewOwnerLink {
                purpose: LinkPurpose::Invite,
                token_hash: tenants::secret_digest(&token),
                email: email.to_owned(),
                role: i64::from(role),
                ttl_ms: INVITE_TTL.as_millis() as i64,
            },
            |_, to| {
                let data = json!({
                    "website": {"siteTitle": mail.site_title},
                    "email": to,
                    "role": role_name(role),
                    "invitedBy": invited_by,
                    "link": link,
                    "linkDays": INVITE_TTL.as_secs() / 86_400,
                });
                Some(mail.composer.email(INVITE_EMAIL, &data, to, None))
            },
        )
        .await?;
    outbox.nudge();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_8_to_128_characters() {
        assert_eq!(check_password("1234567"), Err(PasswordRule::Short));
        assert_eq!(check_password("12345678"), Ok(()));
        assert_eq!(check_password(&"é".repeat(128)), Ok(()));
        assert_eq!(check_password(&"x".repeat(129)), Err(PasswordRule::Long));
    }

    #[test]
    fn links_carry_a_fresh_token_on_the_origin() {
        let (token, link) = new_link("https://shop.example", RESET_PATH);
        assert_eq!(token.len(), 64);
        assert_eq!(
            link,
            format!("https://shop.example/config/reset?token={token}")
        );
        assert_ne!(new_link("o", RESET_PATH).0, token);
    }
}
