use crate::common::Env;
use tenants::migrate::LATEST_VERSION;

/// Opening already migrated; a second run applies nothing; reopening also applies nothing.
async fn migrations_are_idempotent(env: Env) {
    let report = env.store.migrate().await.unwrap();
    assert!(
        report.applied.is_empty(),
        "second run applied {:?}",
        report.applied
    );
    assert_eq!(report.current, LATEST_VERSION);
    let again = env.another_node().await;
    assert_eq!(again.migrate().await.unwrap().applied, Vec::<i64>::new());
}

crate::on_both_backends!(migrations_are_idempotent);

/// A database changed behind the binary's back is refused with a clear message: an edited
/// migration (checksum differs) or a schema newer than the binary.
#[tokio::test]
async fn sqlite_edited_or_newer_schemas_are_refused() {
    use deadpool_sqlite::rusqlite::Connection;
    use tenants::{Store, StoreConfig, StoreError};

    let dir = crate::common::TempDir::new("migrate");
    let config = StoreConfig::Embedded {
        data_dir: dir.0.clone(),
    };
    Store::open(&config).await.unwrap().close().await.unwrap();
    let file = dir.0.join(tenants::EMBEDDED_FILE);

    let c = Connection::open(&file).unwrap();
    let original: String = c
        .query_row(
            "SELECT checksum FROM schema_migrations WHERE version = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    c.execute(
        "UPDATE schema_migrations SET checksum = 'x' WHERE version = 1",
        [],
    )
    .unwrap();
    drop(c);
    let err = Store::open(&config)
        .await
        .err()
        .expect("edited migration must fail");
    assert!(
        matches!(&err, StoreError::Migration(m) if m.contains("was edited")),
        "{err}"
    );

    let c = Connection::open(&file).unwrap();
    c.execute(
        "UPDATE schema_migrations SET checksum = ?1 WHERE version = 1",
        [&original],
    )
    .unwrap();
    drop(c);
    Store::open(&config)
        .await
        .expect("restored checksum opens again")
        .close()
        .await
        .unwrap();

    let c = Connection::open(&file).unwrap();
    c.execute("INSERT INTO schema_migrations (version, name, checksum, applied_ms) VALUES (99, 'future', 'y', 0)", [])
        .unwrap();
    drop(c);
    let err = Store::open(&config)
        .await
        .err()
        .expect("newer schema must fail");
    assert!(
        matches!(&err, StoreError::Migration(m) if m.contains("version 99, newer than this binary")),
        "{err}"
    );
}

/// A database at schema version 1 (before lock screens) is upgraded on open: migration 2
/// adds `collection.password_hash`, and existing collections stay public.
#[tokio::test]
async fn sqlite_version_1_databases_are_upgraded() {
    use deadpool_sqlite::rusqlite::Connection;
    use tenants::Store;

    let (dir, config, store, t) = old_embedded_store("migrate-v1").await;
    store.close().await.unwrap();
    // Back to version 1: drop what migration 2 added.
    roll_back(
        &dir,
        "ALTER TABLE collection DROP COLUMN password_hash; DELETE FROM schema_migrations WHERE version = 2;",
    );
    let file = dir.0.join(tenants::EMBEDDED_FILE);

    let store = Store::open(&config).await.unwrap();
    let report = store.migrate().await.unwrap();
    assert_eq!(report.current, LATEST_VERSION);
    // The new column is written and read back.
    let mut c = crate::content::collection("members", "page", 10);
    c.password_hash = Some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into());
    store.put_collection(t, &c).await.unwrap();
    let site = store.site_content(t).await.unwrap();
    assert_eq!(
        site.collection_by_url("members").unwrap().password_hash,
        c.password_hash
    );
    store.close().await.unwrap();
    let c = Connection::open(&file).unwrap();
    let versions: Vec<i64> = c
        .prepare("SELECT version FROM schema_migrations ORDER BY version")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(versions, (1..=LATEST_VERSION).collect::<Vec<_>>());
    let has_column: bool = c
        .query_row(
            "SELECT COUNT(*) FROM pragma_table_info('collection') WHERE name = 'password_hash'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n == 1)
        .unwrap();
    assert!(has_column);
}

/// A database at schema version 7 keeps its analytics history: migration 8 rolls the events
/// already stored up into days, and the summary (which reads only the roll-ups) counts them.
#[tokio::test]
async fn sqlite_version_7_analytics_are_rolled_up() {
    use serde_json::json;
    use tenants::{AnalyticsEvent, DAY_MS, Store};

    let (dir, config, store, t) = old_embedded_store("migrate-v7").await;
    let at = |day: i64, name: &str, path: &str, visitor: Option<&str>| AnalyticsEvent {
        occurred_ms: day * DAY_MS + 5,
        name: name.into(),
        page_path: path.into(),
        visitor_id: visitor.map(str::to_owned),
        referrer: Some("search.example".into()),
        data: json!({}),
    };
    store
        .record_events(
            t,
            &[
                at(3, "pageview", "/", Some("a")),
                at(3, "pageview", "/shop", Some("b")),
                at(4, "page_view", "/shop", Some("a")),
                at(4, "pageview", "/shop", None),
                at(4, "purchase", "/checkout", Some("a")),
                at(1, "pageview", "/", Some("old")),
            ],
        )
        .await
        .unwrap();
    let before = store.analytics_summary(t, 3).await.unwrap();
    store.close().await.unwrap();
    // Back to version 7: the roll-ups never existed.
    roll_back(
        &dir,
        "DROP TABLE analytics_day; DELETE FROM schema_migrations WHERE version = 8;",
    );

    let store = Store::open(&config).await.unwrap();
    let after = store.analytics_summary(t, 3).await.unwrap();
    assert_eq!(after, before);
    assert_eq!(
        (after.page_views, after.unique_visitors, after.purchases),
        (4, 2, 1)
    );
    assert_eq!(
        after.top_pages,
        [("/shop".to_owned(), 3), ("/".to_owned(), 1)]
    );
    assert_eq!(after.top_referrers, [("search.example".to_owned(), 4)]);
    assert_eq!(store.analytics_summary(t, 0).await.unwrap().page_views, 5);
    store.close().await.unwrap();
}

/// A database at schema version 16 keeps its analytics history: migration 17 rolls the
/// events already stored up into quarter hours, sessions (visits) included, and the owner's
/// counts (which read only those roll-ups) see them.
#[tokio::test]
async fn sqlite_version_16_analytics_are_rolled_up_by_quarter_hour() {
    use serde_json::json;
    use tenants::{AnalyticsEvent, DAY_MS, Span, Store};

    let (dir, config, store, t) = old_embedded_store("migrate-v16").await;
    let day = 20_000 * DAY_MS;
    let at = |ms: i64, name: &str, path: &str, session: Option<&str>| AnalyticsEvent {
        occurred_ms: day + ms,
        name: name.into(),
        page_path: path.into(),
        visitor_id: Some("v".into()),
        referrer: Some("search.example".into()),
        data: session.map_or(json!({"session": 7}), |s| json!({ "session": s })),
    };
    store
        .record_events(
            t,
            &[
                at(5, "pageview", "/", Some("a")),
                at(1_000_000, "pageview", "/checkout", Some("a")),
                at(5, "page_view", "/shop", Some("b")),
                at(5, "pageview", "/shop", None),
                at(9, "add-to-cart", "/shop", None),
                at(9, "purchase", "/checkout", None),
            ],
        )
        .await
        .unwrap();
    let span = [Span {
        start_ms: day,
        end_ms: day + DAY_MS,
    }];
    let before = store.span_counts(t, &span, false).await.unwrap();
    let top_before = store.span_top(t, span[0], 10).await.unwrap();
    store.close().await.unwrap();
    roll_back(
        &dir,
        "DROP TABLE analytics_slot; DELETE FROM schema_migrations WHERE version = 17;",
    );

    let store = Store::open(&config).await.unwrap();
    let after = store.span_counts(t, &span, false).await.unwrap();
    assert_eq!(after, before);
    let c = &after[0];
    assert_eq!(
        (
            c.visits,
            c.page_views,
            c.add_to_carts,
            c.checkouts,
            c.purchases
        ),
        (2, 4, 1, 1, 1)
    );
    assert_eq!(store.span_top(t, span[0], 10).await.unwrap(), top_before);
    store.close().await.unwrap();
}

/// An embedded store in a new directory with one site, "old": (directory, config, store, site).
/// Template versions stored before migration 12 (no content hash) get their hash when the
/// store is opened by this binary, the same hash an upload now stores, and the tenant row
/// carries it.
#[tokio::test]
async fn sqlite_version_11_databases_get_template_hashes() {
    let (dir, config, store, t) = old_embedded_store("migrate-v11").await;
    let files = vec![
        tenants::TemplateFile {
            path: "template.conf".into(),
            content: br#"{"name":"Old"}"#.to_vec(),
        },
        tenants::TemplateFile {
            path: "a.region".into(),
            content: b"<main>{.section x}{x}{.end}</main>".to_vec(),
        },
    ];
    store.put_template_version(t, &files).await.unwrap();
    store.close().await.unwrap();
    roll_back(
        &dir,
        "ALTER TABLE template_version DROP COLUMN content_hash; DELETE FROM schema_migrations WHERE version = 12;",
    );
    let store = tenants::Store::open(&config).await.unwrap();
    let tenant = store.tenant(t).await.unwrap();
    assert_eq!(tenant.template_hash, Some(tenants::template_hash(&files)));
    store.close().await.unwrap();
}

/// Sessions stored before migration 13 kept the token itself, which cannot be told from a
/// hash: the migration drops them (every member signs in again once), and a new session
/// keeps only the SHA-256 of its token.
#[tokio::test]
async fn sqlite_version_12_sessions_are_dropped() {
    let (dir, config, store, t) = old_embedded_store("migrate-v12").await;
    let user = store
        .create_site_user(t, "ana@example.com", "hash", "Ana")
        .await
        .unwrap();
    store.close().await.unwrap();
    roll_back(
        &dir,
        &format!(
            "ALTER TABLE site_session RENAME COLUMN token_hash TO token; \
             DELETE FROM schema_migrations WHERE version = 13; \
             INSERT INTO site_session (tenant_id, token, user_id, xsrf_token, created_ms, expires_ms) \
             VALUES ({}, 'plain-token', '{}', 'x', 0, 9999999999999);",
            t.0, user.id
        ),
    );
    let store = tenants::Store::open(&config).await.unwrap();
    assert!(store.session(t, "plain-token").await.unwrap().is_none());
    let fresh = store.create_session(t, &user.id, 60_000).await.unwrap();
    assert!(store.session(t, &fresh.token).await.unwrap().is_some());
    store.close().await.unwrap();
    let file = dir.0.join(tenants::EMBEDDED_FILE);
    let c = deadpool_sqlite::rusqlite::Connection::open(&file).unwrap();
    let stored: Vec<String> = c
        .prepare("SELECT token_hash FROM site_session")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored.len(), 1, "the old session is gone: {stored:?}");
    use sha2::{Digest, Sha256};
    let digest: String = Sha256::digest(fresh.token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(stored[0], digest);
}

async fn old_embedded_store(
    name: &str,
) -> (
    crate::common::TempDir,
    tenants::StoreConfig,
    tenants::Store,
    tenants::TenantId,
) {
    let dir = crate::common::TempDir::new(name);
    let config = tenants::StoreConfig::Embedded {
        data_dir: dir.0.clone(),
    };
    let store = tenants::Store::open(&config).await.unwrap();
    let t = store
        .create_tenant("old", "Old", tenants::WebsiteStatus::Paid)
        .await
        .unwrap();
    (dir, config, store, t.id)
}

/// Runs `sql` on the embedded store's file: a schema taken back to an older version.
fn roll_back(dir: &crate::common::TempDir, sql: &str) {
    let file = dir.0.join(tenants::EMBEDDED_FILE);
    let c = deadpool_sqlite::rusqlite::Connection::open(&file).unwrap();
    c.execute_batch(sql).unwrap();
}
