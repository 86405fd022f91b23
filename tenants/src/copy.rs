//! Copying one tenant's site from one store into another, in one transaction: its domains,
//! settings, collections, categories, items with their variants, navigations, header and
//! footer, languages, commerce preferences, forms and current template version.
//!
//! `tessera dev --content TENANT` works on such a copy in a scratch store, so an author's
//! saves never touch the live site. What a visitor made (carts, orders, submissions,
//! sign-ups), members, stock reservations and digital downloads are not copied: a copy is for looking
//! at the site, not for selling from it.

use crate::cache::Change;
use crate::error::Result;
use crate::ids::TenantId;
use crate::model::Tenant;
use crate::repo::{content, forms, templates, tenants};
use crate::store::Store;

/// Copies `tenant` of `from` into `to` as a new tenant with the same identifier, domains
/// and content; returns it. Fails (writing nothing) if `to` already has the identifier or
/// one of the domains.
pub async fn copy_site(from: &Store, tenant: TenantId, to: &Store) -> Result<Tenant> {
    let site = from.load_site_content(tenant).await?;
    let site_forms = from.forms(tenant).await?;
    let template = match site.tenant.template_version {
        Some(v) => from.template_files(tenant, v).await?,
        None => Vec::new(),
    };
    let mut tx = to.write().await?;
    let t = tenants::insert_tenant(
        &mut tx,
        &site.tenant.identifier,
        &site.tenant.name,
        site.tenant.status,
    )
    .await?;
    for d in &site.domains {
        tenants::insert_domain(&mut tx, t.id, &d.host, d.primary).await?;
    }
    content::put_settings_in(&mut tx, t.id, &site.settings).await?;
    for c in &site.collections {
        content::put_collection_in(&mut tx, t.id, c).await?;
    }
    for c in &site.categories {
        content::put_category_in(&mut tx, t.id, c).await?;
    }
    for item in &site.items {
        content::put_item_in(&mut tx, t.id, item).await?;
    }
    for (name, items) in &site.navigations {
        content::put_navigation_in(&mut tx, t.id, name, items).await?;
    }
    content::put_header_footer_in(&mut tx, t.id, &site.header_footer).await?;
    content::put_multilingual_in(&mut tx, t.id, &site.multilingual).await?;
    for (ns, prefs) in &site.commerce_preferences {
        content::put_commerce_preferences_in(&mut tx, t.id, ns, prefs).await?;
    }
    for f in &site_forms {
        forms::put_form_in(&mut tx, t.id, f).await?;
    }
    if !template.is_empty() {
        templates::put_template_version_in(&mut tx, t.id, &template).await?;
    }
    to.commit_change(tx, t.id, Change::Tenant).await?;
    to.tenant(t.id).await
}
