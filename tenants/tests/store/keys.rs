//! Every table's key leads with tenant_id, read from the live PostgreSQL catalog (what a
//! distribution by tenant_id, e.g. on Citus, needs). The tenant directory and the
//! migration bookkeeping are the named exceptions.

use crate::common::Env;

/// Tables keyed otherwise, on purpose: the tenant directory (reference tables when
/// distributed) and the migration bookkeeping.
const EXCEPTIONS: &[&str] = &["schema_migrations", "tenant", "tenant_domain"];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_tables_primary_key_leads_with_tenant_id() {
    let env = Env::postgres().await;
    let tenants::StoreConfig::Postgres { url } = &env.config else {
        unreachable!()
    };
    let (db, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    // Each ordinary table of the public schema with the first column of its primary key
    // (NULL when it has none).
    let rows = db
        .query(
            "SELECT c.relname::text, (SELECT a.attname::text FROM pg_index i \
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] \
               WHERE i.indrelid = c.oid AND i.indisprimary) \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1",
            &[],
        )
        .await
        .unwrap();
    let mut wrong = Vec::new();
    for r in &rows {
        let (table, first): (String, Option<String>) = (r.get(0), r.get(1));
        if EXCEPTIONS.contains(&table.as_str()) {
            continue;
        }
        if first.as_deref() != Some("tenant_id") {
            wrong.push(format!("{table} (key starts with {first:?})"));
        }
    }
    assert!(rows.len() > 30, "only {} tables found", rows.len());
    assert!(wrong.is_empty(), "keys not led by tenant_id: {wrong:?}");
    for t in EXCEPTIONS {
        assert!(
            rows.iter().any(|r| r.get::<_, String>(0) == *t),
            "exception {t} is no table any more: remove it"
        );
    }
}
