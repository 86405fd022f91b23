//! Site content: settings, collections, items (with variants, categories, tags), store
//! categories, navigation, header/footer, multilingual settings and commerce preferences,
//! plus the cached [`SiteSnapshot`] snapshot the renderer reads.
//!
//! Each write has a `*_in(tx, tenant, ..)` form used by the importer (many writes, one
//! transaction) and a `Store` method that wraps it in its own transaction.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::model::{
    Category, Collection, HeaderFooter, Item, SiteSettings, SiteSnapshot, Variant, Visibility,
};
use crate::params;
use crate::repo::restock::{RestockNotice, notify_restocked_in, sold_out};
use crate::sql::{Row, SqlValue, Tx};
use crate::store::Store;

fn json_text(v: &impl serde::Serialize) -> Result<String> {
    Ok(serde_json::to_string(v)?)
}

/// What [`Store::put_pages`] writes at once.
#[derive(Clone, Debug, Default)]
pub struct PagesChange {
    /// Collections created (empty id) or replaced.
    pub collections: Vec<Collection>,
    /// Store categories stored (a new store collection's root category).
    pub categories: Vec<Category>,
    /// Navigations replaced: (name, links).
    pub navigations: Vec<(String, Value)>,
    /// A collection deleted, with its items.
    pub delete: Option<String>,
}

pub(crate) async fn put_settings_in(tx: &mut Tx, tenant: TenantId, s: &SiteSettings) -> Result<()> {
    tx.execute(
        "INSERT INTO site_settings (tenant_id, website, website_settings, updated_ms) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (tenant_id) DO UPDATE SET website = EXCLUDED.website, \
         website_settings = EXCLUDED.website_settings, updated_ms = EXCLUDED.updated_ms",
        params![tenant, json_text(&s.website)?, json_text(&s.website_settings)?, now_ms()],
    )
    .await?;
    Ok(())
}

fn check_slug(what: &str, slug: &str) -> Result<()> {
    let ok = !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "{what} {slug:?} must be non-empty and URL-safe (a-z, 0-9, -, _, .)"
        )))
    }
}

pub(crate) async fn put_collection_in(
    tx: &mut Tx,
    tenant: TenantId,
    c: &Collection,
) -> Result<String> {
    check_slug("collection urlId", &c.url_id)?;
    let id = if c.id.is_empty() {
        new_id()
    } else {
        c.id.clone()
    };
    let nav = if c.navigation_title.is_empty() {
        c.title.clone()
    } else {
        c.navigation_title.clone()
    };
    tx.execute(
        "INSERT INTO collection (tenant_id, id, url_id, title, navigation_title, description, kind, type_name, \
         ordering, enabled, homepage, parent_id, position, page_size, data, updated_ms, password_hash) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
         ON CONFLICT (tenant_id, id) DO UPDATE SET url_id = EXCLUDED.url_id, title = EXCLUDED.title, \
         navigation_title = EXCLUDED.navigation_title, description = EXCLUDED.description, kind = EXCLUDED.kind, \
         type_name = EXCLUDED.type_name, ordering = EXCLUDED.ordering, enabled = EXCLUDED.enabled, \
         homepage = EXCLUDED.homepage, parent_id = EXCLUDED.parent_id, position = EXCLUDED.position, \
         page_size = EXCLUDED.page_size, data = EXCLUDED.data, updated_ms = EXCLUDED.updated_ms, \
         password_hash = EXCLUDED.password_hash",
        params![
            tenant,
            id.as_str(),
            c.url_id.as_str(),
            c.title.as_str(),
            nav,
            c.description.as_str(),
            c.kind,
            c.type_name.as_str(),
            c.ordering.as_str(),
            c.enabled,
            c.homepage,
            c.parent_id.clone(),
            c.position,
            c.page_size,
            json_text(&c.data)?,
            now_ms(),
            c.password_hash.clone()
        ],
    )
    .await
    .map_err(|e| match e {
        StoreError::Conflict(_) => StoreError::Conflict(format!("collection urlId {:?} is taken", c.url_id)),
        e => e,
    })?;
    Ok(id)
}

const COLLECTION_COLUMNS: &str = "id, url_id, title, navigation_title, description, kind, type_name, ordering, \
                                  enabled, homepage, parent_id, position, page_size, data, password_hash";

fn collection_from_row(r: &Row) -> Result<Collection> {
    Ok(Collection {
        id: r.text(0)?,
        url_id: r.text(1)?,
        title: r.text(2)?,
        navigation_title: r.text(3)?,
        description: r.text(4)?,
        kind: r.i64(5)?,
        type_name: r.text(6)?,
        ordering: r.text(7)?,
        enabled: r.bool(8)?,
        homepage: r.bool(9)?,
        parent_id: r.opt_text(10)?,
        position: r.i64(11)?,
        page_size: r.opt_i64(12)?,
        data: r.json(13)?,
        password_hash: r.opt_text(14)?,
    })
}

pub(crate) async fn put_item_in(tx: &mut Tx, tenant: TenantId, item: &Item) -> Result<String> {
    check_slug("item urlId", &item.url_id)?;
    let exists = tx
        .query_opt(
            "SELECT 1 FROM collection WHERE tenant_id = $1 AND id = $2",
            params![tenant, item.collection_id.as_str()],
        )
        .await?;
    if exists.is_none() {
        return Err(StoreError::NotFound(format!(
            "collection {}",
            item.collection_id
        )));
    }
    let id = if item.id.is_empty() {
        new_id()
    } else {
        item.id.clone()
    };
    let now = now_ms();
    let added = if item.added_on == 0 {
        now
    } else {
        item.added_on
    };
    let publish = if item.publish_on == 0 {
        added
    } else {
        item.publish_on
    };
    let updated = if item.updated_on == 0 {
        now
    } else {
        item.updated_on
    };
    let author = item.author.as_ref().map(json_text).transpose()?;
    tx.execute(
        "INSERT INTO item (tenant_id, id, collection_id, url_id, title, body, excerpt, record_type, product_type, \
         starred, author, added_on, publish_on, updated_on, start_date, end_date, position, structured_content, data, visibility) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) \
         ON CONFLICT (tenant_id, id) DO UPDATE SET collection_id = EXCLUDED.collection_id, url_id = EXCLUDED.url_id, \
         title = EXCLUDED.title, body = EXCLUDED.body, excerpt = EXCLUDED.excerpt, record_type = EXCLUDED.record_type, \
         product_type = EXCLUDED.product_type, starred = EXCLUDED.starred, author = EXCLUDED.author, \
         added_on = EXCLUDED.added_on, publish_on = EXCLUDED.publish_on, updated_on = EXCLUDED.updated_on, \
         start_date = EXCLUDED.start_date, end_date = EXCLUDED.end_date, position = EXCLUDED.position, \
         structured_content = EXCLUDED.structured_content, data = EXCLUDED.data, visibility = EXCLUDED.visibility",
        params![
            tenant,
            id.as_str(),
            item.collection_id.as_str(),
            item.url_id.as_str(),
            item.title.as_str(),
            item.body.as_str(),
            item.excerpt.as_str(),
            item.record_type,
            item.product_type,
            item.starred,
            author,
            added,
            publish,
            updated,
            item.start_date,
            item.end_date,
            item.position,
            json_text(&item.structured_content)?,
            json_text(&item.data)?,
            item.visibility.as_str()
        ],
    )
    .await
    .map_err(|e| match e {
        StoreError::Conflict(_) => StoreError::Conflict(format!("item urlId {:?} is taken in its collection", item.url_id)),
        e => e,
    })?;
    for table in ["item_category", "item_tag", "product_variant"] {
        tx.execute(
            &format!("DELETE FROM {table} WHERE tenant_id = $1 AND item_id = $2"),
            params![tenant, id.as_str()],
        )
        .await?;
    }
    for (table, names) in [
        ("item_category", &item.categories),
        ("item_tag", &item.tags),
    ] {
        for (pos, name) in names.iter().enumerate() {
            tx.execute(
                &format!("INSERT INTO {table} (tenant_id, item_id, name, position) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING"),
                params![tenant, id.as_str(), name.as_str(), pos as i64],
            )
            .await?;
        }
    }
    for (pos, v) in item.variants.iter().enumerate() {
        if v.qty_in_stock < 0 || v.price_minor < 0 || v.sale_price_minor < 0 || v.weight_grams < 0 {
            return Err(StoreError::Invalid(format!(
                "variant {}: stock, prices and weight must not be negative",
                v.sku
            )));
        }
        tx.execute(
            "INSERT INTO product_variant (tenant_id, item_id, sku, position, attributes, currency, price_minor, \
             sale_price_minor, on_sale, qty_in_stock, unlimited, weight_grams) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            params![
                tenant,
                id.as_str(),
                v.sku.as_str(),
                pos as i64,
                json_text(&v.attributes)?,
                v.currency.as_str(),
                v.price_minor,
                v.sale_price_minor,
                v.on_sale,
                v.qty_in_stock,
                v.unlimited,
                v.weight_grams
            ],
        )
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => StoreError::Conflict(format!("duplicate sku {:?} in item {:?}", v.sku, item.url_id)),
            e => e,
        })?;
    }
    Ok(id)
}

const ITEM_COLUMNS: &str = "id, collection_id, url_id, title, body, excerpt, record_type, product_type, starred, author, \
                            added_on, publish_on, updated_on, start_date, end_date, position, structured_content, data, visibility";

fn item_from_row(r: &Row) -> Result<Item> {
    Ok(Item {
        id: r.text(0)?,
        collection_id: r.text(1)?,
        url_id: r.text(2)?,
        title: r.text(3)?,
        body: r.text(4)?,
        excerpt: r.text(5)?,
        record_type: r.i64(6)?,
        product_type: r.opt_i64(7)?,
        starred: r.bool(8)?,
        author: r
            .opt_text(9)?
            .map(|s| serde_json::from_str(&s))
            .transpose()?,
        added_on: r.i64(10)?,
        publish_on: r.i64(11)?,
        updated_on: r.i64(12)?,
        start_date: r.opt_i64(13)?,
        end_date: r.opt_i64(14)?,
        position: r.i64(15)?,
        categories: Vec::new(),
        tags: Vec::new(),
        structured_content: r.json(16)?,
        variants: Vec::new(),
        data: r.json(17)?,
        // A word this binary does not know hides the item rather than show it by mistake.
        visibility: Visibility::parse(&r.text(18)?).unwrap_or(Visibility::Hidden),
    })
}

pub(crate) fn variant_from_row(r: &Row, at: usize) -> Result<Variant> {
    Ok(Variant {
        sku: r.text(at)?,
        attributes: r.json(at + 1)?,
        currency: r.text(at + 2)?,
        price_minor: r.i64(at + 3)?,
        sale_price_minor: r.i64(at + 4)?,
        on_sale: r.bool(at + 5)?,
        qty_in_stock: r.i64(at + 6)?,
        unlimited: r.bool(at + 7)?,
        weight_grams: r.i64(at + 8)?,
    })
}

pub(crate) const VARIANT_COLUMNS: &str = "sku, attributes, currency, price_minor, sale_price_minor, on_sale, qty_in_stock, unlimited, weight_grams";

/// The statements [`items_from`] reads for the items matching `filter` (an SQL condition
/// on `item`, parameters after `$1` = tenant): the items, their variants, categories and
/// tags.
fn items_queries(
    tenant: TenantId,
    filter: &str,
    extra: Vec<SqlValue>,
) -> [(String, Vec<SqlValue>); 4] {
    let mut p = params![tenant];
    p.extend(extra);
    let sub = format!("item_id IN (SELECT id FROM item WHERE tenant_id = $1 {filter})");
    let of = |table: &str| {
        (
            format!(
                "SELECT item_id, name FROM {table} WHERE tenant_id = $1 AND {sub} ORDER BY item_id, position"
            ),
            p.clone(),
        )
    };
    [
        (
            format!(
                "SELECT {ITEM_COLUMNS} FROM item WHERE tenant_id = $1 {filter} ORDER BY collection_id, position, publish_on DESC, id"
            ),
            p.clone(),
        ),
        (
            format!(
                "SELECT item_id, {VARIANT_COLUMNS} FROM product_variant WHERE tenant_id = $1 AND {sub} ORDER BY item_id, position"
            ),
            p.clone(),
        ),
        of("item_category"),
        of("item_tag"),
    ]
}

/// The items of [`items_queries`]' rows, with their variants, categories and tags.
fn items_from(
    items: &[Row],
    variants: &[Row],
    categories: &[Row],
    tags: &[Row],
) -> Result<Vec<Item>> {
    let mut items = items
        .iter()
        .map(item_from_row)
        .collect::<Result<Vec<_>>>()?;
    let index: BTreeMap<String, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.id.clone(), i))
        .collect();
    for r in variants {
        if let Some(&i) = index.get(&r.text(0)?) {
            items[i].variants.push(variant_from_row(r, 1)?);
        }
    }
    for r in categories {
        if let Some(&i) = index.get(&r.text(0)?) {
            items[i].categories.push(r.text(1)?);
        }
    }
    for r in tags {
        if let Some(&i) = index.get(&r.text(0)?) {
            items[i].tags.push(r.text(1)?);
        }
    }
    Ok(items)
}

/// Loads items matching `filter` (see [`items_queries`]) with their variants, categories
/// and tags.
async fn load_items(
    tx: &mut Tx,
    tenant: TenantId,
    filter: &str,
    extra: Vec<SqlValue>,
) -> Result<Vec<Item>> {
    let sets = tx
        .query_all(items_queries(tenant, filter, extra).into())
        .await?;
    items_from(&sets[0], &sets[1], &sets[2], &sets[3])
}

pub(crate) async fn put_category_in(tx: &mut Tx, tenant: TenantId, c: &Category) -> Result<()> {
    tx.execute(
        "INSERT INTO category (tenant_id, id, collection_id, display_name, parent_id, kind, page_rendering, display_index) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant_id, id) DO UPDATE SET \
         collection_id = EXCLUDED.collection_id, display_name = EXCLUDED.display_name, parent_id = EXCLUDED.parent_id, \
         kind = EXCLUDED.kind, page_rendering = EXCLUDED.page_rendering, display_index = EXCLUDED.display_index",
        params![
            tenant,
            c.id.as_str(),
            c.collection_id.as_str(),
            c.display_name.as_str(),
            c.parent_category_id.clone(),
            c.kind.as_str(),
            c.page_rendering.as_str(),
            c.display_index
        ],
    )
    .await?;
    Ok(())
}

pub(crate) async fn put_navigation_in(
    tx: &mut Tx,
    tenant: TenantId,
    name: &str,
    items: &Value,
) -> Result<()> {
    if !items.is_array() {
        return Err(StoreError::Invalid(format!(
            "navigation {name:?}: items must be an array"
        )));
    }
    tx.execute(
        "INSERT INTO navigation (tenant_id, name, items) VALUES ($1, $2, $3) \
         ON CONFLICT (tenant_id, name) DO UPDATE SET items = EXCLUDED.items",
        params![tenant, name, json_text(items)?],
    )
    .await?;
    Ok(())
}

pub(crate) async fn put_header_footer_in(
    tx: &mut Tx,
    tenant: TenantId,
    hf: &HeaderFooter,
) -> Result<()> {
    tx.execute(
        "INSERT INTO header_footer (tenant_id, header, footer) VALUES ($1, $2, $3) \
         ON CONFLICT (tenant_id) DO UPDATE SET header = EXCLUDED.header, footer = EXCLUDED.footer",
        params![tenant, json_text(&hf.header)?, json_text(&hf.footer)?],
    )
    .await?;
    Ok(())
}

pub(crate) async fn put_multilingual_in(
    tx: &mut Tx,
    tenant: TenantId,
    settings: &Value,
) -> Result<()> {
    tx.execute(
        "INSERT INTO multilingual_settings (tenant_id, settings) VALUES ($1, $2) \
         ON CONFLICT (tenant_id) DO UPDATE SET settings = EXCLUDED.settings",
        params![tenant, json_text(settings)?],
    )
    .await?;
    Ok(())
}

/// SPEC: "Commerce preferences: per-namespace key/value object; empty values are dropped."
fn drop_empty(prefs: &Map<String, Value>) -> Map<String, Value> {
    prefs
        .iter()
        .filter(|(_, v)| {
            !matches!(v, Value::Null) && !matches!(v, Value::String(s) if s.is_empty())
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

pub(crate) async fn put_commerce_preferences_in(
    tx: &mut Tx,
    tenant: TenantId,
    namespace: &str,
    prefs: &Map<String, Value>,
) -> Result<()> {
    check_slug("commerce preference namespace", namespace)?;
    tx.execute(
        "INSERT INTO commerce_preference (tenant_id, namespace, preferences) VALUES ($1, $2, $3) \
         ON CONFLICT (tenant_id, namespace) DO UPDATE SET preferences = EXCLUDED.preferences",
        params![tenant, namespace, json_text(&drop_empty(prefs))?],
    )
    .await?;
    Ok(())
}

impl Store {
    /// Replaces the site settings (`website` / `websiteSettings`).
    pub async fn put_site_settings(&self, tenant: TenantId, settings: &SiteSettings) -> Result<()> {
        let mut tx = self.write().await?;
        put_settings_in(&mut tx, tenant, settings).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Sets one key of the site's `websiteSettings` (removes it for `null`) and keeps the
    /// rest: read and written under the tenant row's lock, so two changes of different keys
    /// at once never undo each other.
    pub async fn set_website_setting(
        &self,
        tenant: TenantId,
        key: &str,
        value: serde_json::Value,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE tenant SET content_version = content_version WHERE id = $1",
            params![tenant],
        )
        .await?;
        let mut settings = settings_in(&mut tx, tenant).await?;
        if value.is_null() {
            settings.website_settings.remove(key);
        } else {
            settings.website_settings.insert(key.to_owned(), value);
        }
        put_settings_in(&mut tx, tenant, &settings).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Changes the site settings with `change`, read and written under the tenant row's
    /// lock (as [`Store::set_website_setting`]), so changes of different keys at once never
    /// undo each other.
    pub async fn update_site_settings<F>(&self, tenant: TenantId, change: F) -> Result<SiteSettings>
    where
        F: FnOnce(&mut SiteSettings) + Send,
    {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE tenant SET content_version = content_version WHERE id = $1",
            params![tenant],
        )
        .await?;
        let mut settings = settings_in(&mut tx, tenant).await?;
        change(&mut settings);
        put_settings_in(&mut tx, tenant, &settings).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(settings)
    }

    /// The site settings (empty objects if never set).
    pub async fn site_settings(&self, tenant: TenantId) -> Result<SiteSettings> {
        let mut tx = self.read().await?;
        settings_in(&mut tx, tenant).await
    }

    /// Creates or replaces a collection; returns its id (generated when `c.id` is empty).
    pub async fn put_collection(&self, tenant: TenantId, c: &Collection) -> Result<String> {
        let mut tx = self.write().await?;
        let id = put_collection_in(&mut tx, tenant, c).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(id)
    }

    /// The tenant's collections by position, then title.
    pub async fn collections(&self, tenant: TenantId) -> Result<Vec<Collection>> {
        let mut tx = self.read().await?;
        collections_in(&mut tx, tenant).await
    }

    /// The collection with slug `url_id`.
    pub async fn collection_by_url(
        &self,
        tenant: TenantId,
        url_id: &str,
    ) -> Result<Option<Collection>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!("SELECT {COLLECTION_COLUMNS} FROM collection WHERE tenant_id = $1 AND url_id = $2"),
                params![tenant, url_id],
            )
            .await?;
        row.as_ref().map(collection_from_row).transpose()
    }

    /// Deletes a collection and its items; `NotFound` if this tenant has no such collection.
    pub async fn delete_collection(&self, tenant: TenantId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "DELETE FROM collection WHERE tenant_id = $1 AND id = $2",
                params![tenant, id],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("collection {id}")));
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// One change of the site's pages, in one transaction: `pages.collections` created or
    /// replaced (ids generated for those without), `pages.categories` stored (a new store's
    /// root), each of `pages.navigations` (name, links) replaced, and `pages.delete` (a
    /// collection's id) deleted with its items (`NotFound`, and nothing written, when this
    /// tenant has no such collection). Returns the ids of `pages.collections`, in order.
    pub async fn put_pages(&self, tenant: TenantId, pages: &PagesChange) -> Result<Vec<String>> {
        let mut tx = self.write().await?;
        if let Some(id) = &pages.delete {
            let n = tx
                .execute(
                    "DELETE FROM collection WHERE tenant_id = $1 AND id = $2",
                    params![tenant, id.as_str()],
                )
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("collection {id}")));
            }
        }
        let mut ids = Vec::with_capacity(pages.collections.len());
        for c in &pages.collections {
            ids.push(put_collection_in(&mut tx, tenant, c).await?);
        }
        for c in &pages.categories {
            put_category_in(&mut tx, tenant, c).await?;
        }
        for (name, links) in &pages.navigations {
            put_navigation_in(&mut tx, tenant, name, links).await?;
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(ids)
    }

    /// Creates or replaces an item with its variants, categories and tags; returns its id.
    pub async fn put_item(&self, tenant: TenantId, item: &Item) -> Result<String> {
        self.put_item_notifying(tenant, item, None)
            .await
            .map(|(id, _)| id)
    }

    /// [`Store::put_item`], and when `notice` is given, the waiting restock sign-ups of each
    /// variant that was sold out (or not there) and no longer is told in the same
    /// transaction (each once, see [`crate::repo::restock::take_waiting_in`]). Returns the
    /// id and how many were told. The item's variant rows are locked before their old
    /// levels are read.
    pub async fn put_item_notifying(
        &self,
        tenant: TenantId,
        item: &Item,
        notice: Option<&RestockNotice<'_>>,
    ) -> Result<(String, u64)> {
        self.put_product_notifying(tenant, item, None, notice).await
    }

    /// [`Store::put_item_notifying`], and when `download` names one of the site's uploaded
    /// files ([`Store::put_asset`]), that file becomes the (digital) product's download:
    /// copied to its digital file and taken out of the uploads, in the same transaction
    /// (`NotFound` when the site has no such upload, and then nothing is stored).
    pub async fn put_product_notifying(
        &self,
        tenant: TenantId,
        item: &Item,
        download: Option<&str>,
        notice: Option<&RestockNotice<'_>>,
    ) -> Result<(String, u64)> {
        let mut tx = self.write().await?;
        let old = match notice {
            Some(_) if !item.id.is_empty() => {
                super::commerce::stock::old_levels_in(&mut tx, tenant, &item.id, None).await?
            }
            _ => Vec::new(),
        };
        let id = put_item_in(&mut tx, tenant, item).await?;
        if let Some(asset) = download {
            super::commerce::digital_file_from_asset_in(&mut tx, tenant, &id, asset).await?;
        }
        let mut told = 0;
        if let Some(notice) = notice {
            for v in &item.variants {
                let was_sold_out = old
                    .iter()
                    .find(|(sku, _, _)| *sku == v.sku)
                    .is_none_or(|&(_, qty, unlimited)| sold_out(qty, unlimited));
                if was_sold_out && !sold_out(v.qty_in_stock, v.unlimited) {
                    told += notify_restocked_in(&mut tx, tenant, &id, &v.sku, notice).await?;
                }
            }
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok((id, told))
    }

    /// One item by id, with variants, categories and tags.
    pub async fn item(&self, tenant: TenantId, id: &str) -> Result<Option<Item>> {
        let mut tx = self.snapshot().await?;
        let mut items = load_items(&mut tx, tenant, "AND id = $2", params![id]).await?;
        tx.commit().await?;
        Ok(items.pop())
    }

    /// Items of one collection in stored order.
    pub async fn items(&self, tenant: TenantId, collection_id: &str) -> Result<Vec<Item>> {
        let mut tx = self.snapshot().await?;
        let items = load_items(
            &mut tx,
            tenant,
            "AND collection_id = $2",
            params![collection_id],
        )
        .await?;
        tx.commit().await?;
        Ok(items)
    }

    /// Puts the items of collection `collection_id` in the order of `ids` (positions 1, 2,
    /// … in one transaction). `ids` must name every item of the collection once:
    /// otherwise `Invalid`, and nothing is written; `NotFound` when this tenant has no
    /// such collection.
    pub async fn reorder_items(
        &self,
        tenant: TenantId,
        collection_id: &str,
        ids: &[String],
    ) -> Result<()> {
        let mut tx = self.write().await?;
        let exists = tx
            .query_opt(
                "SELECT 1 FROM collection WHERE tenant_id = $1 AND id = $2",
                params![tenant, collection_id],
            )
            .await?;
        if exists.is_none() {
            return Err(StoreError::NotFound(format!("collection {collection_id}")));
        }
        let rows = tx
            .query(
                "SELECT id FROM item WHERE tenant_id = $1 AND collection_id = $2",
                params![tenant, collection_id],
            )
            .await?;
        let mut stored = rows.iter().map(|r| r.text(0)).collect::<Result<Vec<_>>>()?;
        let mut given: Vec<&String> = ids.iter().collect();
        stored.sort();
        given.sort();
        given.dedup();
        if given.len() != ids.len() || stored.iter().ne(given.iter().copied()) {
            return Err(StoreError::Invalid(
                "the order names every item of the collection once".into(),
            ));
        }
        for (i, id) in ids.iter().enumerate() {
            tx.execute(
                "UPDATE item SET position = $3 WHERE tenant_id = $1 AND id = $2",
                params![tenant, id.as_str(), (i + 1) as i64],
            )
            .await?;
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Deletes an item; `NotFound` if this tenant has no such item.
    pub async fn delete_item(&self, tenant: TenantId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "DELETE FROM item WHERE tenant_id = $1 AND id = $2",
                params![tenant, id],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("item {id}")));
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Creates or replaces a store category.
    pub async fn put_category(&self, tenant: TenantId, c: &Category) -> Result<()> {
        let mut tx = self.write().await?;
        put_category_in(&mut tx, tenant, c).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Replaces one named navigation's items (`[{collectionId | externalLink, title, items}]`).
    pub async fn put_navigation(&self, tenant: TenantId, name: &str, items: &Value) -> Result<()> {
        let mut tx = self.write().await?;
        put_navigation_in(&mut tx, tenant, name, items).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Replaces the header and footer objects.
    pub async fn put_header_footer(&self, tenant: TenantId, hf: &HeaderFooter) -> Result<()> {
        let mut tx = self.write().await?;
        put_header_footer_in(&mut tx, tenant, hf).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Replaces the multilingual settings.
    pub async fn put_multilingual(&self, tenant: TenantId, settings: &Value) -> Result<()> {
        let mut tx = self.write().await?;
        put_multilingual_in(&mut tx, tenant, settings).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Sets the site's default language (`website.language`) and, when given, replaces the
    /// multilingual settings, in one change: read and written under the tenant row's lock,
    /// so a change of another `website` key at the same time is never undone.
    pub async fn put_languages(
        &self,
        tenant: TenantId,
        language: &str,
        multilingual: Option<&Value>,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE tenant SET content_version = content_version WHERE id = $1",
            params![tenant],
        )
        .await?;
        let mut settings = settings_in(&mut tx, tenant).await?;
        settings
            .website
            .insert("language".to_owned(), Value::String(language.to_owned()));
        put_settings_in(&mut tx, tenant, &settings).await?;
        if let Some(m) = multilingual {
            put_multilingual_in(&mut tx, tenant, m).await?;
        }
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// Replaces one namespace's commerce preferences (empty values are dropped, per SPEC).
    pub async fn put_commerce_preferences(
        &self,
        tenant: TenantId,
        namespace: &str,
        prefs: &Map<String, Value>,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        put_commerce_preferences_in(&mut tx, tenant, namespace, prefs).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(())
    }

    /// One namespace's commerce preferences (empty if never set).
    pub async fn commerce_preferences(
        &self,
        tenant: TenantId,
        namespace: &str,
    ) -> Result<Map<String, Value>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                "SELECT preferences FROM commerce_preference WHERE tenant_id = $1 AND namespace = $2",
                params![tenant, namespace],
            )
            .await?;
        row.map(|r| r.json(0))
            .transpose()
            .map(Option::unwrap_or_default)
    }

    /// Everything the renderer reads for a tenant, from one consistent snapshot, cached
    /// until the tenant's content version changes (on any node).
    pub async fn site_content(&self, tenant: TenantId) -> Result<Arc<SiteSnapshot>> {
        self.revalidate_caches().await?;
        let caches = &self.inner.caches;
        // While notifications may be missed, the database answers (`cache.rs`, "Unsynced").
        let tries = if caches.synced() { 3 } else { 0 };
        for _ in 0..tries {
            let epoch = caches.epoch();
            let store = self.clone();
            let got = caches
                .content
                .try_get_with(tenant, async move {
                    store.load_site_content(tenant).await.map(Arc::new)
                })
                .await
                .map_err(|e| (*e).clone_lossy())?;
            // A load that raced a newer write, or ran across a flush, must not be served:
            // drop it and load again.
            if got.tenant.content_version >= caches.latest(tenant) && caches.epoch() == epoch {
                return Ok(got);
            }
            caches.content.invalidate(&tenant).await;
        }
        self.load_site_content(tenant).await.map(Arc::new)
    }

    /// Loads [`SiteSnapshot`] without the cache: every statement inside one snapshot in one
    /// trip to the database (`Db::read_all`: begin, the reads and commit together),
    /// however many tables it spans. The tenant's signing secret is read in
    /// the same batch and kept in its cache, so a cold first page makes no trip for it.
    pub async fn load_site_content(&self, tenant: TenantId) -> Result<SiteSnapshot> {
        use crate::repo::{engagement, tenants};
        let mut statements = vec![
            tenants::tenant_query(tenant),
            tenants::domains_query(tenant),
            settings_query(tenant),
            collections_query(tenant),
        ];
        statements.extend(items_queries(tenant, "", params![]));
        statements.extend(engagement::counts_queries(tenant));
        let scoped = |sql: &str| (sql.to_owned(), params![tenant]);
        statements.extend([
            scoped(
                "SELECT id, collection_id, display_name, parent_id, kind, page_rendering, display_index FROM category \
                 WHERE tenant_id = $1 ORDER BY collection_id, display_index, id",
            ),
            scoped("SELECT name, items FROM navigation WHERE tenant_id = $1"),
            scoped("SELECT header, footer FROM header_footer WHERE tenant_id = $1"),
            scoped("SELECT settings FROM multilingual_settings WHERE tenant_id = $1"),
            scoped("SELECT namespace, preferences FROM commerce_preference WHERE tenant_id = $1"),
            // Not content: the signing secret every page needs, kept in its own cache.
            scoped(crate::repo::secrets::READ),
        ]);
        let sets = self.inner.db.read_all(statements).await?;
        let [
            t,
            domains,
            settings,
            collections,
            items,
            variants,
            item_categories,
            tags,
            comments,
            likes,
            categories,
            navigations,
            header_footer,
            multilingual,
            preferences,
            secret,
        ] = <[Vec<Row>; 16]>::try_from(sets)
            .map_err(|s| StoreError::decode(format!("expected 16 result sets, got {}", s.len())))?;
        if let Some(r) = secret.first() {
            self.remember_secret(tenant, &r.text(0)?)?;
        }
        let mut items = items_from(&items, &variants, &item_categories, &tags)?;
        engagement::add_counts(&comments, &likes, &mut items)?;
        let categories = categories
            .iter()
            .map(|r| {
                Ok(Category {
                    id: r.text(0)?,
                    collection_id: r.text(1)?,
                    display_name: r.text(2)?,
                    parent_category_id: r.opt_text(3)?,
                    kind: r.text(4)?,
                    page_rendering: r.text(5)?,
                    display_index: r.i64(6)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let navigations = navigations
            .iter()
            .map(|r| Ok((r.text(0)?, r.json(1)?)))
            .collect::<Result<BTreeMap<_, _>>>()?;
        let header_footer = match header_footer.first() {
            Some(r) => HeaderFooter {
                header: r.json(0)?,
                footer: r.json(1)?,
            },
            None => HeaderFooter::default(),
        };
        let multilingual = match multilingual.first() {
            Some(r) => r.json(0)?,
            None => Value::Object(Map::new()),
        };
        let commerce_preferences = preferences
            .iter()
            .map(|r| Ok((r.text(0)?, r.json(1)?)))
            .collect::<Result<BTreeMap<_, _>>>()?;
        Ok(SiteSnapshot {
            tenant: tenants::tenant_from(&t, tenant)?,
            domains: tenants::domains_from(&domains)?,
            settings: settings_from(&settings)?,
            collections: collections
                .iter()
                .map(collection_from_row)
                .collect::<Result<_>>()?,
            items,
            categories,
            navigations,
            header_footer,
            multilingual,
            commerce_preferences,
            shape: Default::default(),
        }
        .measured())
    }
}

fn settings_query(tenant: TenantId) -> (String, Vec<SqlValue>) {
    (
        "SELECT website, website_settings FROM site_settings WHERE tenant_id = $1".into(),
        params![tenant],
    )
}

fn settings_from(rows: &[Row]) -> Result<SiteSettings> {
    Ok(match rows.first() {
        Some(r) => SiteSettings {
            website: r.json(0)?,
            website_settings: r.json(1)?,
        },
        None => SiteSettings::default(),
    })
}

pub(crate) async fn settings_in(tx: &mut Tx, tenant: TenantId) -> Result<SiteSettings> {
    let (sql, params) = settings_query(tenant);
    settings_from(&tx.query(&sql, params).await?)
}

fn collections_query(tenant: TenantId) -> (String, Vec<SqlValue>) {
    (
        format!(
            "SELECT {COLLECTION_COLUMNS} FROM collection WHERE tenant_id = $1 ORDER BY position, title, id"
        ),
        params![tenant],
    )
}

async fn collections_in(tx: &mut Tx, tenant: TenantId) -> Result<Vec<Collection>> {
    let (sql, params) = collections_query(tenant);
    tx.query(&sql, params)
        .await?
        .iter()
        .map(collection_from_row)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_preference_values_are_dropped() {
        let m: Map<String, Value> =
            serde_json::from_str(r#"{"a":"","b":null,"c":"x","d":0,"e":false}"#).unwrap();
        let kept: Vec<_> = drop_empty(&m).keys().cloned().collect();
        assert_eq!(kept, ["c", "d", "e"]);
    }
}
