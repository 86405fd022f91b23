//! Compiling an uploaded folder's LESS: confined to the folder and the platform's imports,
//! bounded in time and memory (issue 40, findings 1, 7).
//!
//! Each test uploads harbor-lane's own template (the LESS demo) with one thing appended to
//! `styles/site.less`, through `POST /api/owner/template` with the site's admin token.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, folder_upload, get, request, root};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const REFUSED: &str = "The template has problems, so the site keeps its current version.";

/// A new admin token of `site`, made with `tessera token create`.
fn admin_token(server: &Server, site: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["token", "create", site, "--role", "admin", "--name", "test"])
        .args(server.store_args())
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    text.split_whitespace().last().unwrap().to_owned()
}

/// harbor-lane's template with `less` appended to `styles/site.less`.
fn harbor_with(less: &str) -> Value {
    let mut files = folder_upload(&root().join("fixtures/harbor-lane/template"));
    let site = files
        .iter_mut()
        .find(|f| f["path"] == "styles/site.less")
        .expect("harbor-lane has styles/site.less");
    let text = site["text"].as_str().unwrap().to_owned();
    site["text"] = json!(format!("{text}\n{less}\n"));
    json!({ "files": files })
}

fn upload(server: &Server, token: &str, body: &Value) -> Response {
    let auth = format!("Bearer {token}");
    request(
        server.port,
        "POST",
        HARBOR,
        "/api/owner/template",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        &body.to_string(),
    )
}

/// The upload was refused with one LESS problem that says `why`.
fn assert_refused(r: &Response, payload: &str, why: &str) {
    assert_eq!(r.status, 400, "{payload}: {}", r.body);
    assert_eq!(r.message(), REFUSED, "{payload}");
    let problems = r.json()["problems"].to_string();
    assert!(
        problems.contains("LESS: ") && problems.contains(why),
        "{payload}: expected a problem saying {why:?}, got {problems}"
    );
}

/// What an attacker wants to read: system files, the server's own process, the store.
fn secrets_absent(css: &str) {
    for secret in [
        "root:x:0:0",
        "DATABASE_URL",
        "SQLite format 3",
        "cm9vdDp4OjA6MD",
    ] {
        assert!(!css.contains(secret), "{secret} leaked into /site.css");
    }
}

/// Finding 1: `data-uri()` and `@import (inline|less|css)` read only the folder's styles/
/// and the platform's imports; everything else is refused by name, never read.
fn no_file_outside_the_folder(backend: Backend) {
    let server = Server::start(backend, &[]);
    let token = admin_token(&server, "harbor-lane");
    let store = server.data.join("tessera.sqlite3");
    let store = store.display();
    let up = "../../../../../../../../..";
    let outside = "is outside the template's styles/ folder";
    let absolute = "only the template's styles/ files can be read";
    let payloads = [
        (
            "body { background: data-uri('/etc/passwd'); }".to_owned(),
            absolute,
        ),
        (
            "body { background: data-uri('text/plain;base64', '/proc/self/environ'); }".into(),
            absolute,
        ),
        (
            format!("body {{ background: data-uri('{store}'); }}"),
            absolute,
        ),
        (
            format!("body {{ background: data-uri('{up}/etc/passwd'); }}"),
            outside,
        ),
        (
            format!("body {{ background: data-uri('{up}{store}'); }}"),
            outside,
        ),
        ("@import (inline) '/etc/passwd';".into(), absolute),
        ("@import (inline) '/proc/self/cmdline';".into(), absolute),
        (format!("@import (inline) '{up}/etc/passwd';"), outside),
        (format!("@import (less) '{up}/etc/hostname';"), outside),
        // Odd spellings: through a folder of the template, a file: URL.
        (
            "@import (inline) 'partials/../../../../../etc/passwd';".into(),
            outside,
        ),
        (
            "@import (inline) 'file:///etc/passwd';".into(),
            "never fetched",
        ),
        (
            "body { background: data-uri('file:///etc/passwd'); }".into(),
            "never fetched",
        ),
        // The platform's imports are reachable by name only, not by a path out of styles/.
        (
            "@import '../platform/sqs-grid-breaker.less';".into(),
            outside,
        ),
        // JavaScript in Node, and functions that read files themselves.
        (
            "@plugin 'plugin';".into(),
            "@plugin 'plugin' is not allowed",
        ),
        ("@plugin './x.js';".into(), "is not allowed"),
        (
            "body { width: image-width('/etc/passwd'); }".into(),
            "not supported",
        ),
    ];
    for (payload, why) in &payloads {
        let r = upload(&server, &token, &harbor_with(payload));
        assert_refused(&r, payload, why);
        secrets_absent(&r.body);
    }
    // The site kept its version: its stylesheet has nothing of any of it.
    let css = get(server.port, HARBOR, "/site.css");
    assert_eq!(css.status, 200);
    secrets_absent(&css.body);

    // The folder's own files and the platform's imports still work.
    let ok = "@import 'sqs-grid-breaker'; @import (inline) 'parts/raw.css'; .mark { x: 1; }";
    let mut body = harbor_with(ok);
    body["files"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "styles/parts/raw.css", "text": "/* raw-inline */"}));
    let r = upload(&server, &token, &body);
    assert_eq!(r.status, 201, "{}", r.body);
    let css = get(server.port, HARBOR, "/site.css").body;
    assert!(
        css.contains(".mark {") && css.contains("/* raw-inline */") && css.contains(".sqs-row"),
        "{css}"
    );
}

/// Finding 1: a remote import is never fetched: it stays a plain CSS `@import` for the
/// browser, whatever its extension.
fn remote_imports_are_not_fetched(backend: Backend) {
    let server = Server::start(backend, &[]);
    let token = admin_token(&server, "harbor-lane");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let remote = format!("http://127.0.0.1:{port}/theme.less");
    // Protocol-relative too: the browser's business, not the compiler's.
    let relative = format!("//127.0.0.1:{port}/more");
    let r = upload(
        &server,
        &token,
        &harbor_with(&format!("@import url('{remote}'); @import '{relative}';")),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert!(
        listener.accept().is_err(),
        "the compiler connected to {remote}"
    );
    let css = get(server.port, HARBOR, "/site.css").body;
    for url in [remote, relative] {
        assert!(css.contains(&format!("@import url(\"{url}\");")), "{css}");
    }
}

/// Finding 7: a compile that would run for minutes is stopped at the time bound (10 s)
/// with a clear problem, its Node process gone, and the node answers other sites meanwhile.
fn a_runaway_compile_is_stopped(backend: Backend) {
    let server = Server::start(backend, &[]);
    let token = admin_token(&server, "harbor-lane");
    // 2^40 mixin calls: hours of work, no output.
    let bomb = ".bomb(@n) when (@n > 0) { .bomb(@n - 1); .bomb(@n - 1); } .x { .bomb(40); }";
    let body = harbor_with(bomb);
    let started = Instant::now();
    let answer = std::thread::scope(|s| {
        let uploading = s.spawn(|| upload(&server, &token, &body));
        // The compiler runs with nothing of the server's environment, under Node's
        // permission model and a small heap.
        let cmdline = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/cmdline"));
        let (node, _) = crate::support::poll_until(
            Duration::from_secs(5),
            "the compiler runs",
            || {
                node_children(server.pid())
                    .into_iter()
                    .find(|&pid| cmdline(pid).is_ok_and(|c| c.contains("less-compiler")))
            },
            Option::is_some,
        );
        let node = node.unwrap();
        let environ = std::fs::read(format!("/proc/{node}/environ")).unwrap_or_default();
        for var in environ.split(|b| *b == 0).filter(|v| !v.is_empty()) {
            assert!(
                var.starts_with(b"PATH="),
                "the compiler inherited {}",
                String::from_utf8_lossy(var)
            );
        }
        let cmdline = cmdline(node).unwrap_or_default();
        assert!(
            cmdline.contains("permission\0--allow-fs-read=")
                && cmdline.contains("--max-old-space-size=256"),
            "{cmdline:?}"
        );
        while !uploading.is_finished() {
            let t = Instant::now();
            let page = get(server.port, LOAM, "/");
            assert_eq!(page.status, 200);
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "another site's page took {:?} during the compile",
                t.elapsed()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
        uploading.join().unwrap()
    });
    assert_refused(&answer, bomb, "took longer than 10 s");
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "answered after {:?}",
        started.elapsed()
    );
    assert!(
        node_children(server.pid()).is_empty(),
        "the compiler still runs: {:?}",
        node_children(server.pid())
    );
}

/// Finding 7: a compile that needs gigabytes is stopped at the memory bound.
fn an_out_of_memory_compile_is_refused(backend: Backend) {
    let server = Server::start(backend, &[]);
    let token = admin_token(&server, "harbor-lane");
    // A list of 10^8 numbers.
    let mut bomb = String::from("@m0: 1 2 3 4 5 6 7 8 9 10;");
    for i in 1..8 {
        bomb.push_str(&format!(" @m{i}:{};", format!(" @m{}", i - 1).repeat(10)));
    }
    bomb.push_str(" .x { y: @m7; }");
    let started = Instant::now();
    let r = upload(&server, &token, &harbor_with(&bomb));
    assert_refused(&r, "the list bomb", "needed more than 256 MB of memory");
    assert!(started.elapsed() < Duration::from_secs(25));
    assert!(node_children(server.pid()).is_empty());
    // The node is fine afterwards.
    assert_eq!(get(server.port, LOAM, "/").status, 200);
}

/// The `node` processes whose parent is `pid`.
fn node_children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …
        let Some((head, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if head.ends_with("(node") && ppid == Some(pid) {
            found.extend(
                entry
                    .file_name()
                    .to_str()
                    .and_then(|n| n.parse::<u32>().ok()),
            );
        }
    }
    found
}

on_both_backends!(
    no_file_outside_the_folder,
    remote_imports_are_not_fetched,
    a_runaway_compile_is_stopped,
    an_out_of_memory_compile_is_refused,
);
