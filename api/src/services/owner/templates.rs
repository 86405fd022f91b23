//! A new template version: checked exactly as `tessera check` checks a folder (its LESS
//! compiled with the site's tweaks), then stored only when the check found no errors;
//! otherwise nothing changes and the site keeps the version it had. [`upload`] stores the
//! version and makes it the site's at once; [`store`] stores it beside the active one, for
//! the owner to switch to later ([`tenants::Store::switch_template_version`]).
//!
//! Each problem comes with the line of the file it points at ([`Problem::source`]), so the
//! owner reads what is wrong where before anything is switched.

use renderer::check::{Finding, Severity};
use renderer::folder::TemplateFiles;
use tenants::{Store, StoreError, TemplateFile, TemplateVersion, TenantId};

/// The longest source line a problem quotes, in characters (a minified file has one long
/// line: the start of it is enough to find the place).
pub const MAX_SOURCE: usize = 240;

/// What the check found, where, and the line it found it on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// `file:line:col: severity: message`, as `tessera check` prints it.
    pub text: String,
    pub file: String,
    /// 1-based; 0 when the problem is about the whole file.
    pub line: u32,
    /// 1-based; 0 when the problem is about the whole file.
    pub column: u32,
    pub message: String,
    /// The file's line `line` (tabs and all), cut at [`MAX_SOURCE`] characters; `None` when
    /// the problem has no line or the file is not text.
    pub source: Option<String>,
}

/// Why an upload did not become a template version.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The check found errors; nothing was stored.
    #[error("the template has {} problem(s)", .0.len())]
    Refused(Vec<Problem>),
    /// The check's task ended without an answer.
    #[error("the template check did not finish")]
    CheckFailed,
    /// The store could not read the site or store the version.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The version stored.
#[derive(Debug)]
pub struct Uploaded {
    pub version: TemplateVersion,
    /// How many files it has.
    pub files: usize,
    /// The check's warnings.
    pub warnings: Vec<Problem>,
}

/// `finding` with the line of `files` it points at.
fn problem(files: &TemplateFiles, finding: &Finding) -> Problem {
    let source = (finding.line > 0)
        .then(|| files.get(&finding.file))
        .flatten()
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .and_then(|text| text.lines().nth(finding.line as usize - 1))
        .map(|line| {
            line.trim_end_matches('\r')
                .chars()
                .take(MAX_SOURCE)
                .collect()
        });
    Problem {
        text: finding.to_string(),
        file: finding.file.clone(),
        line: finding.line,
        column: finding.column,
        message: finding.message.clone(),
        source,
    }
}

/// Checks `files` with the site's settings: the files as they are stored (stylesheets
/// compiled) and the warnings, or the errors.
async fn check(
    store: &Store,
    tenant: TenantId,
    files: TemplateFiles,
) -> Result<(Vec<TemplateFile>, Vec<Problem>), UploadError> {
    let content = store.site_content(tenant).await?;
    let settings = content.settings.website_settings.clone();
    // The check compiles LESS (Node) and parses every file: off the async workers.
    let (files, findings) = tokio::task::spawn_blocking(move || {
        crate::styles::checked(files, &settings, &Default::default())
    })
    .await
    .map_err(|_| UploadError::CheckFailed)?;
    let (errors, warnings): (Vec<_>, Vec<_>) =
        findings.iter().partition(|f| f.severity == Severity::Error);
    if !errors.is_empty() {
        return Err(UploadError::Refused(
            errors.iter().map(|f| problem(&files, f)).collect(),
        ));
    }
    let warnings = warnings.iter().map(|f| problem(&files, f)).collect();
    let stored = files
        .iter()
        .map(|(path, bytes)| TemplateFile {
            path: path.clone(),
            content: bytes.to_vec(),
        })
        .collect();
    Ok((stored, warnings))
}

/// Checks `files` with the site's settings, then stores them as `tenant`'s new template
/// version and makes it the one the site serves.
pub async fn upload(
    store: &Store,
    tenant: TenantId,
    files: TemplateFiles,
) -> Result<Uploaded, UploadError> {
    let (stored, warnings) = check(store, tenant, files).await?;
    let version = store.put_template_version(tenant, &stored).await?;
    Ok(Uploaded {
        version,
        files: stored.len(),
        warnings,
    })
}

/// Checks `files` with the site's settings, then stores them as `tenant`'s new template
/// version beside the active one, which the site keeps serving.
pub async fn store(
    store: &Store,
    tenant: TenantId,
    files: TemplateFiles,
) -> Result<Uploaded, UploadError> {
    let (stored, warnings) = check(store, tenant, files).await?;
    let version = store.store_template_version(tenant, &stored).await?;
    Ok(Uploaded {
        version,
        files: stored.len(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(file: &str, line: u32, column: u32) -> Finding {
        Finding {
            file: file.into(),
            line,
            column,
            severity: Severity::Error,
            message: "bad".into(),
        }
    }

    #[test]
    fn a_problem_quotes_its_line() {
        let files =
            renderer::folder::template_files([("a.region", "one\r\n  two {.bad}\r\nthree")]);
        let p = problem(&files, &finding("a.region", 2, 3));
        assert_eq!(p.source.as_deref(), Some("  two {.bad}"));
        assert_eq!(p.text, "a.region:2:3: error: bad");
        assert_eq!(problem(&files, &finding("a.region", 0, 0)).source, None);
        assert_eq!(problem(&files, &finding("a.region", 9, 1)).source, None);
        assert_eq!(problem(&files, &finding("gone.region", 1, 1)).source, None);
        let long = "x".repeat(1000);
        let files = renderer::folder::template_files([("c.css", long.as_str())]);
        let p = problem(&files, &finding("c.css", 1, 1));
        assert_eq!(p.source.unwrap().len(), MAX_SOURCE);
    }
}
