//! The files digital products deliver, and the download of one by a paid order.

use super::orders::load_order;
use crate::commerce::Refusal;
use crate::commerce::pricing::product_type;
use crate::error::{Result, StoreError};
use crate::ids::TenantId;
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

/// A digital product's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigitalFile {
    /// The name the buyer's download gets (`care-guide.pdf`).
    pub file_name: String,
    /// MIME type.
    pub content_type: String,
    /// The bytes.
    pub content: Vec<u8>,
}

pub(crate) async fn put_digital_file_in(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    file: &DigitalFile,
) -> Result<()> {
    tx.execute(
        "INSERT INTO digital_file (tenant_id, item_id, file_name, content_type, content) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (tenant_id, item_id) DO UPDATE SET file_name = EXCLUDED.file_name, \
         content_type = EXCLUDED.content_type, content = EXCLUDED.content",
        params![tenant, item_id, file.file_name.as_str(), file.content_type.as_str(), file.content.clone()],
    )
    .await?;
    Ok(())
}

/// The site's upload `asset` as the file `item_id` delivers, taken out of the uploads (so
/// it is no longer served at its public address); `NotFound` without such an upload.
pub(crate) async fn digital_file_from_asset_in(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    asset: &str,
) -> Result<()> {
    let n = tx
        .execute(
            "INSERT INTO digital_file (tenant_id, item_id, file_name, content_type, content) \
             SELECT tenant_id, $2, file_name, content_type, content FROM site_asset \
             WHERE tenant_id = $1 AND id = $3 \
             ON CONFLICT (tenant_id, item_id) DO UPDATE SET file_name = EXCLUDED.file_name, \
             content_type = EXCLUDED.content_type, content = EXCLUDED.content",
            params![tenant, item_id, asset],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("upload {asset}")));
    }
    tx.execute(
        "DELETE FROM site_asset WHERE tenant_id = $1 AND id = $2",
        params![tenant, asset],
    )
    .await?;
    Ok(())
}

impl Store {
    /// Sets the file a digital product delivers.
    pub async fn put_digital_file(
        &self,
        tenant: TenantId,
        item_id: &str,
        file: &DigitalFile,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        put_digital_file_in(&mut tx, tenant, item_id, file).await?;
        tx.commit().await
    }

    /// The name of the file a digital product delivers, without its bytes.
    pub async fn digital_file_name(
        &self,
        tenant: TenantId,
        item_id: &str,
    ) -> Result<Option<String>> {
        let mut tx = self.read().await?;
        tx.query_opt(
            "SELECT file_name FROM digital_file WHERE tenant_id = $1 AND item_id = $2",
            params![tenant, item_id],
        )
        .await?
        .map(|r| r.text(0))
        .transpose()
    }

    /// The file of a digital line of an order, for its buyer: `NotFound` when the order, the
    /// line or the file is not there or the line is not a digital product, `Refused(NotPaid)`
    /// while the order waits for payment.
    pub async fn download(
        &self,
        tenant: TenantId,
        order_id: &str,
        line_position: i64,
    ) -> Result<DigitalFile> {
        let mut tx = self.snapshot().await?;
        let order = load_order(&mut tx, tenant, order_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("order {order_id}")))?;
        let line = order
            .lines
            .iter()
            .find(|l| l.position == line_position && l.product_type == product_type::DIGITAL)
            .ok_or_else(|| {
                StoreError::NotFound(format!("digital line {line_position} of order {order_id}"))
            })?;
        if !order.paid_and_standing() {
            return Err(StoreError::Refused(Refusal::NotPaid));
        }
        let row = tx
            .query_opt(
                "SELECT file_name, content_type, content FROM digital_file WHERE tenant_id = $1 AND item_id = $2",
                params![tenant, line.item_id.as_str()],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("the file of item {}", line.item_id)))?;
        tx.commit().await?;
        Ok(DigitalFile {
            file_name: row.text(0)?,
            content_type: row.text(1)?,
            content: row.bytes(2)?,
        })
    }
}
