use std::path::{Path, PathBuf};

use crate::common::{Env, TempDir};
use tenants::import::{ImportError, import_dir};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/harbor-lane")
}

/// Copies the fixture into a temp dir so a test can break one file.
fn copy_fixture() -> TempDir {
    let dir = TempDir::new("import");
    copy(&fixture(), &dir.0);
    dir
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy(&e.path(), &target)
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn edit(dir: &Path, rel: &str, from: &str, to: &str) {
    let p = dir.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} does not contain {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

async fn the_fixture_imports(env: Env) {
    let mut log = Vec::new();
    let report = import_dir(&env.store, &fixture(), &mut |m| log.push(m.to_owned()))
        .await
        .unwrap();
    assert_eq!(
        (report.collections, report.items, report.variants),
        (5, 8, 4)
    );
    assert!(report.template_files >= 6);
    assert!(
        log.iter().any(|l| l.contains("collections/shop.json")),
        "{log:?}"
    );
    assert!(
        log.last()
            .unwrap()
            .contains("imported tenant \"harbor-lane\"")
    );

    let t = env
        .store
        .tenant_by_host("WWW.Harbor-Lane.localhost:8080")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(t.id, report.tenant.id);
    // A command line names a site by identifier or by domain; junk is no site, not an error.
    for name in ["harbor-lane", "harbor-lane.localhost"] {
        let named = env.store.tenant_by_name(name).await.unwrap().unwrap();
        assert_eq!(named.id, t.id, "{name}");
    }
    for name in ["harbor", "not a host!"] {
        assert!(
            env.store.tenant_by_name(name).await.unwrap().is_none(),
            "{name}"
        );
    }
    let site = env.store.site_content(t.id).await.unwrap();
    assert_eq!(site.tenant.template_version, Some(report.template_version));
    assert_eq!(site.settings.website["siteTitle"], "Harbor Lane Pottery");
    let shop = site.collection_by_url("shop").unwrap();
    let mug = site
        .items_of(&shop.id)
        .find(|i| i.url_id == "tidepool-mug")
        .unwrap();
    assert_eq!(mug.variants[1].price_minor, 3800);
    assert_eq!(mug.variants[1].sale_price_minor, 3200);
    assert_eq!(mug.variants[1].qty_in_stock, 1);
    assert_eq!(mug.tags, ["stoneware", "blue"]);
    let home = site.collection_by_url("home").unwrap();
    assert!(home.homepage);
    assert_eq!(site.homepage().unwrap().id, home.id);
    assert_eq!(site.collection(&shop.id).unwrap().url_id, "shop");
    assert_eq!(
        site.item_by_url(&shop.id, "tidepool-mug").unwrap().title,
        "Tidepool Mug"
    );
    assert_eq!(site.navigation("footerNav").len(), 1);
    assert!(site.navigation("noSuchNav").is_empty());
    assert_eq!(
        site.navigations["mainNav"][0]["collectionId"],
        home.id.as_str()
    );
    assert_eq!(
        site.navigations["mainNav"][3]["externalLink"]["newWindow"],
        true
    );
    assert_eq!(
        site.categories
            .iter()
            .filter(|c| c.collection_id == shop.id)
            .count(),
        3
    );
    let journal = site.collection_by_url("journal").unwrap();
    let post = site
        .items_of(&journal.id)
        .find(|i| i.url_id == "spring-firing")
        .unwrap();
    assert_eq!(post.publish_on, 1_775_484_000_000); // 2026-04-06T14:00:00Z
    let conf = env
        .store
        .template_file(t.id, report.template_version, "template.conf")
        .await
        .unwrap()
        .unwrap();
    assert!(String::from_utf8(conf).unwrap().contains("\"mainNav\""));
    assert!(
        env.store
            .form(t.id, "5f1a0000000000000000c0de")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        env.store
            .commerce_preferences(t.id, "merchandising")
            .await
            .unwrap()["scarcityThreshold"],
        3
    );

    // Importing the same tenant twice is refused.
    let again = import_dir(&env.store, &fixture(), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(again.file, Path::new("tenant.json"));
    assert_eq!(again.field.as_deref(), Some("identifier"));
}

fn assert_error(e: &ImportError, file: &str, field: Option<&str>, reason_part: &str) {
    assert_eq!(e.file, Path::new(file), "{e}");
    assert_eq!(e.field.as_deref(), field, "{e}");
    assert!(e.reason.contains(reason_part), "{e}");
    let shown = e.to_string();
    assert!(shown.starts_with(file), "{shown}");
}

type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
);

/// Malformed files fail with file, field and reason, and nothing is imported.
async fn members_are_imported_with_hashed_passwords(env: Env) {
    let report = import_dir(&env.store, &fixture(), &mut |_| {})
        .await
        .unwrap();
    let t = report.tenant.id;
    let member = env
        .store
        .site_user_by_email(t, "Marin@Harbor-Lane.localhost")
        .await
        .unwrap()
        .expect("the member of site-users.json");
    assert_eq!(member.display_name, "Marin Okafor");
    assert!(member.password_hash.starts_with("$argon2id$"));
    assert!(tenants::password::verify(
        "glaze-and-fire-1",
        &member.password_hash
    ));
    assert!(!tenants::password::verify(
        "glaze-and-fire-2",
        &member.password_hash
    ));
    // Imported members are confirmed and in the areas listed for them.
    assert!(member.verified_ms.is_some());
    assert_eq!(
        env.store.member_areas_of(t, &member.id).await.unwrap(),
        ["studio-club"]
    );
    let site = env.store.site_content(t).await.unwrap();
    let course = site.collection_by_url("course").unwrap();
    assert_eq!(course.data["memberAreaId"], "studio-club");
}

async fn malformed_files_fail_cleanly(env: Env) {
    // (file to edit, text, replacement, expected file, expected field, part of the reason)
    let cases: &[Case] = &[
        (
            "site-users.json",
            "\"glaze-and-fire-1\"",
            "\"short\"",
            "site-users.json",
            Some("[0].password"),
            "at least 8 characters",
        ),
        (
            "site-users.json",
            "\"marin@harbor-lane.localhost\"",
            "\"marin\"",
            "site-users.json",
            Some("[0].email"),
            "not an email address",
        ),
        (
            "site-users.json",
            "[\"studio-club\"]",
            "[\"studio-clubs\"]",
            "site-users.json",
            Some("[0].memberAreas"),
            "not one of websiteSettings.memberAreas",
        ),
        (
            "collections/kiln-log.json",
            "\"memberArea\": \"kiln-crew\"",
            "\"memberArea\": \"kiln\"",
            "collections/kiln-log.json",
            Some("memberArea"),
            "not one of websiteSettings.memberAreas",
        ),
        (
            "site.json",
            "\"id\": \"kiln-crew\"",
            "\"id\": \"Kiln Crew\"",
            "site.json",
            Some("websiteSettings.memberAreas[1].id"),
            "lower-case letters",
        ),
        (
            "collections/shop.json",
            "\"price\": \"96.00\"",
            "\"price\": \"96.0.0\"",
            "collections/shop.json",
            Some("items[1].variants[0].price"),
            "not a price",
        ),
        (
            "collections/shop.json",
            "\"stock\": 6",
            "\"stock\": \"six\"",
            "collections/shop.json",
            Some("items[0].variants[0].stock"),
            "invalid type",
        ),
        (
            "collections/journal.json",
            "\"urlId\": \"mixing-tidepool\"",
            "\"urlId\": \"spring-firing\"",
            "collections/journal.json",
            Some("items[1].urlId"),
            "duplicate urlId",
        ),
        (
            "collections/journal.json",
            "\"publishOn\": \"2026-01-19\"",
            "\"publishOn\": \"January\"",
            "collections/journal.json",
            Some("items[1].publishOn"),
            "not epoch ms",
        ),
        (
            "collections/journal.json",
            "\"publishOn\": \"2026-01-19\"",
            "\"publishOn\": \"2026-01-19\", \"visibility\": \"draft\"",
            "collections/journal.json",
            Some("items[1].visibility"),
            "must be \"visible\", \"hidden\" or \"scheduled\"",
        ),
        (
            "collections/journal.json",
            "\"publishOn\": \"2026-01-19\"",
            "\"visibility\": \"scheduled\"",
            "collections/journal.json",
            Some("items[1].publishOn"),
            "a scheduled item needs the moment it shows from",
        ),
        (
            "tenant.json",
            "\"status\": \"paid\"",
            "\"status\": \"rich\"",
            "tenant.json",
            Some("status"),
            "unknown variant",
        ),
        (
            "site.json",
            "\"website\":",
            "\"webSite\":",
            "site.json",
            Some("webSite"),
            "unknown field",
        ),
        (
            "navigation.json",
            "{ \"collection\": \"shop\" }",
            "{ \"collection\": \"store\" }",
            "navigation.json",
            Some("mainNav[1].collection"),
            "unknown collection",
        ),
        (
            "collections/home.json",
            "\"title\": \"Studio\",",
            "",
            "collections/home.json",
            None,
            "missing field `title`",
        ),
    ];
    for (file, from, to, want_file, want_field, reason) in cases {
        let dir = copy_fixture();
        edit(&dir.0, file, from, to);
        let e = import_dir(&env.store, &dir.0, &mut |_| {})
            .await
            .unwrap_err();
        assert_error(&e, want_file, *want_field, reason);
    }
    let dir = copy_fixture();
    std::fs::remove_file(dir.0.join("template/template.conf")).unwrap();
    let e = import_dir(&env.store, &dir.0, &mut |_| {})
        .await
        .unwrap_err();
    assert_error(&e, "template/template.conf", None, "missing");
    assert!(
        env.store
            .tenant_by_identifier("harbor-lane")
            .await
            .unwrap()
            .is_none()
    );
    assert!(env.store.tenants().await.unwrap().is_empty());
}

/// A failure found only while writing (a domain owned by another tenant, checked by the
/// database) rolls back everything written before it.
async fn a_failure_while_writing_leaves_nothing(env: Env) {
    let other = env.tenant("other").await;
    env.store
        .add_domain(other, "www.harbor-lane.localhost", false)
        .await
        .unwrap();
    let e = import_dir(&env.store, &fixture(), &mut |_| {})
        .await
        .unwrap_err();
    assert_error(&e, "tenant.json", Some("domains[1]"), "already in use");
    assert!(
        env.store
            .tenant_by_identifier("harbor-lane")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .tenant_by_host("harbor-lane.localhost")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(env.store.tenants().await.unwrap().len(), 1);
}

/// A collection `password` is stored as an Argon2id hash only: never as plain text in the
/// database, and neither the password nor the hash in the snapshot's JSON.
async fn collection_passwords_are_stored_hashed(env: Env) {
    const PLAIN: &str = "kiln-door-7731";
    let dir = copy_fixture();
    edit(
        &dir.0,
        "collections/journal.json",
        "\"title\": \"Journal\",",
        &format!("\"title\": \"Journal\", \"password\": \"{PLAIN}\","),
    );
    let mut log = Vec::new();
    let report = import_dir(&env.store, &dir.0, &mut |m| log.push(m.to_owned()))
        .await
        .unwrap();
    assert!(
        log.iter()
            .any(|l| l.contains("collections/journal.json") && l.ends_with("password-protected")),
        "{log:?}"
    );
    let site = env.store.site_content(report.tenant.id).await.unwrap();
    let journal = site.collection_by_url("journal").unwrap();
    let hash = journal.password_hash.as_deref().expect("a hash is stored");
    assert!(hash.starts_with("$argon2id$v=19$"), "{hash}");
    assert!(!hash.contains(PLAIN));
    assert!(tenants::password::verify(PLAIN, hash));
    assert!(!tenants::password::verify("kiln-door-7732", hash));
    // Other collections stay public.
    assert_eq!(site.collection_by_url("shop").unwrap().password_hash, None);
    let json = serde_json::to_string(&*site).unwrap();
    assert!(!json.contains(PLAIN) && !json.contains("argon2"), "{json}");

    // The embedded database file holds the hash, never the password.
    if let tenants::StoreConfig::Embedded { data_dir } = &env.config {
        let mut bytes = Vec::new();
        for entry in std::fs::read_dir(data_dir).unwrap() {
            bytes.extend(std::fs::read(entry.unwrap().path()).unwrap_or_default());
        }
        let has = |needle: &str| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
        assert!(has("$argon2id$"), "the hash is not on disk");
        assert!(!has(PLAIN), "the plain password is on disk");
    }
}

/// An empty (or blank) password is an import error naming the file and the field, and
/// nothing is written.
async fn an_empty_password_is_refused(env: Env) {
    for empty in ["", "   "] {
        let dir = copy_fixture();
        edit(
            &dir.0,
            "collections/journal.json",
            "\"title\": \"Journal\",",
            &format!("\"title\": \"Journal\", \"password\": \"{empty}\","),
        );
        let e = import_dir(&env.store, &dir.0, &mut |_| {})
            .await
            .unwrap_err();
        assert_error(
            &e,
            "collections/journal.json",
            Some("password"),
            "must not be empty",
        );
        assert_eq!(
            e.to_string(),
            "collections/journal.json: password: must not be empty (leave the field out for a public collection)"
        );
    }
    assert!(env.store.tenants().await.unwrap().is_empty());
}

crate::on_both_backends!(
    the_fixture_imports,
    members_are_imported_with_hashed_passwords,
    malformed_files_fail_cleanly,
    a_failure_while_writing_leaves_nothing,
    collection_passwords_are_stored_hashed,
    an_empty_password_is_refused
);
