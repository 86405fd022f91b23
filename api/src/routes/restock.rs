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

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::json;
use template_lang::value::Node;
use tenants::{RestockSignup, StoreError};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::email::{self, compose};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
// Owner calls: the lists hold people's addresses (read as orders are); sending is the
// store's work.
use crate::http::owner::{Access, Area, begin as owner};
use crate::openapi::{OwnerErrors, RESTOCK, WriteErrors};
use crate::server::App;

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

/// The merchandising preferences (`restockNotificationsEnabled` ...).
fn merchandising_flag(call: &Call, product_id: &str, key: &str) -> bool {
    call.site
        .content
        .render
        .merchandising
        .pointer(&[product_id, key])
        .is_some_and(|n| match n {
            Node::Bool(b) => *b,
            Node::Array(a) => !a.is_empty(),
            _ => false,
        })
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
async fn sign_up(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::FormSubmit).await?;
            let s: SignUp = read_json(body, MAX_JSON_BODY).await?;
            let email = s
                .site_visitor_email
                .as_deref()
                .unwrap_or("")
                .trim()
                .to_owned();
            if email.is_empty() {
                return Err(ApiError::bad_request(EMAIL_BLANK));
            }
            if !restock_email_ok(&email) {
                return Err(ApiError::bad_request(EMAIL_INVALID));
            }
            if let Some(lang) = &s.language
                && (lang.is_empty()
                    || lang.len() > 35
                    || !lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
            {
                return Err(ApiError::field("language", "Unknown language."));
            }
            let token = s
                .captcha_token
                .as_deref()
                .or(s.recaptcha_enterprise_v3_token.as_deref());
            app.captcha
                .check(&app, &call, token)
                .await
                .map_err(|r| ApiError::bad_request(r.message()))?;
            let t = call.site.tenant.id;
            // The product page only offers sign-ups when the store takes them, for variants
            // that are sold out right now (live stock, not the page's).
            if call
                .site
                .content
                .render
                .merchandising
                .pointer(&[&s.product_id])
                .is_none()
            {
                return Err(ApiError::not_found(UNKNOWN_VARIANT));
            }
            if !merchandising_flag(&call, &s.product_id, "restockNotificationsEnabled") {
                return Err(ApiError::new(StatusCode::FORBIDDEN, NOT_ENABLED));
            }
            let stock = app
                .store
                .stock(t, &s.product_id)
                .await
                .map_err(|e| store_failure(&e))?;
            match stock.iter().find(|l| l.sku == s.variant_id) {
                None => return Err(ApiError::not_found(UNKNOWN_VARIANT)),
                Some(l) if l.unlimited || l.qty_in_stock > 0 => {
                    return Err(ApiError::new(StatusCode::CONFLICT, IN_STOCK));
                }
                Some(_) => {}
            }
            let join = s.is_join_mailing_list
                && merchandising_flag(&call, &s.product_id, "mailingListSignUpEnabled");
            match app
                .store
                .restock_signup(
                    t,
                    &s.product_id,
                    &s.variant_id,
                    &email,
                    join,
                    s.language.as_deref(),
                )
                .await
            {
                Ok(_) => Ok(json_response(
                    StatusCode::OK,
                    &json!(Signed { success: true }),
                )),
                Err(StoreError::NotFound(_)) => Err(ApiError::not_found(UNKNOWN_VARIANT)),
                Err(e) => Err(store_failure(&e)),
            }
        }
        .await,
    )
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
async fn groups(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = owner(&app, req, Area::Orders, Access::Read).await?;
            let limit = limit_of(&call)?;
            let page = app
                .store
                .restock_groups(call.site.tenant.id, call.query("cursor").as_deref(), limit)
                .await
                .map_err(cursor_problem)?;
            let body = GroupsPage {
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
            };
            Ok(json_response(StatusCode::OK, &json!(body)))
        }
        .await,
    )
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
async fn list(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = owner(&app, req, Area::Orders, Access::Read).await?;
            let limit = limit_of(&call)?;
            let (Some(product), Some(variant)) = (call.query("productId"), call.query("variantId"))
            else {
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
            let body = SignUpsPage {
                sign_ups: page.rows.into_iter().map(signup_row).collect(),
                has_next_page: page.has_next_page,
                next_page_cursor: page.next_page_cursor,
            };
            Ok(json_response(StatusCode::OK, &json!(body)))
        }
        .await,
    )
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

/// Emails every waiting signer of one variant (once) and marks them notified.
async fn send_one(app: &App, call: &Call, r: &SendRequest) -> Result<u64, ApiError> {
    let (title, url, description) = product_facts(call, &r.product_id, &r.variant_id);
    // One template pass gives every signer the same words; only the address differs.
    let data = json!({
        "website": {"siteTitle": email::site_title(call)},
        "product": {"id": r.product_id, "title": title, "url": url},
        "variant": {"sku": r.variant_id, "description": description},
    });
    let template =
        email::Composer::for_call(app, call)
            .await
            .email(compose::RESTOCK, &data, "", None);
    let sent = app
        .store
        .send_restock_notices(call.site.tenant.id, &r.product_id, &r.variant_id, |s| {
            Some(tenants::Email {
                to: s.email.clone(),
                ..template.clone()
            })
        })
        .await
        .map_err(|e| store_failure(&e))?;
    if sent > 0 {
        app.outbox.nudge();
    }
    Ok(sent)
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
async fn send(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = owner(&app, req, Area::Store, Access::Write).await?;
            let r: SendRequest = read_json(body, MAX_JSON_BODY).await?;
            let sent = send_one(&app, &call, &r).await?;
            Ok(json_response(StatusCode::OK, &json!(Sent { sent })))
        }
        .await,
    )
}

/// `POST …/restock/send/all`: emails the waiting signers of up to 500 variants.
#[utoipa::path(post, path = "/api/site-users/account/notifications/restock/send/all", tag = RESTOCK,
    request_body = SendAll, security(("ownerToken" = [])),
    responses((status = 200, body = SentAll), OwnerErrors))]
async fn send_all(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = owner(&app, req, Area::Store, Access::Write).await?;
            let all: SendAll = read_json(body, MAX_JSON_BODY).await?;
            if all.send_requests.len() > 500 {
                return Err(ApiError::field(
                    "sendRequests",
                    "Send at most 500 variants at a time.",
                ));
            }
            let mut results = Vec::new();
            let mut total = 0;
            for r in &all.send_requests {
                let sent = send_one(&app, &call, r).await?;
                total += sent;
                results.push(SentOne {
                    product_id: r.product_id.clone(),
                    variant_id: r.variant_id.clone(),
                    sent,
                });
            }
            Ok(json_response(
                StatusCode::OK,
                &json!(SentAll {
                    sent: total,
                    results
                }),
            ))
        }
        .await,
    )
}

/// The restock routes.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(sign_up, list))
        .routes(routes!(groups))
        .routes(routes!(send))
        .routes(routes!(send_all))
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
