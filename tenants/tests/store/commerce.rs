use std::sync::Arc;

use serde_json::json;

use crate::common::Env;
use crate::content::{collection, product};
use tenants::{AddToCart, NewOrder, StoreError, TenantId};

async fn shop(env: &Env, stock: i64) -> (TenantId, String) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let item = env
        .store
        .put_item(t, &product(&c, "mug", "MUG-M", stock))
        .await
        .unwrap();
    (t, item)
}

fn add(item: &str, sku: &str, quantity: i64) -> AddToCart {
    AddToCart {
        item_id: item.into(),
        sku: sku.into(),
        quantity,
        additional_fields: None,
    }
}

async fn cart_add_update_remove_and_order(env: Env) {
    let (t, item) = shop(&env, 5).await;
    let cart = env.store.create_cart(t).await.unwrap();
    let added = env
        .store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 2))
        .await
        .unwrap();
    assert_eq!(added.newly_added.quantity, 2);
    assert_eq!(added.shopping_cart.subtotal_minor, 2500);
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 3);

    // Adding the same variant again grows the entry.
    let again = env
        .store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    assert_eq!(again.shopping_cart.entries.len(), 1);
    assert_eq!(again.shopping_cart.total_quantity, 3);
    let entry = again.newly_added.id.clone();

    // More than is left fails and changes nothing.
    let err = env
        .store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 3))
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::OutOfStock { ref sku, requested: 3 } if sku == "MUG-M"),
        "{err:?}"
    );
    assert_eq!(
        env.store
            .cart(t, &cart.id)
            .await
            .unwrap()
            .unwrap()
            .total_quantity,
        3
    );
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 2);

    for bad in [0, -1, 10_000] {
        assert!(matches!(
            env.store
                .add_to_cart(t, &cart.id, &add(&item, "MUG-M", bad))
                .await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert!(matches!(
        env.store
            .add_to_cart(t, &cart.id, &add(&item, "NOPE", 1))
            .await,
        Err(StoreError::NotFound(_))
    ));

    let cart_now = env
        .store
        .set_entry_quantity(t, &cart.id, &entry, 1)
        .await
        .unwrap();
    assert_eq!(cart_now.total_quantity, 1);
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 4);
    let (_, updated) = env
        .store
        .set_entry_fields(t, &cart.id, &entry, &json!({"engraving": "A"}))
        .await
        .unwrap();
    assert_eq!(updated.additional_fields, Some(json!({"engraving": "A"})));

    let order = env
        .store
        .place_order(
            t,
            &cart.id,
            &NewOrder {
                customer_email: "a@b.test".into(),
                tax_minor: 100,
                shipping_minor: 500,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(order.order_number, 1);
    assert_eq!(order.grand_total_minor, 1250 + 100 + 500);
    assert_eq!(order.lines[0].sku, "MUG-M");
    assert_eq!(env.store.order(t, &order.id).await.unwrap().unwrap(), order);
    assert!(
        env.store
            .cart(t, &cart.id)
            .await
            .unwrap()
            .unwrap()
            .purchased
    );
    // A purchased cart is closed.
    assert!(matches!(
        env.store
            .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
            .await,
        Err(StoreError::Invalid(_))
    ));

    // Removing an entry of another cart gives its units back.
    let c2 = env.store.create_cart(t).await.unwrap();
    let a2 = env
        .store
        .add_to_cart(t, &c2.id, &add(&item, "MUG-M", 4))
        .await
        .unwrap();
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 0);
    env.store
        .remove_entry(t, &c2.id, &a2.newly_added.id)
        .await
        .unwrap();
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 4);
    let second = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &second.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    let o2 = env
        .store
        .place_order(t, &second.id, &NewOrder::default())
        .await
        .unwrap();
    assert_eq!(o2.order_number, 2);
    assert_eq!(env.store.orders(t).await.unwrap().len(), 2);
}

/// 64 buyers race for the last unit: exactly one gets it.
async fn sixty_four_buyers_one_last_unit(env: Env) {
    let (t, item) = shop(&env, 1).await;
    let mut carts = Vec::new();
    for _ in 0..64 {
        carts.push(env.store.create_cart(t).await.unwrap().id);
    }
    let barrier = Arc::new(tokio::sync::Barrier::new(64));
    let mut tasks = Vec::new();
    for cart in carts.clone() {
        let store = env.store.clone();
        let item = item.clone();
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store.add_to_cart(t, &cart, &add(&item, "MUG-M", 1)).await
        }));
    }
    let mut ok = 0;
    let mut out_of_stock = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::OutOfStock { .. }) => out_of_stock += 1,
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!((ok, out_of_stock), (1, 63));
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 0);
    let mut units_in_carts = 0;
    for cart in &carts {
        units_in_carts += env
            .store
            .cart(t, cart)
            .await
            .unwrap()
            .unwrap()
            .total_quantity;
    }
    assert_eq!(units_in_carts, 1);
}

async fn unlimited_variants_never_run_out(env: Env) {
    let (t, item) = shop(&env, 0).await;
    env.store
        .set_stock(t, &item, "MUG-M", 0, true)
        .await
        .unwrap();
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 50))
        .await
        .unwrap();
    let s = &env.store.stock(t, &item).await.unwrap()[0];
    assert!(s.unlimited);
    assert_eq!(s.qty_in_stock, 0);
}

/// Concurrent checkouts get distinct, gap-free order numbers.
async fn concurrent_orders_are_numbered_uniquely(env: Env) {
    let (t, item) = shop(&env, 100).await;
    let mut tasks = Vec::new();
    for _ in 0..12 {
        let store = env.store.clone();
        let item = item.clone();
        tasks.push(tokio::spawn(async move {
            let cart = store.create_cart(t).await.unwrap();
            store
                .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
                .await
                .unwrap();
            store
                .place_order(t, &cart.id, &NewOrder::default())
                .await
                .unwrap()
                .order_number
        }));
    }
    let mut numbers = Vec::new();
    for task in tasks {
        numbers.push(task.await.unwrap());
    }
    numbers.sort();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>());
}

/// Abandoned carts give their units back; purchased and recent carts are kept.
async fn abandoned_carts_release_their_stock(env: Env) {
    let (t, item) = shop(&env, 5).await;
    let old = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &old.id, &add(&item, "MUG-M", 2))
        .await
        .unwrap();
    let bought = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &bought.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    env.store
        .place_order(t, &bought.id, &NewOrder::default())
        .await
        .unwrap();
    let old_updated = env
        .store
        .cart(t, &old.id)
        .await
        .unwrap()
        .unwrap()
        .updated_ms;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let fresh = env.store.create_cart(t).await.unwrap();
    let fresh_updated = env
        .store
        .add_to_cart(t, &fresh.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap()
        .shopping_cart
        .updated_ms;
    assert!(old_updated < fresh.created_ms && fresh.created_ms <= fresh_updated);
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 1);

    // Cut-off between the two: only the old, unpurchased cart qualifies.
    let cutoff = fresh.created_ms;
    assert_eq!(
        env.store.release_abandoned_carts(t, cutoff).await.unwrap(),
        1
    );
    assert_eq!(env.store.stock(t, &item).await.unwrap()[0].qty_in_stock, 3);
    assert!(env.store.cart(t, &old.id).await.unwrap().is_none());
    assert!(
        env.store
            .cart(t, &bought.id)
            .await
            .unwrap()
            .unwrap()
            .purchased
    );
    assert_eq!(
        env.store
            .cart(t, &fresh.id)
            .await
            .unwrap()
            .unwrap()
            .total_quantity,
        1
    );
    assert_eq!(
        env.store.release_abandoned_carts(t, cutoff).await.unwrap(),
        0
    );
}

crate::on_both_backends!(
    two_handles_write_at_once,
    abandoned_carts_release_their_stock,
    cart_add_update_remove_and_order,
    sixty_four_buyers_one_last_unit,
    unlimited_variants_never_run_out,
    concurrent_orders_are_numbered_uniquely
);

/// Two store handles on one database (two nodes; on the embedded file, e.g. `tessera
/// import` next to a running server) write at the same time without "database is locked"
/// errors and without overselling.
async fn two_handles_write_at_once(env: Env) {
    let (t, item) = shop(&env, 40).await;
    let other = env.another_node().await;
    let mut tasks = Vec::new();
    for i in 0..48 {
        let store = if i % 2 == 0 {
            env.store.clone()
        } else {
            other.clone()
        };
        let item = item.clone();
        tasks.push(tokio::spawn(async move {
            let cart = store.create_cart(t).await?;
            store
                .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
                .await
        }));
    }
    let mut ok = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::OutOfStock { .. }) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!(ok, 40);
    assert_eq!(other.stock(t, &item).await.unwrap()[0].qty_in_stock, 0);
}
