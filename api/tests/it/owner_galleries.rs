//! Galleries over HTTP, on both backends: a gallery's images and options
//! (`/api/owner/galleries/{id}`). An uploaded image is added with its alt text (or marked
//! decorative), its words changed by JSON Merge Patch, moved first, and removed; the live
//! gallery page shows the order, the alt text and the options (design, images per row,
//! crop) on the next page, on any node. Bad options are named by field (type, choice,
//! range) and store nothing; another site's gallery, a page that is no gallery, a role
//! without the content area and a session's write without its CSRF token are refused.

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, get, request};

const SKY: &str = "skyward.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const PATH: &str = "/api/owner/galleries/4a34023c51daec13761ca0ec";
/// A blog of skyward's: a page, but no gallery.
const NOTES: &str = "85545e6d5a0faa9163fefc62";
/// A GIF's header, 800 × 600 (every byte ASCII, so the test client's text body carries it).
const GIF: &[u8] = b"GIF89a\x20\x03\x58\x02\x00\x00\x00;";

on_both_backends!(
    images_are_added_ordered_described_and_removed,
    options_are_checked_by_field_and_shown_on_the_site,
    sites_roles_and_sessions,
);

fn call(server: &Server, token: &str, method: &str, path: &str, body: Value) -> Response {
    server.owner_call(SKY, token, method, path, &body)
}

/// Uploads `bytes` as `name` to skyward: the upload's id.
fn upload(server: &Server, token: &str, name: &str, bytes: &[u8]) -> String {
    let auth = format!("Bearer {token}");
    let r = request(
        server.port,
        "POST",
        SKY,
        &format!("/api/owner/assets?fileName={name}"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/octet-stream"),
        ],
        &String::from_utf8_lossy(bytes),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_owned()
}

fn ids(gallery: &Value) -> Vec<String> {
    gallery["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The live gallery page's `<ul class="gallery__grid …">` tag and its images' alt texts in
/// order.
fn live(server: &Server) -> (String, Vec<String>) {
    let page = get(server.port, SKY, "/gallery");
    assert_eq!(page.status, 200, "{}", page.body);
    let at = page
        .body
        .find("<ul class=\"gallery__grid")
        .expect("the gallery list");
    let tag = page.body[at..].split('>').next().unwrap().to_owned();
    let alts = page.body[at..]
        .split("<img ")
        .skip(1)
        .map(|img| {
            let a = img.find(" alt=\"").expect("an alt") + 6;
            img[a..].split('"').next().unwrap().to_owned()
        })
        .collect();
    (tag, alts)
}

fn images_are_added_ordered_described_and_removed(backend: Backend) {
    let server = Server::start(backend.clone(), &[]);
    let admin = server.owner_token("skyward", "admin");
    let r = call(&server, &admin, "GET", PATH, Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let g = r.json();
    assert_eq!(g["title"], "Gallery");
    assert_eq!(g["fullUrl"], "/gallery");
    assert_eq!(g["maxImages"], 250);
    assert_eq!(g["images"].as_array().unwrap().len(), 12);
    // An imported image without alt text says the one the site shows: its title.
    assert_eq!(g["images"][0]["altText"], g["images"][0]["title"]);
    let before = ids(&g);

    // Alt text is required, unless the image is decorative; nothing is added without it.
    let asset = upload(&server, &admin, "Comet%20Over%20Barn.gif", GIF);
    let add = format!("{PATH}/images");
    let r = call(
        &server,
        &admin,
        "POST",
        &add,
        json!({"assetId": asset, "title": "Comet"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"]["altText"],
        "Please enter alt text, or mark the image as decorative."
    );
    let r = call(
        &server,
        &admin,
        "POST",
        &add,
        json!({"assetId": "nope", "altText": "x", "colour": 1}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["errors"]["assetId"], "That upload does not exist.");
    assert_eq!(r.json()["errors"]["colour"], "An image has no such field.");
    let r = call(
        &server,
        &admin,
        "POST",
        &add,
        json!({"assetId": asset, "altText": "a".repeat(251)}),
    );
    assert_eq!(
        r.json()["errors"]["altText"],
        "Alt text has at most 250 characters."
    );
    let pdf = upload(&server, &admin, "notes.pdf", b"%PDF-1.7 hello");
    let r = call(
        &server,
        &admin,
        "POST",
        &add,
        json!({"assetId": pdf, "altText": "x"}),
    );
    assert_eq!(
        r.json()["errors"]["assetId"],
        "Only an image (PNG, JPEG, GIF or WebP) goes in a gallery."
    );
    assert_eq!(
        ids(&call(&server, &admin, "GET", PATH, Value::Null).json()),
        before
    );

    let r = call(
        &server,
        &admin,
        "POST",
        &add,
        json!({"assetId": asset, "title": "Comet over the barn", "caption": "Five <b>minutes</b>",
            "altText": "A comet's tail above a barn roof"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let image = r.json();
    let new = image["id"].as_str().unwrap().to_owned();
    assert_eq!(image["urlId"], "comet-over-barn");
    assert_eq!(image["originalSize"], "800x600");
    assert_eq!(image["caption"], "Five <b>minutes</b>");
    assert!(
        image["assetUrl"]
            .as_str()
            .unwrap()
            .starts_with("/_tessera/files/")
    );
    let g = call(&server, &admin, "GET", PATH, Value::Null).json();
    assert_eq!(ids(&g).last().unwrap(), &new, "added at the end");
    let (_, alts) = live(&server);
    assert_eq!(alts.len(), 13);
    assert_eq!(alts.last().unwrap(), "A comet's tail above a barn roof");

    // Moved first: the live page (and another node's) shows it first.
    let mut order = ids(&g);
    order.pop();
    order.insert(0, new.clone());
    let r = call(
        &server,
        &admin,
        "PUT",
        &format!("{PATH}/order"),
        json!({"images": order}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ids(&r.json()), order);
    assert_eq!(live(&server).1[0], "A comet's tail above a barn roof");
    if matches!(backend, Backend::Postgres(_)) {
        let other = server.another_node();
        assert_eq!(live(&other).1[0], "A comet's tail above a barn roof");
    }
    // An order that leaves one out, or names one twice, is refused by field.
    for bad in [order[1..].to_vec(), {
        let mut twice = order.clone();
        twice[1] = order[0].clone();
        twice
    }] {
        let r = call(
            &server,
            &admin,
            "PUT",
            &format!("{PATH}/order"),
            json!({"images": bad}),
        );
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(
            r.json()["errors"]["images"],
            "The order names every image of the gallery once."
        );
    }

    // Words by JSON Merge Patch: decorative empties the alt text; unmarking needs alt text.
    let one = format!("{PATH}/images/{new}");
    let r = call(&server, &admin, "PATCH", &one, json!({"decorative": true}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (r.json()["altText"].clone(), r.json()["decorative"].clone()),
        (json!(""), json!(true))
    );
    assert_eq!(
        r.json()["title"],
        "Comet over the barn",
        "what it leaves out stays"
    );
    assert_eq!(live(&server).1[0], "");
    let r = call(&server, &admin, "PATCH", &one, json!({"decorative": false}));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"]["altText"],
        "Please enter alt text, or mark the image as decorative."
    );
    let r = call(
        &server,
        &admin,
        "PATCH",
        &one,
        json!({"decorative": false, "altText": "Comet & barn", "title": 5}),
    );
    assert_eq!(r.json()["errors"]["title"], "This is text.");
    let r = call(
        &server,
        &admin,
        "PATCH",
        &one,
        json!({"decorative": false, "altText": "Comet & barn", "caption": null}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["caption"], "");
    assert_eq!(live(&server).1[0], "Comet &amp; barn");

    // Removed: gone from the gallery and the site; its id is then 404.
    let r = call(&server, &admin, "DELETE", &one, Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["deleted"], new.as_str());
    assert_eq!(
        ids(&call(&server, &admin, "GET", PATH, Value::Null).json()).len(),
        12
    );
    assert_eq!(live(&server).1.len(), 12);
    assert_eq!(
        call(&server, &admin, "DELETE", &one, Value::Null).status,
        404
    );
    assert_eq!(
        call(&server, &admin, "PATCH", &one, json!({"title": "x"})).status,
        404
    );
}

fn options_are_checked_by_field_and_shown_on_the_site(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("skyward", "admin");
    let g = call(&server, &admin, "GET", PATH, Value::Null).json();
    // Every option of SPEC.md §9 with its default.
    let o = &g["options"];
    assert_eq!(o.as_object().unwrap().len(), 23);
    for (name, default) in [
        ("design", json!("grid")),
        ("autoplay", json!(false)),
        ("autoplay-duration", json!(5)),
        ("aspect-ratio", json!("square")),
        ("thumbnail-strip-height", json!(80)),
        ("thumbnails-per-row", json!(4)),
        ("padding", json!(20)),
        ("max-width", json!(300)),
        ("lightboxTheme", json!("dark")),
        ("meta-position", json!("bottom")),
    ] {
        assert_eq!(o[name], default, "{name}");
    }
    let per_row = g["optionTypes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "thumbnails-per-row")
        .unwrap();
    assert_eq!(
        (
            &per_row["type"],
            &per_row["min"],
            &per_row["max"],
            &per_row["designs"]
        ),
        (&json!("range"), &json!(1), &json!(10), &json!(["grid"]))
    );
    let (tag, _) = live(&server);
    assert!(tag.contains("gallery--grid"), "{tag}");
    assert!(tag.contains("gallery--crop-square"), "{tag}");
    assert!(tag.contains("gallery--columns-4"), "{tag}");
    assert!(tag.contains("gallery--gap-20"), "{tag}");
    assert!(
        !tag.contains("style="),
        "the site's policy allows no style attribute: {tag}"
    );

    // Bad values, by field: nothing stored.
    for (options, field, message) in [
        (
            json!({"design": "carousel"}),
            "options.design",
            "This is one of slideshow, slider, grid, stacked.",
        ),
        (
            json!({"thumbnails-per-row": 11}),
            "options.thumbnails-per-row",
            "This is a whole number from 1 to 10.",
        ),
        (
            json!({"thumbnails-per-row": 2.5}),
            "options.thumbnails-per-row",
            "This is a whole number from 1 to 10.",
        ),
        (
            json!({"padding": -1}),
            "options.padding",
            "This is a whole number from 0 to 50.",
        ),
        (
            json!({"max-width": 99}),
            "options.max-width",
            "This is a whole number from 100 to 300.",
        ),
        (
            json!({"autoplay-duration": "5"}),
            "options.autoplay-duration",
            "This is a whole number from 1 to 10.",
        ),
        (
            json!({"autoplay": "yes"}),
            "options.autoplay",
            "This is true or false.",
        ),
        (
            json!({"lightboxTheme": "grey"}),
            "options.lightboxTheme",
            "This is one of dark, light.",
        ),
        (
            json!({"sparkle": true}),
            "options.sparkle",
            "A gallery has no such option.",
        ),
    ] {
        let r = call(
            &server,
            &admin,
            "PATCH",
            PATH,
            json!({"options": options.clone(), }),
        );
        assert_eq!(r.status, 400, "{options}: {}", r.body);
        assert_eq!(r.json()["errors"][field], message, "{options}: {}", r.body);
    }
    let r = call(&server, &admin, "PATCH", PATH, json!({"title": "x"}));
    assert_eq!(
        r.json()["errors"]["title"],
        "A gallery has no such setting."
    );
    // A good value next to a bad one is not stored either.
    let r = call(
        &server,
        &admin,
        "PATCH",
        PATH,
        json!({"options": {"padding": 5, "design": "wall"}}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        call(&server, &admin, "GET", PATH, Value::Null).json()["options"],
        g["options"]
    );

    // Set: the site shows them on its next page.
    let r = call(
        &server,
        &admin,
        "PATCH",
        PATH,
        json!({"options": {"thumbnails-per-row": 2, "aspect-ratio": "widescreen", "padding": 0}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let o = r.json()["options"].clone();
    assert_eq!(
        (
            o["thumbnails-per-row"].clone(),
            o["aspect-ratio"].clone(),
            o["design"].clone()
        ),
        (json!(2), json!("widescreen"), json!("grid"))
    );
    let (tag, _) = live(&server);
    assert!(tag.contains("gallery--columns-2"), "{tag}");
    assert!(tag.contains("gallery--gap-0\""), "{tag}");
    assert!(tag.contains("gallery--crop-widescreen"), "{tag}");
    let r = call(
        &server,
        &admin,
        "PATCH",
        PATH,
        json!({"options": {"design": "stacked", "auto-crop": false, "show-meta": false}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let (tag, _) = live(&server);
    assert!(tag.contains("gallery--stacked"), "{tag}");
    assert!(tag.contains("gallery--uncropped"), "{tag}");
    assert!(tag.contains("gallery--no-meta"), "{tag}");
    // Null returns an option to its default; the others stay.
    let r = call(
        &server,
        &admin,
        "PATCH",
        PATH,
        json!({"options": {"design": null}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["options"]["design"], "grid");
    assert_eq!(r.json()["options"]["thumbnails-per-row"], 2);
    assert!(live(&server).0.contains("gallery--grid"));
    // The context says them as `collection.options`.
    let json = get(server.port, SKY, "/gallery?format=json");
    let ctx: Value = serde_json::from_str(&json.body).unwrap();
    assert_eq!(ctx["collection"]["options"]["thumbnails-per-row"], 2);
    assert_eq!(ctx["collection"]["options"]["max-width"], 300);
}

fn sites_roles_and_sessions(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "600"]);
    let editor = server.owner_token("skyward", "editor");
    let viewer = server.owner_token("skyward", "viewer");
    let manager = server.owner_token("skyward", "store-manager");
    let harbor = server.owner_token("harbor-lane", "admin");
    let body = json!({"options": {"padding": 3}});

    // A page that is no gallery, and an id of no page, are 404.
    for id in [NOTES, "000000000000000000000000"] {
        let r = call(
            &server,
            &editor,
            "GET",
            &format!("/api/owner/galleries/{id}"),
            Value::Null,
        );
        assert_eq!(r.status, 404, "{}", r.body);
        assert_eq!(r.json()["message"], "That gallery does not exist.");
    }
    // Another site's admin, on its own host, finds no such gallery.
    let r = server.owner_call(HARBOR, &harbor, "GET", PATH, &Value::Null);
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.owner_call(HARBOR, &harbor, "PATCH", PATH, &body);
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.owner_call(
        HARBOR,
        &harbor,
        "PUT",
        &format!("{PATH}/order"),
        &json!({"images": []}),
    );
    assert_eq!(r.status, 404, "{}", r.body);

    // The viewer reads but may not change; the store manager has no content area.
    assert_eq!(call(&server, &viewer, "GET", PATH, Value::Null).status, 200);
    assert_eq!(
        call(&server, &viewer, "PATCH", PATH, body.clone()).status,
        403
    );
    assert_eq!(
        call(&server, &manager, "GET", PATH, Value::Null).status,
        403
    );
    assert_eq!(
        call(&server, &manager, "PATCH", PATH, body.clone()).status,
        403
    );
    let g = call(&server, &editor, "GET", PATH, Value::Null).json();
    let first = g["images"][0]["id"].as_str().unwrap().to_owned();
    let one = format!("{PATH}/images/{first}");
    assert_eq!(
        call(&server, &manager, "DELETE", &one, Value::Null).status,
        403
    );
    assert_eq!(
        call(
            &server,
            &viewer,
            "PUT",
            &format!("{PATH}/order"),
            json!({"images": ids(&g)})
        )
        .status,
        403
    );
    assert_eq!(
        call(&server, &viewer, "PATCH", &one, json!({"title": "x"})).status,
        403
    );
    assert_eq!(
        call(
            &server,
            &manager,
            "POST",
            &format!("{PATH}/images"),
            json!({"assetId": "a", "altText": "x"})
        )
        .status,
        403
    );
    let r = call(&server, &editor, "PATCH", PATH, body.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["options"]["padding"], 3);

    // Another site's admin cannot reach this gallery's images either, and an upload of
    // another site is no upload here.
    for (method, path, body) in [
        ("PATCH", one.clone(), json!({"title": "theirs"})),
        ("DELETE", one.clone(), Value::Null),
        (
            "POST",
            format!("{PATH}/images"),
            json!({"assetId": "a", "altText": "x"}),
        ),
    ] {
        let r = server.owner_call(HARBOR, &harbor, method, &path, &body);
        assert_eq!(r.status, 404, "{method} {path}: {}", r.body);
    }
    let auth = format!("Bearer {harbor}");
    let theirs = request(
        server.port,
        "POST",
        HARBOR,
        "/api/owner/assets?fileName=theirs.gif",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/octet-stream"),
        ],
        &String::from_utf8_lossy(GIF),
    );
    assert_eq!(theirs.status, 201, "{}", theirs.body);
    let r = call(
        &server,
        &editor,
        "POST",
        &format!("{PATH}/images"),
        json!({"assetId": theirs.json()["id"], "altText": "Not ours"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["errors"]["assetId"], "That upload does not exist.");
    let after = call(&server, &editor, "GET", PATH, Value::Null).json();
    assert_eq!(ids(&after), ids(&g));
    assert_eq!(after["images"][0]["title"], g["images"][0]["title"]);

    // A session writes with its CSRF token only.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "skyward",
        SKY,
        ("ann@example.test", "editor", "correct horse"),
    );
    let session = |method: &str, path: &str, csrf: Option<&str>, body: &Value| {
        server.session_call(SKY, &cookie, csrf, method, path, body)
    };
    let patch = json!({"options": {"padding": 7}});
    assert_eq!(session("PATCH", PATH, None, &patch).status, 403);
    let mut order = ids(&g);
    order.reverse();
    let r = session(
        "PUT",
        &format!("{PATH}/order"),
        None,
        &json!({"images": order}),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        session("PATCH", &one, None, &json!({"title": "x"})).status,
        403
    );
    assert_eq!(session("DELETE", &one, None, &Value::Null).status, 403);
    let after = call(&server, &editor, "GET", PATH, Value::Null).json();
    assert_eq!(after["options"]["padding"], 3);
    assert_eq!(ids(&after), ids(&g));
    let r = session("GET", PATH, None, &Value::Null);
    assert_eq!(r.status, 200, "a read needs no token: {}", r.body);
    let r = session("PATCH", PATH, Some(&csrf), &patch);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["options"]["padding"], 7);
    let r = session(
        "PUT",
        &format!("{PATH}/order"),
        Some(&csrf),
        &json!({"images": order}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ids(&r.json()), order);
}
