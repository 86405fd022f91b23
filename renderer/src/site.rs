//! A site's content as the renderer reads it: website and settings, collections with their
//! items, navigations, block fields. Built by the caller (the `api` crate, from storage; or
//! tests, from JSON) and shared read-only between requests.
//!
//! Collections and items are JSON objects shaped as TEMPLATE-PLATFORM.md §3.4–3.6 describes,
//! kept as [`Node`]s so page contexts can share them without copying.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use rustc_hash::FxHashMap;
use serde_json::Value;
use template_lang::Ctx;
use template_lang::compile::Template;
use template_lang::exec::context::Fragment;
use template_lang::value::{Node, Val};

/// How a member area is named among a visitor's keys ([`crate::render::Request::unlocked`]),
/// so an area id can never pass for a collection id.
pub const MEMBER_AREA_KEY: &str = "member-area:";

/// The key a member of `area` holds.
pub fn member_area_key(area: &str) -> String {
    format!("{MEMBER_AREA_KEY}{area}")
}

/// One collection (page, blog, products, folder, index...) and its items.
#[derive(Clone)]
pub struct Collection {
    /// The collection object (`id`, `title`, `urlId`, `fullUrl`, `type`, `typeName`, ...).
    pub node: Node,
    /// Items in collection order (newest first for chronological collections).
    pub items: Vec<Node>,
    /// For folders and indexes: the child collections (indexes into [`SiteContent::collections`]).
    pub children: Vec<usize>,
    /// `urlId` (the path segment).
    pub url_id: String,
    pub type_name: String,
    /// The lock screen's password hash (an Argon2id PHC string), for a password-protected
    /// collection: the collection, its items and (for folders and indexes) its child
    /// collections render the lock screen (page type 103) until the visitor unlocks it.
    /// Never part of [`Collection::node`]; the node carries `passwordProtected: true`.
    pub lock: Option<Arc<str>>,
    /// [`Collection::category_links`], worked out on first use.
    pub categories: OnceLock<Vec<CategoryLink>>,
}

/// A category of a collection and the URL of the list filtered by it.
#[derive(Clone)]
pub struct CategoryLink {
    pub name: Node,
    pub full_url: Node,
}

impl Collection {
    /// The collection's categories, each with the URL of its filtered list: the
    /// collection's own `categories`, else those of its items in order of first use. Kept
    /// with the collection, which the site content caches per content version, instead of
    /// gathered from every item on each page that lists them.
    pub fn category_links(&self) -> &[CategoryLink] {
        self.categories.get_or_init(|| {
            let full_url = self.full_url();
            let names: Vec<&str> = match self.node.pointer(&["categories"]).and_then(Node::as_array)
            {
                Some(list) => list.iter().filter_map(Node::as_str).collect(),
                None => {
                    let mut all: Vec<&str> = Vec::new();
                    for item in &self.items {
                        let list = item.pointer(&["categories"]).and_then(Node::as_array);
                        for name in list.unwrap_or_default().iter().filter_map(Node::as_str) {
                            if !all.contains(&name) {
                                all.push(name);
                            }
                        }
                    }
                    all
                }
            };
            names
                .into_iter()
                .map(|name| CategoryLink {
                    name: Node::from(name),
                    full_url: Node::from(format!(
                        "{full_url}?category={}",
                        form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>()
                    )),
                })
                .collect()
        })
    }

    /// The collection's URL: its `fullUrl`, else `/` and its `urlId`.
    pub fn full_url(&self) -> String {
        self.field("fullUrl")
            .map_or_else(|| format!("/{}", self.url_id), str::to_string)
    }

    /// A string field of the collection object.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.node.pointer(&[key]).and_then(Node::as_str)
    }

    /// A boolean field of the collection object.
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.node.pointer(&[key]), Some(Node::Bool(true)))
    }

    /// The number field `key` of the collection object.
    pub fn number(&self, key: &str) -> Option<f64> {
        match self.node.pointer(&[key]) {
            Some(Node::Number(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn is_folder(&self) -> bool {
        self.flag("folder") || self.type_name == "folder" || self.type_name == "index"
    }

    /// The id the lock screen and unlock cookies name: `id`, else the `urlId`.
    pub fn id(&self) -> &str {
        self.field("id").unwrap_or(&self.url_id)
    }

    /// The member area the collection belongs to (`memberAreaId`), if any.
    pub fn member_area(&self) -> Option<&str> {
        self.field("memberAreaId").filter(|a| !a.is_empty())
    }

    /// Whether a password or a member area keeps the collection from some visitors.
    pub fn is_restricted(&self) -> bool {
        self.lock.is_some() || self.member_area().is_some()
    }

    /// Whether the password is one the visitor, who holds the keys `unlocked` (ids of the
    /// collections they unlocked and [`member_area_key`]s of the areas they belong to), has
    /// not entered.
    pub fn is_password_locked_for(&self, unlocked: &[String]) -> bool {
        self.lock.is_some() && !unlocked.iter().any(|u| u == self.id())
    }

    /// Whether the collection is kept from a visitor holding the keys `unlocked`: a password
    /// they have not entered, or a member area they do not belong to.
    pub fn is_locked_for(&self, unlocked: &[String]) -> bool {
        self.is_password_locked_for(unlocked)
            || self.member_area().is_some_and(|area| {
                !unlocked
                    .iter()
                    .any(|u| u.strip_prefix(MEMBER_AREA_KEY) == Some(area))
            })
    }

    /// The collection object as shown while it is locked: what navigation and the lock screen
    /// need (ids, URL, titles, type), without `mainContent`, descriptions, item counts or any
    /// other content.
    pub fn public_node(&self) -> Node {
        const PUBLIC: [&str; 14] = [
            "id",
            "urlId",
            "fullUrl",
            "title",
            "navigationTitle",
            "type",
            "typeName",
            "typeLabel",
            "enabled",
            "homepage",
            "folder",
            "folderBehavior",
            "regionName",
            "memberAreaId",
        ];
        let Some(o) = self.node.as_object() else {
            return Node::Null;
        };
        let mut entries: Vec<(Arc<str>, Node)> = o
            .iter()
            .filter(|(k, _)| PUBLIC.contains(&&***k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if self.lock.is_some() {
            entries.push((Arc::from("passwordProtected"), Node::Bool(true)));
        }
        Node::object(entries)
    }

    /// The item whose `urlId` is `url_id`.
    pub fn item(&self, url_id: &str) -> Option<(usize, &Node)> {
        self.items
            .iter()
            .enumerate()
            .find(|(_, i)| i.pointer(&["urlId"]).and_then(Node::as_str) == Some(url_id))
    }
}

/// A navigation link: a collection (with nested links for folders), or an external link.
#[derive(Clone, Debug, PartialEq)]
pub enum NavLink {
    Collection {
        index: usize,
        /// The link's own title: the collection's `navigationTitle` in this link.
        title: Option<String>,
        children: Vec<NavLink>,
    },
    External {
        title: String,
        url: String,
        new_window: bool,
    },
}

/// Everything needed to render a site's pages.
#[derive(Clone)]
pub struct SiteContent {
    pub website: Node,
    pub website_settings: Node,
    pub collections: Vec<Collection>,
    /// `navigationId` -> links.
    pub navigations: BTreeMap<String, Vec<NavLink>>,
    /// Block fields by id: the stored HTML of their rows and blocks.
    pub block_fields: BTreeMap<String, Arc<str>>,
    /// Index of the homepage collection.
    pub homepage: Option<usize>,
    /// `productMerchandisingContext` of store pages (product id → scarcity, sold-out text,
    /// restock sign-up views and messages), or `Null` for a site that sells nothing.
    pub merchandising: Node,
    /// The site's locale (`website.language`), e.g. `en-US`.
    pub locale: String,
    /// The owner's header and footer settings (`header`, `footer` of the page context;
    /// `Null` when the site has none).
    pub header: Node,
    pub footer: Node,
    /// The data of navigation tags already built for this content.
    pub nav_cache: NavCache,
    /// What navigation and category blocks printed over [`NavCache`]'s data.
    pub fragments: Fragments,
    /// The site password: while set, every page of the site is its lock screen for a
    /// visitor who has not unlocked the site ([`crate::render::Request::site_unlocked`]).
    pub site_lock: Option<SiteLock>,
}

/// The site-wide password and what its lock screen says (the owner's Settings → Site
/// access). The hash is never in any page context.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteLock {
    /// The password's Argon2id PHC string.
    pub hash: Arc<str>,
    /// The lock screen's heading ("" for the site's title).
    pub title: String,
    /// The words under it ("" for [`crate::render::SITE_LOCK_MESSAGE`]).
    pub message: String,
}

/// What a navigation or category tag's data depends on besides the site content: the tag
/// (kind and navigation id; for a category tag, its collection, length and active link),
/// the page's collection (active states) and which locked collections the visitor unlocked
/// (indexes, so that keys stay as few as the site's locks allow).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct NavKey {
    pub tag: &'static str,
    pub id: String,
    pub current: Option<usize>,
    pub unlocked: Vec<usize>,
}

/// Navigation and category data by [`NavKey`]. Every page builds the site navigation, a
/// tree of objects per collection, and building and then dropping it was over a third of
/// the time of a small page; the tree only changes with the content, which gets a new
/// [`SiteContent`] (and so an empty cache). A clone starts empty too, so a copy that is
/// then edited cannot serve stale navigation.
#[derive(Default)]
pub struct NavCache(Mutex<FxHashMap<NavKey, Node>>);

/// Entries a navigation cache keeps before it starts over; keys are bounded by the site's
/// structure, so this is only a guard.
const NAV_CACHE_MAX: usize = 1024;

impl NavCache {
    /// The data for `key`, built by `build` the first time.
    pub fn get_or_build(&self, key: NavKey, build: impl FnOnce() -> Node) -> Node {
        // A poisoned lock only means a panic mid-insert elsewhere; the map is still valid.
        if let Some(node) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return node.clone();
        }
        let node = build();
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= NAV_CACHE_MAX {
            map.clear();
        }
        map.insert(key, node.clone());
        node
    }
}

impl Clone for NavCache {
    fn clone(&self) -> NavCache {
        NavCache::default()
    }
}

/// What a block printed over data from [`NavCache`], by the data's address. Navigation
/// is on every page, and running its block was a tenth of the time of a product list; the
/// output is kept with the names it read from the page outside its data (see
/// [`Ctx::run_recorded`]), and printed again wherever they resolve the same. Like the data,
/// it lives as long as the content, and a clone starts empty.
#[derive(Default)]
pub struct Fragments(RwLock<FxHashMap<usize, Vec<KeptFragment>>>);

/// One block's output over one data node. The entry holds both, so neither address can be
/// reused by another while it is kept.
struct KeptFragment {
    _data: Node,
    block: Arc<Template>,
    /// `None` when the block's output could not be reused: it then runs plainly, without
    /// paying for a recording on every page.
    fragment: Option<Fragment>,
}

/// Data nodes a fragment cache keeps output for before it starts over (a guard, like
/// [`NAV_CACHE_MAX`]).
const FRAGMENTS_MAX: usize = 1024;

impl Fragments {
    /// Runs `block` over `data` pushed as a scope, as [`Ctx::with_scope`] would, or prints
    /// what it printed last time when that still holds here.
    pub fn render<'a>(&self, ctx: &mut Ctx<'a>, block: &'a Arc<Template>, data: Node) {
        let Node::Object(o) = &data else {
            ctx.with_scope(Val::Own(data), |ctx| ctx.run_template(block));
            return;
        };
        let key = Arc::as_ptr(o) as usize;
        {
            let kept = self.0.read().unwrap_or_else(|e| e.into_inner());
            let found = kept
                .get(&key)
                .and_then(|list| list.iter().find(|k| Arc::ptr_eq(&k.block, block)));
            match found.map(|k| &k.fragment) {
                Some(Some(fragment)) if ctx.replay(fragment) => return,
                Some(None) => {
                    drop(kept);
                    ctx.with_scope(Val::Own(data), |ctx| ctx.run_template(block));
                    return;
                }
                _ => {}
            }
        }
        let fragment = ctx.run_recorded(Val::Own(data.clone()), |ctx| ctx.run_template(block));
        let mut kept = self.0.write().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= FRAGMENTS_MAX {
            kept.clear();
        }
        let list = kept.entry(key).or_default();
        list.retain(|k| !Arc::ptr_eq(&k.block, block));
        list.push(KeptFragment {
            _data: data,
            block: Arc::clone(block),
            fragment,
        });
    }

    /// How many data nodes have output kept.
    pub fn len(&self) -> usize {
        self.0.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Clone for Fragments {
    fn clone(&self) -> Fragments {
        Fragments::default()
    }
}

impl SiteContent {
    /// The collection whose `urlId` is `url_id`.
    pub fn collection(&self, url_id: &str) -> Option<(usize, &Collection)> {
        self.collections
            .iter()
            .enumerate()
            .find(|(_, c)| c.url_id == url_id)
    }

    /// The folder that contains collection `index`, if any.
    pub fn parent_of(&self, index: usize) -> Option<usize> {
        self.collections
            .iter()
            .position(|c| c.children.contains(&index))
    }

    /// The collection that keeps collection `index` from a visitor holding the keys
    /// `unlocked` (see [`Collection::is_locked_for`]): `index` itself or the nearest folder
    /// or index above it with a password not entered or a member area not joined. `None`:
    /// it is visible.
    pub fn lock_of(&self, index: usize, unlocked: &[String]) -> Option<usize> {
        let mut cur = Some(index);
        // Bounded: a malformed parent chain must not loop.
        for _ in 0..=self.collections.len() {
            let i = cur?;
            let c = self.collections.get(i)?;
            if c.is_locked_for(unlocked) {
                return Some(i);
            }
            cur = self.parent_of(i);
        }
        None
    }

    /// The item whose `id` is `id`, with the index of its collection.
    pub fn item_by_id(&self, id: &str) -> Option<(usize, &Node)> {
        self.collections.iter().enumerate().find_map(|(i, c)| {
            c.items
                .iter()
                .find(|item| item.pointer(&["id"]).and_then(Node::as_str) == Some(id))
                .map(|item| (i, item))
        })
    }

    /// The member area `id` as `websiteSettings.memberAreas` declares it.
    pub fn member_area(&self, id: &str) -> Option<&Node> {
        self.website_settings
            .pointer(&["memberAreas"])
            .and_then(Node::as_array)?
            .iter()
            .find(|a| a.pointer(&["id"]).and_then(Node::as_str) == Some(id))
    }

    /// The member area collection `index` belongs to: its own, else that of the nearest
    /// folder or index above it that has one.
    pub fn member_area_of(&self, index: usize) -> Option<&str> {
        let mut cur = Some(index);
        for _ in 0..=self.collections.len() {
            let c = self.collections.get(cur?)?;
            if let Some(area) = c.member_area() {
                return Some(area);
            }
            cur = self.parent_of(cur?);
        }
        None
    }

    /// Collection `index`'s object for a visitor who unlocked `unlocked`: the whole node, or
    /// [`Collection::public_node`] while it is locked.
    pub fn visible_node(&self, index: usize, unlocked: &[String]) -> Node {
        let c = &self.collections[index];
        if self.lock_of(index, unlocked).is_some() {
            c.public_node()
        } else {
            c.node.clone()
        }
    }

    /// Builds site content from one JSON document:
    /// `{ "website": {...}, "websiteSettings": {...}, "collections": [ {..., "items": [...],
    /// "collections": ["child-urlId", ...]} ], "navigations": { "main": [ "urlId" | {"title",
    /// "url", "newWindow"} | {"collection": "urlId", "title"?, "children": [...]} ] }, "header": {...},
    /// "footer": {...}, "blockFields":
    /// { "id": "<html>" } }`. Missing parts default to empty; the homepage is the collection
    /// with `"homepage": true`, else the first. A collection's `"lock": "<password hash>"`
    /// becomes [`Collection::lock`] (and `passwordProtected: true` on its node).
    pub fn from_json(doc: &Value) -> Result<SiteContent, String> {
        let website = doc
            .get("website")
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default()));
        let settings = doc
            .get("websiteSettings")
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default()));
        let locale = website
            .get("language")
            .and_then(Value::as_str)
            .unwrap_or("en-US")
            .to_string();
        let raw: Vec<Value> = doc
            .get("collections")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let url_ids: Vec<String> = raw
            .iter()
            .map(|c| {
                c.get("urlId")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        let index_of = |id: &str| url_ids.iter().position(|u| u == id);
        let mut collections = Vec::with_capacity(raw.len());
        for (i, c) in raw.iter().enumerate() {
            let mut obj = c
                .as_object()
                .cloned()
                .ok_or(format!("collections[{i}] is not an object"))?;
            let items: Vec<Node> = match obj.remove("items") {
                Some(Value::Array(items)) => items.iter().map(Node::from_json).collect(),
                Some(_) => return Err(format!("collections[{i}].items is not an array")),
                None => Vec::new(),
            };
            let children = match obj.remove("collections") {
                Some(Value::Array(ids)) => ids
                    .iter()
                    .map(|id| {
                        id.as_str().and_then(index_of).ok_or(format!(
                            "collections[{i}].collections: unknown collection {id}"
                        ))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                _ => Vec::new(),
            };
            let lock = match obj.remove("lock") {
                Some(Value::String(hash)) => {
                    obj.insert("passwordProtected".into(), Value::Bool(true));
                    Some(Arc::from(hash.as_str()))
                }
                Some(_) => return Err(format!("collections[{i}].lock is not a string")),
                None => None,
            };
            let type_name = obj
                .get("typeName")
                .and_then(Value::as_str)
                .unwrap_or("page")
                .to_string();
            collections.push(Collection {
                node: Node::from_json(&Value::Object(obj)),
                items,
                children,
                url_id: url_ids[i].clone(),
                type_name,
                lock,
                categories: OnceLock::new(),
            });
        }
        let homepage =
            collections
                .iter()
                .position(|c| c.flag("homepage"))
                .or(if collections.is_empty() {
                    None
                } else {
                    Some(0)
                });
        let mut navigations = BTreeMap::new();
        if let Some(navs) = doc.get("navigations").and_then(Value::as_object) {
            for (name, links) in navs {
                let links = links.as_array().map(Vec::as_slice).unwrap_or_default();
                let parsed = links
                    .iter()
                    .map(|l| nav_link(l, &index_of))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("navigations.{name}: {e}"))?;
                navigations.insert(name.clone(), parsed);
            }
        }
        let block_fields = doc
            .get("blockFields")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), Arc::from(v.as_str()?))))
                    .collect()
            })
            .unwrap_or_default();
        Ok(SiteContent {
            website: Node::from_json(&website),
            website_settings: Node::from_json(&settings),
            collections,
            navigations,
            block_fields,
            homepage,
            merchandising: doc
                .get("productMerchandisingContext")
                .map_or(Node::Null, Node::from_json),
            locale,
            header: doc.get("header").map_or(Node::Null, Node::from_json),
            footer: doc.get("footer").map_or(Node::Null, Node::from_json),
            nav_cache: NavCache::default(),
            fragments: Fragments::default(),
            site_lock: None,
        })
    }
}

fn nav_link(v: &Value, index_of: &impl Fn(&str) -> Option<usize>) -> Result<NavLink, String> {
    match v {
        Value::String(id) => Ok(NavLink::Collection {
            index: index_of(id).ok_or(format!("unknown collection {id}"))?,
            title: None,
            children: Vec::new(),
        }),
        Value::Object(o) if o.contains_key("collection") => {
            let id = o["collection"].as_str().unwrap_or_default();
            let children = o
                .get("children")
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .map(|l| nav_link(l, index_of))
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?
                .unwrap_or_default();
            Ok(NavLink::Collection {
                index: index_of(id).ok_or(format!("unknown collection {id}"))?,
                title: o.get("title").and_then(Value::as_str).map(str::to_owned),
                children,
            })
        }
        Value::Object(o) => Ok(NavLink::External {
            title: o
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            url: o
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            new_window: o.get("newWindow").and_then(Value::as_bool).unwrap_or(false),
        }),
        other => Err(format!("a link must be a urlId or an object, got {other}")),
    }
}
