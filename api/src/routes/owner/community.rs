//! The site's community as its owner runs it: comment moderation with the counts per
//! state and the items' likes, the members, and the member areas with the pages each
//! covers. Moderation reuses the store's comment states ([`tenants::comment_state`]) that
//! `POST /api/comments/{id}/moderation` moves, and adds spam and deletion.
//!
//! | route | role may | body / query | answer |
//! |---|---|---|---|
//! | `GET /api/owner/comments?state&after&limit` | comments, read | state: pending (default) \| approved \| rejected \| spam | `{counts, comments, next, likes}`: the newest first |
//! | `PATCH /api/owner/comments/{id}` | comments, change | `{state}`: approved \| rejected \| spam | `{comment}` |
//! | `DELETE /api/owner/comments/{id}` | comments, change | | `{deleted}` |
//! | `GET /api/owner/members?q&after&limit` | orders, read | | `{total, members, next}`: the newest first |
//! | `GET /api/owner/member-areas` | content, read | | `{areas, planProducts}`: each area with its pages, join button, price and members; the products that can be a price |
//! | `PATCH /api/owner/member-areas/{id}` | content, change | `{title?, description?, joinButtonText?, planProductId?}` | `{area}` |
//!
//! Members are people with an email address, as customers are: reading them is the orders
//! area's, like the customers list that names them. The member areas are the site's
//! structure (no one's data but a count), the content area's; so is its price, which names
//! one of the store's products (`planProductId`: a digital, service or paywall product for a
//! one-time payment, a subscription product for a recurring one; empty for a free area). Approving, rejecting, marking
//! as spam or deleting a comment that was public changes what its page shows: a content
//! change, served by every node from the next page.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use renderer::site::SiteContent;
use serde::{Deserialize, Serialize};
use template_lang::value::Node;
use tenants::comment_state;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{Deleted, paging};
use crate::http::commerce::messages::plan_problem;
use crate::http::commerce::money::{OwnerMoney, owner_money};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const NO_COMMENT: &str = "That comment does not exist.";
pub const BAD_STATE: &str = "A comment is approved, rejected or spam.";
pub const BAD_LIST_STATE: &str = "state must be pending, approved, rejected or spam.";
pub const NO_AREA: &str = "That member area does not exist.";
pub const NO_TITLE: &str = "A member area needs a title.";
pub const LONG_TITLE: &str = "A title can have at most 100 characters.";
pub const LONG_DESCRIPTION: &str = "A description can have at most 1000 characters.";
pub const LONG_JOIN: &str = "A button label can have at most 50 characters.";
/// The longest member area title, description and join button label, in characters.
pub const MAX_TITLE: usize = 100;
pub const MAX_DESCRIPTION: usize = 1000;
pub const MAX_JOIN: usize = 50;
/// The most items `likes` lists (those liked most).
pub const MAX_LIKED: usize = 50;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(comments))
        .routes(routes!(moderate, delete_comment))
        .routes(routes!(members))
        .routes(routes!(member_areas))
        .routes(routes!(change_member_area))
}

/// A comment as the owner moderates it, with the item it is on.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerComment)]
struct CommentView {
    id: String,
    item_id: String,
    /// The item's title (empty when the site no longer shows the item).
    item_title: String,
    /// The item's page (absent when the site no longer shows the item).
    #[serde(skip_serializing_if = "Option::is_none")]
    item_url: Option<String>,
    author_name: String,
    /// Plain text.
    body: String,
    /// `pending`, `approved`, `rejected` or `spam`.
    state: String,
    /// Ms since 1970.
    created_on: i64,
}

fn text(node: &Node, key: &str) -> Option<String> {
    node.pointer(&[key])
        .and_then(Node::as_str)
        .map(str::to_owned)
}

fn number(node: &Node, key: &str) -> i64 {
    match node.pointer(&[key]) {
        Some(Node::Number(n)) => *n as i64,
        _ => 0,
    }
}

fn comment_view(site: &SiteContent, c: &tenants::Comment) -> CommentView {
    let item = site.item_by_id(&c.item_id).map(|(_, item)| item);
    CommentView {
        id: c.id.clone(),
        item_id: c.item_id.clone(),
        item_title: item.and_then(|i| text(i, "title")).unwrap_or_default(),
        item_url: item.and_then(|i| text(i, "fullUrl")),
        author_name: c.author_name.clone(),
        body: c.body.clone(),
        state: c.state.clone(),
        created_on: c.created_ms,
    }
}

/// How many comments are in each state.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerCommentCounts)]
struct CommentCounts {
    pending: i64,
    approved: i64,
    rejected: i64,
    spam: i64,
}

/// An item its visitors liked or commented on, with its counts as its page shows them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerLikedItem)]
struct LikedItem {
    item_id: String,
    title: String,
    url: String,
    like_count: i64,
    /// Its public comments.
    comment_count: i64,
}

/// A page of the comments in one state, the counts of every state, and the items liked.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerComments)]
struct Comments {
    counts: CommentCounts,
    comments: Vec<CommentView>,
    /// The `after` of the next page, absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<String>,
    /// The items with likes or public comments, the most liked first (at most 50).
    likes: Vec<LikedItem>,
}

/// The items visitors liked or commented on, the most liked first.
fn liked_items(site: &SiteContent) -> Vec<LikedItem> {
    let mut out: Vec<LikedItem> = site
        .collections
        .iter()
        .flat_map(|c| c.items.iter())
        .filter_map(|item| {
            let like_count = number(item, "likeCount");
            let comment_count = number(item, "publicCommentCount");
            (like_count > 0 || comment_count > 0).then(|| LikedItem {
                item_id: text(item, "id").unwrap_or_default(),
                title: text(item, "title").unwrap_or_default(),
                url: text(item, "fullUrl").unwrap_or_default(),
                like_count,
                comment_count,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (b.like_count, b.comment_count, &a.title).cmp(&(a.like_count, a.comment_count, &b.title))
    });
    out.truncate(MAX_LIKED);
    out
}

/// `GET /api/owner/comments`: the comments in one state, the newest first, with the counts
/// of every state and the items liked.
#[utoipa::path(get, path = "/api/owner/comments", tag = OWNER,
    operation_id = "owner.comments",
    params(
        ("state" = Option<String>, Query, description = "`pending` (the default), `approved`, `rejected` or `spam`."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Comments), OwnerErrors))]
async fn comments(
    State(app): State<App>,
    owner: Owner<area::Comments, Read>,
) -> Result<Json<Comments>, ApiError> {
    let state = owner
        .query("state")
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| comment_state::PENDING.to_owned());
    if !comment_state::ALL.contains(&state.as_str()) {
        return Err(ApiError::field("state", BAD_LIST_STATE));
    }
    let after = paging::after::<(i64, String)>(&owner)?;
    let limit = paging::limit(&owner)?;
    let tenant = owner.site.tenant.id;
    let (rows, next) = app
        .store
        .comments_in_state(tenant, &state, after, limit)
        .await
        .map_err(|e| store_failure(&e))?;
    let counts: BTreeMap<&str, i64> = app
        .store
        .comment_counts(tenant)
        .await
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .collect();
    let site = &owner.site.content.render;
    let count = |s: &str| counts.get(s).copied().unwrap_or(0);
    Ok(Json(Comments {
        counts: CommentCounts {
            pending: count(comment_state::PENDING),
            approved: count(comment_state::APPROVED),
            rejected: count(comment_state::REJECTED),
            spam: count(comment_state::SPAM),
        },
        comments: rows.iter().map(|c| comment_view(site, c)).collect(),
        next: paging::next(next),
        likes: liked_items(site),
    }))
}

/// A comment's new state.
#[derive(Deserialize, Default, ToSchema)]
#[schema(as = OwnerCommentPatch)]
pub(crate) struct Patch {
    /// `approved`, `rejected` or `spam`.
    #[serde(default)]
    #[schema(required = true)]
    state: String,
}

/// The comment as it now is.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerCommentChanged)]
struct Changed {
    comment: CommentView,
}

/// `PATCH /api/owner/comments/{id}`: approves a comment, rejects it or marks it as spam.
#[utoipa::path(patch, path = "/api/owner/comments/{id}", tag = OWNER,
    operation_id = "owner.moderate_comment",
    params(("id" = String, Path, description = "The comment's id.")),
    request_body = Patch, security(("ownerToken" = [])),
    responses((status = 200, body = Changed), OwnerErrors))]
async fn moderate(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Comments, Change>,
    Json(b): Json<Patch>,
) -> Result<Json<Changed>, ApiError> {
    let to = b.state.as_str();
    if ![
        comment_state::APPROVED,
        comment_state::REJECTED,
        comment_state::SPAM,
    ]
    .contains(&to)
    {
        return Err(ApiError::field("state", BAD_STATE));
    }
    let c = app
        .store
        .moderate_comment(owner.site.tenant.id, &id, to)
        .await
        .map_err(|e| super::refused(&e, NO_COMMENT))?;
    Ok(Json(Changed {
        comment: comment_view(&owner.site.content.render, &c),
    }))
}

/// `DELETE /api/owner/comments/{id}`: deletes a comment for good.
#[utoipa::path(delete, path = "/api/owner/comments/{id}", tag = OWNER,
    operation_id = "owner.delete_comment",
    params(("id" = String, Path, description = "The comment's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Deleted), OwnerErrors))]
async fn delete_comment(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Comments, Change>,
) -> Result<Json<Deleted>, ApiError> {
    let c = app
        .store
        .delete_comment(owner.site.tenant.id, &id)
        .await
        .map_err(|e| super::refused(&e, NO_COMMENT))?;
    Ok(Json(Deleted { deleted: c.id }))
}

/// A member (site user).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMember)]
struct Member {
    id: String,
    /// Lower-cased.
    email: String,
    /// May be empty.
    display_name: String,
    /// When they signed up (or were imported), ms since 1970.
    created_on: i64,
    /// They confirmed their email; one who has not cannot sign in yet.
    confirmed: bool,
    /// The member areas they joined.
    areas: Vec<MemberAreaRef>,
}

/// A member area a member belongs to.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerMemberAreaRef)]
struct MemberAreaRef {
    id: String,
    /// As the site declares it (the id for an area it no longer declares).
    title: String,
    /// The paid order that opened it; absent when it was joined for free.
    #[serde(skip_serializing_if = "Option::is_none")]
    order: Option<OrderRef>,
}

/// An order, as a link to the order screen.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderRef)]
struct OrderRef {
    id: String,
    /// Its number (absent while it is being placed).
    #[serde(skip_serializing_if = "Option::is_none")]
    order_number: Option<i64>,
}

/// A page of the members.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerMembers)]
struct Members {
    /// How many members the site has in all.
    total: i64,
    members: Vec<Member>,
    /// The `after` of the next page, absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<String>,
}

/// `GET /api/owner/members`: the site's members, the newest first.
#[utoipa::path(get, path = "/api/owner/members", tag = OWNER,
    operation_id = "owner.members",
    params(
        ("q" = Option<String>, Query, max_length = 100, description = "Words the email or name contains."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Members), OwnerErrors))]
async fn members(
    State(app): State<App>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<Members>, ApiError> {
    let q = paging::search(&owner)?;
    let after = paging::after::<(i64, String)>(&owner)?;
    let limit = paging::limit(&owner)?;
    let tenant = owner.site.tenant.id;
    let (rows, next) = app
        .store
        .members_page(tenant, q.as_deref(), after, limit)
        .await
        .map_err(|e| store_failure(&e))?;
    let (_, total) = app
        .store
        .member_counts(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    let content = super::site_content(&app.store, tenant).await?;
    let declared =
        tenants::member_areas::member_areas(&content.settings.website_settings).unwrap_or_default();
    let title = |id: &str| {
        declared
            .iter()
            .find(|a| a.id == id)
            .map_or_else(|| id.to_owned(), |a| a.title.clone())
    };
    Ok(Json(Members {
        total,
        members: rows
            .into_iter()
            .map(|m| Member {
                id: m.user.id,
                email: m.user.email,
                display_name: m.user.display_name,
                created_on: m.user.created_ms,
                confirmed: m.user.verified_ms.is_some(),
                areas: m
                    .areas
                    .into_iter()
                    .map(|j| MemberAreaRef {
                        title: title(&j.area),
                        id: j.area,
                        order: j.order_id.map(|id| OrderRef {
                            id,
                            order_number: j.order_number,
                        }),
                    })
                    .collect(),
            })
            .collect(),
        next: paging::next(next),
    }))
}

/// A page a member area covers: a collection in it, or inside a folder that is.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMemberAreaPage)]
struct AreaPage {
    collection_id: String,
    title: String,
    url: String,
}

/// A member area as the site declares it, with what it covers and its price: free, or the
/// product its join button sells (`planProductId`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMemberArea)]
struct Area {
    id: String,
    title: String,
    description: String,
    /// The join button's label (the join page's "Join" when the site names none).
    join_button_text: String,
    /// The product that is its price; absent for a free area.
    #[serde(skip_serializing_if = "Option::is_none")]
    plan_product_id: Option<String>,
    /// Its price as the join page writes it ("$12.00", "$5.00 / month"); absent for a free
    /// area, and for one whose product can no longer be its price (deleted since, say: the
    /// join page then sells nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    price_text: Option<String>,
    /// How many members joined it.
    members: i64,
    /// The pages it covers, in the site's order.
    pages: Vec<AreaPage>,
}

/// A product that can be a member area's price.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerPlanProduct)]
struct PlanOption {
    product_id: String,
    title: String,
    /// `digital`, `service`, `paywall` (one-time payments) or `subscription` (recurring).
    kind: &'static str,
    price: OwnerMoney,
    /// For a subscription, its billing period ("month", "2 weeks").
    #[serde(skip_serializing_if = "Option::is_none")]
    period: Option<String>,
    /// The price as the join page writes it ("$5.00 / month").
    price_text: String,
    /// The area it is the price of already, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    used_by: Option<String>,
}

/// The site's member areas, and the store's products that can be one's price.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerMemberAreas)]
struct Areas {
    areas: Vec<Area>,
    /// Digital, service and paywall products and subscriptions with one variant, in title
    /// order; empty when the store has none.
    plan_products: Vec<PlanOption>,
}

/// A billing period as the join page writes it: "month", "2 weeks".
fn period_text(value: i64, unit: &str) -> String {
    let unit = unit.to_ascii_lowercase();
    if value == 1 {
        unit
    } else {
        format!("{value} {unit}s")
    }
}

/// A plan product as the owner's picker lists it.
fn plan_option(
    p: tenants::PlanProduct,
    locale: &icu_locale::Locale,
    declared: &[tenants::member_areas::MemberArea],
) -> PlanOption {
    use tenants::commerce::product_type;
    let period = p.period.as_ref().map(|(v, u)| period_text(*v, u));
    let price = owner_money(p.price_minor, &p.currency, locale);
    PlanOption {
        kind: match (&period, p.product_type) {
            (Some(_), _) => "subscription",
            (None, product_type::DIGITAL) => "digital",
            (None, product_type::SERVICE) => "service",
            _ => "paywall",
        },
        price_text: match &period {
            Some(per) => format!("{} / {per}", price.formatted),
            None => price.formatted.clone(),
        },
        period,
        price,
        used_by: tenants::member_areas::area_sold_by(declared, &p.item_id).map(|a| a.id.clone()),
        product_id: p.item_id,
        title: p.title,
    }
}

/// `GET /api/owner/member-areas`: the site's member areas, with the pages each covers, the
/// join button and how many members joined.
#[utoipa::path(get, path = "/api/owner/member-areas", tag = OWNER,
    operation_id = "owner.member_areas",
    security(("ownerToken" = [])),
    responses((status = 200, body = Areas), OwnerErrors))]
async fn member_areas(
    State(app): State<App>,
    owner: Owner<area::Content, Read>,
) -> Result<Json<Areas>, ApiError> {
    let tenant = owner.site.tenant.id;
    let content = super::site_content(&app.store, tenant).await?;
    // The import checked them; a site whose list does not read has none to show.
    let declared =
        tenants::member_areas::member_areas(&content.settings.website_settings).unwrap_or_default();
    let (joined, _) = app
        .store
        .member_counts(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    let locale = &owner.site.content.locale;
    let plan_products: Vec<PlanOption> = app
        .store
        .plan_products(tenant)
        .await
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .map(|p| plan_option(p, locale, &declared))
        .collect();
    let site = &owner.site.content.render;
    let areas = declared
        .into_iter()
        .map(|a| area_view(site, a, &joined, &plan_products))
        .collect();
    Ok(Json(Areas {
        areas,
        plan_products,
    }))
}

/// An area with the pages it covers and its members.
fn area_view(
    site: &SiteContent,
    a: tenants::member_areas::MemberArea,
    joined: &BTreeMap<String, i64>,
    plans: &[PlanOption],
) -> Area {
    let pages = (0..site.collections.len())
        .filter(|i| site.member_area_of(*i) == Some(a.id.as_str()))
        .map(|i| {
            let c = &site.collections[i];
            AreaPage {
                collection_id: c.id().to_owned(),
                title: c.field("title").unwrap_or(&c.url_id).to_owned(),
                url: c.full_url(),
            }
        })
        .collect();
    let price_text = a.plan_product_id.as_deref().and_then(|p| {
        plans
            .iter()
            .find(|o| o.product_id == p)
            .map(|o| o.price_text.clone())
    });
    Area {
        members: joined.get(&a.id).copied().unwrap_or(0),
        plan_product_id: a.plan_product_id,
        price_text,
        join_button_text: a
            .join_button_text
            .unwrap_or_else(|| renderer::render::DEFAULT_JOIN_TEXT.to_owned()),
        id: a.id,
        title: a.title,
        description: a.description,
        pages,
    }
}

/// What changes of a member area: only the fields given.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OwnerMemberAreaPatch)]
pub(crate) struct AreaPatch {
    /// 1-100 characters once trimmed.
    title: Option<String>,
    /// At most 1000 characters; empty for none.
    description: Option<String>,
    /// At most 50 characters; empty for the join page's "Join".
    join_button_text: Option<String>,
    /// The product that is its price (a digital, service or paywall product, or a
    /// subscription, with one variant, that no other area is sold by); empty to make it
    /// free.
    plan_product_id: Option<String>,
}

/// The area as it now is.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerMemberAreaChanged)]
struct AreaChanged {
    area: Area,
}

/// `PATCH /api/owner/member-areas/{id}`: changes a member area's title, description, join
/// button label or price (`planProductId`); its join page shows them from the next page on.
#[utoipa::path(patch, path = "/api/owner/member-areas/{id}", tag = OWNER,
    operation_id = "owner.change_member_area",
    params(("id" = String, Path, description = "The area's id.")),
    request_body = AreaPatch, security(("ownerToken" = [])),
    responses((status = 200, body = AreaChanged), OwnerErrors))]
async fn change_member_area(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Content, Change>,
    Json(b): Json<AreaPatch>,
) -> Result<Json<AreaChanged>, ApiError> {
    let mut errors = serde_json::Map::new();
    let title = b.title.map(|t| t.trim().to_owned());
    if let Some(t) = &title {
        if t.is_empty() {
            errors.insert("title".into(), NO_TITLE.into());
        } else if t.chars().count() > MAX_TITLE {
            errors.insert("title".into(), LONG_TITLE.into());
        }
    }
    let description = b.description.map(|d| d.trim().to_owned());
    if description
        .as_ref()
        .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION)
    {
        errors.insert("description".into(), LONG_DESCRIPTION.into());
    }
    let join = b.join_button_text.map(|j| j.trim().to_owned());
    if join.as_ref().is_some_and(|j| j.chars().count() > MAX_JOIN) {
        errors.insert("joinButtonText".into(), LONG_JOIN.into());
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let tenant = owner.site.tenant.id;
    let area = app
        .store
        .update_member_area(
            tenant,
            &id,
            tenants::AreaChange {
                title,
                description,
                join_button_text: join,
                plan_product_id: b.plan_product_id.map(|p| p.trim().to_owned()),
            },
        )
        .await
        .map_err(|e| match e {
            tenants::StoreError::Refused(tenants::commerce::Refusal::PlanProduct(p)) => {
                ApiError::field("planProductId", plan_problem(p))
            }
            e => super::refused(&e, NO_AREA),
        })?;
    let (joined, _) = app
        .store
        .member_counts(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    let content = super::site_content(&app.store, tenant).await?;
    let declared =
        tenants::member_areas::member_areas(&content.settings.website_settings).unwrap_or_default();
    let plans: Vec<PlanOption> = app
        .store
        .plan_products(tenant)
        .await
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .map(|p| plan_option(p, &owner.site.content.locale, &declared))
        .collect();
    Ok(Json(AreaChanged {
        area: area_view(&owner.site.content.render, area, &joined, &plans),
    }))
}
