//! Settings → Access: who may sign in to the owner app, invitations, and the API tokens.
//! The access area is the admin's and the website manager's ([`Area::Access`]); only an
//! admin gives or takes the admin role (an account's, an invitation's or a token's).
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/accounts` | access, read | | `{accounts, invites}` |
//! | `POST /api/owner/invites` | access, write | email, role | 202 `{invite}`; the invitation emailed |
//! | `PATCH /api/owner/accounts/{id}` | access, write | role | the account (its sessions end) |
//! | `DELETE /api/owner/accounts/{id}` | access, write | | `{deleted}` (never the last admin: 409) |
//! | `GET /api/owner/tokens` | access, read | | `{tokens}` (never the secrets) |
//! | `POST /api/owner/tokens` | access, write | name, role | 201 `{token, secret}` (the secret shown once) |
//! | `DELETE /api/owner/tokens/{id}` | access, write | | the revoked token |
//!
//! [`Area::Access`]: crate::http::owner::Area::Access

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::Deleted;
use super::accounts::{BAD_EMAIL, link_mail};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::member::described;
use crate::http::owner::{ADMIN, new_token, parse_role, role_name};
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
use crate::services::owner::accounts as flows;

/// Designed here (SPEC.md does not show them).
pub const NO_ACCOUNT: &str = "That owner account does not exist.";
pub const NO_TOKEN: &str = "That token does not exist.";
pub const LAST_ADMIN: &str = "The site needs at least one admin: make another owner admin first.";
pub const ADMIN_ONLY: &str = "Only an admin can give or take the admin role.";
pub const HAS_ACCOUNT: &str = "That address already has an owner account.";
pub const BAD_ROLE: &str = "Choose one of the roles.";
pub const INVITE_SENT: &str = "The invitation is on its way.";
pub const LONG_NAME: &str = "A token's name can have at most 100 characters.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(accounts))
        .routes(routes!(change_account, remove_account))
        .routes(routes!(invite))
        .routes(routes!(tokens, create_token))
        .routes(routes!(revoke_token))
}

/// What an access change can get besides its answer: [`OwnerErrors`] and 409.
struct AccessErrors;

impl IntoResponses for AccessErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = OwnerErrors::responses();
        r.insert(
            "409".to_owned(),
            described(
                &r["400"],
                "It would leave the site without an admin, or the address already has an account.",
            ),
        );
        r
    }
}

/// An owner account, as the Access screen lists it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerAccountView)]
struct AccountView {
    id: String,
    email: String,
    /// SPEC.md §3's role number.
    role: u8,
    role_name: String,
    /// False until its owner sets a password through their link.
    has_password: bool,
    created_ms: i64,
}

fn account_view(a: &tenants::OwnerAccount) -> AccountView {
    let role = u8::try_from(a.role).unwrap_or(0);
    AccountView {
        id: a.id.clone(),
        email: a.email.clone(),
        role,
        role_name: role_name(role),
        has_password: a.has_password(),
        created_ms: a.created_ms,
    }
}

/// An invitation not used yet.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerInviteView)]
struct InviteView {
    email: String,
    role: u8,
    role_name: String,
    created_ms: i64,
    /// When its link stops working (7 days after it was sent).
    expires_ms: i64,
}

fn invite_view(i: &tenants::OwnerInvite) -> InviteView {
    let role = u8::try_from(i.role).unwrap_or(0);
    InviteView {
        email: i.email.clone(),
        role,
        role_name: role_name(role),
        created_ms: i.created_ms,
        expires_ms: i.expires_ms,
    }
}

/// The site's owners and open invitations.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerAccountList)]
struct AccountList {
    /// By address.
    accounts: Vec<AccountView>,
    /// Newest first.
    invites: Vec<InviteView>,
}

/// `GET /api/owner/accounts`: the site's owner accounts and open invitations.
#[utoipa::path(get, path = "/api/owner/accounts", tag = OWNER,
    security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 200, body = AccountList), OwnerErrors))]
async fn accounts(
    State(app): State<App>,
    owner: Owner<area::Access, Read>,
) -> Result<Json<AccountList>, ApiError> {
    let tenant = owner.site.tenant.id;
    let accounts = app
        .store
        .owner_accounts(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    let invites = app
        .store
        .owner_invites(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(AccountList {
        accounts: accounts.iter().map(account_view).collect(),
        invites: invites.iter().map(invite_view).collect(),
    }))
}

/// A role as a body gives it: a name (`store-manager`) or SPEC.md's number.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum RoleValue {
    Number(u64),
    Name(String),
}

/// The role `value` names, or 400 naming the field.
fn role_of(value: Option<&RoleValue>) -> Result<u8, ApiError> {
    let text = match value {
        Some(RoleValue::Number(n)) => n.to_string(),
        Some(RoleValue::Name(s)) => s.clone(),
        None => String::new(),
    };
    parse_role(&text).map_err(|_| ApiError::field("role", BAD_ROLE))
}

/// 403 unless the caller is an admin, when the admin role is given or taken.
fn admin_role_guard(caller: u8, roles: &[u8]) -> Result<(), ApiError> {
    if caller != ADMIN && roles.contains(&ADMIN) {
        return Err(ApiError::new(StatusCode::FORBIDDEN, ADMIN_ONLY));
    }
    Ok(())
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerInviteBody)]
pub(crate) struct InviteBody {
    /// Who to invite.
    #[serde(default)]
    #[schema(required = true)]
    email: String,
    /// Their role: a name (`admin`, `store-manager`, `editor`, `viewer` …) or SPEC.md's number.
    #[serde(default)]
    #[schema(required = true, value_type = String)]
    role: Option<RoleValue>,
}

/// An invitation sent.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerInviteSent)]
struct InviteSent {
    message: &'static str,
    invite: InviteView,
}

/// `POST /api/owner/invites`: emails an invitation (valid 7 days, once) to make an owner
/// account with a role. A second invitation to the same address replaces the first.
#[utoipa::path(post, path = "/api/owner/invites", tag = OWNER,
    request_body = InviteBody, security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 202, body = InviteSent), AccessErrors))]
async fn invite(
    State(app): State<App>,
    owner: Owner<area::Access, Change>,
    Json(b): Json<InviteBody>,
) -> Result<(StatusCode, Json<InviteSent>), ApiError> {
    let Some(email) = crate::services::members::email_address(&b.email) else {
        return Err(ApiError::field("email", BAD_EMAIL));
    };
    let role = role_of(b.role.as_ref())?;
    admin_role_guard(owner.role, &[role])?;
    let mail = link_mail(&app, &owner.call).await;
    let tenant = owner.site.tenant.id;
    flows::invite(
        &app.store,
        &app.outbox,
        tenant,
        &email,
        role,
        &owner.principal.actor(),
        mail,
    )
    .await
    .map_err(|e| match e {
        tenants::StoreError::Conflict(_) => ApiError::new(StatusCode::CONFLICT, HAS_ACCOUNT),
        tenants::StoreError::Invalid(_) => ApiError::field("email", BAD_EMAIL),
        e => store_failure(&e),
    })?;
    let invites = app
        .store
        .owner_invites(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    let sent = invites
        .iter()
        .find(|i| i.email == email)
        .map(invite_view)
        .ok_or_else(ApiError::unavailable)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(InviteSent {
            message: INVITE_SENT,
            invite: sent,
        }),
    ))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerAccountChange)]
pub(crate) struct AccountChange {
    /// The new role: a name or SPEC.md's number.
    #[serde(default)]
    #[schema(required = true, value_type = String)]
    role: Option<RoleValue>,
}

/// The account `id` of this site, or 404.
async fn account_here(
    app: &App,
    tenant: tenants::TenantId,
    id: &str,
) -> Result<tenants::OwnerAccount, ApiError> {
    app.store
        .owner_account(tenant, id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_ACCOUNT))
}

fn account_refused(e: &tenants::StoreError) -> ApiError {
    match e {
        tenants::StoreError::NotFound(_) => ApiError::not_found(NO_ACCOUNT),
        tenants::StoreError::Conflict(_) => ApiError::new(StatusCode::CONFLICT, LAST_ADMIN),
        e => store_failure(e),
    }
}

/// `PATCH /api/owner/accounts/{id}`: gives an owner another role. Their sessions end (they
/// sign in again with it).
#[utoipa::path(patch, path = "/api/owner/accounts/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The account's id.")),
    request_body = AccountChange, security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 200, body = AccountView), AccessErrors))]
async fn change_account(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Access, Change>,
    Json(b): Json<AccountChange>,
) -> Result<Json<AccountView>, ApiError> {
    let tenant = owner.site.tenant.id;
    let role = role_of(b.role.as_ref())?;
    let account = account_here(&app, tenant, &id).await?;
    admin_role_guard(owner.role, &[role, u8::try_from(account.role).unwrap_or(0)])?;
    let changed = app
        .store
        .set_owner_role(tenant, &id, i64::from(role))
        .await
        .map_err(|e| account_refused(&e))?;
    Ok(Json(account_view(&changed)))
}

/// `DELETE /api/owner/accounts/{id}`: removes an owner; their sessions end at once.
#[utoipa::path(delete, path = "/api/owner/accounts/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The account's id.")),
    security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 200, body = Deleted), AccessErrors))]
async fn remove_account(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Access, Change>,
) -> Result<Json<Deleted>, ApiError> {
    let tenant = owner.site.tenant.id;
    let account = account_here(&app, tenant, &id).await?;
    admin_role_guard(owner.role, &[u8::try_from(account.role).unwrap_or(0)])?;
    let removed = app
        .store
        .remove_owner_account(tenant, &id)
        .await
        .map_err(|e| account_refused(&e))?;
    Ok(Json(Deleted {
        deleted: removed.id,
    }))
}

/// A token of the site (never its secret).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerTokenView)]
struct TokenView {
    /// The token's id (not the token).
    id: String,
    name: String,
    role: u8,
    role_name: String,
    created_ms: i64,
    /// When it was revoked; null while it works.
    revoked_ms: Option<i64>,
}

fn token_view(t: &tenants::ApiToken) -> TokenView {
    let role = u8::try_from(t.role).unwrap_or(0);
    TokenView {
        id: t.id.clone(),
        name: t.name.clone(),
        role,
        role_name: role_name(role),
        created_ms: t.created_ms,
        revoked_ms: t.revoked_ms,
    }
}

/// The site's tokens.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerTokenList)]
struct TokenList {
    /// Newest first, revoked ones too.
    tokens: Vec<TokenView>,
}

/// `GET /api/owner/tokens`: the site's API tokens (never the secrets).
#[utoipa::path(get, path = "/api/owner/tokens", tag = OWNER,
    security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 200, body = TokenList), OwnerErrors))]
async fn tokens(
    State(app): State<App>,
    owner: Owner<area::Access, Read>,
) -> Result<Json<TokenList>, ApiError> {
    let tokens = app
        .store
        .api_tokens(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(TokenList {
        tokens: tokens.iter().map(token_view).collect(),
    }))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerTokenBody)]
pub(crate) struct TokenBody {
    /// A note to tell tokens apart (at most 100 characters).
    #[serde(default)]
    name: String,
    /// The token's role: a name or SPEC.md's number.
    #[serde(default)]
    #[schema(required = true, value_type = String)]
    role: Option<RoleValue>,
}

/// A new token: its secret, shown this once.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerTokenMade)]
struct TokenMade {
    token: TokenView,
    /// `Authorization: Bearer <secret>`. The store keeps only its SHA-256: it cannot be
    /// shown again.
    secret: String,
}

/// `POST /api/owner/tokens`: makes an API token with a role.
#[utoipa::path(post, path = "/api/owner/tokens", tag = OWNER,
    request_body = TokenBody, security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 201, body = TokenMade), OwnerErrors))]
async fn create_token(
    State(app): State<App>,
    owner: Owner<area::Access, Change>,
    Json(b): Json<TokenBody>,
) -> Result<Created<TokenMade>, ApiError> {
    let role = role_of(b.role.as_ref())?;
    let name = b.name.trim();
    if name.chars().count() > 100 {
        return Err(ApiError::field("name", LONG_NAME));
    }
    admin_role_guard(owner.role, &[role])?;
    let secret = new_token();
    let made = app
        .store
        .create_api_token(
            owner.site.tenant.id,
            i64::from(role),
            name,
            &tenants::secret_digest(&secret),
        )
        .await
        .map_err(|e| super::refused(&e, NO_TOKEN))?;
    Ok(Created(TokenMade {
        token: token_view(&made),
        secret,
    }))
}

/// `DELETE /api/owner/tokens/{id}`: revokes a token at once (revoking twice keeps the
/// first time).
#[utoipa::path(delete, path = "/api/owner/tokens/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The token's id (not the token).")),
    security(("ownerToken" = []), ("ownerSession" = [])),
    responses((status = 200, body = TokenView), OwnerErrors))]
async fn revoke_token(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Access, Change>,
) -> Result<Json<TokenView>, ApiError> {
    let tenant = owner.site.tenant.id;
    let existing = app
        .store
        .api_tokens(tenant)
        .await
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or_else(|| ApiError::not_found(NO_TOKEN))?;
    admin_role_guard(owner.role, &[u8::try_from(existing.role).unwrap_or(0)])?;
    let revoked = app
        .store
        .revoke_api_token(tenant, &id)
        .await
        .map_err(|e| super::refused(&e, NO_TOKEN))?;
    Ok(Json(token_view(&revoked)))
}
