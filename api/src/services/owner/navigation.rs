//! The rules of a site's navigations as the owner's Pages screen changes them. Links are
//! the navigation links of [`crate::routes::owner::layout`] (`{collectionId, title?,
//! items?}` or an external link); a page linked in no declared navigation is "not
//! linked"; there is one level of folders (only a folder's link has `items`). These
//! functions read and rewrite links and place pages; the routes of
//! [`crate::routes::owner::pages`] check the owner's input with them and store the result
//! in one write.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use tenants::{Collection, SiteSnapshot};

pub const NOT_A_FOLDER: &str = "Only a folder holds pages.";
pub const FOLDER_IN_FOLDER: &str = "A folder cannot go inside another folder.";

/// Whether a page is a folder: the platform's `folder` (or `index`) type, or a
/// collection type whose `.conf` says `folder`.
pub fn is_folder(c: &Collection) -> bool {
    c.data.get("folder") == Some(&Value::Bool(true))
        || c.type_name == "folder"
        || c.type_name == "index"
}

/// The stored links of navigation `name` (an empty list when it has none).
pub fn nav_of(site: &SiteSnapshot, name: &str) -> Value {
    site.navigations
        .get(name)
        .filter(|v| v.is_array())
        .cloned()
        .unwrap_or_else(|| json!([]))
}

/// The collection ids `links` point at, with the folder each is under (depth first).
pub fn walk(links: &Value, parent: Option<&str>, out: &mut Vec<(String, Option<String>)>) {
    for l in links.as_array().into_iter().flatten() {
        if let Some(id) = l.get("collectionId").and_then(Value::as_str) {
            out.push((id.to_owned(), parent.map(str::to_owned)));
            if let Some(children) = l.get("items") {
                walk(children, Some(id), out);
            }
        }
    }
}

/// `links` without those to pages the site does not have.
pub fn live_links(links: &Value, site: &SiteSnapshot) -> Vec<Value> {
    links
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| {
            if let Some(id) = l.get("collectionId").and_then(Value::as_str) {
                site.collection(id)?;
                let mut l = l.clone();
                if let Some(children) = l.get("items").cloned() {
                    l["items"] = Value::Array(live_links(&children, site));
                }
                return Some(l);
            }
            Some(l.clone())
        })
        .collect()
}

/// The not-linked area: pages linked in none of `navs`, a not-linked folder with its pages.
pub fn not_linked(site: &SiteSnapshot, navs: &[(String, String)]) -> Vec<Value> {
    let mut linked = Vec::new();
    for (name, _) in navs {
        walk(&nav_of(site, name), None, &mut linked);
    }
    let linked: BTreeSet<&str> = linked.iter().map(|(id, _)| id.as_str()).collect();
    let free: Vec<&Collection> = site
        .collections
        .iter()
        .filter(|c| !linked.contains(c.id.as_str()))
        .collect();
    let free_folder = |id: &str| free.iter().any(|c| c.id == id && is_folder(c));
    free.iter()
        .filter(|c| c.parent_id.as_deref().is_none_or(|p| !free_folder(p)))
        .map(|c| {
            if is_folder(c) {
                let children: Vec<Value> = free
                    .iter()
                    .filter(|k| k.parent_id.as_deref() == Some(&c.id))
                    .map(|k| json!({"collectionId": k.id}))
                    .collect();
                json!({"collectionId": c.id, "items": children})
            } else {
                json!({"collectionId": c.id})
            }
        })
        .collect()
}

/// The folder rules over checked `links` at `path`: `items` only on a folder's link, no
/// folder inside a folder.
pub fn check_folders(
    site: &SiteSnapshot,
    links: &[Value],
    path: &str,
    nested: bool,
    errors: &mut Map<String, Value>,
) {
    for (i, l) in links.iter().enumerate() {
        let here = format!("{path}[{i}]");
        let folder = l
            .get("collectionId")
            .and_then(Value::as_str)
            .and_then(|id| site.collection(id))
            .is_some_and(is_folder);
        if nested && folder {
            errors
                .entry(here.clone())
                .or_insert(FOLDER_IN_FOLDER.into());
        }
        if let Some(Value::Array(children)) = l.get("items")
            && !children.is_empty()
        {
            if !folder {
                errors
                    .entry(format!("{here}.items"))
                    .or_insert(NOT_A_FOLDER.into());
            } else {
                check_folders(site, children, &format!("{here}.items"), true, errors);
            }
        }
    }
}

/// The new folder and position of every page for `navs` (declared order) then `free`
/// (the not-linked area, when stated): the pages whose folder or place changes.
pub fn placed(site: &SiteSnapshot, navs: &[Value], free: Option<&Value>) -> Vec<Collection> {
    let mut seen = Vec::new();
    for links in navs {
        walk(links, None, &mut seen);
    }
    if let Some(free) = free {
        walk(free, None, &mut seen);
    }
    let mut order: Vec<&str> = Vec::new();
    let mut parent: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for (id, p) in &seen {
        if !order.contains(&id.as_str()) {
            order.push(id);
        }
        let e = parent.entry(id).or_insert(None);
        if p.is_some() && e.is_none() {
            *e = p.as_deref();
        }
    }
    for c in &site.collections {
        if !order.contains(&c.id.as_str()) {
            order.push(&c.id);
        }
    }
    let mut out = Vec::new();
    for (n, id) in order.iter().enumerate() {
        let Some(old) = site.collections.iter().find(|c| c.id == *id) else {
            continue;
        };
        let mut c = old.clone();
        c.position = n as i64 + 1;
        match parent.get(id) {
            Some(p) => c.parent_id = p.map(str::to_owned),
            // Named nowhere while the not-linked area was stated: a not-linked page.
            None if free.is_some() => c.parent_id = None,
            None => {}
        }
        let before = site.collections.iter().find(|k| k.id == c.id);
        if before != Some(&c) {
            out.push(c);
        }
    }
    out
}

/// `links` with `link` added at the end of each top-level link to `folder`.
pub fn into_folder(links: &Value, folder: &str, link: &Value) -> Option<Value> {
    let mut links = links.clone();
    let mut found = false;
    for l in links.as_array_mut()? {
        if l.get("collectionId").and_then(Value::as_str) == Some(folder) {
            found = true;
            match l.get_mut("items").and_then(Value::as_array_mut) {
                Some(items) => items.push(link.clone()),
                None => l["items"] = json!([link]),
            }
        }
    }
    found.then_some(links)
}

/// How many links `links` holds, children included.
pub fn count(links: &Value) -> usize {
    links
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| 1 + l.get("items").map_or(0, count))
        .sum()
}

/// `links` without those to `id`: a top-level link to it gives way to its children.
pub fn unlinked(links: &Value, id: &str) -> Value {
    let mut out = Vec::new();
    for l in links.as_array().into_iter().flatten() {
        if l.get("collectionId").and_then(Value::as_str) == Some(id) {
            if let Some(Value::Array(children)) = l.get("items") {
                out.extend(
                    children
                        .iter()
                        .filter(|k| k.get("collectionId").and_then(Value::as_str) != Some(id))
                        .cloned(),
                );
            }
            continue;
        }
        let mut l = l.clone();
        if let Some(children) = l.get("items").cloned() {
            l["items"] = unlinked(&children, id);
        }
        out.push(l);
    }
    Value::Array(out)
}
