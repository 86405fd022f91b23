//! Restock ("back in stock") notices (SPEC.md §3 "Restock signup", §5 "Restock", §7):
//! visitors sign up for a sold-out variant; the owner lists the sign-ups and sends the
//! notices, which go through the outbox ([`crate::email`]) once per signer.
//!
//! | route | who | body / query | answer |
//! |---|---|---|---|
//! | `POST /api/site-users/account/notifications/restock` | visitor (crumb, captcha) | productId, variantId (the sku), siteVisitorEmail, isJoinMailingList, captchaToken or recaptchaEnterpriseV3Token, language? | `{success}` |
//! | `GET …/restock/groups` | owner token (orders, read) | cursor?, limit? | `{signUpGroups, hasNextPage, nextPageCursor}` |
//! | `GET …/restock` | owner token (orders, read) | productId, variantId, cursor?, limit? | `{signUps, hasNextPage, nextPageCursor}` |
//! | `POST …/restock/send` | owner token (store, write) | productId, variantId | `{sent}` |
//! | `POST …/restock/send/all` | owner token (store, write) | sendRequests: [{productId, variantId}] | `{sent, results}` |

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use template_lang::value::Node;
use tenants::{RestockSignup, StoreError};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::email::{self, compose};
use crate::http::call::Call;
use crate::http::error::store_failure;
use crate::http::extract::family::FormSubmit;
// Owner calls: the lists hold people's addresses (read as orders are); sending is the
// store's work.
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner, Write};
use crate::openapi::{OwnerErrors, RESTOCK, WriteErrors};
use crate::server::state::App;
pub use crate::services::restock::restock_email_ok;
use crate::services::restock::{SignUpError, Wish, send_notices, sign_up as take_sign_up};

/// SPEC.md §5.
pub const EMAIL_BLANK: &str = "Email cannot be blank";
pub const EMAIL_INVALID: &str = "Email is invalid";
/// Designed here: a variant the site does not have, one that is in stock, and a site that
/// does not take sign-ups.
pub const UNKNOWN_VARIANT: &str =
    "Sorry, that item variant is unavailable. Please select another variant.";
pub const IN_STOCK: &str = "This item is in stock: add it to your cart instead.";
pub const NOT_ENABLED: &str = "This store does not take restock sign-ups.";

/// Rows per owner page unless `limit` asks for fewer (1-100).
const PAGE: usize = 50;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignUp {
    product_id: String,
    variant_id: String,
    #[serde(default)]
    site_visitor_email: Option<String>,
    #[serde(default)]
    is_join_mailing_list: bool,
    #[serde(default)]
    captcha_token: Option<String>,
    #[serde(default)]
    recaptcha_enterprise_v3_token: Option<String>,
    #[serde(default)]
    language: Option<String>,
}

/// The answer to a sign-up.
#[derive(Serialize, ToSchema)]
struct Signed {
    success: bool,
}

/// `POST …/restock`: a visitor's sign-up.
#[utoipa::path(post, path = "/api/site-users/account/notifications/restock", tag = RESTOCK,
    request_body = SignUp, security(("crumb" = [])),
    responses((status = 200, body = Signed, description = "Signed up."),
        (status = 409, body = crate::openapi::ErrorBody, description = "The variant is in stock."),
        WriteErrors))]
async fn sign_up(
    State(app): State<App>,
    call: Call,
    _: Write<FormSubmit>,
    Json(s): Json<SignUp>,
) -> Result<Json<Signed>, ApiError> {
    let wish = Wish {
        product_id: &s.product_id,
        variant_id: &s.variant_id,
        email: s.site_visitor_email.as_deref(),
        join_mailing_list: s.is_join_mailing_list,
        captcha: s
            .captcha_token
            .as_deref()
            .or(s.recaptcha_enterprise_v3_token.as_deref()),
        language: s.language.as_deref(),
    };
    take_sign_up(&app.store, &app.captcha, &call.site, call.client.ip, wish)
        .await
        .map_err(sign_up_refusal)?;
    Ok(Json(Signed { success: true }))
}

/// A refused sign-up in SPEC's words (and ours).
fn sign_up_refusal(e: SignUpError) -> ApiError {
    match e {
        SignUpError::EmailBlank => ApiError::bad_request(EMAIL_BLANK),
        SignUpError::EmailInvalid => ApiError::bad_request(EMAIL_INVALID),
        SignUpError::Language => ApiError::field("language", "Unknown language."),
        SignUpError::Captcha(r) => ApiError::bad_request(r.message()),
        SignUpError::UnknownVariant => ApiError::not_found(UNKNOWN_VARIANT),
        SignUpError::NotEnabled => ApiError::new(StatusCode::FORBIDDEN, NOT_ENABLED),
        SignUpError::InStock => ApiError::new(StatusCode::CONFLICT, IN_STOCK),
        SignUpError::Store(e) => store_failure(&e),
    }
}

/// `limit` (1-100, default [`PAGE`]).
fn limit_of(call: &Call) -> Result<usize, ApiError> {
    match call.query("limit") {
        None => Ok(PAGE),
        Some(l) => l
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| ApiError::field("limit", "limit must be a whole number from 1 to 100.")),
    }
}

/// One page of variants with people waiting.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct GroupsPage {
    sign_up_groups: Vec<Group>,
    has_next_page: bool,
    next_page_cursor: Option<String>,
}

/// A variant with people waiting for it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Group {
    product_id: String,
    variant_id: String,
    product_name: String,
    product_url: String,
    variant_description: String,
    pending_count: u64,
}

/// One page of a variant's sign-ups.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SignUpsPage {
    sign_ups: Vec<SignUpRow>,
    has_next_page: bool,
    next_page_cursor: Option<String>,
}

/// One sign-up; `notifiedOn` is set once its notice went out (milliseconds since 1970).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SignUpRow {
    id: String,
    product_id: String,
    variant_id: String,
    email: String,
    is_join_mailing_list: bool,
    language: Option<String>,
    created_on: i64,
    notified_on: Option<i64>,
}

fn cursor_problem(e: StoreError) -> ApiError {
    match e {
        StoreError::Invalid(_) => {
            ApiError::field("cursor", "This cursor is not one this list gave out.")
        }
        e => store_failure(&e),
    }
}

/// The product's title and page, and the variant's description, from the site content.
fn product_facts(call: &Call, product_id: &str, sku: &str) -> (String, String, String) {
    let link = call.site.content.products.get(product_id);
    let url = link.map_or_else(String::new, |l| format!("{}{}", call.base_url(), l.url));
    let mut title = String::new();
    let mut description = String::new();
    for c in &call.site.content.render.collections {
        if let Some(item) = c
            .items
            .iter()
            .find(|i| i.pointer(&["id"]).and_then(Node::as_str) == Some(product_id))
        {
            title = item
                .pointer(&["title"])
                .and_then(Node::as_str)
                .unwrap_or("")
                .to_owned();
            let options = link.map(|l| l.options.clone()).unwrap_or_default();
            if let Some(Node::Array(vs)) = item.pointer(&["structuredContent", "variants"])
                && let Some(v) = vs
                    .iter()
                    .find(|v| v.pointer(&["sku"]).and_then(Node::as_str) == Some(sku))
            {
                description = options
                    .iter()
                    .filter_map(|o| {
                        let value = v
                            .pointer(&["attributes", o.as_str()])
                            .and_then(Node::as_str)?;
                        Some(format!("{o}: {value}"))
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
            }
        }
    }
    (title, url, description)
}

/// `GET …/restock/groups`: variants with people waiting.
#[utoipa::path(get, path = "/api/site-users/account/notifications/restock/groups", tag = RESTOCK,
    params(("cursor" = Option<String>, Query, description = "From the last page's `nextPageCursor`."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Rows per page (50 unless given).")),
    security(("ownerToken" = [])),
    responses((status = 200, body = GroupsPage), OwnerErrors))]
async fn groups(
    State(app): State<App>,
    call: Owner<area::Orders, Read>,
) -> Result<Json<GroupsPage>, ApiError> {
    let limit = limit_of(&call)?;
    let page = app
        .store
        .restock_groups(call.site.tenant.id, call.query("cursor").as_deref(), limit)
        .await
        .map_err(cursor_problem)?;
    Ok(Json(GroupsPage {
        sign_up_groups: page
            .rows
            .into_iter()
            .map(|g| {
                let (title, url, description) = product_facts(&call, &g.item_id, &g.sku);
                Group {
                    product_id: g.item_id,
                    variant_id: g.sku,
                    product_name: title,
                    product_url: url,
                    variant_description: description,
                    pending_count: g.pending.max(0) as u64,
                }
            })
            .collect(),
        has_next_page: page.has_next_page,
        next_page_cursor: page.next_page_cursor,
    }))
}

fn signup_row(s: RestockSignup) -> SignUpRow {
    SignUpRow {
        id: s.id,
        product_id: s.item_id,
        variant_id: s.sku,
        email: s.email,
        is_join_mailing_list: s.join_mailing_list,
        language: s.language,
        created_on: s.created_ms,
        notified_on: s.notified_ms,
    }
}

/// `GET …/restock?productId&variantId`: one variant's sign-ups.
#[utoipa::path(get, path = "/api/site-users/account/notifications/restock", tag = RESTOCK,
    params(("productId" = String, Query), ("variantId" = String, Query),
        ("cursor" = Option<String>, Query, description = "From the last page's `nextPageCursor`."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Rows per page (50 unless given).")),
    security(("ownerToken" = [])),
    responses((status = 200, body = SignUpsPage), OwnerErrors))]
async fn list(
    State(app): State<App>,
    call: Owner<area::Orders, Read>,
) -> Result<Json<SignUpsPage>, ApiError> {
    let limit = limit_of(&call)?;
    let (Some(product), Some(variant)) = (call.query("productId"), call.query("variantId")) else {
        return Err(ApiError::bad_request("Give productId and variantId."));
    };
    let page = app
        .store
        .restock_signups(
            call.site.tenant.id,
            &product,
            &variant,
            call.query("cursor").as_deref(),
            limit,
        )
        .await
        .map_err(cursor_problem)?;
    Ok(Json(SignUpsPage {
        sign_ups: page.rows.into_iter().map(signup_row).collect(),
        has_next_page: page.has_next_page,
        next_page_cursor: page.next_page_cursor,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SendRequest {
    product_id: String,
    variant_id: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SendAll {
    #[schema(max_items = 500)]
    send_requests: Vec<SendRequest>,
}

/// A variant's back-in-stock notice, written with the site's templates (`emails/restock`):
/// the product's title (`title` when given: an item being saved), page and the variant's
/// options; the address is left for the store to fill in per signer. What the owner's send
/// and a raise of a sold-out variant ([`crate::routes::owner`]'s item and stock routes) send.
pub(crate) fn restock_notice(
    composer: &email::Composer,
    call: &Call,
    product: &str,
    sku: &str,
    title: Option<&str>,
) -> tenants::Email {
    let (stored_title, url, description) = product_facts(call, product, sku);
    let data = json!({
        "website": {"siteTitle": email::site_title(call)},
        "product": {"id": product, "title": title.unwrap_or(&stored_title), "url": url},
        "variant": {"sku": sku, "description": description},
    });
    composer.email(compose::RESTOCK, &data, "", None)
}

/// The writer of restock notices when the store sends them by itself as a sold-out variant
/// comes back (an owner's raise of its stock, a cancelled order's units put back):
/// `restock.autoNotify`, on unless turned off; `None` when it does not.
pub(crate) async fn auto_composer(app: &App, call: &Call) -> Option<email::Composer> {
    if call.site.content.commerce.restock.auto_notify {
        Some(crate::routes::composer(app, call).await)
    } else {
        None
    }
}

/// The notice a store sends by itself with `composer` ([`auto_composer`]), as the store's
/// `*_notifying` writes take it; `None` when it sends none.
pub(crate) fn auto_notice<'a>(
    composer: Option<&'a email::Composer>,
    call: &'a Call,
) -> Option<impl Fn(&str, &str) -> Option<tenants::Email> + Send + Sync + 'a> {
    let composer = composer?;
    Some(move |product: &str, sku: &str| Some(restock_notice(composer, call, product, sku, None)))
}

/// Emails the waiting signers of each variant `(product id, sku)` (once each) and marks
/// them notified: one email per variant, written with the site's templates, only the
/// address differing between its signers. How many went out per variant.
async fn notify(app: &App, call: &Call, variants: &[(&str, &str)]) -> Result<Vec<u64>, ApiError> {
    let composer = crate::routes::composer(app, call).await;
    let notice = |product: &str, sku: &str| restock_notice(&composer, call, product, sku, None);
    send_notices(
        &app.store,
        &app.outbox,
        call.site.tenant.id,
        variants,
        notice,
    )
    .await
    .map_err(|e| store_failure(&e))
}

/// How many notices went out.
#[derive(Serialize, ToSchema)]
struct Sent {
    sent: u64,
}

/// Notices sent per variant.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SentAll {
    sent: u64,
    results: Vec<SentOne>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SentOne {
    product_id: String,
    variant_id: String,
    sent: u64,
}

/// `POST …/restock/send`: emails one variant's waiting signers (once each).
#[utoipa::path(post, path = "/api/site-users/account/notifications/restock/send", tag = RESTOCK,
    request_body = SendRequest, security(("ownerToken" = [])),
    responses((status = 200, body = Sent), OwnerErrors))]
async fn send(
    State(app): State<App>,
    owner: Owner<area::Store, Change>,
    Json(r): Json<SendRequest>,
) -> Result<Json<Sent>, ApiError> {
    let sent = notify(&app, &owner, &[(&r.product_id, &r.variant_id)]).await?;
    Ok(Json(Sent {
        sent: sent.iter().sum(),
    }))
}

/// `POST …/restock/send/all`: emails the waiting signers of up to 500 variants.
#[utoipa::path(post, path = "/api/site-users/account/notifications/restock/send/all", tag = RESTOCK,
    request_body = SendAll, security(("ownerToken" = [])),
    responses((status = 200, body = SentAll), OwnerErrors))]
async fn send_all(
    State(app): State<App>,
    owner: Owner<area::Store, Change>,
    Json(all): Json<SendAll>,
) -> Result<Json<SentAll>, ApiError> {
    if all.send_requests.len() > 500 {
        return Err(ApiError::field(
            "sendRequests",
            "Send at most 500 variants at a time.",
        ));
    }
    let variants: Vec<(&str, &str)> = all
        .send_requests
        .iter()
        .map(|r| (r.product_id.as_str(), r.variant_id.as_str()))
        .collect();
    let counts = notify(&app, &owner, &variants).await?;
    let results: Vec<SentOne> = all
        .send_requests
        .into_iter()
        .zip(counts)
        .map(|(r, sent)| SentOne {
            product_id: r.product_id,
            variant_id: r.variant_id,
            sent,
        })
        .collect();
    Ok(Json(SentAll {
        sent: results.iter().map(|r| r.sent).sum(),
        results,
    }))
}

/// The restock routes.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(sign_up, list))
        .routes(routes!(groups))
        .routes(routes!(send))
        .routes(routes!(send_all))
}
