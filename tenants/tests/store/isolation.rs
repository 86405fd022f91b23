//! Tenant isolation: no read or write path reaches another tenant's rows.
//!
//! Two tenants hold content with the *same* ids (collection, item, skus, form), which the
//! schema allows because every key starts with `tenant_id`. Every read path is called for
//! tenant B with tenant A's ids, every write path is aimed from B at A's rows, and A's
//! complete state is compared before and after. Two static checks keep the discipline:
//! every table carries `tenant_id`, and every repository statement filters on it.

use serde_json::{Value, json};

use crate::common::Env;
use crate::content::{collection, product};
use tenants::{
    AddToCart, AnalyticsEvent, Form, PerformanceRecord, SiteSettings, Store, StoreError,
    TemplateFile, TemplateVersion, TenantId, WebsiteStatus,
};

const COLLECTION: &str = "c0ffee00000000000000c0ff";
const ITEM: &str = "1eaf0000000000000000beef";
const FORM: &str = "f0f0000000000000000000f0";

/// Ids of tenant A's private rows.
struct PrivateRows {
    cart: String,
    entry: String,
    order: String,
    key: String,
    token: String,
    user: String,
    version: TemplateVersion,
}

async fn seed(store: &Store, t: TenantId, label: &str, stock: i64) {
    let mut c = collection("store", "products", 13);
    c.id = COLLECTION.into();
    c.title = format!("{label} store");
    store.put_collection(t, &c).await.unwrap();
    let mut p = product(COLLECTION, "mug", "MUG-M", stock);
    p.id = ITEM.into();
    p.title = format!("{label} mug");
    store.put_item(t, &p).await.unwrap();
    let form = Form {
        id: FORM.into(),
        name: format!("{label} form"),
        fields: json!([]),
        settings: Default::default(),
    };
    store.put_form(t, &form).await.unwrap();
    let mut s = SiteSettings::default();
    s.website.insert("siteTitle".into(), json!(label));
    store.put_site_settings(t, &s).await.unwrap();
}

async fn private_rows(store: &Store, t: TenantId) -> PrivateRows {
    let cart = store.create_cart(t).await.unwrap().id;
    let entry = store
        .add_to_cart(
            t,
            &cart,
            &AddToCart {
                item_id: ITEM.into(),
                sku: "MUG-M".into(),
                quantity: 1,
                additional_fields: None,
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .newly_added
        .id;
    let ordered = store.create_cart(t).await.unwrap().id;
    store
        .add_to_cart(
            t,
            &ordered,
            &AddToCart {
                item_id: ITEM.into(),
                sku: "MUG-M".into(),
                quantity: 1,
                additional_fields: None,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let order = crate::common::buy(store, t, &ordered, "a@a.test")
        .await
        .unwrap()
        .id;
    let key = store.create_submission_key(t, 600_000).await.unwrap();
    let used_key = store.create_submission_key(t, 600_000).await.unwrap();
    store
        .save_submission(
            t,
            &used_key,
            FORM,
            &json!({"msg": "hi"}),
            &json!({}),
            &[],
            None,
        )
        .await
        .unwrap();
    store
        .restock_signup(t, ITEM, "MUG-M", "wait@a.test", true, None)
        .await
        .unwrap();
    let user = store
        .create_site_user(t, "member@a.test", "hash-a", "Member A")
        .await
        .unwrap()
        .id;
    let token = store.create_session(t, &user, 600_000).await.unwrap().token;
    let event = AnalyticsEvent {
        occurred_ms: 1,
        name: "pageview".into(),
        page_path: "/".into(),
        visitor_id: None,
        referrer: None,
        data: json!({}),
    };
    store.record_events(t, &[event]).await.unwrap();
    let perf = PerformanceRecord {
        page_load_id: "pl-a".into(),
        app: "web".into(),
        event: "lcp".into(),
        ts_ms: 1,
        data: json!({}),
    };
    store.record_performance(t, &[perf]).await.unwrap();
    let version = store
        .put_template_version(
            t,
            &[TemplateFile {
                path: "template.conf".into(),
                content: b"{}".to_vec(),
            }],
        )
        .await
        .unwrap();
    store
        .put_navigation(t, "mainNav", &json!([{"collectionId": COLLECTION}]))
        .await
        .unwrap();
    store
        .put_commerce_preferences(t, "checkout", json!({"k": "a"}).as_object().unwrap())
        .await
        .unwrap();
    PrivateRows {
        cart,
        entry,
        order,
        key,
        token,
        user,
        version,
    }
}

/// Everything tenant A has, as JSON, read through A's own id.
async fn dump(store: &Store, t: TenantId, rows: &PrivateRows) -> Value {
    let mut site = serde_json::to_value(store.load_site_content(t).await.unwrap()).unwrap();
    site["tenant"]["contentVersion"] = json!(null); // the dump is about data, not versions
    json!({
        "site": site,
        "cart": store.cart(t, &rows.cart).await.unwrap(),
        "orders": store.orders(t).await.unwrap(),
        "stock": store.stock(t, ITEM).await.unwrap(),
        "form": store.form(t, FORM).await.unwrap(),
        "submissions": store.form_submissions(t, FORM).await.unwrap(),
        "restock": store.restock_signups(t, ITEM, "MUG-M", None, 100).await.unwrap(),
        "user": store.site_user_by_email(t, "member@a.test").await.unwrap().map(|u| (u.id, u.password_hash)),
        "session": store.session(t, &rows.token).await.unwrap().map(|(s, _)| s),
        "events": store.events(t, 0, 100).await.unwrap(),
        "perf": store.performance_records(t, "pl-a").await.unwrap(),
        "template": store.template_files(t, rows.version).await.unwrap().into_iter().map(|f| (f.path, f.content)).collect::<Vec<_>>(),
        "prefs": store.commerce_preferences(t, "checkout").await.unwrap(),
        "domains": store.domains(t).await.unwrap(),
        "status": store.tenant(t).await.unwrap().status,
    })
}

fn not_found<T: std::fmt::Debug>(r: Result<T, StoreError>) {
    assert!(
        matches!(r, Err(StoreError::NotFound(_))),
        "expected NotFound, got {r:?}"
    );
}

async fn no_read_or_write_path_crosses_tenants(env: Env) {
    let s = &env.store;
    let a = env.tenant("shop-a").await;
    let b = env.tenant("shop-b").await;
    seed(s, a, "A", 5).await;
    seed(s, b, "B", 7).await;
    let rows = private_rows(s, a).await;
    let before = dump(s, a, &rows).await;

    // Reads from B with A's ids see B's rows or nothing.
    assert_eq!(s.item(b, ITEM).await.unwrap().unwrap().title, "B mug");
    assert_eq!(s.stock(b, ITEM).await.unwrap()[0].qty_in_stock, 7);
    assert_eq!(s.form(b, FORM).await.unwrap().unwrap().name, "B form");
    assert_eq!(
        s.collection_by_url(b, "store")
            .await
            .unwrap()
            .unwrap()
            .title,
        "B store"
    );
    assert!(s.cart(b, &rows.cart).await.unwrap().is_none());
    assert!(s.order(b, &rows.order).await.unwrap().is_none());
    assert!(s.orders(b).await.unwrap().is_empty());
    assert!(s.form_submissions(b, FORM).await.unwrap().is_empty());
    assert!(s.form_submission_counts(b).await.unwrap().is_empty());
    assert!(
        s.restock_signups(b, ITEM, "MUG-M", None, 100)
            .await
            .unwrap()
            .rows
            .is_empty()
    );
    assert!(
        s.restock_groups(b, None, 100)
            .await
            .unwrap()
            .rows
            .is_empty()
    );
    assert!(
        s.site_user_by_email(b, "member@a.test")
            .await
            .unwrap()
            .is_none()
    );
    assert!(s.session(b, &rows.token).await.unwrap().is_none());
    assert!(s.events(b, 0, 100).await.unwrap().is_empty());
    assert!(s.performance_records(b, "pl-a").await.unwrap().is_empty());
    assert!(s.template_files(b, rows.version).await.unwrap().is_empty());
    assert!(
        s.template_file(b, rows.version, "template.conf")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        s.commerce_preferences(b, "checkout")
            .await
            .unwrap()
            .is_empty()
    );
    let site_b = s.site_content(b).await.unwrap();
    assert_eq!(site_b.settings.website["siteTitle"], "B");
    assert!(site_b.items.iter().all(|i| i.title == "B mug"));
    assert!(site_b.navigations.is_empty());
    assert_eq!(
        s.tenant_by_host("shop-a.example")
            .await
            .unwrap()
            .unwrap()
            .id,
        a
    );

    // Writes from B aimed at A's rows fail or touch only B.
    let add = AddToCart {
        item_id: ITEM.into(),
        sku: "MUG-M".into(),
        quantity: 1,
        additional_fields: None,
        ..Default::default()
    };
    not_found(s.add_to_cart(b, &rows.cart, &add).await);
    not_found(
        s.set_entry_quantity(b, &rows.cart, &rows.entry, 3, false)
            .await,
    );
    not_found(s.remove_entry(b, &rows.cart, &rows.entry).await);
    not_found(
        s.set_entry_fields(b, &rows.cart, &rows.entry, &json!({"x": 1}))
            .await,
    );
    not_found(crate::common::buy(s, b, &rows.cart, "b@b.test").await);
    let r = s
        .save_submission(b, &rows.key, FORM, &json!({}), &json!({}), &[], None)
        .await;
    assert!(
        matches!(r, Err(StoreError::Invalid(_))),
        "A's submission key must not work for B: {r:?}"
    );
    not_found(s.create_session(b, &rows.user, 1000).await);
    assert!(!s.delete_session(b, &rows.token).await.unwrap());
    assert_eq!(
        s.send_restock_notices(b, ITEM, "MUG-M", |_| None)
            .await
            .unwrap(),
        0
    );
    // Releasing every open cart of B (cutoff in the future) leaves A's carts alone.
    s.release_abandoned_carts(b, tenants::now_ms() + 3_600_000)
        .await
        .unwrap();
    not_found(s.remove_domain(b, "shop-a.example").await);
    assert!(matches!(
        s.add_domain(b, "shop-a.example", true).await,
        Err(StoreError::Conflict(_))
    ));
    // B changing its own rows with the shared ids leaves A's alone.
    s.set_stock(b, ITEM, "MUG-M", 0, false).await.unwrap();
    let b_cart = s.create_cart(b).await.unwrap();
    assert!(matches!(
        s.add_to_cart(b, &b_cart.id, &add).await,
        Err(StoreError::OutOfStock { .. })
    ));
    s.put_form(
        b,
        &Form {
            id: FORM.into(),
            name: "B form 2".into(),
            fields: json!([]),
            settings: Default::default(),
        },
    )
    .await
    .unwrap();
    s.put_navigation(b, "mainNav", &json!([])).await.unwrap();
    s.put_commerce_preferences(b, "checkout", json!({"k": "b"}).as_object().unwrap())
        .await
        .unwrap();
    s.put_template_version(b, &[]).await.unwrap();
    s.set_status(b, WebsiteStatus::Removed).await.unwrap();
    s.delete_item(b, ITEM).await.unwrap();
    s.delete_collection(b, COLLECTION).await.unwrap();
    let b_user = s
        .create_site_user(b, "member@a.test", "hash-b", "Member B")
        .await
        .unwrap();
    assert_ne!(b_user.id, rows.user);

    let after = dump(s, a, &rows).await;
    assert_eq!(before, after, "tenant A's rows changed through tenant B");
    assert!(s.item(b, ITEM).await.unwrap().is_none());
    assert_eq!(s.item(a, ITEM).await.unwrap().unwrap().title, "A mug");
}

/// Deleting a tenant removes every row it owns (schema cascades) and nothing of another.
async fn deleting_a_tenant_removes_only_its_rows(env: Env) {
    let s = &env.store;
    let a = env.tenant("shop-a").await;
    let b = env.tenant("shop-b").await;
    seed(s, a, "A", 5).await;
    seed(s, b, "B", 7).await;
    let rows = private_rows(s, a).await;
    let b_rows = private_rows(s, b).await;
    let b_before = dump(s, b, &b_rows).await;
    assert!(s.site_content(a).await.is_ok());
    s.delete_tenant(a).await.unwrap();
    assert!(matches!(s.tenant(a).await, Err(StoreError::NotFound(_))));
    assert!(s.tenant_by_host("shop-a.example").await.unwrap().is_none());
    assert!(matches!(
        s.site_content(a).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(s.cart(a, &rows.cart).await.unwrap().is_none());
    assert!(s.orders(a).await.unwrap().is_empty());
    assert!(s.item(a, ITEM).await.unwrap().is_none());
    assert!(s.events(a, 0, 10).await.unwrap().is_empty());
    assert!(s.template_files(a, rows.version).await.unwrap().is_empty());
    assert!(s.session(a, &rows.token).await.unwrap().is_none());
    assert!(matches!(
        s.delete_tenant(a).await,
        Err(StoreError::NotFound(_))
    ));
    // A new tenant never gets the deleted one's id.
    let c = s
        .create_tenant("shop-c", "C", WebsiteStatus::Trial)
        .await
        .unwrap();
    assert!(c.id > b);
    assert_eq!(dump(s, b, &b_rows).await, b_before);
}

crate::on_both_backends!(
    no_read_or_write_path_crosses_tenants,
    deleting_a_tenant_removes_only_its_rows
);

/// Every table but `tenant` has a `tenant_id` column that leads its primary key (or, for
/// the append-only tables with a surrogate key, an index).
#[test]
fn every_table_carries_tenant_id() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let sql: String = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut tables = 0;
    for block in sql.split("CREATE TABLE ").skip(1) {
        let name = block.split_whitespace().next().unwrap();
        let body = &block[..block.find(");").unwrap()];
        tables += 1;
        if name == "tenant" {
            continue;
        }
        assert!(
            body.contains("tenant_id BIGINT"),
            "table {name} has no tenant_id column"
        );
        let pk_leads = body.contains("PRIMARY KEY (tenant_id")
            || body.contains("tenant_id BIGINT PRIMARY KEY");
        let indexed = sql.contains(&format!("ON {name} (tenant_id"));
        let domain = name == "tenant_domain" && sql.contains("ON tenant_domain (tenant_id)");
        assert!(
            pk_leads || indexed || domain,
            "table {name}: tenant_id neither leads the key nor is indexed"
        );
    }
    assert!(tables >= 32, "found only {tables} tables");
}

/// Every SQL statement in the repository modules filters or writes by tenant. Only the
/// statements on the `tenant` table itself (find by id, identifier or host, list, create,
/// update and delete by id) and the invalidation NOTIFY go without `tenant_id`.
#[test]
fn every_repository_statement_is_scoped_by_tenant() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/repo");
    let allowed = [
        "FROM tenant t WHERE t.id = $1",
        "FROM tenant t WHERE t.identifier = $1",
        "FROM tenant t ORDER BY t.id",
        "JOIN tenant t ON t.id = d.tenant_id WHERE d.host = $1",
        "INSERT INTO tenant (identifier",
        "UPDATE tenant SET",
        "DELETE FROM tenant WHERE id = $1",
        "SELECT pg_notify($1, $2)",
    ];
    let mut checked = 0;
    let mut files = Vec::new();
    let mut dirs = vec![dir];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        for start in [
            "\"SELECT",
            "\"UPDATE",
            "\"DELETE",
            "\"INSERT",
            "!(\"SELECT",
            "!(\"UPDATE",
            "!(\"DELETE",
            "!(\"INSERT",
        ] {
            for (i, _) in src.match_indices(start) {
                let lit = &src[i + start.find('"').unwrap() + 1..];
                let stmt = &lit[..lit.find("\",").or_else(|| lit.find("\")")).unwrap()];
                let stmt = stmt.replace("\\\n", " ");
                checked += 1;
                if stmt.contains("UPDATE tenant SET") {
                    assert!(stmt.contains("WHERE id = $1"), "{}: {stmt}", path.display());
                    continue;
                }
                assert!(
                    stmt.contains("tenant_id") || allowed.iter().any(|a| stmt.contains(a)),
                    "{}: statement not scoped by tenant: {stmt}",
                    path.display()
                );
            }
        }
    }
    assert!(
        checked >= 100,
        "found only {checked} statements; is the scan still finding them?"
    );
}
