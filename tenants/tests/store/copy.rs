//! `tenants::copy::copy_site`: a site copied from either backend into a fresh store of
//! either backend has the same content, forms and template; a second copy into the same
//! store is refused and writes nothing.

use std::path::Path;

use crate::common::Env;
use tenants::import::import_dir;
use tenants::{SiteSnapshot, Store, TenantId};

/// A snapshot with what a copy may change (the tenant's numeric id and versions) cleared.
fn comparable(mut site: SiteSnapshot) -> SiteSnapshot {
    site.tenant.id = TenantId(0);
    site.tenant.content_version = 0;
    site.tenant.template_version = None;
    site.tenant.created_ms = 0;
    // The numbers above are part of its measured size.
    site.shape = Default::default();
    site
}

async fn everything(
    store: &Store,
    id: TenantId,
) -> (SiteSnapshot, Vec<tenants::Form>, Vec<tenants::TemplateFile>) {
    let site = store.load_site_content(id).await.unwrap();
    let version = site.tenant.template_version.expect("a template version");
    let files = store.template_files(id, version).await.unwrap();
    let forms = store.forms(id).await.unwrap();
    (comparable(site), forms, files)
}

async fn a_copy_has_everything_a_visitor_sees(env: Env) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    for name in ["harbor-lane", "loam-lantern", "quillback", "skyward"] {
        let report = import_dir(&env.store, &fixtures.join(name), &mut |_| {})
            .await
            .unwrap();
        let original = everything(&env.store, report.tenant.id).await;
        assert!(!original.0.collections.is_empty(), "{name}");
        for target in [Env::sqlite().await, Env::postgres().await] {
            let copied = tenants::copy::copy_site(&env.store, report.tenant.id, &target.store)
                .await
                .unwrap();
            assert_eq!(copied.identifier, name);
            let host = &original.0.domains[0].host;
            assert_eq!(
                target
                    .store
                    .tenant_by_host(host)
                    .await
                    .unwrap()
                    .map(|t| t.id),
                Some(copied.id),
                "{name}: the copy answers the site's domains"
            );
            let copy = everything(&target.store, copied.id).await;
            assert_eq!(copy.0, original.0, "{name}: the content");
            assert_eq!(copy.1, original.1, "{name}: the forms");
            assert_eq!(copy.2, original.2, "{name}: the template");
            // Once only: the identifier is taken now, and nothing more is written.
            let again = tenants::copy::copy_site(&env.store, report.tenant.id, &target.store).await;
            assert!(again.is_err(), "{name}: {again:?}");
            assert_eq!(target.store.tenants().await.unwrap().len(), 1, "{name}");
        }
    }
}

crate::on_both_backends!(a_copy_has_everything_a_visitor_sees);
