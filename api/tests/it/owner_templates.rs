//! Template versions over HTTP, on both backends: an upload with errors is refused with
//! each problem's file, line, column and source line while the site keeps its version; a
//! good one is stored beside the active version and served only once switched to, and an
//! earlier one is switched back to (rolled back); bad bodies by field, another site's
//! versions and tokens, roles without the design area, and a session's switch without its
//! CSRF token.

use serde_json::{Value, json};

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Response, Server, folder_upload, request};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const VERSIONS: &str = "/api/owner/template/versions";

on_both_backends!(
    versions_are_stored_then_switched_and_rolled_back,
    roles_sites_and_sessions
);

fn start(backend: Backend) -> Server {
    Server::with_owners(backend, &["--sign-ins-per-minute", "600"])
}

/// loam-lantern's template folder with `footer` as its footer region.
fn with_footer(footer: &str) -> Value {
    let folder = crate::support::root().join("fixtures/loam-lantern/template");
    let mut files = folder_upload(&folder);
    let f = files
        .iter_mut()
        .find(|f| f["path"] == "regions/footer.region")
        .unwrap();
    f["text"] = json!(footer);
    json!({ "files": files })
}

/// The fixture's footer with a mark at its end.
fn marked_footer(mark: &str) -> String {
    let path = crate::support::root().join("fixtures/loam-lantern/template/regions/footer.region");
    let text = std::fs::read_to_string(path).unwrap();
    format!("{text}<p class=\"upload-mark\">{mark}</p>")
}

fn page(server: &Server, path: &str) -> String {
    let r = request(server.port, "GET", LOAM, path, &[], "");
    assert_eq!(r.status, 200, "{path}");
    r.body
}

fn versions_are_stored_then_switched_and_rolled_back(backend: Backend) {
    let server = start(backend);
    let call = |method: &str, path: &str, body: &Value| -> Response {
        server.owner_call(LOAM, LOAM_TOKEN, method, path, body)
    };
    let r = call("GET", VERSIONS, &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let list = r.json();
    let imported = list["active"].as_i64().expect("the imported version");
    assert_eq!(list["versions"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["versions"][0]["version"], imported);
    assert_eq!(list["versions"][0]["active"], true);
    assert!(list["versions"][0]["files"].as_i64().unwrap() > 5, "{list}");
    assert!(
        list["versions"][0]["bytes"].as_i64().unwrap() > 1000,
        "{list}"
    );

    // An upload with an error: every problem with its line, nothing stored or switched.
    let broken = "<footer>\n  {.section website}{siteTitle}\n</footer>";
    let r = call("POST", VERSIONS, &with_footer(broken));
    assert_eq!(
        (r.status, r.message()),
        (
            400,
            "The template has problems, so the site keeps its current version.".into()
        ),
        "{}",
        r.body
    );
    let findings = r.json()["findings"].clone();
    let first = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "regions/footer.region")
        .unwrap_or_else(|| panic!("{findings}"))
        .clone();
    let line = first["line"].as_u64().unwrap() as usize;
    assert!(line >= 1, "{first}");
    assert!(first["column"].as_u64().unwrap() >= 1, "{first}");
    assert_eq!(
        first["source"].as_str().unwrap(),
        broken.lines().nth(line - 1).unwrap(),
        "{first}"
    );
    assert!(!first["message"].as_str().unwrap().is_empty());
    let problems = r.json()["problems"].clone();
    assert!(
        problems[0]
            .as_str()
            .unwrap()
            .starts_with(&format!("regions/footer.region:{line}:")),
        "{problems}"
    );
    assert_eq!(
        call("GET", VERSIONS, &Value::Null).json()["versions"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "a refused upload stores nothing"
    );

    // A good one is stored, not served.
    let r = call(
        "POST",
        VERSIONS,
        &with_footer(&marked_footer("Version two")),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let two = r.json()["templateVersion"].as_i64().unwrap();
    assert!(two > imported);
    assert!(r.json()["findings"].is_array());
    assert!(!page(&server, "/about").contains("Version two"));
    let list = call("GET", VERSIONS, &Value::Null).json();
    assert_eq!(list["active"], imported);
    assert_eq!(list["versions"][0]["version"], two, "the newest first");
    assert_eq!(list["versions"][0]["active"], false);

    // Switched to: the next page shows it.
    let r = call("POST", &format!("{VERSIONS}/{two}/switch"), &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({"active": two}));
    assert!(page(&server, "/about").contains("Version two"));
    let list = call("GET", VERSIONS, &Value::Null).json();
    assert_eq!(list["active"], two);
    assert_eq!(list["versions"][0]["active"], true);
    assert_eq!(list["versions"][1]["active"], false);

    // The old route still checks, stores and serves at once.
    let r = call(
        "POST",
        "/api/owner/template",
        &with_footer(&marked_footer("Version three")),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let three = r.json()["templateVersion"].as_i64().unwrap();
    assert!(page(&server, "/about").contains("Version three"));

    // Rolled back to the imported one, then to two.
    let r = call(
        "POST",
        &format!("{VERSIONS}/{imported}/switch"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let about = page(&server, "/about");
    assert!(!about.contains("Version three") && !about.contains("Version two"));
    let r = call("POST", &format!("{VERSIONS}/{two}/switch"), &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(page(&server, "/about").contains("Version two"));
    assert_eq!(
        call("GET", VERSIONS, &Value::Null).json()["versions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // Versions that are not there, and bad bodies, by field.
    for v in [
        (three + 1).to_string(),
        "0".into(),
        "-1".into(),
        "two".into(),
    ] {
        let r = call("POST", &format!("{VERSIONS}/{v}/switch"), &Value::Null);
        assert_eq!(
            (r.status, r.message()),
            (404, "That template version does not exist.".into()),
            "{v}"
        );
    }
    for (body, field) in [
        (json!({"files": []}), "files"),
        (json!({}), "files"),
        (
            json!({"files": [{"path": "../x", "text": ""}]}),
            "files[0].path",
        ),
        (json!({"files": [{"path": "a.css"}]}), "files[0]"),
        (
            json!({"files": [{"path": "a.png", "base64": "***"}]}),
            "files[0].base64",
        ),
    ] {
        let r = call("POST", VERSIONS, &body);
        assert_eq!(r.status, 400, "{body}");
        assert!(
            r.json()["errors"].get(field).is_some(),
            "{field}: {}",
            r.body
        );
    }
    assert!(page(&server, "/about").contains("Version two"));
}

/// Signs an admin owner of loam-lantern in: (cookie, csrf).
fn session(server: &Server) -> (String, String) {
    let who = ("designer@example.test", "admin", "designer password");
    crate::owner_accounts::signed_in(server, "loam-lantern", LOAM, who)
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = start(backend);
    let good = with_footer(&marked_footer("Stored"));
    let r = server.owner_call(LOAM, LOAM_TOKEN, "POST", VERSIONS, &good);
    assert_eq!(r.status, 201, "{}", r.body);
    let stored = r.json()["templateVersion"].as_i64().unwrap();
    let switch = format!("{VERSIONS}/{stored}/switch");

    // Another site: its token is nobody here, and this site's version is not its own.
    assert_eq!(
        server
            .owner_call(LOAM, HARBOR_TOKEN, "GET", VERSIONS, &Value::Null)
            .status,
        401
    );
    let harbor = server.owner_call(HARBOR, HARBOR_TOKEN, "GET", VERSIONS, &Value::Null);
    let harbor_newest = harbor.json()["versions"][0]["version"].as_i64().unwrap();
    assert!(harbor_newest < stored, "{}", harbor.body);
    let r = server.owner_call(HARBOR, HARBOR_TOKEN, "POST", &switch, &Value::Null);
    assert_eq!(r.status, 404, "{}", r.body);

    // Roles: the viewer reads, the editor changes, the store manager neither.
    let viewer = server.owner_token("loam-lantern", "viewer");
    let editor = server.owner_token("loam-lantern", "editor");
    let manager = server.owner_token("loam-lantern", "store-manager");
    assert_eq!(
        server
            .owner_call(LOAM, &viewer, "GET", VERSIONS, &Value::Null)
            .status,
        200
    );
    assert_eq!(
        server
            .owner_call(LOAM, &viewer, "POST", &switch, &Value::Null)
            .status,
        403
    );
    assert_eq!(
        server
            .owner_call(LOAM, &viewer, "POST", VERSIONS, &good)
            .status,
        403
    );
    assert_eq!(
        server
            .owner_call(LOAM, &manager, "GET", VERSIONS, &Value::Null)
            .status,
        403
    );
    assert!(!page(&server, "/about").contains("Stored"));

    // A session switches with its CSRF token only.
    let (cookie, csrf) = session(&server);
    let send = |csrf: Option<&str>| {
        server.session_call(LOAM, &cookie, csrf, "POST", &switch, &Value::Null)
    };
    let r = send(None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(!page(&server, "/about").contains("Stored"));
    let r = send(Some(&csrf));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(page(&server, "/about").contains("Stored"));
    let r = server.owner_call(
        LOAM,
        &editor,
        "POST",
        &format!("{VERSIONS}/1/switch"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!page(&server, "/about").contains("Stored"));
}
