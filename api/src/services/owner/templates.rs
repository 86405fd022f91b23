//! A new template version: checked exactly as `tessera check` checks a folder (its LESS
//! compiled with the site's tweaks), then stored as the site's version only when the check
//! found no errors; otherwise nothing changes and the site keeps the version it had.

use renderer::check::Severity;
use renderer::folder::TemplateFiles;
use tenants::{Store, StoreError, TemplateFile, TemplateVersion, TenantId};

/// Why an upload did not become the site's template version.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The check found errors, each `file:line:col: message`; nothing was stored.
    #[error("the template has {} problem(s)", .0.len())]
    Refused(Vec<String>),
    /// The check's task ended without an answer.
    #[error("the template check did not finish")]
    CheckFailed,
    /// The store could not read the site or store the version.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The version the site now serves.
#[derive(Debug)]
pub struct Uploaded {
    pub version: TemplateVersion,
    /// How many files it has.
    pub files: usize,
    /// The check's warnings, `file:line:col: message`.
    pub warnings: Vec<String>,
}

/// Checks `files` with the site's settings, then stores them as `tenant`'s new template
/// version.
pub async fn upload(
    store: &Store,
    tenant: TenantId,
    files: TemplateFiles,
) -> Result<Uploaded, UploadError> {
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
            errors.iter().map(ToString::to_string).collect(),
        ));
    }
    let stored: Vec<TemplateFile> = files
        .iter()
        .map(|(path, bytes)| TemplateFile {
            path: path.clone(),
            content: bytes.to_vec(),
        })
        .collect();
    let version = store.put_template_version(tenant, &stored).await?;
    Ok(Uploaded {
        version,
        files: stored.len(),
        warnings: warnings.iter().map(ToString::to_string).collect(),
    })
}
