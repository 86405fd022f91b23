//! The context of an order's emails (the buyer's `order-confirmation` and the owner's
//! `order-notification` templates, [`crate::email::compose`]): amounts as the site writes
//! money, the lines with their variants, the totals labelled as the order page labels them
//! (tax "Including tax" when the prices include it), the order page's link, every gift card
//! code and download link the order gave (download links signed, with when they stop
//! working), the pay-later instructions, the shipping address on one line, the phone and the
//! order notes; and the context of the `gift-card` email a named recipient gets. Every link is
//! absolute, from `origin` (the site's origin the checkout came in on, [`Call::base_url`]).
//!
//! [`Call::base_url`]: crate::http::call::Call::base_url

use serde_json::{Value, json};
use tenants::{Order, OrderStatus, now_ms};

use crate::http::commerce::json::variant_description;
use crate::http::commerce::money::money_text;
use crate::http::commerce::session::{DOWNLOAD_LINK_LIFETIME, download_url, status_url};
use crate::http::site::Site;

/// When links made now stop working, as the site's clock reads it ("2026-11-29 12:00 CET").
fn expiry_text(site: &Site, expires_ms: i64) -> String {
    let tz = jiff::tz::TimeZone::get(&site.content.time_zone).unwrap_or(jiff::tz::TimeZone::UTC);
    jiff::Timestamp::from_millisecond(expires_ms)
        .map(|t| t.to_zoned(tz).strftime("%Y-%m-%d %H:%M %Z").to_string())
        .unwrap_or_default()
}

/// What the order email templates read: `website.siteTitle`, `website.url` and `order.*`.
pub fn confirmation_data(order: &Order, site: &Site, site_title: &str, origin: &str) -> Value {
    let cur = order.currency.as_str();
    let locale = &site.content.locale;
    let text = |minor: i64| money_text(minor, cur, locale);
    let some = |minor: i64| (minor != 0).then(|| text(minor));
    let paid = order.paid_and_standing();
    let mut downloads = Vec::new();
    let mut gift_cards = Vec::new();
    let lines: Vec<Value> = order
        .lines
        .iter()
        .map(|l| {
            let codes: Vec<&str> = order
                .gift_cards
                .iter()
                .filter(|g| g.line_position == l.position)
                .map(|g| g.code.as_str())
                .collect();
            for g in order
                .gift_cards
                .iter()
                .filter(|g| g.line_position == l.position)
            {
                gift_cards.push(json!({
                    "code": g.code,
                    "amount": money_text(g.initial_minor, &g.currency, locale),
                    "title": l.product_name,
                }));
            }
            let download = (paid && l.product_type == tenants::commerce::product_type::DIGITAL)
                .then(|| format!("{origin}{}", download_url(site, &order.id, l.position)));
            if let Some(url) = &download {
                downloads.push(json!({"title": l.product_name, "url": url}));
            }
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
                "giftCardCodes": (!codes.is_empty()).then_some(codes),
                "downloadUrl": download,
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
    let included = order.details.prices_include_tax;
    let downloads_expire = (!downloads.is_empty())
        .then(|| expiry_text(site, now_ms() + DOWNLOAD_LINK_LIFETIME.as_millis() as i64));
    json!({
        "website": { "siteTitle": site_title, "url": origin },
        "order": {
            "id": order.id,
            "orderNumber": order.order_number,
            "url": format!("{origin}{}", status_url(site, &order.id)),
            "awaitingPayment": order.status == OrderStatus::AwaitingPayment,
            "customerName": name,
            "customerEmail": order.customer_email,
            "lines": lines,
            "subtotal": text(order.subtotal_minor),
            "discount": some(order.discount_minor),
            "shipping": order.details.shipping_option.as_ref().map(|_| text(order.shipping_minor)),
            // Added tax, and tax the prices already include (as the order page: "Including
            // tax"), never both.
            "tax": some(order.tax_minor).filter(|_| !included),
            "includedTax": some(order.tax_minor).filter(|_| included),
            "total": text(order.grand_total_minor),
            "giftCardPaid": some(order.gift_card_minor),
            "amountCharged": (order.gift_card_minor != 0).then(|| text(order.charged_minor())),
            "giftCards": (!gift_cards.is_empty()).then_some(&gift_cards),
            "downloads": (!downloads.is_empty()).then_some(&downloads),
            "downloadsExpire": downloads_expire,
            "paymentInstructions": instructions,
            "shippingAddress": address,
            "phone": order.details.shipping_address.as_ref().and_then(|a| a.phone.clone()),
            "notes": order.details.notes,
        },
    })
}

/// What the `gift-card` email to a gift card's recipient reads: `website.*`, `from` (the
/// buyer's name, else their email), `message` (theirs, if any) and `giftCards` (each code
/// with its amount and title, as in the order email).
pub fn gift_card_data(order: &Order, site: &Site, site_title: &str, origin: &str) -> Value {
    let order_data = confirmation_data(order, site, site_title, origin);
    let from = order
        .details
        .billing_address
        .as_ref()
        .or(order.details.shipping_address.as_ref())
        .map(|a| {
            format!("{} {}", a.first_name, a.last_name)
                .trim()
                .to_owned()
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| order.customer_email.clone());
    json!({
        "website": order_data["website"],
        "from": from,
        "message": order.details.gift_card_recipient.as_ref().and_then(|r| r.message.clone()),
        "giftCards": order_data["order"]["giftCards"],
    })
}
