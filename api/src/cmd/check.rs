//! `tessera check DIR`: checks a template folder the way the renderer loads it
//! ([`renderer::check`]) and prints each finding as `file:line:col: severity: message` with
//! its source line and a caret, then a summary; `--format json` prints one JSON document
//! for editors and CI. Exit status: 0 clean (warnings allowed unless `--strict`), 1 with
//! errors, 2 for a usage problem (a folder that is not there).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use renderer::check::{Finding, Severity};
use renderer::folder::{TemplateFiles, read_dir};
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Check a template folder: configuration, syntax, partials, tags, navigations, assets.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The template folder (with its template.conf).
    pub dir: PathBuf,
    /// `text` (default) or `json`.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Warnings fail too.
    #[arg(long)]
    pub strict: bool,
}

/// A finding with the source line and a caret under its column.
fn with_source(f: &Finding, files: &TemplateFiles) -> String {
    let mut s = f.to_string();
    if f.line > 0
        && let Some(Ok(text)) = files.get(&f.file).map(|b| std::str::from_utf8(b))
        && let Some(line) = text.split('\n').nth(f.line as usize - 1)
    {
        let line = line.trim_end_matches('\r');
        let pad: String = line
            .chars()
            .take(f.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        s.push_str(&format!("\n  {line}\n  {pad}^"));
    }
    s
}

pub fn run(args: CheckArgs) -> ExitCode {
    if !args.dir.is_dir() {
        eprintln!("error: {} is not a folder", args.dir.display());
        return ExitCode::from(2);
    }
    let files = match read_dir(&args.dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: reading {}: {e}", args.dir.display());
            return ExitCode::from(2);
        }
    };
    let checked = files.len();
    // LESS compiles as at import (with the folder's own tweak defaults); a stylesheet that
    // does not compile is one more finding.
    let (files, findings) = crate::styles::checked(
        files,
        &serde_json::Map::new(),
        &crate::styles::LastCompile::default(),
    );
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    match args.format {
        Format::Json => {
            let list: Vec<_> = findings
                .iter()
                .map(|f| {
                    json!({"file": f.file, "line": f.line, "column": f.column,
                           "severity": f.severity.to_string(), "message": f.message})
                })
                .collect();
            let doc = json!({
                "folder": args.dir.display().to_string(), "files": checked,
                "errors": errors, "warnings": warnings, "findings": list,
            });
            println!("{}", serde_json::to_string_pretty(&doc).expect("JSON"));
        }
        Format::Text => {
            for f in &findings {
                println!("{}", with_source(f, &files));
            }
            let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
            if findings.is_empty() {
                println!(
                    "{}: no problems ({} checked)",
                    args.dir.display(),
                    plural(checked, "file")
                );
            } else {
                println!(
                    "{}: {}, {} ({} checked)",
                    args.dir.display(),
                    plural(errors, "error"),
                    plural(warnings, "warning"),
                    plural(checked, "file")
                );
            }
        }
    }
    if errors > 0 || (args.strict && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
