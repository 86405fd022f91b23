//! Owner accounts over HTTP against the real binary, on both backends: `tessera owner`,
//! signing in to the owner app (one answer for a wrong password and an unknown address,
//! rate limits per client and per address), the session cookie and its CSRF token on the
//! owner routes, another site's and a member's cookie, a role without the area, signing
//! out; password resets and first-password links (mailed through the outbox, on the
//! site's own origin); Settings → Access (accounts, invitations, tokens). The `/config`
//! shell itself is `config.rs`'s.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, cookie_header, keep_cookies, request};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const WRONG: &str = "Your email or password is incorrect.";
const CSRF_FAIL: &str = "This needs the owner app's CSRF token.";

on_both_backends!(
    sessions_csrf_and_roles,
    access_accounts_invites_tokens,
    limits_resets_and_links,
    owner_cli,
);

/// `tessera owner …` against the server's store, with `stdin` on its standard input.
fn owner_cmd(server: &Server, args: &[&str], stdin: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("owner")
        .args(args)
        .args(server.store_args())
        .env_remove("DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Adds an owner with a password, through the CLI.
pub(crate) fn add_owner(server: &Server, site: &str, email: &str, role: &str, password: &str) {
    let out = owner_cmd(
        server,
        &["add", site, email, "--role", role, "--password-stdin"],
        &format!("{password}\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A browser on one site's host: its cookie jar, and the owner app's CSRF token once
/// signed in (sent with every change when `send_csrf`).
struct Browser {
    port: u16,
    host: String,
    ip: String,
    jar: BTreeMap<String, String>,
    csrf: Option<String>,
    send_csrf: bool,
}

impl Browser {
    fn new(server: &Server, host: &str, ip: &str) -> Browser {
        Browser {
            port: server.port,
            host: host.to_owned(),
            ip: ip.to_owned(),
            jar: BTreeMap::new(),
            csrf: None,
            send_csrf: true,
        }
    }

    fn call(&mut self, method: &str, path: &str, body: &Value) -> Response {
        self.call_with(method, path, body, &[])
    }

    fn call_with(
        &mut self,
        method: &str,
        path: &str,
        body: &Value,
        extra: &[(&str, &str)],
    ) -> Response {
        let cookie = cookie_header(&self.jar);
        let csrf = self.csrf.clone().unwrap_or_default();
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("X-Forwarded-For", self.ip.as_str()),
        ];
        if !cookie.is_empty() {
            headers.push(("Cookie", &cookie));
        }
        if self.send_csrf && method != "GET" && !csrf.is_empty() {
            headers.push(("X-CSRF-Token", &csrf));
        }
        headers.extend_from_slice(extra);
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let r = request(self.port, method, &self.host, path, &headers, &text);
        keep_cookies(&mut self.jar, &r);
        r
    }

    /// Signs in; the answer. Keeps the CSRF token of a success.
    fn sign_in(&mut self, email: &str, password: &str) -> Response {
        let r = self.call(
            "POST",
            "/api/owner/session",
            &json!({"email": email, "password": password}),
        );
        if r.status == 200 {
            self.csrf = r.json()["csrf"].as_str().map(str::to_owned);
        }
        r
    }
}

/// Adds an owner of `site` with `role` and signs them in on `host`: their `tessera-owner`
/// cookie (as a `Cookie` header's value) and the session's CSRF token.
pub(crate) fn signed_in(
    server: &Server,
    site: &str,
    host: &str,
    (email, role, password): (&str, &str, &str),
) -> (String, String) {
    add_owner(server, site, email, role, password);
    let r = request(
        server.port,
        "POST",
        host,
        "/api/owner/session",
        &[("Content-Type", "application/json")],
        &json!({"email": email, "password": password}).to_string(),
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
    (cookie, csrf)
}

/// Adds an owner of `site` (admin) and signs them in on `host`: their `tessera-owner`
/// cookie, as a `Cookie` header's value.
pub(crate) fn owner_session(server: &Server, site: &str, host: &str) -> String {
    let who = ("signed-in@example.test", "admin", "signed-in password");
    signed_in(server, site, host, who).0
}

fn start(backend: Backend) -> Server {
    // Generous rates: these tests sign in often from one client (one test keeps the
    // default to see the limits).
    Server::start(backend, &["--sign-ins-per-minute", "600"])
}

fn sessions_csrf_and_roles(backend: Backend) {
    let server = start(backend);
    add_owner(
        &server,
        "loam-lantern",
        "Ann@Example.test",
        "admin",
        "correct horse",
    );
    add_owner(
        &server,
        "loam-lantern",
        "sam@example.test",
        "store-manager",
        "battery staple",
    );
    add_owner(
        &server,
        "harbor-lane",
        "hal@example.test",
        "admin",
        "harbor pass",
    );

    // A wrong password and an unknown address get the same answer; blanks are named.
    let mut b = Browser::new(&server, LOAM, "198.51.100.1");
    let wrong = b.sign_in("ann@example.test", "not it at all");
    let unknown = b.sign_in("nobody@example.test", "correct horse");
    for r in [&wrong, &unknown] {
        assert_eq!(
            (r.status, r.message()),
            (401, WRONG.to_owned()),
            "{}",
            r.body
        );
        assert!(r.header("set-cookie").is_none());
    }
    assert_eq!(wrong.body, unknown.body);
    // The right password of another site's owner is no password here.
    assert_eq!(b.sign_in("hal@example.test", "harbor pass").status, 401);
    let blank = b.sign_in(" ", "x");
    assert_eq!(blank.status, 400);
    assert!(
        blank.json()["errors"]["email"].is_string(),
        "{}",
        blank.body
    );
    assert!(b.sign_in("ann@example.test", "").json()["errors"]["password"].is_string());
    // From a page of another origin: refused.
    let r = b.call_with(
        "POST",
        "/api/owner/session",
        &json!({"email": "ann@example.test", "password": "correct horse"}),
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(b.jar.is_empty());

    // Signed in: the cookie's flags, who, the CSRF token and every area.
    let ok = b.sign_in("ANN@example.test", "correct horse");
    assert_eq!(ok.status, 200, "{}", ok.body);
    let cookie = ok.header("set-cookie").unwrap().to_owned();
    for part in ["tessera-owner=", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    let me = ok.json();
    assert_eq!(me["account"]["email"], "ann@example.test");
    assert_eq!(
        (
            me["account"]["role"].clone(),
            me["account"]["roleName"].clone()
        ),
        (json!(1), json!("admin"))
    );
    assert_eq!(me["csrf"].as_str().unwrap().len(), 64);
    // The site it is about, as the app's header names it.
    assert_eq!(
        me["site"],
        json!({"identifier": "loam-lantern", "title": "Loam & Lantern", "currency": "EUR"})
    );
    assert_eq!(me["areas"]["access"], "write");
    assert_eq!(me["areas"]["orders"], "write");
    assert_eq!(b.call("GET", "/api/owner/session", &Value::Null).json(), me);
    // Over HTTPS (a trusted proxy says so) the cookie is Secure.
    let mut tls = Browser::new(&server, LOAM, "198.51.100.2");
    let r = tls.call_with(
        "POST",
        "/api/owner/session",
        &json!({"email": "ann@example.test", "password": "correct horse"}),
        &[("X-Forwarded-Proto", "https")],
    );
    assert!(
        r.header("set-cookie").unwrap().contains("Secure"),
        "{}",
        r.head
    );

    // Owner routes take the session: reads as they are, changes with the CSRF token.
    assert_eq!(b.call("GET", "/api/owner/orders", &Value::Null).status, 200);
    let prefs = "/api/v1/commerce-preferences/checkout";
    let body = json!({"termsUrl": "/terms"});
    b.send_csrf = false;
    let r = b.call("PUT", prefs, &body);
    assert_eq!(
        (r.status, r.message()),
        (403, CSRF_FAIL.to_owned()),
        "{}",
        r.body
    );
    let r = b.call_with(
        "PUT",
        prefs,
        &body,
        &[("X-CSRF-Token", "0".repeat(64).as_str())],
    );
    assert_eq!(r.status, 403);
    b.send_csrf = true;
    let r = b.call("PUT", prefs, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["preferences"]["termsUrl"], "/terms");

    // The cookie on another site's host is nobody there, as is a member's session.
    let session = b.jar["tessera-owner"].clone();
    let elsewhere = request(
        server.port,
        "GET",
        HARBOR,
        "/api/owner/session",
        &[("Cookie", &format!("tessera-owner={session}"))],
        "",
    );
    assert_eq!(elsewhere.status, 401, "{}", elsewhere.body);
    assert_eq!(
        request(
            server.port,
            "GET",
            HARBOR,
            "/api/owner/orders",
            &[("Cookie", &format!("tessera-owner={session}"))],
            ""
        )
        .status,
        401
    );
    let member = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_name("loam-lantern").await.unwrap().unwrap();
            let u = s
                .create_site_user(t.id, "mia@example.test", "h", "Mia")
                .await
                .unwrap();
            s.create_session(t.id, &u.id, 600_000).await.unwrap().token
        })
    });
    for cookie in [
        format!("tessera-member={member}"),
        format!("tessera-owner={member}"),
    ] {
        let r = request(
            server.port,
            "GET",
            LOAM,
            "/api/owner/orders",
            &[("Cookie", &cookie)],
            "",
        );
        assert_eq!(r.status, 401, "{cookie}: {}", r.body);
    }

    // A role without the area: 403; the areas it has say so.
    let mut sam = Browser::new(&server, LOAM, "198.51.100.3");
    let me = sam.sign_in("sam@example.test", "battery staple").json();
    assert_eq!(me["areas"]["store"], "write");
    assert_eq!(me["areas"]["orders"], "read");
    assert_eq!(me["areas"]["access"], Value::Null);
    let r = sam.call("GET", "/api/owner/forms", &Value::Null);
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(sam.call("PUT", prefs, &body).status, 200);

    // Tokens still work, and are no account.
    let token = server.owner_token("loam-lantern", "viewer");
    let r = server.owner_call(LOAM, &token, "GET", "/api/owner/session", &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (r.json()["account"].clone(), r.json()["csrf"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(r.json()["areas"]["content"], "read");
    let r = request(server.port, "GET", LOAM, "/api/owner/session", &[], "");
    assert_eq!(r.status, 401);

    // Signing out needs the CSRF token, ends the session and clears the cookie.
    b.send_csrf = false;
    assert_eq!(
        b.call("DELETE", "/api/owner/session", &Value::Null).status,
        403
    );
    b.send_csrf = true;
    let r = b.call("DELETE", "/api/owner/session", &Value::Null);
    assert_eq!(r.status, 204, "{}", r.body);
    assert!(r.header("set-cookie").unwrap().contains("Max-Age=0"));
    let stale = request(
        server.port,
        "GET",
        LOAM,
        "/api/owner/session",
        &[("Cookie", &format!("tessera-owner={session}"))],
        "",
    );
    assert_eq!(stale.status, 401);
    // The other session of the same account goes on.
    assert_eq!(
        tls.call("GET", "/api/owner/session", &Value::Null).status,
        200
    );
}

/// The owner emails in the site's outbox, oldest first: (to, text).
fn owner_emails(server: &Server, site: &'static str) -> Vec<(String, String)> {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_name(site).await.unwrap().unwrap();
            s.outbox(t.id)
                .await
                .unwrap()
                .into_iter()
                .filter(|q| q.email.kind.starts_with("owner-"))
                .map(|q| (q.email.to, q.email.text))
                .collect()
        })
    })
}

/// The token of the last link in `text` that starts with `prefix`.
fn link_token(text: &str, prefix: &str) -> String {
    let at = text
        .rfind(prefix)
        .unwrap_or_else(|| panic!("no {prefix} in {text}"));
    text[at + prefix.len()..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect()
}

fn limits_resets_and_links(backend: Backend) {
    let server = Server::start(backend, &[]);
    add_owner(
        &server,
        "loam-lantern",
        "ann@example.test",
        "admin",
        "correct horse",
    );

    // Per address: a burst of 3 at the default 10 a minute, whatever the client.
    let mut statuses = Vec::new();
    for i in 0..4 {
        let mut b = Browser::new(&server, LOAM, &format!("203.0.113.{i}"));
        statuses.push(b.sign_in("lim@example.test", "nope nope").status);
    }
    assert_eq!(statuses, [401, 401, 401, 429]);
    let mut b = Browser::new(&server, LOAM, "203.0.113.9");
    let r = b.sign_in("lim@example.test", "limited pass");
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_some());
    // Per client: a burst of 3, whatever the address.
    let mut c = Browser::new(&server, LOAM, "203.0.113.50");
    let statuses: Vec<u16> = (0..4)
        .map(|i| c.sign_in(&format!("x{i}@example.test"), "whatever1").status)
        .collect();
    assert_eq!(statuses, [401, 401, 401, 429]);

    // A reset for an unknown address says the same and mails nothing.
    let mut r1 = Browser::new(&server, LOAM, "203.0.113.60");
    let unknown = r1.call(
        "POST",
        "/api/owner/password-reset",
        &json!({"email": "nobody@example.test"}),
    );
    assert_eq!(unknown.status, 202, "{}", unknown.body);
    // A browser names the port in `Host`: the link is on it.
    let mut r2 = Browser::new(&server, &format!("{LOAM}:{}", server.port), "203.0.113.61");
    let bad = r2.call(
        "POST",
        "/api/owner/password-reset",
        &json!({"email": "not-an-address"}),
    );
    assert_eq!(bad.status, 400);
    assert!(bad.json()["errors"]["email"].is_string());
    // On another site, the address has no account: nothing either.
    let mut h = Browser::new(&server, HARBOR, "203.0.113.62");
    assert_eq!(
        h.call(
            "POST",
            "/api/owner/password-reset",
            &json!({"email": "ann@example.test"})
        )
        .status,
        202
    );
    assert!(owner_emails(&server, "harbor-lane").is_empty());
    let known = r2.call(
        "POST",
        "/api/owner/password-reset",
        &json!({"email": "Ann@example.test"}),
    );
    assert_eq!(known.body, unknown.body);
    let mails = owner_emails(&server, "loam-lantern");
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0].0, "ann@example.test");
    // The link is on the site's own origin: its domain and the port it is served on.
    let origin = format!("http://{LOAM}:{}/config/reset?token=", server.port);
    let token = link_token(&mails[0].1, &origin);
    assert_eq!(token.len(), 64);

    // Spending it: the password's rules by field, then signed in with the new one; once.
    let mut b = Browser::new(&server, LOAM, "203.0.113.70");
    let short = b.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "short"}),
    );
    assert_eq!(short.status, 400);
    assert!(short.json()["errors"]["password"].is_string());
    let long = b.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "x".repeat(129)}),
    );
    assert!(long.json()["errors"]["password"].is_string());
    // Another site's host does not know the link.
    let r = request(
        server.port,
        "POST",
        HARBOR,
        "/api/owner/password",
        &[
            ("Content-Type", "application/json"),
            ("X-Forwarded-For", "203.0.113.71"),
        ],
        &json!({"token": token, "password": "a new password"}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert!(r.json()["errors"]["token"].is_string(), "{}", r.body);
    let set = b.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "a new password"}),
    );
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(set.json()["account"]["email"], "ann@example.test");
    assert!(set.header("set-cookie").unwrap().contains("tessera-owner="));
    assert_eq!(
        b.call("GET", "/api/owner/session", &Value::Null).status,
        200
    );
    // (From another client: this one has spent its burst of three.)
    let mut b2 = Browser::new(&server, LOAM, "203.0.113.72");
    let again = b2.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "another one"}),
    );
    assert_eq!(again.status, 400);
    assert!(again.json()["errors"]["token"].is_string());
}

fn owner_cli(backend: Backend) {
    let server = start(backend);
    let ok = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Without a password: a one-time link on the site's domain, with the port asked.
    let port = server.port.to_string();
    let out = owner_cmd(
        &server,
        &[
            "add",
            "loam-lantern",
            "Ana@Example.test",
            "--role",
            "admin",
            "--port",
            &port,
        ],
        "",
    );
    let text = ok(&out);
    assert!(text.contains("ana@example.test (admin)"), "{text}");
    let prefix = format!("http://{LOAM}:{port}/config/set-password?token=");
    let token = link_token(&text, &prefix);
    // The same address again, a bad address, a short password, an unknown role: refused.
    for (args, stdin) in [
        (
            vec![
                "add",
                "loam-lantern",
                "ana@example.test",
                "--role",
                "viewer",
            ],
            "",
        ),
        (
            vec!["add", "loam-lantern", "not-an-address", "--role", "viewer"],
            "",
        ),
        (
            vec![
                "add",
                "loam-lantern",
                "bo@example.test",
                "--role",
                "viewer",
                "--password-stdin",
            ],
            "short\n",
        ),
        (
            vec!["add", "loam-lantern", "bo@example.test", "--role", "owner"],
            "",
        ),
        (
            vec!["add", "no-such-site", "bo@example.test", "--role", "viewer"],
            "",
        ),
    ] {
        let out = owner_cmd(&server, &args, stdin);
        assert!(
            !out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    add_owner(
        &server,
        "loam-lantern",
        "bo@example.test",
        "8",
        "bo's password",
    );
    let list = ok(&owner_cmd(&server, &["list", "loam-lantern"], ""));
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 2, "{list}");
    assert!(
        lines[0].starts_with("ana@example.test")
            && lines[0].contains("admin")
            && lines[0].contains("no password yet"),
        "{list}"
    );
    assert!(
        lines[1].starts_with("bo@example.test")
            && lines[1].contains("store-manager")
            && lines[1].contains("password set"),
        "{list}"
    );
    assert!(ok(&owner_cmd(&server, &["list", "harbor-lane"], "")).is_empty());

    // Before the link is used there is no password to sign in with; after, there is.
    let mut b = Browser::new(&server, LOAM, "192.0.2.10");
    assert_eq!(b.sign_in("ana@example.test", "").status, 400);
    let set = b.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "ana's password"}),
    );
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(b.sign_in("ana@example.test", "ana's password").status, 200);
    assert_eq!(b.sign_in("bo@example.test", "bo's password").status, 200);

    // Removing: never the last admin; another owner's sessions end at once.
    let out = owner_cmd(&server, &["remove", "loam-lantern", "ana@example.test"], "");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("last admin"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        b.call("GET", "/api/owner/session", &Value::Null).status,
        200
    );
    ok(&owner_cmd(
        &server,
        &["remove", "loam-lantern", "bo@example.test"],
        "",
    ));
    assert_eq!(
        b.call("GET", "/api/owner/session", &Value::Null).status,
        401
    );
    assert!(
        !owner_cmd(&server, &["remove", "loam-lantern", "bo@example.test"], "")
            .status
            .success()
    );
    // A new link for an existing owner (a lost one); none for an unknown address.
    let text = ok(&owner_cmd(
        &server,
        &["link", "loam-lantern", "ANA@example.test", "--port", &port],
        "",
    ));
    let token = link_token(&text, &prefix);
    assert!(
        !owner_cmd(
            &server,
            &["link", "loam-lantern", "nobody@example.test"],
            ""
        )
        .status
        .success()
    );
    let mut c = Browser::new(&server, LOAM, "192.0.2.11");
    let set = c.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "ana's second"}),
    );
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(c.sign_in("ana@example.test", "ana's password").status, 401);
    assert_eq!(c.sign_in("ana@example.test", "ana's second").status, 200);
}

fn access_accounts_invites_tokens(backend: Backend) {
    let server = start(backend);
    add_owner(
        &server,
        "loam-lantern",
        "ann@example.test",
        "admin",
        "ann's password",
    );
    add_owner(
        &server,
        "loam-lantern",
        "wes@example.test",
        "website-manager",
        "wes's password",
    );
    add_owner(
        &server,
        "loam-lantern",
        "sam@example.test",
        "store-manager",
        "sam's password",
    );
    add_owner(
        &server,
        "harbor-lane",
        "hal@example.test",
        "admin",
        "hal's password",
    );
    let host = format!("{LOAM}:{}", server.port);
    let mut ann = Browser::new(&server, &host, "192.0.2.1");
    let mut wes = Browser::new(&server, &host, "192.0.2.2");
    let mut sam = Browser::new(&server, &host, "192.0.2.3");
    let mut hal = Browser::new(&server, HARBOR, "192.0.2.4");
    for (b, email, password) in [
        (&mut ann, "ann@example.test", "ann's password"),
        (&mut wes, "wes@example.test", "wes's password"),
        (&mut sam, "sam@example.test", "sam's password"),
        (&mut hal, "hal@example.test", "hal's password"),
    ] {
        assert_eq!(b.sign_in(email, password).status, 200);
    }

    // The list: by address; the access area is the admin's and the website manager's.
    let list = ann.call("GET", "/api/owner/accounts", &Value::Null);
    assert_eq!(list.status, 200, "{}", list.body);
    let emails: Vec<String> = list.json()["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["email"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        emails,
        ["ann@example.test", "sam@example.test", "wes@example.test"]
    );
    assert!(list.json()["accounts"][0]["hasPassword"].as_bool().unwrap());
    assert!(!list.body.contains("argon2"), "{}", list.body);
    assert_eq!(
        wes.call("GET", "/api/owner/accounts", &Value::Null).status,
        200
    );
    for path in ["/api/owner/accounts", "/api/owner/tokens"] {
        assert_eq!(sam.call("GET", path, &Value::Null).status, 403, "{path}");
        assert_eq!(request(server.port, "GET", LOAM, path, &[], "").status, 401);
    }
    let id_of = |b: &mut Browser, email: &str| -> String {
        let r = b.call("GET", "/api/owner/accounts", &Value::Null).json();
        r["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["email"] == email)
            .unwrap_or_else(|| panic!("no {email} in {r}"))["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let ann_id = id_of(&mut ann, "ann@example.test");
    let hal_id = id_of(&mut hal, "hal@example.test");

    // Invitations: CSRF, the fields, the admin role for admins only, no second account.
    ann.send_csrf = false;
    let r = ann.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "cat@example.test", "role": "editor"}),
    );
    assert_eq!((r.status, r.message()), (403, CSRF_FAIL.to_owned()));
    ann.send_csrf = true;
    let r = ann.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "cat@example.test", "role": "owner"}),
    );
    assert!(r.json()["errors"]["role"].is_string(), "{}", r.body);
    let r = ann.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "cat", "role": "editor"}),
    );
    assert!(r.json()["errors"]["email"].is_string(), "{}", r.body);
    let r = ann.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "Sam@example.test", "role": 4}),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    let r = wes.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "boss@example.test", "role": "admin"}),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    let r = sam.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "x@example.test", "role": "viewer"}),
    );
    assert_eq!(r.status, 403);
    let r = ann.call(
        "POST",
        "/api/owner/invites",
        &json!({"email": "Cat@example.test", "role": "editor"}),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.json()["invite"]["email"], "cat@example.test");
    assert_eq!(r.json()["invite"]["roleName"], "editor");
    let invites = ann.call("GET", "/api/owner/accounts", &Value::Null).json()["invites"].clone();
    assert_eq!(invites.as_array().unwrap().len(), 1, "{invites}");
    let mails = owner_emails(&server, "loam-lantern");
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0].0, "cat@example.test");
    assert!(
        mails[0].1.contains("ann@example.test invited you"),
        "{}",
        mails[0].1
    );
    let token = link_token(&mails[0].1, &format!("http://{host}/config/invite?token="));

    // Accepting it makes the account with its role, signed in.
    let mut cat = Browser::new(&server, LOAM, "192.0.2.5");
    let r = cat.call(
        "POST",
        "/api/owner/password",
        &json!({"token": token, "password": "cat's password"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["account"]["roleName"], "editor");
    assert_eq!(r.json()["areas"]["store"], Value::Null);
    assert_eq!(
        cat.call("GET", "/api/owner/session", &Value::Null).status,
        200
    );
    assert!(
        ann.call("GET", "/api/owner/accounts", &Value::Null).json()["invites"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let cat_id = id_of(&mut ann, "cat@example.test");

    // A new role ends the account's sessions; another site's account is not found here.
    let r = ann.call(
        "PATCH",
        &format!("/api/owner/accounts/{cat_id}"),
        &json!({"role": "viewer"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["roleName"], "viewer");
    assert_eq!(
        cat.call("GET", "/api/owner/session", &Value::Null).status,
        401
    );
    let r = ann.call(
        "PATCH",
        &format!("/api/owner/accounts/{hal_id}"),
        &json!({"role": "viewer"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(
        ann.call(
            "DELETE",
            &format!("/api/owner/accounts/{hal_id}"),
            &Value::Null
        )
        .status,
        404
    );
    assert_eq!(
        hal.call("GET", "/api/owner/session", &Value::Null).status,
        200
    );
    // Never the last admin; a website manager touches no admin.
    let r = ann.call(
        "PATCH",
        &format!("/api/owner/accounts/{ann_id}"),
        &json!({"role": "viewer"}),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(
        ann.call(
            "DELETE",
            &format!("/api/owner/accounts/{ann_id}"),
            &Value::Null
        )
        .status,
        409
    );
    assert_eq!(
        wes.call(
            "DELETE",
            &format!("/api/owner/accounts/{ann_id}"),
            &Value::Null
        )
        .status,
        403
    );
    let r = wes.call(
        "DELETE",
        &format!("/api/owner/accounts/{cat_id}"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["deleted"], cat_id.as_str());
    assert_eq!(
        wes.call(
            "DELETE",
            &format!("/api/owner/accounts/{cat_id}"),
            &Value::Null
        )
        .status,
        404
    );

    // Tokens: made with the secret shown once, listed without it, revoked at once.
    let r = ann.call(
        "POST",
        "/api/owner/tokens",
        &json!({"name": "ci", "role": "store-manager"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let secret = r.json()["secret"].as_str().unwrap().to_owned();
    let id = r.json()["token"]["id"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("tsk_"));
    assert_eq!(
        server
            .owner_call(LOAM, &secret, "GET", "/api/owner/orders", &Value::Null)
            .status,
        200
    );
    assert_eq!(
        server
            .owner_call(HARBOR, &secret, "GET", "/api/owner/orders", &Value::Null)
            .status,
        401
    );
    let list = ann.call("GET", "/api/owner/tokens", &Value::Null);
    assert!(
        list.body.contains(&id) && !list.body.contains(&secret),
        "{}",
        list.body
    );
    assert_eq!(list.json()["tokens"][0]["roleName"], "store-manager");
    assert!(
        ann.call(
            "POST",
            "/api/owner/tokens",
            &json!({"name": "x".repeat(101), "role": "viewer"})
        )
        .json()["errors"]["name"]
            .is_string()
    );
    assert_eq!(
        wes.call(
            "POST",
            "/api/owner/tokens",
            &json!({"name": "root", "role": "admin"})
        )
        .status,
        403
    );
    // Another site's token id is not found here.
    let theirs = hal
        .call(
            "POST",
            "/api/owner/tokens",
            &json!({"name": "h", "role": "viewer"}),
        )
        .json()["token"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        ann.call(
            "DELETE",
            &format!("/api/owner/tokens/{theirs}"),
            &Value::Null
        )
        .status,
        404
    );
    ann.send_csrf = false;
    assert_eq!(
        ann.call("DELETE", &format!("/api/owner/tokens/{id}"), &Value::Null)
            .status,
        403
    );
    ann.send_csrf = true;
    let r = ann.call("DELETE", &format!("/api/owner/tokens/{id}"), &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["revokedMs"].is_i64());
    assert_eq!(
        server
            .owner_call(LOAM, &secret, "GET", "/api/owner/orders", &Value::Null)
            .status,
        401
    );
}

/// `tessera serve` on the embedded default (`./data` of its working directory) adds an
/// admin per demo site and prints its password once; the account signs in. (Elsewhere, a
/// data directory of a test's choosing or PostgreSQL, there are none: `owner_cli` lists
/// harbor-lane's owners as empty.)
#[test]
fn demo_owners_on_the_embedded_default() {
    use std::io::{BufRead, BufReader};
    let dir = std::env::temp_dir().join(format!("tessera-demo-owners-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["serve", "--listen", "127.0.0.1:0", "--no-analytics"])
        .arg("--fixtures")
        .arg(crate::support::root().join("fixtures"))
        .current_dir(&dir)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sites = crate::support::fixture_dirs().len();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = stdout.next().unwrap().unwrap();
    let port: u16 = first
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    std::thread::spawn(move || for _ in stdout {});
    let mut owners = Vec::new();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in stderr.by_ref() {
        let line = line.unwrap();
        if let Some((_, rest)) = line.split_once(" owner app: ") {
            owners.push(rest.to_owned());
        }
        if line.contains("shown this once") {
            break;
        }
    }
    std::thread::spawn(move || for _ in stderr {});
    assert_eq!(owners.len(), sites, "{owners:?}");
    let loam = owners
        .iter()
        .find(|o| o.contains("as owner@loam-lantern.example"))
        .unwrap_or_else(|| panic!("{owners:?}"));
    assert!(
        loam.starts_with(&format!("http://{LOAM}:{port}/config ")),
        "{loam}"
    );
    let password = loam.rsplit("password ").next().unwrap();
    let r = request(
        port,
        "POST",
        LOAM,
        "/api/owner/session",
        &[("Content-Type", "application/json")],
        &json!({"email": "owner@loam-lantern.example", "password": password}).to_string(),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["account"]["roleName"], "admin");

    // A later start shows no password, and one line on how to get a sign-in link.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["serve", "--listen", "127.0.0.1:0", "--no-analytics"])
        .arg("--fixtures")
        .arg(crate::support::root().join("fixtures"))
        .current_dir(&dir)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        let done = line.contains("sign-in link");
        said.push(line);
        if done || said.len() > 50 {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!said.iter().any(|l| l.contains("password ")), "{said:#?}");
    let hints: Vec<_> = said.iter().filter(|l| l.contains("sign-in link")).collect();
    assert_eq!(hints.len(), 1, "{said:#?}");
    let port = hints[0]
        .split("--port ")
        .nth(1)
        .and_then(|p| p.split('`').next())
        .unwrap();
    assert!(port.parse::<u16>().unwrap() > 0, "{}", hints[0]);
    assert!(
        hints[0].contains("run `tessera owner link SITE EMAIL --port "),
        "{}",
        hints[0]
    );
}
