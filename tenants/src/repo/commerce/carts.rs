//! Carts: creating them, their entries (taking and giving back stock), coupons and the
//! shipping location and choice.

use std::collections::BTreeMap;

use serde_json::Value;

use super::stock::{return_stock, take_stock};
use super::{AddToCart, AddedToCart, Cart, CartEntry, CartKind, MAX_QUANTITY};
use crate::commerce::Refusal;
use crate::commerce::pricing::{CouponProblem, Location, coupon_problem, product_type};
use crate::commerce::settings::{CommerceSettings, normalize_coupon_code};
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::{Row, Tx};
use crate::store::Store;

fn refused<T>(r: Refusal) -> Result<T> {
    Err(StoreError::Refused(r))
}

fn check_quantity(q: i64) -> Result<()> {
    if (1..=MAX_QUANTITY).contains(&q) {
        Ok(())
    } else {
        refused(Refusal::QuantityOutOfRange)
    }
}

/// Starts a change to an open cart: bumps its revision and last-change time, which on
/// PostgreSQL also locks the row until the transaction ends. `NotFound` for no such cart,
/// `CartPurchased` for one already checked out.
pub(super) async fn lock_cart(tx: &mut Tx, tenant: TenantId, cart_id: &str) -> Result<CartKind> {
    let row = tx
        .query_opt(
            "UPDATE cart SET updated_ms = $3, revision = revision + 1 \
             WHERE tenant_id = $1 AND id = $2 AND NOT purchased RETURNING kind",
            params![tenant, cart_id, now_ms()],
        )
        .await?;
    if let Some(row) = row {
        return Ok(CartKind::parse(&row.text(0)?));
    }
    let exists = tx
        .query_opt(
            "SELECT purchased FROM cart WHERE tenant_id = $1 AND id = $2",
            params![tenant, cart_id],
        )
        .await?;
    match exists {
        Some(_) => refused(Refusal::CartPurchased),
        None => Err(StoreError::NotFound(format!("cart {cart_id}"))),
    }
}

const ENTRY_COLUMNS: &str = "id, item_id, sku, quantity, title, product_type, currency, unit_price_minor, \
                             additional_fields, weight_grams, attributes, held";

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
        weight_grams: r.i64(9)?,
        attributes: r.json(10)?,
        held: r.bool(11)?,
    })
}

pub(super) async fn load_cart(
    tx: &mut Tx,
    tenant: TenantId,
    cart_id: &str,
) -> Result<Option<Cart>> {
    let Some(row) = tx
        .query_opt(
            "SELECT id, kind, created_ms, updated_ms, revision, purchased, order_id, shipping_country, \
             shipping_region, shipping_postal_code, shipping_option_id FROM cart WHERE tenant_id = $1 AND id = $2",
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
    let coupons = tx
        .query(
            "SELECT code FROM cart_coupon WHERE tenant_id = $1 AND cart_id = $2 ORDER BY added_ms, code",
            params![tenant, cart_id],
        )
        .await?
        .iter()
        .map(|r| r.text(0))
        .collect::<Result<Vec<_>>>()?;
    let shipping_location = row.opt_text(7)?.map(|country| -> Result<Location> {
        Ok(Location {
            country,
            region: row.opt_text(8)?,
            postal_code: row.opt_text(9)?,
        })
    });
    Ok(Some(Cart {
        id: row.text(0)?,
        kind: CartKind::parse(&row.text(1)?),
        created_ms: row.i64(2)?,
        updated_ms: row.i64(3)?,
        revision: row.i64(4)?,
        purchased: row.bool(5)?,
        order_id: row.opt_text(6)?,
        subtotal_minor: entries.iter().map(|e| e.sub_total_minor).sum(),
        total_quantity: entries.iter().map(|e| e.quantity).sum(),
        currency: entries.first().map(|e| e.currency.clone()),
        shipping_location: shipping_location.transpose()?,
        shipping_option_id: row.opt_text(10)?,
        coupons,
        entries,
    }))
}

async fn reload(tx: &mut Tx, tenant: TenantId, cart_id: &str) -> Result<Cart> {
    load_cart(tx, tenant, cart_id)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("cart {cart_id}")))
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

/// The variant an add-to-cart resolves to, with what the entry copies from it.
struct Chosen {
    sku: String,
    title: String,
    product_type: i64,
    currency: String,
    unit_price_minor: i64,
    weight_grams: i64,
    attributes: BTreeMap<String, String>,
}

/// Finds the product and the variant `add` asks for, applying the product rules: an item
/// that is not a product is `NotFound`; a sku that is not one of its variants is unavailable;
/// no sku is fine for a product with one variant, else the options (or, for a gift card, the
/// denomination) must be chosen; subscription products go through subscription checkout.
async fn choose(tx: &mut Tx, tenant: TenantId, add: &AddToCart, kind: CartKind) -> Result<Chosen> {
    let item = tx
        .query_opt(
            "SELECT title, product_type, structured_content FROM item WHERE tenant_id = $1 AND id = $2",
            params![tenant, add.item_id.as_str()],
        )
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("item {}", add.item_id)))?;
    let structured: serde_json::Map<String, Value> = item.json(2)?;
    let product_type = item.opt_i64(1)?.unwrap_or(product_type::PHYSICAL);
    let variants = tx
        .query(
            "SELECT sku, attributes, currency, price_minor, sale_price_minor, on_sale, weight_grams \
             FROM product_variant WHERE tenant_id = $1 AND item_id = $2 ORDER BY position",
            params![tenant, add.item_id.as_str()],
        )
        .await?;
    if variants.is_empty() {
        return Err(StoreError::NotFound(format!("product {}", add.item_id)));
    }
    let subscribable = structured.get("isSubscribable").and_then(Value::as_bool) == Some(true);
    match kind {
        CartKind::Cart if subscribable => return refused(Refusal::SubscriptionOnly),
        CartKind::Subscription if !subscribable => return refused(Refusal::NotSubscribable),
        _ => {}
    }
    let row = if add.sku.is_empty() {
        if product_type == product_type::GIFT_CARD {
            return refused(Refusal::NoDenomination);
        }
        if variants.len() > 1 {
            return refused(Refusal::OptionsNotChosen(option_names(
                &structured,
                &variants,
            )?));
        }
        &variants[0]
    } else {
        let mut found = None;
        for v in &variants {
            if v.text(0)? == add.sku {
                found = Some(v);
            }
        }
        match found {
            Some(v) => v,
            None => return refused(Refusal::VariantUnavailable),
        }
    };
    Ok(Chosen {
        sku: row.text(0)?,
        title: item.text(0)?,
        product_type,
        currency: row.text(2)?,
        unit_price_minor: if row.bool(5)? {
            row.i64(4)?
        } else {
            row.i64(3)?
        },
        weight_grams: row.i64(6)?,
        attributes: row.json(1)?,
    })
}

/// A product's option names: `variantOptionOrdering` when set, else the variants' attribute
/// names in first-seen order.
fn option_names(
    structured: &serde_json::Map<String, Value>,
    variants: &[Row],
) -> Result<Vec<String>> {
    if let Some(order) = structured
        .get("variantOptionOrdering")
        .and_then(Value::as_array)
    {
        let names: Vec<String> = order
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        if !names.is_empty() {
            return Ok(names);
        }
    }
    let mut names: Vec<String> = Vec::new();
    for v in variants {
        let attrs: BTreeMap<String, String> = v.json(1)?;
        for k in attrs.into_keys() {
            if !names.contains(&k) {
                names.push(k);
            }
        }
    }
    Ok(names)
}

/// Adds (or grows) the entry for `add` in an open cart, taking the units from stock.
async fn add_in(
    tx: &mut Tx,
    tenant: TenantId,
    cart_id: &str,
    add: &AddToCart,
    kind: CartKind,
) -> Result<String> {
    check_quantity(add.quantity)?;
    let chosen = choose(tx, tenant, add, kind).await?;
    let other_currency = tx
        .query_opt(
            "SELECT currency FROM cart_entry WHERE tenant_id = $1 AND cart_id = $2 AND currency <> $3 LIMIT 1",
            params![tenant, cart_id, chosen.currency.as_str()],
        )
        .await?;
    if other_currency.is_some() {
        return refused(Refusal::CurrencyMismatch);
    }
    let existing = tx
        .query_opt(
            "SELECT id, quantity, held FROM cart_entry WHERE tenant_id = $1 AND cart_id = $2 AND item_id = $3 AND sku = $4",
            params![tenant, cart_id, add.item_id.as_str(), chosen.sku.as_str()],
        )
        .await?;
    let single = add.single_service && chosen.product_type == product_type::SERVICE;
    if single && (add.quantity != 1 || existing.is_some()) {
        return refused(Refusal::SingleService);
    }
    let fields = add.additional_fields.as_ref().map(Value::to_string);
    let entry_id = match existing {
        Some(row) => {
            let (id, old, held) = (row.text(0)?, row.i64(1)?, row.bool(2)?);
            let new = old + add.quantity;
            check_quantity(new)?;
            // A held entry takes only what it adds; one whose hold lapsed takes it all again.
            take_stock(
                tx,
                tenant,
                &add.item_id,
                &chosen.sku,
                if held { add.quantity } else { new },
            )
            .await?;
            tx.execute(
                "UPDATE cart_entry SET quantity = $3, held = TRUE, additional_fields = COALESCE($4, additional_fields) \
                 WHERE tenant_id = $1 AND id = $2",
                params![tenant, id.as_str(), new, fields],
            )
            .await?;
            id
        }
        None => {
            take_stock(tx, tenant, &add.item_id, &chosen.sku, add.quantity).await?;
            let id = new_id();
            tx.execute(
                "INSERT INTO cart_entry (tenant_id, id, cart_id, item_id, sku, quantity, title, product_type, currency, \
                 unit_price_minor, additional_fields, added_ms, held, weight_grams, attributes) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, TRUE, $13, $14)",
                params![
                    tenant,
                    id.as_str(),
                    cart_id,
                    add.item_id.as_str(),
                    chosen.sku.as_str(),
                    add.quantity,
                    chosen.title.as_str(),
                    chosen.product_type,
                    chosen.currency.as_str(),
                    chosen.unit_price_minor,
                    fields,
                    now_ms(),
                    chosen.weight_grams,
                    serde_json::to_string(&chosen.attributes)?
                ],
            )
            .await?;
            id
        }
    };
    tx.execute(
        "UPDATE cart SET held = TRUE WHERE tenant_id = $1 AND id = $2",
        params![tenant, cart_id],
    )
    .await?;
    Ok(entry_id)
}

impl Store {
    /// Creates an empty shopping cart.
    pub async fn create_cart(&self, tenant: TenantId) -> Result<Cart> {
        let id = new_id();
        let mut tx = self.write().await?;
        insert_cart(&mut tx, tenant, &id, CartKind::Cart).await?;
        let cart = reload(&mut tx, tenant, &id).await?;
        tx.commit().await?;
        Ok(cart)
    }

    /// Creates a subscription cart holding one subscription product (SPEC: `POST
    /// /api/3/commerce/cart/subscription` → cartToken), taking its units from stock.
    pub async fn create_subscription_cart(
        &self,
        tenant: TenantId,
        add: &AddToCart,
    ) -> Result<Cart> {
        let id = new_id();
        let mut tx = self.write().await?;
        insert_cart(&mut tx, tenant, &id, CartKind::Subscription).await?;
        if let Err(e) = add_in(&mut tx, tenant, &id, add, CartKind::Subscription).await {
            tx.rollback().await?;
            return Err(e);
        }
        let cart = reload(&mut tx, tenant, &id).await?;
        tx.commit().await?;
        Ok(cart)
    }

    /// Creates a shopping cart holding what `add` asks for, in one transaction: a visitor's
    /// first add-to-cart leaves no empty cart behind when it fails.
    pub async fn add_to_new_cart(&self, tenant: TenantId, add: &AddToCart) -> Result<AddedToCart> {
        let id = new_id();
        let mut tx = self.write().await?;
        let result = async {
            insert_cart(&mut tx, tenant, &id, CartKind::Cart).await?;
            let entry_id = add_in(&mut tx, tenant, &id, add, CartKind::Cart).await?;
            let newly_added = entry(&mut tx, tenant, &id, &entry_id).await?;
            Ok(AddedToCart {
                shopping_cart: reload(&mut tx, tenant, &id).await?,
                newly_added,
            })
        }
        .await;
        finish(tx, result).await
    }

    /// A cart with its entries and coupons.
    pub async fn cart(&self, tenant: TenantId, cart_id: &str) -> Result<Option<Cart>> {
        let mut tx = self.snapshot().await?;
        let cart = load_cart(&mut tx, tenant, cart_id).await?;
        tx.commit().await?;
        Ok(cart)
    }

    /// Adds units of a variant to a shopping cart, taking them from stock in the same
    /// transaction; adding a variant already in the cart grows that entry. Errors:
    /// `NotFound` (cart, or item that is not a product), `OutOfStock`, `Refused` (see
    /// [`Refusal`]: unavailable variant, options not chosen, quantity, services, currency,
    /// subscription products, purchased cart).
    pub async fn add_to_cart(
        &self,
        tenant: TenantId,
        cart_id: &str,
        add: &AddToCart,
    ) -> Result<AddedToCart> {
        let mut tx = self.write().await?;
        let result = async {
            if lock_cart(&mut tx, tenant, cart_id).await? == CartKind::Subscription {
                return refused(Refusal::SubscriptionOnly);
            }
            let entry_id = add_in(&mut tx, tenant, cart_id, add, CartKind::Cart).await?;
            let newly_added = entry(&mut tx, tenant, cart_id, &entry_id).await?;
            Ok(AddedToCart {
                shopping_cart: reload(&mut tx, tenant, cart_id).await?,
                newly_added,
            })
        }
        .await;
        finish(tx, result).await
    }

    /// Sets an entry's quantity (1..=9999), taking or giving back the difference in stock
    /// (all of it again when the entry's hold had lapsed). `single_service`: the store sells
    /// services one at a time.
    pub async fn set_entry_quantity(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
        quantity: i64,
        single_service: bool,
    ) -> Result<(Cart, CartEntry)> {
        let mut tx = self.write().await?;
        let result = async {
            check_quantity(quantity)?;
            lock_cart(&mut tx, tenant, cart_id).await?;
            let e = entry(&mut tx, tenant, cart_id, entry_id).await?;
            if single_service && e.product_type == product_type::SERVICE && quantity != 1 {
                return refused(Refusal::SingleService);
            }
            if !e.held {
                take_stock(&mut tx, tenant, &e.item_id, &e.sku, quantity).await?;
            } else if quantity > e.quantity {
                take_stock(&mut tx, tenant, &e.item_id, &e.sku, quantity - e.quantity).await?;
            } else if quantity < e.quantity {
                return_stock(&mut tx, tenant, &e.item_id, &e.sku, e.quantity - quantity).await?;
            }
            tx.execute(
                "UPDATE cart_entry SET quantity = $3, held = TRUE WHERE tenant_id = $1 AND id = $2",
                params![tenant, entry_id, quantity],
            )
            .await?;
            tx.execute(
                "UPDATE cart SET held = TRUE WHERE tenant_id = $1 AND id = $2",
                params![tenant, cart_id],
            )
            .await?;
            let updated = entry(&mut tx, tenant, cart_id, entry_id).await?;
            Ok((reload(&mut tx, tenant, cart_id).await?, updated))
        }
        .await;
        finish(tx, result).await
    }

    /// Removes an entry, giving its units back to stock if it held them.
    pub async fn remove_entry(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
    ) -> Result<Cart> {
        let mut tx = self.write().await?;
        let result = async {
            lock_cart(&mut tx, tenant, cart_id).await?;
            let e = entry(&mut tx, tenant, cart_id, entry_id).await?;
            if e.held {
                return_stock(&mut tx, tenant, &e.item_id, &e.sku, e.quantity).await?;
            }
            tx.execute(
                "DELETE FROM cart_entry WHERE tenant_id = $1 AND id = $2",
                params![tenant, entry_id],
            )
            .await?;
            reload(&mut tx, tenant, cart_id).await
        }
        .await;
        finish(tx, result).await
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
        let result = async {
            lock_cart(&mut tx, tenant, cart_id).await?;
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
            Ok((reload(&mut tx, tenant, cart_id).await?, updated))
        }
        .await;
        finish(tx, result).await
    }

    /// Sets (or, with `None`, clears) where the cart ships: a two-letter country code and,
    /// optionally, a region and postal code.
    pub async fn set_shipping_location(
        &self,
        tenant: TenantId,
        cart_id: &str,
        location: Option<&Location>,
    ) -> Result<Cart> {
        let location = location.map(normalize_location).transpose()?;
        let mut tx = self.write().await?;
        let result = async {
            lock_cart(&mut tx, tenant, cart_id).await?;
            let l = location.as_ref();
            tx.execute(
                "UPDATE cart SET shipping_country = $3, shipping_region = $4, shipping_postal_code = $5 \
                 WHERE tenant_id = $1 AND id = $2",
                params![
                    tenant,
                    cart_id,
                    l.map(|l| l.country.clone()),
                    l.and_then(|l| l.region.clone()),
                    l.and_then(|l| l.postal_code.clone())
                ],
            )
            .await?;
            reload(&mut tx, tenant, cart_id).await
        }
        .await;
        finish(tx, result).await
    }

    /// Sets (or clears) the buyer's shipping choice. The id is kept as given; pricing falls
    /// back to the cheapest offered option when it is not offered for the cart.
    pub async fn set_shipping_option(
        &self,
        tenant: TenantId,
        cart_id: &str,
        option_id: Option<&str>,
    ) -> Result<Cart> {
        let mut tx = self.write().await?;
        let result = async {
            lock_cart(&mut tx, tenant, cart_id).await?;
            tx.execute(
                "UPDATE cart SET shipping_option_id = $3 WHERE tenant_id = $1 AND id = $2",
                params![tenant, cart_id, option_id],
            )
            .await?;
            reload(&mut tx, tenant, cart_id).await
        }
        .await;
        finish(tx, result).await
    }

    /// Adds a coupon code to the cart. A code the store does not have, or one outside its
    /// dates, is refused; one whose minimum subtotal is not met yet is kept (the cart lists
    /// it among its invalid coupons until the subtotal reaches the minimum). Adding a code
    /// twice is a no-op.
    pub async fn add_coupon(
        &self,
        tenant: TenantId,
        cart_id: &str,
        code: &str,
        settings: &CommerceSettings,
        now_ms_: i64,
    ) -> Result<Cart> {
        let Some(coupon) = settings.coupon(code) else {
            return refused(Refusal::Coupon(CouponProblem::Unknown));
        };
        if let Some(p @ (CouponProblem::Expired | CouponProblem::NotStarted)) =
            coupon_problem(coupon, now_ms_, i64::MAX)
        {
            return refused(Refusal::Coupon(p));
        }
        let code = coupon.code.clone();
        let mut tx = self.write().await?;
        let result = async {
            lock_cart(&mut tx, tenant, cart_id).await?;
            tx.execute(
                "INSERT INTO cart_coupon (tenant_id, cart_id, code, added_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                params![tenant, cart_id, code.as_str(), now_ms()],
            )
            .await?;
            reload(&mut tx, tenant, cart_id).await
        }
        .await;
        finish(tx, result).await
    }

    /// Takes a coupon code off the cart (`NotFound` when it is not on it).
    pub async fn remove_coupon(&self, tenant: TenantId, cart_id: &str, code: &str) -> Result<Cart> {
        let code = normalize_coupon_code(code).unwrap_or_else(|| code.to_owned());
        let mut tx = self.write().await?;
        let result = async {
            lock_cart(&mut tx, tenant, cart_id).await?;
            let n = tx
                .execute(
                    "DELETE FROM cart_coupon WHERE tenant_id = $1 AND cart_id = $2 AND code = $3",
                    params![tenant, cart_id, code.as_str()],
                )
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound(format!(
                    "coupon {code} on cart {cart_id}"
                )));
            }
            reload(&mut tx, tenant, cart_id).await
        }
        .await;
        finish(tx, result).await
    }
}

async fn insert_cart(tx: &mut Tx, tenant: TenantId, id: &str, kind: CartKind) -> Result<()> {
    let now = now_ms();
    tx.execute(
        "INSERT INTO cart (tenant_id, id, created_ms, updated_ms, purchased, kind) VALUES ($1, $2, $3, $3, FALSE, $4)",
        params![tenant, id, now, kind.as_str()],
    )
    .await?;
    Ok(())
}

/// Commits on success; rolls back (keeping the connection) on failure.
pub(super) async fn finish<T>(tx: Tx, result: Result<T>) -> Result<T> {
    match result {
        Ok(v) => {
            tx.commit().await?;
            Ok(v)
        }
        Err(e) => {
            tx.rollback().await?;
            Err(e)
        }
    }
}

/// A location as stored: an upper-case two-letter country, trimmed optional parts (at most
/// 64 characters each).
pub(super) fn normalize_location(l: &Location) -> Result<Location> {
    let country = l.country.trim().to_ascii_uppercase();
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(StoreError::Invalid(format!(
            "country {:?} is not a two-letter country code",
            l.country
        )));
    }
    let part = |p: &Option<String>, what: &str| -> Result<Option<String>> {
        match p.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(s) if s.chars().count() > 64 => Err(StoreError::Invalid(format!(
                "{what} is longer than 64 characters"
            ))),
            Some(s) => Ok(Some(s.to_owned())),
            None => Ok(None),
        }
    };
    Ok(Location {
        country,
        region: part(&l.region, "region")?,
        postal_code: part(&l.postal_code, "postal code")?,
    })
}
