//! Store creation in SPEC.md §4's order, and a store's categories. The owner API's
//! `POST …/products` runs [`Store::create_store`]; every step is in one transaction, so a
//! store whose navigation step fails is not created at all.

use serde_json::{Map, Value, json};

use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id};
use crate::model::{Category, Collection};
use crate::params;
use crate::repo::content::{put_category_in, put_collection_in, put_navigation_in};
use crate::sql::Tx;
use crate::store::Store;

/// SPEC.md §9: the shortest slug.
pub const MIN_SLUG: usize = 3;
/// SPEC.md §4: the title a too-short slug is made from instead.
pub const FALLBACK_TITLE: &str = "Store";
/// SPEC.md §9: nested categories a store may have.
pub const MAX_CATEGORIES: i64 = 10_000;
/// The products collection's platform type and template type.
pub const PRODUCTS_TYPE: i64 = 13;
pub const PRODUCTS_TYPE_NAME: &str = "products";
/// SPEC.md §3's root category: its type and page rendering.
pub const ROOT: &str = "ROOT";
/// The root category's page rendering.
pub const LIST_VIEW: &str = "LIST_VIEW";

/// A store to create.
#[derive(Clone, Debug, Default)]
pub struct NewStore {
    /// The store's title.
    pub title: String,
    /// Defaults to the title.
    pub navigation_title: String,
    /// HTML description.
    pub description: String,
    /// The slug to start from; the title's when empty.
    pub url_id: String,
    /// The navigation to append the store to (the layout's first, "main" one), if asked.
    pub navigation: Option<String>,
}

/// What [`Store::create_store`] made.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatedStore {
    /// The products collection.
    pub collection: Collection,
    /// Its root category.
    pub root_category: Category,
}

/// A slug: lower-case ASCII letters and digits, runs of anything else as one `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// `base` if free, else `base-N` with the lowest free N from 1 (SPEC.md §4 step 1).
fn free_url_id(base: &str, taken: &[String]) -> String {
    if !taken.iter().any(|t| t == base) {
        return base.to_owned();
    }
    (1..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| !taken.iter().any(|t| t == id))
        .expect("some number is free")
}

async fn url_ids_like(tx: &mut Tx, tenant: TenantId, base: &str) -> Result<Vec<String>> {
    let rows = tx
        .query(
            "SELECT url_id FROM collection WHERE tenant_id = $1 AND (url_id = $2 OR url_id LIKE $3)",
            params![tenant, base, format!("{base}-%")],
        )
        .await?;
    rows.iter().map(|r| r.text(0)).collect()
}

impl Store {
    /// SPEC.md §4 "Store creation", in order: a unique URL id, the products collection
    /// (enabled), its root category, then the navigation if one is named.
    pub async fn create_store(&self, tenant: TenantId, s: &NewStore) -> Result<CreatedStore> {
        let mut base = slug(if s.url_id.trim().is_empty() {
            &s.title
        } else {
            &s.url_id
        });
        if base.len() < MIN_SLUG {
            base = slug(FALLBACK_TITLE);
        }
        let mut tx = self.write().await?;
        let taken = url_ids_like(&mut tx, tenant, &base).await?;
        let navigation_title = if s.navigation_title.trim().is_empty() {
            s.title.clone()
        } else {
            s.navigation_title.clone()
        };
        let mut collection = Collection {
            id: String::new(),
            url_id: free_url_id(&base, &taken),
            title: s.title.clone(),
            navigation_title,
            description: s.description.clone(),
            kind: PRODUCTS_TYPE,
            type_name: PRODUCTS_TYPE_NAME.to_owned(),
            ordering: "user-orderable".to_owned(),
            enabled: true,
            homepage: false,
            parent_id: None,
            position: next_position(&mut tx, tenant).await?,
            page_size: None,
            data: Map::new(),
            password_hash: None,
        };
        collection.id = put_collection_in(&mut tx, tenant, &collection).await?;
        let root_category = Category {
            id: new_id(),
            collection_id: collection.id.clone(),
            display_name: s.title.clone(),
            parent_category_id: None,
            kind: ROOT.to_owned(),
            page_rendering: LIST_VIEW.to_owned(),
            display_index: 1,
        };
        put_category_in(&mut tx, tenant, &root_category).await?;
        if let Some(name) = &s.navigation {
            let row = tx
                .query_opt(
                    "SELECT items FROM navigation WHERE tenant_id = $1 AND name = $2",
                    params![tenant, name.as_str()],
                )
                .await?;
            let mut items = match row {
                Some(r) => r.json::<Value>(0)?,
                None => json!([]),
            };
            if let Some(list) = items.as_array_mut() {
                list.push(json!({ "collectionId": collection.id }));
            }
            put_navigation_in(&mut tx, tenant, name, &items).await?;
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(CreatedStore {
            collection,
            root_category,
        })
    }

    /// Adds a category to a store collection of this site. A `ROOT` category has no parent
    /// and a store has one; any other has a parent among the store's categories. Names are
    /// unique under one parent.
    pub async fn add_category(&self, tenant: TenantId, c: &Category) -> Result<Category> {
        let mut tx = self.write().await?;
        let kind = tx
            .query_opt(
                "SELECT kind FROM collection WHERE tenant_id = $1 AND id = $2",
                params![tenant, c.collection_id.as_str()],
            )
            .await?;
        if kind.map(|r| r.i64(0)).transpose()? != Some(PRODUCTS_TYPE) {
            return Err(StoreError::NotFound(format!("store {}", c.collection_id)));
        }
        let count = tx
            .query_one(
                "SELECT COUNT(*) FROM category WHERE tenant_id = $1 AND collection_id = $2",
                params![tenant, c.collection_id.as_str()],
            )
            .await?
            .i64(0)?;
        if count >= MAX_CATEGORIES {
            return Err(StoreError::Invalid(format!(
                "A store has at most {MAX_CATEGORIES} categories."
            )));
        }
        match (&c.parent_category_id, c.kind == ROOT) {
            (None, true) => {
                let roots = tx
                    .query_one(
                        "SELECT COUNT(*) FROM category WHERE tenant_id = $1 AND collection_id = $2 AND kind = $3",
                        params![tenant, c.collection_id.as_str(), ROOT],
                    )
                    .await?
                    .i64(0)?;
                if roots > 0 {
                    return Err(StoreError::Conflict("root category".into()));
                }
            }
            (Some(parent), false) => {
                let found = tx
                    .query_opt(
                        "SELECT id FROM category WHERE tenant_id = $1 AND collection_id = $2 AND id = $3",
                        params![tenant, c.collection_id.as_str(), parent.as_str()],
                    )
                    .await?;
                if found.is_none() {
                    return Err(StoreError::NotFound(format!("category {parent}")));
                }
            }
            _ => {
                return Err(StoreError::Invalid(
                    "A ROOT category has no parent; any other kind has one.".into(),
                ));
            }
        }
        let twin = tx
            .query_opt(
                "SELECT id FROM category WHERE tenant_id = $1 AND collection_id = $2 \
                 AND COALESCE(parent_id, '') = $3 AND LOWER(display_name) = LOWER($4)",
                params![
                    tenant,
                    c.collection_id.as_str(),
                    c.parent_category_id.clone().unwrap_or_default(),
                    c.display_name.as_str()
                ],
            )
            .await?;
        if twin.is_some() {
            return Err(StoreError::Conflict("category name".into()));
        }
        let made = Category {
            id: new_id(),
            ..c.clone()
        };
        put_category_in(&mut tx, tenant, &made).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(made)
    }
}

async fn next_position(tx: &mut Tx, tenant: TenantId) -> Result<i64> {
    tx.query_one(
        "SELECT COALESCE(MAX(position), 0) + 1 FROM collection WHERE tenant_id = $1",
        params![tenant],
    )
    .await?
    .i64(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_free_ids() {
        assert_eq!(slug("  Ceramics & Glaze Shop! "), "ceramics-glaze-shop");
        assert_eq!(slug("Café"), "caf");
        assert_eq!(slug("ä"), "");
        let taken = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(free_url_id("shop", &taken(&[])), "shop");
        assert_eq!(free_url_id("shop", &taken(&["shop"])), "shop-1");
        assert_eq!(
            free_url_id("shop", &taken(&["shop", "shop-1", "shop-3"])),
            "shop-2"
        );
    }
}
