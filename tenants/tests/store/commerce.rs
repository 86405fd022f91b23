//! Carts, stock holds, checkout, gift cards, subscriptions and downloads, on both backends.

use std::sync::Arc;

use serde_json::json;

use crate::common::{Env, buy, card, checkout_with};
use crate::content::{collection, product};
use tenants::commerce::pricing::CouponProblem;
use tenants::commerce::{CommerceSettings, Refusal};
use tenants::{
    AddToCart, Address, Checkout, CheckoutTerms, DigitalFile, Item, OrderStatus, PaymentMethod,
    Store, StoreError, TenantId, Variant,
};

async fn shop(env: &Env, stock: i64) -> (TenantId, String) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    // The mug asks for an engraving: its lines take additional-fields answers.
    let mut mug = product(&c, "mug", "MUG-M", stock);
    mug.structured_content
        .insert("additionalFieldsFormId".into(), json!("engraving"));
    let item = env.store.put_item(t, &mug).await.unwrap();
    (t, item)
}

fn variant(sku: &str, attrs: &[(&str, &str)], price: i64, stock: Option<i64>) -> Variant {
    Variant {
        sku: sku.into(),
        attributes: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        currency: "USD".into(),
        price_minor: price,
        sale_price_minor: 0,
        on_sale: false,
        qty_in_stock: stock.unwrap_or(0),
        unlimited: stock.is_none(),
        weight_grams: 0,
    }
}

/// A product of any kind in the tenant's first collection.
async fn put_product(
    store: &Store,
    t: TenantId,
    url: &str,
    product_type: i64,
    variants: Vec<Variant>,
    structured: serde_json::Value,
) -> String {
    let c = match store.collection_by_url(t, "store").await.unwrap() {
        Some(c) => c.id,
        None => store
            .put_collection(t, &collection("store", "products", 13))
            .await
            .unwrap(),
    };
    let item = Item {
        collection_id: c,
        product_type: Some(product_type),
        variants,
        structured_content: structured.as_object().unwrap().clone(),
        ..serde_json::from_value(json!({"urlId": url, "title": url, "recordType": 11})).unwrap()
    };
    store.put_item(t, &item).await.unwrap()
}

fn add(item: &str, sku: &str, quantity: i64) -> AddToCart {
    AddToCart {
        item_id: item.into(),
        sku: sku.into(),
        quantity,
        ..Default::default()
    }
}

fn refused(r: tenants::Result<impl std::fmt::Debug>) -> Refusal {
    match r {
        Err(StoreError::Refused(r)) => r,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

async fn qty(env: &Env, t: TenantId, item: &str) -> i64 {
    env.store.stock(t, item).await.unwrap()[0].qty_in_stock
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
    assert_eq!(added.newly_added.attributes["Size"], "M");
    assert!(added.newly_added.held);
    assert_eq!(added.shopping_cart.subtotal_minor, 2500);
    assert_eq!(qty(&env, t, &item).await, 3);

    // Adding the same variant again grows the entry; every change bumps the revision.
    let again = env
        .store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    assert_eq!(again.shopping_cart.entries.len(), 1);
    assert_eq!(again.shopping_cart.total_quantity, 3);
    assert!(again.shopping_cart.revision > added.shopping_cart.revision);
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
    let now = env.store.cart(t, &cart.id).await.unwrap().unwrap();
    assert_eq!(now.total_quantity, 3);
    assert_eq!(now.revision, again.shopping_cart.revision);
    assert_eq!(qty(&env, t, &item).await, 2);

    for bad in [0, -1, 10_000] {
        assert_eq!(
            refused(
                env.store
                    .add_to_cart(t, &cart.id, &add(&item, "MUG-M", bad))
                    .await
            ),
            Refusal::QuantityOutOfRange
        );
    }
    assert_eq!(
        refused(
            env.store
                .add_to_cart(t, &cart.id, &add(&item, "NOPE", 1))
                .await
        ),
        Refusal::VariantUnavailable
    );
    assert!(matches!(
        env.store
            .add_to_cart(t, &cart.id, &add("no-such-item", "MUG-M", 1))
            .await,
        Err(StoreError::NotFound(_))
    ));
    // One variant: no sku needed.
    env.store
        .add_to_cart(t, &cart.id, &add(&item, "", 1))
        .await
        .unwrap();

    let (cart_now, updated) = env
        .store
        .set_entry_quantity(t, &cart.id, &entry, 1, false)
        .await
        .unwrap();
    assert_eq!(cart_now.total_quantity, 1);
    assert_eq!(updated.quantity, 1);
    assert_eq!(qty(&env, t, &item).await, 4);
    let (_, updated) = env
        .store
        .set_entry_fields(t, &cart.id, &entry, &json!({"engraving": "A"}))
        .await
        .unwrap();
    assert_eq!(updated.additional_fields, Some(json!({"engraving": "A"})));

    let order = buy(&env.store, t, &cart.id, "a@b.test").await.unwrap();
    assert_eq!(order.order_number, 1);
    assert_eq!(order.grand_total_minor, 1250);
    assert_eq!(order.status, OrderStatus::Paid);
    assert!(order.test_mode);
    assert_eq!(order.lines[0].sku, "MUG-M");
    assert_eq!(
        order.lines[0].additional_fields,
        Some(json!({"engraving": "A"}))
    );
    assert_eq!(env.store.order(t, &order.id).await.unwrap().unwrap(), order);
    assert!(
        env.store
            .cart(t, &cart.id)
            .await
            .unwrap()
            .unwrap()
            .purchased
    );
    // Sold units stay sold.
    assert_eq!(qty(&env, t, &item).await, 4);
    // A purchased cart is closed, and never checks out twice.
    assert_eq!(
        refused(
            env.store
                .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
                .await
        ),
        Refusal::CartPurchased
    );
    assert_eq!(
        refused(buy(&env.store, t, &cart.id, "a@b.test").await),
        Refusal::CartPurchased
    );
    assert_eq!(env.store.orders(t).await.unwrap().len(), 1);

    // Removing an entry gives its units back.
    let c2 = env.store.create_cart(t).await.unwrap();
    let a2 = env
        .store
        .add_to_cart(t, &c2.id, &add(&item, "MUG-M", 4))
        .await
        .unwrap();
    assert_eq!(qty(&env, t, &item).await, 0);
    env.store
        .remove_entry(t, &c2.id, &a2.newly_added.id)
        .await
        .unwrap();
    assert_eq!(qty(&env, t, &item).await, 4);
    // An empty cart does not check out.
    assert_eq!(
        refused(buy(&env.store, t, &c2.id, "a@b.test").await),
        Refusal::EmptyCart
    );
}

/// 64 buyers race for the last unit: exactly one gets it into a cart, and one order.
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
            store.add_to_cart(t, &cart, &add(&item, "MUG-M", 1)).await?;
            buy(&store, t, &cart, "race@b.test").await
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
    assert_eq!(qty(&env, t, &item).await, 0);
    assert_eq!(env.store.orders(t).await.unwrap().len(), 1);
}

/// 64 carts hold the last unit after their holds lapsed (the owner restocked one unit):
/// 64 checkouts at once give exactly one order, and stock ends at zero.
async fn sixty_four_checkouts_of_the_last_unit(env: Env) {
    let (t, item) = shop(&env, 64).await;
    let mut carts = Vec::new();
    for _ in 0..64 {
        let cart = env.store.create_cart(t).await.unwrap().id;
        env.store
            .add_to_cart(t, &cart, &add(&item, "MUG-M", 1))
            .await
            .unwrap();
        carts.push(cart);
    }
    assert_eq!(qty(&env, t, &item).await, 0);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let released = env
        .store
        .release_abandoned_carts(t, tenants::now_ms())
        .await
        .unwrap();
    assert_eq!(released, 64);
    assert_eq!(qty(&env, t, &item).await, 64);
    env.store
        .set_stock(t, &item, "MUG-M", 1, false)
        .await
        .unwrap();
    let barrier = Arc::new(tokio::sync::Barrier::new(64));
    let mut tasks = Vec::new();
    for cart in carts {
        let store = env.store.clone();
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            buy(&store, t, &cart, "late@b.test").await
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
    assert_eq!(ok, 1);
    assert_eq!(qty(&env, t, &item).await, 0);
    assert_eq!(env.store.orders(t).await.unwrap().len(), 1);
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
            buy(&store, t, &cart.id, "n@b.test")
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

/// A visitor's first add writes the cart and its entry together with the commit, and a
/// later add to that cart grows the entry: what is answered is what is stored, the units
/// are taken, and an add that fails leaves the cart as it was.
async fn first_and_later_adds_are_stored(env: Env) {
    let (t, item) = shop(&env, 3).await;
    let first = env
        .store
        .add_to_cart_or_new(t, None, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    let stored = env
        .store
        .cart(t, &first.shopping_cart.id)
        .await
        .unwrap()
        .expect("the new cart is stored");
    assert_eq!(stored.entries, first.shopping_cart.entries);
    assert!(stored.entries[0].held);
    assert_eq!(qty(&env, t, &item).await, 2);

    let again = env
        .store
        .add_to_cart_or_new(t, Some(&first.shopping_cart.id), &add(&item, "MUG-M", 2))
        .await
        .unwrap();
    assert_eq!(again.shopping_cart.id, first.shopping_cart.id);
    assert_eq!(again.newly_added.quantity, 3);
    let stored = env
        .store
        .cart(t, &first.shopping_cart.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.entries, again.shopping_cart.entries);
    assert_eq!(stored.total_quantity, 3);
    assert_eq!(qty(&env, t, &item).await, 0);

    // None left: refused, and the cart keeps its one entry of three.
    assert!(matches!(
        env.store
            .add_to_cart_or_new(t, Some(&first.shopping_cart.id), &add(&item, "MUG-M", 1))
            .await,
        Err(StoreError::OutOfStock { .. })
    ));
    let stored = env
        .store
        .cart(t, &first.shopping_cart.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.total_quantity, 3);
    assert!(matches!(
        env.store
            .add_to_cart_or_new(t, None, &add(&item, "MUG-M", 1))
            .await,
        Err(StoreError::OutOfStock { .. })
    ));
    // Its units bought: the cart is checked out once.
    let order = buy(&env.store, t, &first.shopping_cart.id, "a@b.test")
        .await
        .unwrap();
    assert_eq!(order.order_number, 1);
}

/// Sixteen visitors' first adds race for five units: five get a new cart holding one, the
/// others are refused with no cart left behind (a first add takes the stock and writes the
/// cart in one step on PostgreSQL, only if the units are there); an add of more than is
/// left takes nothing, and a first add of an unlimited variant (with its additional fields)
/// is stored as answered without touching the stock.
async fn first_adds_take_what_is_left(env: Env) {
    let (t, item) = shop(&env, 5).await;
    let barrier = Arc::new(tokio::sync::Barrier::new(16));
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let store = env.store.clone();
        let item = item.clone();
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store.add_to_new_cart(t, &add(&item, "MUG-M", 1)).await
        }));
    }
    let mut carts = Vec::new();
    let mut out_of_stock = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(added) => carts.push(added),
            Err(StoreError::OutOfStock { sku, requested }) => {
                assert_eq!((sku.as_str(), requested), ("MUG-M", 1));
                out_of_stock += 1;
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!((carts.len(), out_of_stock), (5, 11));
    assert_eq!(qty(&env, t, &item).await, 0);
    for added in &carts {
        let stored = env
            .store
            .cart(t, &added.shopping_cart.id)
            .await
            .unwrap()
            .expect("the new cart is stored");
        assert_eq!(stored.entries, added.shopping_cart.entries);
        assert_eq!(stored.created_ms, added.shopping_cart.created_ms);
        assert!(stored.holds_stock && stored.entries[0].held);
    }
    // Exactly the five carts hold stock: the refused adds wrote none.
    assert_eq!(
        env.store
            .release_abandoned_carts(t, i64::MAX)
            .await
            .unwrap(),
        5
    );
    assert_eq!(qty(&env, t, &item).await, 5);

    assert!(matches!(
        env.store.add_to_new_cart(t, &add(&item, "MUG-M", 6)).await,
        Err(StoreError::OutOfStock { requested: 6, .. })
    ));
    assert_eq!(qty(&env, t, &item).await, 5);
    assert!(
        env.store
            .tenants_with_abandoned_carts(i64::MAX)
            .await
            .unwrap()
            .is_empty(),
        "a refused first add leaves no cart"
    );
    let last = env
        .store
        .add_to_new_cart(t, &add(&item, "MUG-M", 5))
        .await
        .unwrap();
    assert_eq!(last.shopping_cart.total_quantity, 5);
    assert_eq!(qty(&env, t, &item).await, 0);

    env.store
        .set_stock(t, &item, "MUG-M", 0, true)
        .await
        .unwrap();
    let engraved = AddToCart {
        additional_fields: Some(json!({"engraving": "Ada"})),
        ..add(&item, "MUG-M", 50)
    };
    let added = env.store.add_to_new_cart(t, &engraved).await.unwrap();
    let stored = env
        .store
        .cart(t, &added.shopping_cart.id)
        .await
        .unwrap()
        .expect("the new cart is stored");
    assert_eq!(stored.entries, added.shopping_cart.entries);
    assert_eq!(
        stored.entries[0].additional_fields,
        Some(json!({"engraving": "Ada"}))
    );
    assert_eq!(stored.total_quantity, 50);
    let s = &env.store.stock(t, &item).await.unwrap()[0];
    assert!(s.unlimited);
    assert_eq!(s.qty_in_stock, 0);
}

/// Places an order for a new cart of one mug with the order's two emails (the buyer's
/// confirmation and the owner's notice, each naming the order's number) in its transaction.
async fn buy_with_mail(
    store: &Store,
    t: TenantId,
    item: &str,
    email: &str,
    charge: impl FnOnce(i64) -> i64,
) -> tenants::Result<tenants::Order> {
    order_one_mug(store, t, item, email, charge, Placing::WithMail).await
}

/// An order's two emails (the buyer's confirmation and the owner's notice), each naming its
/// number and id.
fn order_mail(o: &tenants::Order) -> Vec<tenants::Email> {
    ["owner@shop.test", o.customer_email.as_str()]
        .iter()
        .map(|to| tenants::Email {
            kind: "order-confirmation".into(),
            from: "shop@shop.test".into(),
            to: (*to).into(),
            reply_to: None,
            subject: format!("Order #{}", o.order_number),
            text: format!("Order #{} ({})", o.order_number, o.id),
            html: None,
        })
        .collect()
}

/// Places an order for a new cart of one mug and stops there: committed under a
/// provisional number, its numbering skipped (as a node that stopped right after the
/// order's commit leaves it).
async fn place_waiting(store: &Store, t: TenantId, item: &str, email: &str) -> tenants::Order {
    order_one_mug(store, t, item, email, |c| c, Placing::Waiting)
        .await
        .unwrap()
}

/// How [`order_one_mug`] places its order.
enum Placing {
    /// Placed and numbered, with [`order_mail`]'s emails.
    WithMail,
    /// Placed under a provisional number only, as from `shop.test:8080`.
    Waiting,
}

/// A new cart of one mug, quoted for a US address and placed `how`, charging what
/// `charge` makes of the quoted charge.
async fn order_one_mug(
    store: &Store,
    t: TenantId,
    item: &str,
    email: &str,
    charge: impl FnOnce(i64) -> i64,
    how: Placing,
) -> tenants::Result<tenants::Order> {
    let settings = CommerceSettings::plain("USD");
    let cart = store.create_cart(t).await.unwrap();
    store
        .add_to_cart(t, &cart.id, &add(item, "MUG-M", 1))
        .await
        .unwrap();
    let terms = CheckoutTerms {
        shipping_address: Some(address("US", None)),
        now_ms: tenants::now_ms(),
        ..Default::default()
    };
    let quote = store.quote_checkout(t, &cart.id, &settings, &terms).await?;
    let checkout = Checkout {
        settings: &settings,
        terms,
        customer_email: email.into(),
        expected_total_minor: None,
        charge_minor: charge(quote.charge_minor),
        payment: card(),
        test_mode: true,
        time_zone: "UTC",
    };
    match how {
        Placing::WithMail => {
            store
                .place_order_with_mail(t, &cart.id, &checkout, order_mail)
                .await
        }
        Placing::Waiting => {
            let from = tenants::PlacedFrom {
                host: "shop.test:8080".into(),
                origin: "http://shop.test:8080".into(),
            };
            store
                .place_order_provisional(t, &cart.id, &checkout, Some(from))
                .await
        }
    }
}

/// Orders placed and not yet numbered are hidden from every reader of orders and listed
/// for the sweep; two groups numbering overlapping orders at once (two nodes, or a sweep
/// beside a node's checkouts) number each order exactly once, gap-free, in the order each
/// group was handed them, with its two emails naming its number; numbering them again
/// changes nothing.
async fn orders_are_numbered_in_groups_once(env: Env) {
    let (t, item) = shop(&env, 100).await;
    let mut tasks = Vec::new();
    for i in 0..12 {
        let store = env.store.clone();
        let item = item.clone();
        tasks.push(tokio::spawn(async move {
            place_waiting(&store, t, &item, &format!("w{i}@b.test")).await
        }));
    }
    let mut placed = Vec::new();
    for task in tasks {
        placed.push(task.await.unwrap());
    }
    assert!(placed.iter().all(|o| o.order_number < 0));
    assert!(placed.iter().all(|o| o.details.placed_from.is_some()));
    // Waiting: stored, but shown nowhere yet.
    assert!(env.store.orders(t).await.unwrap().is_empty());
    assert!(env.store.order(t, &placed[0].id).await.unwrap().is_none());
    let listed = env
        .store
        .order_page(
            t,
            &tenants::OrderQuery {
                limit: 50,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(listed.orders.is_empty(), "{listed:?}");
    assert!(env.store.outbox(t).await.unwrap().is_empty());
    assert_eq!(
        env.store
            .tenants_with_provisional_orders(i64::MAX)
            .await
            .unwrap(),
        [t]
    );
    let waiting = env.store.provisional_orders(t, i64::MAX).await.unwrap();
    assert_eq!(waiting.len(), 12);
    assert!(
        waiting
            .iter()
            .all(|o| o.details.placed_from.as_ref().unwrap().origin == "http://shop.test:8080")
    );
    // Placed before the cut-off only.
    let first_ms = placed.iter().map(|o| o.created_ms).min().unwrap();
    assert!(
        env.store
            .provisional_orders(t, first_ms)
            .await
            .unwrap()
            .is_empty()
    );

    // Two groups at once, from two store handles, sharing orders 4..8.
    let other = env.another_node().await;
    let group = |store: Store, orders: Vec<tenants::Order>| {
        tokio::spawn(async move {
            let handed: Vec<_> = orders.into_iter().map(|o| (o, order_mail)).collect();
            store.number_orders(t, handed).await.unwrap()
        })
    };
    let a = group(env.store.clone(), placed[0..8].to_vec());
    let b = group(other.clone(), placed[4..12].to_vec());
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    assert_eq!(a.len(), 8);
    assert_eq!(b.len(), 8);
    for (got, handed) in a
        .iter()
        .zip(&placed[0..8])
        .chain(b.iter().zip(&placed[4..12]))
    {
        assert_eq!(got.order.id, handed.id, "answered in the order handed in");
        assert!(got.order.order_number > 0);
        assert!(got.order.details.placed_from.is_none());
    }
    for o in &placed {
        let here: Vec<_> = a.iter().chain(&b).filter(|n| n.order.id == o.id).collect();
        assert_eq!(
            here.iter().filter(|n| n.numbered_here).count(),
            1,
            "numbered exactly once"
        );
        let numbers: Vec<i64> = here.iter().map(|n| n.order.order_number).collect();
        assert!(numbers.windows(2).all(|w| w[0] == w[1]), "{numbers:?}");
    }
    for g in [&a, &b] {
        let mine: Vec<i64> = g
            .iter()
            .filter(|n| n.numbered_here)
            .map(|n| n.order.order_number)
            .collect();
        assert!(
            mine.windows(2).all(|w| w[0] < w[1]),
            "in the order handed in: {mine:?}"
        );
    }
    let mut numbers: Vec<i64> = env
        .store
        .orders(t)
        .await
        .unwrap()
        .iter()
        .map(|o| o.order_number)
        .collect();
    numbers.sort();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>());
    let outbox = env.store.outbox(t).await.unwrap();
    assert_eq!(outbox.len(), 24);
    for n in a.iter().chain(&b) {
        let stored = env.store.order(t, &n.order.id).await.unwrap().unwrap();
        assert_eq!(stored.order_number, n.order.order_number);
        assert!(stored.details.placed_from.is_none());
        let to = outbox
            .iter()
            .filter(|m| m.email.text == format!("Order #{} ({})", stored.order_number, stored.id))
            .count();
        assert_eq!(to, 2, "its two emails name its number");
    }
    assert!(
        env.store
            .provisional_orders(t, i64::MAX)
            .await
            .unwrap()
            .is_empty()
    );

    // A second sweep of the same orders: nothing changes, no email is written again.
    let again = group(other.clone(), placed.clone()).await.unwrap();
    assert!(again.iter().all(|n| !n.numbered_here));
    assert_eq!(env.store.outbox(t).await.unwrap().len(), 24);
    let next = buy_with_mail(&env.store, t, &item, "next@b.test", |c| c)
        .await
        .unwrap();
    assert_eq!(next.order_number, 13);

    // One order handed in twice in one group (left in a queue by a checkout that went
    // away, then handed in again by a sweep): one number, one pair of emails, no gap.
    let twice = place_waiting(&env.store, t, &item, "twice@b.test").await;
    let got = group(other, vec![twice.clone(), twice.clone()])
        .await
        .unwrap();
    assert_eq!(
        got.iter()
            .map(|n| (n.order.order_number, n.numbered_here))
            .collect::<Vec<_>>(),
        [(14, true), (14, false)]
    );
    assert_eq!(env.store.outbox(t).await.unwrap().len(), 28);
    let last = buy_with_mail(&env.store, t, &item, "last@b.test", |c| c)
        .await
        .unwrap();
    assert_eq!(last.order_number, 15);
}

/// Concurrent checkouts with their emails: gap-free numbers, every order's two emails in
/// the outbox naming its own number; a refused checkout writes no email and takes no number.
async fn orders_commit_with_their_emails(env: Env) {
    let (t, item) = shop(&env, 100).await;
    let mut tasks = Vec::new();
    for i in 0..10 {
        let store = env.store.clone();
        let item = item.clone();
        tasks.push(tokio::spawn(async move {
            buy_with_mail(&store, t, &item, &format!("b{i}@b.test"), |c| c)
                .await
                .unwrap()
        }));
    }
    let mut orders = Vec::new();
    for task in tasks {
        orders.push(task.await.unwrap());
    }
    let mut numbers: Vec<i64> = orders.iter().map(|o| o.order_number).collect();
    numbers.sort();
    assert_eq!(numbers, (1..=10).collect::<Vec<_>>());
    let outbox = env.store.outbox(t).await.unwrap();
    assert_eq!(outbox.len(), 20);
    for o in &orders {
        let stored = env.store.order(t, &o.id).await.unwrap().unwrap();
        assert_eq!(stored.order_number, o.order_number);
        let mut to: Vec<&str> = outbox
            .iter()
            .filter(|m| m.email.text == format!("Order #{} ({})", o.order_number, o.id))
            .map(|m| m.email.to.as_str())
            .collect();
        let mut want = ["owner@shop.test", o.customer_email.as_str()];
        to.sort();
        want.sort();
        assert_eq!(to, want);
    }

    let wrong = buy_with_mail(&env.store, t, &item, "late@b.test", |c| c + 1).await;
    assert_eq!(refused(wrong), Refusal::ChargeChanged);
    assert_eq!(env.store.outbox(t).await.unwrap().len(), 20);
    let next = buy_with_mail(&env.store, t, &item, "next@b.test", |c| c)
        .await
        .unwrap();
    assert_eq!(next.order_number, 11, "the refused checkout took no number");
    assert_eq!(env.store.outbox(t).await.unwrap().len(), 22);
}

/// Abandoned carts give their units back but keep their entries; a later change or
/// checkout takes the units again, and fails cleanly when they are gone.
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
    buy(&env.store, t, &bought.id, "b@b.test").await.unwrap();
    let old_updated = env
        .store
        .cart(t, &old.id)
        .await
        .unwrap()
        .unwrap()
        .updated_ms;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let fresh = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &fresh.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    assert!(old_updated < fresh.created_ms);
    assert_eq!(qty(&env, t, &item).await, 1);
    assert_eq!(
        env.store
            .tenants_with_abandoned_carts(fresh.created_ms)
            .await
            .unwrap(),
        [t]
    );

    // Cut-off between the two: only the old, unpurchased cart lets go.
    let cutoff = fresh.created_ms;
    assert_eq!(
        env.store.release_abandoned_carts(t, cutoff).await.unwrap(),
        1
    );
    assert_eq!(qty(&env, t, &item).await, 3);
    let kept = env.store.cart(t, &old.id).await.unwrap().unwrap();
    assert_eq!(kept.total_quantity, 2, "the cart keeps its entries");
    assert!(!kept.entries[0].held);
    assert!(
        env.store
            .cart(t, &bought.id)
            .await
            .unwrap()
            .unwrap()
            .purchased
    );
    assert!(env.store.cart(t, &fresh.id).await.unwrap().unwrap().entries[0].held);
    assert_eq!(
        env.store.release_abandoned_carts(t, cutoff).await.unwrap(),
        0
    );
    assert!(
        env.store
            .tenants_with_abandoned_carts(cutoff)
            .await
            .unwrap()
            .is_empty()
    );

    // The visitor comes back and adds one more: the entry takes all three units again.
    let back = env
        .store
        .add_to_cart(t, &old.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    assert_eq!(back.newly_added.quantity, 3);
    assert!(back.newly_added.held);
    assert_eq!(qty(&env, t, &item).await, 0);

    // Lapsed again, and the units sold meanwhile: checkout refuses, nothing is taken.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    env.store
        .release_abandoned_carts(t, tenants::now_ms())
        .await
        .unwrap();
    assert_eq!(qty(&env, t, &item).await, 4);
    env.store
        .set_stock(t, &item, "MUG-M", 2, false)
        .await
        .unwrap();
    assert!(matches!(
        buy(&env.store, t, &old.id, "b@b.test").await,
        Err(StoreError::OutOfStock { requested: 3, .. })
    ));
    assert_eq!(qty(&env, t, &item).await, 2);
    assert!(!env.store.cart(t, &old.id).await.unwrap().unwrap().purchased);
}

fn settings(v: serde_json::Value) -> CommerceSettings {
    let site = json!({"storeSettings": {"selectedCurrency": "USD"}});
    CommerceSettings::from_site(
        site.as_object().unwrap(),
        &serde_json::from_value(v).unwrap(),
    )
    .unwrap()
}

fn address(country: &str, region: Option<&str>) -> Address {
    Address {
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
        line1: "1 Main St".into(),
        city: "Town".into(),
        postal_code: "12345".into(),
        country: country.into(),
        region: region.map(str::to_owned),
        ..Default::default()
    }
}

/// Tax, shipping, coupons and the minimum subtotal go through to the order.
async fn checkout_prices_the_order(env: Env) {
    let (t, item) = shop(&env, 50).await;
    let s = settings(json!({
        "checkout": {"minimumSubtotal": "20.00"},
        "taxes": {"rules": [{"name": "NY tax", "country": "US", "region": "NY", "rate": "8.875", "appliesToShipping": true}]},
        "shipping": {"options": [
            {"id": "ground", "name": "Ground", "countries": ["US"], "kind": "weight", "rates": [{"upToGrams": 1000, "price": "5.00"}, {"upToGrams": 3000, "price": "8.00"}]},
            {"id": "express", "name": "Express", "countries": ["US"], "kind": "flat", "price": "15.00"}
        ]},
        "coupons": {"codes": [{"code": "TENOFF", "kind": "percent", "percent": "10"}, {"code": "BIG", "kind": "fixed", "amount": "50.00", "minimumSubtotal": "100.00"}]}
    }));
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    // 12.50 is below the 20.00 minimum.
    assert_eq!(
        refused(
            checkout_with(
                &env.store,
                t,
                &cart.id,
                "a@b.test",
                &s,
                Some(address("US", Some("NY")))
            )
            .await
        ),
        Refusal::BelowMinimumSubtotal {
            minimum_minor: 2000
        }
    );
    env.store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 3))
        .await
        .unwrap();
    let now = tenants::now_ms();
    // Coupons: unknown codes and expired ones are refused; one below its minimum is kept.
    assert_eq!(
        refused(env.store.add_coupon(t, &cart.id, "NOPE", &s, now).await),
        Refusal::Coupon(CouponProblem::Unknown)
    );
    env.store
        .add_coupon(t, &cart.id, "tenoff", &s, now)
        .await
        .unwrap();
    let with_big = env
        .store
        .add_coupon(t, &cart.id, "BIG", &s, now)
        .await
        .unwrap();
    assert_eq!(with_big.coupons, ["TENOFF", "BIG"]);
    let totals = with_big.price(&s, None, now);
    assert_eq!(totals.discount_minor, 500);
    assert_eq!(
        totals.invalid_coupons[0].problem,
        CouponProblem::BelowMinimum(10_000)
    );
    let cart_now = env.store.remove_coupon(t, &cart.id, "big").await.unwrap();
    assert_eq!(cart_now.coupons, ["TENOFF"]);
    assert!(matches!(
        env.store.remove_coupon(t, &cart.id, "BIG").await,
        Err(StoreError::NotFound(_))
    ));
    // Nothing ships to Canada.
    assert_eq!(
        refused(
            checkout_with(
                &env.store,
                t,
                &cart.id,
                "a@b.test",
                &s,
                Some(address("CA", None))
            )
            .await
        ),
        Refusal::ShippingUnavailable
    );
    // The buyer picks express.
    env.store
        .set_shipping_option(t, &cart.id, Some("express"))
        .await
        .unwrap();
    let order = checkout_with(
        &env.store,
        t,
        &cart.id,
        "a@b.test",
        &s,
        Some(address("US", Some("ny"))),
    )
    .await
    .unwrap();
    // 4 × 12.50 = 50.00, −10% = 45.00, express 15.00, tax 8.875% of 60.00 = 5.325 → 5.33.
    assert_eq!(order.subtotal_minor, 5000);
    assert_eq!(order.discount_minor, 500);
    assert_eq!(order.shipping_minor, 1500);
    assert_eq!(order.tax_minor, 533);
    assert_eq!(order.grand_total_minor, 4500 + 1500 + 533);
    assert_eq!(
        order.details.shipping_option.as_ref().unwrap().id,
        "express"
    );
    assert_eq!(order.details.coupons[0].code, "TENOFF");
    assert_eq!(order.details.taxes[0].rate, "8.875");
    assert_eq!(
        order.details.shipping_address.as_ref().unwrap().city,
        "Town"
    );
}

/// A shown total that changed, or a charge that does not match, places nothing.
async fn checkout_refuses_a_changed_total(env: Env) {
    let (t, item) = shop(&env, 5).await;
    let s = CommerceSettings::plain("USD");
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&item, "MUG-M", 1))
        .await
        .unwrap();
    let base = Checkout {
        settings: &s,
        terms: CheckoutTerms {
            shipping_address: Some(address("US", None)),
            now_ms: tenants::now_ms(),
            ..Default::default()
        },
        customer_email: "a@b.test".into(),
        expected_total_minor: Some(999),
        charge_minor: 1250,
        payment: card(),
        test_mode: true,
        time_zone: "UTC",
    };
    assert_eq!(
        refused(env.store.place_order(t, &cart.id, &base).await),
        Refusal::TotalChanged {
            grand_total_minor: 1250
        }
    );
    let wrong_charge = Checkout {
        expected_total_minor: None,
        charge_minor: 1000,
        ..base.clone()
    };
    assert_eq!(
        refused(env.store.place_order(t, &cart.id, &wrong_charge).await),
        Refusal::ChargeChanged
    );
    let no_payment = Checkout {
        expected_total_minor: None,
        payment: PaymentMethod::None,
        ..base.clone()
    };
    assert_eq!(
        refused(env.store.place_order(t, &cart.id, &no_payment).await),
        Refusal::PaymentRequired
    );
    assert!(env.store.orders(t).await.unwrap().is_empty());
    assert!(
        !env.store
            .cart(t, &cart.id)
            .await
            .unwrap()
            .unwrap()
            .purchased
    );
}

/// Buying a gift card issues one code per unit; later checkouts spend it, never below zero,
/// also when two spend it at once.
async fn gift_cards_are_issued_and_spent(env: Env) {
    let t = env.tenant("shop").await;
    let card_item = put_product(
        &env.store,
        t,
        "gift-card",
        4,
        vec![
            variant("GC-25", &[("Amount", "$25")], 2500, None),
            variant("GC-50", &[("Amount", "$50")], 5000, None),
        ],
        json!({}),
    )
    .await;
    // A service: nothing to ship.
    let mug = put_product(
        &env.store,
        t,
        "lesson",
        3,
        vec![variant("MUG", &[], 1000, Some(10))],
        json!({}),
    )
    .await;
    let cart = env.store.create_cart(t).await.unwrap();
    assert_eq!(
        refused(
            env.store
                .add_to_cart(t, &cart.id, &add(&card_item, "", 1))
                .await
        ),
        Refusal::NoDenomination
    );
    env.store
        .add_to_cart(t, &cart.id, &add(&card_item, "GC-25", 2))
        .await
        .unwrap();
    let order = buy(&env.store, t, &cart.id, "giver@b.test").await.unwrap();
    assert_eq!(order.gift_cards.len(), 2);
    assert!(
        order
            .gift_cards
            .iter()
            .all(|g| g.balance_minor == 2500 && g.currency == "USD")
    );
    let code = order.gift_cards[0].code.clone();
    assert_ne!(code, order.gift_cards[1].code);

    // Spend it on 3 mugs (30.00): 25.00 from the card, 5.00 by card.
    let s = CommerceSettings::plain("USD");
    let spend = |cart: String, code: String| {
        let store = env.store.clone();
        let s = s.clone();
        async move {
            let terms = CheckoutTerms {
                gift_card_code: Some(code.to_lowercase()),
                now_ms: tenants::now_ms(),
                ..Default::default()
            };
            let q = store.quote_checkout(t, &cart, &s, &terms).await?;
            store
                .place_order(
                    t,
                    &cart,
                    &Checkout {
                        settings: &s,
                        terms,
                        customer_email: "spender@b.test".into(),
                        expected_total_minor: None,
                        charge_minor: q.charge_minor,
                        payment: card(),
                        test_mode: true,
                        time_zone: "UTC",
                    },
                )
                .await
        }
    };
    let c1 = env.store.create_cart(t).await.unwrap().id;
    let c2 = env.store.create_cart(t).await.unwrap().id;
    for c in [&c1, &c2] {
        env.store
            .add_to_cart(t, c, &add(&mug, "MUG", 1))
            .await
            .unwrap();
    }
    // Two 10.00 checkouts at once on one 25.00 card: both fit, 5.00 is left.
    let (a, b) = tokio::join!(spend(c1, code.clone()), spend(c2, code.clone()));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((a.gift_card_minor, b.gift_card_minor), (1000, 1000));
    assert_eq!(a.charged_minor(), 0);
    assert_eq!(a.details.payment, PaymentMethod::None);
    assert_eq!(a.details.gift_card.as_deref(), Some(code.as_str()));
    assert_eq!(
        env.store
            .gift_card(t, &code)
            .await
            .unwrap()
            .unwrap()
            .balance_minor,
        500
    );
    // The last 5.00 goes toward a 10.00 mug; the card pays the rest.
    let c3 = env.store.create_cart(t).await.unwrap().id;
    env.store
        .add_to_cart(t, &c3, &add(&mug, "MUG", 1))
        .await
        .unwrap();
    let o3 = spend(c3, code.clone()).await.unwrap();
    assert_eq!((o3.gift_card_minor, o3.charged_minor()), (500, 500));
    // Empty now.
    let c4 = env.store.create_cart(t).await.unwrap().id;
    env.store
        .add_to_cart(t, &c4, &add(&mug, "MUG", 1))
        .await
        .unwrap();
    assert_eq!(
        refused(spend(c4.clone(), code.clone()).await),
        Refusal::GiftCardEmpty
    );
    assert_eq!(
        refused(spend(c4, "AAAA-BBBB-CCCC-DDDD".into()).await),
        Refusal::GiftCardUnknown
    );
    // The gift-card page's own cart: one gift card in its denomination, nothing else, and its
    // order issues the card like the shopping cart's does.
    assert_eq!(
        refused(
            env.store
                .create_token_cart(t, tenants::CartKind::GiftCard, &add(&mug, "MUG", 1))
                .await
        ),
        Refusal::NotGiftCard
    );
    let gc = env
        .store
        .create_token_cart(t, tenants::CartKind::GiftCard, &add(&card_item, "GC-50", 1))
        .await
        .unwrap();
    assert_eq!(
        (gc.kind, gc.total_quantity),
        (tenants::CartKind::GiftCard, 1)
    );
    assert_eq!(
        refused(env.store.add_to_cart(t, &gc.id, &add(&mug, "MUG", 1)).await),
        Refusal::SubscriptionOnly
    );
    let bought = buy(&env.store, t, &gc.id, "giver@b.test").await.unwrap();
    assert_eq!(bought.kind, tenants::CartKind::GiftCard);
    assert_eq!(bought.gift_cards.len(), 1);
    assert_eq!(bought.gift_cards[0].balance_minor, 5000);
}

/// A subscription cart holds one subscription product; its order starts the subscription
/// with the product's plan.
async fn subscriptions_start_with_their_plan(env: Env) {
    let t = env.tenant("shop").await;
    let plan = json!({"isSubscribable": true, "subscriptionPlan": {"billingPeriod": {"value": 1, "unit": "MONTH"}, "numBillingCycles": 0}});
    let sub = put_product(
        &env.store,
        t,
        "plant-box",
        1,
        vec![variant("BOX", &[], 2900, None)],
        plan,
    )
    .await;
    let mug = put_product(
        &env.store,
        t,
        "mug",
        1,
        vec![variant("MUG", &[], 1000, Some(3))],
        json!({}),
    )
    .await;
    // Subscription products do not go in the shopping cart, and plain ones are not
    // subscriptions.
    let cart = env.store.create_cart(t).await.unwrap();
    assert_eq!(
        refused(
            env.store
                .add_to_cart(t, &cart.id, &add(&sub, "BOX", 1))
                .await
        ),
        Refusal::SubscriptionOnly
    );
    assert_eq!(
        refused(
            env.store
                .create_token_cart(t, tenants::CartKind::Subscription, &add(&mug, "MUG", 1))
                .await
        ),
        Refusal::NotSubscribable
    );
    let sc = env
        .store
        .create_token_cart(t, tenants::CartKind::Subscription, &add(&sub, "BOX", 1))
        .await
        .unwrap();
    assert_eq!(sc.kind, tenants::CartKind::Subscription);
    assert_eq!(sc.total_quantity, 1);
    // A subscription cart takes nothing else.
    assert_eq!(
        refused(env.store.add_to_cart(t, &sc.id, &add(&mug, "MUG", 1)).await),
        Refusal::SubscriptionOnly
    );
    let before = tenants::now_ms();
    let order = buy(&env.store, t, &sc.id, "sub@b.test").await.unwrap();
    assert_eq!(order.kind, tenants::CartKind::Subscription);
    let s = &order.subscriptions[0];
    assert_eq!(
        (s.period_value, s.period_unit.as_str(), s.num_billing_cycles),
        (1, "MONTH", 0)
    );
    assert_eq!(s.cycles_billed, 1);
    assert_eq!(s.status, "active");
    let next = s.next_billing_ms.unwrap();
    // About a month on (28 to 31 days).
    assert!(next - before >= 28 * 86_400_000 && next - before <= 31 * 86_400_000 + 60_000);
}

/// A pay-later order waits for payment: nothing is delivered until the owner marks it paid.
/// A bank-transfer order of `cart` for `later@b.test`, charging `charge_minor`.
async fn pay_later(
    env: &Env,
    t: TenantId,
    cart: &str,
    s: &CommerceSettings,
    terms: CheckoutTerms,
    charge_minor: i64,
) -> tenants::Order {
    env.store
        .place_order(
            t,
            cart,
            &Checkout {
                settings: s,
                terms,
                customer_email: "later@b.test".into(),
                expected_total_minor: None,
                charge_minor,
                payment: PaymentMethod::Manual {
                    label: "Bank transfer".into(),
                },
                test_mode: false,
                time_zone: "UTC",
            },
        )
        .await
        .unwrap()
}

async fn manual_payment_orders_wait_for_payment(env: Env) {
    let t = env.tenant("shop").await;
    let card_item = put_product(
        &env.store,
        t,
        "gift-card",
        4,
        vec![variant("GC", &[], 2500, None)],
        json!({}),
    )
    .await;
    let s = settings(
        json!({"payments": {"manual": {"label": "Bank transfer", "instructions": "IBAN X"}}}),
    );
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&card_item, "GC", 1))
        .await
        .unwrap();
    let terms = CheckoutTerms {
        now_ms: tenants::now_ms(),
        ..Default::default()
    };
    let q = env
        .store
        .quote_checkout(t, &cart.id, &s, &terms)
        .await
        .unwrap();
    let order = pay_later(&env, t, &cart.id, &s, terms, q.charge_minor).await;
    assert_eq!(order.status, OrderStatus::AwaitingPayment);
    assert!(order.gift_cards.is_empty());
    assert_eq!(order.paid_ms, None);
    let paid = env
        .store
        .mark_order_paid(t, &order.id, "UTC")
        .await
        .unwrap();
    assert_eq!(paid.status, OrderStatus::Paid);
    assert_eq!(paid.gift_cards.len(), 1);
    // Marking again changes nothing (no second card).
    let again = env
        .store
        .mark_order_paid(t, &order.id, "UTC")
        .await
        .unwrap();
    assert_eq!(again.gift_cards, paid.gift_cards);
}

/// A pay-later order left unpaid expires (issue 40, finding 6): its units go back to stock,
/// what a gift card paid goes back on the card, and it can no longer be marked paid.
async fn unpaid_pay_later_orders_expire(env: Env) {
    let (t, mug) = shop(&env, 5).await;
    let gift = put_product(
        &env.store,
        t,
        "gift-card",
        4,
        vec![variant("GC", &[], 2500, None)],
        json!({}),
    )
    .await;
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&gift, "GC", 1))
        .await
        .unwrap();
    let bought = buy(&env.store, t, &cart.id, "a@b.test").await.unwrap();
    let code = bought.gift_cards[0].code.clone();

    let s = settings(
        json!({"payments": {"manual": {"label": "Bank transfer", "instructions": "IBAN X"}}}),
    );
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&mug, "MUG-M", 3))
        .await
        .unwrap();
    let terms = CheckoutTerms {
        shipping_address: Some(address("US", None)),
        gift_card_code: Some(code.clone()),
        now_ms: tenants::now_ms(),
        ..Default::default()
    };
    let q = env
        .store
        .quote_checkout(t, &cart.id, &s, &terms)
        .await
        .unwrap();
    assert_eq!((q.gift_card_minor, q.charge_minor), (2500, 1250));
    let order = pay_later(&env, t, &cart.id, &s, terms, q.charge_minor).await;
    assert_eq!(order.status, OrderStatus::AwaitingPayment);
    assert_eq!(qty(&env, t, &mug).await, 2);
    let balance = |store: Store, code: String| async move {
        store
            .gift_card(t, &code)
            .await
            .unwrap()
            .unwrap()
            .balance_minor
    };
    assert_eq!(balance(env.store.clone(), code.clone()).await, 0);

    // Not yet: placed after the cutoff.
    let placed = order.created_ms;
    assert_eq!(env.store.expire_unpaid_orders(t, placed).await.unwrap(), 0);
    assert_eq!(
        env.store
            .tenants_with_unpaid_orders(placed + 1)
            .await
            .unwrap(),
        vec![t]
    );
    assert_eq!(
        env.store.expire_unpaid_orders(t, placed + 1).await.unwrap(),
        1
    );
    assert_eq!(qty(&env, t, &mug).await, 5);
    assert_eq!(balance(env.store.clone(), code.clone()).await, 2500);
    let after = env
        .store
        .mark_order_paid(t, &order.id, "UTC")
        .await
        .unwrap();
    assert_eq!(after.status, OrderStatus::Expired);
    assert_eq!(after.paid_ms, None);
    assert_eq!(
        env.store.expire_unpaid_orders(t, placed + 1).await.unwrap(),
        0
    );
    assert!(
        env.store
            .tenants_with_unpaid_orders(placed + 1)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A digital product's file is downloadable from its paid order only.
async fn digital_files_download_from_paid_orders(env: Env) {
    let t = env.tenant("shop").await;
    let guide = put_product(
        &env.store,
        t,
        "guide",
        2,
        vec![variant("PDF", &[], 900, None)],
        json!({}),
    )
    .await;
    let file = DigitalFile {
        file_name: "guide.pdf".into(),
        content_type: "application/pdf".into(),
        content: b"%PDF-1.4 guide".to_vec(),
    };
    env.store.put_digital_file(t, &guide, &file).await.unwrap();
    assert_eq!(
        env.store
            .digital_file_name(t, &guide)
            .await
            .unwrap()
            .as_deref(),
        Some("guide.pdf")
    );
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&guide, "PDF", 1))
        .await
        .unwrap();
    let order = buy(&env.store, t, &cart.id, "reader@b.test").await.unwrap();
    assert_eq!(env.store.download(t, &order.id, 0).await.unwrap(), file);
    assert!(matches!(
        env.store.download(t, &order.id, 1).await,
        Err(StoreError::NotFound(_))
    ));
    let other = env.tenant("other").await;
    assert!(matches!(
        env.store.download(other, &order.id, 0).await,
        Err(StoreError::NotFound(_))
    ));
}

/// Product rules at add-to-cart: options must be chosen, services may be sold one at a time,
/// one currency per cart.
async fn add_to_cart_applies_the_product_rules(env: Env) {
    let t = env.tenant("shop").await;
    let shirt = put_product(
        &env.store,
        t,
        "shirt",
        1,
        vec![
            variant("S-RED", &[("Size", "S"), ("Colour", "Red")], 2000, Some(5)),
            variant("M-RED", &[("Size", "M"), ("Colour", "Red")], 2000, Some(5)),
        ],
        json!({"variantOptionOrdering": ["Size", "Colour"]}),
    )
    .await;
    let cart = env.store.create_cart(t).await.unwrap();
    assert_eq!(
        refused(
            env.store
                .add_to_cart(t, &cart.id, &add(&shirt, "", 1))
                .await
        ),
        Refusal::OptionsNotChosen(vec!["Size".into(), "Colour".into()])
    );
    let visit = put_product(
        &env.store,
        t,
        "visit",
        3,
        vec![variant("V", &[], 3500, None)],
        json!({}),
    )
    .await;
    let single = AddToCart {
        single_service: true,
        ..add(&visit, "V", 2)
    };
    assert_eq!(
        refused(env.store.add_to_cart(t, &cart.id, &single).await),
        Refusal::SingleService
    );
    let one = AddToCart {
        quantity: 1,
        ..single.clone()
    };
    let added = env.store.add_to_cart(t, &cart.id, &one).await.unwrap();
    assert_eq!(
        refused(env.store.add_to_cart(t, &cart.id, &one).await),
        Refusal::SingleService
    );
    assert_eq!(
        refused(
            env.store
                .set_entry_quantity(t, &cart.id, &added.newly_added.id, 2, true)
                .await
        ),
        Refusal::SingleService
    );
    // Allowed when the store sells services in any quantity.
    env.store
        .set_entry_quantity(t, &cart.id, &added.newly_added.id, 2, false)
        .await
        .unwrap();
    let mut euro = variant("EU", &[], 1000, None);
    euro.currency = "EUR".into();
    let eu = put_product(&env.store, t, "eu", 1, vec![euro], json!({})).await;
    assert_eq!(
        refused(env.store.add_to_cart(t, &cart.id, &add(&eu, "EU", 1)).await),
        Refusal::CurrencyMismatch
    );
}

/// The shipping location is kept on the cart, normalised, and prices the cart.
async fn shipping_location_is_kept(env: Env) {
    let (t, _) = shop(&env, 5).await;
    let cart = env.store.create_cart(t).await.unwrap();
    let loc = tenants::commerce::Location {
        country: " us ".into(),
        region: Some("NY".into()),
        postal_code: Some(" 10001 ".into()),
    };
    let c = env
        .store
        .set_shipping_location(t, &cart.id, Some(&loc))
        .await
        .unwrap();
    let kept = c.shipping_location.unwrap();
    assert_eq!(
        (kept.country.as_str(), kept.postal_code.as_deref()),
        ("US", Some("10001"))
    );
    let bad = tenants::commerce::Location {
        country: "USA".into(),
        ..Default::default()
    };
    assert!(matches!(
        env.store
            .set_shipping_location(t, &cart.id, Some(&bad))
            .await,
        Err(StoreError::Invalid(_))
    ));
    let c = env
        .store
        .set_shipping_location(t, &cart.id, None)
        .await
        .unwrap();
    assert!(c.shipping_location.is_none());
}

/// Every tenant has its own signing secret, the same on every node.
async fn tenant_secrets_are_stable(env: Env) {
    let a = env.tenant("a").await;
    let b = env.tenant("b").await;
    let sa = env.store.tenant_secret(a).await.unwrap();
    let sb = env.store.tenant_secret(b).await.unwrap();
    assert_ne!(sa, sb);
    assert_eq!(env.store.tenant_secret(a).await.unwrap(), sa);
    let other = env.another_node().await;
    assert_eq!(other.tenant_secret(a).await.unwrap(), sa);
}

/// A member's cart is found by its member among visitors' carts, which belong to nobody
/// (the index on carts' members holds members' carts only, migration 23).
async fn members_carts_are_found_among_visitors_carts(env: Env) {
    let (t, item) = shop(&env, 100).await;
    let mut carts = Vec::new();
    for _ in 0..3 {
        let added = env
            .store
            .add_to_new_cart(t, &add(&item, "MUG-M", 1))
            .await
            .unwrap();
        carts.push(added.shopping_cart);
    }
    // Visitors' carts are nobody's.
    assert!(
        env.store
            .sign_in_cart(t, "ana", None)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .clone_member_cart(t, "ana")
            .await
            .unwrap()
            .is_none()
    );
    // Signing in makes a visitor's cart the member's, and the member finds it again.
    let signed = env
        .store
        .sign_in_cart(t, "ana", Some(&carts[1].id))
        .await
        .unwrap()
        .expect("the visitor's cart becomes ana's");
    assert_eq!(signed.id, carts[1].id);
    let again = env.store.sign_in_cart(t, "ana", None).await.unwrap();
    assert_eq!(again.map(|c| c.id), Some(carts[1].id.clone()));
    let copy = env
        .store
        .clone_member_cart(t, "ana")
        .await
        .unwrap()
        .expect("ana has a cart to copy");
    assert_ne!(copy.id, carts[1].id);
    assert_eq!(copy.entries.len(), 1);
    assert_eq!(copy.entries[0].sku, "MUG-M");
    // Another member finds none, and cannot take ana's.
    assert!(
        env.store
            .sign_in_cart(t, "ben", Some(&carts[1].id))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .clone_member_cart(t, "ben")
            .await
            .unwrap()
            .is_none()
    );
}

crate::on_both_backends!(
    two_handles_write_at_once,
    members_carts_are_found_among_visitors_carts,
    abandoned_carts_release_their_stock,
    cart_add_update_remove_and_order,
    sixty_four_buyers_one_last_unit,
    sixty_four_checkouts_of_the_last_unit,
    unlimited_variants_never_run_out,
    concurrent_orders_are_numbered_uniquely,
    orders_commit_with_their_emails,
    orders_are_numbered_in_groups_once,
    first_and_later_adds_are_stored,
    first_adds_take_what_is_left,
    checkout_prices_the_order,
    checkout_refuses_a_changed_total,
    gift_cards_are_issued_and_spent,
    subscriptions_start_with_their_plan,
    manual_payment_orders_wait_for_payment,
    unpaid_pay_later_orders_expire,
    digital_files_download_from_paid_orders,
    add_to_cart_applies_the_product_rules,
    shipping_location_is_kept,
    tenant_secrets_are_stable,
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
