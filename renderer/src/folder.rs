//! A tenant's template folder (TEMPLATE-PLATFORM.md §1), loaded from its files and compiled
//! once per template version: layouts of regions, collection list/item templates, static
//! pages, blocks (partials), assets, scripts, styles and strings.
//!
//! Problems are collected, not fatal: a template with an unknown formatter or a broken
//! `.conf` still loads, and every problem names its file, line and column.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use serde_json::Value;
use template_lang::error::{Pos, UNCLOSED_TAG_HINT};
use template_lang::value::Node;
use template_lang::{CompileOptions, Partials, Registry, Template};

use crate::cart_reads::CartReads;
use crate::conf::parse_conf;

/// The files of a template folder by relative path (`template.conf`, `blocks/nav.block`).
pub type TemplateFiles = BTreeMap<String, Arc<[u8]>>;

/// A folder from (path, text) pairs: how tests and tools write a small folder inline.
pub fn template_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> TemplateFiles {
    files
        .into_iter()
        .map(|(path, text)| (path.to_string(), Arc::from(text.as_bytes())))
        .collect()
}

/// The prefix of the platform's host tags.
pub const HOST_PREFIX: &str = "squarespace:";

/// The partials the platform supplies to every folder (TEMPLATE-PLATFORM.md §1.1, §1.6):
/// the system partials `systemPartials` names, applied by bare name, and the blocks the
/// official frameworks took from the platform's template packages. Our own versions,
/// giving the markup (class names, data attributes) the frameworks' styles and scripts
/// expect; a folder's own block of the same name wins.
pub const PLATFORM_PARTIALS: [(&str, &str); 5] = [
    (
        "sqs-share-buttons",
        include_str!("../templates/platform/sqs-share-buttons"),
    ),
    (
        "sqs-social-links",
        include_str!("../templates/platform/sqs-social-links"),
    ),
    (
        "social-links.block",
        include_str!("../templates/platform/social-links.block"),
    ),
    (
        "sqs-video-background.block",
        include_str!("../templates/platform/sqs-video-background.block"),
    ),
    // The symbols the two social-links partials' `<use xlink:href="#{serviceName}-icon">`
    // point at: the platform put an icon sprite in its pages; ours is each network's short
    // label (as `social-icon-font`'s), drawn in the link's colour, with an empty mask.
    (
        "sqs-social-icon-sprite",
        include_str!("../templates/platform/sqs-social-icon-sprite"),
    ),
];

/// One problem in a template folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateProblem {
    pub file: String,
    /// 1-based; 0 when the problem concerns the whole file.
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for TemplateProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

/// A layout: regions concatenated and compiled as one template.
pub struct Layout {
    pub key: String,
    pub name: String,
    pub regions: Vec<String>,
    pub template: Template,
    /// Whether its region files print the footer's plain text ([`prints_footer_text`]).
    pub prints_footer_text: bool,
    /// The region files the template was assembled from, each with the line and column of
    /// the assembled source where it starts (a region after one that does not end its last
    /// line starts inside that line), to report positions in the region's own terms.
    pub origins: Vec<(String, Pos)>,
}

impl Layout {
    /// The region file and the position within it for `pos` of the assembled layout.
    pub fn locate(&self, pos: Pos) -> Option<(&str, Pos)> {
        locate(&self.origins, pos)
    }
}

/// The file and its own position for `pos` of a source assembled from `origins` (line 0,
/// an unknown position, stays as it is, in the first file).
fn locate(origins: &[(String, Pos)], pos: Pos) -> Option<(&str, Pos)> {
    if pos.line == 0 {
        return origins.first().map(|(f, _)| (f.as_str(), pos));
    }
    let (file, first) = origins
        .iter()
        .rev()
        .find(|(_, first)| (first.line, first.col) <= (pos.line, pos.col.max(1)))?;
    let col = if pos.line == first.line {
        pos.col.saturating_sub(first.col - 1)
    } else {
        pos.col
    };
    Some((
        file.as_str(),
        Pos {
            line: pos.line - (first.line - 1),
            col,
        },
    ))
}

/// Where the next text appended to `source` starts.
fn end_of(source: &str) -> Pos {
    let line_start = source.rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: source.matches('\n').count() as u32 + 1,
        col: source[line_start..].chars().count() as u32 + 1,
    }
}

/// A collection type declared by `collections/<type>.conf`.
pub struct CollectionType {
    pub conf: Value,
    pub list: Option<Template>,
    pub item: Option<Template>,
}

/// An owner-adjustable setting a stylesheet declares (TEMPLATE-PLATFORM.md §1.8).
#[derive(Clone, Debug, PartialEq)]
pub struct Tweak {
    /// `tweak-site-width-option`.
    pub title: String,
    /// `value`, `color`, `dropdown`, `checkbox` …
    pub kind: String,
    /// The declaration's `default`, if it has one.
    pub default: Option<Value>,
}

/// The tweak declarations in a stylesheet's text.
fn tweaks_in(text: &str) -> Vec<Tweak> {
    text.lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix("//")?
                .trim_start()
                .strip_prefix("tweak:")
        })
        .filter_map(|json| serde_json::from_str::<Value>(json.trim()).ok())
        .filter_map(|v| {
            Some(Tweak {
                title: v.get("title")?.as_str()?.to_owned(),
                kind: v
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("value")
                    .to_owned(),
                default: v.get("default").cloned(),
            })
        })
        .collect()
}

/// The body classes of dropdown and checkbox `tweaks` ([`TemplateFolder::tweak_classes`]).
pub fn tweak_classes(tweaks: &[Tweak], value: &dyn Fn(&str) -> Option<Value>) -> Vec<String> {
    let mut out = Vec::new();
    for t in tweaks {
        let Some(v) = value(&t.title).or_else(|| t.default.clone()) else {
            continue;
        };
        match (t.kind.as_str(), &v) {
            ("dropdown", Value::String(choice)) if !class_slug(choice).is_empty() => {
                out.push(format!("{}-{}", t.title, class_slug(choice)));
            }
            ("checkbox", Value::Bool(true)) => out.push(t.title.clone()),
            ("checkbox", Value::String(s)) if s == "true" => out.push(t.title.clone()),
            _ => {}
        }
    }
    out
}

/// `Full Background` → `full-background`.
fn class_slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// A static page: `pages/<stem>.page` with its `.page.conf`.
pub struct StaticPage {
    pub title: String,
    pub description: String,
    pub template: Template,
}

/// A compiled template folder.
pub struct TemplateFolder {
    pub name: String,
    pub conf: Value,
    /// In `template.conf` order; the first is the fallback when `default` is absent.
    pub layouts: Vec<Layout>,
    /// `navigations[]`: (name, title).
    pub navigations: Vec<(String, String)>,
    /// The site-wide block fields: each `<squarespace:block-field id="…" label="…">` of the
    /// layouts' region files, `(id, label)` in the order first met (the label is empty when
    /// the tag has none). What every page shows from the footer's or header's
    /// `blockFields`; the block fields of page and collection templates are not here.
    pub site_block_fields: Vec<(String, String)>,
    /// Whether a layout's region files print the footer's plain text (`footer.text`, or
    /// `text` inside `{.section footer}`): whether the owner's "Footer text" shows anywhere.
    pub prints_footer_text: bool,
    pub collections: BTreeMap<String, CollectionType>,
    pub pages: BTreeMap<String, StaticPage>,
    /// `blocks/*.block`, named with their `.block` suffix as templates apply them.
    pub blocks: Partials,
    /// Public files (`assets/**`, `scripts/**`) by URL path without the leading slash.
    pub public: BTreeMap<String, Arc<[u8]>>,
    /// The `href` of the site icon: the template's `assets/favicon.{svg,png,ico}`, else an
    /// empty data URL so browsers do not ask for a `/favicon.ico` that does not exist.
    pub icon: String,
    /// The site stylesheet: `stylesheets` in order.
    pub css: String,
    /// The tweaks the stylesheets declare (`// tweak: {"title": …, "type": …}` comments),
    /// for the body classes dropdown and checkbox tweaks give ([`TemplateFolder::tweak_classes`]).
    pub tweaks: Vec<Tweak>,
    /// The site's own email templates, `emails/<kind>.txt` (the plain-text part, its first
    /// line `Subject: …`) and `emails/<kind>.html`, by file name; the server has defaults
    /// for the kinds a folder does not override.
    pub emails: BTreeMap<String, Template>,
    /// `strings/template-<locale>.json` etc. merged per locale, as the `localizedStrings`
    /// node every page context shares (built once per template version, not per render).
    pub strings: BTreeMap<String, Node>,
    pub problems: Vec<TemplateProblem>,
    /// Whether any of its templates may print the time from now (the `timesince` and
    /// `relative-time` formatters): then every page it renders reads the clock
    /// ([`crate::render::Clock::Read`]). Found by the formatters' names anywhere in its
    /// non-public files, so a false alarm (the name in a comment or a text) only costs a
    /// server the kept copies of this folder's pages.
    pub reads_clock: bool,
    /// What its pages can read of the visitor's cart ([`CartReads`]): when only a few
    /// summary values, a server may keep a page rendered with a cart under them.
    pub cart_reads: CartReads,
    /// The largest main content and the largest whole page rendered so far: the next render
    /// starts its output buffers at those sizes instead of growing them from empty.
    pub(crate) main_size: AtomicUsize,
    pub(crate) page_size: AtomicUsize,
}

impl TemplateFolder {
    /// The body classes of the dropdown and checkbox tweaks (TEMPLATE-PLATFORM.md §1.8):
    /// dropdown `tweak-x` set to `Full Background` gives `tweak-x-full-background`, a
    /// checkbox that is on gives its title. `value(title)` is the site's value, if set; else
    /// the declaration's default counts.
    pub fn tweak_classes(&self, value: &dyn Fn(&str) -> Option<Value>) -> Vec<String> {
        tweak_classes(&self.tweaks, value)
    }

    /// The layout named `key`, else `default`, else the first.
    pub fn layout(&self, key: Option<&str>) -> Option<&Layout> {
        key.and_then(|k| self.layouts.iter().find(|l| l.key == k))
            .or_else(|| self.layouts.iter().find(|l| l.key == "default"))
            .or_else(|| self.layouts.first())
    }
}

/// Reads a folder from disk into [`TemplateFiles`] (hidden files and `node_modules` skipped).
pub fn read_dir(root: &Path) -> std::io::Result<TemplateFiles> {
    let mut files = TemplateFiles::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(root) {
                let rel = rel.to_string_lossy().replace('\\', "/");
                files.insert(rel, std::fs::read(&path)?.into());
            }
        }
    }
    Ok(files)
}

struct Loader<'f> {
    files: &'f TemplateFiles,
    registry: &'static Registry,
    options: CompileOptions,
    problems: Vec<TemplateProblem>,
}

impl Loader<'_> {
    fn text(&mut self, path: &str) -> Option<String> {
        let bytes = self.files.get(path)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Some(s.to_string()),
            Err(e) => {
                self.problem(path, 0, 0, format!("not UTF-8 text: {e}"));
                None
            }
        }
    }

    fn problem(&mut self, file: &str, line: u32, column: u32, message: String) {
        self.problems.push(TemplateProblem {
            file: file.to_string(),
            line,
            column,
            message,
        });
    }

    fn conf(&mut self, path: &str) -> Option<Value> {
        let text = self.text(path)?;
        match parse_conf(path, &text) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problem(path, e.line as u32, e.column as u32, e.message);
                None
            }
        }
    }

    /// Compiles a template file; syntax errors become problems (the template still loads).
    fn template(&mut self, path: &str) -> Option<Template> {
        let source = self.text(path)?;
        Some(self.compile(
            path,
            &source,
            &[(path.to_string(), Pos { line: 1, col: 1 })],
        ))
    }

    /// Compiles `source`, whose text comes from the files in `origins` (file, where that
    /// file's text starts in `source`), so problems point at the right file, line and
    /// column. A stray `{.end}` (or `{.or}` …) whose block tag was left unclosed is put at
    /// that tag, with a hint ([`template_lang::Diagnostic::unclosed_tag`]): the message
    /// still says what the engine says, and where the stray one is.
    fn compile(&mut self, name: &str, source: &str, origins: &[(String, Pos)]) -> Template {
        let c = Template::compile_with(source, self.registry, &self.options);
        let place = |pos: Pos| {
            locate(origins, pos).map_or((name.to_string(), pos), |(f, p)| (f.to_string(), p))
        };
        for e in c.errors {
            let (file, at) = place(e.pos.unwrap_or_default());
            match e.unclosed_tag(source).map(place) {
                Some((tag_file, tag)) => {
                    let message = format!(
                        "{} ({file}:{}:{}); hint: {UNCLOSED_TAG_HINT}",
                        e.message, at.line, at.col
                    );
                    self.problem(&tag_file, tag.line, tag.col, message);
                }
                None => self.problem(&file, at.line, at.col, e.message),
            }
        }
        c.template
    }
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Loads and compiles a template folder from its files.
pub fn load(files: &TemplateFiles) -> TemplateFolder {
    let mut l = Loader {
        files,
        registry: Registry::standard(),
        options: CompileOptions {
            host_prefix: Some(HOST_PREFIX.to_string()),
            ..CompileOptions::default()
        },
        problems: Vec::new(),
    };
    let conf_read = l.problems.len();
    let conf = match l.conf("template.conf") {
        Some(v) => v,
        None => {
            if !files.contains_key("template.conf") {
                l.problem(
                    "template.conf",
                    0,
                    0,
                    "missing: a template folder needs a template.conf".into(),
                );
            }
            Value::Object(Default::default())
        }
    };

    // A template.conf that does not read has no layouts to speak of: its own problem says
    // what is wrong, without a "no layouts" on top.
    let conf_broken = l.problems.len() > conf_read;
    let layouts = if conf_broken {
        Vec::new()
    } else {
        load_layouts(&mut l, &conf)
    };
    let navigations = conf
        .get("navigations")
        .and_then(Value::as_array)
        .map(|navs| {
            navs.iter()
                .map(|n| (str_field(n, "name"), str_field(n, "title")))
                .filter(|(name, _)| !name.is_empty())
                .collect()
        })
        .unwrap_or_default();

    let mut collections = BTreeMap::new();
    for path in files
        .keys()
        .filter(|p| p.starts_with("collections/") && p.ends_with(".conf"))
    {
        let stem = &path["collections/".len()..path.len() - ".conf".len()];
        let Some(conf) = l.conf(path) else { continue };
        let list = l.template(&format!("collections/{stem}.list"));
        let item = l.template(&format!("collections/{stem}.item"));
        collections.insert(stem.to_string(), CollectionType { conf, list, item });
    }
    // A `.list` or `.item` with no `.conf` still renders its type: real folders ship
    // `products.list` alone, the platform knowing the type (`tessera check` warns when
    // the type is not one of the platform's).
    let bare: BTreeSet<String> = files
        .keys()
        .filter_map(|p| {
            let name = p.strip_prefix("collections/")?;
            let stem = name
                .strip_suffix(".list")
                .or_else(|| name.strip_suffix(".item"))?;
            let conf = format!("collections/{stem}.conf");
            (!stem.contains('/') && !files.contains_key(&conf)).then(|| stem.to_owned())
        })
        .collect();
    for stem in bare {
        let list = l.template(&format!("collections/{stem}.list"));
        let item = l.template(&format!("collections/{stem}.item"));
        let conf = Value::Object(Default::default());
        collections.insert(stem, CollectionType { conf, list, item });
    }

    let mut pages = BTreeMap::new();
    for path in files
        .keys()
        .filter(|p| p.starts_with("pages/") && p.ends_with(".page"))
    {
        let stem = &path["pages/".len()..path.len() - ".page".len()];
        let page_conf = [
            format!("pages/{stem}.page.conf"),
            format!("pages/{stem}.conf"),
        ]
        .into_iter()
        .find(|p| files.contains_key(p))
        .and_then(|p| l.conf(&p))
        .unwrap_or(Value::Null);
        if let Some(template) = l.template(path) {
            pages.insert(
                stem.to_string(),
                StaticPage {
                    title: str_field(&page_conf, "title"),
                    description: str_field(&page_conf, "description"),
                    template,
                },
            );
        }
    }

    let mut block_sources: Vec<(String, String)> = files
        .keys()
        .filter(|p| p.starts_with("blocks/") && p.ends_with(".block"))
        .filter_map(|p| Some((p["blocks/".len()..].to_string(), l.text(p)?)))
        .collect();
    // The partials the platform supplies, where the folder has none of its own name.
    for (name, source) in PLATFORM_PARTIALS {
        if !block_sources.iter().any(|(n, _)| n == name) {
            block_sources.push((name.to_string(), source.to_string()));
        }
    }
    let (blocks, block_errors) = Partials::compile_with(
        block_sources.iter().map(|(n, s)| (n.as_str(), s.as_str())),
        l.registry,
        &l.options,
    );
    for e in block_errors {
        let file = format!("blocks/{}", e.partial.as_deref().unwrap_or_default());
        let (line, col) = e.pos.map_or((0, 0), |p| (p.line, p.col));
        l.problem(&file, line, col, e.message);
    }

    let public = files
        .iter()
        .filter(|(p, _)| p.starts_with("assets/") || p.starts_with("scripts/"))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect::<BTreeMap<_, _>>();
    let icon = [
        "assets/favicon.svg",
        "assets/favicon.png",
        "assets/favicon.ico",
    ]
    .into_iter()
    .find(|f| public.contains_key(*f))
    .map_or_else(|| "data:,".to_string(), |f| format!("/{f}"));
    let css = load_styles(&mut l, &conf);
    let tweaks = files
        .iter()
        .filter(|(p, _)| p.starts_with("styles/"))
        .filter_map(|(_, b)| std::str::from_utf8(b).ok())
        .flat_map(tweaks_in)
        .collect();
    let strings = load_strings(&mut l);
    let email_files: Vec<String> = files
        .keys()
        .filter(|p| p.starts_with("emails/") && (p.ends_with(".txt") || p.ends_with(".html")))
        .cloned()
        .collect();
    let emails = email_files
        .iter()
        .filter_map(|p| Some((p["emails/".len()..].to_string(), l.template(p)?)))
        .collect();

    TemplateFolder {
        name: str_field(&conf, "name"),
        conf,
        site_block_fields: site_block_fields(&layouts),
        prints_footer_text: layouts.iter().any(|l| l.prints_footer_text),
        layouts,
        navigations,
        collections,
        pages,
        blocks,
        public,
        icon,
        css,
        strings,
        tweaks,
        emails,
        problems: l.problems,
        reads_clock: reads_clock(files),
        cart_reads: CartReads::of(
            files
                .iter()
                .filter(|(p, _)| !(p.starts_with("assets/") || p.starts_with("scripts/")))
                .map(|(_, b)| &b[..])
                .chain(PLATFORM_PARTIALS.iter().map(|(_, s)| s.as_bytes())),
        ),
        main_size: AtomicUsize::new(0),
        page_size: AtomicUsize::new(0),
    }
}

/// Whether a layout's `source` prints the footer's plain text: a `footer.text` reference,
/// or a `text` section or variable inside a `{.section footer}` (how templates print the
/// header and footer document's `text`). A text check, not a walk of the compiled tree:
/// what it answers only decides whether the owner app offers the field.
fn prints_footer_text(source: &str) -> bool {
    if source.contains("footer.text") {
        return true;
    }
    source.match_indices("{.section footer}").any(|(at, open)| {
        let inside = &source[at + open.len()..];
        let inside = &inside[..block_end(inside)];
        ["{.section text}", "{text}", "{text|"]
            .iter()
            .any(|t| inside.contains(t))
    })
}

/// Where the block whose body starts `body` ends: the `{.end}` that closes it, counting
/// the blocks opened inside (sections, repeated sections, `.if`s and predicates).
fn block_end(body: &str) -> usize {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(found) = body[at..].find("{.") {
        let tag = &body[at + found..];
        let name_end = tag[2..].find([' ', '}']).map_or(tag.len(), |n| n + 2);
        let name = &tag[2..name_end];
        if name == "end" {
            if depth == 0 {
                return at + found;
            }
            depth -= 1;
        } else if matches!(name, "section" | "repeated" | "if") || name.ends_with('?') {
            depth += 1;
        }
        at += found + 2;
    }
    body.len()
}

/// The formatters that read the clock, by name.
const CLOCK_FORMATTERS: [&str; 2] = ["timesince", "relative-time"];

/// Whether a folder's templates (any file but its public ones, or the platform partials it
/// does not override) name a formatter that reads the clock ([`TemplateFolder::reads_clock`]).
fn reads_clock(files: &TemplateFiles) -> bool {
    let names = |text: &[u8]| {
        CLOCK_FORMATTERS
            .iter()
            .any(|f| text.windows(f.len()).any(|w| w == f.as_bytes()))
    };
    files
        .iter()
        .filter(|(p, _)| !(p.starts_with("assets/") || p.starts_with("scripts/")))
        .any(|(_, b)| names(b))
        || PLATFORM_PARTIALS
            .iter()
            .any(|(_, source)| names(source.as_bytes()))
}

/// The `<squarespace:block-field>`s of `layouts` with a plain-text `id`, `(id, label)`,
/// each id once.
fn site_block_fields(layouts: &[Layout]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for layout in layouts {
        for u in layout.template.uses() {
            let template_lang::Use::HostTag { name, attrs, .. } = u else {
                continue;
            };
            if name != "block-field" {
                continue;
            }
            let value = |k: &str| {
                attrs
                    .iter()
                    .find(|(n, _)| n == k)
                    .and_then(|(_, v)| v.clone())
            };
            let Some(id) = value("id").map(|i| i.trim().to_owned()) else {
                continue;
            };
            if id.is_empty() || out.iter().any(|(i, _)| *i == id) {
                continue;
            }
            out.push((id, value("label").unwrap_or_default().trim().to_owned()));
        }
    }
    out
}

fn load_layouts(l: &mut Loader<'_>, conf: &Value) -> Vec<Layout> {
    let mut layouts = Vec::new();
    let Some(map) = conf.get("layouts").and_then(Value::as_object) else {
        l.problem(
            "template.conf",
            0,
            0,
            "no layouts: \"layouts\" must name at least one layout".into(),
        );
        return layouts;
    };
    for (key, spec) in map {
        let regions: Vec<String> = spec
            .get("regions")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let mut source = String::new();
        let mut origins = Vec::new();
        for region in &regions {
            let stem = region.strip_suffix(".region").unwrap_or(region);
            let path = [format!("{stem}.region"), format!("regions/{stem}.region")]
                .into_iter()
                .find(|p| l.files.contains_key(p));
            let Some(path) = path else {
                l.problem(
                    "template.conf",
                    0,
                    0,
                    format!("layout '{key}': region '{region}' not found"),
                );
                continue;
            };
            if let Some(text) = l.text(&path) {
                origins.push((path, end_of(&source)));
                source.push_str(&text);
            }
        }
        let template = l.compile(&format!("layout '{key}'"), &source, &origins);
        layouts.push(Layout {
            key: key.clone(),
            name: str_field(spec, "name"),
            regions,
            template,
            prints_footer_text: prints_footer_text(&source),
            origins,
        });
    }
    layouts
}

/// Where a template version keeps its stylesheets compiled from LESS (by the server, with
/// Node, at import, upload and `tessera dev` time; see `api/src/styles.rs`).
pub const COMPILED_CSS: &str = ".compiled/site.css";

/// The site stylesheet: the compiled one when the version has it; else the `stylesheets`
/// concatenated in order, plain CSS passing through and a file with LESS features reported
/// (the renderer runs no LESS compiler), not mangled.
fn load_styles(l: &mut Loader<'_>, conf: &Value) -> String {
    if l.files.contains_key(COMPILED_CSS) {
        return l.text(COMPILED_CSS).unwrap_or_default();
    }
    let mut css = String::new();
    let names: Vec<String> = conf
        .get("stylesheets")
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    for name in names {
        let path = format!("styles/{name}");
        let Some(text) = l.text(&path) else {
            l.problem(
                "template.conf",
                0,
                0,
                format!("stylesheet '{name}' not found in styles/"),
            );
            continue;
        };
        if let Some((line, what)) = less_feature(&text) {
            l.problem(
                &path,
                line,
                1,
                format!("uses LESS ({what}) but was not compiled: import the folder or run `tessera check` or `tessera dev` (they compile LESS with Node)"),
            );
            continue;
        }
        css.push_str(&text);
        if !css.ends_with('\n') {
            css.push('\n');
        }
    }
    css
}

/// The first line using a LESS-only feature: variables, mixins' guards, nesting markers.
pub fn less_feature(text: &str) -> Option<(u32, &'static str)> {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let what = if t.starts_with('@')
            && !t.starts_with("@media")
            && !t.starts_with("@font-face")
            && !t.starts_with("@import")
            && !t.starts_with("@keyframes")
            && !t.starts_with("@supports")
            && !t.starts_with("@charset")
            && !t.starts_with("@page")
        {
            Some("variables")
        } else if t.starts_with("//") {
            Some("line comments")
        } else if t.contains("&:") || t.starts_with("& ") || t.starts_with('&') {
            Some("nesting")
        } else if t.contains("~\"") || t.contains("~'") || t.contains("@{") {
            // `calc(~"100% - 10px")`: an escape a browser drops, compiled away by LESS.
            Some("escapes")
        } else {
            None
        };
        if let Some(w) = what {
            return Some((i as u32 + 1, w));
        }
    }
    None
}

fn load_strings(l: &mut Loader<'_>) -> BTreeMap<String, Node> {
    let mut strings: BTreeMap<String, Value> = BTreeMap::new();
    let paths: Vec<String> = l
        .files
        .keys()
        .filter(|p| p.starts_with("strings/") && p.ends_with(".json"))
        .cloned()
        .collect();
    for path in paths {
        let stem = &path["strings/".len()..path.len() - ".json".len()];
        // `<kind>-<locale>`: template-en-US, annotations-de-DE, ...
        let Some((_, locale)) = stem.split_once('-') else {
            continue;
        };
        let Some(Value::Object(map)) = l.conf(&path) else {
            continue;
        };
        let entry = strings
            .entry(locale.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(target) = entry {
            target.extend(map);
        }
    }
    strings
        .into_iter()
        .map(|(locale, v)| (locale, Node::from_json(&v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> TemplateFiles {
        list.iter()
            .map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes())))
            .collect()
    }

    #[test]
    fn footer_text_is_found_inside_the_footer_section() {
        assert!(prints_footer_text(
            "<footer>{.section footer}{.section text}<p>{@}</p>{.end}{.end}</footer>"
        ));
        assert!(prints_footer_text("<p>{footer.text}</p>"));
        assert!(prints_footer_text(
            "{.section footer}{.if x}a{.end}{.equal? a b}b{.end}<p>{text|safe}</p>{.end}"
        ));
        // `text` outside the footer's section, or no footer section: not the footer's.
        assert!(!prints_footer_text(
            "{.section footer}{.section links}{.end}{.end}{.section text}{@}{.end}"
        ));
        assert!(!prints_footer_text(
            "<p>{text}</p>{.section header}{text}{.end}"
        ));
    }

    #[test]
    fn site_block_fields_come_from_the_regions_only() {
        let f = load(&files(&[
            (
                "template.conf",
                r#"{"name":"T", "layouts":{"default":{"regions":["site"]},"wide":{"regions":["wide"]}}}"#,
            ),
            (
                "site.region",
                r#"<html>{squarespace.main-content}<squarespace:block-field id="footer-blocks" label="Footer content" /><squarespace:block-field id="bare" /></html>"#,
            ),
            (
                "wide.region",
                r#"<html>{squarespace.main-content}<squarespace:block-field id="footer-blocks" label="Again" /></html>"#,
            ),
            (
                "pages/about.page",
                r#"<squarespace:block-field id="about-only" label="About" />"#,
            ),
        ]));
        assert_eq!(
            f.site_block_fields,
            [
                ("footer-blocks".to_string(), "Footer content".to_string()),
                ("bare".to_string(), String::new()),
            ]
        );
    }

    #[test]
    fn loads_layouts_collections_pages_blocks() {
        let f = load(&files(&[
            (
                "template.conf",
                r#"{"name":"T", "layouts":{"default":{"name":"Default","regions":["head","body"]},
                    "wide":{"regions":["head.region","body"]}},
                    "navigations":[{"name":"main","title":"Main"}], "stylesheets":["site.css"]}"#,
            ),
            (
                "head.region",
                "<html>{.section website}<h1>{siteTitle}</h1>",
            ),
            (
                "regions/body.region",
                "{.end}{squarespace.main-content}</html>",
            ),
            (
                "collections/blog.conf",
                r#"{"title":"Blog","ordering":"chronological",}"#,
            ),
            (
                "collections/blog.list",
                "{.repeated section items}{title}{.end}",
            ),
            ("collections/blog.item", "{.section item}{title}{.end}"),
            ("pages/about.page", "<p>About</p>"),
            ("pages/about.page.conf", r#"{"title":"About us"}"#),
            (
                "blocks/nav.block",
                "<nav>{.repeated section items}{title}{.end}</nav>",
            ),
            ("styles/site.css", "body { color: red; }"),
            ("assets/logo.svg", "<svg/>"),
            ("strings/template-en-US.json", r#"{"search":"Search"}"#),
        ]));
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.name, "T");
        assert_eq!(f.layouts.len(), 2);
        assert_eq!(f.layout(Some("nope")).unwrap().key, "default");
        assert_eq!(
            f.layout(Some("wide")).unwrap().regions,
            ["head.region", "body"]
        );
        assert_eq!(f.navigations, [("main".to_string(), "Main".to_string())]);
        assert!(f.collections["blog"].list.is_some() && f.collections["blog"].item.is_some());
        assert_eq!(f.pages["about"].title, "About us");
        assert!(f.blocks.get("nav.block").is_some());
        assert!(f.public.contains_key("assets/logo.svg"));
        assert_eq!(f.css, "body { color: red; }\n");
        assert_eq!(
            f.strings["en-US"]
                .pointer(&["search"])
                .and_then(Node::as_str),
            Some("Search")
        );
    }

    #[test]
    fn problems_name_file_line_and_column() {
        let f = load(&files(&[
            (
                "template.conf",
                r#"{"layouts":{"default":{"regions":["a","b","missing"]}},"stylesheets":["x.less"]}"#,
            ),
            ("a.region", "line one\n"),
            ("b.region", "two\n  {x|nope}\n"),
            ("collections/c.conf", "{\"t\": 1 \"u\": 2}"),
            ("blocks/bad.block", "{.section a}"),
            ("styles/x.less", "@brand: #f00;\nbody { color: @brand; }"),
        ]));
        let shown: Vec<String> = f.problems.iter().map(|p| p.to_string()).collect();
        assert!(
            shown.contains(
                &"template.conf: layout 'default': region 'missing' not found".to_string()
            ),
            "{shown:?}"
        );
        assert!(
            shown.contains(&"b.region:2:3: SyntaxError: Formatter 'nope' is unknown".to_string()),
            "{shown:?}"
        );
        assert!(
            shown
                .iter()
                .any(|s| s.starts_with("collections/c.conf:1:9: expected")),
            "{shown:?}"
        );
        assert!(
            shown.contains(
                &"blocks/bad.block:1:13: SyntaxError: Reached EOF in the middle of SECTION"
                    .to_string()
            ),
            "{shown:?}"
        );
        assert!(
            shown.contains(&"styles/x.less:1:1: uses LESS (variables) but was not compiled: import the folder or run `tessera check` or `tessera dev` (they compile LESS with Node)".to_string()),
            "{shown:?}"
        );
    }

    #[test]
    fn a_folder_without_template_conf_is_reported() {
        let f = load(&files(&[("a.region", "x")]));
        assert_eq!(
            f.problems[0].to_string(),
            "template.conf: missing: a template folder needs a template.conf"
        );
    }

    #[test]
    fn dropdown_and_checkbox_tweaks_become_body_classes() {
        let files = files(&[
            (
                "template.conf",
                r#"{"name":"T","layouts":{"default":{"name":"D","regions":["site"]}},"stylesheets":["tweak.less"]}"#,
            ),
            ("site.region", "<body class=\"{squarespace.page-classes}\">"),
            (
                "styles/tweak.less",
                "// tweak: { \"title\": \"tweak-site-width-option\", \"type\": \"dropdown\", \"default\": \"Inset\" }\n\
                 @tweak-site-width-option: Inset;\n\
                 // tweak: { \"title\": \"tweak-show-dates\", \"type\": \"checkbox\" }\n\
                 //tweak: { \"title\": \"tweak-accent\", \"type\": \"color\" }\n",
            ),
        ]);
        let folder = load(&files);
        assert_eq!(folder.tweaks.len(), 3);
        let none = |_: &str| None;
        assert_eq!(
            folder.tweak_classes(&none),
            ["tweak-site-width-option-inset"]
        );
        let set = |t: &str| match t {
            "tweak-site-width-option" => Some(Value::String("Full Background!".into())),
            "tweak-show-dates" => Some(Value::Bool(true)),
            "tweak-accent" => Some(Value::String("#fff".into())),
            _ => None,
        };
        assert_eq!(
            folder.tweak_classes(&set),
            [
                "tweak-site-width-option-full-background",
                "tweak-show-dates"
            ]
        );
    }
}
