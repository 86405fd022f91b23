//! Creating a store (SPEC.md §4 "Store creation") and adding its categories.
//!
//! A store's steps run in SPEC order in one transaction of the store
//! ([`tenants::Store::create_store`]): a unique URL id, the products collection, its root
//! category, then, when asked, a link at the end of the main navigation (the first of the
//! template's layout). A site whose template has no navigation gets
//! [`CreateStoreError::NoMainNavigation`] and nothing is created.

use std::future::Future;

use tenants::store_setup::{LIST_VIEW, ROOT};
use tenants::{Category, CreatedStore, NewStore, Store, StoreError, TenantId};

/// The longest store title, in characters.
pub const MAX_TITLE: usize = 200;
/// SPEC.md §9: the longest category name, in characters.
pub const MAX_CATEGORY_NAME: usize = 25;
/// The page renderings a category may have.
pub const RENDERINGS: [&str; 2] = [LIST_VIEW, "GRID_VIEW"];

/// A store as the owner asks for it.
#[derive(Debug, Default)]
pub struct StoreRequest {
    pub title: String,
    /// The title in navigation (the title's when empty).
    pub navigation_title: String,
    /// HTML description.
    pub description: String,
    /// The slug to start from (the title's when empty).
    pub url_id: String,
    /// Add a link to the store at the end of the main navigation.
    pub add_to_navigation: bool,
}

/// Why a store was not created.
#[derive(Debug, thiserror::Error)]
pub enum CreateStoreError {
    #[error("the title is blank")]
    NoTitle,
    #[error("the title has more than {MAX_TITLE} characters")]
    LongTitle,
    /// A link was asked for, and the site's template has no navigation.
    #[error("the site's template has no navigation")]
    NoMainNavigation,
    /// The template's navigations could not be read.
    #[error("loading the template failed: {0}")]
    Template(String),
    #[error(transparent)]
    Store(StoreError),
}

/// The store made, and the navigation it was added to (if asked).
#[derive(Debug)]
pub struct StoreMade {
    pub made: CreatedStore,
    pub navigation: Option<String>,
}

/// Creates a store on `tenant`. `navigations` is the template's navigations in
/// `template.conf` order, `(name, title)`: awaited only when the store goes into the main
/// one.
pub async fn create_store(
    store: &Store,
    tenant: TenantId,
    navigations: impl Future<Output = Result<Vec<(String, String)>, String>>,
    asked: StoreRequest,
) -> Result<StoreMade, CreateStoreError> {
    let title = asked.title.trim();
    if title.is_empty() {
        return Err(CreateStoreError::NoTitle);
    }
    if title.chars().count() > MAX_TITLE {
        return Err(CreateStoreError::LongTitle);
    }
    let navigation = if asked.add_to_navigation {
        let main = navigations
            .await
            .map_err(CreateStoreError::Template)?
            .into_iter()
            .next()
            .map(|(name, _)| name);
        Some(main.ok_or(CreateStoreError::NoMainNavigation)?)
    } else {
        None
    };
    let made = store
        .create_store(
            tenant,
            &NewStore {
                title: title.to_owned(),
                navigation_title: asked.navigation_title.trim().to_owned(),
                description: asked.description,
                url_id: asked.url_id,
                navigation: navigation.clone(),
            },
        )
        .await
        .map_err(CreateStoreError::Store)?;
    Ok(StoreMade { made, navigation })
}

/// A category as the owner asks for it.
#[derive(Debug, Default)]
pub struct CategoryRequest {
    pub display_name: String,
    /// The parent category (empty: a root category).
    pub parent_category_id: String,
    /// The kind (`ROOT` without a parent, `CATEGORY` under one, when empty).
    pub kind: String,
    /// `LIST_VIEW` (when empty) or `GRID_VIEW`.
    pub page_rendering: String,
    /// Order among siblings (1 when absent).
    pub display_index: Option<i64>,
}

/// Why a category was not added.
#[derive(Debug, thiserror::Error)]
pub enum AddCategoryError {
    #[error("the name is blank")]
    NoName,
    #[error("the name has more than {MAX_CATEGORY_NAME} characters")]
    LongName,
    #[error("the page rendering is not one of LIST_VIEW, GRID_VIEW")]
    BadRendering,
    #[error("the display index is negative")]
    BadIndex,
    #[error("the parent category does not exist")]
    NoParent,
    #[error("the store already has a root category")]
    RootExists,
    #[error("the store already has a category of this name")]
    Exists,
    /// Anything else the store refused or failed at (a store that does not exist is
    /// `NotFound`).
    #[error(transparent)]
    Store(StoreError),
}

/// Adds a category to the store `collection_id` of `tenant`.
pub async fn add_category(
    store: &Store,
    tenant: TenantId,
    collection_id: String,
    asked: CategoryRequest,
) -> Result<Category, AddCategoryError> {
    let name = asked.display_name.trim();
    if name.is_empty() {
        return Err(AddCategoryError::NoName);
    }
    if name.chars().count() > MAX_CATEGORY_NAME {
        return Err(AddCategoryError::LongName);
    }
    let parent = Some(asked.parent_category_id.trim().to_owned()).filter(|p| !p.is_empty());
    // Without a type: a root without a parent, a category under one.
    let kind = match asked.kind.trim() {
        "" if parent.is_none() => ROOT.to_owned(),
        "" => "CATEGORY".to_owned(),
        k => k.to_ascii_uppercase(),
    };
    let rendering = match asked.page_rendering.trim() {
        "" => LIST_VIEW.to_owned(),
        r if RENDERINGS.contains(&r) => r.to_owned(),
        _ => return Err(AddCategoryError::BadRendering),
    };
    let index = asked.display_index.unwrap_or(1);
    if index < 0 {
        return Err(AddCategoryError::BadIndex);
    }
    store
        .add_category(
            tenant,
            &Category {
                id: String::new(),
                collection_id,
                display_name: name.to_owned(),
                parent_category_id: parent,
                kind,
                page_rendering: rendering,
                display_index: index,
            },
        )
        .await
        .map_err(|e| match e {
            StoreError::NotFound(what) if what.starts_with("category") => {
                AddCategoryError::NoParent
            }
            StoreError::Conflict(what) if what == "root category" => AddCategoryError::RootExists,
            StoreError::Conflict(_) => AddCategoryError::Exists,
            e => AddCategoryError::Store(e),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(title: &str, add_to_navigation: bool) -> StoreRequest {
        StoreRequest {
            title: title.into(),
            add_to_navigation,
            ..StoreRequest::default()
        }
    }

    #[tokio::test]
    async fn stores_are_checked_in_spec_order_and_made_whole_or_not_at_all() {
        let site = crate::testing::EmbeddedSite::open("harbor-lane", "store-setup").await;
        let (store, tenant) = (&site.store, site.tenant);
        // The navigations are read only when the store goes into one.
        let unread = || async { panic!("navigations read") };
        for (title, want) in [("  ", "NoTitle"), (&*"x".repeat(201), "LongTitle")] {
            let e = create_store(store, tenant, unread(), asked(title, true))
                .await
                .unwrap_err();
            assert_eq!(format!("{e:?}"), want);
        }
        let collections = || async { store.site_content(tenant).await.unwrap().collections.len() };
        let before = collections().await;
        let none = async { Ok(Vec::new()) };
        let e = create_store(store, tenant, none, asked("Shop", true))
            .await
            .unwrap_err();
        assert!(matches!(e, CreateStoreError::NoMainNavigation), "{e:?}");
        assert_eq!(collections().await, before);

        let main = async { Ok(vec![("mainNav".to_owned(), "Main".to_owned())]) };
        let made = create_store(store, tenant, main, asked(" Pots ", true))
            .await
            .unwrap();
        assert_eq!(made.navigation.as_deref(), Some("mainNav"));
        assert_eq!(made.made.collection.title, "Pots");
        assert_eq!(made.made.root_category.kind, ROOT);
        assert_eq!(collections().await, before + 1);

        let store_id = made.made.collection.id.clone();
        let category = |name: &str, rendering: &str, index: Option<i64>| CategoryRequest {
            display_name: name.into(),
            page_rendering: rendering.into(),
            display_index: index,
            kind: "CATEGORY".into(),
            parent_category_id: made.made.root_category.id.clone(),
        };
        for (asked, want) in [
            (category(" ", "", None), "NoName"),
            (category(&"x".repeat(26), "", None), "LongName"),
            (category("Cups", "TABLE", None), "BadRendering"),
            (category("Cups", "", Some(-1)), "BadIndex"),
        ] {
            let e = add_category(store, tenant, store_id.clone(), asked)
                .await
                .unwrap_err();
            assert_eq!(format!("{e:?}"), want);
        }
        let cups = add_category(store, tenant, store_id.clone(), category("Cups", "", None))
            .await
            .unwrap();
        assert_eq!(
            (cups.page_rendering.as_str(), cups.display_index),
            (LIST_VIEW, 1)
        );
        let again = add_category(store, tenant, store_id.clone(), category("Cups", "", None));
        assert!(matches!(again.await, Err(AddCategoryError::Exists)));
        let root = CategoryRequest {
            display_name: "Another root".into(),
            ..CategoryRequest::default()
        };
        let e = add_category(store, tenant, store_id, root)
            .await
            .unwrap_err();
        assert!(matches!(e, AddCategoryError::RootExists), "{e:?}");
        site.close().await;
    }
}
