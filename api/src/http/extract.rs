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
//! - [`Owner<A, X>`](Owner): an owner call: a live token of this site whose role may read
//!   (`X` = [`Read`]) or change ([`Write`]) area `A` (401, 403);
//! - [`OwnerToken`]: an owner call whose area the handler learns later (the role of its
//!   token, checked with [`OwnerToken::may`]);
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
use super::owner::{ADMIN, Access, Area, FORBIDDEN, UNAUTHORIZED, allows, role_name};
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
        Content, Design, Store, Orders, Forms, Analytics, Comments, Languages
    );
}

/// An owner call on area `A` with access `X`: the call (site, headers) and the role of its
/// token, which may do it (401 without a live token of this site, 403 when the role may
/// not).
pub struct Owner<A, X = Read> {
    pub call: Call,
    pub role: u8,
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
        Ok(Owner {
            call: token.call,
            role,
            _what: PhantomData,
        })
    }
}

/// An owner call whose area is known only once the handler has found what it touches (a
/// collection's items are the store's or the content's): the call, and the role of its
/// token when it carries a live one of this site. Nothing is refused here: the handler
/// asks [`OwnerToken::may`] once it knows the area.
pub struct OwnerToken {
    pub call: Call,
    pub role: Option<u8>,
}

impl OwnerToken {
    /// The role, when it may `access` `area`: 401 without a live token of this site, 403
    /// when the role may not (as [`Owner`] refuses).
    pub fn may(&self, area: Area, access: Access) -> Result<u8, ApiError> {
        allowed(self.role, area, access)
    }
}

/// `role` when it may `access` `area`: 401 without one, 403 when it may not.
fn allowed(role: Option<u8>, area: Area, access: Access) -> Result<u8, ApiError> {
    let Some(role) = role else {
        let mut e = ApiError::new(StatusCode::UNAUTHORIZED, UNAUTHORIZED);
        e.body["ownerAuthRequired"] = true.into();
        return Err(e);
    };
    if !allows(role, area, access) {
        let mut e = ApiError::new(StatusCode::FORBIDDEN, FORBIDDEN);
        e.body["role"] = role_name(role).into();
        return Err(e);
    }
    Ok(role)
}

/// The call's owner, when their token's role may `access` `area` ([`OwnerToken::may`]).
pub async fn require(app: &App, call: &Call, area: Area, access: Access) -> Result<u8, ApiError> {
    let role = role_of(app, &call.site.tenant, &call.headers)
        .await
        .map_err(|e| super::error::store_failure(&e))?;
    allowed(role, area, access)
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
        let role = role_of(&app, &call.site.tenant, &call.headers)
            .await
            .map_err(|e| super::error::store_failure(&e))?;
        Ok(OwnerToken { call, role })
    }
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

/// The role of the owner token `headers` carry for this site, if they carry a live one.
pub async fn role_of(
    app: &App,
    tenant: &tenants::Tenant,
    headers: &HeaderMap,
) -> Result<Option<u8>, tenants::StoreError> {
    let Some(token) = bearer(headers) else {
        return Ok(None);
    };
    let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    if app.owner_tokens.admits(&tenant.identifier, &digest) {
        return Ok(Some(ADMIN));
    }
    Ok(app
        .store
        .api_token_by_hash(tenant.id, &hex::encode(digest))
        .await?
        .map(|t| u8::try_from(t.role).unwrap_or(0)))
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
