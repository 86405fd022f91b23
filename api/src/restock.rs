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

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use template_lang::value::Node;
use tenants::{CursorPage, RestockSignup, StoreError};

use crate::email::{self, compose};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
// Owner calls: the lists hold people's addresses (read as orders are); sending is the
// store's work.
use crate::http::owner::{Access, Area, begin as owner};
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

const BASE: &str = "/api/site-users/account/notifications/restock";
/// Rows per owner page unless `limit` asks for fewer (1-100).
const PAGE: usize = 50;

/// SPEC.md §5: 3-256 characters, `local@domain` with a 2-4 letter top-level part.
pub fn restock_email_ok(email: &str) -> bool {
    if !(3..=256).contains(&email.chars().count()) || email.chars().any(char::is_whitespace) {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let Some((host, tld)) = domain.rsplit_once('.') else {
        return false;
    };
    !local.is_empty()
        && !host.is_empty()
        && !domain.contains('@')
        && !host.starts_with('.')
        && (2..=4).contains(&tld.len())
        && tld.bytes().all(|b| b.is_ascii_alphabetic())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SignUp {
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

/// `POST …/restock`: a visitor's sign-up.
async fn sign_up(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::FormSubmit)?;
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
                Ok(_) => Ok(json_response(StatusCode::OK, &json!({ "success": true }))),
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

fn page_json<T>(page: CursorPage<T>, key: &str, row: impl Fn(&T) -> Value) -> Value {
    json!({
        key: page.rows.iter().map(row).collect::<Vec<_>>(),
        "hasNextPage": page.has_next_page,
        "nextPageCursor": page.next_page_cursor,
    })
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
            let body = page_json(page, "signUpGroups", |g| {
                let (title, url, description) = product_facts(&call, &g.item_id, &g.sku);
                json!({
                    "productId": g.item_id, "variantId": g.sku, "productName": title,
                    "productUrl": url, "variantDescription": description, "pendingCount": g.pending,
                })
            });
            Ok(json_response(StatusCode::OK, &body))
        }
        .await,
    )
}

fn signup_json(s: &RestockSignup) -> Value {
    json!({
        "id": s.id, "productId": s.item_id, "variantId": s.sku, "email": s.email,
        "isJoinMailingList": s.join_mailing_list, "language": s.language,
        "createdOn": s.created_ms, "notifiedOn": s.notified_ms,
    })
}

/// `GET …/restock?productId&variantId`: one variant's sign-ups.
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
            Ok(json_response(
                StatusCode::OK,
                &page_json(page, "signUps", signup_json),
            ))
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SendRequest {
    product_id: String,
    variant_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SendAll {
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

/// `POST …/restock/send` {productId, variantId} → `{sent}`.
async fn send(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = owner(&app, req, Area::Store, Access::Write).await?;
            let r: SendRequest = read_json(body, MAX_JSON_BODY).await?;
            let sent = send_one(&app, &call, &r).await?;
            Ok(json_response(StatusCode::OK, &json!({ "sent": sent })))
        }
        .await,
    )
}

/// `POST …/restock/send/all` {sendRequests} → `{sent, results: [{productId, variantId, sent}]}`.
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
                results.push(
                    json!({ "productId": r.product_id, "variantId": r.variant_id, "sent": sent }),
                );
            }
            Ok(json_response(
                StatusCode::OK,
                &json!({ "sent": total, "results": results }),
            ))
        }
        .await,
    )
}

/// The restock routes.
pub fn routes() -> Router<App> {
    Router::new()
        .route(BASE, post(sign_up).get(list))
        .route(&format!("{BASE}/groups"), get(groups))
        .route(&format!("{BASE}/send"), post(send))
        .route(&format!("{BASE}/send/all"), post(send_all))
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
