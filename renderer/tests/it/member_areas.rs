//! Member areas: a collection in an area, its items and the collections inside it show the
//! area's join page (page type 106) to everyone who is not a member of that area, with none
//! of their content, and the content itself (page type 105) to its members.

use renderer::folder::{TemplateFolder, load, template_files};
use renderer::render::{DEFAULT_JOIN_TEXT, Page, Request, render};
use renderer::route::page_type;
use renderer::site::{SiteContent, member_area_key};

fn folder(extra: &[(&'static str, &'static str)]) -> TemplateFolder {
    let base = [
        (
            "blocks/nav.block",
            "<nav>{.repeated section items}<a href=\"{collection.fullUrl}\">{collection.navigationTitle}</a>{collection.description}{.end}</nav>",
        ),
        (
            "collections/course.list",
            "<h1>{collection.title}</h1>{.repeated section items}<article>{title}</article>{.end}",
        ),
        (
            "collections/course.item",
            "{.section item}<h1>{title}</h1>{body}{.end}",
        ),
    ];
    let f = load(&template_files(
        crate::common::LAYOUT
            .iter()
            .chain(&base)
            .chain(extra)
            .copied(),
    ));
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    f
}

/// `course` is in the `club` area, with lessons; `vault` is a folder in the `crew` area
/// (which the settings do not describe) holding `plans`; `home` is open.
fn site() -> SiteContent {
    let doc = serde_json::json!({
        "website": { "siteTitle": "Test Site", "language": "en-US" },
        "websiteSettings": { "memberAreas": [
            { "id": "club", "title": "Studio Club", "description": "For members of the studio.",
              "joinButtonText": "Join the club" }
        ]},
        "collections": [
            { "id": "h1", "urlId": "home", "fullUrl": "/", "title": "Home", "navigationTitle": "Home",
              "typeName": "page", "type": 10, "homepage": true, "mainContent": "<p>Welcome</p>" },
            { "id": "c1", "urlId": "course", "fullUrl": "/course", "title": "Course", "navigationTitle": "Course",
              "typeName": "course", "type": 25, "memberAreaId": "club", "description": "<p>Lesson plan</p>",
              "items": [
                { "id": "l1", "urlId": "centering", "fullUrl": "/course/centering", "title": "Centering",
                  "recordType": 62, "body": "<p>Brace your elbow</p>" }
            ]},
            { "id": "v1", "urlId": "vault", "fullUrl": "/vault", "title": "Vault", "navigationTitle": "Vault",
              "typeName": "folder", "folder": true, "folderBehavior": 1, "memberAreaId": "crew", "collections": ["plans"] },
            { "id": "p1", "urlId": "plans", "fullUrl": "/plans", "title": "Plans", "navigationTitle": "Plans",
              "typeName": "page", "type": 10, "mainContent": "<p>Launch plans</p>" }
        ],
        "navigations": { "main": [ "home", "course", "vault" ] }
    });
    SiteContent::from_json(&doc).unwrap()
}

fn get(areas: &[&str], path: &str, query: &str) -> Page {
    let keys: Vec<String> = areas.iter().map(|a| member_area_key(a)).collect();
    render(
        &site(),
        &folder(&[]),
        &Request {
            path,
            query,
            unlocked: &keys,
            ..Default::default()
        },
    )
}

const SECRETS: [&str; 4] = [
    "Brace your elbow",
    "Lesson plan",
    "Launch plans",
    "Centering",
];

#[test]
fn visitors_get_the_join_page_and_none_of_the_content() {
    for (path, title) in [
        ("/course", "Studio Club"),
        ("/course/centering", "Studio Club"),
        ("/plans", "Vault"),
    ] {
        for areas in [&[][..], &["crew-not"][..]] {
            let p = get(areas, path, "");
            assert_eq!(
                (p.status, p.page_type),
                (200, Some(page_type::MEMBER_AREA_DENIED)),
                "{path}"
            );
            assert!(
                p.body.contains(&format!("<h1>{title}</h1>")),
                "{path}: {}",
                p.body
            );
            assert!(p.body.contains("data-island=\"member-access\""), "{path}");
            assert!(p.body.contains("member-area-denied"), "{path}");
            for secret in SECRETS {
                assert!(
                    !p.body.contains(secret),
                    "{path} shows {secret:?}: {}",
                    p.body
                );
            }
        }
    }
    // The join page says where to come back to, and the area's words.
    let p = get(&[], "/course/centering", "ref=mail");
    assert!(
        p.body
            .contains("data-redirect=\"/course/centering?ref=mail\""),
        "{}",
        p.body
    );
    assert!(p.body.contains("data-member-area=\"club\""));
    assert!(p.body.contains(">Join the club</a>"));
    assert!(p.body.contains("For members of the studio."));
    // An area the settings do not describe: the collection's title and the default label.
    let p = get(&[], "/plans", "");
    assert!(
        p.body.contains(&format!(">{DEFAULT_JOIN_TEXT}</a>")),
        "{}",
        p.body
    );
    // The JSON context has the area and the collection's public fields only.
    let p = get(&[], "/course", "format=json");
    let v: serde_json::Value = serde_json::from_str(&p.body).unwrap();
    assert_eq!(v["memberArea"]["id"], "club");
    assert_eq!(v["memberArea"]["redirect"], "/course");
    assert_eq!(v["collection"]["memberAreaId"], "club");
    assert!(v["collection"].get("description").is_none());
    assert!(v["collection"].get("passwordProtected").is_none());
    assert!(v.get("items").is_none());
    // Open pages do not list what is inside an area either (the navigation shows the
    // titles, as it does for locked pages, never their content).
    let home = get(&[], "/", "");
    assert_eq!(home.page_type, Some(page_type::PAGE));
    assert!(home.body.contains(">Course</a>"));
    assert!(!home.body.contains("Lesson plan"));
}

#[test]
fn members_of_the_area_see_the_content_as_protected_content() {
    let p = get(&["club"], "/course/centering", "");
    assert_eq!(
        (p.status, p.page_type),
        (200, Some(page_type::PROTECTED_CONTENT))
    );
    assert!(
        p.body.contains("<h1>Centering</h1><p>Brace your elbow</p>"),
        "{}",
        p.body
    );
    let p = get(&["club"], "/course", "");
    assert_eq!(p.page_type, Some(page_type::PROTECTED_CONTENT));
    assert!(p.body.contains("<article>Centering</article>"));
    // Being in one area opens only that one; a folder's area covers what is inside it.
    assert_eq!(
        get(&["club"], "/plans", "").page_type,
        Some(page_type::MEMBER_AREA_DENIED)
    );
    let p = get(&["crew"], "/plans", "");
    assert_eq!(p.page_type, Some(page_type::PROTECTED_CONTENT));
    assert!(p.body.contains("Launch plans"));
    // A collection id never passes for an area, nor an area id without its prefix.
    let raw: Vec<String> = vec!["club".into(), "c1".into()];
    let p = render(
        &site(),
        &folder(&[]),
        &Request {
            path: "/course",
            unlocked: &raw,
            ..Default::default()
        },
    );
    assert_eq!(p.page_type, Some(page_type::MEMBER_AREA_DENIED));
}

#[test]
fn a_template_may_bring_its_own_join_page() {
    let f = folder(&[(
        "pages/member-area-denied.page",
        "<div class=\"own\">{memberArea.title} — {memberArea.joinButtonText}</div>",
    )]);
    let p = render(
        &site(),
        &f,
        &Request {
            path: "/course",
            ..Default::default()
        },
    );
    assert!(
        p.body
            .contains("<div class=\"own\">Studio Club — Join the club</div>"),
        "{}",
        p.body
    );
}

/// A site whose `club` area is sold by product `plan` (monthly subscription when
/// `subscription`) and `crew` area by the one-time `pass`, a digital product on sale.
fn paid_site(subscription: bool) -> SiteContent {
    let mut plan = serde_json::json!({ "productType": 2,
        "variants": [{ "sku": "SQ1", "priceMoney": { "value": "5.00", "currency": "USD" } }] });
    if subscription {
        plan["isSubscribable"] = true.into();
        plan["subscriptionPlan"] =
            serde_json::json!({ "billingPeriod": { "value": 1, "unit": "MONTH" } });
    }
    let doc = serde_json::json!({
        "website": { "siteTitle": "Test Site", "language": "en-US" },
        "websiteSettings": { "memberAreas": [
            { "id": "club", "title": "Studio Club", "planProductId": "plan" },
            { "id": "crew", "title": "Crew", "joinButtonText": "Get the pass", "planProductId": "pass" }
        ]},
        "collections": [
            { "id": "h1", "urlId": "home", "fullUrl": "/", "title": "Home", "typeName": "page", "type": 10,
              "homepage": true, "mainContent": "<p>Welcome</p>" },
            { "id": "c1", "urlId": "course", "fullUrl": "/course", "title": "Course", "typeName": "course",
              "type": 25, "memberAreaId": "club", "items": [] },
            { "id": "v1", "urlId": "vault", "fullUrl": "/vault", "title": "Vault", "typeName": "page",
              "type": 10, "memberAreaId": "crew", "mainContent": "<p>Launch plans</p>" },
            { "id": "s1", "urlId": "shop", "fullUrl": "/shop", "title": "Shop", "typeName": "products",
              "type": 13, "items": [
                { "id": "plan", "urlId": "plan", "fullUrl": "/shop/plan", "title": "Club plan",
                  "recordType": 11, "structuredContent": plan },
                { "id": "pass", "urlId": "pass", "fullUrl": "/shop/pass", "title": "Crew pass",
                  "recordType": 11, "structuredContent": { "productType": 2, "variants": [{ "sku": "SQ2",
                    "onSale": true, "priceMoney": { "value": "20.00", "currency": "USD" },
                    "salePriceMoney": { "value": "12.00", "currency": "USD" } }] } }
            ]}
        ],
        "navigations": { "main": [ "home" ] }
    });
    SiteContent::from_json(&doc).unwrap()
}

#[test]
fn a_paid_areas_join_page_sells_its_plan_at_its_price() {
    let page = |site: &SiteContent, path: &str| {
        render(
            site,
            &folder(&[]),
            &Request {
                path,
                query: "",
                ..Default::default()
            },
        )
    };
    let monthly = page(&paid_site(true), "/course");
    assert_eq!(monthly.page_type, Some(page_type::MEMBER_AREA_DENIED));
    assert!(
        monthly.body.contains(">Join for $5.00 / month</a>"),
        "{}",
        monthly.body
    );
    assert!(
        monthly
            .body
            .contains("data-join-label=\"Join for $5.00 / month\"")
    );
    assert!(monthly.body.contains("data-plan-item=\"plan\""));
    assert!(monthly.body.contains("data-plan-kind=\"subscription\""));

    let once = page(&paid_site(false), "/course");
    assert!(once.body.contains(">Join for $5.00</a>"), "{}", once.body);
    assert!(once.body.contains("data-plan-kind=\"one-time\""));

    // The owner's label, then the price: the sale price when on sale.
    let pass = page(&paid_site(false), "/vault");
    assert!(
        pass.body.contains(">Get the pass for $12.00</a>"),
        "{}",
        pass.body
    );
    assert!(!pass.body.contains("Launch plans"));

    // A free area's page sells nothing.
    let free = get(&[], "/course", "");
    assert!(!free.body.contains("data-plan-item"));
    assert!(free.body.contains(">Join the club</a>"));
}
