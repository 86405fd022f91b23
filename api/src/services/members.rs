//! A site's members signing up, confirming their address, signing in and out, and joining
//! member areas (SPEC.md §6 "Site users"): the flows behind `routes::site_users`, on the
//! store, knowing nothing of HTTP (the handlers turn their errors into answers and their
//! sessions and carts into cookies).

use std::time::Duration;

use serde_json::json;
use tenants::{Cart, SiteSession, SiteUser, Store, StoreError, TenantId};

use crate::email::{Composer, compose};
use crate::http::local_path::local_path;
use crate::http::signing::random_hex;
use crate::http::site::Site;

/// How long a session lasts on the server from sign-in, with or without rememberMe.
/// rememberMe only decides whether the cookie outlives the browser (then with this
/// `Max-Age`, so it never outlives the session either).
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);

/// The confirmation link's route.
pub const CONFIRM_PATH: &str = "/api/site-users/account/confirm";

/// How long a confirmation link works.
pub const LINK_TTL: Duration = Duration::from_secs(48 * 3600);

/// Passwords shorter than this are refused.
pub const MIN_PASSWORD: usize = 8;
/// Longer ones too (Argon2 would hash anything; a limit keeps a request's cost bounded).
pub const MAX_PASSWORD: usize = 256;

/// A member signed in: their new session, and their cart (the visitor's made theirs, or
/// the one they had), if there is one.
pub struct SignedIn {
    pub session: SiteSession,
    pub user: SiteUser,
    pub cart: Option<Cart>,
}

/// Why a sign-in was refused.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// No email address or no password.
    #[error("the email address or the password is missing")]
    Missing,
    /// No member has this address, or the password is not theirs.
    #[error("the email address or the password is wrong")]
    Wrong,
    /// The password is right, but the address is not confirmed yet.
    #[error("the address is not confirmed")]
    NotConfirmed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Signs a member in with their address and password: a new session, and the visitor's
/// cart (`visitor_cart`, the one their cart cookie names) made theirs. A wrong password
/// and an unknown address take as long to refuse ([`super::passwords::matches`]); an unconfirmed
/// address is said only to someone who knows the password.
pub async fn sign_in(
    store: &Store,
    tenant: TenantId,
    email: &str,
    password: String,
    visitor_cart: Option<&str>,
) -> Result<SignedIn, SignInError> {
    if email.trim().is_empty() || password.is_empty() {
        return Err(SignInError::Missing);
    }
    let user = store.site_user_by_email(tenant, email).await?;
    let ok =
        super::passwords::matches(password, user.as_ref().map(|u| u.password_hash.clone())).await;
    let Some(user) = user.filter(|_| ok) else {
        return Err(SignInError::Wrong);
    };
    if user.verified_ms.is_none() {
        return Err(SignInError::NotConfirmed);
    }
    Ok(start_session(store, tenant, user, visitor_cart).await?)
}

/// Signs `user` in: a new session for [`SESSION_TTL`], and the visitor's cart made theirs
/// (or its entries moved into the cart they already have).
async fn start_session(
    store: &Store,
    tenant: TenantId,
    user: SiteUser,
    visitor_cart: Option<&str>,
) -> tenants::Result<SignedIn> {
    let session = store
        .create_session(tenant, &user.id, SESSION_TTL.as_millis() as i64)
        .await?;
    let cart = store.sign_in_cart(tenant, &user.id, visitor_cart).await?;
    Ok(SignedIn {
        session,
        user,
        cart,
    })
}

/// Signs a member out: the session ends, and with `keep_cart` the visitor keeps a copy of
/// the member's cart (returned; `None` without one or without `keep_cart`).
pub async fn sign_out(
    store: &Store,
    tenant: TenantId,
    session: &SiteSession,
    user: &SiteUser,
    keep_cart: bool,
) -> tenants::Result<Option<Cart>> {
    store.delete_session(tenant, &session.token).await?;
    if keep_cart {
        store.clone_member_cart(tenant, &user.id).await
    } else {
        Ok(None)
    }
}

/// What a sign-up asks for.
pub struct SignUpInput {
    pub email: String,
    pub password: String,
    pub display_name: String,
    /// A member area of the site, joined on confirming (blank: none).
    pub member_area_id: Option<String>,
    /// Where to land after confirming (kept only if it is a path on the site).
    pub redirect: Option<String>,
}

/// How a sign-up's email is written: the site's composer (awaited only once the sign-up
/// is valid), the site's title and the origin its links point at.
pub struct SignUpMail<C> {
    pub composer: C,
    pub site_title: String,
    pub origin: String,
}

/// Why a sign-up was refused.
#[derive(Debug, thiserror::Error)]
pub enum SignUpError {
    /// No email address or no password.
    #[error("the email address or the password is missing")]
    Missing,
    /// Not an address the confirmation link could be sent to.
    #[error("not a deliverable email address")]
    BadEmail,
    /// Fewer than [`MIN_PASSWORD`] characters.
    #[error("the password is too short")]
    ShortPassword,
    /// More than [`MAX_PASSWORD`] characters.
    #[error("the password is too long")]
    LongPassword,
    /// The member area is not one the site declares.
    #[error("no such member area")]
    NoSuchArea,
    /// The password could not be hashed (logged).
    #[error("the password could not be hashed")]
    Hashing,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An email address as a sign-up accepts it, lower-cased: one the mailer can send the
/// confirmation link to ([`tenants::email_address::deliverable`]).
pub fn email_address(raw: &str) -> Option<String> {
    tenants::email_address::deliverable(raw).map(str::to_lowercase)
}

/// The area `id` (trimmed) if the site declares it.
pub fn declared_area(site: &Site, id: &str) -> Option<String> {
    let id = id.trim();
    site.content.render.member_area(id).map(|_| id.to_owned())
}

/// Takes a sign-up: the account is created (or, while unconfirmed, renewed with the new
/// password) with a confirmation link of [`LINK_TTL`], and its email put in the outbox in
/// the same transaction: the link, or a note to sign in for an address already confirmed.
/// What the caller is told is the same either way.
pub async fn sign_up<C: Future<Output = Composer>>(
    store: &Store,
    outbox: &crate::email::Outbox,
    site: &Site,
    input: SignUpInput,
    mail: SignUpMail<C>,
) -> Result<(), SignUpError> {
    if input.email.trim().is_empty() || input.password.is_empty() {
        return Err(SignUpError::Missing);
    }
    let email = email_address(&input.email).ok_or(SignUpError::BadEmail)?;
    let length = input.password.chars().count();
    if length < MIN_PASSWORD {
        return Err(SignUpError::ShortPassword);
    }
    if length > MAX_PASSWORD {
        return Err(SignUpError::LongPassword);
    }
    let area = match input
        .member_area_id
        .as_deref()
        .filter(|a| !a.trim().is_empty())
    {
        Some(a) => Some(declared_area(site, a).ok_or(SignUpError::NoSuchArea)?),
        None => None,
    };
    let password = input.password;
    let password_hash = super::passwords::hash(password)
        .await
        .map_err(|_| SignUpError::Hashing)?;
    let token = random_hex(32);
    let s = tenants::SignUp {
        email,
        password_hash,
        display_name: input.display_name.trim().chars().take(100).collect(),
        member_area: area.clone(),
        redirect: local_path(input.redirect.as_deref()).to_owned(),
        token_hash: tenants::secret_digest(&token),
        ttl_ms: LINK_TTL.as_millis() as i64,
    };
    let area_title = area.as_deref().and_then(|a| {
        let node = site.content.render.member_area(a)?;
        node.pointer(&["title"])?.as_str().map(str::to_owned)
    });
    // A paid area is not joined by the link: the mail says its page sells it.
    let paid = area.as_deref().is_some_and(|a| paid_area(site, a));
    let SignUpMail {
        composer,
        site_title,
        origin,
    } = mail;
    let composer = composer.await;
    let data = |member: &SiteUser| {
        json!({
            "website": {"siteTitle": site_title},
            "member": {"email": member.email, "displayName": member.display_name},
            "memberArea": area_title.as_ref().map(|t| json!({"title": t, "paid": paid})),
            "link": format!("{origin}{CONFIRM_PATH}?token={token}"),
            "linkHours": LINK_TTL.as_secs() / 3600,
            "signInUrl": format!("{origin}/"),
        })
    };
    store
        .sign_up(site.tenant.id, &s, |outcome| match outcome {
            tenants::SignedUp::Created(u) | tenants::SignedUp::Renewed(u) => {
                composer.email(compose::MEMBER_CONFIRMATION, &data(u), &u.email, None)
            }
            tenants::SignedUp::AlreadyMember(u) => {
                composer.email(compose::MEMBER_EXISTING, &data(u), &u.email, None)
            }
        })
        .await?;
    outbox.nudge();
    Ok(())
}

/// A confirmed address: the member signed in, and where to send them.
pub struct Confirmed {
    pub signed_in: SignedIn,
    /// A path on the site.
    pub redirect: String,
}

/// Why a confirmation link did not sign anyone in.
#[derive(Debug, thiserror::Error)]
pub enum ConfirmError {
    /// The link has expired, was already used, or is not one.
    #[error("the link is spent")]
    Spent,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Spends a confirmation link's `token`: the address is confirmed, the member joins the
/// area they signed up from and is signed in (as a sign-in without rememberMe, the
/// visitor's cart made theirs).
pub async fn confirm(
    store: &Store,
    tenant: TenantId,
    token: &str,
    visitor_cart: Option<&str>,
) -> Result<Confirmed, ConfirmError> {
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ConfirmError::Spent);
    }
    let confirmed = store
        .confirm_sign_up(tenant, &tenants::secret_digest(token))
        .await?
        .ok_or(ConfirmError::Spent)?;
    let signed_in = start_session(store, tenant, confirmed.user, visitor_cart).await?;
    Ok(Confirmed {
        signed_in,
        redirect: local_path(Some(&confirmed.redirect)).to_owned(),
    })
}

/// Why a member could not join an area.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// The member area is not one the site declares.
    #[error("no such member area")]
    NoSuchArea,
    /// The area is paid: it is joined by buying its plan product, not here.
    #[error("a paid member area")]
    Paid,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whether the site's area `id` is paid (names a `planProductId`).
pub fn paid_area(site: &Site, id: &str) -> bool {
    site.content
        .render
        .member_area(id.trim())
        .and_then(|a| a.pointer(&["planProductId"]))
        .and_then(template_lang::value::Node::as_str)
        .is_some_and(|p| !p.trim().is_empty())
}

/// A member joins one of the site's free areas; the areas they are in now, by id.
pub async fn join(
    store: &Store,
    site: &Site,
    user: &SiteUser,
    area: &str,
) -> Result<Vec<String>, JoinError> {
    let area = declared_area(site, area).ok_or(JoinError::NoSuchArea)?;
    if paid_area(site, &area) {
        return Err(JoinError::Paid);
    }
    let tenant = site.tenant.id;
    store
        .join_member_area(tenant, &user.id, &area)
        .await
        .map_err(|e| match e {
            // Made paid since the site was read.
            StoreError::Invalid(_) => JoinError::Paid,
            e => JoinError::Store(e),
        })?;
    Ok(store.member_areas_of(tenant, &user.id).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(
            email_address(" Ana@Example.COM ").as_deref(),
            Some("ana@example.com")
        );
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.com",
            "ana@example",
            "ana@.com",
            "ana@x.com.",
            "a b@x.com",
            "a@b@x.com",
            // What the mailer could not send the link to.
            "a\"b@x.com",
            "a,b@x.com",
            "x<attacker@evil.com>",
        ] {
            assert_eq!(email_address(bad), None, "{bad}");
        }
    }
}
