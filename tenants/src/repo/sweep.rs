//! Removing rows whose time is up (spent captcha challenges, ended member sessions), one
//! site at a time: every statement stays scoped by `tenant_id`, and no transaction holds
//! more than one site's rows.

use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::store::Store;

impl Store {
    /// Deletes the rows of `table` whose `expiry` column (epoch ms) is at or before `now`;
    /// returns how many. `table` and `expiry` are the caller's constants, never input.
    pub(crate) async fn sweep_expired(
        &self,
        table: &'static str,
        expiry: &'static str,
        now: i64,
    ) -> Result<u64> {
        let tenants: Vec<i64> = {
            let mut tx = self.read().await?;
            tx.query(
                &format!(
                    "SELECT DISTINCT tenant_id FROM {table} WHERE {expiry} <= $1 ORDER BY tenant_id"
                ),
                params![now],
            )
            .await?
            .iter()
            .map(|r| r.i64(0))
            .collect::<Result<_>>()?
        };
        let mut n = 0;
        for tenant in tenants.into_iter().map(TenantId) {
            let mut tx = self.write().await?;
            n += tx
                .execute(
                    &format!("DELETE FROM {table} WHERE tenant_id = $1 AND {expiry} <= $2"),
                    params![tenant, now],
                )
                .await?;
            tx.commit().await?;
        }
        Ok(n)
    }
}
