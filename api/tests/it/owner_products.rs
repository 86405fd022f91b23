//! The product form's routes over HTTP on both backends: each product type made and read
//! back (`GET /api/owner/items/{id}`, `GET /api/owner/product-form`), pictures and a
//! digital product's file uploaded with the store role (SPEC.md §5's messages), the rules
//! by field with nothing stored, another site's ids, a role without the store, a session
//! without its CSRF token, and a digital product bought on the site giving its download.

use crate::support::{Backend, Response, Server, Visitor, request};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const PDF: &str = "%PDF-1.4\nA garden planner, the buyer's own.\n%%EOF\n";

on_both_backends!(
    each_product_type_made_and_read_back,
    bad_products_by_field_store_nothing,
    roles_sites_and_sessions,
);

/// A new token of `site` with `role` (`tessera token create`).
fn token(server: &Server, site: &str, role: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["token", "create", site, "--role", role, "--name", "test"])
        .args(server.store_args())
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    text.split_whitespace().last().unwrap().to_owned()
}

fn call(
    server: &Server,
    host: &str,
    token: &str,
    method: &str,
    path: &str,
    body: &Value,
) -> Response {
    server.owner_call(host, token, method, path, body)
}

/// `POST /api/owner/product-files` with a token.
fn upload(server: &Server, token: &str, kind: &str, name: &str, bytes: &str) -> Response {
    let auth = format!("Bearer {token}");
    request(
        server.port,
        "POST",
        LOAM,
        &format!("/api/owner/product-files?fileName={name}&kind={kind}"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/octet-stream"),
        ],
        bytes,
    )
}

/// A download that announces `length` bytes and sends none: (status, whole answer).
fn declared_upload(server: &Server, token: &str, name: &str, length: usize) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    write!(
        s,
        "POST /api/owner/product-files?fileName={name}&kind=download HTTP/1.1\r\nHost: {LOAM}\r\nAuthorization: Bearer {token}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// The shop's item collection path, and its id.
fn shop(server: &Server, token: &str) -> (String, String) {
    let r = call(
        server,
        LOAM,
        token,
        "GET",
        "/api/owner/product-form",
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json()["stores"][0]["id"].as_str().unwrap().to_owned();
    (format!("/api/owner/collections/{id}/items"), id)
}

/// A site form of loam-lantern, stored directly: its id.
fn engraving_form(server: &Server) -> String {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_identifier("loam-lantern").await.unwrap().unwrap();
            s.put_form(
                t.id,
                &tenants::Form {
                    id: String::new(),
                    name: "Monogram".into(),
                    fields: json!([{"id": "letters", "type": "text", "title": "Letters", "required": true}]),
                    settings: Default::default(),
                },
            )
            .await
            .unwrap()
        })
    })
}

fn each_product_type_made_and_read_back(backend: Backend) {
    let server = Server::start(backend, &["--checkouts-per-minute", "100000"]);
    let manager = token(&server, "loam-lantern", "store-manager");
    let (items, _) = shop(&server, &manager);
    let form_id = engraving_form(&server);

    // The one call the form makes for a new product: stores, categories, forms.
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        "/api/owner/product-form",
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let form = r.json();
    assert_eq!(form["product"], Value::Null);
    let names: Vec<&str> = form["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Plants & Pots") && names.contains(&"Guides"),
        "{names:?}"
    );
    assert!(
        form["forms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == form_id.as_str() && f["name"] == "Monogram")
    );

    // Physical, with a picture, options, weights, categories and an additional-fields form.
    let r = upload(
        &server,
        &manager,
        "image",
        "bowl.gif",
        "GIF89a\x01\x00\x01\x00",
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let picture = r.json()["url"].as_str().unwrap().to_owned();
    assert_eq!(
        request(server.port, "GET", LOAM, &picture, &[], "").status,
        200
    );
    let physical = json!({
        "urlId": "glaze-bowl", "title": "Glaze Bowl", "body": "<p>Stoneware.</p>",
        "productType": 1, "categories": ["Plants & Pots"], "tags": ["clay"],
        "images": [{"url": picture, "altText": "A blue bowl on a table", "decorative": false},
                   {"url": "/assets/products/fern-terracotta-pot.jpg", "altText": "", "decorative": true}],
        "structuredContent": {"variantOptionOrdering": ["Size", "Glaze"], "additionalFieldsFormId": form_id},
        "variants": [
            {"sku": "GB-S-B", "attributes": {"Size": "S", "Glaze": "Blue"}, "price": "24.00", "stock": 3, "weightGrams": 400},
            {"sku": "GB-L-B", "attributes": {"Size": "L", "Glaze": "Blue"}, "price": "34.00", "salePrice": "30.00", "onSale": true, "unlimited": true, "weightGrams": 900},
        ],
    });
    let r = call(&server, LOAM, &manager, "POST", &items, &physical);
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        &format!("/api/owner/items/{id}"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let got = r.json();
    assert_eq!(got["title"], "Glaze Bowl");
    assert_eq!(got["categories"], json!(["Plants & Pots"]));
    assert_eq!(got["variants"][1]["weightGrams"], 900);
    assert_eq!(got["variants"][1]["salePriceMinor"], 3000);
    assert_eq!(got["data"]["assetUrl"], picture.as_str());
    assert_eq!(
        got["structuredContent"]["additionalFieldsForm"]["name"],
        "Monogram"
    );
    assert_eq!(
        got["structuredContent"]["additionalFieldsForm"]["fields"][0]["id"],
        "letters"
    );
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        &format!("/api/owner/product-form?id={id}"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["images"],
        json!([{"url": picture, "altText": "A blue bowl on a table", "decorative": false},
               {"url": "/assets/products/fern-terracotta-pot.jpg", "altText": "", "decorative": true}])
    );
    // The page shows it with its picture and asks for the form's answers in the cart.
    let page = request(server.port, "GET", LOAM, "/shop/glaze-bowl", &[], "").body;
    assert!(
        page.contains("Glaze Bowl") && page.contains(&picture),
        "{page}"
    );
    // A patch reorders the pictures and drops the form; the rest stays.
    let r = call(
        &server,
        LOAM,
        &manager,
        "PATCH",
        &format!("/api/owner/items/{id}"),
        &json!({"images": [{"url": "/assets/products/fern-terracotta-pot.jpg", "altText": "A pot", "decorative": false}],
                "structuredContent": {"additionalFieldsFormId": ""}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let got = r.json();
    assert_eq!(
        got["data"]["assetUrl"],
        "/assets/products/fern-terracotta-pot.jpg"
    );
    assert_eq!(got["data"]["items"].as_array().unwrap().len(), 1);
    assert!(
        got["structuredContent"]
            .get("additionalFieldsForm")
            .is_none(),
        "{got}"
    );
    assert_eq!(
        got["structuredContent"]["variantOptionOrdering"],
        json!(["Size", "Glaze"])
    );

    // Digital: one price and its file, moved out of the public uploads.
    let r = upload(&server, &manager, "download", "planner.pdf", PDF);
    assert_eq!(r.status, 201, "{}", r.body);
    let file = r.json();
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "pot-planner", "title": "Pot Planner", "productType": 2, "categories": ["Guides"],
        "digitalFile": {"assetId": file["id"]},
        "variants": [{"sku": "PP-1", "price": "12.50", "unlimited": true}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let digital = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        &format!("/api/owner/product-form?id={digital}"),
        &Value::Null,
    );
    assert_eq!(r.json()["digitalFile"], json!({"fileName": "planner.pdf"}));
    assert_eq!(r.json()["product"]["productType"], 2);
    let public = request(
        server.port,
        "GET",
        LOAM,
        file["url"].as_str().unwrap(),
        &[],
        "",
    );
    assert_eq!(public.status, 404, "a paid download is not public");
    // A change that names no new file keeps the one it has.
    let r = call(
        &server,
        LOAM,
        &manager,
        "PATCH",
        &format!("/api/owner/items/{digital}"),
        &json!({"title": "Pot Planner (PDF)"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // Bought on the site, it gives its download.
    let mut buyer = Visitor::arrive(&server, LOAM, "10.7.0.1");
    let r = buyer.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": digital, "sku": "PP-1", "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = buyer.post("/api/commerce/checkout", json!({
        "email": "ada@example.com",
        "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12, "expYear": 2099, "cvc": "123"}}}));
    assert_eq!(r.status, 201, "{}", r.body);
    let link = r.json()["order"]["items"][0]["downloadUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let got = buyer.get(&link);
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(got.body, PDF);
    assert!(
        got.header("content-disposition")
            .unwrap()
            .contains("planner.pdf")
    );

    // Service; gift card with its amounts; subscription with its plan.
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "pot-clinic-visit", "title": "Pot Clinic Visit", "productType": 3,
        "variants": [{"sku": "RV-1", "price": "40.00", "unlimited": true}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["productType"], 3);
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "pot-gift-card", "title": "Pot Gift Card", "productType": 4,
        "structuredContent": {"variantOptionOrdering": ["Amount"]},
        "variants": [{"sku": "PGC-20", "attributes": {"Amount": "€20"}, "price": "20.00", "unlimited": true},
                     {"sku": "PGC-50", "attributes": {"Amount": "€50"}, "price": "50.00", "unlimited": true}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let card = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        &format!("/api/owner/items/{card}"),
        &Value::Null,
    );
    assert_eq!(r.json()["variants"][1]["priceMinor"], 5000);
    let plan = json!({"billingPeriod": {"value": 2, "unit": "WEEK"}, "numBillingCycles": 6});
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "herb-box", "title": "Herb Box", "productType": 1,
        "structuredContent": {"isSubscribable": true, "subscriptionPlan": plan},
        "variants": [{"sku": "HB-1", "price": "12.00", "stock": 5, "weightGrams": 700}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let sub = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        &format!("/api/owner/items/{sub}"),
        &Value::Null,
    );
    assert_eq!(r.json()["structuredContent"]["subscriptionPlan"], plan);
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        "/api/owner/products?type=subscription&q=herb",
        &Value::Null,
    );
    assert_eq!(r.json()["products"][0]["id"], sub.as_str(), "{}", r.body);
}

fn bad_products_by_field_store_nothing(backend: Backend) {
    let server = Server::start(backend, &[]);
    let manager = token(&server, "loam-lantern", "store-manager");
    let (items, _) = shop(&server, &manager);
    let count = |server: &Server| {
        call(server, LOAM, &manager, "GET", &items, &Value::Null).json()["items"]
            .as_array()
            .unwrap()
            .len()
    };
    let before = count(&server);

    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "ab", "title": "Bad", "productType": 1, "categories": ["Plants & Pots", "Plants & Pots", "Not a category", "A category far too long to be one"],
        "tags": ["x".repeat(51)],
        "images": [{"url": "/_tessera/files/x/a.gif", "altText": " "}, {"url": "", "altText": "A", "decorative": false}],
        "structuredContent": {"isSubscribable": true, "subscriptionPlan": {"billingPeriod": {"value": 0, "unit": "DAY"}, "numBillingCycles": -1},
                              "variantOptionOrdering": ["Size"]},
        "variants": [{"sku": "B-1", "attributes": {"Size": "S"}, "price": "1.00", "weightGrams": -5},
                     {"sku": "B-2", "attributes": {"Size": "S"}, "price": "1.00"},
                     {"sku": "B-3", "attributes": {"Colour": "Red"}, "price": "1.00"}]}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "urlId": "A URL id is 3-200 of a-z, 0-9, '-', '_' or '.'.",
            "categories[1]": "This category already exists",
            "categories[2]": "That category does not exist in this store.",
            "categories[3]": "A category name has at most 25 characters.",
            "tags[0]": "A tag has at most 50 characters.",
            "images[0].altText": "Please enter alt text, or mark the image as decorative.",
            "images[1].url": "An image needs its address (upload it first).",
            "structuredContent.subscriptionPlan.billingPeriod.value": "A billing period is a whole number from 1 to 52.",
            "structuredContent.subscriptionPlan.billingPeriod.unit": "A billing period's unit is WEEK, MONTH or YEAR.",
            "structuredContent.subscriptionPlan.numBillingCycles": "The number of billing cycles is a whole number from 0 (never ends) to 999.",
            "variants[0].weightGrams": "A weight is whole grams from 0 to 1,000,000.",
            "variants[1].attributes": "Another variant has these options.",
            "variants[2].attributes": "Each variant has a value for each option, and only those: Size.",
        })
    );
    // A digital good: one price, and its file; a gift card's amounts are more than 0; a
    // subscription is physical; an unknown form.
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "bad-digital", "title": "Bad", "productType": 2,
        "structuredContent": {"additionalFieldsFormId": "no-such-form"},
        "variants": [{"sku": "D-1", "price": "1.00"}, {"sku": "D-2", "price": "2.00"}]}),
    );
    assert_eq!(
        r.json()["errors"],
        json!({
            "variants": "A digital product has a single price: one variant.",
            "digitalFile": "A digital product needs its file: upload one.",
            "structuredContent.additionalFieldsFormId": "That form does not exist.",
        }),
        "{}",
        r.body
    );
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "bad-digital", "title": "Bad", "productType": 2, "digitalFile": {"assetId": "000000000000000000000000"},
        "variants": [{"sku": "D-1", "price": "1.00"}]}),
    );
    assert_eq!(
        r.json()["errors"],
        json!({"digitalFile": "That upload does not exist (upload the file again)."}),
        "{}",
        r.body
    );
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "bad-card", "title": "Bad", "productType": 4,
        "structuredContent": {"isSubscribable": true},
        "variants": [{"sku": "G-0", "price": "0.00"}]}),
    );
    assert_eq!(
        r.json()["errors"],
        json!({
            "variants[0].price": "A gift card's amount is more than 0.",
            "productType": "A subscription is a physical product.",
            "structuredContent.subscriptionPlan": "A subscription needs its plan: a billing period and a number of billing cycles.",
        }),
        "{}",
        r.body
    );
    let too_many: Vec<Value> = (0..7).map(|i| json!(format!("O{i}"))).collect();
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "bad-options", "title": "Bad", "structuredContent": {"variantOptionOrdering": too_many},
        "variants": [{"sku": "O-1", "price": "1.00"}]}),
    );
    assert_eq!(
        r.json()["errors"],
        json!({"structuredContent.variantOptionOrdering": "A product has at most 6 options."})
    );
    assert_eq!(count(&server), before, "nothing stored");

    // Uploads: SPEC.md §5's messages, verbatim.
    let r = upload(&server, &manager, "image", "notes.pdf", PDF);
    assert_eq!(
        (r.status, r.message()),
        (
            415,
            "The file notes.pdf does not appear to be a supported image file.".to_owned()
        )
    );
    let r = upload(&server, &manager, "download", "notes.txt", "plain words");
    assert_eq!(
        (r.status, r.message()),
        (415, "The file notes.txt does not appear to be a supported PDF, ZIP, MP3, MP4 or image file.".to_owned())
    );
    let (status, answer) = declared_upload(&server, &manager, "big.pdf", 20_000_001);
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer.contains("The file big.pdf is too large. The maximum allowed file size is 20 MB."),
        "{answer}"
    );
    let r = upload(&server, &manager, "video", "a.gif", "GIF89a");
    assert_eq!(
        r.json()["errors"],
        json!({"kind": "kind is image or download."})
    );
    let r = upload(&server, &manager, "image", "", "GIF89a");
    assert_eq!(
        r.json()["errors"],
        json!({"fileName": "Please enter a file name"})
    );
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = Server::start(backend, &[]);
    let manager = token(&server, "loam-lantern", "store-manager");
    let editor = token(&server, "loam-lantern", "editor");
    let harbor = token(&server, "harbor-lane", "admin");
    let (items, _) = shop(&server, &manager);
    let r = call(
        &server,
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({
        "urlId": "role-pot", "title": "Role Pot", "variants": [{"sku": "RP-1", "price": "3.00", "stock": 1}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let item = format!("/api/owner/items/{id}");
    let form = format!("/api/owner/product-form?id={id}");

    // Another site's ids are not found there.
    assert_eq!(
        call(&server, HARBOR, &harbor, "GET", &item, &Value::Null).status,
        404
    );
    let r = call(&server, HARBOR, &harbor, "GET", &form, &Value::Null);
    assert_eq!(
        (r.status, r.message()),
        (404, "That product does not exist.".to_owned())
    );
    assert_eq!(
        call(
            &server,
            HARBOR,
            &harbor,
            "PATCH",
            &item,
            &json!({"title": "x"})
        )
        .status,
        404
    );
    let r = call(
        &server,
        LOAM,
        &manager,
        "GET",
        "/api/owner/product-form?id=000000000000000000000000",
        &Value::Null,
    );
    assert_eq!(r.status, 404);
    // A role without the store: not offered, and refused.
    assert_eq!(
        call(&server, LOAM, &editor, "GET", &form, &Value::Null).status,
        403
    );
    assert_eq!(
        call(&server, LOAM, &editor, "GET", &item, &Value::Null).status,
        403
    );
    assert_eq!(
        upload(&server, &editor, "image", "a.gif", "GIF89a").status,
        403
    );
    assert_eq!(
        call(
            &server,
            LOAM,
            &editor,
            "PATCH",
            &item,
            &json!({"title": "x"})
        )
        .status,
        403
    );
    assert_eq!(
        call(&server, LOAM, "", "GET", &form, &Value::Null).status,
        401
    );

    // A session: reads without its CSRF token, changes only with it.
    let cookie = crate::owner_accounts::owner_session(&server, "loam-lantern", LOAM);
    let r = request(server.port, "GET", LOAM, &form, &[("Cookie", &cookie)], "");
    assert_eq!(r.status, 200, "{}", r.body);
    let csrf = request(
        server.port,
        "GET",
        LOAM,
        "/api/owner/session",
        &[("Cookie", &cookie)],
        "",
    )
    .json()["csrf"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!csrf.is_empty());
    let patch = |headers: &[(&str, &str)]| {
        let mut h = vec![
            ("Cookie", cookie.as_str()),
            ("Content-Type", "application/json"),
        ];
        h.extend_from_slice(headers);
        request(
            server.port,
            "PATCH",
            LOAM,
            &item,
            &h,
            &json!({"title": "Session Pot"}).to_string(),
        )
    };
    assert_eq!(patch(&[]).status, 403);
    let up = |headers: &[(&str, &str)]| {
        let mut h = vec![("Cookie", cookie.as_str())];
        h.extend_from_slice(headers);
        request(
            server.port,
            "POST",
            LOAM,
            "/api/owner/product-files?fileName=a.gif&kind=image",
            &h,
            "GIF89a",
        )
    };
    assert_eq!(up(&[]).status, 403);
    assert_eq!(
        call(&server, LOAM, &manager, "GET", &item, &Value::Null).json()["title"],
        "Role Pot"
    );
    assert_eq!(patch(&[("X-CSRF-Token", &csrf)]).status, 200);
    assert_eq!(up(&[("X-CSRF-Token", &csrf)]).status, 201);
    assert_eq!(
        call(&server, LOAM, &manager, "GET", &item, &Value::Null).json()["title"],
        "Session Pot"
    );
}
