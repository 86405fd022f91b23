//! Paid member areas over HTTP against the real binary, on both backends: the owner makes an
//! area paid with one of the store's products (bad, foreign, physical, gift-card and taken
//! products refused by field; roles, tokens and a session without its CSRF token refused),
//! the join page sells it at its price, the free join and a sign-up's link do not open it,
//! a signed-out checkout of its product is refused before payment, a member buys it with
//! the test card through the real cart and checkout routes and then opens its pages, the
//! owner's members list names the order, and refunding it in full closes the area again; a
//! subscription price is bought through its own cart and checkout signed in (refused signed
//! out), and cancelling the subscription closes the area.

use serde_json::{Value, json};

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Server, Visitor};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const CLUB: &str = "/api/owner/member-areas/studio-club";
const KILN: &str = "/api/owner/member-areas/kiln-crew";
const ACCOUNT: &str = "/api/site-users/account";
const JOIN: &str = "/api/site-users/account/member-areas";
const CONFIRM: &str = "/api/site-users/account/confirm";
const ENTRIES: &str = "/api/commerce/shopping-cart/entries";
const CHECKOUT: &str = "/api/commerce/checkout";
/// A Studio Club lesson (harbor-lane fixtures) and what only members read on it.
const LESSON: &str = "/course/centering";
const LESSON_TEXT: &str = "Cone the clay up and down";
/// harbor-lane's Tidepool Mug (physical, two sizes) and gift card.
const MUG: &str = "20c64d617a76ef9ac8050fa0";
const GIFT_CARD: &str = "05bcae9fdf0333e0fe9ad079";
/// loam-lantern's houseplant care guide: a digital product of another site.
const LOAM_GUIDE: &str = "7471765b4e789b1d2c17a4f7";

on_both_backends!(paid_member_areas);

fn start(backend: Backend) -> Server {
    Server::with_owners(backend, &["--sign-ins-per-minute", "1000"])
}

/// The free join route (`JOIN`) asked for the studio club by a member with their XSRF token.
fn join_club(member: &mut Visitor, xsrf: &str) -> crate::support::Response {
    member.send(
        "POST",
        JOIN,
        &[("X-XSRF-Token", xsrf), ("Content-Type", "application/json")],
        &json!({"memberAreaId": "studio-club"}).to_string(),
    )
}

/// Adds a digital product with one variant, `price_minor`, to harbor-lane's shop (a monthly
/// subscription when `monthly`): its id.
fn digital_product(server: &Server, url: &'static str, price_minor: i64, monthly: bool) -> String {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(HARBOR).await.unwrap().unwrap().id;
            let shop = s.collection_by_url(t, "shop").await.unwrap().unwrap();
            let item = tenants::Item {
                collection_id: shop.id,
                product_type: Some(2),
                variants: vec![tenants::Variant {
                    sku: format!("SKU-{url}"),
                    attributes: Default::default(),
                    currency: "USD".into(),
                    price_minor,
                    sale_price_minor: 0,
                    on_sale: false,
                    qty_in_stock: 0,
                    unlimited: true,
                    weight_grams: 0,
                }],
                structured_content: if monthly {
                    json!({"isSubscribable": true, "subscriptionPlan":
                        {"billingPeriod": {"value": 1, "unit": "MONTH"}, "numBillingCycles": 0}})
                    .as_object()
                    .unwrap()
                    .clone()
                } else {
                    Default::default()
                },
                ..serde_json::from_value(json!({"urlId": url, "title": url, "recordType": 11}))
                    .unwrap()
            };
            s.put_item(t, &item).await.unwrap()
        })
    })
}

/// The confirmation link mailed to `to`, whose mail says the paid Studio Club is sold on
/// its page rather than joined by the link.
fn outbox_link(server: &Server, to: &'static str) -> String {
    let mut all = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(HARBOR).await.unwrap().unwrap();
            s.outbox(t.id).await.unwrap()
        })
    });
    all.sort_by_key(|q| q.created_ms);
    let text = all
        .into_iter()
        .rev()
        .find(|q| q.email.to == to)
        .expect("a mail")
        .email
        .text;
    assert!(
        text.contains(
            "to join Studio Club (once you are signed in, its page sells you the membership)"
        ),
        "{text}"
    );
    let at = text.find(CONFIRM).expect("a confirmation link");
    let tail = &text[at..];
    tail[..tail.find(char::is_whitespace).unwrap_or(tail.len())].to_owned()
}

fn card_checkout(v: &mut Visitor) -> crate::support::Response {
    token_checkout(v, None)
}

/// A checkout paid with the test card, of the cookie's cart or of `token`'s.
fn token_checkout(v: &mut Visitor, token: Option<&str>) -> crate::support::Response {
    v.post(
        CHECKOUT,
        json!({
            "cartToken": token,
            "email": "ana@example.test",
            "billingAddress": { "firstName": "Ana", "lastName": "Okafor", "line1": "1 Quay St",
                "city": "Harbor", "postalCode": "12345", "country": "US", "region": "NY" },
            "payment": { "method": "card", "card": { "number": "4242 4242 4242 4242", "expMonth": 12, "expYear": 2099, "cvc": "123" } },
        }),
    )
}

fn paid_member_areas(backend: Backend) {
    let server = start(backend);
    let pass = digital_product(&server, "club-pass", 1200, false);
    let patch = |token: &str, path: &str, body: Value| {
        server.owner_call(HARBOR, token, "PATCH", path, &body)
    };
    let get = || {
        server
            .owner_call(
                HARBOR,
                HARBOR_TOKEN,
                "GET",
                "/api/owner/member-areas",
                &Value::Null,
            )
            .json()
    };

    // The picker lists the store's products that can be a price (the new pass only: the
    // fixtures' are physical or a gift card); every area is free to start with.
    let areas = get();
    assert_eq!(
        areas["planProducts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["productId"].clone())
            .collect::<Vec<_>>(),
        [json!(pass)],
        "{areas}"
    );
    assert_eq!(areas["planProducts"][0]["priceText"], "$12.00");
    assert_eq!(areas["planProducts"][0]["kind"], "digital");
    assert!(areas["areas"][0].get("planProductId").is_none());

    // Refused products, each said beside the field; nothing changes.
    for (product, message) in [
        ("nope", "Choose a product of this store."),
        (LOAM_GUIDE, "Choose a product of this store."),
        (
            MUG,
            "Choose a digital, service or subscription product: a physical product cannot be the price of a member area.",
        ),
        (
            GIFT_CARD,
            "A gift card cannot be the price of a member area.",
        ),
    ] {
        let r = patch(HARBOR_TOKEN, CLUB, json!({"planProductId": product}));
        assert_eq!(
            (r.status, r.json()["errors"]["planProductId"].clone()),
            (400, json!(message)),
            "{product}: {}",
            r.body
        );
    }
    assert!(get()["areas"][0].get("planProductId").is_none());

    // Roles, tokens, sessions: a role without content, another site's token, another
    // site's area, a session without its CSRF token.
    let billing = server.owner_token("harbor-lane", "billing");
    assert_eq!(
        patch(&billing, CLUB, json!({"planProductId": pass})).status,
        403
    );
    assert_eq!(
        patch(LOAM_TOKEN, CLUB, json!({"planProductId": pass})).status,
        401
    );
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "PATCH",
        CLUB,
        &json!({"planProductId": LOAM_GUIDE}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("editor@example.test", "editor", "editor password"),
    );
    let by_session = |csrf: Option<&str>, body: &Value| {
        server.session_call(HARBOR, &cookie, csrf, "PATCH", CLUB, body)
    };
    assert_eq!(
        by_session(None, &json!({"planProductId": pass})).status,
        403
    );
    assert!(get()["areas"][0].get("planProductId").is_none());

    // The owner (a session with its token) makes the Studio Club paid.
    let r = by_session(Some(&csrf), &json!({"planProductId": pass}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["area"]["planProductId"], json!(pass));
    assert_eq!(r.json()["area"]["priceText"], "$12.00");
    // One product sells one area.
    let r = patch(HARBOR_TOKEN, KILN, json!({"planProductId": pass}));
    assert_eq!(
        (r.status, r.json()["errors"]["planProductId"].clone()),
        (
            400,
            json!("Another member area is already sold by this product.")
        )
    );
    let listed = get();
    assert_eq!(listed["planProducts"][0]["usedBy"], "studio-club");
    assert_eq!(listed["areas"][0]["priceText"], "$12.00");

    // The join page sells it at its price.
    let mut ana = Visitor::arrive(&server, HARBOR, "10.9.0.1");
    let r = ana.get(LESSON);
    assert_eq!(r.header("x-page-type"), Some("106"));
    assert!(
        r.body.contains("Join the Studio Club for $12.00"),
        "{}",
        r.body
    );
    assert!(r.body.contains(&format!("data-plan-item=\"{pass}\"")));
    assert!(!r.body.contains(LESSON_TEXT));

    // A sign-up from its page: the link signs in and lands back there, not in the area.
    let r = ana.post(
        ACCOUNT,
        json!({"email": "ana@example.test", "password": "wheel-and-kiln", "memberAreaId": "studio-club", "redirect": LESSON}),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let link = outbox_link(&server, "ana@example.test");
    let r = ana.get(&link);
    assert_eq!((r.status, r.header("location")), (303, Some(LESSON)));
    let account = ana.get(ACCOUNT).json();
    assert_eq!(account["memberAreas"], json!([]));
    let xsrf = account["xsrfToken"].as_str().unwrap().to_owned();
    assert_eq!(ana.get(LESSON).header("x-page-type"), Some("106"));

    // The free join refuses a paid area.
    let r = join_club(&mut ana, &xsrf);
    assert_eq!(
        (r.status, r.message()),
        (403, "This member area is paid: join it with the button on its page, which takes you to checkout.".into())
    );

    // A visitor signed out cannot pay for it: refused before payment.
    let mut stranger = Visitor::arrive(&server, HARBOR, "10.9.0.2");
    let r = stranger.post(ENTRIES, json!({"itemId": pass, "quantity": 1}));
    assert_eq!(r.status, 200, "{}", r.body);
    let r = card_checkout(&mut stranger);
    assert_eq!(
        (r.status, r.message()),
        (
            403,
            "Sign in to join Studio Club: the membership you buy is your account's.".into()
        ),
        "{}",
        r.body
    );

    // The member buys it: the cart and the checkout, paid with the test card.
    let r = ana.post(ENTRIES, json!({"itemId": pass, "quantity": 1}));
    assert_eq!(r.status, 200, "{}", r.body);
    let r = card_checkout(&mut ana);
    assert_eq!(r.status, 201, "{}", r.body);
    let order_id = r.json()["order"]["id"].as_str().unwrap().to_owned();
    let r = ana.get(LESSON);
    assert_eq!(r.header("x-page-type"), Some("105"));
    assert!(r.body.contains(LESSON_TEXT));
    assert_eq!(
        ana.get(ACCOUNT).json()["memberAreas"],
        json!(["studio-club"])
    );

    // The owner's members list names the order that opened it.
    let members = server
        .owner_call(
            HARBOR,
            HARBOR_TOKEN,
            "GET",
            "/api/owner/members",
            &Value::Null,
        )
        .json();
    let row = members["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "ana@example.test")
        .unwrap()
        .clone();
    assert_eq!(row["areas"][0]["id"], "studio-club");
    assert_eq!(row["areas"][0]["order"]["id"], json!(order_id));
    assert!(row["areas"][0]["order"]["orderNumber"].as_i64().unwrap() > 0);
    // Another site's owner sees none of it.
    let loam = server.owner_call(LOAM, LOAM_TOKEN, "GET", "/api/owner/members", &Value::Null);
    assert!(!loam.body.contains("ana@example.test"));

    // The order's screen names the area it opened.
    let order_path = format!("/api/owner/orders/{order_id}");
    let detail = server
        .owner_call(HARBOR, HARBOR_TOKEN, "GET", &order_path, &Value::Null)
        .json();
    assert_eq!(
        detail["memberAreas"],
        json!([{"id": "studio-club", "title": "Studio Club"}])
    );

    // Refunded in full, the order no longer opens the area.
    let r = server.owner_call(
        HARBOR,
        HARBOR_TOKEN,
        "POST",
        &format!("/api/owner/orders/{order_id}/refunds"),
        &json!({"amount": 1200, "reason": "changed her mind"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ana.get(LESSON).header("x-page-type"), Some("106"));
    assert_eq!(ana.get(ACCOUNT).json()["memberAreas"], json!([]));
    let detail = server
        .owner_call(HARBOR, HARBOR_TOKEN, "GET", &order_path, &Value::Null)
        .json();
    assert!(detail.get("memberAreas").is_none(), "{detail}");

    // Free again: the page joins for nothing, as before.
    let r = patch(HARBOR_TOKEN, CLUB, json!({"planProductId": ""}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["area"].get("planProductId").is_none());
    let r = join_club(&mut ana, &xsrf);
    assert_eq!(r.status, 200, "{}", r.body);

    // A recurring price: the Kiln Crew sold by a monthly subscription, bought through its
    // own cart and checkout while signed in; cancelling the subscription closes the area.
    let monthly = digital_product(&server, "crew-monthly", 500, true);
    let r = patch(HARBOR_TOKEN, KILN, json!({"planProductId": monthly}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["area"]["priceText"], "$5.00 / month");
    let page = ana.get("/kiln-log");
    assert_eq!(page.header("x-page-type"), Some("106"));
    assert!(
        page.body.contains("Join for $5.00 / month"),
        "{}",
        page.body
    );
    assert!(page.body.contains("data-plan-kind=\"subscription\""));
    // Signed out, its checkout is refused before payment.
    let r = stranger.post(
        "/api/3/commerce/cart/subscription",
        json!({"itemId": monthly, "qty": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.json()["cartToken"].as_str().unwrap().to_owned();
    let r = token_checkout(&mut stranger, Some(&token));
    assert_eq!(
        (r.status, r.message()),
        (
            403,
            "Sign in to join Kiln Crew: the membership you buy is your account's.".into()
        )
    );
    let r = ana.post(
        "/api/3/commerce/cart/subscription",
        json!({"itemId": monthly, "qty": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.json()["cartToken"].as_str().unwrap().to_owned();
    let r = token_checkout(&mut ana, Some(&token));
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(ana.get("/kiln-log").header("x-page-type"), Some("105"));
    let subs = server
        .owner_call(
            HARBOR,
            HARBOR_TOKEN,
            "GET",
            "/api/owner/subscriptions?status=active",
            &Value::Null,
        )
        .json();
    let sub = subs["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == json!(monthly))
        .expect("her subscription")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = server.owner_call(
        HARBOR,
        HARBOR_TOKEN,
        "POST",
        &format!("/api/owner/subscriptions/{sub}/cancel"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ana.get("/kiln-log").header("x-page-type"), Some("106"));
}
