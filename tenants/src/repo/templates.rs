//! Template versions: each upload of a tenant's template folder is stored whole as a new
//! version, with the content hash of its files (so a renderer that shares compiled folders
//! by content can find one without reading the files: the hash comes with the tenant row,
//! see `tenants.rs`). A version is stored and made active in one transaction
//! ([`Store::put_template_version`]), or stored only ([`Store::store_template_version`]) and
//! made active later ([`Store::switch_template_version`], which also rolls back to an
//! earlier one).

use sha2::{Digest, Sha256};

use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::{TemplateHash, TemplateVersion, TenantId, now_ms};
use crate::model::TemplateFile;
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

/// Checks a template path: relative, `/`-separated, no `..`, no empty segments.
fn check_path(path: &str) -> Result<()> {
    let ok = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
    if ok {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "bad template file path {path:?}"
        )))
    }
}

/// The SHA-256 of a template folder's files: paths and contents, taken in path order
/// whatever order they are given in. Equal hashes mean equal folders.
pub fn template_hash(files: &[TemplateFile]) -> TemplateHash {
    let mut h = Sha256::new();
    let mut sorted: Vec<&TemplateFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for f in sorted {
        // Lengths first, so no two different folders give the same byte stream.
        h.update((f.path.len() as u64).to_le_bytes());
        h.update(f.path.as_bytes());
        h.update((f.content.len() as u64).to_le_bytes());
        h.update(&f.content);
    }
    h.finalize().into()
}

pub(crate) async fn put_template_version_in(
    tx: &mut Tx,
    tenant: TenantId,
    files: &[TemplateFile],
) -> Result<TemplateVersion> {
    let version = store_template_version_in(tx, tenant, files).await?;
    tx.execute(
        "UPDATE tenant SET template_version = $2 WHERE id = $1",
        params![tenant, version],
    )
    .await?;
    Ok(version)
}

/// How many template versions a site keeps: the newest this many, and the live one
/// whatever its age. Every upload and every saved style that compiles a new stylesheet is
/// a version of up to 20 MB, so an unbounded history would let one site fill the store.
pub const KEPT_TEMPLATE_VERSIONS: i64 = 30;

/// Stores `files` as the tenant's next template version without making it active, and
/// deletes the versions that fall out of the newest [`KEPT_TEMPLATE_VERSIONS`] (never the
/// live one: it goes when it is neither live nor among the newest).
async fn store_template_version_in(
    tx: &mut Tx,
    tenant: TenantId,
    files: &[TemplateFile],
) -> Result<TemplateVersion> {
    let version = tx
        .query_one(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM template_version WHERE tenant_id = $1",
            params![tenant],
        )
        .await?
        .i64(0)?;
    tx.execute(
        "INSERT INTO template_version (tenant_id, version, created_ms, content_hash) VALUES ($1, $2, $3, $4)",
        params![tenant, version, now_ms(), template_hash(files).to_vec()],
    )
    .await?;
    for f in files {
        check_path(&f.path)?;
        tx.execute(
            "INSERT INTO template_file (tenant_id, version, path, content) VALUES ($1, $2, $3, $4)",
            params![tenant, version, f.path.as_str(), f.content.clone()],
        )
        .await?;
    }
    let oldest_kept = version - KEPT_TEMPLATE_VERSIONS + 1;
    let live = "(SELECT COALESCE(template_version, 0) FROM tenant WHERE id = $1)";
    tx.execute(
        &format!(
            "DELETE FROM template_file WHERE tenant_id = $1 AND version < $2 AND version <> {live}"
        ),
        params![tenant, oldest_kept],
    )
    .await?;
    tx.execute(
        &format!(
            "DELETE FROM template_version WHERE tenant_id = $1 AND version < $2 AND version <> {live}"
        ),
        params![tenant, oldest_kept],
    )
    .await?;
    Ok(TemplateVersion(version))
}

/// One stored template version, as the owner's list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateVersionInfo {
    /// Its number, counting up from 1 per tenant.
    pub version: TemplateVersion,
    /// When it was stored (epoch ms).
    pub created_ms: i64,
    /// How many files it has.
    pub files: i64,
    /// Their size in bytes, all together.
    pub bytes: i64,
}

/// Gives every template version stored without a content hash (before migration 12) its
/// hash. Runs with the migrations, in their transaction; a no-op once all have one.
pub(crate) async fn backfill_hashes_in(tx: &mut Tx) -> Result<usize> {
    let missing = tx
        .query(
            "SELECT tenant_id, version FROM template_version WHERE content_hash IS NULL",
            params![],
        )
        .await?;
    for r in &missing {
        let (tenant, version) = (TenantId(r.i64(0)?), r.i64(1)?);
        let files = files_in(tx, tenant, TemplateVersion(version)).await?;
        tx.execute(
            "UPDATE template_version SET content_hash = $3 WHERE tenant_id = $1 AND version = $2",
            params![tenant, version, template_hash(&files).to_vec()],
        )
        .await?;
    }
    Ok(missing.len())
}

async fn files_in(
    tx: &mut Tx,
    tenant: TenantId,
    version: TemplateVersion,
) -> Result<Vec<TemplateFile>> {
    let rows = tx
        .query(
            "SELECT path, content FROM template_file WHERE tenant_id = $1 AND version = $2 ORDER BY path",
            params![tenant, version],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(TemplateFile {
                path: r.text(0)?,
                content: r.bytes(1)?,
            })
        })
        .collect()
}

impl Store {
    /// Stores a template folder as the tenant's next template version and activates it.
    pub async fn put_template_version(
        &self,
        tenant: TenantId,
        files: &[TemplateFile],
    ) -> Result<TemplateVersion> {
        let mut tx = self.write().await?;
        let v = put_template_version_in(&mut tx, tenant, files).await?;
        // The active version lives on the tenant row, which the host cache holds.
        self.commit_change(tx, tenant, Change::Tenant).await?;
        Ok(v)
    }

    /// Stores a template folder as the tenant's next template version, leaving the active
    /// one as it is (the site serves what it did; [`Store::switch_template_version`] makes
    /// the new one active).
    pub async fn store_template_version(
        &self,
        tenant: TenantId,
        files: &[TemplateFile],
    ) -> Result<TemplateVersion> {
        let mut tx = self.write().await?;
        let v = store_template_version_in(&mut tx, tenant, files).await?;
        tx.commit().await?;
        Ok(v)
    }

    /// Makes a stored version the tenant's active template (a newer one, or an earlier one
    /// to roll back): every node serves it from the next page. `NotFound` when the tenant
    /// has no such version.
    pub async fn switch_template_version(
        &self,
        tenant: TenantId,
        version: TemplateVersion,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        let found = tx
            .query_opt(
                "SELECT 1 FROM template_version WHERE tenant_id = $1 AND version = $2",
                params![tenant, version],
            )
            .await?;
        if found.is_none() {
            return Err(StoreError::NotFound(format!("template version {version}")));
        }
        tx.execute(
            "UPDATE tenant SET template_version = $2 WHERE id = $1",
            params![tenant, version],
        )
        .await?;
        self.commit_change(tx, tenant, Change::Tenant).await?;
        Ok(())
    }

    /// The tenant's template versions, the newest first.
    pub async fn template_versions(&self, tenant: TenantId) -> Result<Vec<TemplateVersionInfo>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT v.version, v.created_ms, \
                 (SELECT COUNT(*) FROM template_file f WHERE f.tenant_id = v.tenant_id AND f.version = v.version), \
                 (SELECT COALESCE(SUM(LENGTH(f.content)), 0) FROM template_file f WHERE f.tenant_id = v.tenant_id AND f.version = v.version) \
                 FROM template_version v WHERE v.tenant_id = $1 ORDER BY v.version DESC",
                params![tenant],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(TemplateVersionInfo {
                    version: TemplateVersion(r.i64(0)?),
                    created_ms: r.i64(1)?,
                    files: r.i64(2)?,
                    bytes: r.i64(3)?,
                })
            })
            .collect()
    }

    /// Saves the site's design (issue 44): its tweak values (`websiteSettings.tweaks`,
    /// `null` removes them) and, when the stylesheet was compiled again with them, the
    /// folder as a new template version, `files` being the version `from`'s with the new
    /// stylesheet. One transaction, so no page shows the new values with the old
    /// stylesheet; refused (`Invalid`) when the site's template version is no longer `from`
    /// (a template was uploaded meanwhile), so an upload is never undone.
    pub async fn put_design(
        &self,
        tenant: TenantId,
        tweaks: serde_json::Value,
        stylesheet: Option<(TemplateVersion, &[TemplateFile])>,
    ) -> Result<Option<TemplateVersion>> {
        let mut tx = self.write().await?;
        let current = tx
            .query_opt(
                "UPDATE tenant SET content_version = content_version WHERE id = $1 RETURNING template_version",
                params![tenant],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("tenant {tenant}")))?
            .opt_i64(0)?;
        let mut settings = super::content::settings_in(&mut tx, tenant).await?;
        if tweaks.is_null() {
            settings.website_settings.remove("tweaks");
        } else {
            settings.website_settings.insert("tweaks".into(), tweaks);
        }
        super::content::put_settings_in(&mut tx, tenant, &settings).await?;
        let mut stored = None;
        if let Some((from, files)) = stylesheet {
            if current != Some(from.0) {
                return Err(StoreError::Invalid(
                    "The site's template changed while the design was being saved; please try again."
                        .into(),
                ));
            }
            stored = Some(put_template_version_in(&mut tx, tenant, files).await?);
        }
        let change = if stored.is_some() {
            Change::Tenant
        } else {
            Change::Content
        };
        self.commit_change(tx, tenant, change).await?;
        Ok(stored)
    }

    /// All files of one template version, by path.
    pub async fn template_files(
        &self,
        tenant: TenantId,
        version: TemplateVersion,
    ) -> Result<Vec<TemplateFile>> {
        let mut tx = self.read().await?;
        files_in(&mut tx, tenant, version).await
    }

    /// One file of a template version (assets, scripts), if present.
    pub async fn template_file(
        &self,
        tenant: TenantId,
        version: TemplateVersion,
        path: &str,
    ) -> Result<Option<Vec<u8>>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                "SELECT content FROM template_file WHERE tenant_id = $1 AND version = $2 AND path = $3",
                params![tenant, version, path],
            )
            .await?;
        row.map(|r| r.bytes(0)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::check_path;

    #[test]
    fn template_paths_stay_inside_the_folder() {
        assert!(check_path("collections/blog.list").is_ok());
        for bad in ["", "/etc/passwd", "../x", "a//b", "a/./b", "a\\b"] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
