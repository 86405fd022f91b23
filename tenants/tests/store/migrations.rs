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
