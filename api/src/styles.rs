//! Compiling a template folder's stylesheets (TEMPLATE-PLATFORM.md §1.8): every file in
//! template.conf's `stylesheets`, in order, compiled as LESS with the `less` npm package
//! (bundled into the binary by `client/build.mjs`, run with Node), the site's tweak values
//! (`websiteSettings.tweaks`, `{"tweak-site-width": "960px"}`) overriding the folder's
//! `@tweak-…` variables, the variables the platform derives from the tweak declarations
//! ([`tweaks`]: a font tweak's `@tweak-h1-font-font-size` …), and the platform's imports
//! that folders use without shipping (`sqs-grid-breaker`, `svg-icon-templates`,
//! `sqs-ui-font`, `social-icon-font`: our own, in `renderer/less/platform/`), and the
//! social-links colour mixins the official frameworks call without importing ([`head`]).
//!
//! In the platform's dialect (issue 45; `renderer/less/compile.mjs` says how): division
//! without parentheses, the legacy `(~"@{x}") { … }` selectors, a mixin call that matches
//! no definition left out (a warning). A stylesheet that is missing or does not compile is
//! reported and left out, and the others are compiled without it ([`compile_each`]).
//!
//! It runs at import, template upload and `tessera dev`/`check` time, never while serving a
//! page; the CSS is stored with the template version as [`COMPILED_CSS`], which the renderer
//! serves. A folder of plain CSS needs no compiling (and no Node).
//!
//! The stylesheets are owner input: the compiler sees only the folder's `styles/` files
//! and the platform's imports, in memory, and runs bounded in time and memory ([`node`]).

mod node;
mod tweaks;

pub use tweaks::Declared;

pub use node::{HEAP_MB, MAX_CONCURRENT, MAX_CSS_BYTES, QUEUE_WAIT, TIMEOUT};

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

pub use renderer::folder::COMPILED_CSS;
use renderer::folder::{TemplateFiles, TemplateProblem, less_feature};
use serde_json::{Map, Value};

/// Our versions of the platform's LESS imports.
const PLATFORM: [(&str, &str); 5] = [
    (
        "sqs-grid-breaker.less",
        include_str!("../../renderer/less/platform/sqs-grid-breaker.less"),
    ),
    (
        "svg-icon-templates.less",
        include_str!("../../renderer/less/platform/svg-icon-templates.less"),
    ),
    (
        "sqs-ui-font.less",
        include_str!("../../renderer/less/platform/sqs-ui-font.less"),
    ),
    (
        "social-icon-font.less",
        include_str!("../../renderer/less/platform/social-icon-font.less"),
    ),
    (
        "sqs-social-links-mixins.less",
        include_str!("../../renderer/less/platform/sqs-social-links-mixins.less"),
    ),
];

/// What goes before the folder's stylesheets: platform mixins that folders call without
/// importing them, imported by reference (so they print nothing unless called) when a
/// stylesheet calls them and none defines (or imports) them — the social-links colour
/// mixins (`.mixin-template-social-icons-color`, which the official frameworks' build
/// added) and `sqs-ui-font`'s (`.sqs-ui-font(menu)`, as Squarespace's own folders call it).
fn head(files: &TemplateFiles) -> String {
    let styles = || {
        files
            .iter()
            .filter(|(path, _)| path.starts_with("styles/"))
            .filter_map(|(_, bytes)| std::str::from_utf8(bytes).ok())
    };
    const SOCIAL: [&str; 2] = [
        ".mixin-template-social-icons-color",
        ".mixin-template-social-icons-color-body",
    ];
    const UI_FONT_IMPORTS: [&str; 4] = [
        "sqs-ui-font'",
        "sqs-ui-font\"",
        "social-icon-font'",
        "social-icon-font\"",
    ];
    let mut head = String::new();
    if styles().any(|t| t.contains(SOCIAL[0]))
        && !styles().any(|t| SOCIAL.iter().any(|m| defines_mixin(t, m)))
    {
        head.push_str("@import (reference) \"sqs-social-links-mixins\";\n");
    }
    // The platform's icon-font mixins, which folders (Squarespace's own among them) call
    // without importing `sqs-ui-font`; ours, when none of the stylesheets imports or
    // defines them.
    if styles().any(|t| t.contains(".sqs-ui-font("))
        && !styles().any(|t| {
            UI_FONT_IMPORTS.iter().any(|i| t.contains(i)) || defines_mixin(t, ".sqs-ui-font")
        })
    {
        head.push_str("@import (reference) \"sqs-ui-font\";\n");
    }
    head
}

/// Whether `text` defines the mixin `name` (`name(@param …) {`) rather than only calling it.
fn defines_mixin(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let rest = &text[i + name.len()..];
        rest.trim_start()
            .strip_prefix('(')
            .is_some_and(|params| params.trim_start().starts_with('@'))
            && rest
                .split_once(')')
                .is_some_and(|(_, after)| after.trim_start().starts_with('{'))
    })
}

/// The tweaks the folder's stylesheets declare, with their defaults ([`tweaks::declared`]):
/// what the owner app's style panel offers.
pub fn declared_tweaks(files: &TemplateFiles) -> Vec<Declared> {
    tweaks::declared(files, &stylesheets(files))
}

/// Whether a tweak value is safe to put in a stylesheet ([`tweaks::safe`]).
pub fn safe_value(value: &str) -> bool {
    tweaks::safe(value)
}

/// `fontSize` → `font-size`.
pub fn kebab_case(name: &str) -> String {
    tweaks::kebab(name)
}

/// The body classes the dropdown and checkbox tweaks of `declared` give with the site's
/// values `tweaks` (by title), as the renderer gives them
/// ([`renderer::folder::tweak_classes`]).
pub fn tweak_body_classes(declared: &[Declared], tweaks: &Map<String, Value>) -> Vec<String> {
    let tweaks_of: Vec<renderer::folder::Tweak> = declared
        .iter()
        .map(|d| renderer::folder::Tweak {
            title: d.title.clone(),
            kind: d.kind.clone(),
            default: d.json.get("default").cloned(),
        })
        .collect();
    renderer::folder::tweak_classes(&tweaks_of, &|title| tweaks.get(title).cloned())
}

/// What goes after the folder's stylesheets ([`tweaks::tail`]): for the fuzz targets.
pub(crate) fn tweaks_tail(files: &TemplateFiles, settings: &Map<String, Value>) -> String {
    tweaks::tail(files, settings)
}

/// The entry file the compiler makes among the folder's stylesheets, that imports them in
/// order (a problem in it is template.conf's).
const ENTRY: &str = ".tessera-entry.less";

/// The `stylesheets` of template.conf (which may have comments), in order.
fn stylesheets(files: &TemplateFiles) -> Vec<String> {
    files
        .get("template.conf")
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| renderer::conf::parse_conf("template.conf", t).ok())
        .and_then(|c| c.get("stylesheets").cloned())
        .and_then(|s| serde_json::from_value::<Vec<String>>(s).ok())
        .unwrap_or_default()
}

/// Whether the folder's stylesheets need the LESS compiler: a `.less` file, or LESS
/// features in a `.css` one.
pub fn needs_compiling(files: &TemplateFiles) -> bool {
    stylesheets(files).iter().any(|name| {
        name.ends_with(".less")
            || files
                .get(&format!("styles/{name}"))
                .and_then(|b| std::str::from_utf8(b).ok())
                .is_some_and(|t| less_feature(t).is_some())
    })
}

/// `@name: value;` lines for the tweaks that are safe to put in a stylesheet (a name of
/// letters, digits and dashes; a value without `;`, braces, backslashes or line breaks that
/// leaves no string or parenthesis open).
pub(crate) fn tweak_overrides(settings: &Map<String, Value>) -> String {
    let mut out = String::new();
    let Some(tweaks) = settings.get("tweaks").and_then(Value::as_object) else {
        return out;
    };
    for (name, value) in tweaks {
        let value = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => continue,
        };
        let name_ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let value_ok = tweaks::safe(&value);
        if name_ok && value_ok {
            out.push_str(&format!(
                "@{}: {};\n",
                name.trim_start_matches('@'),
                value.trim()
            ));
        }
    }
    out
}

fn problem(file: &str, line: u32, column: u32, message: String) -> TemplateProblem {
    TemplateProblem {
        file: file.to_owned(),
        line,
        column,
        message,
    }
}

/// What compiling a folder's stylesheets gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compiled {
    /// The CSS of the stylesheets that compiled, in order; `None` when nothing needed
    /// compiling or none compiled.
    pub css: Option<String>,
    /// Why a stylesheet was left out: missing (template.conf's problem) or not compiling
    /// (its file, line and column, LESS's message); or why nothing compiled.
    pub problems: Vec<TemplateProblem>,
    /// What compiled only as the platform's compiler allows (a mixin call left out).
    pub warnings: Vec<TemplateProblem>,
}

/// The folder's stylesheets compiled into one CSS text, or the first problem
/// (`styles/x.less`, line and column, LESS's message): what an import or an upload takes.
/// `Ok(None)` when nothing needs compiling. Blocking: it runs Node, bounded as [`node`] says.
pub fn compile(
    files: &TemplateFiles,
    settings: &Map<String, Value>,
) -> Result<Option<String>, TemplateProblem> {
    let compiled = compile_each(files, settings);
    match compiled.problems.into_iter().next() {
        Some(p) => Err(p),
        None => Ok(compiled.css),
    }
}

/// The folder's stylesheets compiled, each one that is missing or does not compile reported
/// and left out, so the others still give the site's CSS (issue 45): what `tessera dev` and
/// `tessera check` show. Blocking: it runs Node, bounded as [`node`] says.
pub fn compile_each(files: &TemplateFiles, settings: &Map<String, Value>) -> Compiled {
    if !needs_compiling(files) {
        return Compiled::default();
    }
    let conf = |message: String| problem("template.conf", 0, 0, message);
    let Some(compiler) = crate::pages::islands::built::LESS_COMPILER else {
        return Compiled {
            problems: vec![conf("this folder's stylesheets use LESS, and this tessera was built without Node, so it has no LESS compiler".into())],
            ..Compiled::default()
        };
    };
    let mut problems: Vec<TemplateProblem> = stylesheets(files)
        .into_iter()
        .filter(|name| !files.contains_key(&format!("styles/{name}")))
        .map(|name| conf(format!("stylesheet '{name}' not found in styles/")))
        .collect();
    let input = compiler_input(files, settings);
    let out = match node::run(compiler, &input) {
        Ok(out) => out,
        Err(failure) => {
            problems.push(conf(match failure {
                node::Failure::Busy => format!(
                    "LESS: this server is compiling {} stylesheets already and none finished within {} s; please try again in a moment",
                    node::MAX_CONCURRENT,
                    node::QUEUE_WAIT.as_secs()
                ),
                node::Failure::Timeout => format!(
                    "LESS: compiling the stylesheets took longer than {} s, so it was stopped (a mixin or loop that does not end?)",
                    node::TIMEOUT.as_secs()
                ),
                node::Failure::OutOfMemory => format!(
                    "LESS: compiling the stylesheets needed more than {} MB of memory, so it was stopped",
                    node::HEAP_MB
                ),
                node::Failure::TooLarge => format!(
                    "LESS: the compiled stylesheet is larger than {} MB",
                    node::MAX_CSS_BYTES / 1_000_000
                ),
                node::Failure::Node(e) => format!("running node for the LESS compiler: {e}"),
            }));
            return Compiled {
                problems,
                ..Compiled::default()
            };
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Ok(answer) = serde_json::from_str::<Value>(&stdout) else {
        problems.push(less_problem(&stdout, &out.stderr));
        return Compiled {
            problems,
            ..Compiled::default()
        };
    };
    let listed = |key: &str| -> Vec<TemplateProblem> {
        answer[key]
            .as_array()
            .map(|a| a.iter().map(problem_of).collect())
            .unwrap_or_default()
    };
    problems.extend(listed("problems"));
    Compiled {
        css: answer["css"].as_str().map(str::to_owned),
        problems,
        warnings: listed("warnings"),
    }
}

/// What the compiler reads on stdin: the folder's styles/ files (base64, as they may be
/// images for `data-uri`), the `stylesheets` it has in order, what goes after them (the
/// tweaks' variables, [`tweaks::tail`]), and the platform's imports. Nothing else is
/// within its reach.
pub(crate) fn compiler_input(files: &TemplateFiles, settings: &Map<String, Value>) -> Vec<u8> {
    use base64::Engine;
    let styles: Map<String, Value> = files
        .iter()
        .filter_map(|(path, bytes)| Some((path.strip_prefix("styles/")?, bytes)))
        .map(|(name, bytes)| {
            let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
            (name.to_owned(), Value::String(b64))
        })
        .collect();
    let present: Vec<String> = stylesheets(files)
        .into_iter()
        .filter(|name| files.contains_key(&format!("styles/{name}")))
        .collect();
    let platform: Map<String, Value> = PLATFORM
        .iter()
        .map(|(name, text)| ((*name).to_owned(), Value::String((*text).to_owned())))
        .collect();
    let input = serde_json::json!({
        "stylesheets": present,
        "head": head(files),
        // Later definitions win everywhere in LESS, so the tweaks go last.
        "tail": tweaks::tail(files, settings),
        "files": styles,
        "platform": platform,
    });
    input.to_string().into_bytes()
}

/// The compiler's error (its JSON on stdout, else Node's stderr) as the folder's problem.
pub(crate) fn less_problem(stdout: &str, stderr: &str) -> TemplateProblem {
    let e: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|_| serde_json::json!({"message": stderr.trim().to_owned()}));
    problem_of(&e)
}

/// One of the compiler's `{"message", "filename", "line", "column"}` as the folder's problem.
fn problem_of(e: &Value) -> TemplateProblem {
    let file = e["filename"].as_str().unwrap_or("");
    let file = if file.is_empty() || file == ENTRY {
        "template.conf".to_owned()
    } else {
        format!("styles/{file}")
    };
    let line = e["line"].as_u64().unwrap_or(0) as u32;
    let column = if line == 0 {
        0
    } else {
        e["column"].as_u64().unwrap_or(0) as u32
    };
    let message = e["message"].as_str().unwrap_or("the LESS compiler failed");
    problem(&file, line, column, format!("LESS: {message}"))
}

/// The last compile's inputs (a digest of the stylesheets, the `stylesheets` list and the
/// tweak values) and its outcome: `tessera dev` recompiles only when a save changed one of
/// them, so saving a block or a template never waits for Node.
#[derive(Default)]
pub struct LastCompile {
    last: std::sync::Mutex<Option<([u8; 32], Compiled)>>,
    /// How many times Node ran the compiler (`tessera dev` says when a save needed it).
    runs: AtomicU64,
}

impl LastCompile {
    /// [`compile_each`], or the last outcome when the inputs are the same.
    pub fn compile(&self, files: &TemplateFiles, settings: &Map<String, Value>) -> Compiled {
        use sha2::{Digest, Sha256};
        let mut inputs = Sha256::new();
        for (path, bytes) in files.iter().filter(|(p, _)| p.starts_with("styles/")) {
            for part in [path.as_bytes(), &[0], bytes, &[0]] {
                inputs.update(part);
            }
        }
        for name in stylesheets(files) {
            inputs.update(name.as_bytes());
            inputs.update([0]);
        }
        inputs.update(tweaks::tail(files, settings).as_bytes());
        let key: [u8; 32] = inputs.finalize().into();
        let mut last = self.last.lock().expect("last compile");
        if let Some((k, outcome)) = &*last
            && *k == key
        {
            return outcome.clone();
        }
        let outcome = compile_each(files, settings);
        if needs_compiling(files) {
            self.runs.fetch_add(1, Ordering::Relaxed);
        }
        *last = Some((key, outcome.clone()));
        outcome
    }

    /// How many times the compiler has run.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }
}

/// The folder's files with its compiled stylesheet added (when it needs one, of the
/// stylesheets that compiled): what the renderer loads. Why a stylesheet was left out.
pub fn with_compiled(
    files: TemplateFiles,
    settings: &Map<String, Value>,
) -> (TemplateFiles, Vec<TemplateProblem>) {
    let (files, compiled) = with_compiled_by(files, settings, &LastCompile::default());
    (files, compiled.problems)
}

fn with_compiled_by(
    mut files: TemplateFiles,
    settings: &Map<String, Value>,
    last: &LastCompile,
) -> (TemplateFiles, Compiled) {
    let compiled = last.compile(&files, settings);
    if let Some(css) = &compiled.css {
        files.insert(COMPILED_CSS.to_owned(), css.clone().into_bytes().into());
    }
    (files, compiled)
}

/// A folder checked as the renderer will load it, its LESS compiled first (with `settings`'
/// tweaks, unless `last` compiled the same inputs): its files with the compiled stylesheet,
/// and every finding ([`renderer::check`]), each stylesheet that is missing or does not
/// compile among them (errors) and each mixin call left out (warnings). What `tessera
/// check` and `tessera dev` both show.
pub fn checked(
    files: TemplateFiles,
    settings: &Map<String, Value>,
    last: &LastCompile,
) -> (TemplateFiles, Vec<renderer::check::Finding>) {
    use renderer::check::{Finding, Severity};
    let (files, compiled) = with_compiled_by(files, settings, last);
    let mut findings = renderer::check::check(&files);
    if !compiled.problems.is_empty() {
        // The stylesheets' own problem says it; "was not compiled" on top would be noise.
        findings.retain(|f| !f.message.contains("but was not compiled"));
    }
    let less = compiled
        .problems
        .into_iter()
        .map(|p| (p, Severity::Error))
        .chain(
            compiled
                .warnings
                .into_iter()
                .map(|p| (p, Severity::Warning)),
        );
    for (p, severity) in less {
        findings.push(Finding {
            file: p.file,
            line: p.line,
            column: p.column,
            severity,
            message: p.message,
        });
    }
    findings.sort();
    // A missing stylesheet is both the loader's and the compiler's finding.
    findings.dedup();
    (files, findings)
}

/// The import's template build ([`tenants::import::import_dir_with`]): the compiled
/// stylesheet as one more file of the template version.
pub fn import_build(
    template: &[tenants::TemplateFile],
    settings: &Map<String, Value>,
) -> Result<Vec<tenants::TemplateFile>, tenants::import::ImportError> {
    let files: TemplateFiles = template
        .iter()
        .map(|f| (f.path.clone(), f.content.clone().into()))
        .collect();
    match compile(&files, settings) {
        Ok(Some(css)) => Ok(vec![tenants::TemplateFile {
            path: COMPILED_CSS.to_owned(),
            content: css.into_bytes(),
        }]),
        Ok(None) => Ok(Vec::new()),
        Err(p) => Err(tenants::import::ImportError {
            file: PathBuf::from("template").join(&p.file),
            field: None,
            reason: if p.line > 0 {
                format!("{}:{}: {}", p.line, p.column, p.message)
            } else {
                p.message
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tweaks_become_variables_and_unsafe_ones_are_dropped() {
        let settings = json!({"tweaks": {
            "tweak-site-width": "960px", "tweak-accent": "#c24a1a", "tweak-gap": 12,
            "tweak-evil": "red; } body { display: none", "bad name": "1px", "tweak-empty": " ",
            "tweak-open": "\"Georgia", "tweak-paren": "url(a",
        }});
        let out = tweak_overrides(settings.as_object().unwrap());
        assert_eq!(
            out,
            "@tweak-site-width: 960px;\n@tweak-accent: #c24a1a;\n@tweak-gap: 12;\n"
        );
    }

    fn folder(files: &[(&str, &str)]) -> TemplateFiles {
        renderer::folder::template_files(files.iter().copied())
    }

    #[test]
    fn the_compiler_runs_again_only_when_its_inputs_change() {
        assert!(
            crate::pages::islands::built::LESS_COMPILER.is_some(),
            "the test build has the LESS compiler (README: Node at build time)"
        );
        let last = LastCompile::default();
        let conf = r#"{"name": "t", "stylesheets": ["site.less"]}"#;
        let mut files = folder(&[
            ("template.conf", conf),
            ("styles/site.less", "@w: 10px; body { margin: @w; }"),
            ("site.region", "<body></body>"),
        ]);
        let none = Map::new();
        let css = |o: Compiled| {
            assert_eq!(o.problems, [], "compiles");
            o.css.expect("a stylesheet")
        };
        assert!(css(last.compile(&files, &none)).contains("margin: 10px"));
        assert_eq!(last.runs(), 1);
        // A template or block saved: the stylesheet is the last one.
        files.insert(
            "site.region".into(),
            b"<body>changed</body>".to_vec().into(),
        );
        assert!(css(last.compile(&files, &none)).contains("margin: 10px"));
        assert_eq!(last.runs(), 1);
        // A stylesheet or a tweak changed: compiled again.
        files.insert(
            "styles/site.less".into(),
            b"body { margin: @w; } @w: 12px;".to_vec().into(),
        );
        assert!(css(last.compile(&files, &none)).contains("margin: 12px"));
        let tweaks = json!({"tweaks": {"w": "14px"}});
        assert!(css(last.compile(&files, tweaks.as_object().unwrap())).contains("margin: 14px"));
        assert_eq!(last.runs(), 3);
        // A failure is remembered too, until the fix.
        files.insert(
            "styles/site.less".into(),
            b"@import 'nope'; body { margin: 1px; }".to_vec().into(),
        );
        let problems = last.compile(&files, &none).problems;
        assert_eq!(
            problems
                .iter()
                .map(|p| (p.file.as_str(), p.line))
                .collect::<Vec<_>>(),
            [("styles/site.less", 1)],
            "a file that is not there"
        );
        assert_eq!(last.compile(&files, &none).problems, problems);
        assert_eq!(last.runs(), 4);
    }

    /// A one-stylesheet folder with a few more files in styles/, compiled.
    fn compile_site(less: &str) -> Result<Option<String>, TemplateProblem> {
        let conf = r#"{"name": "t", "stylesheets": ["site.less"]}"#;
        compile(
            &folder(&[
                ("template.conf", conf),
                ("styles/site.less", less),
                ("styles/parts/a.less", ".a { b: 1; }"),
                ("styles/parts/up.less", "@import '../top';"),
                ("styles/top.less", ".top { c: 2; }"),
                ("styles/dot.svg", "<svg/>"),
                ("assets/logo.png", "PNG"),
            ]),
            &Map::new(),
        )
    }

    #[test]
    fn the_compiler_reads_the_folders_styles_and_the_platforms_imports() {
        for (less, expect) in [
            ("@import 'parts/a';", ".a {\n  b: 1;\n}"),
            ("@import (less) 'parts/a.less';", ".a {"),
            ("@import (inline) 'parts/a.less';", ".a { b: 1; }"),
            // `..` inside styles/ is fine.
            ("@import 'parts/up';", ".top {"),
            ("@import 'sqs-grid-breaker';", ".sqs-layout .sqs-row"),
            (
                "@import 'svg-icon-templates'; i { .svg-icon(2em); }",
                "width: 2em",
            ),
            ("i { b: data-uri('dot.svg'); }", "url(\"data:"),
            // A file the folder does not have stays a plain url(), as LESS does.
            ("i { b: data-uri('none.png'); }", "url('none.png')"),
            // A remote import is the browser's, kept and never fetched.
            (
                "@import url(https://fonts.example/css?family=A);",
                "@import url(\"https://fonts.example/css?family=A\");",
            ),
        ] {
            let css = compile_site(less)
                .unwrap_or_else(|p| panic!("{less}: {}", p.message))
                .unwrap();
            assert!(css.contains(expect), "{less}: {css}");
        }
    }

    /// A folder of `stylesheets` (name, text; an empty text is a file that is not there; a
    /// name starting with `~` is a file of styles/ that template.conf does not list),
    /// compiled leniently with the site's `tweaks`.
    fn compile_folder(sheets: &[(&str, &str)], tweaks: Value) -> Compiled {
        let names: Vec<&str> = sheets
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !n.starts_with('~'))
            .collect();
        let conf = json!({"name": "t", "stylesheets": names}).to_string();
        let mut files = vec![("template.conf".to_owned(), conf)];
        for (name, text) in sheets.iter().filter(|(_, t)| !t.is_empty()) {
            let name = name.trim_start_matches('~');
            files.push((format!("styles/{name}"), (*text).to_owned()));
        }
        let settings = json!({ "tweaks": tweaks });
        compile_each(
            &renderer::folder::template_files(files.iter().map(|(p, t)| (p.as_str(), t.as_str()))),
            settings.as_object().unwrap(),
        )
    }

    /// The platform's LESS (issue 45): what folders written for it compile to.
    #[test]
    fn the_platforms_dialect_compiles_as_the_platform_compiles_it() {
        for (less, expect) in [
            // Division without parentheses; the font shorthand stays one.
            (
                "@w: 240px; .a { r: 240/200; h: @w/2; font: 12px/1.5 serif; }",
                ".a {\n  r: 1.2;\n  h: 120px;\n  font: 12px/1.5 serif;\n}",
            ),
            // The legacy selector interpolation.
            (
                "@n: 3; .grid { (~\".col:nth-child(@{n}n+1)\") { clear: left; } }",
                // (the escaped string as written, as less.js 1.3.3 printed it)
                ".grid .col:nth-child(3n+1) {\n  clear: left;\n}",
            ),
            // A value in that form is not a selector.
            ("@n: 3; .a { w: (~\"@{n}px\"); }", "w: 3px;"),
            // The platform's icon fonts and their mixins.
            (
                "@import 'sqs-ui-font'; .like { .sqs-ui-font(heart); .sqs-ui-font-size(24px); }",
                "content: \"\\2665\";",
            ),
            (
                "@import 'sqs-ui-font'; .next { .sqs-ui-font(right-arrow, after); }",
                ".next:after {",
            ),
            (
                "@import 'social-icon-font'; .share { .sqs-ui-font(share); }",
                ".social-facebook:before {",
            ),
            // Remote imports: kept for the browser with their media, never fetched.
            (
                "@import url(https://fonts.example/css?family=A B:400,700) screen;\n.a { b: 1; }",
                "@import url(\"https://fonts.example/css?family=A%20B:400,700\") screen;\n",
            ),
            (
                "@IMPORT URL(https://fonts.example/css?family=D);",
                "@import url(\"https://fonts.example/css?family=D\");",
            ),
            (
                "@import \"//fonts.example/css2?family=C:wght@400;700&display=swap\";",
                "@import url(\"//fonts.example/css2?family=C:wght@400;700&display=swap\");",
            ),
            // The legacy interpolation of a quoted value: in without its quotes.
            (
                ".m(@el: '#nav') { (~\"@{el}\") { color: red; } }\n.m();",
                "#nav {\n  color: red;\n}",
            ),
            // sqs-ui-font's mixins, called without an import.
            (".label { .sqs-ui-font(menu); }", ".label:before {"),
            // The social-links colour mixins, called without an import.
            (
                ".Header { .mixin-template-social-icons-color(#fff); }",
                ".Header .SocialLinks-link-svg {\n  fill: #fff;\n}",
            ),
        ] {
            let out = compile_folder(&[("site.less", less)], json!({}));
            assert_eq!(out.problems, [], "{less}");
            let css = out.css.expect("css");
            assert!(css.contains(expect), "{less}: {css}");
        }
    }

    /// A `.css` stylesheet with LESS escapes is compiled (a browser drops `calc(~"…")`).
    #[test]
    fn a_css_stylesheet_with_escapes_is_compiled() {
        let out = compile_folder(
            &[("site.css", ".a { width: calc(~\"100% - 10px\"); }\n")],
            json!({}),
        );
        assert_eq!(out.problems, []);
        let css = out.css.expect("compiled");
        assert!(css.contains("width: calc(100% - 10px);"), "{css}");
    }

    /// The social-links colour mixins come in only for a folder that calls them without
    /// defining them: a folder's own definition is the one applied, and a folder that does
    /// not call them gets nothing.
    #[test]
    fn the_social_links_mixins_stand_in_only_where_needed() {
        let own = ".mixin-template-social-icons-color(@c) { x: @c; }\n.H { .mixin-template-social-icons-color(red); }";
        let css = compile_folder(&[("site.less", own)], json!({}))
            .css
            .expect("css");
        assert!(
            css.contains(".H {\n  x: red;\n}") && !css.contains("SocialLinks"),
            "{css}"
        );
        let css = compile_folder(&[("site.less", ".a { b: 1; }")], json!({}))
            .css
            .expect("css");
        assert!(!css.contains("SocialLinks"), "{css}");
        let body = ".x { .mixin-template-social-icons-color-body(#123456); }";
        let css = compile_folder(&[("site.less", body)], json!({}))
            .css
            .expect("css");
        assert!(
            css.contains(".x .SocialLinks-link {\n  color: #123456;\n}"),
            "{css}"
        );
    }

    /// A mixin call that matches no definition (too few or too many arguments, or none by
    /// that name) is left out as the platform's compiler leaves it, with a warning; the
    /// rest of the rule stays.
    #[test]
    fn a_mixin_call_that_matches_nothing_is_left_out_with_a_warning() {
        let less = ".flex(@grow, @shrink, @basis) { flex: @grow @shrink @basis; }\n\
                    .row {\n  .flex(0 1 auto);\n  .platform-only(red);\n  display: flex;\n}\n\
                    .col { .flex(1, 0, auto); }\n";
        let out = compile_folder(&[("site.less", less)], json!({}));
        assert_eq!(out.problems, []);
        let css = out.css.unwrap();
        assert!(css.contains(".row {\n  display: flex;\n}"), "{css}");
        assert!(css.contains(".col {\n  flex: 1 0 auto;\n}"), "{css}");
        let warnings: Vec<_> = out
            .warnings
            .iter()
            .map(|w| (w.file.as_str(), w.line, w.column, w.message.as_str()))
            .collect();
        assert_eq!(
            warnings,
            [
                (
                    "styles/site.less",
                    3,
                    3,
                    "LESS: No matching definition was found for `.flex(0 1 auto)`: the call is left out, as the platform's compiler does"
                ),
                (
                    "styles/site.less",
                    4,
                    3,
                    "LESS: .platform-only is undefined: the call is left out, as the platform's compiler does"
                ),
            ]
        );
        // Another error inside a mixin that matched still stops the stylesheet.
        let out = compile_folder(
            &[(
                "site.less",
                ".m(@a) { w: image-size('a.png'); }\n.x { .m(1); }\n",
            )],
            json!({}),
        );
        assert!(
            out.problems[0].message.contains("not supported"),
            "{:?}",
            out.problems
        );
    }

    /// A declaration using a variable that is not defined is left out, as the platform's
    /// compiler leaves it, with a warning; so is a mixin call whose arguments use one. The
    /// rest of the stylesheet stays.
    #[test]
    fn an_undefined_variable_leaves_out_its_declaration_with_a_warning() {
        let less = ".a {\n  x: 1;\n  border-top: 1px solid @borderColor;\n  y: darken(@nope, 10%);\n}\n\
                    @gap: @undefinedGap;\n.b { margin: @gap; padding: 2px; }\n\
                    .m(@w) { width: @w; }\n.c { .m(@nowhere); z: 3; }\n";
        let out = compile_folder(&[("site.less", less)], json!({}));
        assert_eq!(out.problems, []);
        assert_eq!(
            out.css.unwrap(),
            ".a {\n  x: 1;\n}\n.b {\n  padding: 2px;\n}\n.c {\n  z: 3;\n}\n"
        );
        let left = "is left out, as the platform's compiler does";
        let warnings: Vec<_> = out
            .warnings
            .iter()
            .map(|w| (w.line, w.message.as_str()))
            .collect();
        assert_eq!(
            warnings,
            [
                (3, format!("LESS: variable @borderColor is undefined: the declaration {left}").as_str()),
                (4, format!("LESS: Error evaluating function `darken`: variable @nope is undefined: the declaration {left}").as_str()),
                (6, format!("LESS: variable @undefinedGap is undefined: the declaration {left}").as_str()),
                (9, format!("LESS: variable @nowhere is undefined: the call {left}").as_str()),
            ]
        );
    }

    /// Font tweaks give a variable per property, from the folder's defaults and the site's
    /// font; a value tweak's site value reaches its variable by the tweak's title.
    #[test]
    fn tweak_declarations_give_the_platforms_variables() {
        let tweak = "// tweak: {\"title\": \"tweak-h1-font\", \"type\": \"font\"}\n\
                     .tweak-h1-font {\n  font-family: Georgia, serif;\n  font-size: 32px;\n}\n\
                     // tweak: {\"title\": \"Site Max Width\", \"type\": \"value\"}\n\
                     @pageWidth: 640px;\n";
        let site = "h1 { .tweak-h1-font; }\n\
                    .title { font-size: @tweak-h1-font-font-size * 1.5; max-width: @pageWidth; }\n";
        let sheets = [("tweak.less", tweak), ("site.less", site)];
        let css = compile_folder(&sheets, json!({})).css.unwrap();
        assert!(
            css.contains("font-size: 48px;\n  max-width: 640px;"),
            "{css}"
        );
        let own = json!({
            "tweak-h1-font": {"font-family": "Inter, sans-serif", "fontSize": "40px"},
            "Site Max Width": "960px",
        });
        let css = compile_folder(&sheets, own).css.unwrap();
        assert!(
            css.contains(".title {\n  font-size: 60px;\n  max-width: 960px;"),
            "{css}"
        );
        assert!(css.contains("h1 {\n  font-family: Georgia, serif;\n  font-size: 32px;\n  font-family: Inter, sans-serif;\n  font-size: 40px;\n}"), "{css}");
    }

    /// A missing or broken stylesheet is reported and left out; the others still compile.
    #[test]
    fn one_missing_or_broken_stylesheet_does_not_blank_the_others() {
        let out = compile_folder(
            &[
                ("base.less", "@gap: 10px;\n.base { margin: @gap; }\n"),
                ("gone.less", ""),
                ("broken.less", ".b {\n  w: image-size('b.png');\n}\n"),
                ("parts.less", "@import 'parts/bad';\n"),
                // A problem in a file a stylesheet imports is that stylesheet's.
                ("deep.less", "@import \"parts/deep\";\n.deep { a: 1; }\n"),
                ("~parts/deep.less", ".d {\n  w: image-size('d.png');\n}\n"),
                ("page.css", ".page { padding: @gap; }\n"),
            ],
            json!({}),
        );
        let problems: Vec<_> = out
            .problems
            .iter()
            .map(|p| (p.file.as_str(), p.line, p.message.as_str()))
            .collect();
        assert_eq!(
            problems,
            [
                (
                    "template.conf",
                    0,
                    "stylesheet 'gone.less' not found in styles/"
                ),
                // Imports are read before anything is evaluated.
                ("styles/parts.less", 1, "LESS: 'parts/bad' wasn't found."),
                (
                    "styles/broken.less",
                    2,
                    "LESS: Error evaluating function `image-size`: image-size(), image-width() and image-height() are not supported: stylesheets cannot read image files",
                ),
                (
                    "styles/parts/deep.less",
                    2,
                    "LESS: Error evaluating function `image-size`: image-size(), image-width() and image-height() are not supported: stylesheets cannot read image files",
                ),
            ]
        );
        let css = out.css.expect("the others compiled");
        assert_eq!(
            css,
            ".base {\n  margin: 10px;\n}\n.page {\n  padding: 10px;\n}\n"
        );
        // The import takes only a folder that compiles whole: the first problem.
        let conf = r#"{"name": "t", "stylesheets": ["a.less", "b.less"]}"#;
        let files = folder(&[("template.conf", conf), ("styles/b.less", ".b { c: 1; }")]);
        let p = compile(&files, &Map::new()).expect_err("a.less is missing");
        assert_eq!(p.message, "stylesheet 'a.less' not found in styles/");
    }

    #[test]
    fn the_compiler_refuses_every_name_outside_the_folder() {
        let absolute = "only the template's styles/ files can be read";
        let outside = "is outside the template's styles/ folder";
        for (less, why) in [
            ("i { b: data-uri('/etc/passwd'); }", absolute),
            (
                "i { b: data-uri('image/png;base64', '/etc/passwd'); }",
                absolute,
            ),
            ("i { b: data-uri('../assets/logo.png'); }", outside),
            ("i { b: data-uri('parts/../../template.conf'); }", outside),
            ("i { b: data-uri('file:///etc/passwd'); }", "never fetched"),
            ("@import (inline) '/etc/passwd';", absolute),
            ("@import (inline) '../template.conf';", outside),
            ("@import (less) '../../../../../../etc/hostname';", outside),
            ("@import '/proc/self/environ';", absolute),
            ("@import 'ftp://x.example/a.less';", "never fetched"),
            ("@import (inline) 'a\\\\b';", "no backslashes"),
            ("@import '../platform/sqs-grid-breaker';", outside),
            // Node's own modules are not the platform's imports.
            ("@import 'less/package.json';", "wasn't found"),
            ("@plugin 'plugin';", "@plugin 'plugin' is not allowed"),
            ("@plugin './p.js';", "is not allowed"),
            ("i { w: image-size('dot.svg'); }", "not supported"),
            (
                "i { w: `process.env`; }",
                "Inline JavaScript is not enabled",
            ),
        ] {
            let problem = compile_site(less).expect_err(less);
            assert!(
                problem.message.starts_with("LESS: ") && problem.message.contains(why),
                "{less}: {}",
                problem.message
            );
            assert_eq!(
                (problem.file.as_str(), problem.line),
                ("styles/site.less", 1),
                "{less}"
            );
        }
    }
}
