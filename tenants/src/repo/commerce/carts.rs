//! Carts: creating them, their entries (taking and giving back stock), coupons and the
//! shipping location and choice.
//!
//! A change opens the cart once ([`open_for_change`]: lock, entries, coupons), applies
//! itself to the database and to that copy, and answers with the copy: no second read.
//! Round trips are most of a cart change's cost on PostgreSQL.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde_json::Value;

use super::stock::{return_stock, take_stock};
use super::{AddToCart, AddedToCart, Cart, CartEntry, CartKind, MAX_QUANTITY};
use crate::commerce::Refusal;
use crate::commerce::money::{MAX_CART_MINOR, MAX_PRICE_MINOR, line_minor};
use crate::commerce::pricing::{CouponProblem, Location, coupon_problem, product_type};
use crate::commerce::settings::{CommerceSettings, normalize_coupon_code};
use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::model::Visibility;
use crate::params;
use crate::sql::{Backend, Row, SqlValue, Tx};
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

/// The cart columns, in the order [`cart_head`] reads them.
const CART_COLUMNS: &str = "id, kind, created_ms, updated_ms, revision, purchased, order_id, shipping_country, \
                            shipping_region, shipping_postal_code, shipping_option_id, held";

const ENTRY_COLUMNS: &str = "id, item_id, sku, quantity, title, product_type, currency, unit_price_minor, \
                             additional_fields, weight_grams, attributes, held, added_ms";

/// A cart from its row, without entries and coupons yet.
fn cart_head(row: &Row) -> Result<Cart> {
    let shipping_location = match row.opt_text(7)? {
        Some(country) => Some(Location {
            country,
            region: row.opt_text(8)?,
            postal_code: row.opt_text(9)?,
        }),
        None => None,
    };
    Ok(Cart {
        id: row.text(0)?,
        kind: CartKind::parse(&row.text(1)?),
        created_ms: row.i64(2)?,
        updated_ms: row.i64(3)?,
        revision: row.i64(4)?,
        purchased: row.bool(5)?,
        order_id: row.opt_text(6)?,
        entries: Vec::new(),
        subtotal_minor: 0,
        total_quantity: 0,
        currency: None,
        shipping_location,
        shipping_option_id: row.opt_text(10)?,
        coupons: Vec::new(),
        holds_stock: row.bool(11)?,
    })
}

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
        // Saturating: rows written before amounts were bounded must not wrap (or panic).
        sub_total_minor: quantity.saturating_mul(unit),
        additional_fields: r
            .opt_text(8)?
            .map(|s| serde_json::from_str(&s))
            .transpose()?,
        weight_grams: r.i64(9)?,
        attributes: r.json(10)?,
        held: r.bool(11)?,
        added_ms: r.i64(12)?,
    })
}

impl Cart {
    /// Recomputes the derived fields after a change to the entries.
    fn recount(&mut self) {
        self.entries
            .sort_by(|a, b| (a.added_ms, &a.id).cmp(&(b.added_ms, &b.id)));
        // Saturating rather than wrapping; changes keep amounts in bounds first
        // ([`Cart::check_amounts`]), so this only matters for rows from before the bounds.
        for e in &mut self.entries {
            e.sub_total_minor = e.quantity.saturating_mul(e.unit_price_minor);
        }
        self.subtotal_minor = self
            .entries
            .iter()
            .fold(0i64, |a, e| a.saturating_add(e.sub_total_minor));
        self.total_quantity = self
            .entries
            .iter()
            .fold(0i64, |a, e| a.saturating_add(e.quantity));
        self.currency = self.entries.first().map(|e| e.currency.clone());
    }

    /// Refuses (`TooLarge`) a cart whose lines, with `quantity` units of entry `changed`
    /// (or a new line of `quantity` × `unit`), would add up past [`MAX_CART_MINOR`]: checked
    /// arithmetic, so no amount ever wraps.
    fn check_amounts(&self, changed: Option<usize>, quantity: i64, unit: i64) -> Result<()> {
        let mut total = match changed {
            Some(_) => Some(0),
            None => line_minor(quantity, unit),
        }
        .ok_or(StoreError::Refused(Refusal::TooLarge))?;
        for (i, e) in self.entries.iter().enumerate() {
            let q = if Some(i) == changed {
                quantity
            } else {
                e.quantity
            };
            total = line_minor(q, e.unit_price_minor)
                .and_then(|line| total.checked_add(line))
                .filter(|t| *t <= MAX_CART_MINOR)
                .ok_or(StoreError::Refused(Refusal::TooLarge))?;
        }
        Ok(())
    }

    fn entry_index(&self, entry_id: &str) -> Result<usize> {
        self.entries
            .iter()
            .position(|e| e.id == entry_id)
            .ok_or_else(|| StoreError::NotFound(format!("cart entry {entry_id}")))
    }
}

/// The statements reading a cart's entries and coupons, in the order [`fill_from`] takes
/// their rows.
fn parts_statements(tenant: TenantId, cart_id: &str) -> [(String, Vec<crate::sql::SqlValue>); 2] {
    [
        (
            format!("SELECT {ENTRY_COLUMNS} FROM cart_entry WHERE tenant_id = $1 AND cart_id = $2 ORDER BY added_ms, id"),
            params![tenant, cart_id],
        ),
        (
            "SELECT code FROM cart_coupon WHERE tenant_id = $1 AND cart_id = $2 ORDER BY added_ms, code"
                .to_owned(),
            params![tenant, cart_id],
        ),
    ]
}

/// Puts [`parts_statements`]' rows (entries, then coupons) into `cart`.
fn fill_from(cart: &mut Cart, entries: &[Row], coupons: &[Row]) -> Result<()> {
    cart.entries = entries
        .iter()
        .map(entry_from_row)
        .collect::<Result<Vec<_>>>()?;
    cart.coupons = coupons
        .iter()
        .map(|r| r.text(0))
        .collect::<Result<Vec<_>>>()?;
    cart.recount();
    Ok(())
}

/// Runs `first` and then the statements reading cart `cart_id`'s entries and coupons, in one
/// hop to the database (pipelined on PostgreSQL, in order): `first`'s rows, the entries' and
/// the coupons'.
async fn with_parts(
    tx: &mut Tx,
    tenant: TenantId,
    cart_id: &str,
    first: (String, Vec<crate::sql::SqlValue>),
) -> Result<(Vec<Row>, Vec<Row>, Vec<Row>)> {
    let [entries, coupons] = parts_statements(tenant, cart_id);
    let mut all = tx
        .query_all(vec![first, entries, coupons])
        .await?
        .into_iter();
    match (all.next(), all.next(), all.next()) {
        (Some(a), Some(b), Some(c)) => Ok((a, b, c)),
        _ => Err(StoreError::decode("a cart's rows")),
    }
}

pub(super) async fn load_cart(
    tx: &mut Tx,
    tenant: TenantId,
    cart_id: &str,
) -> Result<Option<Cart>> {
    // The cart, its entries and its coupons together: a missing cart has none of either.
    let (head, entries, coupons) = with_parts(
        tx,
        tenant,
        cart_id,
        (
            format!("SELECT {CART_COLUMNS} FROM cart WHERE tenant_id = $1 AND id = $2"),
            params![tenant, cart_id],
        ),
    )
    .await?;
    let Some(row) = head.first() else {
        return Ok(None);
    };
    let mut cart = cart_head(row)?;
    fill_from(&mut cart, &entries, &coupons)?;
    Ok(Some(cart))
}

/// Starts a change to an open cart: bumps its revision and last-change time, which on
/// PostgreSQL also locks the row until the transaction ends, and reads it. `NotFound` for no
/// such cart, `CartPurchased` for one already checked out.
pub(super) async fn open_for_change(tx: &mut Tx, tenant: TenantId, cart_id: &str) -> Result<Cart> {
    // The entries and coupons are read after the update (the server runs the statements in
    // order), so under its lock.
    let (head, entries, coupons) = with_parts(
        tx,
        tenant,
        cart_id,
        (
            format!(
                "UPDATE cart SET updated_ms = $3, revision = revision + 1 \
                 WHERE tenant_id = $1 AND id = $2 AND NOT purchased RETURNING {CART_COLUMNS}"
            ),
            params![tenant, cart_id, now_ms()],
        ),
    )
    .await?;
    let Some(row) = head.first() else {
        let exists = tx
            .query_opt(
                "SELECT purchased FROM cart WHERE tenant_id = $1 AND id = $2",
                params![tenant, cart_id],
            )
            .await?;
        return match exists {
            Some(_) => refused(Refusal::CartPurchased),
            None => Err(StoreError::NotFound(format!("cart {cart_id}"))),
        };
    };
    let mut cart = cart_head(row)?;
    fill_from(&mut cart, &entries, &coupons)?;
    Ok(cart)
}

/// Writes a new, empty cart and returns it; `holds_stock` when an add follows in the same
/// transaction.
pub(super) async fn new_cart(
    tx: &mut Tx,
    tenant: TenantId,
    kind: CartKind,
    holds_stock: bool,
) -> Result<Cart> {
    let (cart, (sql, params)) = unsaved_cart(tenant, kind, holds_stock);
    tx.execute(&sql, params).await?;
    Ok(cart)
}

/// A statement for a transaction's last hop ([`Tx::commit_after`]).
pub(super) type Write = (String, Vec<SqlValue>);

/// A new, empty cart, and the statement that writes it (for a caller that sends it later,
/// with the writes that follow: [`Store::add_to_cart_or_new`]).
fn unsaved_cart(tenant: TenantId, kind: CartKind, holds_stock: bool) -> (Cart, Write) {
    let id = new_id();
    let now = now_ms();
    let write = (
        "INSERT INTO cart (tenant_id, id, created_ms, updated_ms, purchased, kind, held) VALUES ($1, $2, $3, $3, FALSE, $4, $5)"
            .to_owned(),
        params![tenant, id.as_str(), now, kind.as_str(), holds_stock],
    );
    let cart = Cart {
        id,
        kind,
        created_ms: now,
        updated_ms: now,
        revision: 0,
        purchased: false,
        order_id: None,
        entries: Vec::new(),
        subtotal_minor: 0,
        total_quantity: 0,
        currency: None,
        shipping_location: None,
        shipping_option_id: None,
        coupons: Vec::new(),
        holds_stock,
    };
    (cart, write)
}

/// Marks the cart as holding stock (the abandoned-cart sweep looks at these), unless it does.
async fn mark_holding(tx: &mut Tx, tenant: TenantId, cart: &mut Cart) -> Result<()> {
    if let Some((sql, params)) = holding(tenant, cart) {
        tx.execute(&sql, params).await?;
    }
    Ok(())
}

/// [`mark_holding`]'s statement, for the caller to send (none when the cart holds stock
/// already); the cart counts as holding from now on.
fn holding(tenant: TenantId, cart: &mut Cart) -> Option<Write> {
    if cart.holds_stock {
        return None;
    }
    cart.holds_stock = true;
    Some((
        "UPDATE cart SET held = TRUE WHERE tenant_id = $1 AND id = $2".to_owned(),
        params![tenant, cart.id.as_str()],
    ))
}

/// The variant an add-to-cart resolves to, with what the entry copies from it.
struct Chosen {
    sku: String,
    /// Stock is not tracked: nothing to take (and no row to lock).
    unlimited: bool,
    title: String,
    product_type: i64,
    currency: String,
    unit_price_minor: i64,
    weight_grams: i64,
    attributes: BTreeMap<String, String>,
    /// The product has an additional-fields form (`structuredContent.additionalFieldsFormId`).
    has_form: bool,
}

/// Finds the product and the variant `add` asks for, applying the product rules: an item
/// that is not a product of a store collection, or whose variant is priced in another
/// currency than the store's or outside 0..=[`MAX_PRICE_MINOR`], is `NotFound` (not for
/// sale, whoever wrote it); a sku that is not one of its variants is unavailable;
/// no sku is fine for a product with one variant, else the options (or, for a gift card, the
/// denomination) must be chosen; subscription products go through subscription checkout.
async fn choose(tx: &mut Tx, tenant: TenantId, add: &AddToCart, kind: CartKind) -> Result<Chosen> {
    // One query: the item with each of its variants (one row with no variant when it has
    // none).
    let rows = tx
        .query(
            "SELECT i.title, i.product_type, i.structured_content, v.sku, v.attributes, v.currency, v.price_minor, \
             v.sale_price_minor, v.on_sale, v.weight_grams, v.unlimited, c.kind, i.visibility, i.publish_on FROM item i \
             LEFT JOIN collection c ON c.tenant_id = i.tenant_id AND c.id = i.collection_id \
             LEFT JOIN product_variant v ON v.tenant_id = i.tenant_id AND v.item_id = i.id \
             WHERE i.tenant_id = $1 AND i.id = $2 ORDER BY v.position",
            params![tenant, add.item_id.as_str()],
        )
        .await?;
    let Some(item) = rows.first() else {
        return Err(StoreError::NotFound(format!("item {}", add.item_id)));
    };
    // Products live in store collections: an item with variants anywhere else (written by
    // a role without the store area, say) is not for sale.
    if item.opt_text(3)?.is_none() || item.opt_i64(11)? != Some(crate::store_setup::PRODUCTS_TYPE) {
        return Err(StoreError::NotFound(format!("product {}", add.item_id)));
    }
    // A product visitors do not see (hidden, or scheduled for later) is not for sale either.
    if !Visibility::stored_shows(&item.text(12)?, item.i64(13)?, now_ms()) {
        return Err(StoreError::NotFound(format!(
            "product {} (not shown)",
            add.item_id
        )));
    }
    let structured: serde_json::Map<String, Value> = item.json(2)?;
    let product_type = item.opt_i64(1)?.unwrap_or(product_type::PHYSICAL);
    let subscribable = structured.get("isSubscribable").and_then(Value::as_bool) == Some(true);
    match kind {
        CartKind::Cart if subscribable => return refused(Refusal::SubscriptionOnly),
        CartKind::Subscription if !subscribable => return refused(Refusal::NotSubscribable),
        CartKind::GiftCard if product_type != product_type::GIFT_CARD => {
            return refused(Refusal::NotGiftCard);
        }
        _ => {}
    }
    let row = if add.sku.is_empty() {
        if product_type == product_type::GIFT_CARD {
            return refused(Refusal::NoDenomination);
        }
        if rows.len() > 1 {
            return refused(Refusal::OptionsNotChosen(option_names(&structured, &rows)?));
        }
        item
    } else {
        let mut found = None;
        for r in &rows {
            if r.text(3)? == add.sku {
                found = Some(r);
            }
        }
        match found {
            Some(r) => r,
            None => return refused(Refusal::VariantUnavailable),
        }
    };
    let currency = row.text(5)?;
    let unit_price_minor = if row.bool(8)? {
        row.i64(7)?
    } else {
        row.i64(6)?
    };
    let foreign = !add.store_currency.is_empty() && currency != add.store_currency;
    if foreign || !(0..=MAX_PRICE_MINOR).contains(&unit_price_minor) {
        return Err(StoreError::NotFound(format!(
            "product {} at {unit_price_minor} {currency}",
            add.item_id
        )));
    }
    let has_form = names_a_form(&structured);
    Ok(Chosen {
        sku: row.text(3)?,
        unlimited: row.bool(10)?,
        title: row.text(0)?,
        product_type,
        currency,
        unit_price_minor,
        weight_grams: row.i64(9)?,
        attributes: row.json(4)?,
        has_form,
    })
}

/// Whether a product has an additional-fields form (`structuredContent.additionalFieldsFormId`).
async fn has_form(tx: &mut Tx, tenant: TenantId, item_id: &str) -> Result<bool> {
    let Some(row) = tx
        .query_opt(
            "SELECT structured_content FROM item WHERE tenant_id = $1 AND id = $2",
            params![tenant, item_id],
        )
        .await?
    else {
        return Ok(false);
    };
    Ok(names_a_form(&row.json(0)?))
}

/// A product's `structuredContent` names an additional-fields form.
fn names_a_form(structured: &serde_json::Map<String, Value>) -> bool {
    structured
        .get("additionalFieldsFormId")
        .and_then(Value::as_str)
        .is_some_and(|f| !f.trim().is_empty())
}

/// A product's option names: `variantOptionOrdering` when set, else the variants' attribute
/// names in first-seen order.
fn option_names(structured: &serde_json::Map<String, Value>, rows: &[Row]) -> Result<Vec<String>> {
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
    for r in rows {
        let attrs: BTreeMap<String, String> = r.json(4)?;
        for k in attrs.into_keys() {
            if !names.contains(&k) {
                names.push(k);
            }
        }
    }
    Ok(names)
}

/// Adds (or grows) the entry for `add` in an open cart, taking the units from stock; returns
/// the entry's index in `cart`.
pub(super) async fn add_in(
    tx: &mut Tx,
    tenant: TenantId,
    cart: &mut Cart,
    add: &AddToCart,
) -> Result<usize> {
    let mut writes = Vec::new();
    let i = add_deferred(tx, tenant, cart, add, &mut writes, LastHop::Entry).await?;
    for (sql, params) in writes {
        tx.execute(&sql, params).await?;
    }
    Ok(i)
}

/// A new cart's first add as one statement (PostgreSQL): take the units (unless the
/// variant is unlimited), and only then write the cart's row and its entry. Parameters: $1
/// tenant, $2 entry, $3 cart, $4 item, $5 sku, $6 quantity, $7 title, $8 product type, $9
/// currency, $10 unit price, $11 additional fields, $12 added, $13 weight, $14 attributes,
/// $15 the cart's creation time, $16 its kind, $17 whether it holds stock. It changes one
/// row (the entry) or, with too few units left, none: then nothing at all is written.
static FIRST_ADD_TAKING: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH taken AS ({FIRST_ADD_STOCK}), made AS ({FIRST_ADD_CART_IF_TAKEN}) {FIRST_ADD_ENTRY}"
    )
});
/// [`FIRST_ADD_TAKING`] for an unlimited variant: no stock to take (and no variant row to
/// lock), the cart's row and the entry in one statement. The same parameters.
static FIRST_ADD_UNLIMITED: LazyLock<String> =
    LazyLock::new(|| format!("WITH made AS ({FIRST_ADD_CART}) {FIRST_ADD_ENTRY}"));
/// The first add's units taken, as [`take_stock`] takes them (one row, or none).
const FIRST_ADD_STOCK: &str = "UPDATE product_variant SET qty_in_stock = CASE WHEN unlimited THEN qty_in_stock ELSE qty_in_stock - $6::bigint END \
     WHERE tenant_id = $1::bigint AND item_id = $4::text AND sku = $5::text AND (unlimited OR qty_in_stock >= $6::bigint) \
     RETURNING 1";
/// The new cart's row, once per row of `taken` (the units taken).
const FIRST_ADD_CART_IF_TAKEN: &str = "INSERT INTO cart (tenant_id, id, created_ms, updated_ms, purchased, kind, held) \
     SELECT $1::bigint, $3::text, $15::bigint, $15::bigint, FALSE, $16::text, $17::boolean FROM taken RETURNING 1";
/// The new cart's row.
const FIRST_ADD_CART: &str = "INSERT INTO cart (tenant_id, id, created_ms, updated_ms, purchased, kind, held) \
     VALUES ($1::bigint, $3::text, $15::bigint, $15::bigint, FALSE, $16::text, $17::boolean) RETURNING 1";
/// The entry's write that ends both first-add statements: one row per cart row written
/// (`made`).
const FIRST_ADD_ENTRY: &str = "INSERT INTO cart_entry (tenant_id, id, cart_id, item_id, sku, quantity, title, product_type, currency, \
     unit_price_minor, additional_fields, added_ms, held, weight_grams, attributes) \
     SELECT $1::bigint, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::text, $8::bigint, $9::text, $10::bigint, \
     $11::text, $12::bigint, TRUE, $13::bigint, $14::text FROM made";

/// What an add asks of its last hop.
enum LastHop {
    /// The cart is open (its row exists and is locked), or the backend runs the cart's row
    /// write itself (the caller put it in `writes` first): the stock is taken in `tx` and
    /// the entry written in the last hop.
    Entry,
    /// The cart is new and unsaved, on PostgreSQL: the last hop takes the stock and writes
    /// the cart's row and its entry in one statement ([`FIRST_ADD_TAKING`]), which writes
    /// nothing when too few units are left. The caller reads its count.
    FirstAdd,
}

/// [`add_in`], with the entry's write (and the cart's mark as holding stock) appended to
/// `writes` instead of run: the caller sends them, after any it put there first, with its
/// commit ([`Tx::commit_after`]). What is read and (unless `hop` is
/// [`LastHop::FirstAdd`]) the stock taken run here, in `tx`.
async fn add_deferred(
    tx: &mut Tx,
    tenant: TenantId,
    cart: &mut Cart,
    add: &AddToCart,
    writes: &mut Vec<Write>,
    hop: LastHop,
) -> Result<usize> {
    check_quantity(add.quantity)?;
    let chosen = choose(tx, tenant, add, cart.kind).await?;
    if cart.entries.iter().any(|e| e.currency != chosen.currency) {
        return refused(Refusal::CurrencyMismatch);
    }
    // Answers are for a product's form; a product without one takes none.
    if add.additional_fields.is_some() && !chosen.has_form {
        return refused(Refusal::NoAdditionalFields);
    }
    let same_variant = |e: &CartEntry| e.item_id == add.item_id && e.sku == chosen.sku;
    let single = add.single_service && chosen.product_type == product_type::SERVICE;
    if single && (add.quantity != 1 || cart.entries.iter().any(same_variant)) {
        return refused(Refusal::SingleService);
    }
    // The same variant with other answers (another engraving) is a line of its own: growing
    // the first line would lose its answers.
    let existing = cart
        .entries
        .iter()
        .position(|e| same_variant(e) && e.additional_fields == add.additional_fields);
    let fields = add.additional_fields.as_ref().map(Value::to_string);
    let entry_id = match existing {
        Some(i) => {
            let e = &cart.entries[i];
            let new = e.quantity + add.quantity;
            check_quantity(new)?;
            cart.check_amounts(Some(i), new, e.unit_price_minor)?;
            // A held entry takes only what it adds; one whose hold lapsed takes it all again.
            let take = if e.held { add.quantity } else { new };
            if !chosen.unlimited {
                take_stock(tx, tenant, &add.item_id, &chosen.sku, take).await?;
            }
            writes.push((
                "UPDATE cart_entry SET quantity = $3, held = TRUE WHERE tenant_id = $1 AND id = $2"
                    .to_owned(),
                params![tenant, e.id.as_str(), new],
            ));
            let e = &mut cart.entries[i];
            e.quantity = new;
            e.held = true;
            e.id.clone()
        }
        None => {
            cart.check_amounts(None, add.quantity, chosen.unit_price_minor)?;
            let first_add = matches!(hop, LastHop::FirstAdd);
            if !chosen.unlimited && !first_add {
                take_stock(tx, tenant, &add.item_id, &chosen.sku, add.quantity).await?;
            }
            let id = new_id();
            let added_ms = now_ms();
            let mut params = params![
                tenant,
                id.as_str(),
                cart.id.as_str(),
                add.item_id.as_str(),
                chosen.sku.as_str(),
                add.quantity,
                chosen.title.as_str(),
                chosen.product_type,
                chosen.currency.as_str(),
                chosen.unit_price_minor,
                fields,
                added_ms,
                chosen.weight_grams,
                serde_json::to_string(&chosen.attributes)?
            ];
            let sql = if first_add {
                params.extend(params![
                    cart.created_ms,
                    cart.kind.as_str(),
                    cart.holds_stock
                ]);
                if chosen.unlimited {
                    FIRST_ADD_UNLIMITED.clone()
                } else {
                    FIRST_ADD_TAKING.clone()
                }
            } else {
                "INSERT INTO cart_entry (tenant_id, id, cart_id, item_id, sku, quantity, title, product_type, currency, \
                 unit_price_minor, additional_fields, added_ms, held, weight_grams, attributes) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, TRUE, $13, $14)"
                    .to_owned()
            };
            writes.push((sql, params));
            cart.entries.push(CartEntry {
                id: id.clone(),
                item_id: add.item_id.clone(),
                sku: chosen.sku,
                attributes: chosen.attributes,
                quantity: add.quantity,
                title: chosen.title,
                product_type: chosen.product_type,
                currency: chosen.currency,
                unit_price_minor: chosen.unit_price_minor,
                sub_total_minor: 0,
                weight_grams: chosen.weight_grams,
                additional_fields: add.additional_fields.clone(),
                held: true,
                added_ms,
            });
            id
        }
    };
    writes.extend(holding(tenant, cart));
    cart.recount();
    cart.entry_index(&entry_id)
}

/// Runs `change` on the open cart `cart_id` in a write transaction: commits and answers with
/// the changed cart, or rolls back.
macro_rules! change_cart {
    ($store:expr, $tenant:expr, $cart_id:expr, |$tx:ident, $cart:ident| $body:expr) => {{
        let mut $tx = $store.write().await?;
        let result = async {
            #[allow(unused_mut)]
            let mut $cart = open_for_change(&mut $tx, $tenant, $cart_id).await?;
            $body
        }
        .await;
        finish($tx, result).await
    }};
}

impl Store {
    /// Creates an empty shopping cart.
    pub async fn create_cart(&self, tenant: TenantId) -> Result<Cart> {
        let mut tx = self.write().await?;
        let cart = new_cart(&mut tx, tenant, CartKind::Cart, false).await?;
        tx.commit().await?;
        Ok(cart)
    }

    /// Creates a cart of its own for one purchase, reached by its token rather than the
    /// visitor's cookie: a subscription product (SPEC: `POST /api/3/commerce/cart/subscription`
    /// → cartToken) or a gift card in its chosen denomination, taking its units from stock.
    pub async fn create_token_cart(
        &self,
        tenant: TenantId,
        kind: CartKind,
        add: &AddToCart,
    ) -> Result<Cart> {
        assert!(
            kind != CartKind::Cart,
            "a token cart is not a shopping cart"
        );
        let mut tx = self.write().await?;
        let result = async {
            let mut cart = new_cart(&mut tx, tenant, kind, true).await?;
            add_in(&mut tx, tenant, &mut cart, add).await?;
            Ok(cart)
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
        change_cart!(self, tenant, cart_id, |tx, cart| {
            if cart.kind != CartKind::Cart {
                return refused(Refusal::SubscriptionOnly);
            }
            let i = add_in(&mut tx, tenant, &mut cart, add).await?;
            Ok(AddedToCart {
                newly_added: cart.entries[i].clone(),
                shopping_cart: cart,
            })
        })
    }

    /// Adds to the visitor's open shopping cart `cart_id`, or, when there is none (no id, no
    /// such cart, one checked out already), to a new one, all or nothing: a first
    /// add-to-cart that fails leaves no empty cart behind. Without an id on PostgreSQL,
    /// [`Store::first_add`]; else one transaction.
    pub async fn add_to_cart_or_new(
        &self,
        tenant: TenantId,
        cart_id: Option<&str>,
        add: &AddToCart,
    ) -> Result<AddedToCart> {
        if cart_id.is_none() && self.backend() == Backend::Postgres {
            return self.first_add(tenant, add).await;
        }
        let mut tx = self.write().await?;
        let mut writes = Vec::new();
        let result = async {
            let open = match cart_id {
                Some(id) => match open_for_change(&mut tx, tenant, id).await {
                    Ok(c) if c.kind == CartKind::Cart => Some(c),
                    Ok(_)
                    | Err(StoreError::NotFound(_))
                    | Err(StoreError::Refused(Refusal::CartPurchased)) => None,
                    Err(e) => return Err(e),
                },
                None => None,
            };
            // A new cart's row is written in the last hop, with its entry and the commit:
            // on PostgreSQL a first add is the product read and that hop, whose one
            // statement takes the stock (unless unlimited) and writes the cart and its
            // entry only if it could ([`FIRST_ADD_TAKING`]); on SQLite the cart's row goes
            // before the entry's and the stock is taken before them.
            let (mut cart, hop) = match open {
                Some(c) => (c, LastHop::Entry),
                None => {
                    let (cart, write) = unsaved_cart(tenant, CartKind::Cart, true);
                    if tx.backend() == Backend::Postgres {
                        (cart, LastHop::FirstAdd)
                    } else {
                        writes.push(write);
                        (cart, LastHop::Entry)
                    }
                }
            };
            let first_add = matches!(hop, LastHop::FirstAdd);
            let i = add_deferred(&mut tx, tenant, &mut cart, add, &mut writes, hop).await?;
            Ok((
                first_add,
                AddedToCart {
                    newly_added: cart.entries[i].clone(),
                    shopping_cart: cart,
                },
            ))
        }
        .await;
        match result {
            Ok((first_add, added)) => {
                let counts = tx.commit_after_counting(writes).await?;
                // The first add's statement wrote nothing: too few units were left (the
                // commit then committed nothing either).
                if first_add && counts.first() == Some(&0) {
                    return Err(StoreError::OutOfStock {
                        sku: added.newly_added.sku,
                        requested: add.quantity,
                    });
                }
                Ok(added)
            }
            Err(e) => finish(tx, Err(e)).await,
        }
    }

    /// A visitor's first add on PostgreSQL (no cart yet): two statements and no transaction
    /// around them. The product is read (under read committed, a read inside a transaction
    /// sees no more than one outside it, and takes no lock), then one statement
    /// ([`FIRST_ADD_TAKING`]) takes the units and writes the cart and its entry, atomically
    /// as every statement is: all of it, or nothing when too few units are left.
    async fn first_add(&self, tenant: TenantId, add: &AddToCart) -> Result<AddedToCart> {
        let mut tx = self.read().await?;
        let (mut cart, _) = unsaved_cart(tenant, CartKind::Cart, true);
        let mut writes = Vec::new();
        let i = add_deferred(
            &mut tx,
            tenant,
            &mut cart,
            add,
            &mut writes,
            LastHop::FirstAdd,
        )
        .await?;
        let Some((sql, params)) = writes.pop().filter(|_| writes.is_empty()) else {
            return Err(StoreError::Invalid(
                "a first add is one statement".to_owned(),
            ));
        };
        if tx.execute(&sql, params).await? == 0 {
            return Err(StoreError::OutOfStock {
                sku: cart.entries[i].sku.clone(),
                requested: add.quantity,
            });
        }
        tx.commit().await?;
        Ok(AddedToCart {
            newly_added: cart.entries[i].clone(),
            shopping_cart: cart,
        })
    }

    /// Creates a shopping cart holding what `add` asks for, in one transaction.
    pub async fn add_to_new_cart(&self, tenant: TenantId, add: &AddToCart) -> Result<AddedToCart> {
        self.add_to_cart_or_new(tenant, None, add).await
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
        check_quantity(quantity)?;
        change_cart!(self, tenant, cart_id, |tx, cart| {
            let i = cart.entry_index(entry_id)?;
            let e = &cart.entries[i];
            if single_service && e.product_type == product_type::SERVICE && quantity != 1 {
                return refused(Refusal::SingleService);
            }
            cart.check_amounts(Some(i), quantity, e.unit_price_minor)?;
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
            cart.entries[i].quantity = quantity;
            cart.entries[i].held = true;
            mark_holding(&mut tx, tenant, &mut cart).await?;
            cart.recount();
            let updated = cart.entries[cart.entry_index(entry_id)?].clone();
            Ok((cart, updated))
        })
    }

    /// Removes an entry, giving its units back to stock if it held them.
    pub async fn remove_entry(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
    ) -> Result<Cart> {
        change_cart!(self, tenant, cart_id, |tx, cart| {
            let i = cart.entry_index(entry_id)?;
            let e = cart.entries.remove(i);
            if e.held {
                return_stock(&mut tx, tenant, &e.item_id, &e.sku, e.quantity).await?;
            }
            tx.execute(
                "DELETE FROM cart_entry WHERE tenant_id = $1 AND id = $2",
                params![tenant, entry_id],
            )
            .await?;
            cart.recount();
            Ok(cart)
        })
    }

    /// Replaces an entry's additional-fields answers (SPEC: shoppingCart, updatedEntry).
    pub async fn set_entry_fields(
        &self,
        tenant: TenantId,
        cart_id: &str,
        entry_id: &str,
        fields: &Value,
    ) -> Result<(Cart, CartEntry)> {
        change_cart!(self, tenant, cart_id, |tx, cart| {
            let i = cart.entry_index(entry_id)?;
            if !has_form(&mut tx, tenant, &cart.entries[i].item_id).await? {
                return refused(Refusal::NoAdditionalFields);
            }
            tx.execute(
                "UPDATE cart_entry SET additional_fields = $4 WHERE tenant_id = $1 AND cart_id = $2 AND id = $3",
                params![tenant, cart_id, entry_id, fields.to_string()],
            )
            .await?;
            cart.entries[i].additional_fields = Some(fields.clone());
            let updated = cart.entries[i].clone();
            Ok((cart, updated))
        })
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
        change_cart!(self, tenant, cart_id, |tx, cart| {
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
            cart.shipping_location = location.clone();
            Ok(cart)
        })
    }

    /// Sets (or clears) the buyer's shipping choice. The id is kept as given; pricing falls
    /// back to the cheapest offered option when it is not offered for the cart.
    pub async fn set_shipping_option(
        &self,
        tenant: TenantId,
        cart_id: &str,
        option_id: Option<&str>,
    ) -> Result<Cart> {
        change_cart!(self, tenant, cart_id, |tx, cart| {
            tx.execute(
                "UPDATE cart SET shipping_option_id = $3 WHERE tenant_id = $1 AND id = $2",
                params![tenant, cart_id, option_id],
            )
            .await?;
            cart.shipping_option_id = option_id.map(str::to_owned);
            Ok(cart)
        })
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
        now: i64,
    ) -> Result<Cart> {
        let Some(coupon) = settings.coupon(code) else {
            return refused(Refusal::Coupon(CouponProblem::Unknown));
        };
        if let Some(p @ (CouponProblem::Expired | CouponProblem::NotStarted)) =
            coupon_problem(coupon, now, i64::MAX)
        {
            return refused(Refusal::Coupon(p));
        }
        let code = coupon.code.clone();
        change_cart!(self, tenant, cart_id, |tx, cart| {
            if !cart.coupons.contains(&code) {
                tx.execute(
                    "INSERT INTO cart_coupon (tenant_id, cart_id, code, added_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    params![tenant, cart_id, code.as_str(), now_ms()],
                )
                .await?;
                cart.coupons.push(code.clone());
            }
            Ok(cart)
        })
    }

    /// Takes a coupon code off the cart (`NotFound` when it is not on it).
    pub async fn remove_coupon(&self, tenant: TenantId, cart_id: &str, code: &str) -> Result<Cart> {
        let code = normalize_coupon_code(code).unwrap_or_else(|| code.to_owned());
        change_cart!(self, tenant, cart_id, |tx, cart| {
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
            cart.coupons.retain(|c| *c != code);
            Ok(cart)
        })
    }
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
