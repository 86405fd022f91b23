use serde_json::{Value, json};

use crate::common::Env;
use tenants::{Collection, HeaderFooter, Item, SiteSettings, StoreError, TenantId, Variant};

pub fn collection(url_id: &str, type_name: &str, kind: i64) -> Collection {
    serde_json::from_value(json!({ "urlId": url_id, "title": url_id.to_uppercase(), "type": kind, "typeName": type_name }))
        .unwrap()
}

pub fn product(collection_id: &str, url_id: &str, sku: &str, stock: i64) -> Item {
    Item {
        collection_id: collection_id.into(),
        product_type: Some(1),
        variants: vec![Variant {
            sku: sku.into(),
            attributes: [("Size".to_string(), "M".to_string())].into(),
            currency: "USD".into(),
            price_minor: 1250,
            sale_price_minor: 0,
            on_sale: false,
            qty_in_stock: stock,
            unlimited: false,
            weight_grams: 250,
        }],
        ..serde_json::from_value(
            json!({ "urlId": url_id, "title": format!("Product {url_id}"), "recordType": 11 }),
        )
        .unwrap()
    }
}

async fn store_with_content(env: &Env) -> (TenantId, String, String) {
    let t = env.tenant("shop").await;
    let store = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mut p = product(&store, "mug", "MUG-M", 5);
    p.categories = vec!["Kitchen".into()];
    p.tags = vec!["ceramic".into(), "gift".into()];
    let item = env.store.put_item(t, &p).await.unwrap();
    (t, store, item)
}

async fn content_round_trips(env: Env) {
    let (t, store_id, item_id) = store_with_content(&env).await;
    let settings = SiteSettings {
        website: json!({"siteTitle": "Shop", "timeZone": "Europe/Paris"})
            .as_object()
            .unwrap()
            .clone(),
        website_settings: json!({"storeSettings": {"selectedCurrency": "EUR"}})
            .as_object()
            .unwrap()
            .clone(),
    };
    env.store.put_site_settings(t, &settings).await.unwrap();
    assert_eq!(env.store.site_settings(t).await.unwrap(), settings);

    let item = env.store.item(t, &item_id).await.unwrap().unwrap();
    assert_eq!(item.title, "Product mug");
    assert_eq!(item.categories, ["Kitchen"]);
    assert_eq!(item.tags, ["ceramic", "gift"]);
    assert_eq!(item.variants[0].price_minor, 1250);
    assert_eq!(item.variants[0].attributes["Size"], "M");
    assert_eq!(env.store.items(t, &store_id).await.unwrap().len(), 1);
    assert_eq!(
        env.store
            .collection_by_url(t, "store")
            .await
            .unwrap()
            .unwrap()
            .id,
        store_id
    );

    // Replacing an item replaces its variants, categories and tags.
    let mut changed = item.clone();
    changed.tags = vec!["sale".into()];
    changed.variants[0].price_minor = 999;
    env.store.put_item(t, &changed).await.unwrap();
    let again = env.store.item(t, &item_id).await.unwrap().unwrap();
    assert_eq!(again.tags, ["sale"]);
    assert_eq!(again.variants.len(), 1);
    assert_eq!(again.variants[0].price_minor, 999);

    env.store
        .put_navigation(t, "mainNav", &json!([{"collectionId": store_id}]))
        .await
        .unwrap();
    env.store
        .put_header_footer(
            t,
            &HeaderFooter {
                header: json!({"sections": []}),
                footer: json!({"text": "©"}),
            },
        )
        .await
        .unwrap();
    env.store
        .put_multilingual(t, &json!({"languages": ["en-US", "fr-FR"]}))
        .await
        .unwrap();
    let prefs = json!({"currency": "EUR", "empty": "", "gone": null})
        .as_object()
        .unwrap()
        .clone();
    env.store
        .put_commerce_preferences(t, "checkout", &prefs)
        .await
        .unwrap();
    assert_eq!(
        serde_json::Value::Object(env.store.commerce_preferences(t, "checkout").await.unwrap()),
        json!({"currency": "EUR"})
    );

    let site = env.store.site_content(t).await.unwrap();
    assert_eq!(site.collections.len(), 1);
    assert_eq!(site.items.len(), 1);
    assert_eq!(
        site.navigations["mainNav"],
        json!([{"collectionId": store_id}])
    );
    assert_eq!(site.header_footer.footer, json!({"text": "©"}));
    assert_eq!(site.multilingual["languages"][1], "fr-FR");
    assert_eq!(site.settings.website["timeZone"], "Europe/Paris");
    assert_eq!(site.domains[0].host, "shop.example");

    env.store.delete_item(t, &item_id).await.unwrap();
    assert!(env.store.item(t, &item_id).await.unwrap().is_none());
    assert!(matches!(
        env.store.delete_item(t, &item_id).await,
        Err(StoreError::NotFound(_))
    ));
}

/// The site-content cache serves the same snapshot until a write bumps the version.
async fn content_cache_is_invalidated_by_writes(env: Env) {
    let (t, store_id, _) = store_with_content(&env).await;
    let first = env.store.site_content(t).await.unwrap();
    let second = env.store.site_content(t).await.unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&first, &second),
        "second read should come from the cache"
    );
    env.store
        .put_item(t, &product(&store_id, "cup", "CUP", 1))
        .await
        .unwrap();
    let third = env.store.site_content(t).await.unwrap();
    assert!(third.tenant.content_version > first.tenant.content_version);
    assert_eq!(third.items.len(), 2);
}

async fn bad_content_is_refused(env: Env) {
    let (t, store_id, _) = store_with_content(&env).await;
    let err = env
        .store
        .put_collection(t, &collection("store", "blog", 1))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let err = env
        .store
        .put_item(t, &product("no-such-collection", "x", "X", 1))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    let err = env
        .store
        .put_item(t, &product(&store_id, "bad slug", "X", 1))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    let err = env
        .store
        .put_item(t, &product(&store_id, "neg", "X", -1))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    // The failed writes left nothing behind.
    assert!(
        env.store
            .collection_by_url(t, "neg")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(env.store.items(t, &store_id).await.unwrap().len(), 1);
}

/// `put_pages` writes a change of the site's pages at once: collections, navigations and
/// one deletion (with its items) in one transaction; a deletion of a collection the tenant
/// does not have writes nothing, as does a URL another collection has.
async fn pages_change_in_one_write(env: Env) {
    let (t, store_id, item_id) = store_with_content(&env).await;
    let other = env.tenant("other").await;
    let about = env
        .store
        .put_collection(t, &collection("about", "page", 10))
        .await
        .unwrap();
    let nav = json!([{"collectionId": about}, {"collectionId": store_id}]);
    env.store.put_navigation(t, "mainNav", &nav).await.unwrap();

    // A new page added to the navigation, and the store deleted with its products.
    let mut news = collection("news", "page", 10);
    news.id = tenants::new_id();
    let change = tenants::PagesChange {
        collections: vec![news.clone()],
        navigations: vec![(
            "mainNav".into(),
            json!([{"collectionId": about}, {"collectionId": news.id}]),
        )],
        delete: Some(store_id.clone()),
        ..Default::default()
    };
    let ids = env.store.put_pages(t, &change).await.unwrap();
    assert_eq!(ids, [news.id.clone()]);
    let site = env.store.load_site_content(t).await.unwrap();
    assert!(site.collection(&store_id).is_none());
    assert!(
        env.store.item(t, &item_id).await.unwrap().is_none(),
        "its items go with it"
    );
    assert_eq!(
        site.navigations["mainNav"],
        json!([{"collectionId": about}, {"collectionId": news.id}])
    );

    // Deleting another tenant's collection (or one that is gone) writes nothing at all.
    let mut late = collection("late", "page", 10);
    late.id = tenants::new_id();
    let refused = tenants::PagesChange {
        collections: vec![late.clone()],
        navigations: vec![("mainNav".into(), json!([]))],
        delete: Some(about.clone()),
        ..Default::default()
    };
    assert!(matches!(
        env.store.put_pages(other, &refused).await,
        Err(StoreError::NotFound(_))
    ));
    let mut gone = refused.clone();
    gone.delete = Some(store_id.clone());
    assert!(matches!(
        env.store.put_pages(t, &gone).await,
        Err(StoreError::NotFound(_))
    ));
    let site = env.store.load_site_content(t).await.unwrap();
    assert!(site.collection(&late.id).is_none() && site.collection(&about).is_some());
    assert_eq!(site.navigations["mainNav"].as_array().unwrap().len(), 2);

    // A URL another page has: refused, and the navigation written with it is not kept.
    let mut twin = collection("about", "page", 10);
    twin.id = tenants::new_id();
    let clash = tenants::PagesChange {
        collections: vec![twin],
        navigations: vec![("mainNav".into(), json!([]))],
        ..Default::default()
    };
    assert!(env.store.put_pages(t, &clash).await.is_err());
    let site = env.store.load_site_content(t).await.unwrap();
    assert_eq!(site.navigations["mainNav"].as_array().unwrap().len(), 2);
}

/// A design save: the tweak values and the recompiled folder in one step, refused (nothing
/// stored) when another template version became the site's meanwhile; settings changed
/// under the lock keep the keys they do not touch.
async fn design_saves_values_and_stylesheet_together(env: Env) {
    use tenants::TemplateFile;
    let t = env.tenant("design").await;
    let file = |css: &str| TemplateFile {
        path: ".compiled/site.css".into(),
        content: css.as_bytes().to_vec(),
    };
    let v1 = env
        .store
        .put_template_version(t, &[file("a {}")])
        .await
        .unwrap();
    env.store
        .set_website_setting(t, "contactEmail", json!("a@b.example"))
        .await
        .unwrap();
    let v2 = env
        .store
        .put_design(t, json!({"tweak-x": "#fff"}), Some((v1, &[file("b {}")])))
        .await
        .unwrap()
        .expect("a new version");
    assert!(v2.0 > v1.0);
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v2)
    );
    let files = env.store.template_files(t, v2).await.unwrap();
    assert_eq!(files, [file("b {}")]);
    let s = env.store.site_settings(t).await.unwrap();
    assert_eq!(s.website_settings["tweaks"], json!({"tweak-x": "#fff"}));
    assert_eq!(s.website_settings["contactEmail"], "a@b.example");

    // Saved against v1, but v2 is the site's now: refused, nothing changes.
    let e = env
        .store
        .put_design(t, json!({"tweak-x": "#000"}), Some((v1, &[file("c {}")])))
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Invalid(_)), "{e:?}");
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v2)
    );
    let s = env.store.site_settings(t).await.unwrap();
    assert_eq!(s.website_settings["tweaks"], json!({"tweak-x": "#fff"}));

    // Values alone (no stylesheet change), then null: the key goes.
    assert_eq!(
        env.store.put_design(t, Value::Null, None).await.unwrap(),
        None
    );
    let s = env.store.site_settings(t).await.unwrap();
    assert!(!s.website_settings.contains_key("tweaks"));
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v2)
    );

    let s = env
        .store
        .update_site_settings(t, |s| {
            s.website.insert("siteTitle".into(), json!("Designed"));
        })
        .await
        .unwrap();
    assert_eq!(s.website["siteTitle"], "Designed");
    let s = env.store.site_settings(t).await.unwrap();
    assert_eq!(
        (&s.website["siteTitle"], &s.website_settings["contactEmail"]),
        (&json!("Designed"), &json!("a@b.example"))
    );
}

/// A collection's items are put in a new order in one write; an order that leaves one out,
/// names one twice or names another collection's item is refused and changes nothing.
async fn items_are_reordered_whole(env: Env) {
    let t = env.tenant("shop").await;
    let other = env.tenant("other").await;
    let gallery = env
        .store
        .put_collection(t, &collection("gallery", "gallery", 1))
        .await
        .unwrap();
    let mut ids = Vec::new();
    for (i, slug) in ["one", "two", "three"].into_iter().enumerate() {
        let mut item: Item = serde_json::from_value(
            json!({ "collectionId": gallery, "urlId": slug, "title": slug, "recordType": 2 }),
        )
        .unwrap();
        item.position = i as i64 + 1;
        ids.push(env.store.put_item(t, &item).await.unwrap());
    }
    let stored = |items: Vec<Item>| items.into_iter().map(|i| i.id).collect::<Vec<_>>();
    let new = vec![ids[2].clone(), ids[0].clone(), ids[1].clone()];
    env.store.reorder_items(t, &gallery, &new).await.unwrap();
    assert_eq!(stored(env.store.items(t, &gallery).await.unwrap()), new);
    let site = env.store.site_content(t).await.unwrap();
    let shown: Vec<&str> = site.items_of(&gallery).map(|i| i.id.as_str()).collect();
    assert_eq!(shown, new.iter().map(String::as_str).collect::<Vec<_>>());

    for bad in [
        vec![ids[0].clone(), ids[1].clone()],
        vec![ids[0].clone(), ids[0].clone(), ids[1].clone()],
        vec![
            ids[0].clone(),
            ids[1].clone(),
            ids[2].clone(),
            "nope".into(),
        ],
    ] {
        assert!(matches!(
            env.store.reorder_items(t, &gallery, &bad).await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert_eq!(stored(env.store.items(t, &gallery).await.unwrap()), new);
    // Another tenant has no such collection.
    assert!(matches!(
        env.store.reorder_items(other, &gallery, &new).await,
        Err(StoreError::NotFound(_))
    ));
}

crate::on_both_backends!(
    items_are_reordered_whole,
    content_round_trips,
    content_cache_is_invalidated_by_writes,
    bad_content_is_refused,
    pages_change_in_one_write,
    design_saves_values_and_stylesheet_together
);
