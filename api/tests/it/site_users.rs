//! Members signing in and out over HTTP against the real binary, on both backends: the
//! messages, cookies and XSRF header, the cart that follows a member between devices and
//! the copy kept at sign-out, the language, rate limits, and another site's members and
//! sessions.

use crate::support::{Backend, Server, Visitor, item_id};
use serde_json::{Value, json};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const SESSION: &str = "/api/site-users/account/session";
const ACCOUNT: &str = "/api/site-users/account";
const LOCALE: &str = "/api/site-users/account/locale";
const ENTRIES: &str = "/api/commerce/shopping-cart/entries";
const EMAIL: &str = "marin@harbor-lane.localhost";
const PASSWORD: &str = "glaze-and-fire-1";

fn start(backend: Backend, extra: &[&str]) -> Server {
    let mut args = vec!["--cart-writes-per-minute", "100000"];
    if !extra.contains(&"--sign-ins-per-minute") {
        args.extend(["--sign-ins-per-minute", "100000"]);
    }
    args.extend_from_slice(extra);
    Server::start(backend, &args)
}

fn sign_in(
    v: &mut Visitor,
    email: &str,
    password: &str,
    remember: bool,
) -> crate::support::Response {
    v.post(
        SESSION,
        json!({"email": email, "password": password, "rememberMe": remember}),
    )
}

/// Signs in and returns the session's XSRF token.
fn signed_in(v: &mut Visitor) -> String {
    let r = sign_in(v, EMAIL, PASSWORD, false);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["xsrfToken"].as_str().unwrap().to_owned()
}

fn add(v: &mut Visitor, sku: &str) {
    let r = v.post(
        ENTRIES,
        json!({"itemId": item_id("harbor-lane", "tidepool-mug"), "sku": sku, "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

fn skus(cart: &Value) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = cart["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["chosenVariant"]["sku"].as_str().unwrap().to_owned(),
                e["quantity"].as_i64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn sign_in_and_out(backend: Backend) {
    let server = start(backend, &[]);
    let mut v = Visitor::arrive(&server, HARBOR, "10.1.0.1");

    // The crumb is required; blank and wrong credentials are refused alike.
    let mut no_crumb = v.clone();
    no_crumb.send_crumb = false;
    let r = sign_in(&mut no_crumb, EMAIL, PASSWORD, false);
    assert_eq!(
        (r.status, r.json()["crumbFail"].clone()),
        (403, json!(true))
    );
    let r = sign_in(&mut v, " ", PASSWORD, false);
    assert_eq!(
        (r.status, r.message()),
        (400, "Please enter your email address and password.".into())
    );
    for (email, password) in [
        (EMAIL, "wrong-password"),
        ("nobody@harbor-lane.localhost", PASSWORD),
    ] {
        let r = sign_in(&mut v, email, password, false);
        assert_eq!(
            (r.status, r.message()),
            (401, "Your email address or password is incorrect.".into())
        );
    }
    let r = v.post(SESSION, json!("not an object"));
    assert_eq!(r.status, 400);
    assert!(!v.cookies.contains_key("tessera-member"));
    assert_eq!(v.get(ACCOUNT).status, 401);

    // Signed in: the session cookie (HttpOnly, gone with the browser without rememberMe),
    // the info cookie scripts read, and the XSRF token.
    let r = sign_in(&mut v, "  Marin@Harbor-Lane.localhost ", PASSWORD, false);
    assert_eq!(r.status, 200, "{}", r.body);
    let xsrf = r.json()["xsrfToken"].as_str().unwrap().to_owned();
    assert!(xsrf.len() >= 32);
    let set = r.headers("set-cookie");
    let session = set
        .iter()
        .find(|c| c.starts_with("tessera-member="))
        .unwrap();
    assert!(
        session.contains("HttpOnly") && !session.contains("Max-Age"),
        "{session}"
    );
    let info = set.iter().find(|c| c.starts_with("SiteUserInfo=")).unwrap();
    assert!(!info.contains("HttpOnly"), "{info}");
    let value = info
        .split(';')
        .next()
        .unwrap()
        .trim_start_matches("SiteUserInfo=");
    let decoded: Value = serde_json::from_str(
        &percent_encoding::percent_decode_str(value)
            .decode_utf8()
            .unwrap(),
    )
    .unwrap();
    let account = v.get(ACCOUNT).json();
    assert_eq!(account["email"], EMAIL);
    assert_eq!(account["displayName"], "Marin Okafor");
    assert_eq!(
        decoded,
        json!({"authenticated": true, "siteUserId": account["id"]})
    );

    // rememberMe keeps the cookies across browser restarts for the session's 12 hours.
    let mut other = Visitor::arrive(&server, HARBOR, "10.1.0.2");
    let r = sign_in(&mut other, EMAIL, PASSWORD, true);
    assert!(
        r.headers("set-cookie")
            .iter()
            .any(|c| c.starts_with("tessera-member=") && c.contains("Max-Age=43200"))
    );

    // The language: XSRF header required, a tag checked.
    let r = v.post(LOCALE, json!({"language": "fr-FR"}));
    assert_eq!(r.status, 403, "{}", r.body);
    let r = v.send(
        "POST",
        LOCALE,
        &[
            ("X-XSRF-Token", "nope"),
            ("Content-Type", "application/json"),
        ],
        r#"{"language":"fr-FR"}"#,
    );
    assert_eq!(r.status, 403);
    let r = v.send(
        "POST",
        LOCALE,
        &[
            ("X-XSRF-Token", &xsrf),
            ("Content-Type", "application/json"),
        ],
        r#"{"language":"<b>"}"#,
    );
    assert_eq!(
        (r.status, r.json()["errors"]["language"].clone()),
        (400, json!("That language is not supported."))
    );
    let r = v.send(
        "POST",
        LOCALE,
        &[
            ("X-XSRF-Token", &xsrf),
            ("Content-Type", "application/json"),
        ],
        r#"{"language":"fr-FR"}"#,
    );
    assert_eq!((r.status, r.json()), (200, json!({"language": "fr-FR"})));
    assert_eq!(v.get(ACCOUNT).json()["locale"], "fr-FR");

    // Another site: its own member of the same email, and this site's session means
    // nothing there.
    let mut loam = Visitor::arrive(&server, LOAM, "10.1.0.3");
    loam.cookies
        .insert("tessera-member".into(), v.cookies["tessera-member"].clone());
    assert_eq!(loam.get(ACCOUNT).status, 401);
    assert_eq!(sign_in(&mut loam, EMAIL, PASSWORD, false).status, 401);
    assert_eq!(
        sign_in(&mut loam, EMAIL, "another-site-pw", false).status,
        200
    );

    // Signing out: the XSRF header is needed; then the cookies go and the session ends.
    let r = v.send("DELETE", SESSION, &[], "");
    assert_eq!(r.status, 403);
    let token = v.cookies["tessera-member"].clone();
    let r = v.send("DELETE", SESSION, &[("X-XSRF-Token", &xsrf)], "");
    assert_eq!((r.status, r.json()), (200, json!({"signedOut": true})));
    assert!(!v.cookies.contains_key("tessera-member") && !v.cookies.contains_key("SiteUserInfo"));
    v.cookies.insert("tessera-member".into(), token);
    assert_eq!(v.get(ACCOUNT).status, 401, "the session is over");
    // Twice is fine; without the crumb it is a crumbFail (the client retries once).
    assert_eq!(v.send("DELETE", SESSION, &[], "").status, 200);
    let mut no_crumb = v.clone();
    no_crumb.send_crumb = false;
    let r = no_crumb.send("DELETE", SESSION, &[], "");
    assert_eq!(
        (r.status, r.json()["crumbFail"].clone()),
        (403, json!(true))
    );
}

fn the_cart_follows_the_member(backend: Backend) {
    let server = start(backend, &[]);
    // Device A fills a cart, then signs in: the cart becomes the member's.
    let mut a = Visitor::arrive(&server, HARBOR, "10.2.0.1");
    add(&mut a, "TPM-12");
    let before = a.cart();
    signed_in(&mut a);
    assert_eq!(a.cart()["id"], before["id"]);
    // Device B has a cart of its own; signing in moves it into the member's.
    let mut b = Visitor::arrive(&server, HARBOR, "10.2.0.2");
    add(&mut b, "TPM-16");
    let xsrf_b = signed_in(&mut b);
    let cart_b = b.cart();
    assert_eq!(cart_b["id"], before["id"], "one cart for the member");
    assert_eq!(skus(&cart_b), [("TPM-12".into(), 1), ("TPM-16".into(), 1)]);
    assert_eq!(skus(&a.cart()), skus(&cart_b), "device A sees B's entry");
    // A third device signing in with no cart of its own gets the member's cart.
    let mut c = Visitor::arrive(&server, HARBOR, "10.2.0.3");
    let xsrf_c = signed_in(&mut c);
    assert_eq!(c.cart()["id"], before["id"]);

    // Signing out with cloneCart: B keeps a copy (its own cart), the member keeps theirs.
    let r = b.send(
        "DELETE",
        &format!("{SESSION}?cloneCart=true"),
        &[("X-XSRF-Token", &xsrf_b)],
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let copy = b.cart();
    assert_ne!(copy["id"], before["id"]);
    // The copy takes its units from stock again: the last 16 oz mug is the member's, so
    // the copy has the 12 oz one only.
    assert_eq!(skus(&copy), [("TPM-12".to_owned(), 1)]);
    assert_eq!(
        skus(&a.cart()),
        skus(&cart_b),
        "the member's cart is unchanged"
    );
    // Without cloneCart the device forgets the cart; the member still has it.
    let r = c.send("DELETE", SESSION, &[("X-XSRF-Token", &xsrf_c)], "");
    assert_eq!(r.status, 200);
    assert!(!c.cookies.contains_key("tessera-cart"));
    assert_eq!(c.cart()["entries"], json!([]));
    assert_eq!(skus(&a.cart()), skus(&cart_b));
}

fn sign_ins_are_rate_limited(backend: Backend) {
    let server = start(backend, &["--sign-ins-per-minute", "3"]);
    let mut v = Visitor::arrive(&server, HARBOR, "10.3.0.1");
    assert_eq!(sign_in(&mut v, EMAIL, "guess-1", false).status, 401);
    let r = sign_in(&mut v, EMAIL, PASSWORD, false);
    assert_eq!(r.status, 429, "{}", r.body);
    assert!(r.header("retry-after").is_some());
    // Another client is not held back.
    let mut w = Visitor::arrive(&server, HARBOR, "10.3.0.2");
    assert_eq!(sign_in(&mut w, EMAIL, PASSWORD, false).status, 200);
}

on_both_backends!(
    sign_in_and_out,
    the_cart_follows_the_member,
    sign_ins_are_rate_limited
);
