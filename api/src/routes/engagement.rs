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

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use renderer::site::SiteContent;
use serde::{Deserialize, Serialize};
use template_lang::value::Node;
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::call::Call;
use crate::http::error::store_failure;
use crate::http::extract::family::FormSubmit;
use crate::http::extract::{Change, Read, area};
use crate::http::member::{MemberWriting, SIGNED_OUT, described};
use crate::http::{ApiError, Created, Json, Owner, Write};
use crate::openapi::{ENGAGEMENT, OwnerErrors, VisitorErrors, WriteErrors};
use crate::server::state::App;

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

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(pending))
        .routes(routes!(moderate))
        .routes(routes!(like))
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
    // Behind a site password, nothing of the site for a visitor who has not entered it
    // (its owner sees it, and so does `tessera dev`'s author, as on its pages).
    if app.dev.is_none()
        && !crate::routes::lock_screen::site_unlocked(&call.headers, site, call.site.tenant.id)
        && crate::http::extract::role_of(app, &call.site.tenant, &call.headers)
            .await
            .ok()
            .flatten()
            .is_none()
    {
        return Err(ApiError::not_found(NOT_FOUND));
    }
    // Only an item something keeps from someone needs the caller's keys.
    if site.lock_of(collection, &[]).is_some() {
        let keys =
            crate::http::member::visitor_keys(app, call.site.tenant.id, site, &call.headers).await;
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

/// A comment. `state` is `pending`, `approved` or `rejected`; `createdOn` is in
/// milliseconds since 1970.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Comment)]
struct CommentJson {
    id: String,
    item_id: String,
    author_name: String,
    body: String,
    state: String,
    created_on: i64,
}

fn comment_json(c: &tenants::Comment) -> CommentJson {
    CommentJson {
        id: c.id.clone(),
        item_id: c.item_id.clone(),
        author_name: c.author_name.clone(),
        body: c.body.clone(),
        state: c.state.clone(),
        created_on: c.created_ms,
    }
}

/// An item's approved comments, oldest first, with the item's comment state (1: open) and
/// count as its page shows them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ItemComments {
    item_id: String,
    comment_state: i64,
    public_comment_count: i64,
    comments: Vec<CommentJson>,
}

/// Reading an item's comments can get 404 (no such item for this caller) and 503.
struct ReadErrors;

impl IntoResponses for ReadErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        r.remove("400");
        r
    }
}

/// `GET /api/comments?itemId=`: an item's approved comments.
#[utoipa::path(get, path = "/api/comments", tag = ENGAGEMENT,
    params(("itemId" = String, Query, description = "The item (404 when the caller may not see it).")),
    responses((status = 200, body = ItemComments), ReadErrors))]
async fn list(State(app): State<App>, call: Call) -> Result<Json<ItemComments>, ApiError> {
    let id = call.query("itemId").unwrap_or_default();
    let item = visible_item(&app, &call, &id).await?;
    let comments = app
        .store
        .public_comments(call.site.tenant.id, &id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(ItemComments {
        comment_state: number(&item, "commentState"),
        public_comment_count: number(&item, "publicCommentCount"),
        item_id: id,
        comments: comments.iter().map(comment_json).collect(),
    }))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewComment {
    #[serde(default)]
    #[schema(required = true)]
    item_id: String,
    /// 1 to 2000 characters once trimmed.
    #[serde(default)]
    #[schema(required = true)]
    body: String,
}

/// The comment taken, and what the member reads about it.
#[derive(Serialize, ToSchema)]
struct CommentPosted {
    comment: CommentJson,
    message: &'static str,
}

/// What commenting can get besides its answer.
struct CommentErrors;

impl IntoResponses for CommentErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        r.insert("401".to_owned(), described(&r["400"], SIGNED_OUT));
        r.insert(
            "403".to_owned(),
            described(
                &r["403"],
                "The crumb is missing or wrong (`crumbFail: true`), `X-XSRF-Token` is not the session's, or the item's comments are closed.",
            ),
        );
        r
    }
}

/// `POST /api/comments`: a member comments on an item.
///
/// The comment shows at once, or after the owner approves it (`state` says which).
#[utoipa::path(post, path = "/api/comments", tag = ENGAGEMENT,
    request_body = NewComment,
    params(("X-XSRF-Token" = String, Header, description = "The member's session `xsrfToken`.")),
    security(("crumb" = [])),
    responses((status = 201, body = CommentPosted), CommentErrors))]
async fn create(
    State(app): State<App>,
    call: Call,
    _: Write<FormSubmit>,
    MemberWriting(_, user): MemberWriting,
    Json(b): Json<NewComment>,
) -> Result<Created<CommentPosted>, ApiError> {
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
        .post_comment(
            call.site.tenant.id,
            &b.item_id,
            &user.id,
            &name,
            text,
            approved,
        )
        .await
        .map_err(|e| refused(&e, NOT_FOUND))?;
    Ok(Created(CommentPosted {
        comment: comment_json(&c),
        message: if approved { POSTED } else { AWAITING },
    }))
}

/// Comments.
#[derive(Serialize, ToSchema)]
struct CommentList {
    comments: Vec<CommentJson>,
}

/// An owner's read without parameters: 401, 403, 404, 503.
struct OwnerReadErrors;

impl IntoResponses for OwnerReadErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = OwnerErrors::responses();
        r.remove("400");
        r.remove("413");
        r
    }
}

/// `GET /api/comments/pending`: the comments waiting for the owner.
#[utoipa::path(get, path = "/api/comments/pending", tag = ENGAGEMENT,
    security(("ownerToken" = [])),
    responses((status = 200, body = CommentList), OwnerReadErrors))]
async fn pending(
    State(app): State<App>,
    owner: Owner<area::Comments, Read>,
) -> Result<Json<CommentList>, ApiError> {
    let comments = app
        .store
        .pending_comments(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(CommentList {
        comments: comments.iter().map(comment_json).collect(),
    }))
}

#[derive(Deserialize, Default, ToSchema)]
#[schema(as = CommentModeration)]
pub(crate) struct Moderation {
    /// `approved` or `rejected`.
    #[serde(default)]
    #[schema(required = true)]
    state: String,
}

/// The comment as it now is.
#[derive(Serialize, ToSchema)]
struct Moderated {
    comment: CommentJson,
}

/// `POST /api/comments/{id}/moderation`: approves or rejects a comment.
#[utoipa::path(post, path = "/api/comments/{id}/moderation", tag = ENGAGEMENT,
    params(("id" = String, Path, description = "The comment's id.")),
    request_body = Moderation, security(("ownerToken" = [])),
    responses((status = 200, body = Moderated), OwnerErrors))]
async fn moderate(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Comments, Change>,
    Json(b): Json<Moderation>,
) -> Result<Json<Moderated>, ApiError> {
    let to = b.state.as_str();
    if to != tenants::comment_state::APPROVED && to != tenants::comment_state::REJECTED {
        return Err(ApiError::field("state", BAD_STATE));
    }
    let c = app
        .store
        .moderate_comment(owner.site.tenant.id, &id, to)
        .await
        .map_err(|e| refused(&e, NO_COMMENT))?;
    Ok(Json(Moderated {
        comment: comment_json(&c),
    }))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = LikeBody)]
pub(crate) struct Like {
    #[serde(default)]
    #[schema(required = true)]
    item_id: String,
}

/// Liked; `likeCount` is the item's count with this like in it (a second like by the same
/// liker is not counted).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Liked {
    liked: bool,
    like_count: i64,
}

/// Who a like counts for (see the module's notes), as stored.
async fn liker(app: &App, call: &Call) -> Result<String, ApiError> {
    if let Some((_, user)) = crate::http::member::member(app, call).await? {
        return Ok(format!("member:{}", user.id));
    }
    if let Some(v) = crate::analytics::page_views::named_visitor(&call.headers) {
        return Ok(format!("visitor:{v}"));
    }
    // The crumb was checked by `Write`: it is this browser's.
    crate::http::crumb::of_visitor(&call.headers, &call.site.secret)
        .map(|c| format!("crumb:{c}"))
        .ok_or_else(ApiError::crumb_fail)
}

/// `POST /api/likes`: likes an item (once per liker).
#[utoipa::path(post, path = "/api/likes", tag = ENGAGEMENT,
    request_body = Like, security(("crumb" = [])),
    responses((status = 200, body = Liked),
        WriteErrors,
        (status = 403, body = crate::openapi::ErrorBody,
            description = "The crumb is missing or wrong (`crumbFail: true`), or likes are turned off on this site.")))]
async fn like(
    State(app): State<App>,
    call: Call,
    _: Write<FormSubmit>,
    Json(b): Json<Like>,
) -> Result<Json<Liked>, ApiError> {
    let liker = liker(&app, &call).await?;
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
    Ok(Json(Liked {
        liked: true,
        like_count: count,
    }))
}
