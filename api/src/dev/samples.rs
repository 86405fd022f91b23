//! What `tessera dev` adds to the demo content so a folder brought from elsewhere shows real
//! pages: a collection with three sample items for every collection type the folder
//! declares and the content lacks (store items with prices and stock for `products`,
//! upcoming dates for `events`), and links in every navigation the folder declares and the
//! content has nothing under (the content's own menus, and the sample collections).
//!
//! Only the scratch store is written; each addition is said on the terminal.

use std::collections::BTreeSet;

use renderer::folder::TemplateFiles;
use serde_json::{Value, json};
use tenants::{Store, TenantId};

/// Collection types with no items of their own: nothing to sample.
const STRUCTURAL: [&str; 4] = ["page", "folder", "folders", "index"];

/// A `.conf` of the folder, parsed (comments and trailing commas allowed).
fn conf(files: &TemplateFiles, path: &str) -> Option<Value> {
    let text = std::str::from_utf8(files.get(path)?).ok()?;
    renderer::conf::parse_conf(path, text).ok()
}

/// The collection types the folder declares: a `collections/<type>.conf`, `.list` or
/// `.item`, or an entry of template.conf's `systemCollections`; folders and indexes aside.
pub fn declared_types(files: &TemplateFiles) -> BTreeSet<String> {
    let mut types: BTreeSet<String> = files
        .keys()
        .filter_map(|p| {
            let name = p.strip_prefix("collections/")?;
            [".conf", ".list", ".item"]
                .iter()
                .find_map(|ext| name.strip_suffix(ext))
        })
        .filter(|t| !t.contains('/'))
        .map(str::to_owned)
        .collect();
    if let Some(Value::Array(system)) =
        conf(files, "template.conf").and_then(|c| c.get("systemCollections").cloned())
    {
        types.extend(system.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    types.retain(|t| {
        let c = conf(files, &format!("collections/{t}.conf"));
        let flag = |k: &str| c.as_ref().and_then(|c| c.get(k)) == Some(&Value::Bool(true));
        !STRUCTURAL.contains(&t.as_str()) && !flag("folder") && !flag("index")
    });
    types
}

/// The navigation names template.conf declares, in order.
fn declared_navigations(files: &TemplateFiles) -> Vec<String> {
    let Some(Value::Array(navs)) =
        conf(files, "template.conf").and_then(|c| c.get("navigations").cloned())
    else {
        return Vec::new();
    };
    navs.iter()
        .filter_map(|n| n.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// Adds what the folder needs and the content lacks; returns what was added, in words.
pub async fn fill(store: &Store, tenant: TenantId, files: &TemplateFiles) -> Vec<String> {
    let Ok(site) = store.load_site_content(tenant).await else {
        return Vec::new();
    };
    let mut said = Vec::new();
    let mut added = Vec::new();
    for kind in declared_types(files) {
        if site.collections.iter().any(|c| c.type_name == kind) {
            continue;
        }
        if let Some((id, url)) = add_collection(store, tenant, &site, files, &kind).await {
            said.push(format!(
                "the content has no {kind} collection: sample items at {url}"
            ));
            added.push(id);
        }
    }
    said.extend(fill_navigations(store, tenant, &site, files, &added).await);
    said
}

/// A collection of `kind` with three sample items; its id and URL.
async fn add_collection(
    store: &Store,
    tenant: TenantId,
    site: &tenants::SiteSnapshot,
    files: &TemplateFiles,
    kind: &str,
) -> Option<(String, String)> {
    let title = conf(files, &format!("collections/{kind}.conf"))
        .and_then(|c| c.get("title").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| {
            let words = kind.replace(['-', '_'], " ");
            let mut chars = words.chars();
            chars
                .next()
                .map_or(words.clone(), |c| c.to_uppercase().chain(chars).collect())
        });
    let url_id = if site.collections.iter().any(|c| c.url_id == kind) {
        format!("{kind}-demo")
    } else {
        kind.to_owned()
    };
    let products = kind == "products";
    let collection: tenants::Collection = serde_json::from_value(json!({
        "urlId": url_id, "title": title, "type": if products { 13 } else { 1 }, "typeName": kind,
        "description": format!("<p>Sample {title} for tessera dev.</p>"),
    }))
    .ok()?;
    let id = store.put_collection(tenant, &collection).await.ok()?;
    let image = site
        .items
        .iter()
        .find_map(|i| i.data.get("assetUrl").cloned());
    let currency = site
        .settings
        .website_settings
        .get("storeSettings")
        .and_then(|s| s.get("selectedCurrency"))
        .and_then(Value::as_str)
        .unwrap_or("USD")
        .to_owned();
    let now = tenants::now_ms();
    const DAY: i64 = 86_400_000;
    for n in 1..=3_i64 {
        let mut item = json!({
            "collectionId": id, "urlId": format!("sample-{n}"), "title": format!("{title}: sample {n}"),
            "body": format!("<p>This is sample {n} of the {title} collection, made up by tessera dev so the {kind} list and item views have something to show.</p>"),
            "excerpt": format!("<p>Sample {n} of {title}.</p>"),
            "recordType": 1, "addedOn": now, "publishOn": now - n * DAY, "updatedOn": now,
            "position": n,
            "data": image.as_ref().map_or(json!({}), |url| json!({"assetUrl": url})),
        });
        if products {
            // The third is sold out, so a sold-out state shows too.
            item["recordType"] = json!(11);
            item["productType"] = json!(1);
            item["variants"] = json!([{
                "sku": format!("SAMPLE-{n}"), "currency": currency,
                "priceMinor": 1000 * n, "qtyInStock": if n == 3 { 0 } else { 5 },
            }]);
        }
        if kind == "events" {
            item["recordType"] = json!(12);
            item["startDate"] = json!(now + n * 7 * DAY);
            item["endDate"] = json!(now + n * 7 * DAY + 2 * 3_600_000);
        }
        if let Ok(item) = serde_json::from_value::<tenants::Item>(item) {
            let _ = store.put_item(tenant, &item).await;
        }
    }
    Some((id, format!("/{url_id}")))
}

/// Every navigation the folder declares and the content has no links in gets the
/// content's menus (the longest first), then the sample collections go at the end of the
/// folder's first navigation so they can be reached.
async fn fill_navigations(
    store: &Store,
    tenant: TenantId,
    site: &tenants::SiteSnapshot,
    files: &TemplateFiles,
    added: &[String],
) -> Vec<String> {
    let declared = declared_navigations(files);
    let links = |v: Option<&Value>| v.and_then(Value::as_array).map_or(0, Vec::len);
    let mut sources: Vec<(&String, &Value)> = site
        .navigations
        .iter()
        .filter(|(_, v)| links(Some(v)) > 0)
        .collect();
    sources.sort_by_key(|(_, v)| std::cmp::Reverse(links(Some(v))));
    let mut said = Vec::new();
    let mut next = sources.iter().cycle();
    for (i, name) in declared.iter().enumerate() {
        let mut items = match site.navigations.get(name) {
            Some(v) if links(Some(v)) > 0 => v.as_array().cloned().unwrap_or_default(),
            _ => match (!sources.is_empty()).then(|| next.next()).flatten() {
                Some((from, v)) => {
                    said.push(format!(
                        "navigation '{name}' is empty in the content: it shows '{from}' ({} links)",
                        links(Some(v))
                    ));
                    v.as_array().cloned().unwrap_or_default()
                }
                None => Vec::new(),
            },
        };
        if i == 0 {
            items.extend(added.iter().map(|id| json!({"collectionId": id})));
        }
        let unchanged = site.navigations.get(name).and_then(Value::as_array) == Some(&items);
        if !unchanged && !items.is_empty() {
            let _ = store
                .put_navigation(tenant, name, &Value::Array(items))
                .await;
        }
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> TemplateFiles {
        renderer::folder::template_files(files.iter().copied())
    }

    #[test]
    fn a_type_is_declared_by_its_conf_its_templates_or_the_system_list() {
        let files = folder(&[
            (
                "template.conf",
                r#"{"name": "t", "systemCollections": ["gallery", "page"], // comment
                 }"#,
            ),
            ("collections/blog.conf", "{}"),
            ("collections/products.list", ""),
            ("collections/events.item", ""),
            ("collections/folders.conf", r#"{"folder": true}"#),
            ("collections/stacked.conf", r#"{"index": true}"#),
            ("collections/notes.conf", "{}"),
            ("collections/sub/odd.list", ""),
        ]);
        let types: Vec<String> = declared_types(&files).into_iter().collect();
        assert_eq!(types, ["blog", "events", "gallery", "notes", "products"]);
    }
}
