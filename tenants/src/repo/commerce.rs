//! Carts, stock and orders. Stock is checked and taken in the same transaction as the cart
//! change, with one conditional `UPDATE`, so concurrent buyers can never oversell:
//! PostgreSQL re-checks the condition on the locked row, SQLite has a single writer.
//!
//! Stock model: `qty_in_stock` counts the units available to new carts. Adding to a cart
//! takes units, lowering the quantity or removing an entry gives them back, and placing an
//! order keeps them taken. Carts do not bump the content version (stock is read live with
//! [`Store::stock`]), so buying does not flush the rendering caches.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::{Row, Tx};
use crate::store::Store;

/// SPEC "Quantity input: minimum 1, maximum 9999".
pub const MAX_QUANTITY: i64 = 9999;

/// A line of a cart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CartEntry {
    /// 24-hex id.
    pub id: String,
    /// The product item.
    pub item_id: String,
    /// The chosen variant.
    pub sku: String,
    /// Units.
    pub quantity: i64,
    /// Product title at the time of adding.
    pub title: String,
    /// Product type (1 physical, 2 digital, 3 service, 4 gift card).
    pub product_type: i64,
    /// ISO currency code.
    pub currency: String,
    /// Price per unit in minor units (the sale price when on sale).
    pub unit_price_minor: i64,
    /// `quantity * unit_price_minor`.
    pub sub_total_minor: i64,
    /// The additional-fields form answers, if any.
    pub additional_fields: Option<Value>,
}

/// A visitor's cart with derived totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cart {
    /// 24-hex id (kept in the visitor's cart cookie).
    pub id: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// Epoch ms of the last change.
    pub updated_ms: i64,
    /// Set when an order was placed from it.
    pub purchased: bool,
    /// The order placed from it.
    pub order_id: Option<String>,
    /// Lines in the order they were added.
    pub entries: Vec<CartEntry>,
    /// Sum of the lines, minor units.
    pub subtotal_minor: i64,
    /// Sum of the quantities.
    pub total_quantity: i64,
    /// Currency of the lines (`None` when empty).
    pub currency: Option<String>,
}

/// What "add to cart" asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddToCart {
    /// The product item.
    pub item_id: String,
    /// The variant.
    pub sku: String,
    /// Units, 1..=9999.
    pub quantity: i64,
    /// Additional-fields answers.
    #[serde(default)]
    pub additional_fields: Option<Value>,
}

/// The answer to "add to cart" (SPEC: shoppingCart, newlyAdded).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedToCart {
    /// The cart after the change.
    pub shopping_cart: Cart,
    /// The entry that was added or increased.
    pub newly_added: CartEntry,
}

/// Stock of one variant (SPEC stock response: unlimited flag and qtyInStock).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StockLevel {
    /// The variant.
    pub sku: String,
    /// Units available to new carts.
    pub qty_in_stock: i64,
    /// Stock not tracked.
    pub unlimited: bool,
}

/// Amounts the checkout adds when placing an order (minor units).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewOrder {
    /// Buyer's email.
    pub customer_email: String,
    /// Tax, minor units.
    pub tax_minor: i64,
    /// Shipping, minor units.
    pub shipping_minor: i64,
    /// Discount, minor units (subtracted).
    pub discount_minor: i64,
    /// Test-mode order (no real payment).
    pub test_mode: bool,
}

/// A line of an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    /// The product item.
    pub item_id: String,
    /// The variant.
    pub sku: String,
    /// Product title when ordered.
    pub product_name: String,
    /// Units.
    pub quantity: i64,
    /// Price per unit, minor units.
    pub unit_price_minor: i64,
}

/// A placed order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// 24-hex id.
    pub id: String,
    /// Per-tenant sequence number shown to buyers (1, 2, ...).
    pub order_number: i64,
    /// The purchased cart.
    pub cart_id: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// ISO currency code.
    pub currency: String,
    /// Sum of the lines.
    pub subtotal_minor: i64,
    /// Tax.
    pub tax_minor: i64,
    /// Shipping.
    pub shipping_minor: i64,
    /// Discount.
    pub discount_minor: i64,
    /// subtotal + tax + shipping - discount.
    pub grand_total_minor: i64,
    /// Buyer's email.
    pub customer_email: String,
    /// `placed` for now.
    pub status: String,
    /// Test-mode order.
    pub test_mode: bool,
    /// Lines.
    pub lines: Vec<OrderLine>,
}

fn check_quantity(q: i64) -> Result<()> {
    if (1..=MAX_QUANTITY).contains(&q) {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "quantity must be between 1 and {MAX_QUANTITY}, got {q}"
        )))
    }
}

/// Takes `qty` units of a variant if available; `OutOfStock` otherwise.
async fn take_stock(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: &str,
    qty: i64,
) -> Result<()> {
    let n = tx
        .execute(
            "UPDATE product_variant SET qty_in_stock = CASE WHEN unlimited THEN qty_in_stock ELSE qty_in_stock - $4 END \
             WHERE tenant_id = $1 AND item_id = $2 AND sku = $3 AND (unlimited OR qty_in_stock >= $4)",
            params![tenant, item_id, sku, qty],
        )
        .await?;
    if n == 0 {
        Err(StoreError::OutOfStock {
            sku: sku.to_owned(),
            requested: qty,
        })
    } else {
        Ok(())
    }
}

/// Gives `qty` units back (no-op for unlimited variants or deleted products).
async fn return_stock(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: &str,
    qty: i64,
) -> Result<()> {
    tx.execute(
        "UPDATE product_variant SET qty_in_stock = qty_in_stock + $4 \
         WHERE tenant_id = $1 AND item_id = $2 AND sku = $3 AND NOT unlimited",
        params![tenant, item_id, sku, qty],
    )
    .await?;
    Ok(())
}

/// Checks the cart exists and is still open.
async fn open_cart(tx: &mut Tx, tenant: TenantId, cart_id: &str) -> Result<()> {
    let row = tx
        .query_opt(
            "SELECT purchased FROM cart WHERE tenant_id = $1 AND id = $2",
            params![tenant, cart_id],
        )
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("cart {cart_id}")))?;
    if row.bool(0)? {
        return Err(StoreError::Invalid(format!(
            "cart {cart_id} was already purchased"
        )));
    }
    Ok(())
}

const ENTRY_COLUMNS: &str = "id, item_id, sku, quantity, title, product_type, currency, unit_price_minor, additional_fields";

fn entry_from_row(r: &Row) -> Result<CartEntry> {
    let quantity = r.i64(3)?;
    let unit = r.i64(7)?;
    Ok(CartEntry {
        id: r.text(0)?,
        item_id: r.text(1)?,
        sku: r.text(2)?,
        quantity,
        title: r.text(4)?,
        product_type: r.i64(5)?,
        currency: r.text(6)?,
        unit_price_minor: unit,
        sub_total_minor: quantity * unit,
        additional_fields: r
            .opt_text(8)?
            .map(|s| serde_json::from_str(&s))
            .transpose()?,
    })
}

async fn load_cart(tx: &mut Tx, tenant: TenantId, cart_id: &str) -> Result<Option<Cart>> {
    let Some(row) = tx
        .query_opt(
            "SELECT id, created_ms, updated_ms, purchased, order_id FROM cart WHERE tenant_id = $1 AND id = $2",
            params![tenant, cart_id],
        )
        .await?
    else {
        return Ok(None);
    };
    let entries = tx
        .query(
            &format!("SELECT {ENTRY_COLUMNS} FROM cart_entry WHERE tenant_id = $1 AND cart_id = $2 ORDER BY added_ms, id"),
            params![tenant, cart_id],
        )
        .await?
        .iter()
        .map(entry_from_row)
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(Cart {
        id: row.text(0)?,
        created_ms: row.i64(1)?,
        updated_ms: row.i64(2)?,
        purchased: row.bool(3)?,
        order_id: row.opt_text(4)?,
        subtotal_minor: entries.iter().map(|e| e.sub_total_minor).sum(),
        total_quantity: entries.iter().map(|e| e.quantity).sum(),
        currency: entries.first().map(|e| e.currency.clone()),
        entries,
    }))
}

async fn entry(tx: &mut Tx, tenant: TenantId, cart_id: &str, entry_id: &str) -> Result<CartEntry> {
    let row = tx
        .query_opt(
            &format!("SELECT {ENTRY_COLUMNS} FROM cart_entry WHERE tenant_id = $1 AND cart_id = $2 AND id = $3"),
            params![tenant, cart_id, entry_id],
        )
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("cart entry {entry_id}")))?;
    entry_from_row(&row)
}

async fn touch(tx: &mut Tx, tenant: TenantId, cart_id: &str) -> Result<()> {
    tx.execute(
        "UPDATE cart SET updated_ms = $3 WHERE tenant_id = $1 AND id = $2",
        params![tenant, cart_id, now_ms()],
    )
    .await?;
    Ok(())
}

impl Store {
    /// Creates an empty cart.
    pub async fn create_cart(&self, tenant: TenantId) -> Result<Cart> {
        let id = new_id();
        let now = now_ms();
        let mut tx = self.write().await?;
        tx.execute(
            "INSERT INTO cart (tenant_id, id, created_ms, updated_ms, purchased) VALUES ($1, $2, $3, $3, FALSE)",
            params![tenant, id.as_str(), now],
        )
        .await?;
        let cart = load_cart(&mut tx, tenant, &id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("cart {id}")))?;
        tx.commit().await?;
        Ok(cart)
    }

    /// A cart with its entries and totals.
    pub async fn cart(&self, tenant: TenantId, cart_id: &str) -> Result<Option<Cart>> {
        let mut tx = self.snapshot().await?;
        let cart = load_cart(&mut tx, tenant, cart_id).await?;
        tx.commit().await?;
        Ok(cart)
    }

    /// Adds units of a variant to a cart, taking them from stock in the same transaction.
    /// Adding a variant already in the cart increases that entry. Errors: `NotFound` (cart,
    /// or variant: "unavailable"), `OutOfStock`, `Invalid` (quantity outside 1..=9999,
    /// purchased cart, mixed currencies).
    pub async fn add_to_cart(
        &self,
        tenant: TenantId,
        cart_id: &str,
        add: &AddToCart,
    ) -> Result<AddedToCart> {
        check_quantity(add.quantity)?;
        let mut tx = self.write().await?;
        open_cart(&mut tx, tenant, cart_id).await?;
        let v = tx
            .query_opt(
                "SELECT i.title, i.product_type, v.currency, v.price_minor, v.sale_price_minor, v.on_sale \
                 FROM product_variant v JOIN item i ON i.tenant_id = v.tenant_id AND i.id = v.item_id \
                 WHERE v.tenant_id = $1 AND v.item_id = $2 AND v.sku = $3",
                params![tenant, add.item_id.as_str(), add.sku.as_str()],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("variant {} of item {}", add.sku, add.item_id)))?;
        let currency = v.text(2)?;
        let other = tx
            .query_opt(
                "SELECT currency FROM cart_entry WHERE tenant_id = $1 AND cart_id = $2 AND currency <> $3 LIMIT 1",
                params![tenant, cart_id, currency.as_str()],
            )
            .await?;
        if other.is_some() {
            return Err(StoreError::Invalid(format!(
                "cart {cart_id} holds another currency than {currency}"
            )));
        }
        if let Err(e) = take_stock(&mut tx, tenant, &add.item_id, &add.sku, add.quantity).await {
            tx.rollback().await?;
            return Err(e);
        }
        let unit = if v.bool(5)? { v.i64(4)? } else { v.i64(3)? };
        let fields = add.additional_fields.as_ref().map(|f| f.to_string());
        let row = tx
            .query_one(
                "INSERT INTO cart_entry (tenant_id, id, cart_id, item_id, sku, quantity, title, product_type, currency, \
                 unit_price_minor, additional_fields, added_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                 ON CONFLICT (tenant_id, cart_id, item_id, sku) DO UPDATE SET quantity = cart_entry.quantity + EXCLUDED.quantity, \
                 additional_fields = COALESCE(EXCLUDED.additional_fields, cart_entry.additional_fields) RETURNING id",
                params![
                    tenant,
                    new_id(),
                    cart_id,
                    add.item_id.as_str(),
                    add.sku.as_str(),
                    add.quantity,
                    v.text(0)?,
                    v.opt_i64(1)?.unwrap_or(1),
                    currency.as_str(),
                    unit,
                    fields,
                    now_ms()
                ],
            )
            .await?;
        let entry_id = row.text(0)?;
        touch(&mut tx, tenant, cart_id).await?;
        let newly_added = entry(&mut tx, tenant, cart_id, &entry_id).await?;
        let shopping_cart = load_cart(&mut tx, tenant, cart_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(cart_id.into()))?;
        tx.commit().await?;
        Ok(AddedToCart {
            shopping_cart,
            newly_added,
        })
    }

    /// Sets an entry's quantity (0 removes it), taking or returning the difference in stock.
    pub async fn set_entry_quantity(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
        quantity: i64,
    ) -> Result<Cart> {
        if quantity != 0 {
            check_quantity(quantity)?;
        }
        let mut tx = self.write().await?;
        open_cart(&mut tx, tenant, cart_id).await?;
        let e = entry(&mut tx, tenant, cart_id, entry_id).await?;
        let delta = quantity - e.quantity;
        if delta > 0 {
            if let Err(err) = take_stock(&mut tx, tenant, &e.item_id, &e.sku, delta).await {
                tx.rollback().await?;
                return Err(err);
            }
        } else if delta < 0 {
            return_stock(&mut tx, tenant, &e.item_id, &e.sku, -delta).await?;
        }
        if quantity == 0 {
            tx.execute(
                "DELETE FROM cart_entry WHERE tenant_id = $1 AND id = $2",
                params![tenant, entry_id],
            )
            .await?;
        } else {
            tx.execute(
                "UPDATE cart_entry SET quantity = $3 WHERE tenant_id = $1 AND id = $2",
                params![tenant, entry_id, quantity],
            )
            .await?;
        }
        touch(&mut tx, tenant, cart_id).await?;
        let cart = load_cart(&mut tx, tenant, cart_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(cart_id.into()))?;
        tx.commit().await?;
        Ok(cart)
    }

    /// Removes an entry and returns its units to stock.
    pub async fn remove_entry(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
    ) -> Result<Cart> {
        self.set_entry_quantity(tenant, cart_id, entry_id, 0).await
    }

    /// Replaces an entry's additional-fields answers (SPEC: shoppingCart, updatedEntry).
    pub async fn set_entry_fields(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
        fields: &Value,
    ) -> Result<(Cart, CartEntry)> {
        let mut tx = self.write().await?;
        open_cart(&mut tx, tenant, cart_id).await?;
        let n = tx
            .execute(
                "UPDATE cart_entry SET additional_fields = $4 WHERE tenant_id = $1 AND cart_id = $2 AND id = $3",
                params![tenant, cart_id, entry_id, fields.to_string()],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("cart entry {entry_id}")));
        }
        let updated = entry(&mut tx, tenant, cart_id, entry_id).await?;
        let cart = load_cart(&mut tx, tenant, cart_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(cart_id.into()))?;
        tx.commit().await?;
        Ok((cart, updated))
    }

    /// Live stock of every variant of a product (SPEC stock results).
    pub async fn stock(&self, tenant: TenantId, item_id: &str) -> Result<Vec<StockLevel>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT sku, qty_in_stock, unlimited FROM product_variant WHERE tenant_id = $1 AND item_id = $2 ORDER BY position",
                params![tenant, item_id],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(StockLevel {
                    sku: r.text(0)?,
                    qty_in_stock: r.i64(1)?,
                    unlimited: r.bool(2)?,
                })
            })
            .collect()
    }

    /// Sets a variant's stock (owner restock). Returns `NotFound` for an unknown variant.
    pub async fn set_stock(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        qty: i64,
        unlimited: bool,
    ) -> Result<()> {
        if qty < 0 {
            return Err(StoreError::Invalid("stock must not be negative".into()));
        }
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "UPDATE product_variant SET qty_in_stock = $4, unlimited = $5 WHERE tenant_id = $1 AND item_id = $2 AND sku = $3",
                params![tenant, item_id, sku, qty, unlimited],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!(
                "variant {sku} of item {item_id}"
            )));
        }
        tx.commit().await
    }

    /// Deletes this tenant's carts that were not purchased and last changed before
    /// `updated_before_ms` (epoch ms; pass `now_ms() - idle`), returning their units to
    /// stock; returns how many carts were released. Adding to a cart holds stock, so a
    /// server that takes carts must run this periodically for every tenant (a visitor who
    /// comes back with a released cart's cookie simply gets a new cart). `serve` has no cart
    /// routes yet, so nothing there holds stock and nothing schedules this.
    pub async fn release_abandoned_carts(
        &self,
        tenant: TenantId,
        updated_before_ms: i64,
    ) -> Result<u64> {
        let cutoff = updated_before_ms;
        let mut tx = self.write().await?;
        let held = tx
            .query(
                "SELECT e.item_id, e.sku, CAST(SUM(e.quantity) AS BIGINT) FROM cart_entry e \
                 JOIN cart c ON c.tenant_id = e.tenant_id AND c.id = e.cart_id \
                 WHERE e.tenant_id = $1 AND NOT c.purchased AND c.updated_ms < $2 GROUP BY e.item_id, e.sku",
                params![tenant, cutoff],
            )
            .await?;
        for r in &held {
            return_stock(&mut tx, tenant, &r.text(0)?, &r.text(1)?, r.i64(2)?).await?;
        }
        let n = tx
            .execute(
                "DELETE FROM cart WHERE tenant_id = $1 AND NOT purchased AND updated_ms < $2",
                params![tenant, cutoff],
            )
            .await?;
        tx.commit().await?;
        Ok(n)
    }

    /// Places an order from an open, non-empty cart: numbers it, copies the lines, marks
    /// the cart purchased. The stock was taken when the units were added.
    pub async fn place_order(
        &self,
        tenant: TenantId,
        cart_id: &str,
        new: &NewOrder,
    ) -> Result<Order> {
        if new.tax_minor < 0 || new.shipping_minor < 0 || new.discount_minor < 0 {
            return Err(StoreError::Invalid(
                "order amounts must not be negative".into(),
            ));
        }
        let mut tx = self.write().await?;
        open_cart(&mut tx, tenant, cart_id).await?;
        let cart = load_cart(&mut tx, tenant, cart_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(cart_id.into()))?;
        if cart.entries.is_empty() {
            return Err(StoreError::Invalid(format!("cart {cart_id} is empty")));
        }
        let number = tx
            .query_one(
                "UPDATE tenant SET order_seq = order_seq + 1 WHERE id = $1 RETURNING order_seq",
                params![tenant],
            )
            .await?
            .i64(0)?;
        let order = Order {
            id: new_id(),
            order_number: number,
            cart_id: cart_id.to_owned(),
            created_ms: now_ms(),
            currency: cart.currency.clone().unwrap_or_default(),
            subtotal_minor: cart.subtotal_minor,
            tax_minor: new.tax_minor,
            shipping_minor: new.shipping_minor,
            discount_minor: new.discount_minor,
            grand_total_minor: cart.subtotal_minor + new.tax_minor + new.shipping_minor
                - new.discount_minor,
            customer_email: new.customer_email.clone(),
            status: "placed".into(),
            test_mode: new.test_mode,
            lines: cart
                .entries
                .iter()
                .map(|e| OrderLine {
                    item_id: e.item_id.clone(),
                    sku: e.sku.clone(),
                    product_name: e.title.clone(),
                    quantity: e.quantity,
                    unit_price_minor: e.unit_price_minor,
                })
                .collect(),
        };
        tx.execute(
            "INSERT INTO customer_order (tenant_id, id, order_number, cart_id, created_ms, currency, subtotal_minor, \
             tax_minor, shipping_minor, discount_minor, grand_total_minor, customer_email, status, test_mode) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            params![
                tenant,
                order.id.as_str(),
                order.order_number,
                cart_id,
                order.created_ms,
                order.currency.as_str(),
                order.subtotal_minor,
                order.tax_minor,
                order.shipping_minor,
                order.discount_minor,
                order.grand_total_minor,
                order.customer_email.as_str(),
                order.status.as_str(),
                order.test_mode
            ],
        )
        .await?;
        for (pos, l) in order.lines.iter().enumerate() {
            tx.execute(
                "INSERT INTO order_line (tenant_id, order_id, position, item_id, sku, product_name, quantity, unit_price_minor) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                params![
                    tenant,
                    order.id.as_str(),
                    pos as i64,
                    l.item_id.as_str(),
                    l.sku.as_str(),
                    l.product_name.as_str(),
                    l.quantity,
                    l.unit_price_minor
                ],
            )
            .await?;
        }
        tx.execute(
            "UPDATE cart SET purchased = TRUE, order_id = $3, updated_ms = $4 WHERE tenant_id = $1 AND id = $2",
            params![tenant, cart_id, order.id.as_str(), now_ms()],
        )
        .await?;
        tx.commit().await?;
        Ok(order)
    }

    /// One order with its lines.
    pub async fn order(&self, tenant: TenantId, order_id: &str) -> Result<Option<Order>> {
        let mut tx = self.snapshot().await?;
        let mut orders = load_orders(&mut tx, tenant, "AND id = $2", params![order_id]).await?;
        tx.commit().await?;
        Ok(orders.pop())
    }

    /// The tenant's orders, newest first.
    pub async fn orders(&self, tenant: TenantId) -> Result<Vec<Order>> {
        let mut tx = self.snapshot().await?;
        let orders = load_orders(&mut tx, tenant, "", params![]).await?;
        tx.commit().await?;
        Ok(orders)
    }
}

async fn load_orders(
    tx: &mut Tx,
    tenant: TenantId,
    filter: &str,
    extra: Vec<crate::sql::SqlValue>,
) -> Result<Vec<Order>> {
    let mut p = params![tenant];
    p.extend(extra);
    let rows = tx
        .query(
            &format!(
                "SELECT id, order_number, cart_id, created_ms, currency, subtotal_minor, tax_minor, shipping_minor, \
                 discount_minor, grand_total_minor, customer_email, status, test_mode FROM customer_order \
                 WHERE tenant_id = $1 {filter} ORDER BY order_number DESC"
            ),
            p,
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let id = r.text(0)?;
        let lines = tx
            .query(
                "SELECT item_id, sku, product_name, quantity, unit_price_minor FROM order_line \
                 WHERE tenant_id = $1 AND order_id = $2 ORDER BY position",
                params![tenant, id.as_str()],
            )
            .await?
            .iter()
            .map(|l| {
                Ok(OrderLine {
                    item_id: l.text(0)?,
                    sku: l.text(1)?,
                    product_name: l.text(2)?,
                    quantity: l.i64(3)?,
                    unit_price_minor: l.i64(4)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        out.push(Order {
            id,
            order_number: r.i64(1)?,
            cart_id: r.text(2)?,
            created_ms: r.i64(3)?,
            currency: r.text(4)?,
            subtotal_minor: r.i64(5)?,
            tax_minor: r.i64(6)?,
            shipping_minor: r.i64(7)?,
            discount_minor: r.i64(8)?,
            grand_total_minor: r.i64(9)?,
            customer_email: r.text(10)?,
            status: r.text(11)?,
            test_mode: r.bool(12)?,
            lines,
        });
    }
    Ok(out)
}
