//! `tessera dev` over HTTP (the browser side is client/e2e/dev.mjs): any host name gets the
//! site, a collection type the folder declares and the content lacks gets sample items, a
//! good save is the next version (pages change, a `reload` event), a bad one is held back
//! with a `problems` event naming file, line and column.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Backend, Server};

struct Dev {
    child: Child,
    port: u16,
    /// What it printed on the terminal so far.
    said: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(folder: &Path) -> Dev {
    start_with(folder, &["--content", "quillback"])
}

fn start_with(folder: &Path, args: &[&str]) -> Dev {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("dev")
        .arg(folder)
        .args(args)
        .args(["--listen", "127.0.0.1:0", "--fixtures"])
        .arg(&fixtures)
        .env_remove("DATABASE_URL")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let port = loop {
        let line = lines
            .next()
            .expect("tessera dev printed its address")
            .unwrap();
        if let Some(at) = line.find("on http://127.0.0.1:") {
            let rest = &line[at + "on http://127.0.0.1:".len()..];
            break rest[..rest.find('/').unwrap()].parse().unwrap();
        }
    };
    let said = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = said.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            keep.lock().unwrap().push(line);
        }
    });
    Dev { child, port, said }
}

fn get(port: u16, host: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, raw)
}

/// The event stream: each call to `next` gives the next `data:` line's JSON.
struct Events(BufReader<TcpStream>);

impl Events {
    fn open(port: u16) -> Events {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            s,
            "GET /_tessera/dev/events HTTP/1.1\r\nHost: x.test\r\n\r\n"
        )
        .unwrap();
        Events(BufReader::new(s))
    }

    fn next(&mut self) -> serde_json::Value {
        loop {
            let mut line = String::new();
            self.0.read_line(&mut line).expect("an event within 20 s");
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return serde_json::from_str(data).unwrap();
            }
        }
    }

    /// The first event `done` accepts. An editor's save can reach the watcher as more than
    /// one change (the file emptied, then written), each announced: the events of the
    /// halfway states come first and are passed over.
    fn until(
        &mut self,
        what: &str,
        mut done: impl FnMut(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let start = Instant::now();
        loop {
            let e = self.next();
            if done(&e) {
                return e;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{what}: last event {e}"
            );
        }
    }
}

/// A scratch copy of quillback's template folder.
fn quillback_folder(tag: &str) -> std::path::PathBuf {
    let folder =
        std::env::temp_dir().join(format!("tessera-dev-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/quillback/template");
    assert!(
        Command::new("cp")
            .arg("-r")
            .arg(&src)
            .arg(&folder)
            .status()
            .unwrap()
            .success()
    );
    folder
}

#[test]
fn serves_reloads_and_holds_back_a_broken_save() {
    let folder = quillback_folder("reloads");
    // A collection type quillback's content does not have.
    std::fs::write(
        folder.join("collections/recipes.conf"),
        "{ \"title\": \"Recipes\" }",
    )
    .unwrap();
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}<h2 class=\"recipe\">{title}</h2>{.end}",
    )
    .unwrap();
    // A type declared only by its list template, and a navigation the content has no
    // links in.
    std::fs::write(
        folder.join("collections/products.list"),
        "{.repeated section items}<p class=\"product\">{title}</p>{.end}",
    )
    .unwrap();
    let edit = |rel: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(folder.join(rel)).unwrap();
        assert!(text.contains(from), "{rel}");
        std::fs::write(folder.join(rel), text.replace(from, to)).unwrap();
    };
    edit("template.conf", "\"footerNav\"", "\"footerLinks\"");
    edit(
        "regions/bottom.region",
        "navigationId=\"footerNav\" template=\"nav\"",
        "navigationId=\"footerLinks\" template=\"footer-links\"",
    );
    std::fs::write(
        folder.join("blocks/footer-links.block"),
        "<ul class=\"footer-links\">{.repeated section items}<li>{collection.navigationTitle}</li>{.end}</ul>",
    )
    .unwrap();
    let dev = start(&folder);

    let (status, page) = get(dev.port, "anything.example", "/");
    assert_eq!(status, 200);
    assert!(
        page.contains("/_tessera/dev/events"),
        "pages listen for reloads"
    );
    let (_, recipes) = get(dev.port, "localhost", "/recipes");
    assert!(
        recipes.contains("<h2 class=\"recipe\">Recipes: sample 1</h2>"),
        "{recipes}"
    );
    // The samples are in the folder's first navigation; the empty one shows the content's.
    assert!(
        page.contains("href=\"/recipes\"") && page.contains("href=\"/products\""),
        "{page}"
    );
    assert!(
        page.contains("<ul class=\"footer-links\"><li>Home</li>"),
        "{page}"
    );
    // Sample products are store items with a price and stock, the third sold out.
    let (_, products) = get(dev.port, "localhost", "/products?format=json");
    let body = products.split("\r\n\r\n").nth(1).unwrap();
    let items = serde_json::from_str::<serde_json::Value>(body).unwrap()["items"].clone();
    let stock: Vec<(i64, i64)> = (0..3)
        .map(|i| {
            let v = &items[i]["structuredContent"]["variants"][0];
            (
                v["priceMoney"]["value"]
                    .as_str()
                    .map_or(-1, |p| p.parse::<f64>().unwrap() as i64),
                v["qtyInStock"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    assert_eq!(stock, [(10, 5), (20, 5), (30, 0)], "{items}");
    let (_, products) = get(dev.port, "localhost", "/products");
    assert!(
        products.contains("<p class=\"product\">Products: sample 1</p>"),
        "{products}"
    );

    let mut events = Events::open(dev.port);
    let first = events.next();
    assert_eq!(first["type"], "reload", "the current state first");
    // A page names the version it shows, so it reloads on any other one (even one its
    // stream's first event announces) and never on its own.
    let stamp = |page: &str| {
        page.split("<script data-version=\"")
            .nth(1)
            .and_then(|t| t.split('"').next())
            .and_then(|n| n.parse::<i64>().ok())
    };
    assert_eq!(stamp(&recipes), first["version"].as_i64(), "{first}");
    // A good save: the next version, served.
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}<h3 class=\"recipe\">{title}</h3>{.end}",
    )
    .unwrap();
    let saved = Instant::now();
    let mut recipes = String::new();
    let next = events.until("the good save served", |e| {
        recipes = get(dev.port, "localhost", "/recipes").1;
        e["type"] == "reload" && recipes.contains("<h3 class=\"recipe\">")
    });
    assert_ne!(next["version"], first["version"]);
    assert_eq!(stamp(&recipes), next["version"].as_i64());
    assert!(saved.elapsed() < Duration::from_secs(5));
    // A bad save: held back, named.
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}\n<h4>{title}",
    )
    .unwrap();
    let e = events.until("the bad save named", |e| e["type"] == "problems");
    assert_eq!(
        e["problems"][0]["location"]
            .as_str()
            .unwrap()
            .split(':')
            .take(2)
            .collect::<Vec<_>>(),
        ["collections/recipes.list", "2"]
    );
    assert!(
        e["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Reached EOF in the middle of REPEATED"),
        "{e}"
    );
    let (_, recipes) = get(dev.port, "localhost", "/recipes");
    assert!(
        recipes.contains("<h3 class=\"recipe\">"),
        "the last good version is still served"
    );
    // Fixed: served again.
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}<h5>{title}</h5>{.end}",
    )
    .unwrap();
    events.until("the fixed save served", |e| {
        e["type"] == "reload"
            && get(dev.port, "localhost", "/recipes")
                .1
                .contains("<h5>Recipes: sample 1</h5>")
    });
    // A block tag missing its `}` in a region: the overlay points at the tag, with a hint,
    // and says where the `{.end}` it leaves with nothing to end is.
    edit(
        "regions/bottom.region",
        "{.section website.location}<address>",
        "{.section website.location<address>",
    );
    let e = events.until("the unclosed tag named", |e| e["type"] == "problems");
    let problem = &e["problems"][0];
    assert_eq!(problem["location"], "regions/bottom.region:6:9", "{e}");
    assert_eq!(
        (&problem["line"], &problem["column"]),
        (&6.into(), &9.into())
    );
    let message = problem["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "SyntaxError: Instruction END not allowed at root (regions/bottom.region:6:"
        ) && message.ends_with("hint: this tag is not closed: it needs a `}`"),
        "{message}"
    );
    assert!(
        problem["source"]
            .as_str()
            .unwrap()
            .starts_with("        {.section website.location<address>"),
        "{e}"
    );
    drop(dev);
    std::fs::remove_dir_all(&folder).unwrap();
}

/// Render-time errors show from the first load, on the terminal and in the page's overlay
/// (its script's `data-problems`), not only after a save; a folder whose template.conf does
/// not parse says why on every page, not "Something went wrong".
#[test]
fn render_errors_and_a_broken_conf_show_from_the_first_load() {
    let folder = quillback_folder("render-errors");
    std::fs::write(
        folder.join("collections/recipes.conf"),
        "{ \"title\": \"Recipes\" }",
    )
    .unwrap();
    std::fs::write(
        folder.join("collections/recipes.list"),
        "<p>list</p>{@|apply gone.block}",
    )
    .unwrap();
    let dev = start(&folder);
    let (status, page) = get(dev.port, "localhost", "/recipes");
    assert_eq!(status, 200);
    let problems = page
        .split("data-problems=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or_else(|| panic!("no problems on the page: {page}"));
    assert!(
        problems.contains("Attempt to apply partial &#39;gone.block&#39; which could not be found"),
        "{problems}"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while !dev
        .said
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("/recipes") && l.contains("gone.block"))
    {
        assert!(Instant::now() < deadline, "{:?}", dev.said.lock().unwrap());
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(dev);

    std::fs::write(
        folder.join("template.conf"),
        "{ \"name\": \"Broken\",\n  \"layouts\": }",
    )
    .unwrap();
    let dev = start(&folder);
    for path in ["/", "/recipes", "/nowhere"] {
        let (status, page) = get(dev.port, "localhost", path);
        assert_eq!(status, 500, "{path}");
        assert!(!page.contains("Something went wrong"), "{path}: {page}");
        assert!(
            page.contains("<code>template.conf:2:14</code>: expected value"),
            "{path}: {page}"
        );
    }
    drop(dev);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn usage_problems_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["dev", "/nonexistent/theme"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/quillback/template");
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("dev")
        .arg(&here)
        .args(["--content", "no-such-tenant", "--fixtures"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--content no-such-tenant") && err.contains("quillback"),
        "{err}"
    );
}

/// `--content` naming a tenant of a live store (by one of its domains): `dev` works on a
/// copy, so the author's saves never reach the live site.
fn a_tenant_of_a_store_is_copied_and_never_changed(backend: Backend) {
    let live = Server::start(backend, &[]);
    let live_version = || {
        live.with_store(|s| {
            Box::pin(async move {
                let t = s.tenant_by_identifier("quillback").await.unwrap().unwrap();
                (t.template_version, t.content_version)
            })
        })
    };
    // A site password on the live site locks its pages, but not dev's copy: the author
    // works on it as its owner.
    let admin = live.owner_token("quillback", "admin");
    let r = live.owner_call(
        "quillback.localhost",
        &admin,
        "PATCH",
        "/api/owner/site-access",
        &serde_json::json!({"password": "workshop"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let before = live_version();
    let store_args = live.store_args();
    let store_args: Vec<&str> = store_args.iter().map(String::as_str).collect();

    let folder = quillback_folder(live.backend.tag());
    let block = folder.join("blocks/hours.block");
    let original = std::fs::read_to_string(&block).unwrap();
    std::fs::write(&block, format!("<p id=\"from-dev\">dev</p>\n{original}")).unwrap();
    let mut args = vec!["--content", "quillback-cycles.localhost"];
    args.extend(&store_args);
    let dev = start_with(&folder, &args);
    let (status, page) = get(dev.port, "localhost", "/");
    assert_eq!(status, 200);
    assert!(page.contains("id=\"from-dev\""), "the folder is served");
    assert!(
        !page.contains("data-page-type=\"103\""),
        "not the site's lock screen"
    );
    assert!(
        page.contains("Quillback Cycles"),
        "with the store's content"
    );

    let mut events = Events::open(dev.port);
    assert_eq!(events.next()["type"], "reload");
    std::fs::write(&block, format!("<p id=\"saved\">dev</p>\n{original}")).unwrap();
    events.until("the saved block served", |e| {
        e["type"] == "reload" && get(dev.port, "localhost", "/").1.contains("id=\"saved\"")
    });

    // The live site: its own template, its versions as they were.
    let (status, live_page) = get(live.port, "quillback.localhost", "/");
    assert_eq!(status, 200);
    assert!(!live_page.contains("from-dev") && !live_page.contains("id=\"saved\""));
    assert!(
        live_page.contains("data-page-type=\"103\"") && live_page.contains("password protected"),
        "the live site stays locked: {live_page}"
    );
    drop(dev);
    assert_eq!(live_version(), before, "the live tenant is untouched");

    // A name the store does not have: said, with the store it looked in.
    let mut args = vec!["--content", "nobody.example"];
    args.extend(&store_args);
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("dev")
        .arg(&folder)
        .args(&args)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has no tenant or domain \"nobody.example\""),
        "{err}"
    );
    std::fs::remove_dir_all(&folder).unwrap();
}

on_both_backends!(a_tenant_of_a_store_is_copied_and_never_changed);

/// `combo="true"` scripts next to each other are one request, answered with the files
/// joined in order (the same server code as `serve`).
#[test]
fn combo_scripts_are_one_request() {
    let folder = quillback_folder("combo");
    let region = folder.join("regions/bottom.region");
    let text = std::fs::read_to_string(&region).unwrap();
    let one = "<squarespace:script src=\"site.js\" combo=\"false\" />";
    assert!(text.contains(one));
    std::fs::write(
        &region,
        text.replace(
            one,
            "<squarespace:script src=\"site.js\" combo=\"true\" />\n  <squarespace:script src=\"extra.js\" combo=\"true\" />",
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("scripts/extra.js"),
        "window.extraLoaded = true;\n",
    )
    .unwrap();
    let site_js = std::fs::read_to_string(folder.join("scripts/site.js")).unwrap();
    let dev = start(&folder);

    let page = crate::support::get(dev.port, "localhost", "/");
    assert!(
        page.body
            .contains("<script src=\"/scripts/combo/?site.js&amp;extra.js\"></script>"),
        "{}",
        page.body
    );
    let combo = crate::support::get(dev.port, "localhost", "/scripts/combo/?site.js&extra.js");
    assert_eq!(combo.status, 200);
    assert_eq!(
        combo.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(
        combo.body,
        format!("{site_js}\n;\nwindow.extraLoaded = true;\n\n;\n")
    );
    let etag = combo.header("etag").unwrap().to_owned();
    let again = crate::support::request(
        dev.port,
        "GET",
        "localhost",
        "/scripts/combo/?site.js&extra.js",
        &[("If-None-Match", &etag)],
        "",
    );
    assert_eq!(again.status, 304);
    // A name the folder lacks is said in a comment, by its place in the list (never its
    // name: that is the visitor's text); the others still come.
    let partly = crate::support::get(dev.port, "localhost", "/scripts/combo/?nope.js&extra.js");
    assert_eq!(partly.status, 200);
    assert!(
        partly
            .body
            .starts_with("/* script 1 of this list is not in this template */\nwindow.extraLoaded"),
        "{}",
        partly.body
    );
    // Nothing found, or not a script: 404.
    for path in [
        "/scripts/combo/?nope.js",
        "/scripts/combo/",
        "/scripts/combo/?../template.conf",
    ] {
        assert_eq!(
            crate::support::get(dev.port, "localhost", path).status,
            404,
            "{path}"
        );
    }
    drop(dev);
    std::fs::remove_dir_all(&folder).unwrap();
}
