//! The order confirmation email's context (the `order-confirmation` templates,
//! [`crate::email::compose`]): amounts as the site writes money, the lines with their
//! variants, the pay-later instructions, the shipping address on one line.

use serde_json::{Value, json};
use tenants::Order;

use crate::http::commerce::json::variant_description;
use crate::http::commerce::money::money_text;
use crate::http::site::Site;

/// What the confirmation templates read: `website.siteTitle` and `order.*`.
pub fn confirmation_data(order: &Order, site: &Site, site_title: &str) -> Value {
    let cur = order.currency.as_str();
    let locale = &site.content.locale;
    let text = |minor: i64| money_text(minor, cur, locale);
    let some = |minor: i64| (minor != 0).then(|| text(minor));
    let lines: Vec<Value> = order
        .lines
        .iter()
        .map(|l| {
            let options = site
                .content
                .products
                .get(&l.item_id)
                .map_or(&[][..], |p| &p.options);
            let description = variant_description(&l.attributes, options);
            json!({
                "quantity": l.quantity,
                "title": l.product_name,
                "description": (!description.is_empty()).then_some(description),
                "total": text(l.unit_price_minor * l.quantity),
            })
        })
        .collect();
    let address = order.details.shipping_address.as_ref().map(|a| {
        [
            Some(
                format!("{} {}", a.first_name, a.last_name)
                    .trim()
                    .to_owned(),
            ),
            Some(a.line1.clone()),
            a.line2.clone(),
            Some(format!("{} {}", a.postal_code, a.city).trim().to_owned()),
            a.region.clone(),
            Some(a.country.clone()),
        ]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
    });
    let name = order
        .details
        .billing_address
        .as_ref()
        .or(order.details.shipping_address.as_ref())
        .map(|a| a.first_name.clone())
        .filter(|n| !n.is_empty());
    let instructions = match &order.details.payment {
        tenants::PaymentMethod::Manual { .. } => site
            .content
            .commerce
            .payments
            .manual
            .as_ref()
            .map(|m| m.instructions.clone()),
        _ => None,
    };
    json!({
        "website": { "siteTitle": site_title },
        "order": {
            "id": order.id,
            "orderNumber": order.order_number,
            "customerName": name,
            "customerEmail": order.customer_email,
            "lines": lines,
            "subtotal": text(order.subtotal_minor),
            "discount": some(order.discount_minor),
            "shipping": order.details.shipping_option.as_ref().map(|_| text(order.shipping_minor)),
            "tax": some(order.tax_minor),
            "total": text(order.grand_total_minor),
            "paymentInstructions": instructions,
            "shippingAddress": address,
        },
    })
}
