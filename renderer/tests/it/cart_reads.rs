//! What a page reads of the visitor's cart (`renderer::cart_reads`): a page of a folder that
//! reads only the cart's quantity and subtotal prints the same bytes for two carts with the
//! same of those, and says so (`Page::cart_keyed`); the cart's own pages and JSON never do.

use std::sync::Arc;

use renderer::cart_reads::CartReads;
use renderer::folder::{TemplateFiles, TemplateFolder, load};
use renderer::render::{Page, Request, render};
use renderer::site::SiteContent;
use template_lang::value::Node;

/// A layout whose header prints the cart as the demo store's does (its quantity, and its
/// subtotal when it has items), and `extra` in the main region.
fn folder(extra: &str) -> TemplateFolder {
    let region = format!(
        "<html><head>{{squarespace-headers}}</head><body><a href=\"/cart\">{{shoppingCart|cart-quantity}}\
         {{.section shoppingCart}}<span class=\"cart-subtotal\">{{.if totalQuantity}}{{subtotal|money}}{{.end}}</span>{{.end}}</a>\
         {extra}<main>{{squarespace.main-content}}</main></body></html>"
    );
    let files: TemplateFiles = [
        (
            "template.conf",
            r#"{ "name": "Test", "layouts": { "default": { "name": "Default", "regions": ["site"] } } }"#.to_string(),
        ),
        ("site.region", region),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Arc::from(v.as_bytes())))
    .collect();
    let f = load(&files);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    f
}

fn site() -> SiteContent {
    let doc = serde_json::json!({
        "website": { "siteTitle": "Pots", "language": "en-US", "timeZone": "Europe/Lisbon" },
        "websiteSettings": { "storeSettings": { "selectedCurrency": "EUR" } },
        "collections": [
            { "id": "c1", "urlId": "shop", "fullUrl": "/shop", "title": "Shop", "navigationTitle": "Shop",
              "typeName": "products", "type": 13, "items": [
                { "id": "p1", "urlId": "pot", "fullUrl": "/shop/pot", "title": "Terracotta Pot", "recordType": 11,
                  "structuredContent": { "productType": 2,
                    "priceMoney": { "currency": "EUR", "value": "14.00" } } } ] }
        ]
    });
    SiteContent::from_json(&doc).unwrap()
}

/// A cart of these entries (name, quantity, price each).
fn cart(id: &str, entries: &[(&str, f64, f64)]) -> Node {
    let total: f64 = entries.iter().map(|e| e.1).sum();
    let subtotal: f64 = entries.iter().map(|e| e.1 * e.2).sum();
    Node::from_json(&serde_json::json!({
        "id": id,
        "entries": entries.iter().map(|(name, q, p)| serde_json::json!({
            "productName": name, "quantity": q,
            "unitPrice": { "currency": "EUR", "value": format!("{p:.2}") },
        })).collect::<Vec<_>>(),
        "totalQuantity": total,
        "subtotal": { "currency": "EUR", "value": format!("{subtotal:.2}") },
        "subtotalCents": (subtotal * 100.0).round(),
    }))
}

fn page(folder: &TemplateFolder, path: &str, query: &str, cart: Option<&Node>) -> Page {
    render(
        &site(),
        folder,
        &Request {
            path,
            query,
            cart,
            ..Default::default()
        },
    )
}

#[test]
fn two_carts_with_the_same_quantity_and_subtotal_print_the_same_page() {
    let f = folder("");
    assert_eq!(
        f.cart_reads,
        CartReads::Parts {
            quantity: true,
            members: vec!["subtotal".into(), "totalQuantity".into()],
        }
    );
    let a = cart("cart-a", &[("Terracotta Pot", 2.0, 14.0)]);
    let b = cart(
        "cart-b",
        &[("Serving Bowl", 1.0, 10.0), ("Care Guide", 1.0, 18.0)],
    );
    assert_eq!(f.cart_reads.key(&a), f.cart_reads.key(&b));
    for path in ["/shop", "/shop/pot"] {
        let (pa, pb) = (page(&f, path, "", Some(&a)), page(&f, path, "", Some(&b)));
        assert_eq!(pa.status, 200, "{}", pa.body);
        assert!(pa.cart_keyed && pb.cart_keyed, "{path}");
        assert_eq!(pa.body, pb.body, "{path}");
        assert!(pa.body.contains(">2</span>"), "{}", pa.body);
        // Another quantity: another key and another page.
        let c = cart("cart-a", &[("Terracotta Pot", 3.0, 14.0)]);
        assert_ne!(f.cart_reads.key(&a), f.cart_reads.key(&c));
        assert_ne!(page(&f, path, "", Some(&c)).body, pa.body, "{path}");
    }
    // Without a cart, nothing to key.
    assert!(!page(&f, "/shop", "", None).cart_keyed);
}

#[test]
fn the_carts_own_pages_its_json_and_a_folder_that_prints_more_are_not_keyed() {
    let f = folder("");
    let a = cart("cart-a", &[("Terracotta Pot", 2.0, 14.0)]);
    for (path, query) in [
        ("/cart", ""),
        ("/checkout", ""),
        ("/shop/pot", "format=json"),
    ] {
        let p = page(&f, path, query, Some(&a));
        assert!(!p.cart_keyed, "{path}?{query}: {}", p.status);
    }
    let more = folder(
        "{.section shoppingCart}{.repeated section entries}<i>{productName}</i>{.end}{.end}",
    );
    assert_eq!(more.cart_reads, CartReads::Any);
    let p = page(&more, "/shop/pot", "", Some(&a));
    assert!(p.body.contains("<i>Terracotta Pot</i>"), "{}", p.body);
    assert!(!p.cart_keyed);
}

#[test]
fn the_demo_store_reads_its_carts_quantity_and_subtotal() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/loam-lantern/template");
    let f = load(&renderer::folder::read_dir(&root).expect("the demo template"));
    assert_eq!(
        f.cart_reads,
        CartReads::Parts {
            quantity: true,
            members: vec!["subtotal".into(), "totalQuantity".into()],
        }
    );
}
