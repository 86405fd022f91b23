//! The JSON shapes visitors get: the SPEC.md "Shopping cart" entity with its "Cart entry"
//! lines, the SPEC "Order" with what a buyer needs of it, and the instalment pill. The API
//! answers with them and pages carry the same objects in their context (`shoppingCart`,
//! `order`), so templates and islands read one shape.

use serde_json::{Map, Value, json};
use tenants::commerce::instalments;
use tenants::commerce::{CommerceSettings, Totals};
use tenants::{Cart, CartEntry, Order, OrderStatus, PaymentMethod, now_ms};

use super::instalments::instalments_json;
use super::messages::{coupon_problem, minimum_subtotal};
use super::money::{money, money_text};
use super::session;
use crate::http::site::{Site, SiteBundle};

/// A cart entry (SPEC "Cart entry"): id, itemId, quantity, chosenVariant (sku,
/// attributes), additionalFields, title, subTotal, purchasePriceCents, productType; plus the
/// product's page (`url`) and main image (`imageUrl`) while the site still has the product.
pub fn entry_json(e: &CartEntry, site: &SiteBundle) -> Value {
    let link = site.products.get(&e.item_id);
    json!({
        "id": e.id,
        "itemId": e.item_id,
        "quantity": e.quantity,
        "chosenVariant": { "sku": e.sku, "attributes": e.attributes },
        "additionalFields": e.additional_fields,
        "title": e.title,
        "subTotal": e.sub_total_minor,
        "purchasePriceCents": e.unit_price_minor,
        "productType": e.product_type,
        "currency": e.currency,
        "variantDescription": variant_description(&e.attributes, link.map_or(&[][..], |l| &l.options)),
        "price": money(e.unit_price_minor, &e.currency),
        "lineTotal": money(e.sub_total_minor, &e.currency),
        "url": link.map(|l| &l.url),
        "imageUrl": link.and_then(|l| l.image.as_ref()),
        "additionalFieldsForm": link.and_then(|l| l.form.as_ref()),
    })
}

/// A variant's options as one line, in the product's option order (`order`; options it
/// does not name follow alphabetically): "Size: M, Colour: Red".
pub fn variant_description(
    attributes: &std::collections::BTreeMap<String, String>,
    order: &[String],
) -> String {
    let rank = |k: &String| order.iter().position(|o| o == k).unwrap_or(order.len());
    let mut pairs: Vec<_> = attributes.iter().collect();
    // Stable: equal ranks keep the map's alphabetical order.
    pairs.sort_by_key(|(k, _)| rank(k));
    pairs
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The SPEC "Shopping cart" entity for `cart` (an empty, unsaved cart when `None`) priced
/// as `totals`.
pub fn cart_json(
    cart: Option<&Cart>,
    totals: &Totals,
    settings: &CommerceSettings,
    site: &Site,
) -> Value {
    let b: &SiteBundle = &site.content;
    let currency = cart
        .and_then(|c| c.currency.clone())
        .unwrap_or_else(|| settings.currency.clone());
    let selected = totals
        .selected_shipping_option
        .as_ref()
        .and_then(|id| totals.shipping_options.iter().find(|q| &q.id == id));
    let shipping_option = |q: &tenants::commerce::pricing::ShippingQuote| json!({ "id": q.id, "name": q.name, "costCents": q.cost_minor, "cost": money(q.cost_minor, &currency) });
    let minimum = settings.minimum_subtotal_minor;
    let below_minimum = minimum.filter(|m| totals.subtotal_minor < *m);
    let entries: Vec<Value> = cart.map_or_else(Vec::new, |c| {
        c.entries.iter().map(|e| entry_json(e, b)).collect()
    });
    let eligible =
        cart.is_some_and(|c| instalments::cart_eligible(c.entries.iter().map(|e| e.product_type)));
    let pill = instalments::quote(
        settings.instalments.as_ref(),
        &b.language,
        totals.grand_total_minor,
    )
    .map(|q| instalments_json(&q, eligible, &currency, &b.locale));
    json!({
        "id": cart.map(|c| c.id.clone()),
        "websiteId": b.website_id,
        "orderId": cart.and_then(|c| c.order_id.clone()),
        "created": cart.map(|c| c.created_ms),
        "isPurchased": cart.is_some_and(|c| c.purchased),
        "revision": cart.map_or(0, |c| c.revision),
        "currency": currency,
        "entries": entries,
        "shippingOptions": totals.shipping_options.iter().map(shipping_option).collect::<Vec<_>>(),
        "selectedShippingOption": selected.map(shipping_option),
        "shippingLocation": cart.and_then(|c| c.shipping_location.as_ref()),
        "shippingUnavailable": totals.shipping_unavailable,
        "applicableTaxRules": totals.applied_taxes.iter().map(|t| json!({
            "name": t.rule.name,
            "country": t.rule.country,
            "region": t.rule.region,
            "rate": t.rule.rate.normalize().to_string(),
            "appliesToShipping": t.rule.applies_to_shipping,
            "taxableCents": t.taxable_minor,
            "taxCents": t.tax_minor,
        })).collect::<Vec<_>>(),
        "pricesIncludeTax": totals.prices_include_tax,
        "coupons": cart.map_or_else(Vec::new, |c| c.coupons.clone()),
        "validCoupons": totals.valid_coupons.iter().map(|a| json!({
            "code": a.coupon.code,
            "type": a.coupon.kind.as_str(),
            "discountCents": a.discount_minor,
        })).collect::<Vec<_>>(),
        "invalidCoupons": totals.invalid_coupons.iter().map(|r| {
            let (reason, message) = coupon_problem(&r.problem, b, &currency);
            json!({ "code": r.code, "reason": reason, "message": message })
        }).collect::<Vec<_>>(),
        "subtotalCents": totals.subtotal_minor,
        "discountCents": totals.discount_minor,
        "shippingCostCents": totals.shipping_minor,
        "taxCents": totals.tax_minor,
        "grandTotalCents": totals.grand_total_minor,
        "subtotal": money(totals.subtotal_minor, &currency),
        "discount": money(totals.discount_minor, &currency),
        "shippingCost": money(totals.shipping_minor, &currency),
        "tax": money(totals.tax_minor, &currency),
        "grandTotal": money(totals.grand_total_minor, &currency),
        "totalQuantity": totals.total_quantity,
        "hasDigital": totals.has_digital,
        "purelyDigital": totals.purely_digital,
        "requiresShipping": totals.requires_shipping,
        "minimumSubtotalCents": minimum,
        "checkoutMessage": below_minimum.map(|m| minimum_subtotal(&money_text(m, &currency, &b.locale))),
        "installments": pill,
        "checkout": checkout_terms(settings),
    })
}

/// What the checkout page offers, beside the cart: where the store ships (`shipsTo`, country
/// codes; null when some option ships anywhere), whether cards go to the test provider, and
/// the pay-later method, if the store has one.
fn checkout_terms(settings: &CommerceSettings) -> Value {
    let anywhere = settings.shipping.iter().any(|o| o.countries.is_empty());
    let ships_to = (!anywhere).then(|| {
        let mut all: Vec<&str> = settings
            .shipping
            .iter()
            .flat_map(|o| o.countries.iter().map(String::as_str))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    });
    json!({
        "shipsTo": ships_to,
        "testMode": settings.payments.test_mode,
        "manualPayment": settings.payments.manual.as_ref().map(|m| json!({
            "label": m.label,
            "instructions": m.instructions,
        })),
    })
}

/// "every month", "every 3 months", "every week", "every 2 years".
pub fn interval(value: i64, unit: &str) -> String {
    let unit = unit.to_ascii_lowercase();
    if value == 1 {
        format!("every {unit}")
    } else {
        format!("every {value} {unit}s")
    }
}

fn payment_json(p: &PaymentMethod, settings: Option<&CommerceSettings>) -> Value {
    match p {
        PaymentMethod::None => json!({ "method": "none" }),
        PaymentMethod::Card { brand, last4, .. } => {
            json!({ "method": "card", "brand": brand, "last4": last4 })
        }
        PaymentMethod::Manual { label } => json!({
            "method": "manual",
            "label": label,
            "instructions": settings
                .and_then(|s| s.payments.manual.as_ref())
                .map(|m| m.instructions.clone()),
        }),
    }
}

/// The SPEC "Order" (id, purchasedCartId, testMode, websiteId, grandTotal, shippingTotal,
/// taxTotal, items with sku, productName, quantity, unitPrice) with what its buyer needs:
/// number, status, every total in cents and as money, addresses, shipping, payment, coupons,
/// taxes, issued gift cards, subscriptions, download links (paid orders), and the links to
/// its confirmation and status pages.
pub fn order_json(o: &Order, site: &Site) -> Value {
    let cur = o.currency.as_str();
    let paid = o.status == OrderStatus::Paid;
    let settings = site.content.commerce.as_deref().ok();
    let items: Vec<Value> = o
        .lines
        .iter()
        .map(|l| {
            let mut item = json!({
                "position": l.position,
                "itemId": l.item_id,
                "sku": l.sku,
                "productName": l.product_name,
                "productType": l.product_type,
                "attributes": l.attributes,
                "quantity": l.quantity,
                "unitPrice": money(l.unit_price_minor, cur),
                "unitPriceCents": l.unit_price_minor,
                "lineTotal": money(l.unit_price_minor * l.quantity, cur),
                "lineTotalCents": l.unit_price_minor * l.quantity,
                "additionalFields": l.additional_fields,
                "variantDescription": variant_description(
                    &l.attributes,
                    site.content.products.get(&l.item_id).map_or(&[][..], |p| &p.options),
                ),
            });
            if l.product_type == tenants::commerce::product_type::DIGITAL && paid {
                item["downloadUrl"] = json!(session::download_url(site, &o.id, l.position));
            }
            let codes: Vec<&str> = o
                .gift_cards
                .iter()
                .filter(|g| g.line_position == l.position)
                .map(|g| g.code.as_str())
                .collect();
            if !codes.is_empty() {
                item["giftCardCodes"] = json!(codes);
            }
            item
        })
        .collect();
    let mut totals = Map::new();
    for (name, minor) in [
        ("subtotal", o.subtotal_minor),
        ("discountTotal", o.discount_minor),
        ("shippingTotal", o.shipping_minor),
        ("taxTotal", o.tax_minor),
        ("grandTotal", o.grand_total_minor),
        ("giftCardTotal", o.gift_card_minor),
        ("amountCharged", o.charged_minor()),
    ] {
        totals.insert(name.to_owned(), money(minor, cur));
        totals.insert(format!("{name}Cents"), json!(minor));
    }
    let mut order = json!({
        "id": o.id,
        "orderNumber": o.order_number,
        "purchasedCartId": o.cart_id,
        "websiteId": site.content.website_id,
        "testMode": o.test_mode,
        "kind": o.kind,
        "status": o.status,
        "createdOn": o.created_ms,
        "paidOn": o.paid_ms,
        "currency": cur,
        "customerEmail": o.customer_email,
        "items": items,
        "shippingAddress": o.details.shipping_address,
        "billingAddress": o.details.billing_address,
        "shippingOption": o.details.shipping_option,
        "payment": payment_json(&o.details.payment, settings),
        "giftCard": o.details.gift_card.as_ref().map(|c| json!({ "last4": &c[c.len().saturating_sub(4)..] })),
        "coupons": o.details.coupons.iter().map(|c| json!({
            "code": c.code, "discountCents": c.discount_minor, "discount": money(c.discount_minor, cur),
        })).collect::<Vec<_>>(),
        "taxes": o.details.taxes.iter().map(|t| json!({
            "name": t.name, "rate": t.rate, "taxableCents": t.taxable_minor, "taxCents": t.tax_minor,
            "tax": money(t.tax_minor, cur),
        })).collect::<Vec<_>>(),
        "pricesIncludeTax": o.details.prices_include_tax,
        "giftCards": o.gift_cards.iter().map(|g| json!({
            "code": g.code,
            "initial": money(g.initial_minor, &g.currency),
            "balance": money(g.balance_minor, &g.currency),
            "balanceCents": g.balance_minor,
        })).collect::<Vec<_>>(),
        "subscriptions": o.subscriptions.iter().map(|s| json!({
            "id": s.id,
            "sku": s.sku,
            "itemId": s.item_id,
            "billingPeriod": { "value": s.period_value, "unit": s.period_unit },
            "interval": interval(s.period_value, &s.period_unit),
            "numBillingCycles": s.num_billing_cycles,
            "cyclesBilled": s.cycles_billed,
            "nextBillingDate": s.next_billing_ms,
            "status": s.status,
            "price": money(s.unit_price_minor * s.quantity, &s.currency),
        })).collect::<Vec<_>>(),
        "statusUrl": session::status_url(site, &o.id),
        "confirmationUrl": session::confirmation_url(site, &o.id),
        "downloadsExpireOn": now_ms() + session::DOWNLOAD_LINK_LIFETIME.as_millis() as i64,
    });
    if let Value::Object(m) = &mut order {
        m.extend(totals);
    }
    order
}
