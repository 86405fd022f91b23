//! Comments and likes on items, as templates show them (`commentState` 1 is open,
//! `publicCommentCount`, `likeCount`; the `comment-count` formatter says "No Comments",
//! "1 Comment", "N Comments").
//!
//! | route | who | body / query | answer |
//! |---|---|---|---|
//! | `GET /api/comments` | anyone who may see the item | itemId | `{itemId, commentState, publicCommentCount, comments}` (approved only) |
//! | `POST /api/comments` | member (crumb, XSRF header, rate limited as forms) | itemId, body | 201 `{comment, message}` |
//! | `GET /api/comments/pending` | owner token (comments, read) | | `{comments}` |
//! | `POST /api/comments/{id}/moderation` | owner token (comments, write) | state: approved \| rejected | `{comment}` |
//! | `POST /api/likes` | visitor (crumb, rate limited as forms) | itemId | `{liked, likeCount}` |
//!
//! An item takes comments when its `commentState` is 1 and the site has not turned
//! comments off (`websiteSettings.commentsEnabled: false`). Comments wait for the owner
//! unless `websiteSettings.commentsRequireApproval` is false. Likes need
//! `websiteSettings.simpleLikingEnabled` not false, and count once per liker: a signed-in
//! member by their account (on every device), else the visitor `ss_cvr` names (two years),
//! else, where visitors stay unnamed (a restrictive cookie policy), their crumb (this
//! browser session). A visitor who liked and then signs in can like once more as a member.
//! An item behind a password or in a member area the caller cannot open is not found, like
//! an item of another site.

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use renderer::site::SiteContent;
use serde::Deserialize;
use serde_json::json;
use template_lang::value::Node;

use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
use crate::http::owner::{self, Access, Area};
use crate::server::App;

/// The longest comment, in characters.
pub const MAX_COMMENT: usize = 2000;

pub const NOT_FOUND: &str = "That item does not exist.";
pub const CLOSED: &str = "Comments are closed for this item.";
pub const EMPTY: &str = "Please write a comment.";
pub const TOO_LONG: &str = "Your comment can have at most 2000 characters.";
pub const AWAITING: &str = "Thank you. Your comment will show once the site owner approves it.";
pub const POSTED: &str = "Your comment is posted.";
pub const LIKES_OFF: &str = "Likes are turned off on this site.";
pub const BAD_STATE: &str = "A comment is approved or rejected.";
pub const NO_COMMENT: &str = "That comment does not exist.";

/// A store refusal as the caller reads it: what is not on this site is not found.
fn refused(e: &tenants::StoreError, not_found: &'static str) -> ApiError {
    match e {
        tenants::StoreError::NotFound(_) => ApiError::not_found(not_found),
        e => store_failure(e),
    }
}

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/comments", get(list).post(create))
        .route("/api/comments/pending", get(pending))
        .route("/api/comments/{id}/moderation", post(moderate))
        .route("/api/likes", post(like))
}

/// A `websiteSettings` flag that is on unless set to `false`.
fn setting_on(site: &SiteContent, key: &str) -> bool {
    !matches!(
        site.website_settings.pointer(&[key]),
        Some(Node::Bool(false))
    )
}

/// The item `id` of the call's site as this caller may see it: 404 when there is none, or
/// when a password or member area keeps it from them.
async fn visible_item(app: &App, call: &Call, id: &str) -> Result<Node, ApiError> {
    let site = &call.site.content.render;
    let Some((collection, item)) = site.item_by_id(id) else {
        return Err(ApiError::not_found(NOT_FOUND));
    };
    // Only an item something keeps from someone needs the caller's keys.
    if site.lock_of(collection, &[]).is_some() {
        let keys =
            crate::site_users::visitor_keys(app, call.site.tenant.id, site, &call.headers).await;
        if site.lock_of(collection, &keys).is_some() {
            return Err(ApiError::not_found(NOT_FOUND));
        }
    }
    Ok(item.clone())
}

fn number(item: &Node, key: &str) -> i64 {
    match item.pointer(&[key]) {
        Some(Node::Number(n)) => *n as i64,
        _ => 0,
    }
}

fn comment_json(c: &tenants::Comment) -> serde_json::Value {
    json!({"id": c.id, "itemId": c.item_id, "authorName": c.author_name, "body": c.body,
           "state": c.state, "createdOn": c.created_ms})
}

/// `GET /api/comments?itemId=`.
async fn list(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            let id = call.query("itemId").unwrap_or_default();
            let item = visible_item(&app, &call, &id).await?;
            let comments = app
                .store
                .public_comments(call.site.tenant.id, &id)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!({
                    "itemId": id,
                    "commentState": number(&item, "commentState"),
                    "publicCommentCount": number(&item, "publicCommentCount"),
                    "comments": comments.iter().map(comment_json).collect::<Vec<_>>(),
                }),
            ))
        }
        .await,
    )
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct NewComment {
    #[serde(default)]
    item_id: String,
    #[serde(default)]
    body: String,
}

/// `POST /api/comments` {itemId, body}: a member comments.
async fn create(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::FormSubmit)?;
            let (_, user) = crate::site_users::member_writing(&app, &call).await?;
            let b: NewComment = read_json(body, MAX_JSON_BODY).await?;
            let item = visible_item(&app, &call, &b.item_id).await?;
            let site = &call.site.content.render;
            if number(&item, "commentState") != 1 || !setting_on(site, "commentsEnabled") {
                return Err(ApiError::new(StatusCode::FORBIDDEN, CLOSED));
            }
            let text = b.body.trim();
            if text.is_empty() {
                return Err(ApiError::field("body", EMPTY));
            }
            if text.chars().count() > MAX_COMMENT {
                return Err(ApiError::field("body", TOO_LONG));
            }
            let approved = !setting_on(site, "commentsRequireApproval");
            let name = if user.display_name.trim().is_empty() {
                user.email.split('@').next().unwrap_or("Member").to_owned()
            } else {
                user.display_name.clone()
            };
            let c = app
                .store
                .post_comment(call.site.tenant.id, &b.item_id, &user.id, &name, text, approved)
                .await
                .map_err(|e| refused(&e, NOT_FOUND))?;
            Ok(json_response(
                StatusCode::CREATED,
                &json!({"comment": comment_json(&c), "message": if approved { POSTED } else { AWAITING }}),
            ))
        }
        .await,
    )
}

/// `GET /api/comments/pending`: what waits for the owner.
async fn pending(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            owner::require(&app, &call, Area::Comments, Access::Read).await?;
            let comments = app
                .store
                .pending_comments(call.site.tenant.id)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"comments": comments.iter().map(comment_json).collect::<Vec<_>>()}),
            ))
        }
        .await,
    )
}

#[derive(Deserialize, Default)]
struct Moderation {
    #[serde(default)]
    state: String,
}

/// `POST /api/comments/{id}/moderation` {state}.
async fn moderate(State(app): State<App>, Path(id): Path<String>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            owner::require(&app, &call, Area::Comments, Access::Write).await?;
            let b: Moderation = read_json(body, MAX_JSON_BODY).await?;
            let to = b.state.as_str();
            if to != tenants::comment_state::APPROVED && to != tenants::comment_state::REJECTED {
                return Err(ApiError::field("state", BAD_STATE));
            }
            let c = app
                .store
                .moderate_comment(call.site.tenant.id, &id, to)
                .await
                .map_err(|e| refused(&e, NO_COMMENT))?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"comment": comment_json(&c)}),
            ))
        }
        .await,
    )
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Like {
    #[serde(default)]
    item_id: String,
}

/// Who a like counts for (see the module's notes), as stored.
async fn liker(app: &App, call: &Call) -> Result<String, ApiError> {
    if let Some((_, user)) = crate::site_users::member(app, call).await? {
        return Ok(format!("member:{}", user.id));
    }
    if let Some(v) = crate::analytics::page_views::named_visitor(&call.headers) {
        return Ok(format!("visitor:{v}"));
    }
    // The crumb was checked by `call.write`: it is this browser's.
    crate::http::crumb::of_visitor(&call.headers, &call.site.secret)
        .map(|c| format!("crumb:{c}"))
        .ok_or_else(ApiError::crumb_fail)
}

/// `POST /api/likes` {itemId}.
async fn like(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            call.write(&app, Family::FormSubmit)?;
            let liker = liker(&app, &call).await?;
            let b: Like = read_json(body, MAX_JSON_BODY).await?;
            let item = visible_item(&app, &call, &b.item_id).await?;
            if !setting_on(&call.site.content.render, "simpleLikingEnabled") {
                return Err(ApiError::new(StatusCode::FORBIDDEN, LIKES_OFF));
            }
            let new = app
                .store
                .like_item(call.site.tenant.id, &b.item_id, &liker)
                .await
                .map_err(|e| refused(&e, NOT_FOUND))?;
            // The page's count, with this like in it (the content reloads with it).
            let count = number(&item, "likeCount") + i64::from(new);
            Ok(json_response(
                StatusCode::OK,
                &json!({"liked": true, "likeCount": count}),
            ))
        }
        .await,
    )
}
