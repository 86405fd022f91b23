//! The extractors route handlers read a request through, and the answers they give back.
//!
//! - [`Site`]: the request's site, as the server's layer resolved it once (JSON 404 for a
//!   host no site has, 503 when the store could not say);
//! - [`Resolved`]: the same finding, site or why there is none, for a route that answers
//!   "no site" in words of its own (plain text, a page);
//! - [`Visitor`]: who calls (their address, HTTPS or not), with the request's headers
//!   (cookies) and URI (query);
//! - [`Call`]: both, for handlers that need the site and the visitor;
//! - [`Write<F>`]: a state-changing visitor call: the crumb checked, then the rate limit of
//!   family `F` spent (403 `crumbFail`, 429);
//! - [`Owner<A, X>`](Owner): an owner call: a live token or owner session of this site
//!   whose role may read (`X` = [`Read`]) or change ([`Write`]) area `A` (401, 403; a
//!   session's change also needs its CSRF token, 403);
//! - [`OwnerToken`]: an owner call whose area the handler learns later (the role of its
//!   token or session, checked with [`OwnerToken::may`]);
//! - [`Json<T>`]: a JSON body of at most [`MAX_JSON_BODY`] bytes, its rejection our JSON
//!   error naming the field; as an answer, JSON that no cache keeps.
//!
//! Extractors run in the order a handler lists them, the body last: so a call is refused
//! for its site, then its crumb, then its rate, before a byte of its body is read.

use std::marker::PhantomData;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, IntoResponseParts, Response, ResponseParts};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use super::body::MAX_JSON_BODY;
use super::call::Call;
use super::client::client_of;
use super::error::ApiError;
use super::limits::{Family, Limits};
use super::owner::{
    ADMIN, Access, Area, CSRF_FAIL, CSRF_HEADER, FORBIDDEN, SESSION_COOKIE, SESSION_LIFE,
    UNAUTHORIZED, allows, role_name,
};
use super::site::{NoSite, Resolved, Site};
use crate::server::state::App;

impl<S: Send + Sync> FromRequestParts<S> for Site {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Site, ApiError> {
        match parts.extensions.get::<Resolved>() {
            Some(Resolved(Ok(site))) => Ok(site.clone()),
            Some(Resolved(Err(NoSite::Unavailable))) => Err(ApiError::unavailable()),
            _ => Err(ApiError::not_found("Not Found")),
        }
    }
}

/// The layer's finding as it is, never refused: a request the layer did not see has no
/// site ([`NoSite::UnknownHost`]).
impl<S: Send + Sync> FromRequestParts<S> for Resolved {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Resolved, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<Resolved>()
            .cloned()
            .unwrap_or(Resolved(Err(NoSite::UnknownHost))))
    }
}

/// Who calls, and what they sent besides the body.
pub struct Visitor {
    /// Their address (for rate limits) and whether they came over HTTPS.
    pub client: super::client::Client,
    pub headers: axum::http::HeaderMap,
    pub uri: axum::http::Uri,
}

impl<S: Send + Sync> FromRequestParts<S> for Visitor
where
    App: FromRef<S>,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Visitor, Self::Rejection> {
        let app = App::from_ref(state);
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(Visitor {
            client: client_of(peer, &parts.headers, &app.trusted_proxies),
            headers: parts.headers.clone(),
            uri: parts.uri.clone(),
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Call
where
    App: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Call, ApiError> {
        let site = Site::from_request_parts(parts, state).await?;
        let Ok(visitor) = Visitor::from_request_parts(parts, state).await;
        Ok(Call {
            site,
            client: visitor.client,
            headers: visitor.headers,
            uri: visitor.uri,
        })
    }
}

/// A family of rate-limited visitor writes, as a type: what [`Write`] spends.
pub trait Limited {
    /// The family's bucket; `None`: the crumb alone guards the call.
    const FAMILY: Option<Family>;
}

/// The rate families as types ([`Family`]).
pub mod family {
    use super::{Family, Limited};

    macro_rules! families {
        ($($(#[$doc:meta])* $name:ident => $family:expr;)*) => {$(
            $(#[$doc])*
            pub struct $name;
            impl Limited for $name {
                const FAMILY: Option<Family> = $family;
            }
        )*};
    }

    families! {
        /// Cart changes.
        CartWrite => Some(Family::CartWrite);
        /// Placing orders.
        Checkout => Some(Family::Checkout);
        /// Gift card look-ups.
        GiftCard => Some(Family::GiftCard);
        /// Form submissions and their keys.
        FormSubmit => Some(Family::FormSubmit);
        /// Member sign-ins.
        SignIn => Some(Family::SignIn);
        /// Writes the crumb alone guards (likes, a member's own settings).
        CrumbOnly => None;
    }
}

/// A state-changing visitor call: the crumb (`X-CSRF-Token`) matches the visitor's crumb
/// cookie and is this site's, then the client is within family `F`'s rate. Carries
/// nothing: it is the check.
pub struct Write<F>(PhantomData<F>);

impl<S: Send + Sync, F: Limited> FromRequestParts<S> for Write<F>
where
    App: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let site = Site::from_request_parts(parts, state).await?;
        super::crumb::check(&parts.headers, None, &site.secret)?;
        if let Some(family) = F::FAMILY {
            let Ok(visitor) = Visitor::from_request_parts(parts, state).await;
            let limits = Limits::from_ref(&App::from_ref(state));
            limits
                .check(family, site.tenant.id, visitor.client.ip)
                .await?;
        }
        Ok(Write(PhantomData))
    }
}

/// What an owner route touches, as a type ([`Area`]).
pub trait OwnerArea {
    const AREA: Area;
}

/// Reading or changing, as a type ([`Access`]).
pub trait OwnerAccess {
    const ACCESS: Access;
}

/// Reads of an area.
pub struct Read;
/// Changes to an area.
pub struct Change;

impl OwnerAccess for Read {
    const ACCESS: Access = Access::Read;
}
impl OwnerAccess for Change {
    const ACCESS: Access = Access::Write;
}

/// The owner areas as types.
pub mod area {
    use super::{Area, OwnerArea};

    macro_rules! areas {
        ($($name:ident),*) => {$(
            #[doc = concat!("[`Area::", stringify!($name), "`].")]
            pub struct $name;
            impl OwnerArea for $name {
                const AREA: Area = Area::$name;
            }
        )*};
    }

    areas!(
        Content, Design, Store, Orders, Forms, Analytics, Comments, Languages, Access
    );
}

/// Who an owner call comes from.
#[derive(Clone, Debug)]
pub enum Principal {
    /// A bearer token: its id and name (`None` and empty for a `--owner-token` of the run).
    Token { id: Option<String>, name: String },
    /// An owner account signed in to the owner app (the session cookie).
    Account {
        account: tenants::OwnerAccount,
        session: tenants::OwnerSession,
    },
}

impl Principal {
    /// Who did it, for a record: the account's address, else the token's name or id.
    pub fn actor(&self) -> String {
        match self {
            Principal::Account { account, .. } => account.email.clone(),
            Principal::Token { id, name } if !name.is_empty() => {
                format!("token {name} ({})", id.as_deref().unwrap_or("serve-time"))
            }
            Principal::Token { id, .. } => {
                format!("token {}", id.as_deref().unwrap_or("serve-time"))
            }
        }
    }
}

/// An owner let in: the role and who.
#[derive(Clone, Debug)]
pub struct Authenticated {
    pub role: u8,
    pub principal: Principal,
}

/// An owner call on area `A` with access `X`: the call (site, headers), the role of its
/// token or signed-in account, which may do it, and who that is (401 without a live token
/// or session of this site, 403 when the role may not or a session's write lacks its CSRF
/// token).
pub struct Owner<A, X = Read> {
    pub call: Call,
    pub role: u8,
    pub principal: Principal,
    _what: PhantomData<(A, X)>,
}

impl<A, X> std::ops::Deref for Owner<A, X> {
    type Target = Call;
    fn deref(&self) -> &Call {
        &self.call
    }
}

impl<S: Send + Sync, A: OwnerArea, X: OwnerAccess> FromRequestParts<S> for Owner<A, X>
where
    App: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let token = OwnerToken::from_request_parts(parts, state).await?;
        let role = token.may(A::AREA, X::ACCESS)?;
        let principal = token.owner.map(|o| o.principal).ok_or_else(unauthorized)?;
        Ok(Owner {
            call: token.call,
            role,
            principal,
            _what: PhantomData,
        })
    }
}

/// An owner call whose area is known only once the handler has found what it touches (a
/// collection's items are the store's or the content's): the call, and its owner when it
/// carries a live token or session of this site. Only a session's write without its CSRF
/// token is refused here (403); the handler asks [`OwnerToken::may`] once it knows the area.
pub struct OwnerToken {
    pub call: Call,
    pub role: Option<u8>,
    pub owner: Option<Authenticated>,
}

impl OwnerToken {
    /// The role, when it may `access` `area`: 401 without a live token or session of this
    /// site, 403 when the role may not (as [`Owner`] refuses).
    pub fn may(&self, area: Area, access: Access) -> Result<u8, ApiError> {
        allowed(self.role, area, access)
    }
}

/// Whether `role` (let in already for another area) may also `access` `area`: 403 when
/// it may not.
pub fn role_may(role: u8, area: Area, access: Access) -> Result<u8, ApiError> {
    allowed(Some(role), area, access)
}

fn unauthorized() -> ApiError {
    let mut e = ApiError::new(StatusCode::UNAUTHORIZED, UNAUTHORIZED);
    e.body["ownerAuthRequired"] = true.into();
    e
}

/// `role` when it may `access` `area`: 401 without one, 403 when it may not.
fn allowed(role: Option<u8>, area: Area, access: Access) -> Result<u8, ApiError> {
    let Some(role) = role else {
        return Err(unauthorized());
    };
    if !allows(role, area, access) {
        let mut e = ApiError::new(StatusCode::FORBIDDEN, FORBIDDEN);
        e.body["role"] = role_name(role).into();
        return Err(e);
    }
    Ok(role)
}

/// The call's owner, when their role may `access` `area` ([`OwnerToken::may`]). Not
/// knowing the call's method, it asks a session for its CSRF token whatever the method
/// (403 without it), as the extractors do for changes.
pub async fn require(app: &App, call: &Call, area: Area, access: Access) -> Result<u8, ApiError> {
    let owner = owner_of(app, &call.site.tenant, &call.headers)
        .await
        .map_err(|e| super::error::store_failure(&e))?;
    if let Some(Authenticated {
        principal: Principal::Account { session, .. },
        ..
    }) = &owner
        && !csrf_matches(&call.headers, session)
    {
        return Err(ApiError::new(StatusCode::FORBIDDEN, CSRF_FAIL));
    }
    allowed(owner.map(|o| o.role), area, access)
}

impl std::ops::Deref for OwnerToken {
    type Target = Call;
    fn deref(&self) -> &Call {
        &self.call
    }
}

impl<S: Send + Sync> FromRequestParts<S> for OwnerToken
where
    App: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let call = Call::from_request_parts(parts, state).await?;
        let app = App::from_ref(state);
        let owner = owner_of(&app, &call.site.tenant, &call.headers)
            .await
            .map_err(|e| super::error::store_failure(&e))?;
        // A browser sends the session cookie with whatever the page that makes the call
        // asks; a change made with it must show the session's CSRF token, which only the
        // owner app (a page of this site) can read. A token in a header needs none.
        if let Some(Authenticated {
            principal: Principal::Account { session, .. },
            ..
        }) = &owner
            && !parts.method.is_safe()
            && !csrf_matches(&call.headers, session)
        {
            return Err(ApiError::new(StatusCode::FORBIDDEN, CSRF_FAIL));
        }
        Ok(OwnerToken {
            call,
            role: owner.as_ref().map(|o| o.role),
            owner,
        })
    }
}

/// Whether the call's [`CSRF_HEADER`] is the session's (compared in constant time).
pub fn csrf_matches(headers: &HeaderMap, session: &tenants::OwnerSession) -> bool {
    headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            bool::from(subtle::ConstantTimeEq::ct_eq(
                v.as_bytes(),
                session.csrf.as_bytes(),
            ))
        })
}

/// The owner token the request carries (`Authorization: Bearer …`), if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|t| !t.is_empty() && t.len() <= 256)
}

/// The role of the owner the request carries for this site, if it carries a live token or
/// session of it.
pub async fn role_of(
    app: &App,
    tenant: &tenants::Tenant,
    headers: &HeaderMap,
) -> Result<Option<u8>, tenants::StoreError> {
    Ok(owner_of(app, tenant, headers).await?.map(|o| o.role))
}

/// The owner the request carries for this site: a live token in `Authorization` (which
/// alone decides when it is there), else a live session named by the session cookie.
/// Both are looked up under the request's site, so another site's are nobody here.
pub async fn owner_of(
    app: &App,
    tenant: &tenants::Tenant,
    headers: &HeaderMap,
) -> Result<Option<Authenticated>, tenants::StoreError> {
    let role = |r: i64| u8::try_from(r).unwrap_or(0);
    if let Some(token) = bearer(headers) {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if app.owner_tokens.admits(&tenant.identifier, &digest) {
            return Ok(Some(Authenticated {
                role: ADMIN,
                principal: Principal::Token {
                    id: None,
                    name: String::new(),
                },
            }));
        }
        return Ok(app
            .store
            .api_token_by_hash(tenant.id, &hex::encode(digest))
            .await?
            .map(|t| Authenticated {
                role: role(t.role),
                principal: Principal::Token {
                    id: Some(t.id),
                    name: t.name,
                },
            }));
    }
    for token in super::cookies::values(headers, SESSION_COOKIE) {
        if token.len() != 64 {
            continue;
        }
        if let Some((session, account)) = app
            .store
            .owner_session(tenant.id, token, SESSION_LIFE)
            .await?
        {
            return Ok(Some(Authenticated {
                role: role(account.role),
                principal: Principal::Account { account, session },
            }));
        }
    }
    Ok(None)
}

/// A JSON body (at most [`MAX_JSON_BODY`]; 413 beyond, 408 when it is not sent in time,
/// 400 naming the field for a wrong shape), and a JSON answer no cache keeps.
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        super::body::json(req.into_body(), MAX_JSON_BODY)
            .await
            .map(Json)
    }
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        let mut r = axum::Json(self.0).into_response();
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        r
    }
}

/// `201 Created` with a JSON answer.
pub struct Created<T>(pub T);

impl<T: Serialize> IntoResponse for Created<T> {
    fn into_response(self) -> Response {
        (StatusCode::CREATED, Json(self.0)).into_response()
    }
}

/// `Set-Cookie` lines to add to an answer: `(SetCookies(lines), Json(body))`.
pub struct SetCookies(pub Vec<String>);

impl IntoResponseParts for SetCookies {
    type Error = std::convert::Infallible;

    fn into_response_parts(self, mut res: ResponseParts) -> Result<ResponseParts, Self::Error> {
        for c in self.0 {
            if let Ok(v) = HeaderValue::from_str(&c) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
        }
        Ok(res)
    }
}

/// A JSON body that may be left out: an empty (or blank) body is `T::default()`.
pub struct JsonOrDefault<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for JsonOrDefault<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let bytes = super::body::bytes(req.into_body(), MAX_JSON_BODY).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonOrDefault(T::default()));
        }
        super::body::parse(&bytes).map(JsonOrDefault)
    }
}
