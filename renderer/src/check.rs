//! Checking a template folder the way the renderer will load it (`tessera check`): the
//! loader's own problems (template.conf and collection `.conf` files, syntax errors, unknown
//! formatters and predicates, missing regions and stylesheets), then what only shows when a
//! page renders: partials and tag templates that are applied but missing, blocks that apply
//! themselves with nothing to stop them, `squarespace:` tags that are unknown or lack an
//! attribute, navigations not declared, assets and scripts that are not there, images
//! without alt text, inline scripts (which the site's security policy does not run).
//!
//! Errors break pages; warnings are worth fixing but the pages render (a script bundle a
//! framework's build makes, an unknown attribute, an image without alt text, an inline
//! script).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;
use template_lang::compile::PartialEntry;
use template_lang::error::Pos;
use template_lang::{Template, Use};

use crate::folder::{TemplateFiles, TemplateFolder, load};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One finding: where (line and column 1-based; 0 for the whole file) and what.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub severity: Severity,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}: {}", self.file, self.severity, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}: {}",
                self.file, self.line, self.column, self.severity, self.message
            )
        }
    }
}

/// The `squarespace:` tags (TEMPLATE-PLATFORM.md §2.2): name, required attributes, the
/// others it takes.
const TAGS: [(&str, &[&str], &[&str]); 7] = [
    (
        "navigation",
        &["navigationId"],
        &["template", "title", "description"],
    ),
    (
        "folder-navigation",
        &[],
        &["template", "title", "description"],
    ),
    (
        "block-field",
        &["id"],
        &[
            "columns",
            "label",
            "class",
            "lock-layout",
            "description",
            "annotation-alignment",
        ],
    ),
    (
        "query",
        &["collection"],
        &["limit", "skip", "featured", "category", "tag"],
    ),
    ("category", &["collection"], &["template", "limit"]),
    ("related", &[], &["collectionId", "itemId", "limit"]),
    ("script", &["src"], &["combo"]),
];

/// The partial depth limit of the engine: a block that applies itself unconditionally
/// fails there.
const DEPTH_LIMIT: u32 = 16;

struct Checker<'f> {
    files: &'f TemplateFiles,
    folder: TemplateFolder,
    out: Vec<Finding>,
}

impl Checker<'_> {
    fn add(&mut self, file: &str, line: u32, column: u32, severity: Severity, message: String) {
        self.out.push(Finding {
            file: file.to_owned(),
            line,
            column,
            severity,
            message,
        });
    }

    fn has(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// What one compiled template uses, its positions mapped to files by `locate`.
    fn uses(
        template: &Template,
        locate: &dyn Fn(Pos) -> (String, Pos),
    ) -> Vec<(String, u32, u32, Use)> {
        template
            .uses()
            .into_iter()
            .map(|u| {
                let at = match &u {
                    Use::Formatter { at, .. }
                    | Use::Include { at, .. }
                    | Use::HostTag { at, .. } => *at,
                };
                let (file, at) = locate(at);
                (file, at.line, at.col, u)
            })
            .collect()
    }

    /// Checks one template's formatter calls and tags; returns the blocks it applies
    /// (name, unguarded) for the recursion check.
    fn template(
        &mut self,
        template: &Template,
        locate: &dyn Fn(Pos) -> (String, Pos),
    ) -> Vec<(String, bool)> {
        let navigations: BTreeSet<String> = self
            .folder
            .navigations
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        // `apply` runs a macro the template defines before any partial of that name.
        let macros: BTreeSet<String> = template.macros().into_iter().collect();
        let mut applied = Vec::new();
        let mut found = Vec::new();
        for (file, line, col, u) in Self::uses(template, locate) {
            // Every finding of a use is at the use.
            let mut say = |severity: Severity, message: String| {
                found.push(Finding {
                    file: file.clone(),
                    line,
                    column: col,
                    severity,
                    message,
                })
            };
            match u {
                Use::Formatter {
                    name,
                    args,
                    guarded,
                    ..
                } if name == "apply" => {
                    let Some(partial) = args.first() else {
                        continue;
                    };
                    if macros.contains(partial) {
                        continue;
                    }
                    applied.push((partial.clone(), !guarded));
                    if self.folder.blocks.get(partial).is_none() {
                        say(
                            Severity::Error,
                            format!(
                                "partial '{partial}' is applied but blocks/{partial} does not exist"
                            ),
                        );
                    }
                }
                Use::Formatter { .. } | Use::Include { .. } => {}
                Use::HostTag { name, attrs, .. } => {
                    let Some((_, required, optional)) = TAGS.iter().find(|(n, ..)| *n == name)
                    else {
                        let known: Vec<&str> = TAGS.iter().map(|(n, ..)| *n).collect();
                        say(
                            Severity::Error,
                            format!(
                                "unknown tag <squarespace:{name}> (known: {})",
                                known.join(", ")
                            ),
                        );
                        continue;
                    };
                    let value =
                        |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                    for r in *required {
                        if value(r).is_none() {
                            say(
                                Severity::Error,
                                format!("<squarespace:{name}> needs the attribute {r}"),
                            );
                        }
                    }
                    for (a, _) in &attrs {
                        let known = required.contains(&a.as_str())
                            || optional.contains(&a.as_str())
                            || (name == "block-field" && a.starts_with("data-"));
                        if !known {
                            say(
                                Severity::Warning,
                                format!("<squarespace:{name}> has no attribute {a}; it is ignored"),
                            );
                        }
                    }
                    if let Some(Some(stem)) = value("template") {
                        let block = format!("{stem}.block");
                        applied.push((block.clone(), false));
                        if self.folder.blocks.get(&block).is_none() {
                            say(
                                Severity::Error,
                                format!(
                                    "<squarespace:{name}> template '{stem}': blocks/{block} does not exist"
                                ),
                            );
                        }
                    }
                    if name == "navigation"
                        && let Some(Some(id)) = value("navigationId")
                        && !navigations.contains(&id)
                    {
                        say(
                            Severity::Error,
                            format!(
                                "navigation '{id}' is not declared in template.conf \"navigations\""
                            ),
                        );
                    }
                    if name == "script"
                        && let Some(Some(src)) = value("src")
                        && !self.has(&format!("scripts/{}", src.trim_start_matches('/')))
                    {
                        say(
                            Severity::Warning,
                            format!(
                                "script '{src}' is not in scripts/ (a bundle your build makes? pages render without it)"
                            ),
                        );
                    }
                }
            }
        }
        self.out.extend(found);
        applied
    }

    /// Blocks that reach themselves through applies none of which is under a condition:
    /// every render of them goes down to the depth limit.
    fn recursion(&mut self, graph: &BTreeMap<String, Vec<(String, bool)>>) {
        let mut reported = BTreeSet::new();
        for start in graph.keys() {
            // Depth-first over unconditional applies only.
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((at, path)) = stack.pop() {
                for (next, unguarded) in graph.get(&at).into_iter().flatten() {
                    if !unguarded {
                        continue;
                    }
                    if next == start {
                        let mut cycle = path.clone();
                        cycle.push(next.clone());
                        let key: BTreeSet<String> = cycle.iter().cloned().collect();
                        if reported.insert(key.into_iter().collect::<Vec<_>>()) {
                            self.add(
                                &format!("blocks/{start}"),
                                0,
                                0,
                                Severity::Error,
                                format!(
                                    "applies itself with no condition ({}): rendering it fails at the partial depth limit of {DEPTH_LIMIT}",
                                    cycle.join(" → ")
                                ),
                            );
                        }
                    } else if seen.insert(next.clone()) {
                        let mut p = path.clone();
                        p.push(next.clone());
                        stack.push((next.clone(), p));
                    }
                }
            }
        }
    }

    /// `/assets/…` references in markup that the folder does not have, and images without
    /// alt text, by scanning the file's text (data-driven URLs with `{` are skipped).
    fn markup(&mut self, path: &str) {
        let Some(Ok(text)) = self
            .files
            .get(path)
            .map(|b| std::str::from_utf8(b).map(str::to_owned))
        else {
            return;
        };
        let pos = |offset: usize| {
            let before = &text[..offset];
            let line = before.matches('\n').count() as u32 + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
            (line, col)
        };
        for quote in ["\"/assets/", "'/assets/", "(/assets/"] {
            for (i, _) in text.match_indices(quote) {
                let rest = &text[i + 2..];
                let end = rest
                    .find(['"', '\'', ')', '?', '#', ' '])
                    .unwrap_or(rest.len());
                let asset = &rest[..end];
                if asset.contains('{') || self.has(asset) {
                    continue;
                }
                let (line, col) = pos(i + 1);
                // A folder with a build (webpack and the like) may reference what the build
                // writes into assets/: a warning, the page renders without it.
                let (severity, message) = match BUILD_FILES.iter().find(|f| self.has(f)) {
                    Some(build) => (
                        Severity::Warning,
                        format!(
                            "{asset} is referenced but the folder has no such file (made by the build in {build}? pages render without it)"
                        ),
                    ),
                    None => (
                        Severity::Error,
                        format!("{asset} is referenced but the folder has no such file"),
                    ),
                };
                self.add(path, line, col, severity, message);
            }
        }
        for (i, _) in text.match_indices("<img") {
            let tag_end = text[i..].find('>').map_or(text.len(), |e| i + e);
            let tag = &text[i..tag_end];
            // `image-meta` prints the image's alt text (from its title, body or file name).
            let has_alt = [" alt=", "\talt=", "\nalt=", "|image-meta"]
                .iter()
                .any(|a| tag.contains(a));
            if !has_alt {
                let (line, col) = pos(i);
                self.add(
                    path,
                    line,
                    col,
                    Severity::Warning,
                    "image without alt text".into(),
                );
            }
        }
        // An inline script never runs: the site's security policy allows scripts from files
        // only (docs: Operators, security headers), so say so rather than let it fail
        // silently in the browser. Data blocks (`type="application/json"` …) are not run.
        let lower = text.to_ascii_lowercase();
        for (i, _) in lower.match_indices("<script") {
            let tag_end = lower[i..].find('>').map_or(lower.len(), |e| i + e);
            let tag = &lower[i..tag_end];
            let boundary = tag[7..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '/');
            let data = ["json", "template", "x-tmpl", "text/html"]
                .iter()
                .any(|t| tag.contains(t));
            if boundary && !tag.contains("src=") && !data {
                let (line, col) = pos(i);
                self.add(
                    path,
                    line,
                    col,
                    Severity::Warning,
                    "inline script: the site's security policy does not run inline scripts; move it to a file in scripts/ and load it with <squarespace:script src=\"name.js\"/>".into(),
                );
            }
        }
    }
}

/// Checks a folder's files; findings sorted by file and position.
/// Files that say a folder has a build step of its own, which may write assets.
const BUILD_FILES: [&str; 6] = [
    "package.json",
    "webpack.config.js",
    "gulpfile.js",
    "Gruntfile.js",
    "rollup.config.js",
    "vite.config.js",
];

/// The collection types the platform supplies (TEMPLATE-PLATFORM.md §1.2
/// `systemCollections`): a folder may template them without declaring them.
const PLATFORM_TYPES: [&str; 5] = ["album", "blog", "events", "gallery", "products"];

pub fn check(files: &TemplateFiles) -> Vec<Finding> {
    let folder = load(files);
    let mut c = Checker {
        files,
        out: Vec::new(),
        folder,
    };
    let problems = std::mem::take(&mut c.folder.problems);
    for p in problems {
        c.add(&p.file, p.line, p.column, Severity::Error, p.message);
    }
    let mut graph: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
    // Layouts: positions map back to their region files.
    let layouts: Vec<_> = std::mem::take(&mut c.folder.layouts);
    for layout in &layouts {
        let locate = |pos: Pos| {
            layout
                .locate(pos)
                .map_or((format!("layout '{}'", layout.key), pos), |(f, p)| {
                    (f.to_owned(), p)
                })
        };
        c.template(&layout.template, &locate);
    }
    let collections = std::mem::take(&mut c.folder.collections);
    for (stem, t) in &collections {
        for (ext, template) in [("list", &t.list), ("item", &t.item)] {
            if let Some(template) = template {
                let file = format!("collections/{stem}.{ext}");
                c.template(template, &|pos| (file.clone(), pos));
            }
        }
    }
    // A type with templates and no `.conf` renders only if the platform knows it.
    let system: Vec<String> = c
        .folder
        .conf
        .get("systemCollections")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    for stem in collections.keys() {
        let known = PLATFORM_TYPES.contains(&stem.as_str()) || system.contains(stem);
        if known || c.has(&format!("collections/{stem}.conf")) {
            continue;
        }
        let file = ["list", "item"]
            .iter()
            .map(|ext| format!("collections/{stem}.{ext}"))
            .find(|f| c.has(f))
            .unwrap_or_default();
        c.add(
            &file,
            0,
            0,
            Severity::Warning,
            format!(
                "no collections/{stem}.conf declares the type '{stem}', and it is not one of the platform's ({}): no collection can have it",
                PLATFORM_TYPES.join(", ")
            ),
        );
    }
    let pages = std::mem::take(&mut c.folder.pages);
    for (stem, page) in &pages {
        let file = format!("pages/{stem}.page");
        c.template(&page.template, &|pos| (file.clone(), pos));
    }
    let block_names: Vec<String> = files
        .keys()
        .filter(|p| p.starts_with("blocks/") && p.ends_with(".block"))
        .map(|p| p["blocks/".len()..].to_owned())
        .collect();
    for name in &block_names {
        if let Some(PartialEntry::Ready(template)) = c.folder.blocks.get(name) {
            let template = template.clone();
            let file = format!("blocks/{name}");
            let applied = c.template(&template, &|pos| (file.clone(), pos));
            graph.insert(name.clone(), applied);
        }
    }
    c.recursion(&graph);
    let markup: Vec<String> = files
        .keys()
        .filter(|p| {
            p.ends_with(".region")
                || p.ends_with(".block")
                || p.ends_with(".list")
                || p.ends_with(".item")
                || p.ends_with(".page")
        })
        .cloned()
        .collect();
    for path in markup {
        c.markup(&path);
    }
    let mut out = c.out;
    out.sort();
    out.dedup();
    out
}
