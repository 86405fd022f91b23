//! Settings → Store over HTTP, on both backends: `GET /api/owner/store-settings` and its
//! JSON Merge Patch. Read in one call; a patch changes what it names and keeps the rest
//! (other keys of a namespace included); bad values in any namespace answer 400 with
//! `errors` by path and store nothing; unknown keys inside list objects are refused; the
//! currency changes only while the store has no products or orders; roles without the
//! store area (or without changing it) are refused; another site's token and session are
//! nobody here; a session's patch needs its CSRF token.

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, request};

const LOAM: &str = "loam-lantern.localhost";
const QUILL: &str = "quillback.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const PATH: &str = "/api/owner/store-settings";

on_both_backends!(
    read_and_patch_keep_what_they_do_not_name,
    bad_values_are_named_by_path_and_nothing_is_stored,
    the_currency_changes_only_in_an_empty_store,
    roles_sites_and_sessions,
);

fn get(server: &Server, host: &str, token: &str) -> Response {
    server.owner_call(host, token, "GET", PATH, &Value::Null)
}

fn patch(server: &Server, host: &str, token: &str, body: Value) -> Response {
    server.owner_call(host, token, "PATCH", PATH, &body)
}

fn errors(r: &Response) -> Value {
    assert_eq!(r.status, 400, "{}", r.body);
    r.json()["errors"].clone()
}

fn read_and_patch_keep_what_they_do_not_name(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("loam-lantern", "admin");

    // Everything the screen shows, in one call, as the import stored it.
    let r = get(&server, LOAM, &admin);
    assert_eq!(r.status, 200, "{}", r.body);
    let doc = r.json();
    assert_eq!(doc["currency"], "EUR");
    assert_eq!(doc["checkout"]["minimumSubtotal"], "10.00");
    assert_eq!(doc["taxes"]["rules"][0]["name"], "BTW");
    assert_eq!(doc["shipping"]["options"].as_array().unwrap().len(), 3);
    assert_eq!(doc["coupons"]["codes"][0]["code"], "WELCOME10");
    assert_eq!(doc["payments"]["manual"]["label"], "Bank transfer");
    assert_eq!(doc["restock"], json!({}));
    assert_eq!(doc["notifications"], json!({}));
    assert_eq!(doc["contactEmail"], "hello@loam-lantern.localhost");
    assert!(doc["products"].as_i64().unwrap() > 0, "{doc}");
    assert_eq!(doc["orders"], 0);
    assert!(
        doc["currencies"]
            .as_array()
            .unwrap()
            .contains(&json!("JPY"))
    );
    assert!(doc.get("errors").is_none(), "{doc}");
    // Preferences the screen does not know, kept in its namespaces.
    let r = server.owner_call(
        LOAM,
        &admin,
        "PUT",
        "/api/v1/commerce-preferences/checkout",
        &json!({"minimumSubtotal": "10.00", "termsUrl": "/terms"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);

    let r = patch(
        &server,
        LOAM,
        &admin,
        json!({
            "checkout": {"minimumSubtotal": null, "requireShippingPhone": true},
            "shipping": {"options": [
                {"id": "pickup", "name": "Pick up", "kind": "flat", "price": "0.00"},
                {"id": "post", "name": "Post", "countries": ["nl", "BE"], "kind": "weight",
                 "rates": [{"upToGrams": 2000, "price": "6.95"}]}
            ]},
            "payments": {"manual": null},
            "restock": {"autoNotify": false, "lowStockAt": 2},
            "notifications": {"orderEmailTo": "orders@loam.test"},
        }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after = r.json();
    assert_eq!(
        after["checkout"],
        json!({"termsUrl": "/terms", "requireShippingPhone": true})
    );
    assert_eq!(
        after["shipping"]["options"][1]["countries"],
        json!(["nl", "BE"])
    );
    assert_eq!(after["payments"], json!({"testMode": true}));
    assert_eq!(
        after["restock"],
        json!({"autoNotify": false, "lowStockAt": 2})
    );
    assert_eq!(after["notifications"]["orderEmailTo"], "orders@loam.test");
    // What it did not name is as it was.
    for untouched in ["currency", "taxes", "coupons"] {
        assert_eq!(after[untouched], doc[untouched], "{untouched}");
    }
    // Stored: read again, and by the store itself (the owner's low-stock filter).
    assert_eq!(get(&server, LOAM, &admin).json(), after);
    let r = server.owner_call(
        LOAM,
        &admin,
        "GET",
        "/api/v1/commerce-preferences/shipping",
        &Value::Null,
    );
    assert_eq!(r.json()["preferences"], after["shipping"]);
    let low = server.owner_call(
        LOAM,
        &admin,
        "GET",
        "/api/owner/inventory?lowStock=true&limit=200",
        &Value::Null,
    );
    assert_eq!(low.status, 200, "{}", low.body);
    for v in low.json()["variants"].as_array().unwrap() {
        assert!(v["stock"].as_i64().unwrap() <= 2, "{v}");
    }
    // An empty patch changes nothing; a patch that is not an object is refused.
    assert_eq!(patch(&server, LOAM, &admin, json!({})).json(), after);
    let r = patch(&server, LOAM, &admin, json!([1]));
    assert_eq!(r.status, 400, "{}", r.body);
}

fn bad_values_are_named_by_path_and_nothing_is_stored(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("loam-lantern", "admin");
    let before = get(&server, LOAM, &admin).json();

    // One bad value in each namespace, and a good change beside them.
    let e = errors(&patch(
        &server,
        LOAM,
        &admin,
        json!({
            "checkout": {"minimumSubtotal": "ten"},
            "taxes": {"rules": [{"country": "NL", "rate": "121"}]},
            "shipping": {"options": [
                {"id": "a", "name": "A", "kind": "flat", "price": "1.00"},
                {"id": "b", "name": "B", "kind": "flat", "price": "4,95"}
            ]},
            "coupons": {"codes": [{"code": "BIG", "kind": "percent", "percent": "150"}]},
            "payments": {"manual": {"label": "Bank transfer", "instructions": " "}},
            "restock": {"lowStockAt": -1, "autoNotify": false},
            "notifications": {"orderEmailTo": "not an address"},
        }),
    ));
    assert_eq!(
        e,
        json!({
            "checkout.minimumSubtotal": "\"ten\" is not a price like \"12.50\"",
            "taxes.rules[0].rate": "\"121\" is not between 0 and 100",
            "shipping.options[1].price": "\"4,95\" is not a price like \"12.50\"",
            "coupons.codes[0].percent": "\"150\" is not between 0 and 100",
            "payments.manual.instructions": "is required",
            "restock.lowStockAt": "must be a whole number from 0 to 1000000",
            "notifications.orderEmailTo": "Please enter a valid email",
        })
    );
    // One namespace wrong, the others right: still nothing stored.
    let e = errors(&patch(
        &server,
        LOAM,
        &admin,
        json!({
            "restock": {"autoNotify": false},
            "shipping": {"options": [{"id": "a", "name": "A", "kind": "flat", "price": "1.00", "prize": "2.00"}]},
        }),
    ));
    assert_eq!(
        e.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["shipping.options[0].prize"]
    );
    // Unknown keys inside the lists' objects, and unknown or ill-shaped namespaces.
    let e = errors(&patch(
        &server,
        LOAM,
        &admin,
        json!({
            "taxes": {"rules": [{"country": "NL", "rate": "21", "rat": "1"}]},
            "coupons": {"codes": [{"code": "ABC", "kind": "fixed", "amount": "1.00", "expires": "2030-01-01"}]},
            "merchandising": {"scarcityEnabled": false},
            "checkout": "no",
        }),
    ));
    assert_eq!(
        e.as_object().unwrap().keys().collect::<Vec<_>>(),
        [
            "checkout",
            "coupons.codes[0].expires",
            "merchandising",
            "taxes.rules[0].rat"
        ]
    );
    assert!(
        e["taxes.rules[0].rat"]
            .as_str()
            .unwrap()
            .starts_with("unknown key")
    );
    assert_eq!(get(&server, LOAM, &admin).json(), before);
}

fn the_currency_changes_only_in_an_empty_store(backend: Backend) {
    let server = Server::start(backend, &[]);
    let loam = server.owner_token("loam-lantern", "admin");
    let quill = server.owner_token("quillback", "admin");

    // A store with products stays in its currency.
    let e = errors(&patch(
        &server,
        LOAM,
        &loam,
        json!({"currency": "USD", "restock": {"lowStockAt": 1}}),
    ));
    let products = get(&server, LOAM, &loam).json()["products"].clone();
    assert_eq!(
        e,
        json!({"currency": format!("The store has {products} products in EUR: the currency can change only while it has no products or orders.")})
    );
    assert_eq!(get(&server, LOAM, &loam).json()["restock"], json!({}));
    // Its own currency is no change.
    assert_eq!(
        patch(&server, LOAM, &loam, json!({"currency": "eur"})).status,
        200
    );

    // A store without products or orders may change it, to a supported one.
    let doc = get(&server, QUILL, &quill).json();
    assert_eq!(
        (doc["currency"].clone(), doc["products"].clone()),
        (json!("USD"), json!(0))
    );
    let e = errors(&patch(&server, QUILL, &quill, json!({"currency": "XYZ"})));
    assert!(
        e["currency"]
            .as_str()
            .unwrap()
            .starts_with("must be one of the supported currencies"),
        "{e}"
    );
    assert_eq!(
        errors(&patch(&server, QUILL, &quill, json!({"currency": null})))["currency"],
        e["currency"]
    );
    // Prices are read in the currency the patch leaves: no decimals in yen.
    let e = errors(&patch(
        &server,
        QUILL,
        &quill,
        json!({"currency": "JPY", "checkout": {"minimumSubtotal": "10.50"}}),
    ));
    assert_eq!(
        e.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["checkout.minimumSubtotal"]
    );
    let r = patch(
        &server,
        QUILL,
        &quill,
        json!({"currency": "eur", "checkout": {"minimumSubtotal": "10.50"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["currency"], "EUR");
    // A new currency reads the stored prices again.
    let e = errors(&patch(&server, QUILL, &quill, json!({"currency": "JPY"})));
    assert_eq!(
        e.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["checkout.minimumSubtotal"]
    );
    assert_eq!(get(&server, QUILL, &quill).json()["currency"], "EUR");
    let r = patch(
        &server,
        QUILL,
        &quill,
        json!({"currency": "JPY", "checkout": {"minimumSubtotal": "1000"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let doc = get(&server, QUILL, &quill).json();
    assert_eq!(
        (doc["currency"].clone(), doc["checkout"].clone()),
        (json!("JPY"), json!({"minimumSubtotal": "1000"}))
    );
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "600"]);
    let viewer = server.owner_token("loam-lantern", "viewer");
    let editor = server.owner_token("loam-lantern", "editor");
    let manager = server.owner_token("loam-lantern", "store-manager");
    let harbor = server.owner_token("harbor-lane", "admin");
    let body = json!({"restock": {"lowStockAt": 3}});

    // A role that reads the store reads it; only one that changes it may patch.
    assert_eq!(get(&server, LOAM, &viewer).status, 200);
    let r = patch(&server, LOAM, &viewer, body.clone());
    assert_eq!(r.status, 403, "{}", r.body);
    for r in [
        get(&server, LOAM, &editor),
        patch(&server, LOAM, &editor, body.clone()),
    ] {
        assert_eq!(r.status, 403, "{}", r.body);
    }
    let r = patch(&server, LOAM, &manager, body.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["restock"]["lowStockAt"], 3);

    // Another site's token is nobody here, and reads its own site's settings only.
    assert_eq!(get(&server, LOAM, &harbor).status, 401);
    assert_eq!(
        patch(
            &server,
            LOAM,
            &harbor,
            json!({"restock": {"lowStockAt": 9}})
        )
        .status,
        401
    );
    let theirs = get(&server, HARBOR, &harbor).json();
    assert_eq!(
        (theirs["currency"].clone(), theirs["restock"].clone()),
        (json!("USD"), json!({}))
    );

    // A session: reads as it is, patches with its CSRF token only, on its own site only.
    crate::owner_accounts::add_owner(
        &server,
        "loam-lantern",
        "ann@example.test",
        "admin",
        "correct horse",
    );
    let r = request(
        server.port,
        "POST",
        LOAM,
        "/api/owner/session",
        &[("Content-Type", "application/json")],
        &json!({"email": "ann@example.test", "password": "correct horse"}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let csrf = r.json()["csrf"].as_str().unwrap().to_owned();
    let cookie = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let call = |host: &str, method: &str, csrf: Option<&str>, body: &Value| {
        server.session_call(host, &cookie, csrf, method, PATH, body)
    };
    assert_eq!(call(LOAM, "GET", None, &Value::Null).status, 200);
    let r = call(LOAM, "PATCH", None, &json!({"restock": {"lowStockAt": 7}}));
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        get(&server, LOAM, &manager).json()["restock"]["lowStockAt"],
        3
    );
    let r = call(
        LOAM,
        "PATCH",
        Some(&csrf),
        &json!({"restock": {"lowStockAt": 7}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["restock"]["lowStockAt"], 7);
    assert_eq!(call(HARBOR, "GET", None, &Value::Null).status, 401);
    assert_eq!(
        call(
            HARBOR,
            "PATCH",
            Some(&csrf),
            &json!({"restock": {"lowStockAt": 8}})
        )
        .status,
        401
    );
    assert_eq!(get(&server, HARBOR, &harbor).json()["restock"], json!({}));
}
