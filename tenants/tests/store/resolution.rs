use crate::common::Env;
use tenants::{StoreError, WebsiteStatus};

async fn host_resolves_with_port_and_any_case(env: Env) {
    let a = env.tenant("alpha").await;
    env.store
        .add_domain(a, "www.Alpha.test", false)
        .await
        .unwrap();
    let b = env.tenant("beta").await;
    for host in [
        "alpha.example",
        "ALPHA.example:8080",
        "www.alpha.test",
        "WWW.ALPHA.TEST:443",
        "alpha.example.",
    ] {
        let t = env
            .store
            .tenant_by_host(host)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{host} unresolved"));
        assert_eq!(t.id, a, "{host}");
    }
    assert_eq!(
        env.store
            .tenant_by_host("beta.example")
            .await
            .unwrap()
            .unwrap()
            .id,
        b
    );
    assert!(
        env.store
            .tenant_by_host("nobody.example")
            .await
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        env.store.tenant_by_host("bad host").await,
        Err(StoreError::Invalid(_))
    ));
    let domains = env.store.domains(a).await.unwrap();
    assert_eq!(domains.len(), 2);
    assert!(domains[0].primary && domains[0].host == "alpha.example");
}

async fn a_domain_belongs_to_one_tenant(env: Env) {
    let _a = env.tenant("alpha").await;
    let b = env.tenant("beta").await;
    let err = env
        .store
        .add_domain(b, "Alpha.Example", false)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let err = env
        .store
        .create_tenant("alpha", "again", WebsiteStatus::Trial)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
}

/// The host cache (including cached misses) follows domain and status changes.
async fn host_cache_follows_changes(env: Env) {
    let a = env.tenant("alpha").await;
    assert!(
        env.store
            .tenant_by_host("shop.alpha.test")
            .await
            .unwrap()
            .is_none()
    );
    env.store
        .add_domain(a, "shop.alpha.test", false)
        .await
        .unwrap();
    assert_eq!(
        env.store
            .tenant_by_host("shop.alpha.test")
            .await
            .unwrap()
            .unwrap()
            .id,
        a
    );
    env.store
        .set_status(a, WebsiteStatus::Expired)
        .await
        .unwrap();
    assert_eq!(
        env.store
            .tenant_by_host("shop.alpha.test")
            .await
            .unwrap()
            .unwrap()
            .status,
        WebsiteStatus::Expired
    );
    env.store.remove_domain(a, "SHOP.alpha.test").await.unwrap();
    assert!(
        env.store
            .tenant_by_host("shop.alpha.test")
            .await
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        env.store.remove_domain(a, "shop.alpha.test").await,
        Err(StoreError::NotFound(_))
    ));
}

async fn statuses_round_trip_with_spec_numbers(env: Env) {
    let t = env
        .store
        .create_tenant("gamma", "Gamma", WebsiteStatus::ParkingPage)
        .await
        .unwrap();
    assert_eq!(t.status.code(), 12);
    for s in [
        WebsiteStatus::Trial,
        WebsiteStatus::Enterprise,
        WebsiteStatus::Removed,
    ] {
        env.store.set_status(t.id, s).await.unwrap();
        assert_eq!(env.store.tenant(t.id).await.unwrap().status, s);
    }
    assert!(matches!(
        env.store
            .create_tenant("Bad Name", "x", WebsiteStatus::Trial)
            .await,
        Err(StoreError::Invalid(_))
    ));
}

/// Writes for a tenant that does not exist fail with NotFound, not a driver error.
async fn unknown_tenants_are_not_found(env: Env) {
    let ghost = tenants::TenantId(987_654);
    assert!(matches!(
        env.store.tenant(ghost).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        env.store.add_domain(ghost, "ghost.example", true).await,
        Err(StoreError::NotFound(_))
    ));
    let c = crate::content::collection("x", "page", 10);
    assert!(matches!(
        env.store.put_collection(ghost, &c).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        env.store.create_cart(ghost).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        env.store.set_status(ghost, WebsiteStatus::Paid).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(
        env.store
            .tenant_by_host("ghost.example")
            .await
            .unwrap()
            .is_none()
    );
}

crate::on_both_backends!(
    unknown_tenants_are_not_found,
    host_resolves_with_port_and_any_case,
    a_domain_belongs_to_one_tenant,
    host_cache_follows_changes,
    statuses_round_trip_with_spec_numbers
);
