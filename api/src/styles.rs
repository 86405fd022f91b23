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

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// The entry file written next to the folder's stylesheets.
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
fn tweak_overrides(settings: &Map<String, Value>) -> String {
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

/// A fresh scratch folder.
fn scratch() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tessera-less-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

/// The folder's stylesheets compiled into one CSS text, or the problem (`styles/x.less`,
/// line and column, LESS's message). `Ok(None)` when nothing needs compiling. Blocking: it
/// runs Node.
pub fn compile(
    files: &TemplateFiles,
    settings: &Map<String, Value>,
) -> Result<Option<String>, TemplateProblem> {
    if !needs_compiling(files) {
        return Ok(None);
    }
    let Some(compiler) = crate::islands::built::LESS_COMPILER else {
        return Err(problem(
            "template.conf",
            0,
            0,
            "this folder's stylesheets use LESS, and this tessera was built without Node, so it has no LESS compiler".into(),
        ));
    };
    let dir = scratch();
    let result = run(&dir, compiler, files, settings);
    let _ = std::fs::remove_dir_all(&dir);
    result.map(Some)
}

fn run(
    dir: &Path,
    compiler: &[u8],
    files: &TemplateFiles,
    settings: &Map<String, Value>,
) -> Result<String, TemplateProblem> {
    let io = |e: std::io::Error| {
        problem(
            "template.conf",
            0,
            0,
            format!("compiling the stylesheets: {e}"),
        )
    };
    for (path, bytes) in files.iter().filter(|(p, _)| p.starts_with("styles/")) {
        write(&dir.join(path), bytes).map_err(io)?;
    }
    for (name, text) in PLATFORM {
        write(&dir.join(".platform").join(name), text.as_bytes()).map_err(io)?;
    }
    write(&dir.join("less-compiler.cjs"), compiler).map_err(io)?;
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
    write(&dir.join("styles").join(ENTRY), entry.as_bytes()).map_err(io)?;
    let out = Command::new("node")
        .arg("less-compiler.cjs")
        .arg(format!("styles/{ENTRY}"))
        .arg(".platform")
        .current_dir(dir)
        .output()
        .map_err(|e| {
            problem(
                "template.conf",
                0,
                0,
                format!("running node for the LESS compiler: {e}"),
            )
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        return Ok(stdout);
    }
    let e: Value = serde_json::from_str(&stdout).unwrap_or_else(
        |_| serde_json::json!({"message": String::from_utf8_lossy(&out.stderr).trim().to_owned()}),
    );
    let file = e["filename"].as_str().unwrap_or("");
    let file = if file.is_empty() || file.ends_with(ENTRY) {
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
    // LESS lists the scratch paths it tried for a missing import: they mean nothing here.
    let message = message
        .split(" Tried - ")
        .next()
        .unwrap_or(message)
        .to_owned();
    Err(problem(&file, line, column, format!("LESS: {message}")))
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
            crate::islands::built::LESS_COMPILER.is_some(),
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
}
