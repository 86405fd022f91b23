//! A store's pages: the built-in product list and product view (a template without
//! `products.list` / `products.item`), and prices as any template prints them.

use std::sync::Arc;

use renderer::folder::{TemplateFiles, load};
use renderer::render::{Request, render};
use renderer::site::SiteContent;

use crate::common::LAYOUT;

/// The layout alone (built-in views), or with a `featured` page type whose list prints
/// `product-price` itself.
fn folder() -> renderer::folder::TemplateFolder {
    let files: TemplateFiles = LAYOUT
        .into_iter()
        .chain([(
            "blocks/nav.block",
            "<nav>{.repeated section items}<a href=\"{collection.fullUrl}\">{collection.navigationTitle}</a>{.end}</nav>",
        )])
        .chain([(
            "collections/featured.list",
            "{.repeated section items}<p class=\"card\">{title}: {@|product-price}</p>{.end}",
        )])
        .chain([("collections/featured.conf", r#"{ "title": "Featured" }"#)])
        .map(|(k, v)| (k.to_string(), Arc::from(v.as_bytes())))
        .collect();
    let f = load(&files);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    f
}

fn variant(sku: &str, size: &str, price: &str, stock: u32) -> serde_json::Value {
    let cents = (price.parse::<f64>().unwrap() * 100.0).round() as u64;
    serde_json::json!({
        "price": cents, "salePrice": 0,
        "sku": sku, "attributes": { "Size": size }, "optionValues": [{ "name": "Size", "value": size }],
        "priceMoney": { "currency": "EUR", "value": price },
        "salePriceMoney": { "currency": "EUR", "value": "0.00" }, "onSale": false,
        "qtyInStock": stock, "unlimited": false
    })
}

fn products() -> serde_json::Value {
    serde_json::json!([
        { "id": "p1", "urlId": "pot", "fullUrl": "/shop/pot", "title": "Terracotta Pot", "recordType": 11,
          "structuredContent": { "productType": 1, "variantOptionOrdering": ["Size"],
            "variants": [variant("POT-S", "Small", "14.00", 4), variant("POT-L", "Large", "22.00", 2)] } },
        { "id": "p2", "urlId": "bowl", "fullUrl": "/shop/bowl", "title": "Serving Bowl", "recordType": 11,
          "structuredContent": { "productType": 1, "variants": [variant("BOWL", "One", "96.00", 0)] } },
        { "id": "p3", "urlId": "guide", "fullUrl": "/shop/guide", "title": "Care Guide", "recordType": 11,
          "structuredContent": { "productType": 2,
            "priceMoney": { "currency": "EUR", "value": "9.50" } } }
    ])
}

fn site() -> SiteContent {
    let doc = serde_json::json!({
        "website": { "siteTitle": "Pots", "language": "en-US", "timeZone": "Europe/Lisbon" },
        "websiteSettings": { "storeSettings": { "selectedCurrency": "EUR" } },
        "collections": [
            { "id": "c1", "urlId": "shop", "fullUrl": "/shop", "title": "Shop", "navigationTitle": "Shop",
              "typeName": "products", "type": 13, "items": products() },
            { "id": "c2", "urlId": "featured", "fullUrl": "/featured", "title": "Featured",
              "navigationTitle": "Featured", "typeName": "featured", "type": 13, "items": products() }
        ],
        "navigations": { "main": ["shop", "featured"] }
    });
    SiteContent::from_json(&doc).unwrap()
}

fn body(path: &str) -> String {
    let p = render(
        &site(),
        &folder(),
        &Request {
            path,
            query: "",
            unlocked: &[],
            ..Default::default()
        },
    );
    assert_eq!(p.status, 200, "{path}: {}", p.body);
    p.body
}

/// The text of `body` with its tags and runs of white space taken out.
fn text(body: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_price_a_page_prints_carries_its_currency() {
    // The built-in view, before any variant is chosen: "from" the lowest price, in euros.
    let pot = text(&body("/shop/pot"));
    assert!(pot.contains("from €14.00"), "{pot}");
    // A template's own list.
    let featured = text(&body("/featured"));
    for shown in [
        "Terracotta Pot: from €14.00",
        "Serving Bowl: €96.00",
        "Care Guide: €9.50",
    ] {
        assert!(featured.contains(shown), "{shown}: {featured}");
    }
    assert!(!body("/featured").contains("sqs-money-native"));
}

#[test]
fn the_built_in_list_shows_each_products_price_and_mark() {
    let shop = body("/shop");
    let t = text(&shop);
    for shown in [
        "Terracotta Pot from €14.00",
        "Serving Bowl €96.00",
        "Care Guide €9.50",
    ] {
        assert!(t.contains(shown), "{shown}: {t}");
    }
    assert!(
        shop.contains("<div class=\"product-mark sold-out\">sold out</div>"),
        "{shop}"
    );
}

#[test]
fn the_built_in_view_shows_a_sold_out_product_sold_out_with_no_add_to_cart() {
    let bowl = body("/shop/bowl");
    assert!(
        bowl.contains("<div class=\"product-mark sold-out\">sold out</div>"),
        "{bowl}"
    );
    assert!(
        bowl.contains(
            "<button type=\"button\" class=\"product-sold-out-button\" disabled>Sold Out</button>"
        ),
        "{bowl}"
    );
    // Nothing the add-to-cart island would make a live button of, and no quantity.
    assert!(!bowl.contains("data-item-id"), "{bowl}");
    assert!(!bowl.contains("sqs-add-to-cart-button"), "{bowl}");
    assert!(!bowl.contains("Add To Cart"), "{bowl}");
    // A product in stock keeps its live button, variant choice and quantity.
    let pot = body("/shop/pot");
    assert!(
        pot.contains("class=\"sqs-add-to-cart-button ") && pot.contains("Add To Cart"),
        "{pot}"
    );
    assert!(pot.contains("data-variant-option-name=\"Size\""), "{pot}");
    assert!(pot.contains("class=\"item tessera-product\""), "{pot}");
    // A digital good is never sold out, and has its price and button.
    let guide = text(&body("/shop/guide"));
    assert!(
        guide.contains("€9.50") && guide.contains("Add To Cart"),
        "{guide}"
    );
}
