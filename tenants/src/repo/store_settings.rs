//! The store's settings as the owner app's Settings → Store edits them: the site currency
//! and the commerce preference namespaces checkout reads ([`STORE_NAMESPACES`]), read in
//! one call and changed by one JSON Merge Patch (RFC 7396), all or nothing.
//!
//! A patch's namespaces are merged into the stored ones (keys the screen does not know are
//! kept), their empty values dropped as the store drops them, and each touched namespace
//! checked by the import's rules ([`check_namespace`]) on the site settings the patch
//! leaves. A new currency is one of [`SUPPORTED_CURRENCIES`], and is refused while the
//! store has products or orders in another one (a product in another currency is not for
//! sale, and an order's amounts stay in the currency it was paid in); every stored
//! namespace is checked again in the new currency (yen prices have no decimals). Any
//! problem refuses the whole patch, by path, and nothing is stored.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::cache::Change;
use crate::commerce::money::SUPPORTED_CURRENCIES;
use crate::commerce::settings::{NAMESPACES, check_namespace, site_currency};
use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::repo::content::{put_commerce_preferences_in, put_settings_in, settings_in};
use crate::sql::Tx;
use crate::store::Store;

/// The namespaces Settings → Store shows and changes.
pub const STORE_NAMESPACES: [&str; 7] = [
    "checkout",
    "taxes",
    "shipping",
    "coupons",
    "payments",
    "restock",
    "notifications",
];

/// Problems by path (`shipping.options[1].price`, `currency`).
pub type SettingsProblems = BTreeMap<String, String>;

/// The store's settings as the owner reads them.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerStoreSettings {
    /// The site currency (USD when none is set).
    pub currency: String,
    /// Each of [`STORE_NAMESPACES`] as stored (empty when never set).
    pub namespaces: BTreeMap<String, Map<String, Value>>,
    /// The site's `websiteSettings.contactEmail` when it is an address: where the
    /// new-order email goes without `notifications.orderEmailTo`.
    pub contact_email: Option<String>,
    /// Products with a variant priced in any currency.
    pub products: i64,
    /// Orders placed.
    pub orders: i64,
    /// Stored namespaces that do not pass the rules (stored before they were checked):
    /// the store reads them as if unset.
    pub problems: SettingsProblems,
}

/// What a patch changes, once it passes: the new currency (when it differs) and the
/// namespaces to store.
#[derive(Debug, PartialEq)]
pub struct StorePatch {
    /// The new currency, when it differs from the site's.
    pub currency: Option<String>,
    /// Each namespace the patch touches, merged, as it will be stored.
    pub namespaces: BTreeMap<String, Map<String, Value>>,
}

/// RFC 7396: `patch` merged into `target`.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let t = target.as_object_mut().expect("an object");
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}

fn with_currency(website_settings: &Map<String, Value>, currency: &str) -> Map<String, Value> {
    let mut ws = website_settings.clone();
    let store = ws
        .entry("storeSettings")
        .or_insert_with(|| Value::Object(Map::new()));
    if !store.is_object() {
        *store = Value::Object(Map::new());
    }
    store.as_object_mut().expect("an object").insert(
        "selectedCurrency".into(),
        Value::String(currency.to_owned()),
    );
    ws
}

/// Checks a patch against the stored settings: what it changes, or every problem by path.
/// Does not look at what the store holds (products and orders in the old currency: the
/// store's [`Store::patch_store_settings`] does).
pub fn check_store_patch(
    website_settings: &Map<String, Value>,
    stored: &BTreeMap<String, Map<String, Value>>,
    patch: &Map<String, Value>,
) -> std::result::Result<StorePatch, SettingsProblems> {
    let mut problems = SettingsProblems::new();
    let old = site_currency(website_settings);
    let mut currency = None;
    let mut namespaces = BTreeMap::new();
    for (key, value) in patch {
        if key == "currency" {
            match value.as_str().map(|c| c.trim().to_ascii_uppercase()) {
                Some(c) if SUPPORTED_CURRENCIES.contains(&c.as_str()) => {
                    if c != old {
                        currency = Some(c);
                    }
                }
                _ => {
                    problems.insert(
                        key.clone(),
                        format!(
                            "must be one of the supported currencies ({})",
                            SUPPORTED_CURRENCIES.join(", ")
                        ),
                    );
                }
            }
        } else if STORE_NAMESPACES.contains(&key.as_str()) {
            if !(value.is_object() || value.is_null()) {
                problems.insert(key.clone(), "must be an object".into());
                continue;
            }
            let mut merged = Value::Object(stored.get(key).cloned().unwrap_or_default());
            merge_patch(&mut merged, value);
            let mut merged = match merged {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            merged.retain(|_, v| !(v.is_null() || v.as_str() == Some("")));
            namespaces.insert(key.clone(), merged);
        } else {
            problems.insert(
                key.clone(),
                format!(
                    "unknown key (known: currency, {})",
                    STORE_NAMESPACES.join(", ")
                ),
            );
        }
    }
    let ws = match &currency {
        Some(c) => with_currency(website_settings, c),
        None => website_settings.clone(),
    };
    for (ns, prefs) in &namespaces {
        if let Err(e) = check_namespace(&ws, ns, prefs) {
            problems.insert(e.path, e.reason);
        }
    }
    // In a new currency, every stored price is read again.
    if currency.is_some() {
        for (ns, prefs) in stored {
            if namespaces.contains_key(ns) || !NAMESPACES.contains(&ns.as_str()) {
                continue;
            }
            // A namespace that did not pass before is not this patch's problem.
            let was_ok = check_namespace(website_settings, ns, prefs).is_ok();
            if let (true, Err(e)) = (was_ok, check_namespace(&ws, ns, prefs)) {
                problems.insert(e.path, e.reason);
            }
        }
    }
    if problems.is_empty() {
        Ok(StorePatch {
            currency,
            namespaces,
        })
    } else {
        Err(problems)
    }
}

/// "2 products", "1 order".
fn count(n: i64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// Why the currency cannot change: products or orders in another currency.
pub fn currency_in_use(old: &str, products: i64, orders: i64) -> String {
    let what = match (products, orders) {
        (p, 0) => count(p, "product"),
        (0, o) => count(o, "order"),
        (p, o) => format!("{} and {}", count(p, "product"), count(o, "order")),
    };
    format!(
        "The store has {what} in {old}: the currency can change only while it has no products or orders."
    )
}

async fn all_preferences(
    tx: &mut Tx,
    tenant: TenantId,
) -> Result<BTreeMap<String, Map<String, Value>>> {
    let rows = tx
        .query(
            "SELECT namespace, preferences FROM commerce_preference WHERE tenant_id = $1",
            params![tenant],
        )
        .await?;
    rows.iter().map(|r| Ok((r.text(0)?, r.json(1)?))).collect()
}

/// Products with a variant, and orders, not in `currency` (any currency when `None`).
async fn in_other_currency(
    tx: &mut Tx,
    tenant: TenantId,
    currency: Option<&str>,
) -> Result<(i64, i64)> {
    let c = currency.unwrap_or("");
    let products = tx
        .query_one(
            "SELECT COUNT(DISTINCT item_id) FROM product_variant WHERE tenant_id = $1 AND currency <> $2",
            params![tenant, c],
        )
        .await?
        .i64(0)?;
    let orders = tx
        .query_one(
            "SELECT COUNT(*) FROM customer_order WHERE tenant_id = $1 AND currency <> $2",
            params![tenant, c],
        )
        .await?
        .i64(0)?;
    Ok((products, orders))
}

async fn read_in(tx: &mut Tx, tenant: TenantId) -> Result<OwnerStoreSettings> {
    let settings = settings_in(tx, tenant).await?;
    let stored = all_preferences(tx, tenant).await?;
    let (products, orders) = in_other_currency(tx, tenant, None).await?;
    let ws = &settings.website_settings;
    let mut problems = SettingsProblems::new();
    let namespaces = STORE_NAMESPACES
        .iter()
        .map(|ns| {
            let prefs = stored.get(*ns).cloned().unwrap_or_default();
            if let Err(e) = check_namespace(ws, ns, &prefs) {
                problems.insert(e.path, e.reason);
            }
            ((*ns).to_owned(), prefs)
        })
        .collect();
    Ok(OwnerStoreSettings {
        currency: site_currency(ws),
        namespaces,
        contact_email: ws
            .get("contactEmail")
            .and_then(Value::as_str)
            .and_then(crate::email_address::deliverable)
            .map(str::to_owned),
        products,
        orders,
        problems,
    })
}

impl Store {
    /// The store's settings for Settings → Store.
    pub async fn owner_store_settings(&self, tenant: TenantId) -> Result<OwnerStoreSettings> {
        let mut tx = self.snapshot().await?;
        let s = read_in(&mut tx, tenant).await?;
        tx.commit().await?;
        Ok(s)
    }

    /// Applies a JSON Merge Patch to the store's settings ([`check_store_patch`], then the
    /// currency's products and orders), under the tenant row's lock so two owners' patches
    /// take turns: the new settings, or every problem by path and nothing stored.
    pub async fn patch_store_settings(
        &self,
        tenant: TenantId,
        patch: &Map<String, Value>,
    ) -> Result<std::result::Result<OwnerStoreSettings, SettingsProblems>> {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE tenant SET content_version = content_version WHERE id = $1",
            params![tenant],
        )
        .await?;
        let mut settings = settings_in(&mut tx, tenant).await?;
        let stored = all_preferences(&mut tx, tenant).await?;
        let mut change = check_store_patch(&settings.website_settings, &stored, patch);
        if let Ok(StorePatch {
            currency: Some(new),
            ..
        }) = &change
        {
            let (products, orders) = in_other_currency(&mut tx, tenant, Some(new)).await?;
            if products > 0 || orders > 0 {
                let old = site_currency(&settings.website_settings);
                change = Err(SettingsProblems::from([(
                    "currency".to_owned(),
                    currency_in_use(&old, products, orders),
                )]));
            }
        }
        let change = match change {
            Ok(c) => c,
            Err(problems) => {
                tx.rollback().await?;
                return Ok(Err(problems));
            }
        };
        if let Some(c) = &change.currency {
            settings.website_settings = with_currency(&settings.website_settings, c);
            put_settings_in(&mut tx, tenant, &settings).await?;
        }
        for (ns, prefs) in &change.namespaces {
            put_commerce_preferences_in(&mut tx, tenant, ns, prefs).await?;
        }
        let after = read_in(&mut tx, tenant).await?;
        self.commit_change(tx, tenant, Change::Content).await?;
        Ok(Ok(after))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn stored(v: Value) -> BTreeMap<String, Map<String, Value>> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn merge_patch_follows_rfc_7396() {
        // RFC 7396 appendix A, a few of its cases.
        for (target, patch, want) in [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": [{"b": "c"}]}),
                json!({"a": [1]}),
                json!({"a": [1]}),
            ),
            (
                json!({"a": {"b": "c"}}),
                json!({"a": {"b": "d", "c": null}}),
                json!({"a": {"b": "d"}}),
            ),
            (
                json!([1, 2]),
                json!({"a": "b", "c": null}),
                json!({"a": "b"}),
            ),
            (
                json!({"e": null}),
                json!({"a": 1}),
                json!({"e": null, "a": 1}),
            ),
        ] {
            let mut t = target.clone();
            merge_patch(&mut t, &patch);
            assert_eq!(t, want, "{target} + {patch}");
        }
    }

    #[test]
    fn a_patch_keeps_other_keys_and_drops_empty_ones() {
        let ws = obj(json!({"storeSettings": {"selectedCurrency": "EUR"}}));
        let before = stored(json!({"checkout": {"termsUrl": "/terms", "minimumSubtotal": "5.00"}}));
        let p = check_store_patch(
            &ws,
            &before,
            &obj(json!({"checkout": {"minimumSubtotal": "", "orderNotesLabel": "Gift note"}})),
        )
        .unwrap();
        assert_eq!(p.currency, None);
        assert_eq!(
            p.namespaces["checkout"],
            obj(json!({"termsUrl": "/terms", "orderNotesLabel": "Gift note"}))
        );
        // A namespace patched to null is emptied.
        let p = check_store_patch(&ws, &before, &obj(json!({"checkout": null}))).unwrap();
        assert!(p.namespaces["checkout"].is_empty());
    }

    #[test]
    fn every_problem_is_named_by_path() {
        let ws = obj(json!({"storeSettings": {"selectedCurrency": "EUR"}}));
        let problems = check_store_patch(
            &ws,
            &BTreeMap::new(),
            &obj(json!({
                "currency": "XYZ",
                "shipping": {"options": [{"id": "a", "name": "A", "kind": "flat", "price": "4,95"}]},
                "restock": {"lowStockAt": -1},
                "taxes": [],
                "instalments": {},
            })),
        )
        .unwrap_err();
        assert_eq!(
            problems.keys().collect::<Vec<_>>(),
            [
                "currency",
                "instalments",
                "restock.lowStockAt",
                "shipping.options[0].price",
                "taxes"
            ]
        );
    }

    #[test]
    fn a_new_currency_reads_every_stored_price_again() {
        let ws = obj(json!({"storeSettings": {"selectedCurrency": "EUR", "other": 1}}));
        let before = stored(json!({
            "checkout": {"minimumSubtotal": "10.00"},
            "instalments": {"provider": "afterpay", "minimum": "1.50", "maximum": "100.00"},
            "merchandising": {"scarcityEnabled": true},
        }));
        let problems =
            check_store_patch(&ws, &before, &obj(json!({"currency": "jpy"}))).unwrap_err();
        assert_eq!(
            problems.keys().collect::<Vec<_>>(),
            ["checkout.minimumSubtotal", "instalments.minimum"]
        );
        // Fixed in the same patch, it passes (the untouched namespace still fails).
        let problems = check_store_patch(
            &ws,
            &before,
            &obj(json!({"currency": "JPY", "checkout": {"minimumSubtotal": "1000"}})),
        )
        .unwrap_err();
        assert_eq!(problems.keys().collect::<Vec<_>>(), ["instalments.minimum"]);
        let p = check_store_patch(&ws, &before, &obj(json!({"currency": "usd"}))).unwrap();
        assert_eq!(p.currency.as_deref(), Some("USD"));
        // The same currency is no change.
        let p = check_store_patch(&ws, &before, &obj(json!({"currency": "EUR"}))).unwrap();
        assert_eq!(p.currency, None);
        let ws = with_currency(&ws, "USD");
        assert_eq!(
            ws["storeSettings"],
            json!({"selectedCurrency": "USD", "other": 1})
        );
    }

    #[test]
    fn the_currency_message_counts_what_is_in_it() {
        assert_eq!(
            currency_in_use("EUR", 1, 0),
            "The store has 1 product in EUR: the currency can change only while it has no products or orders."
        );
        assert!(currency_in_use("EUR", 2, 3).contains("2 products and 3 orders"));
        assert!(currency_in_use("EUR", 0, 1).contains("has 1 order in EUR"));
    }
}
