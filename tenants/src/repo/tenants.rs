//! Tenants, their statuses and domains, and `Host` header → tenant resolution (cached).

use std::sync::Arc;

use crate::cache::Change;
use crate::error::{Result, StoreError};
use crate::ids::{TemplateVersion, TenantId, now_ms};
use crate::model::{Domain, Tenant, WebsiteStatus};
use crate::params;
use crate::sql::{Row, SqlValue, Tx};
use crate::store::Store;

/// A tenant row's columns, and the active template version's content hash (a scalar
/// subquery: one row per tenant, no join to get wrong).
const TENANT_COLUMNS: &str = "t.id, t.identifier, t.name, t.status, t.content_version, t.template_version, t.created_ms, \
     (SELECT v.content_hash FROM template_version v WHERE v.tenant_id = t.id AND v.version = t.template_version)";

fn tenant_from_row(r: &Row) -> Result<Tenant> {
    Ok(Tenant {
        id: TenantId(r.i64(0)?),
        identifier: r.text(1)?,
        name: r.text(2)?,
        status: WebsiteStatus::from_code(r.i64(3)?)?,
        content_version: r.i64(4)?,
        template_version: r.opt_i64(5)?.map(TemplateVersion),
        created_ms: r.i64(6)?,
        // A hash of another length (never written) is as good as none: the files decide.
        template_hash: r
            .opt_bytes(7)?
            .and_then(|h| <[u8; 32]>::try_from(h.as_slice()).ok()),
    })
}

/// Normalises a `Host` header value to the stored form: port dropped, lower-case, no
/// trailing dot. IPv6 literals keep their brackets (`[::1]:8080` → `[::1]`).
///
/// Rejects empty hosts and characters that cannot appear in a host name, so header junk
/// never reaches the database.
pub fn normalize_host(raw: &str) -> Result<String> {
    let raw = raw.trim();
    let host = if raw.starts_with('[') {
        match raw.find(']') {
            Some(end) => &raw[..=end],
            None => return Err(StoreError::Invalid(format!("bad host {raw:?}"))),
        }
    } else {
        raw.split(':').next().unwrap_or("")
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let valid = !host.is_empty()
        && host.len() <= 253
        && host.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'[' | b']' | b':')
        });
    if !valid {
        return Err(StoreError::Invalid(format!("bad host {raw:?}")));
    }
    Ok(host)
}

/// Validates a tenant identifier: 1-63 characters of `a-z 0-9 -`.
fn check_identifier(identifier: &str) -> Result<()> {
    let ok = !identifier.is_empty()
        && identifier.len() <= 63
        && identifier
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "tenant identifier {identifier:?} must be 1-63 characters of a-z, 0-9 and -"
        )))
    }
}

pub(crate) async fn insert_tenant(
    tx: &mut Tx,
    identifier: &str,
    name: &str,
    status: WebsiteStatus,
) -> Result<Tenant> {
    check_identifier(identifier)?;
    let row = tx
        .query_one(
            "INSERT INTO tenant (identifier, name, status, created_ms) VALUES ($1, $2, $3, $4) \
             RETURNING id, identifier, name, status, content_version, template_version, created_ms, NULL",
            params![identifier, name, status.code(), now_ms()],
        )
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => {
                StoreError::Conflict(format!("tenant identifier {identifier:?} is taken"))
            }
            e => e,
        })?;
    let tenant = tenant_from_row(&row)?;
    // Its signing secret is made with it, so no page view ever writes one.
    crate::repo::secrets::insert_in(tx, tenant.id).await?;
    Ok(tenant)
}

pub(crate) async fn insert_domain(
    tx: &mut Tx,
    tenant: TenantId,
    host: &str,
    primary: bool,
) -> Result<()> {
    let host = normalize_host(host)?;
    if primary {
        tx.execute(
            "UPDATE tenant_domain SET is_primary = FALSE WHERE tenant_id = $1",
            params![tenant],
        )
        .await?;
    }
    tx.execute(
        "INSERT INTO tenant_domain (host, tenant_id, is_primary) VALUES ($1, $2, $3)",
        params![host.as_str(), tenant, primary],
    )
    .await
    .map_err(|e| match e {
        StoreError::Conflict(_) => StoreError::Conflict(format!("domain {host} is already in use")),
        e => e,
    })?;
    Ok(())
}

impl Store {
    /// Creates a tenant (status, unique identifier) with no content.
    pub async fn create_tenant(
        &self,
        identifier: &str,
        name: &str,
        status: WebsiteStatus,
    ) -> Result<Tenant> {
        let mut tx = self.write().await?;
        let t = insert_tenant(&mut tx, identifier, name, status).await?;
        self.commit_change(tx, t.id, Change::Tenant).await?;
        self.tenant(t.id).await
    }

    /// The tenant with this id.
    pub async fn tenant(&self, tenant: TenantId) -> Result<Tenant> {
        let mut tx = self.read().await?;
        tenant_in(&mut tx, tenant).await
    }

    /// The tenant with this identifier, if any.
    pub async fn tenant_by_identifier(&self, identifier: &str) -> Result<Option<Tenant>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!("SELECT {TENANT_COLUMNS} FROM tenant t WHERE t.identifier = $1"),
                params![identifier],
            )
            .await?;
        row.as_ref().map(tenant_from_row).transpose()
    }

    /// All tenants, by id.
    pub async fn tenants(&self) -> Result<Vec<Tenant>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                &format!("SELECT {TENANT_COLUMNS} FROM tenant t ORDER BY t.id"),
                params![],
            )
            .await?;
        rows.iter().map(tenant_from_row).collect()
    }

    /// Deletes a tenant and, through the schema's cascades, every row it owns.
    pub async fn delete_tenant(&self, tenant: TenantId) -> Result<()> {
        let mut tx = self.write().await?;
        let n = tx
            .execute("DELETE FROM tenant WHERE id = $1", params![tenant])
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("tenant {tenant}")));
        }
        if tx.backend() == crate::sql::Backend::Postgres {
            let payload = format!("{tenant}:{}:0", Change::Tenant.as_str());
            tx.query(
                "SELECT pg_notify($1, $2)",
                params![crate::notify::CHANNEL, payload],
            )
            .await?;
        }
        tx.commit().await?;
        self.inner.caches.changed(tenant, Change::Tenant, 0).await;
        Ok(())
    }

    /// Changes a tenant's status.
    pub async fn set_status(&self, tenant: TenantId, status: WebsiteStatus) -> Result<()> {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE tenant SET status = $2 WHERE id = $1",
            params![tenant, status.code()],
        )
        .await?;
        self.commit_change(tx, tenant, Change::Tenant).await?;
        Ok(())
    }

    /// Adds a domain; `primary` makes it the canonical one (clearing the previous primary).
    /// Fails with `Conflict` if any tenant already has that host.
    pub async fn add_domain(&self, tenant: TenantId, host: &str, primary: bool) -> Result<()> {
        let mut tx = self.write().await?;
        insert_domain(&mut tx, tenant, host, primary).await?;
        self.commit_change(tx, tenant, Change::Tenant).await?;
        Ok(())
    }

    /// Removes a domain of this tenant; `NotFound` if this tenant does not own it.
    pub async fn remove_domain(&self, tenant: TenantId, host: &str) -> Result<()> {
        let host = normalize_host(host)?;
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "DELETE FROM tenant_domain WHERE tenant_id = $1 AND host = $2",
                params![tenant, host.as_str()],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("domain {host}")));
        }
        self.commit_change(tx, tenant, Change::Tenant).await?;
        Ok(())
    }

    /// The tenant's domains, primary first.
    pub async fn domains(&self, tenant: TenantId) -> Result<Vec<Domain>> {
        let mut tx = self.read().await?;
        domains_in(&mut tx, tenant).await
    }

    /// The tenant a person names on a command line: by identifier, else by one of its
    /// domains.
    pub async fn tenant_by_name(&self, name: &str) -> Result<Option<Tenant>> {
        if let Some(t) = self.tenant_by_identifier(name).await? {
            return Ok(Some(t));
        }
        match self.tenant_by_host(name).await {
            Ok(found) => Ok(found.map(|t| (*t).clone())),
            // A name that cannot be a host name is simply no site.
            Err(StoreError::Invalid(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Resolves a `Host` header (with or without port, any case) to its tenant. Cached,
    /// including misses; domain, status and template-version changes invalidate the cache
    /// on every node. The returned `content_version` is not kept current by content writes:
    /// read [`Store::site_content`] for content. `Ok(None)` for an unknown host;
    /// `Err(Invalid)` for a malformed one.
    pub async fn tenant_by_host(&self, host: &str) -> Result<Option<Arc<Tenant>>> {
        let host = normalize_host(host)?;
        self.revalidate_caches().await?;
        let caches = &self.inner.caches;
        // While notifications may be missed, and for a load that ran across a flush, the
        // database answers (see `cache.rs`, "Unsynced").
        let epoch = caches.epoch();
        if caches.synced() {
            let store = self.clone();
            let key = host.clone();
            let wanted = host.clone();
            let got = caches
                .hosts
                .try_get_with(key, async move {
                    store
                        .load_tenant_by_host(&wanted)
                        .await
                        .map(|t| t.map(Arc::new))
                })
                .await
                .map_err(|e| (*e).clone_lossy())?;
            if caches.epoch() == epoch {
                return Ok(got);
            }
        }
        self.load_tenant_by_host(&host)
            .await
            .map(|t| t.map(Arc::new))
    }

    async fn load_tenant_by_host(&self, host: &str) -> Result<Option<Tenant>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!("SELECT {TENANT_COLUMNS} FROM tenant_domain d JOIN tenant t ON t.id = d.tenant_id WHERE d.host = $1"),
                params![host],
            )
            .await?;
        row.as_ref().map(tenant_from_row).transpose()
    }
}

/// The statement [`tenant_from`] reads.
pub(crate) fn tenant_query(tenant: TenantId) -> (String, Vec<SqlValue>) {
    (
        format!("SELECT {TENANT_COLUMNS} FROM tenant t WHERE t.id = $1"),
        params![tenant],
    )
}

/// The tenant of [`tenant_query`]'s rows (`NotFound` when there are none).
pub(crate) fn tenant_from(rows: &[Row], tenant: TenantId) -> Result<Tenant> {
    let row = rows
        .first()
        .ok_or_else(|| StoreError::NotFound(format!("tenant {tenant}")))?;
    tenant_from_row(row)
}

pub(crate) async fn tenant_in(tx: &mut Tx, tenant: TenantId) -> Result<Tenant> {
    let (sql, params) = tenant_query(tenant);
    tenant_from(&tx.query(&sql, params).await?, tenant)
}

/// The statement [`domains_from`] reads.
pub(crate) fn domains_query(tenant: TenantId) -> (String, Vec<SqlValue>) {
    (
        "SELECT host, is_primary FROM tenant_domain WHERE tenant_id = $1 ORDER BY is_primary DESC, host".into(),
        params![tenant],
    )
}

pub(crate) fn domains_from(rows: &[Row]) -> Result<Vec<Domain>> {
    rows.iter()
        .map(|r| {
            Ok(Domain {
                host: r.text(0)?,
                primary: r.bool(1)?,
            })
        })
        .collect()
}

pub(crate) async fn domains_in(tx: &mut Tx, tenant: TenantId) -> Result<Vec<Domain>> {
    let (sql, params) = domains_query(tenant);
    domains_from(&tx.query(&sql, params).await?)
}

impl StoreError {
    /// A copy of a shared error (moka hands loader errors out as `Arc`).
    pub(crate) fn clone_lossy(&self) -> StoreError {
        match self {
            StoreError::NotFound(s) => StoreError::NotFound(s.clone()),
            StoreError::Conflict(s) => StoreError::Conflict(s.clone()),
            StoreError::OutOfStock { sku, requested } => StoreError::OutOfStock {
                sku: sku.clone(),
                requested: *requested,
            },
            StoreError::Invalid(s) => StoreError::Invalid(s.clone()),
            StoreError::Refused(r) => StoreError::Refused(r.clone()),
            StoreError::Illegal(r) => StoreError::Illegal(r.clone()),
            StoreError::Migration(s) => StoreError::Migration(s.clone()),
            StoreError::Postgres(s) => StoreError::Postgres(s.clone()),
            StoreError::Sqlite(s) => StoreError::Sqlite(s.clone()),
            StoreError::Decode(s) => StoreError::Decode(s.clone()),
            StoreError::Io(s) => StoreError::Io(s.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_host;

    #[test]
    fn hosts_lose_port_case_and_trailing_dot() {
        assert_eq!(
            normalize_host("Shop.Example.COM:8080").unwrap(),
            "shop.example.com"
        );
        assert_eq!(normalize_host("example.com.").unwrap(), "example.com");
        assert_eq!(normalize_host("[::1]:3000").unwrap(), "[::1]");
        assert!(normalize_host("").is_err());
        assert!(normalize_host("bad host").is_err());
        assert!(normalize_host("a/b").is_err());
    }
}
