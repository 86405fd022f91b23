//! Compiling a template folder's stylesheets (TEMPLATE-PLATFORM.md §1.8): every file in
//! template.conf's `stylesheets`, in order, compiled as LESS with the `less` npm package
//! (bundled into the binary by `client/build.mjs`, run with Node), the site's tweak values
//! (`websiteSettings.tweaks`, `{"tweak-site-width": "960px"}`) overriding the folder's
//! `@tweak-…` variables, and the platform's imports that folders use without shipping
//! (`sqs-grid-breaker`, `svg-icon-templates`: our own, in `renderer/less/platform/`).
//!
//! It runs at import, template upload and `tessera dev`/`check` time, never while serving a
//! page; the CSS is stored with the template version as [`COMPILED_CSS`], which the renderer
//! serves. A folder of plain CSS needs no compiling (and no Node).
//!
//! The stylesheets are owner input: the compiler sees only the folder's `styles/` files
//! and the platform's imports, in memory, and runs bounded in time and memory ([`node`]).

mod node;

pub use node::{HEAP_MB, MAX_CONCURRENT, MAX_CSS_BYTES, QUEUE_WAIT, TIMEOUT};

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

pub use renderer::folder::COMPILED_CSS;
use renderer::folder::{TemplateFiles, TemplateProblem, less_feature};
use serde_json::{Map, Value};

/// Our versions of the platform's LESS imports.
const PLATFORM: [(&str, &str); 2] = [
    (
        "sqs-grid-breaker.less",
        include_str!("../../renderer/less/platform/sqs-grid-breaker.less"),
    ),
    (
        "svg-icon-templates.less",
        include_str!("../../renderer/less/platform/svg-icon-templates.less"),
    ),
];

/// The entry file, among the folder's stylesheets, that imports them in order.
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
/// letters, digits and dashes; a value without `;`, braces or line breaks).
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
        let value_ok = !value.trim().is_empty() && !value.contains([';', '{', '}', '\n', '\r']);
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

/// The folder's stylesheets compiled into one CSS text, or the problem (`styles/x.less`,
/// line and column, LESS's message). `Ok(None)` when nothing needs compiling. Blocking: it
/// runs Node, bounded as [`node`] says.
pub fn compile(
    files: &TemplateFiles,
    settings: &Map<String, Value>,
) -> Result<Option<String>, TemplateProblem> {
    if !needs_compiling(files) {
        return Ok(None);
    }
    let Some(compiler) = crate::pages::islands::built::LESS_COMPILER else {
        return Err(problem(
            "template.conf",
            0,
            0,
            "this folder's stylesheets use LESS, and this tessera was built without Node, so it has no LESS compiler".into(),
        ));
    };
    let input = compiler_input(files, settings)?;
    let conf = |message: String| problem("template.conf", 0, 0, message);
    let out = node::run(compiler, &input).map_err(|failure| {
        conf(match failure {
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
        })
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.success {
        return Ok(Some(stdout));
    }
    Err(less_problem(&stdout, &out.stderr))
}

/// What the compiler reads on stdin: the folder's styles/ files (base64, as they may be
/// images for `data-uri`), the entry that imports the `stylesheets` in order with the
/// tweaks last, and the platform's imports. Nothing else is within its reach.
pub(crate) fn compiler_input(
    files: &TemplateFiles,
    settings: &Map<String, Value>,
) -> Result<Vec<u8>, TemplateProblem> {
    use base64::Engine;
    let mut styles: Map<String, Value> = files
        .iter()
        .filter_map(|(path, bytes)| Some((path.strip_prefix("styles/")?, bytes)))
        .map(|(name, bytes)| {
            let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
            (name.to_owned(), Value::String(b64))
        })
        .collect();
    let mut entry = String::new();
    for name in stylesheets(files) {
        if !files.contains_key(&format!("styles/{name}")) {
            return Err(problem(
                "template.conf",
                0,
                0,
                format!("stylesheet '{name}' not found in styles/"),
            ));
        }
        // `(less)`: a `.css` file is LESS too (TEMPLATE-PLATFORM.md §1.8), so its
        // variables and imports work.
        entry.push_str(&format!("@import (less) {:?};\n", name));
    }
    // Later definitions win everywhere in LESS, so the site's tweak values go last.
    entry.push_str(&tweak_overrides(settings));
    let entry = base64::engine::general_purpose::STANDARD.encode(entry);
    styles.insert(ENTRY.to_owned(), Value::String(entry));
    let platform: Map<String, Value> = PLATFORM
        .iter()
        .map(|(name, text)| ((*name).to_owned(), Value::String((*text).to_owned())))
        .collect();
    let input = serde_json::json!({"entry": ENTRY, "files": styles, "platform": platform});
    Ok(input.to_string().into_bytes())
}

/// The compiler's error (its JSON on stdout, else Node's stderr) as the folder's problem.
pub(crate) fn less_problem(stdout: &str, stderr: &str) -> TemplateProblem {
    let e: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|_| serde_json::json!({"message": stderr.trim().to_owned()}));
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
    last: std::sync::Mutex<Option<([u8; 32], CompileOutcome)>>,
    /// How many times Node ran the compiler (`tessera dev` says when a save needed it).
    runs: AtomicU64,
}

type CompileOutcome = Result<Option<String>, TemplateProblem>;

impl LastCompile {
    /// [`compile`], or the last outcome when the inputs are the same.
    pub fn compile(&self, files: &TemplateFiles, settings: &Map<String, Value>) -> CompileOutcome {
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
        inputs.update(tweak_overrides(settings).as_bytes());
        let key: [u8; 32] = inputs.finalize().into();
        let mut last = self.last.lock().expect("last compile");
        if let Some((k, outcome)) = &*last
            && *k == key
        {
            return outcome.clone();
        }
        let outcome = compile(files, settings);
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

/// The folder's files with its compiled stylesheet added (when it needs one): what the
/// renderer loads. The problem, if compiling failed.
pub fn with_compiled(
    files: TemplateFiles,
    settings: &Map<String, Value>,
) -> (TemplateFiles, Option<TemplateProblem>) {
    with_compiled_by(files, settings, &LastCompile::default())
}

fn with_compiled_by(
    mut files: TemplateFiles,
    settings: &Map<String, Value>,
    last: &LastCompile,
) -> (TemplateFiles, Option<TemplateProblem>) {
    match last.compile(&files, settings) {
        Ok(Some(css)) => {
            files.insert(COMPILED_CSS.to_owned(), css.into_bytes().into());
            (files, None)
        }
        Ok(None) => (files, None),
        Err(p) => (files, Some(p)),
    }
}

/// A folder checked as the renderer will load it, its LESS compiled first (with `settings`'
/// tweaks, unless `last` compiled the same inputs): its files with the compiled stylesheet,
/// and every finding ([`renderer::check`]),
/// a stylesheet that does not compile among them. What `tessera check` and `tessera dev`
/// both show.
pub fn checked(
    files: TemplateFiles,
    settings: &Map<String, Value>,
    last: &LastCompile,
) -> (TemplateFiles, Vec<renderer::check::Finding>) {
    use renderer::check::{Finding, Severity};
    let (files, less) = with_compiled_by(files, settings, last);
    let mut findings = renderer::check::check(&files);
    if let Some(p) = less {
        // The stylesheets' own problem says it; "was not compiled" on top would be noise.
        findings.retain(|f| !f.message.contains("but was not compiled"));
        findings.push(Finding {
            file: p.file,
            line: p.line,
            column: p.column,
            severity: Severity::Error,
            message: p.message,
        });
        findings.sort();
        // A missing stylesheet is both the loader's and the compiler's finding.
        findings.dedup();
    }
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
        let css = |o: CompileOutcome| o.expect("compiles").expect("a stylesheet");
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
            b"body { margin: @nope; }".to_vec().into(),
        );
        let problem = last
            .compile(&files, &none)
            .expect_err("an undefined variable");
        assert_eq!(
            (problem.file.as_str(), problem.line),
            ("styles/site.less", 1)
        );
        assert!(last.compile(&files, &none).is_err());
        assert_eq!(last.runs(), 4);
    }

    /// A one-stylesheet folder with a few more files in styles/, compiled.
    fn compile_site(less: &str) -> CompileOutcome {
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
