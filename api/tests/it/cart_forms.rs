//! The cart without JavaScript (issue 42, item 6), over HTTP against the real `tessera
//! serve` on both backends: a product page's Add To Cart is a form post (the template's own
//! product page on loam-lantern, the built-in product view on harbor-lane) and so are the
//! cart page's quantity and remove; each is answered with 303 to a page, refused ones with
//! the JSON API's message (SPEC's wording), shown escaped on the page they come back to.

use crate::support::{Backend, Response, Server, Visitor, item_id};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const ADD: &str = "/api/commerce/shopping-cart/form/add";

fn start(backend: Backend) -> Server {
    Server::start(backend, &["--cart-writes-per-minute", "100000"])
}

/// The value of the first `name="<name>" value="..."` on a page.
fn field(page: &str, name: &str) -> Option<String> {
    let key = format!("name=\"{name}\" value=\"");
    let at = page.find(&key)? + key.len();
    Some(page[at..at + page[at..].find('"')?].to_owned())
}

/// A form post as a browser without JavaScript sends it: form-encoded, the crumb a field
/// (no `X-CSRF-Token`), the visitor's cookies.
fn post_form(v: &mut Visitor, path: &str, pairs: &[(&str, &str)]) -> Response {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let send = v.send_crumb;
    v.send_crumb = false;
    let r = v.send(
        "POST",
        path,
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &body,
    );
    v.send_crumb = send;
    r
}

fn location(r: &Response) -> String {
    assert_eq!(r.status, 303, "{}\n{}", r.head, r.body);
    r.header("location").unwrap_or_default().to_owned()
}

/// The message a page shows by a button or atop the cart.
fn shown_message(page: &str) -> Option<String> {
    let key = "<p class=\"tessera-cart-message\" role=\"alert\">";
    let at = page.find(key)? + key.len();
    Some(page[at..at + page[at..].find("</p>")?].to_owned())
}

/// Posts the add form and follows a refusal back to its page: the message shown there.
fn refused(v: &mut Visitor, back: &str, pairs: &[(&str, &str)]) -> String {
    let to = location(&post_form(v, ADD, pairs));
    assert!(to.starts_with(&format!("{back}?")), "{to}");
    let page = v.get(&to);
    assert_eq!(page.status, 200);
    shown_message(&page.body).unwrap_or_else(|| panic!("no message on {to}: {}", page.body))
}

/// The JSON add's message for the same thing.
fn json_message(v: &mut Visitor, body: Value) -> String {
    let r = v.post("/api/commerce/shopping-cart/entries", body);
    assert!(r.status >= 400, "{}", r.body);
    r.message()
}

fn quantities(v: &mut Visitor) -> Vec<(String, i64)> {
    v.cart()["entries"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|x| {
                    (
                        x["chosenVariant"]["sku"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        x["quantity"].as_i64().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn add_to_cart_without_javascript(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::new(&server, LOAM, "203.0.113.61");
    let pot_path = "/shop/fern-terracotta-pot";
    let pot_id = item_id("loam-lantern", "fern-terracotta-pot");

    // The page is the form: crumb (the cookie this view sets), item, the select named, the
    // quantity, and a submit button that keeps the classes templates style.
    let page = v.get(pot_path);
    assert_eq!(page.status, 200);
    let crumb = v.crumb().expect("the page view sets a crumb");
    assert_eq!(field(&page.body, "crumb").as_deref(), Some(crumb.as_str()));
    assert_eq!(
        field(&page.body, "itemId").as_deref(),
        Some(pot_id.as_str())
    );
    assert_eq!(field(&page.body, "back").as_deref(), Some(pot_path));
    assert!(
        page.body.contains(&format!("action=\"{ADD}\" hidden>")),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("data-variant-option-name=\"Size\" name=\"variant-option-Size\" form=\"tessera-cart-add-1\">"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(
            "<button type=\"submit\" form=\"tessera-cart-add-1\" class=\"sqs-add-to-cart-button "
        ),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("name=\"quantity\" form=\"tessera-cart-add-1\">"),
        "{}",
        page.body
    );
    assert!(
        page.header("cache-control")
            .unwrap_or_default()
            .contains("private"),
        "a page with the visitor's crumb is not for shared caches: {}",
        page.head
    );

    // Added: 303 to the cart, with the cart cookie; the cart page lists it.
    let base = [
        ("crumb", crumb.as_str()),
        ("itemId", pot_id.as_str()),
        ("purchase", "cart"),
        ("back", pot_path),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut p: Vec<(&str, &str)> = base.to_vec();
        p.extend_from_slice(extra);
        p
    };
    let r = post_form(
        &mut v,
        ADD,
        &with(&[("variant-option-Size", "Small, 10 cm"), ("quantity", "2")]),
    );
    assert_eq!(location(&r), "/cart");
    assert!(
        r.headers("set-cookie")
            .iter()
            .any(|c| c.starts_with("tessera-cart=")),
        "{}",
        r.head
    );
    assert_eq!(quantities(&mut v), [("FTP-S".to_owned(), 2)]);
    let cart = v.get("/cart");
    assert!(cart.body.contains("Fern Terracotta Pot"), "{}", cart.body);

    // Refused: back to the product with the JSON API's message (SPEC's wording), by the
    // button; the cart is as it was.
    // What the form sends, the page's message, and the same add in JSON.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, Value);
    let cases: [Case; 4] = [
        (
            &[("variant-option-Size", ""), ("quantity", "1")],
            "Please select the Size option.",
            json!({"itemId": pot_id, "sku": "", "quantity": 1}),
        ),
        (
            &[("variant-option-Size", "Large, 22 cm"), ("quantity", "1")],
            "Sorry, we do not have enough of that item available.",
            json!({"itemId": pot_id, "sku": "FTP-L", "quantity": 1}),
        ),
        (
            &[("variant-option-Size", "Small, 10 cm"), ("quantity", "0")],
            "Quantity must be between 1 and 9999.",
            json!({"itemId": pot_id, "sku": "FTP-S", "quantity": "0"}),
        ),
        (
            &[("variant-option-Size", "Huge"), ("quantity", "1")],
            "Sorry, that item variant is unavailable. Please select another variant.",
            json!({"itemId": pot_id, "sku": "NOPE", "quantity": 1}),
        ),
    ];
    for (extra, message, json_body) in cases {
        assert_eq!(
            refused(&mut v, pot_path, &with(extra)),
            message,
            "{extra:?}"
        );
        assert_eq!(json_message(&mut v, json_body), message);
        assert_eq!(quantities(&mut v), [("FTP-S".to_owned(), 2)]);
    }
    // Two options, one chosen: the one missing, as the island says it.
    let apron = item_id("loam-lantern", "linen-potting-apron");
    let apron_page = v.get("/shop/linen-potting-apron");
    assert!(apron_page.body.contains("name=\"variant-option-Colour\""));
    let m = refused(
        &mut v,
        "/shop/linen-potting-apron",
        &[
            ("crumb", &crumb),
            ("itemId", &apron),
            ("back", "/shop/linen-potting-apron"),
            ("variant-option-Size", ""),
            ("variant-option-Colour", ""),
        ],
    );
    assert_eq!(m, "Please select the Size and Colour options.");

    // Another tenant's product: the JSON API's refusal, nothing added.
    let foreign = item_id("harbor-lane", "tidepool-mug");
    let m = refused(
        &mut v,
        pot_path,
        &[("crumb", &crumb), ("itemId", &foreign), ("back", pot_path)],
    );
    assert_eq!(
        m,
        json_message(&mut v, json!({"itemId": foreign, "sku": "", "quantity": 1}))
    );
    assert_eq!(quantities(&mut v), [("FTP-S".to_owned(), 2)]);

    // No crumb, another crumb, a crumb without its cookie: refused, nothing changed.
    let small = [("variant-option-Size", "Small, 10 cm")];
    let no_crumb: Vec<(&str, &str)> = with(&small)
        .into_iter()
        .filter(|(k, _)| *k != "crumb")
        .collect();
    let r = post_form(&mut v, ADD, &no_crumb);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(
        r.body
            .contains("Your session has expired. Please reload the page and try again."),
        "{}",
        r.body
    );
    let mut wrong = with(&small);
    wrong[0].1 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    assert_eq!(post_form(&mut v, ADD, &wrong).status, 403);
    let mut stranger = Visitor::new(&server, LOAM, "203.0.113.62");
    let r = post_form(&mut stranger, ADD, &with(&small));
    assert_eq!(r.status, 403, "a crumb is good with its own cookie only");
    assert_eq!(quantities(&mut v), [("FTP-S".to_owned(), 2)]);

    // A message is shown only as the server signed it, and escaped: an option name the
    // product does not have is never read, so never printed.
    let forged = format!(
        "{pot_path}?cart-error=Call+0800&cart-error-for={pot_id}&cart-error-sig=00112233445566778899aabbccddeeff"
    );
    let page = v.get(&forged);
    assert!(!page.body.contains("Call 0800"), "{}", page.body);
    let m = refused(
        &mut v,
        pot_path,
        &with(&[
            ("variant-option-<img src=x>", ""),
            ("variant-option-Size", ""),
        ]),
    );
    assert_eq!(m, "Please select the Size option.");

    // A subscription and a gift card are carts of their own: on to their checkout.
    for (url_id, purchase, option, value, checkout) in [
        (
            "monthly-plant-box",
            "subscription",
            "Size",
            "Small plant",
            "/checkout/subscription?cartToken=",
        ),
        (
            "loam-lantern-gift-card",
            "gift-card",
            "Amount",
            "€50",
            "/checkout/gift-card?cartToken=",
        ),
    ] {
        let path = format!("/shop/{url_id}");
        let page = v.get(&path);
        assert_eq!(
            field(&page.body, "purchase").as_deref(),
            Some(purchase),
            "{url_id}"
        );
        let id = item_id("loam-lantern", url_id);
        let name = format!("variant-option-{option}");
        let pairs = |chosen: &'static str| {
            vec![
                ("crumb".to_owned(), crumb.clone()),
                ("itemId".to_owned(), id.clone()),
                ("purchase".to_owned(), purchase.to_owned()),
                ("back".to_owned(), path.clone()),
                (name.clone(), chosen.to_owned()),
            ]
        };
        let unchosen = pairs("");
        let unchosen: Vec<(&str, &str)> = unchosen
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let m = refused(&mut v, &path, &unchosen);
        let expected = if purchase == "gift-card" {
            "Select a denomination for the Gift Card".to_owned()
        } else {
            format!("Please select the {option} option.")
        };
        assert_eq!(m, expected);
        let chosen = pairs(value);
        let chosen: Vec<(&str, &str)> = chosen
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let to = location(&post_form(&mut v, ADD, &chosen));
        assert!(to.starts_with(checkout), "{to}");
        let token = to.split("cartToken=").nth(1).unwrap();
        let own = v.get(&format!("/api/commerce/shopping-cart?cartToken={token}"));
        assert_eq!(
            own.json()["entries"][0]["itemId"],
            id.as_str(),
            "{}",
            own.body
        );
        assert_eq!(
            quantities(&mut v),
            [("FTP-S".to_owned(), 2)],
            "the shopping cart is untouched"
        );
    }

    // The cart page: quantity and remove as form posts, 303 back to the cart.
    let cart = v.get("/cart");
    let entry = v.cart()["entries"][0]["id"].as_str().unwrap().to_owned();
    let action = format!("/api/commerce/shopping-cart/form/entries/{entry}");
    assert!(
        cart.body.contains(&format!("action=\"{action}\">")),
        "{}",
        cart.body
    );
    assert_eq!(field(&cart.body, "crumb").as_deref(), Some(crumb.as_str()));
    let r = post_form(&mut v, &action, &[("crumb", &crumb), ("quantity", "3")]);
    assert_eq!(location(&r), "/cart");
    assert_eq!(quantities(&mut v), [("FTP-S".to_owned(), 3)]);
    for (q, message) in [
        ("0", "Quantity must be between 1 and 9999."),
        ("two", "Quantity must be a number."),
        ("99", "Sorry, we do not have enough of that item available."),
    ] {
        let to = location(&post_form(
            &mut v,
            &action,
            &[("crumb", &crumb), ("quantity", q)],
        ));
        assert!(to.starts_with("/cart?"), "{to}");
        let page = v.get(&to);
        assert_eq!(shown_message(&page.body).as_deref(), Some(message), "{q}");
        let json = v.put(
            &format!("/api/commerce/shopping-cart/entries/{entry}"),
            json!({ "quantity": q }),
        );
        assert_eq!(json.message(), message);
        assert_eq!(quantities(&mut v), [("FTP-S".to_owned(), 3)]);
    }
    assert_eq!(
        post_form(&mut v, &action, &[("quantity", "1")]).status,
        403,
        "no crumb"
    );
    let r = post_form(&mut v, &action, &[("crumb", &crumb), ("remove", "1")]);
    assert_eq!(location(&r), "/cart");
    assert!(quantities(&mut v).is_empty());
    assert!(
        v.get("/cart")
            .body
            .contains("You have nothing in your shopping cart.")
    );

    // The built-in product view (harbor-lane has no `products.item`) posts the same way.
    let mut h = Visitor::new(&server, HARBOR, "203.0.113.63");
    let mug = h.get("/shop/tidepool-mug");
    let crumb = h.crumb().unwrap();
    let mug_id = item_id("harbor-lane", "tidepool-mug");
    assert_eq!(field(&mug.body, "crumb").as_deref(), Some(crumb.as_str()));
    assert_eq!(field(&mug.body, "itemId").as_deref(), Some(mug_id.as_str()));
    let option = "name=\"variant-option-";
    let at = mug.body.find(option).expect("the mug's option select") + option.len();
    let name = &mug.body[at..at + mug.body[at..].find('"').unwrap()];
    let m = refused(
        &mut h,
        "/shop/tidepool-mug",
        &[
            ("crumb", &crumb),
            ("itemId", &mug_id),
            ("back", "/shop/tidepool-mug"),
            (&format!("variant-option-{name}"), ""),
        ],
    );
    assert_eq!(m, format!("Please select the {name} option."));
    // The first value the select offers.
    let select = &mug.body[mug.body.find(&format!("{option}{name}\"")).unwrap()..];
    let first = "<option value=\"\">";
    let after = &select[select.find(first).unwrap() + first.len()..];
    let v_at = after.find("<option value=\"").unwrap() + "<option value=\"".len();
    let value = &after[v_at..v_at + after[v_at..].find('"').unwrap()];
    let r = post_form(
        &mut h,
        ADD,
        &[
            ("crumb", &crumb),
            ("itemId", &mug_id),
            ("back", "/shop/tidepool-mug"),
            (&format!("variant-option-{name}"), value),
            ("quantity", "1"),
        ],
    );
    assert_eq!(location(&r), "/cart");
    assert_eq!(h.cart()["totalQuantity"], 1);
}

crate::on_both_backends!(add_to_cart_without_javascript);
