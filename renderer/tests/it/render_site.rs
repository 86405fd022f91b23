//! A small site rendered page by page: routing, page types, context, tags and layouts.

use std::sync::Arc;

use renderer::folder::{TemplateFiles, load};
use renderer::render::{Request, render};
use renderer::site::SiteContent;
use template_lang::value::Node;

fn folder() -> renderer::folder::TemplateFolder {
    let f = load(&files());
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    f
}

fn files() -> TemplateFiles {
    [
        (
            "template.conf",
            r#"{ "name": "Test", "layouts": { "default": { "name": "Default", "regions": ["site"] } },
                 "navigations": [ { "name": "main", "title": "Main" } ], "stylesheets": ["site.css"] }"#,
        ),
        (
            "site.region",
            concat!(
                "<html><head>{squarespace-headers}</head><body id=\"{squarespace.page-id}\" class=\"{squarespace.page-classes}\">",
                "<squarespace:navigation navigationId=\"main\" template=\"nav\" />",
                "<main>{squarespace.main-content}</main>",
                "<squarespace:block-field id=\"footer\" columns=\"12\" label=\"Footer\" />",
                "<squarespace:script src=\"site.js\" combo=\"true\" />",
                "</body></html>"
            ),
        ),
        (
            "blocks/nav.block",
            concat!(
                "<nav>{.repeated section items}{.if collection.folder}<span class=\"folder{.if folderActive} active{.end}\">{collection.navigationTitle}",
                "[{.repeated section items}<a href=\"{collection.fullUrl}\"{.if active} class=\"active\"{.end}>{collection.navigationTitle}</a>{.end}]</span>",
                "{.or}{.section externalLink}<a href=\"{url}\">{title}</a>{.or}",
                "<a href=\"{collection.fullUrl}\"{.if active} class=\"active\"{.end}>{collection.navigationTitle}</a>{.end}{.end}{.end}</nav>"
            ),
        ),
        ("collections/blog.conf", r#"{ "title": "Blog", "ordering": "chronological", "pageSize": 2, }"#),
        (
            "collections/blog.list",
            concat!(
                "<h1>{collection.title}</h1>{.repeated section items}<article>{title}</article>{.end}",
                "{.section pagination}{.if nextPage}<a rel=\"next\" href=\"{nextPageUrl}\">older</a>{.end}{.end}",
                "<aside><squarespace:query collection=\"blog\" limit=\"1\" featured=\"true\">{.repeated section items}<b>{title}</b>{.end}</squarespace:query></aside>",
                "<ul><squarespace:category collection=\"blog\">{.repeated section categories}<li>{name}{.if active}*{.end}</li>{.end}</squarespace:category></ul>"
            ),
        ),
        (
            "collections/blog.item",
            "{.section item}<h1>{title}</h1>{body}{.end}{.section pagination}{.section nextItem}<a rel=\"next\" href=\"{fullUrl}\">{title}</a>{.end}{.end}",
        ),
        ("pages/contact.page", "<form>{collection.title}</form>"),
        ("styles/site.css", "body { margin: 0 }"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Arc::from(v.as_bytes())))
    .collect()
}

fn site() -> SiteContent {
    let doc = serde_json::json!({
        "website": { "siteTitle": "Test Site", "language": "en-US", "timeZone": "Europe/Lisbon" },
        "websiteSettings": { "itemTitleFormat": "%i | %s" },
        "collections": [
            { "id": "c1", "urlId": "home", "fullUrl": "/", "title": "Home", "navigationTitle": "Home",
              "typeName": "page", "type": 10, "homepage": true, "mainContent": "<p>Welcome</p>" },
            { "id": "c2", "urlId": "blog", "fullUrl": "/blog", "title": "Journal", "navigationTitle": "Journal",
              "typeName": "blog", "type": 1, "items": [
                { "id": "i1", "urlId": "first", "fullUrl": "/blog/first", "title": "First", "body": "<p>one</p>", "starred": true, "tags": ["a"], "categories": ["News", "Notes"] },
                { "id": "i2", "urlId": "second", "fullUrl": "/blog/second", "title": "Second", "body": "<p>two</p>", "tags": ["b"] },
                { "id": "i3", "urlId": "third", "fullUrl": "/blog/third", "title": "Third", "body": "<p>three</p>" }
            ]},
            { "id": "c3", "urlId": "about", "fullUrl": "/about", "title": "About", "navigationTitle": "About",
              "typeName": "folder", "folder": true, "collections": ["contact"] },
            { "id": "c4", "urlId": "contact", "fullUrl": "/contact", "title": "Contact us", "navigationTitle": "Contact",
              "typeName": "contact", "type": 7 }
        ],
        "navigations": { "main": [ "home", "blog", { "collection": "about", "children": ["contact"] },
                                   { "title": "Shop", "url": "https://shop.example.test", "newWindow": true } ] },
        "blockFields": { "footer": "<div class=\"row sqs-row\">© Test</div>" }
    });
    SiteContent::from_json(&doc).unwrap()
}

fn get(path: &str, query: &str) -> renderer::render::Page {
    render(
        &site(),
        &folder(),
        &Request {
            path,
            query,
            unlocked: &[],
            ..Default::default()
        },
    )
}

#[test]
fn homepage_is_a_regular_page_in_the_layout() {
    let p = get("/", "");
    assert_eq!((p.status, p.page_type), (200, Some(2)));
    assert!(p.body.contains("<main><p>Welcome</p></main>"), "{}", p.body);
    assert!(p.body.contains("<title>Test Site</title>"));
    assert!(p.body.contains(
        "class=\"collection-c1 collection-type-page collection-layout-default view-list homepage\""
    ));
    assert!(
        p.body.contains("<a href=\"/\" class=\"active\">Home</a>"),
        "{}",
        p.body
    );
    // Block field and script tags.
    assert!(p.body.contains(r#"<div class="sqs-layout sqs-grid-12 columns-12" data-layout-label="Footer" data-type="block-field" id="footer"><div class="row sqs-row">© Test</div></div>"#));
    assert!(
        p.body
            .contains(r#"<script src="/scripts/site.js"></script>"#)
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
}

#[test]
fn category_lists_mark_each_requests_category_when_one_site_serves_them_all() {
    // The category lists are kept with the site content per active category; each request
    // still gets its own, and a filter naming no category marks none.
    let (site, folder) = (site(), folder());
    for (query, want) in [
        ("category=Notes", "<ul><li>News</li><li>Notes*</li></ul>"),
        ("category=News", "<ul><li>News*</li><li>Notes</li></ul>"),
        ("", "<ul><li>News</li><li>Notes</li></ul>"),
        ("category=Nope", "<ul><li>News</li><li>Notes</li></ul>"),
        ("category=Notes", "<ul><li>News</li><li>Notes*</li></ul>"),
        ("", "<ul><li>News</li><li>Notes</li></ul>"),
    ] {
        let request = Request {
            path: "/blog",
            query,
            unlocked: &[],
            ..Default::default()
        };
        let p = render(&site, &folder, &request);
        assert!(p.body.contains(want), "{query}: {}", p.body);
    }
}

#[test]
fn collection_lists_paginate_and_queries_filter() {
    let p = get("/blog", "");
    assert_eq!((p.status, p.page_type), (200, Some(1)));
    assert!(p.body.contains("<h1>Journal</h1><article>First</article><article>Second</article><a rel=\"next\" href=\"/blog?offset=2\">older</a>"), "{}", p.body);
    assert!(p.body.contains("<aside><b>First</b></aside>"));
    let p = get("/blog", "offset=2");
    assert!(p.body.contains("<article>Third</article>") && !p.body.contains("rel=\"next\""));
    assert!(
        p.body.contains("<ul><li>News</li><li>Notes</li></ul>"),
        "{}",
        p.body
    );
    let p = get("/blog", "category=Notes");
    assert!(
        p.body.contains("<ul><li>News</li><li>Notes*</li></ul>"),
        "{}",
        p.body
    );
    let p = get("/blog", "tag=b");
    assert!(
        p.body
            .contains("<h1>Journal</h1><article>Second</article><aside>"),
        "{}",
        p.body
    );
}

#[test]
fn items_have_their_own_page_type_and_neighbours() {
    let p = get("/blog/first", "");
    assert_eq!((p.status, p.page_type), (200, Some(50)));
    assert!(
        p.body
            .contains("<h1>First</h1><p>one</p><a rel=\"next\" href=\"/blog/second\">Second</a>")
    );
    assert!(p.body.contains("<title>First | Test Site</title>"));
    assert!(p.body.contains("id=\"item-i1\""));
    assert!(
        p.body
            .contains("<a href=\"/blog\" class=\"active\">Journal</a>")
    );
}

#[test]
fn static_pages_and_folders() {
    let p = get("/contact", "");
    assert_eq!((p.status, p.page_type), (200, Some(2)));
    assert!(p.body.contains("<main><form>Contact us</form></main>"));
    // The folder holding the current page is marked, and so is the page inside it.
    assert!(p.body.contains("<span class=\"folder active\">About[<a href=\"/contact\" class=\"active\">Contact</a>]</span>"), "{}", p.body);
    assert!(
        p.body
            .contains("<a href=\"https://shop.example.test\">Shop</a>")
    );
    // A folder without a template of its own redirects to its first page.
    let p = get("/about", "");
    assert_eq!((p.status, p.location.as_deref()), (302, Some("/contact")));
}

#[test]
fn system_pages() {
    let p = get("/nope", "");
    assert_eq!((p.status, p.page_type), (404, Some(100)));
    assert!(p.body.contains("Page not found"));
    let p = get("/blog/nope", "");
    assert_eq!(p.status, 404);
    let p = get("/search", "q=TWO");
    assert_eq!(p.page_type, Some(102));
    assert!(
        p.body.contains("<a href=\"/blog/second\">Second</a>"),
        "{}",
        p.body
    );
    let p = get("/search", "q=zebra");
    assert!(p.body.contains("No results for “zebra”."));
    assert_eq!(get("/cart", "").page_type, Some(200));
    assert!(
        get("/cart", "")
            .body
            .contains("You have nothing in your shopping cart.")
    );
    assert_eq!(get("/checkout", "").page_type, Some(201));
    let p = get("/checkout/subscription", "cartToken=abc.def");
    assert_eq!(p.page_type, Some(201));
    assert!(
        p.body
            .contains(r#"data-cart-token="abc.def" data-checkout-kind="subscription""#),
        "{}",
        p.body
    );
    let p = get("/checkout/gift-card", "cartToken=abc.def");
    assert_eq!(p.page_type, Some(201));
    assert!(
        p.body
            .contains(r#"data-cart-token="abc.def" data-checkout-kind="gift-card""#),
        "{}",
        p.body
    );
    let p = get("/site.css", "");
    assert_eq!(
        (p.content_type, p.body.as_str()),
        ("text/css; charset=utf-8", "body { margin: 0 }\n")
    );
    // The configuration area is not a page.
    assert_eq!(get("/config/pages", "").page_type, None);
}

fn with(path: &str, cart: Option<&Node>, order: Option<&Node>) -> renderer::render::Page {
    render(
        &site(),
        &folder(),
        &Request {
            path,
            cart,
            order,
            ..Default::default()
        },
    )
}

fn order(id: &str, kind: &str, status: &str) -> Node {
    Node::from_json(&order_json(id, kind, status))
}

fn order_json(id: &str, kind: &str, status: &str) -> serde_json::Value {
    serde_json::json!({
        "id": id, "orderNumber": 7, "kind": kind, "status": status, "testMode": true,
        "statusUrl": format!("/commerce/orders/{id}?token=t"),
        "items": [{ "productName": "Tidepool <Mug>", "quantity": 2, "variantDescription": "Size: 12 oz",
                    "lineTotal": { "value": "68.00", "currency": "USD" },
                    "giftCardCodes": ["ABCD-EFGH-JKLM-NPQR"] }],
        "subtotal": { "value": "68.00", "currency": "USD" },
        "grandTotal": { "value": "68.00", "currency": "USD" },
        "payment": { "method": "manual", "label": "Bank transfer", "instructions": "Pay to NL00" },
        "subscriptions": [{ "interval": "every month", "numBillingCycles": 0 }],
    })
}

/// Order pages show the order the server loaded for them, chosen by its kind and status;
/// without it (no token, another order) they are not found.
#[test]
fn order_pages_show_their_order() {
    let paid = order("abc123", "cart", "paid");
    let p = with("/commerce/order-confirmed/abc123", None, Some(&paid));
    assert_eq!((p.status, p.page_type), (200, Some(202)));
    assert!(p.body.contains("Thank you for your order"), "{}", p.body);
    assert!(p.body.contains("<strong>7</strong>"));
    assert!(
        p.body.contains("Tidepool &lt;Mug&gt;"),
        "escaped: {}",
        p.body
    );
    assert!(p.body.contains("<code>ABCD-EFGH-JKLM-NPQR</code>"));
    assert!(p.body.contains("This store is in test mode"));
    let waiting = order("abc123", "cart", "awaiting-payment");
    let p = with("/commerce/order-confirmed/abc123", None, Some(&waiting));
    assert_eq!(p.page_type, Some(207));
    assert!(p.body.contains("We have received your order"));
    assert!(p.body.contains("Pay to NL00"));
    let sub = order("abc123", "subscription", "paid");
    let p = with("/commerce/order-confirmed/abc123", None, Some(&sub));
    assert_eq!(p.page_type, Some(206));
    assert!(
        p.body.contains("Billed every month, until you cancel."),
        "{}",
        p.body
    );
    let p = with("/commerce/orders/abc123", None, Some(&paid));
    assert_eq!(p.page_type, Some(211));
    assert!(p.body.contains("<h1>Order 7</h1>"));
    // No order, or another one: not found.
    for (path, o) in [
        ("/commerce/order-confirmed/abc123", None),
        ("/commerce/orders/other", Some(&paid)),
        ("/commerce/orders/../etc", Some(&paid)),
    ] {
        let p = with(path, None, o);
        assert_eq!((p.status, p.page_type), (404, Some(100)), "{path}");
        assert!(!p.body.contains("Tidepool"));
    }
    assert_eq!(get("/order-confirmed/abc123", "").status, 404);
}

/// The built-in order page sets a line's name and variant apart, each total's label and
/// amount on one row, and the address in its country's order.
#[test]
fn order_pages_set_names_totals_and_addresses_apart() {
    let address = |country: &str, region: Option<&str>, postal: &str, city: &str| {
        let mut o = order_json("abc123", "cart", "paid");
        o["shippingAddress"] = serde_json::json!({
            "firstName": "Pat", "lastName": "Rider", "line1": "1 Fore St", "country": country,
            "postalCode": postal, "city": city, "region": region,
        });
        let p = with(
            "/commerce/order-confirmed/abc123",
            None,
            Some(&Node::from_json(&o)),
        );
        assert_eq!(p.status, 200, "{}", p.body);
        p.body
    };
    let us = address("US", Some("ME"), "04101", "Portland");
    assert!(us.contains("1 Fore St<br>Portland, ME 04101<br>US"), "{us}");
    let gb = address("GB", None, "SW1A 1AA", "London");
    assert!(gb.contains("1 Fore St<br>London<br>SW1A 1AA<br>GB"), "{gb}");
    let nl = address("NL", None, "1011 AB", "Amsterdam");
    assert!(nl.contains("1 Fore St<br>1011 AB Amsterdam<br>NL"), "{nl}");
    assert!(
        us.contains(
            "<span class=\"order-item-name\">Tidepool &lt;Mug&gt;</span><br><span class=\"order-item-variant\">Size: 12 oz</span>"
        ),
        "{us}"
    );
    assert!(
        us.contains("<tr><th scope=\"row\">Total</th><td class=\"order-grand-total\">"),
        "{us}"
    );
    assert!(!us.contains("<dt>"), "{us}");
}

/// A visitor's cart is the page context's `shoppingCart`, and the cart page lists it.
#[test]
fn the_cart_page_lists_the_visitors_cart() {
    let cart = Node::from_json(&serde_json::json!({
        "totalQuantity": 3,
        "entries": [{ "id": "e1", "itemId": "i1", "title": "Fern Pot", "quantity": 3,
                      "variantDescription": "Size: M", "lineTotal": { "value": "66.00", "currency": "EUR" } }],
        "subtotal": { "value": "66.00", "currency": "EUR" },
        "discountCents": 0,
        "checkoutMessage": "To check out, your order subtotal must be €70.00 or more.",
    }));
    let p = with("/cart", Some(&cart), None);
    assert!(p.body.contains("Fern Pot"), "{}", p.body);
    assert!(p.body.contains(r#"data-entry-id="e1""#));
    assert!(
        p.body
            .contains("To check out, your order subtotal must be €70.00 or more.")
    );
    assert!(!p.body.contains("You have nothing"));
    let json = render(
        &site(),
        &folder(),
        &Request {
            path: "/",
            query: "format=json",
            cart: Some(&cart),
            ..Default::default()
        },
    );
    assert!(json.body.contains(r#""totalQuantity":3"#), "{}", json.body);
}

/// Without JavaScript, each cart line is a form posting its quantity, or its removal, to
/// the cart's form route (the server adds the crumb).
#[test]
fn the_cart_page_changes_lines_with_form_posts() {
    let cart = Node::from_json(&serde_json::json!({
        "totalQuantity": 2,
        "entries": [{ "id": "e1", "itemId": "i1", "title": "Fern \"Pot\" <b>", "quantity": 2,
                      "lineTotal": { "value": "44.00", "currency": "EUR" } }],
        "subtotal": { "value": "44.00", "currency": "EUR" },
    }));
    let p = with("/cart", Some(&cart), None);
    let form = r#"<form class="cart-entry-form" method="post" action="/api/commerce/shopping-cart/form/entries/e1">"#;
    assert!(p.body.contains(form), "{}", p.body);
    let line = &p.body[p.body.find(form).unwrap()..];
    let line = &line[..line.find("</form>").unwrap()];
    assert!(
        line.contains(r#"type="number" name="quantity" value="2" min="1" max="9999" step="1""#),
        "{line}"
    );
    assert!(
        line.contains(r#"aria-label="Quantity of Fern &quot;Pot&quot; &lt;b&gt;""#),
        "{line}"
    );
    assert!(
        line.contains(r#"<button type="submit" class="cart-entry-update">Update</button>"#),
        "{line}"
    );
    assert!(
        line.contains(r#"<button type="submit" class="cart-entry-remove" name="remove" value="1""#),
        "{line}"
    );
}

#[test]
fn format_json_returns_the_context() {
    let p = get("/blog/second", "format=json");
    assert_eq!(p.content_type, "application/json; charset=utf-8");
    let v: serde_json::Value = serde_json::from_str(&p.body).unwrap();
    assert_eq!(v["item"]["title"], "Second");
    assert_eq!(v["collection"]["typeName"], "blog");
    assert_eq!(v["pagination"]["prevItem"]["urlId"], "first");
    assert_eq!(v["website"]["siteTitle"], "Test Site");
    assert!(v.get("squarespace").is_none());
    let p = get("/blog", "format=main-content");
    assert!(p.body.starts_with("<h1>Journal</h1>"));
}

#[test]
fn headers_name_the_template_favicon_or_none() {
    // Without an icon in the template, an empty data URL keeps browsers from asking for a
    // /favicon.ico that would 404.
    let p = get("/", "");
    assert!(
        p.body.contains(r#"<link rel="icon" href="data:,">"#),
        "{}",
        p.body
    );

    let mut files = files();
    files.insert("assets/favicon.svg".into(), Arc::from(&b"<svg/>"[..]));
    let with_icon = load(&files);
    let p = render(
        &site(),
        &with_icon,
        &Request {
            path: "/",
            query: "",
            unlocked: &[],
            ..Default::default()
        },
    );
    assert!(
        p.body
            .contains(r#"<link rel="icon" href="/assets/favicon.svg">"#),
        "{}",
        p.body
    );
}

#[test]
fn execution_errors_name_the_template_file_line_and_column() {
    // Errors that only show when the page runs: a missing partial in the second region,
    // in a collection list and inside a block.
    let files: TemplateFiles = [
        (
            "template.conf",
            r#"{ "layouts": { "default": { "regions": ["header", "site"] } } }"#,
        ),
        ("header.region", "<header>\n</header>\n"),
        (
            "site.region",
            "<main>{squarespace.main-content}</main>\n<footer>{website|apply gone.block}</footer>\n",
        ),
        ("collections/blog.conf", r#"{ "title": "Blog" }"#),
        (
            "collections/blog.list",
            "<h1>{collection.title}</h1>\n  {collection|apply missing.block}{collection|apply inner.block}",
        ),
        ("blocks/inner.block", "<i>\n{website|apply deeper.block}</i>"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Arc::from(v.as_bytes())))
    .collect();
    let folder = load(&files);
    assert!(folder.problems.is_empty(), "{:?}", folder.problems);
    let p = render(
        &site(),
        &folder,
        &Request {
            path: "/blog",
            query: "",
            unlocked: &[],
            ..Default::default()
        },
    );
    assert_eq!(p.status, 200);
    let located: Vec<&str> = p
        .errors
        .iter()
        .map(|e| e.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        located,
        [
            "collections/blog.list:2:3",
            "blocks/inner.block:2:1",
            "site.region:2:9"
        ],
        "{:?}",
        p.errors
    );
}

/// One site's content serves every page (the server caches it per content version, and its
/// navigation data with it): each page still marks its own collection and folder active.
#[test]
fn navigation_marks_each_page_when_one_site_serves_them_all() {
    let (site, folder) = (site(), folder());
    let page = |path: &str| {
        let p = render(
            &site,
            &folder,
            &Request {
                path,
                query: "",
                unlocked: &[],
                ..Default::default()
            },
        );
        assert_eq!(p.status, 200, "{path}");
        p.body
    };
    for _ in 0..2 {
        let home = page("/");
        assert!(
            home.contains("<a href=\"/\" class=\"active\">Home</a>"),
            "{home}"
        );
        assert!(home.contains("<a href=\"/blog\">Journal</a>"), "{home}");
        assert!(home.contains("<span class=\"folder\">About"), "{home}");
        let blog = page("/blog/first");
        assert!(blog.contains("<a href=\"/\">Home</a>"), "{blog}");
        assert!(
            blog.contains("<a href=\"/blog\" class=\"active\">Journal</a>"),
            "{blog}"
        );
        let contact = page("/contact");
        assert!(contact.contains("<span class=\"folder active\">About[<a href=\"/contact\" class=\"active\">Contact</a>]</span>"), "{contact}");
        assert!(
            contact.contains("<a href=\"/blog\">Journal</a>"),
            "{contact}"
        );
    }
}

/// Navigation output is kept with the site content and printed again where it still holds:
/// with a block that also reads the page's collection and item (the same navigation data
/// serves a blog and each of its items), every page of a warm site is the page a fresh site
/// renders.
#[test]
fn kept_navigation_output_is_what_a_fresh_site_renders() {
    let folder = folder_with_nav_prefix("<p>{collection.title}|{item.title}</p>");
    let warm = site();
    let render_in = |site: &SiteContent, path: &str| body_of(site, &folder, path);
    for path in [
        "/blog",
        "/blog/first",
        "/blog",
        "/contact",
        "/",
        "/blog/second",
        "/",
    ] {
        let body = render_in(&warm, path);
        assert_eq!(body, render_in(&site(), path), "{path}");
        assert!(body.contains("<nav>"), "{body}");
    }
    assert!(
        !warm.fragments.is_empty(),
        "navigation output was never kept"
    );
}

/// A navigation block whose output cannot be reused (it runs a tag of its own) renders as
/// on a fresh site on every page.
#[test]
fn navigation_that_cannot_be_kept_renders_every_time() {
    let folder = folder_with_nav_prefix(
        "<squarespace:block-field id=\"footer\" columns=\"12\" label=\"F\" />",
    );
    let warm = site();
    let render_in = |site: &SiteContent, path: &str| body_of(site, &folder, path);
    for path in ["/blog", "/blog", "/contact", "/blog"] {
        let body = render_in(&warm, path);
        assert_eq!(body, render_in(&site(), path), "{path}");
        assert!(body.contains("© Test</div></div><nav>"), "{body}");
    }
}

/// The test folder with `prefix` at the start of its navigation block.
fn folder_with_nav_prefix(prefix: &str) -> renderer::folder::TemplateFolder {
    let mut files = files();
    let nav = files.get("blocks/nav.block").unwrap().clone();
    let block = [prefix.as_bytes(), &nav].concat();
    files.insert("blocks/nav.block".to_string(), Arc::from(block));
    let folder = load(&files);
    assert!(folder.problems.is_empty(), "{:?}", folder.problems);
    folder
}

/// The body of `path` rendered from `site` with `folder`.
fn body_of(site: &SiteContent, folder: &renderer::folder::TemplateFolder, path: &str) -> String {
    let request = Request {
        path,
        query: "",
        unlocked: &[],
        ..Default::default()
    };
    render(site, folder, &request).body
}

#[test]
fn combo_scripts_next_to_each_other_become_one_request() {
    let mut files = files();
    files.insert(
        "site.region".into(),
        Arc::from(
            concat!(
                "<html><body><main>{squarespace.main-content}</main>\n",
                "<squarespace:script src=\"a.js\" combo=\"true\" />\n  ",
                "<squarespace:script src=\"b.js\" combo=\"{.section website}true{.end}\" />",
                "<squarespace:script src=\"/c.js\" combo=\"true\" />",
                "<p>between</p>",
                "<squarespace:script src=\"d.js\" combo=\"true\" />",
                "<squarespace:script src=\"e.js\" combo=\"false\" />",
                "<squarespace:script src=\"f.js\" combo=\"true\" />",
                "</body></html>"
            )
            .as_bytes(),
        ),
    );
    let folder = load(&files);
    assert!(folder.problems.is_empty(), "{:?}", folder.problems);
    let page = render(
        &site(),
        &folder,
        &Request {
            path: "/",
            query: "",
            unlocked: &[],
            ..Default::default()
        },
    );
    let scripts: Vec<&str> = page
        .body
        .match_indices("<script src=\"")
        .map(|(i, _)| {
            let rest = &page.body[i + 13..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect();
    assert_eq!(
        scripts,
        [
            "/scripts/combo/?a.js&amp;b.js&amp;c.js",
            "/scripts/d.js",
            "/scripts/e.js",
            "/scripts/f.js"
        ],
        "{}",
        page.body
    );
    // The white space between joined scripts stays; the elements in between go.
    assert!(
        page.body.contains(
            "<script src=\"/scripts/combo/?a.js&amp;b.js&amp;c.js\"></script>\n  <p>between</p>"
        ),
        "{}",
        page.body
    );
}

/// Tags as HTML allows them — unquoted attribute values, a start tag left unclosed — are
/// tags, as the platform's HTML parser reads them; none reaches the page as text.
#[test]
fn unquoted_and_unclosed_tags_render_as_tags() {
    let mut files = files();
    files.insert(
        "site.region".into(),
        Arc::from(
            concat!(
                "<html><body><main>{squarespace.main-content}</main>\n",
                "<squarespace:script src=modals.js combo=false />\n",
                "<squarespace:script src=\"main.js\" combo=\"false\"></script>\n",
                "<squarespace:navigation navigationId=main template=nav>\n",
                "</body></html>"
            )
            .as_bytes(),
        ),
    );
    files.insert(
        "blocks/nav.block".into(),
        Arc::from(
            "<nav>{.repeated section items}[{collection.navigationTitle}]{.end}</nav>".as_bytes(),
        ),
    );
    let folder = load(&files);
    assert!(folder.problems.is_empty(), "{:?}", folder.problems);
    let body = body_of(&site(), &folder, "/");
    assert!(!body.contains("squarespace:"), "{body}");
    assert!(
        body.contains("<script src=\"/scripts/modals.js\"></script>\n"),
        "{body}"
    );
    assert!(
        body.contains("<script src=\"/scripts/main.js\"></script></script>\n"),
        "{body}"
    );
    assert!(body.contains("<nav>["), "{body}");
}

/// The partials the platform supplies — the system partials applied by bare name and the
/// blocks the official frameworks took from the platform's packages — render from the
/// site's data with no file of the folder's; a folder's own block of the same name wins;
/// what comes from the content is escaped.
#[test]
fn platform_partials_render_without_the_folder_shipping_them() {
    let mut doc: serde_json::Value = serde_json::json!({
        "website": { "siteTitle": "Test Site", "language": "en-US", "timeZone": "Europe/Lisbon",
            "socialAccounts": [
                { "serviceName": "instagram", "profileUrl": "https://instagram.test/t?a=1&b=\"2\"" },
                { "serviceName": "twitter", "profileUrl": "https://twitter.test/t" }
            ],
            "shareButtonOptions": { "1": true } },
        "collections": [
            { "id": "c1", "urlId": "home", "fullUrl": "/", "title": "Home", "typeName": "page",
              "type": 10, "homepage": true, "mainContent": "<p>Welcome</p>",
              "video": { "url": "https://video.test/v?x=<y>", "playbackSpeed": 1, "filter": 2,
                         "filterStrength": 50 } }
        ]
    });
    doc["navigations"] = serde_json::json!({});
    let site = SiteContent::from_json(&doc).unwrap();
    let mut files = files();
    files.insert(
        "site.region".into(),
        Arc::from(
            concat!(
                "<html><body><main>{squarespace.main-content}</main>",
                "<header>{@|apply social-links.block}</header>",
                "<nav>{.section website}{@|apply sqs-social-links}{.end}</nav>",
                "<section>{.section collection}{@|apply sqs-video-background.block}{.end}</section>",
                "</body></html>"
            )
            .as_bytes(),
        ),
    );
    let folder = load(&files);
    assert!(folder.problems.is_empty(), "{:?}", folder.problems);
    let body = body_of(&site, &folder, "/");
    assert!(!body.contains("could not be found"), "{body}");
    assert!(
        body.contains(concat!(
            "<header><nav class=\"SocialLinks\" data-content-field=\"connected-accounts\"><div class=\"SocialLinks-inner\">",
            "<a href=\"https://instagram.test/t?a=1&amp;b=&quot;2&quot;\" target=\"_blank\" class=\"SocialLinks-link instagram\""
        )),
        "{body}"
    );
    assert!(
        body.contains("<use class=\"SocialLinks-link-icon\" xlink:href=\"#twitter-icon\"></use>"),
        "{body}"
    );
    assert!(
        body.contains(
            "<nav><a href=\"https://instagram.test/t?a=1&amp;b=&quot;2&quot;\" target=\"_blank\" class=\"sqs-svg-icon--wrapper instagram\""
        ),
        "{body}"
    );
    assert!(
        body.contains("<use class=\"sqs-use--mask\" xlink:href=\"#twitter-mask\"></use>"),
        "{body}"
    );
    // The symbols those point at: each network's label, in both partials' sprites.
    for (service, label) in [("instagram", "IG"), ("twitter", "X")] {
        let symbol = format!(
            "<symbol id=\"{service}-icon\" viewBox=\"0 0 64 64\"><text x=\"32\" y=\"40\" text-anchor=\"middle\" font-family=\"sans-serif\" font-weight=\"bold\" font-size=\"20\">{label}</text></symbol><symbol id=\"{service}-mask\" viewBox=\"0 0 64 64\"></symbol>"
        );
        assert_eq!(body.matches(&symbol).count(), 2, "{body}");
    }
    assert!(
        body.contains("</div></nav><svg class=\"sqs-social-icon-sprite\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>"),
        "{body}"
    );
    assert!(
        body.contains(
            "<section><div class=\"sqs-video-background content-fill\" data-config-url=\"https://video.test/v?x=&lt;y&gt;\" data-config-playback-speed=\"1\" data-config-filter=\"2\" data-config-filter-strength=\"50\"><div id=\"player\"></div></div></section>"
        ),
        "{body}"
    );

    // Share buttons on an item, as the formatter the platform uses gives them.
    files.insert(
        "collections/blog.item".into(),
        Arc::from(
            "{.section item}<h1>{title}</h1><footer>{@|apply sqs-share-buttons}</footer>{.end}"
                .as_bytes(),
        ),
    );
    let folder = load(&files);
    let body = body_of(&self::site(), &folder, "/blog/first");
    assert!(!body.contains("could not be found"), "{body}");
    assert!(body.contains("<h1>First</h1><footer>"), "{body}");

    // The folder's own block wins.
    files.insert(
        "blocks/social-links.block".into(),
        Arc::from("<i>own</i>".as_bytes()),
    );
    let folder = load(&files);
    let body = body_of(&site, &folder, "/");
    assert!(body.contains("<header><i>own</i></header>"), "{body}");
}
