//! Comments and likes on items (migration 7). Pages show an item's `publicCommentCount` and
//! `likeCount`: what the import gave plus the approved comments and the likes stored here,
//! added when the site's content loads ([`add_counts`]). So a change to what pages show
//! (an approved comment, a new like) bumps the content version like any content edit; a
//! comment waiting for the owner changes nothing a page shows.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::model::Item;
use crate::params;
use crate::sql::{Row, SqlValue, Tx};
use crate::store::Store;

/// Where a comment stands.
pub mod state {
    /// Waiting for the owner; not public.
    pub const PENDING: &str = "pending";
    /// Public and counted.
    pub const APPROVED: &str = "approved";
    /// Turned down; not public.
    pub const REJECTED: &str = "rejected";
    /// Marked as spam by the owner; not public, and kept apart from the rejected.
    pub const SPAM: &str = "spam";
    /// Every state, in the order the owner's counts list them.
    pub const ALL: [&str; 4] = [PENDING, APPROVED, REJECTED, SPAM];
}

/// A comment on an item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    /// 24-hex id.
    pub id: String,
    /// The item it is on.
    pub item_id: String,
    /// The member who wrote it.
    #[serde(skip_serializing)]
    pub site_user_id: Option<String>,
    /// The name shown with it.
    pub author_name: String,
    /// Plain text.
    pub body: String,
    /// One of [`state`].
    pub state: String,
    /// Epoch ms.
    pub created_ms: i64,
}

const COLUMNS: &str = "id, item_id, site_user_id, author_name, body, state, created_ms";

fn comment_of(r: &Row) -> Result<Comment> {
    Ok(Comment {
        id: r.text(0)?,
        item_id: r.text(1)?,
        site_user_id: r.opt_text(2)?,
        author_name: r.text(3)?,
        body: r.text(4)?,
        state: r.text(5)?,
        created_ms: r.i64(6)?,
    })
}

/// The statements [`add_counts`] reads: approved comments and likes per item.
pub(crate) fn counts_queries(tenant: TenantId) -> [(String, Vec<SqlValue>); 2] {
    [
        (
            "SELECT item_id, COUNT(*) FROM item_comment WHERE tenant_id = $1 AND state = $2 GROUP BY item_id".into(),
            params![tenant, state::APPROVED],
        ),
        (
            "SELECT item_id, COUNT(*) FROM item_like WHERE tenant_id = $1 GROUP BY item_id".into(),
            params![tenant],
        ),
    ]
}

/// Adds the stored approved comments and likes (the rows of [`counts_queries`], read in
/// the content load's snapshot) to the items' `publicCommentCount` and `likeCount`.
pub(crate) fn add_counts(comments: &[Row], likes: &[Row], items: &mut [Item]) -> Result<()> {
    let mut counts: HashMap<String, (i64, i64)> = HashMap::new();
    for r in comments {
        counts.entry(r.text(0)?).or_default().0 = r.i64(1)?;
    }
    for r in likes {
        counts.entry(r.text(0)?).or_default().1 = r.i64(1)?;
    }
    if counts.is_empty() {
        return Ok(());
    }
    for item in items.iter_mut() {
        let Some((comments, likes)) = counts.get(&item.id) else {
            continue;
        };
        for (key, add) in [("publicCommentCount", comments), ("likeCount", likes)] {
            if *add > 0 {
                let base = item.data.get(key).and_then(Value::as_i64).unwrap_or(0);
                item.data.insert(key.into(), Value::from(base + add));
            }
        }
    }
    Ok(())
}

/// `NotFound` unless `item_id` is an item of this site that visitors see
/// ([`crate::model::Visibility::shows`]).
async fn item_here_in(tx: &mut Tx, tenant: TenantId, item_id: &str) -> Result<()> {
    let found = tx
        .query_opt(
            "SELECT visibility, publish_on FROM item WHERE tenant_id = $1 AND id = $2",
            params![tenant, item_id],
        )
        .await?;
    match found {
        Some(r)
            if crate::model::Visibility::stored_shows(
                &r.text(0)?,
                r.i64(1)?,
                crate::ids::now_ms(),
            ) =>
        {
            Ok(())
        }
        _ => Err(StoreError::NotFound(format!("item {item_id}"))),
    }
}

impl Store {
    /// Stores a member's comment on an item of this site: approved at once when
    /// `approved`, else waiting for the owner. `NotFound` for an item of no collection here.
    pub async fn post_comment(
        &self,
        tenant: TenantId,
        item_id: &str,
        site_user_id: &str,
        author_name: &str,
        body: &str,
        approved: bool,
    ) -> Result<Comment> {
        let mut tx = self.write().await?;
        item_here_in(&mut tx, tenant, item_id).await?;
        let c = Comment {
            id: new_id(),
            item_id: item_id.to_owned(),
            site_user_id: Some(site_user_id.to_owned()),
            author_name: author_name.to_owned(),
            body: body.to_owned(),
            state: if approved {
                state::APPROVED
            } else {
                state::PENDING
            }
            .to_owned(),
            created_ms: now_ms(),
        };
        tx.execute(
            &format!("INSERT INTO item_comment (tenant_id, {COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"),
            params![tenant, c.id.as_str(), c.item_id.as_str(), c.site_user_id.as_deref(), c.author_name.as_str(), c.body.as_str(), c.state.as_str(), c.created_ms],
        )
        .await?;
        if approved {
            self.commit_change(tx, tenant, Change::Content).await?;
        } else {
            tx.commit().await?;
        }
        Ok(c)
    }

    /// An item's approved comments, oldest first.
    pub async fn public_comments(&self, tenant: TenantId, item_id: &str) -> Result<Vec<Comment>> {
        let mut tx = self.read().await?;
        tx.query(
            &format!(
                "SELECT {COLUMNS} FROM item_comment WHERE tenant_id = $1 AND item_id = $2 AND state = $3 \
                 ORDER BY created_ms, id"
            ),
            params![tenant, item_id, state::APPROVED],
        )
        .await?
        .iter()
        .map(comment_of)
        .collect()
    }

    /// The site's comments waiting for the owner, oldest first.
    pub async fn pending_comments(&self, tenant: TenantId) -> Result<Vec<Comment>> {
        let mut tx = self.read().await?;
        tx.query(
            &format!(
                "SELECT {COLUMNS} FROM item_comment WHERE tenant_id = $1 AND state = $2 ORDER BY created_ms, id"
            ),
            params![tenant, state::PENDING],
        )
        .await?
        .iter()
        .map(comment_of)
        .collect()
    }

    /// The owner approves, rejects or marks as spam a comment (any way round, any number
    /// of times). `NotFound` for no such comment on this site; `Invalid` for another state.
    pub async fn moderate_comment(&self, tenant: TenantId, id: &str, to: &str) -> Result<Comment> {
        if to != state::APPROVED && to != state::REJECTED && to != state::SPAM {
            return Err(StoreError::Invalid(format!(
                "a comment is approved, rejected or spam, not {to:?}"
            )));
        }
        let mut tx = self.write().await?;
        let row = tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM item_comment WHERE tenant_id = $1 AND id = $2"),
                params![tenant, id],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("comment {id}")))?;
        let mut c = comment_of(&row)?;
        let was_public = c.state == state::APPROVED;
        tx.execute(
            "UPDATE item_comment SET state = $3, moderated_ms = $4 WHERE tenant_id = $1 AND id = $2",
            params![tenant, id, to, now_ms()],
        )
        .await?;
        c.state = to.to_owned();
        if was_public != (to == state::APPROVED) {
            self.commit_change(tx, tenant, Change::Content).await?;
        } else {
            tx.commit().await?;
        }
        Ok(c)
    }

    /// The owner deletes a comment for good: the comment as it was. `NotFound` for no such
    /// comment on this site. Deleting an approved one changes what its page shows.
    pub async fn delete_comment(&self, tenant: TenantId, id: &str) -> Result<Comment> {
        let mut tx = self.write().await?;
        let row = tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM item_comment WHERE tenant_id = $1 AND id = $2"),
                params![tenant, id],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("comment {id}")))?;
        let c = comment_of(&row)?;
        tx.execute(
            "DELETE FROM item_comment WHERE tenant_id = $1 AND id = $2",
            params![tenant, id],
        )
        .await?;
        if c.state == state::APPROVED {
            self.commit_change(tx, tenant, Change::Content).await?;
        } else {
            tx.commit().await?;
        }
        Ok(c)
    }

    /// How many of the site's comments are in each state: `(state, count)` for each of
    /// [`state::ALL`], in that order (0 for none).
    pub async fn comment_counts(&self, tenant: TenantId) -> Result<Vec<(&'static str, i64)>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT state, COUNT(*) FROM item_comment WHERE tenant_id = $1 GROUP BY state",
                params![tenant],
            )
            .await?;
        let mut found = HashMap::new();
        for r in &rows {
            found.insert(r.text(0)?, r.i64(1)?);
        }
        Ok(state::ALL
            .iter()
            .map(|s| (*s, found.get(*s).copied().unwrap_or(0)))
            .collect())
    }

    /// A page of the site's comments in `state`, the newest first: at most `limit`, those
    /// before `after` (the `(created_ms, id)` of the last of the page before), and the
    /// cursor of the next page when there is one.
    pub async fn comments_in_state(
        &self,
        tenant: TenantId,
        in_state: &str,
        after: Option<(i64, String)>,
        limit: usize,
    ) -> Result<(Vec<Comment>, Option<(i64, String)>)> {
        let mut tx = self.read().await?;
        let (at, id) = after.unwrap_or((i64::MAX, String::new()));
        let rows = tx
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM item_comment WHERE tenant_id = $1 AND state = $2 \
                     AND (created_ms < $3 OR (created_ms = $3 AND id < $4)) \
                     ORDER BY created_ms DESC, id DESC LIMIT $5"
                ),
                params![tenant, in_state, at, id.as_str(), (limit + 1) as i64],
            )
            .await?;
        let mut comments = rows.iter().map(comment_of).collect::<Result<Vec<_>>>()?;
        let next = if comments.len() > limit {
            comments.truncate(limit);
            comments.last().map(|c| (c.created_ms, c.id.clone()))
        } else {
            None
        };
        Ok((comments, next))
    }

    /// A visitor likes an item of this site, once: `true` when the like is new.
    /// `NotFound` for an item of no collection here.
    pub async fn like_item(&self, tenant: TenantId, item_id: &str, visitor: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        item_here_in(&mut tx, tenant, item_id).await?;
        let added = tx
            .execute(
                "INSERT INTO item_like (tenant_id, item_id, visitor, created_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (tenant_id, item_id, visitor) DO NOTHING",
                params![tenant, item_id, visitor, now_ms()],
            )
            .await?;
        if added > 0 {
            self.commit_change(tx, tenant, Change::Content).await?;
        } else {
            tx.commit().await?;
        }
        Ok(added > 0)
    }
}
