//! The `<squarespace:...>` tags (TEMPLATE-PLATFORM.md §2.2), implemented as a template-lang
//! [`Host`]: attributes are evaluated in the scope where the tag sits, the tag's data is
//! pushed as a scope over it, and the tag's body or `template` block renders against it.

use std::sync::Arc;

use template_lang::compile::tree::HostTag;
use template_lang::exec::context::PartialTarget;
use template_lang::value::{Node, Val};
use template_lang::{Ctx, Host};

use crate::site::{Collection, Fragments, NavKey, NavLink, SiteContent};

/// Renders the platform's tags for one page of one site.
pub struct Tags<'s> {
    pub site: &'s SiteContent,
    /// The collection the page belongs to, if any.
    pub current_collection: Option<usize>,
    /// The category the current list is filtered by (`?category=`), if any.
    pub current_category: Option<String>,
    /// Password-protected collections the visitor unlocked (ids): navigation shows the
    /// others' public fields only, and queries and category lists give nothing of them.
    pub unlocked: &'s [String],
    /// Where the last `combo="true"` script element is in the output (start, end), so the
    /// next one right after it joins it.
    pub last_combo: std::sync::Mutex<Option<(usize, usize)>>,
}

/// Most items a query returns (TEMPLATE-PLATFORM.md §2.2: `limit` max 100).
const QUERY_LIMIT_MAX: usize = 100;
/// Most items a query skips.
const QUERY_SKIP_MAX: usize = 10;

impl Host for Tags<'_> {
    fn render_tag<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        match &*tag.name {
            "navigation" => self.navigation(ctx, tag),
            "folder-navigation" => self.folder_navigation(ctx, tag),
            "query" => self.query(ctx, tag),
            "category" => self.category(ctx, tag),
            "block-field" => self.block_field(ctx, tag),
            "script" => self.script(ctx, tag),
            // `related` needs an item view with related items enabled; without data the
            // body renders against no items.
            "related" => render_with(
                ctx,
                tag,
                scope(vec![("items", Node::array(Vec::new()))]),
                None,
            ),
            _ => {}
        }
    }
}

fn attr<'a>(ctx: &mut Ctx<'a>, tag: &'a HostTag, name: &str) -> Option<String> {
    tag.attr(name).map(|b| ctx.render_block(b))
}

fn scope(entries: Vec<(&str, Node)>) -> Node {
    Node::object(
        entries
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect(),
    )
}

/// Renders the tag's `template` block (a block stem, without `.block`) or its body against
/// `data`, pushed over the current scope. With `fragments`, for data that stays the same
/// from page to page, a block's output is kept there and reused.
fn render_with<'a>(ctx: &mut Ctx<'a>, tag: &'a HostTag, data: Node, fragments: Option<&Fragments>) {
    let template = tag.attr("template").map(|b| ctx.render_block(b));
    match template {
        Some(stem) => {
            let name = format!("{stem}.block");
            match ctx.partial(&name) {
                Some(PartialTarget::Template(t)) => match fragments {
                    Some(fragments) => fragments.render(ctx, t, data),
                    None => ctx.with_scope(Val::Own(data), |ctx| ctx.run_template(t)),
                },
                Some(_) => {}
                None => ctx.error_at(
                    format!(
                        "RuntimeError: <squarespace:{}> template '{name}' could not be found.",
                        tag.name
                    ),
                    tag.at,
                ),
            }
        }
        None => {
            if let Some(body) = tag.body {
                ctx.with_scope(Val::Own(data), |ctx| ctx.run_block(body));
            }
        }
    }
}

/// A collection's node as a navigation link shows it: with the link's own title, when it
/// has one, as its `navigationTitle`.
fn titled(node: Node, title: &Option<String>) -> Node {
    let (Some(title), Some(o)) = (title, node.as_object()) else {
        return node;
    };
    let mut entries: Vec<(Arc<str>, Node)> =
        o.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    match entries.iter_mut().find(|(k, _)| &**k == "navigationTitle") {
        Some((_, v)) => *v = Node::from(title.as_str()),
        None => entries.push(("navigationTitle".into(), Node::from(title.as_str()))),
    }
    Node::object(entries)
}

impl Tags<'_> {
    fn active_chain(&self) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut cur = self.current_collection;
        while let Some(i) = cur {
            if chain.contains(&i) {
                break;
            }
            chain.push(i);
            cur = self.site.parent_of(i);
        }
        chain
    }

    fn nav_items(&self, links: &[NavLink], active: &[usize]) -> Vec<Node> {
        links
            .iter()
            .filter_map(|link| match link {
                NavLink::Collection {
                    index,
                    title,
                    children,
                } => {
                    let c: &Collection = self.site.collections.get(*index)?;
                    if matches!(c.node.pointer(&["enabled"]), Some(Node::Bool(false))) {
                        return None;
                    }
                    let kids: Vec<NavLink> = if children.is_empty() {
                        c.children
                            .iter()
                            .map(|&i| NavLink::Collection {
                                index: i,
                                title: None,
                                children: Vec::new(),
                            })
                            .collect()
                    } else {
                        children.clone()
                    };
                    let is_active = active.first() == Some(index);
                    let folder_active = active.iter().skip(1).any(|a| a == index);
                    Some(scope(vec![
                        (
                            "collection",
                            titled(self.site.visible_node(*index, self.unlocked), title),
                        ),
                        ("active", Node::Bool(is_active)),
                        ("folderActive", Node::Bool(folder_active)),
                        ("items", Node::array(self.nav_items(&kids, active))),
                    ]))
                }
                NavLink::External {
                    title,
                    url,
                    new_window,
                } => Some(scope(vec![
                    ("title", Node::from(title.as_str())),
                    (
                        "externalLink",
                        scope(vec![
                            ("url", Node::from(url.as_str())),
                            ("newWindow", Node::Bool(*new_window)),
                        ]),
                    ),
                ])),
            })
            .collect()
    }

    fn navigation<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let id = attr(ctx, tag, "navigationId").unwrap_or_default();
        let links = self
            .site
            .navigations
            .get(&id)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let key = self.nav_key("navigation", id);
        let data = self.site.nav_cache.get_or_build(key, || {
            let active = self.active_chain();
            let items = self.nav_items(links, &active);
            let folder_active = active.len() > 1;
            scope(vec![
                ("items", Node::array(items)),
                ("active", Node::Bool(!active.is_empty())),
                ("folderActive", Node::Bool(folder_active)),
                ("website", self.site.website.clone()),
            ])
        });
        render_with(ctx, tag, data, Some(&self.site.fragments));
    }

    /// The cache key of a navigation tag's data on this page.
    fn nav_key(&self, tag: &'static str, id: String) -> NavKey {
        let unlocked = (self.site.collections.iter().enumerate())
            .filter(|(_, c)| c.is_restricted() && !c.is_locked_for(self.unlocked))
            .map(|(i, _)| i)
            .collect();
        NavKey {
            tag,
            id,
            current: self.current_collection,
            unlocked,
        }
    }

    fn folder_navigation<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let key = self.nav_key("folder-navigation", String::new());
        let data = self
            .site
            .nav_cache
            .get_or_build(key, || self.folder_navigation_data());
        render_with(ctx, tag, data, Some(&self.site.fragments));
    }

    fn folder_navigation_data(&self) -> Node {
        let active = self.active_chain();
        let siblings: Vec<NavLink> = match active.get(1) {
            Some(&folder) => self.site.collections[folder]
                .children
                .iter()
                .map(|&i| NavLink::Collection {
                    index: i,
                    title: None,
                    children: Vec::new(),
                })
                .collect(),
            None => Vec::new(),
        };
        scope(vec![
            ("items", Node::array(self.nav_items(&siblings, &active))),
            ("website", self.site.website.clone()),
        ])
    }

    fn query<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let slug = attr(ctx, tag, "collection").unwrap_or_default();
        let limit = attr(ctx, tag, "limit")
            .and_then(|l| l.trim().parse::<usize>().ok())
            .unwrap_or(QUERY_LIMIT_MAX)
            .min(QUERY_LIMIT_MAX);
        let skip = attr(ctx, tag, "skip")
            .and_then(|l| l.trim().parse::<usize>().ok())
            .unwrap_or(0)
            .min(QUERY_SKIP_MAX);
        let featured = attr(ctx, tag, "featured").is_some_and(|f| f == "true");
        let categories = attr(ctx, tag, "category").map(|c| split_list(&c));
        let tags = attr(ctx, tag, "tag").map(|t| split_list(&t));
        let (collection, items) = match self.site.collection(&slug) {
            // A locked collection: its public fields, none of its items.
            Some((i, c)) if self.site.lock_of(i, self.unlocked).is_some() => {
                (c.public_node(), Vec::new())
            }
            Some((_, c)) => {
                let items: Vec<Node> = c
                    .items
                    .iter()
                    .filter(|i| {
                        !featured || matches!(i.pointer(&["starred"]), Some(Node::Bool(true)))
                    })
                    .filter(|i| {
                        categories
                            .as_ref()
                            .is_none_or(|want| has_any(i, "categories", want))
                    })
                    .filter(|i| tags.as_ref().is_none_or(|want| has_any(i, "tags", want)))
                    .skip(skip)
                    .take(limit)
                    .cloned()
                    .collect();
                (c.node.clone(), items)
            }
            None => (Node::Null, Vec::new()),
        };
        render_with(
            ctx,
            tag,
            scope(vec![
                ("items", Node::array(items)),
                ("collection", collection),
            ]),
            None,
        );
    }

    fn category<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let slug = attr(ctx, tag, "collection").unwrap_or_default();
        let limit = attr(ctx, tag, "limit").and_then(|l| l.trim().parse::<usize>().ok());
        // Unknown or locked: no categories (a locked collection's come from its items).
        let Some((_, c)) = self
            .site
            .collection(&slug)
            .filter(|(i, _)| self.site.lock_of(*i, self.unlocked).is_none())
        else {
            render_with(
                ctx,
                tag,
                scope(vec![("categories", Node::array(Vec::new()))]),
                None,
            );
            return;
        };
        let all = c.category_links();
        let links = &all[..limit.map_or(all.len(), |l| l.min(all.len()))];
        // The data depends on the page only through which link is active, so it is kept with
        // the site content per collection, limit and active link, like the navigation's. A
        // filter that names no listed category marks none active, as no filter does, and
        // shares its entry: visitors' query strings cannot grow the cache.
        let active = self
            .current_category
            .as_deref()
            .and_then(|name| links.iter().position(|l| l.name.as_str() == Some(name)));
        let key = NavKey {
            tag: "category",
            id: format!(
                "{slug}\n{}\n{}",
                links.len(),
                active.map_or(-1, |i| i as i64)
            ),
            current: None,
            unlocked: Vec::new(),
        };
        let data = self.site.nav_cache.get_or_build(key, || {
            let categories = links
                .iter()
                .enumerate()
                .map(|(i, link)| {
                    scope(vec![
                        ("name", link.name.clone()),
                        ("fullUrl", link.full_url.clone()),
                        ("active", Node::Bool(active == Some(i))),
                    ])
                })
                .collect();
            scope(vec![
                ("categories", Node::array(categories)),
                ("collection", c.node.clone()),
            ])
        });
        render_with(ctx, tag, data, Some(&self.site.fragments));
    }

    fn block_field<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let id = attr(ctx, tag, "id").unwrap_or_default();
        let columns = attr(ctx, tag, "columns").unwrap_or_else(|| "12".into());
        let label = attr(ctx, tag, "label").unwrap_or_default();
        let class = attr(ctx, tag, "class").unwrap_or_default();
        let locked = attr(ctx, tag, "lock-layout").is_some_and(|l| l == "true");
        let mut classes = format!("sqs-layout sqs-grid-{columns} columns-{columns}");
        if !class.is_empty() {
            classes.push(' ');
            classes.push_str(&class);
        }
        if locked {
            classes.push_str(" sqs-locked-layout");
        }
        let out = &mut ctx.out;
        out.push_str("<div class=\"");
        html_escape::encode_double_quoted_attribute_to_string(&classes, out);
        out.push_str("\" data-layout-label=\"");
        html_escape::encode_double_quoted_attribute_to_string(&label, out);
        out.push_str("\" data-type=\"block-field\" id=\"");
        html_escape::encode_double_quoted_attribute_to_string(&id, out);
        out.push_str("\">");
        if let Some(html) = self.site.block_fields.get(&id) {
            out.push_str(html);
        }
        out.push_str("</div>");
    }
}

const SCRIPT_OPEN: &str = "<script src=\"/scripts/";
const SCRIPT_CLOSE: &str = "\"></script>";

impl Tags<'_> {
    /// `<squarespace:script src="site.js" combo="..."/>`: a script element for
    /// `scripts/<src>`. Scripts with `combo="true"` next to each other (only white space
    /// between) become one request, as on the platform: `/scripts/combo/?a.js&b.js`, which
    /// the server answers with the files joined.
    fn script<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let src = attr(ctx, tag, "src").unwrap_or_default();
        if src.is_empty() {
            return;
        }
        let combo = attr(ctx, tag, "combo").is_some_and(|c| c.trim() == "true");
        let mut name = String::new();
        html_escape::encode_double_quoted_attribute_to_string(
            src.trim_start_matches('/'),
            &mut name,
        );
        let out = &mut ctx.out;
        let mut last = self.last_combo.lock().unwrap_or_else(|e| e.into_inner());
        if combo
            && let Some((start, end)) = *last
            && let Some(element) = out.get(start..end)
            && out[end..].trim().is_empty()
            && let Some(files) = element
                .strip_prefix(SCRIPT_OPEN)
                .and_then(|e| e.strip_suffix(SCRIPT_CLOSE))
        {
            let files = files.strip_prefix("combo/?").unwrap_or(files);
            let joined = format!("{SCRIPT_OPEN}combo/?{files}&amp;{name}{SCRIPT_CLOSE}");
            out.replace_range(start..end, &joined);
            *last = Some((start, start + joined.len()));
            return;
        }
        let start = out.len();
        out.push_str(SCRIPT_OPEN);
        out.push_str(&name);
        out.push_str(SCRIPT_CLOSE);
        *last = combo.then_some((start, out.len()));
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn has_any(item: &Node, field: &str, wanted: &[String]) -> bool {
    item.pointer(&[field])
        .and_then(Node::as_array)
        .is_some_and(|values| {
            values
                .iter()
                .filter_map(Node::as_str)
                .any(|v| wanted.iter().any(|w| w == v))
        })
}
