//! The owner's moves on orders (issue 43): the state machine applied by the store, on both
//! backends — shipping by line, cancelling (stock back), refunds bounded by the charge,
//! the history, and concurrent moves on one order taking turns.

use serde_json::json;

use crate::common::{Env, buy, refund};
use crate::content::{collection, product};
use tenants::commerce::CommerceSettings;
use tenants::commerce::order_state::{Fulfilment, Illegal, Payment, RefundRequest};
use tenants::{
    AddToCart, Checkout, CheckoutTerms, OrderQuery, PaymentMethod, StoreError, TenantId,
    no_order_mail,
};

/// A shop with a mug (1250, `stock` units) and an unlimited download (500); the tenant and
/// the two item ids.
async fn shop(env: &Env, name: &str, stock: i64) -> (TenantId, String, String) {
    let t = env.tenant(name).await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mug = env
        .store
        .put_item(t, &product(&c, "mug", "MUG-M", stock))
        .await
        .unwrap();
    let mut ebook = product(&c, "ebook", "EBOOK", 0);
    ebook.product_type = Some(2);
    ebook.variants[0].unlimited = true;
    ebook.variants[0].price_minor = 500;
    let ebook = env.store.put_item(t, &ebook).await.unwrap();
    (t, mug, ebook)
}

fn add(item: &str, sku: &str, quantity: i64) -> AddToCart {
    AddToCart {
        item_id: item.into(),
        sku: sku.into(),
        quantity,
        ..Default::default()
    }
}

/// A card order of `(item, sku, quantity)` lines.
async fn card_order(env: &Env, t: TenantId, lines: &[(&str, &str, i64)]) -> tenants::Order {
    let cart = env.store.create_cart(t).await.unwrap();
    for (item, sku, q) in lines {
        env.store
            .add_to_cart(t, &cart.id, &add(item, sku, *q))
            .await
            .unwrap();
    }
    buy(&env.store, t, &cart.id, "buyer@b.test").await.unwrap()
}

/// A bank-transfer order of `quantity` of `item`.
async fn pay_later_order(env: &Env, t: TenantId, item: &str, quantity: i64) -> tenants::Order {
    let site = json!({"storeSettings": {"selectedCurrency": "USD"}});
    let s = CommerceSettings::from_site(
        site.as_object().unwrap(),
        &serde_json::from_value(
            json!({"payments": {"manual": {"label": "Bank transfer", "instructions": "IBAN X"}}}),
        )
        .unwrap(),
    )
    .unwrap();
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(item, "MUG-M", quantity))
        .await
        .unwrap();
    let terms = CheckoutTerms {
        shipping_address: Some(tenants::Address {
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            line1: "1 Main St".into(),
            city: "Town".into(),
            postal_code: "12345".into(),
            country: "US".into(),
            ..Default::default()
        }),
        now_ms: tenants::now_ms(),
        ..Default::default()
    };
    let q = env
        .store
        .quote_checkout(t, &cart.id, &s, &terms)
        .await
        .unwrap();
    env.store
        .place_order(
            t,
            &cart.id,
            &Checkout {
                settings: &s,
                terms,
                customer_email: "later@b.test".into(),
                expected_total_minor: None,
                charge_minor: q.charge_minor,
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

fn illegal<T: std::fmt::Debug>(r: tenants::Result<T>) -> Illegal {
    match r {
        Err(StoreError::Illegal(i)) => i,
        other => panic!("expected an illegal move, got {other:?}"),
    }
}

async fn stock(env: &Env, t: TenantId, item: &str) -> i64 {
    env.store.stock(t, item).await.unwrap()[0].qty_in_stock
}

async fn kinds(env: &Env, t: TenantId, order: &str) -> Vec<String> {
    let r = env.store.order_record(t, order).await.unwrap().unwrap();
    r.history.into_iter().map(|e| e.kind).collect()
}

async fn fulfilment_by_line(env: Env) {
    let (t, mug, ebook) = shop(&env, "shop", 5).await;
    let order = card_order(&env, t, &[(&mug, "MUG-M", 3), (&ebook, "EBOOK", 1)]).await;
    assert_eq!(order.fulfilment, Fulfilment::Unfulfilled);
    assert_eq!(order.customer_name, "Test Buyer");
    // The download was delivered with the payment.
    assert_eq!(
        order
            .lines
            .iter()
            .map(|l| l.fulfilled_quantity)
            .collect::<Vec<_>>(),
        [0, 1]
    );

    let (o, shipment) = env
        .store
        .fulfil_order(
            t,
            &order.id,
            &[(0, 2)],
            " UPS ",
            "1Z999",
            "owner@shop.test",
            &no_order_mail,
        )
        .await
        .unwrap();
    assert_eq!(o.fulfilment, Fulfilment::PartiallyFulfilled);
    assert_eq!(
        (shipment.carrier.as_str(), shipment.tracking_number.as_str()),
        ("UPS", "1Z999")
    );
    assert_eq!(
        illegal(
            env.store
                .fulfil_order(t, &order.id, &[(0, 2)], "", "", "", &no_order_mail)
                .await
        ),
        Illegal::TooManyToShip {
            position: 0,
            left: 1
        }
    );
    assert_eq!(
        illegal(
            env.store
                .fulfil_order(t, &order.id, &[(1, 1)], "", "", "", &no_order_mail)
                .await
        ),
        Illegal::LineDoesNotShip(1)
    );
    assert_eq!(
        illegal(
            env.store
                .fulfil_order(t, &order.id, &[(9, 1)], "", "", "", &no_order_mail)
                .await
        ),
        Illegal::NoSuchLine(9)
    );
    let too_long = "x".repeat(tenants::MAX_TRACKING_CHARS + 1);
    assert!(matches!(
        env.store
            .fulfil_order(t, &order.id, &[(0, 1)], "", &too_long, "", &no_order_mail)
            .await,
        Err(StoreError::Invalid(_))
    ));
    let (o, _) = env
        .store
        .fulfil_order(
            t,
            &order.id,
            &[(0, 1)],
            "",
            "",
            "owner@shop.test",
            &no_order_mail,
        )
        .await
        .unwrap();
    assert_eq!(o.fulfilment, Fulfilment::Fulfilled);
    assert_eq!(o.lines[0].fulfilled_quantity, 3);
    assert_eq!(
        illegal(
            env.store
                .fulfil_order(t, &order.id, &[(0, 1)], "", "", "", &no_order_mail)
                .await
        ),
        Illegal::AlreadyFulfilled
    );
    assert_eq!(
        illegal(
            env.store
                .cancel_order(t, &order.id, "", &no_order_mail)
                .await
        ),
        Illegal::AlreadyFulfilled
    );

    let record = env.store.order_record(t, &order.id).await.unwrap().unwrap();
    assert_eq!(record.fulfilments.len(), 2);
    assert_eq!(record.fulfilments[0].lines[0].quantity, 2);
    let kinds: Vec<_> = record.history.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["placed", "fulfilled", "fulfilled"]);
    assert_eq!(record.history[1].actor, "owner@shop.test");
    assert_eq!(record.history[1].data["trackingNumber"], "1Z999");

    // Another site's order is not found, whatever the move.
    let other = env.tenant("other").await;
    assert!(
        env.store
            .order_record(other, &order.id)
            .await
            .unwrap()
            .is_none()
    );
    for r in [
        env.store
            .fulfil_order(other, &order.id, &[(0, 1)], "", "", "", &no_order_mail)
            .await
            .map(|_| ()),
        env.store
            .cancel_order(other, &order.id, "", &no_order_mail)
            .await
            .map(|_| ()),
        env.store
            .mark_paid(other, &order.id, "UTC", "", &no_order_mail)
            .await
            .map(|_| ()),
        env.store
            .begin_refund(other, &order.id, &RefundRequest::Amount(1), "")
            .await
            .map(|_| ()),
    ] {
        assert!(matches!(r, Err(StoreError::NotFound(_))), "{r:?}");
    }
}

async fn cancelling_gives_stock_back(env: Env) {
    let (t, mug, _) = shop(&env, "shop", 5).await;
    // Unpaid: everything goes back, and the expiry sweep leaves it alone.
    let order = pay_later_order(&env, t, &mug, 3).await;
    assert_eq!(order.customer_name, "Ada Lovelace");
    assert_eq!(stock(&env, t, &mug).await, 2);
    let o = env
        .store
        .cancel_order(t, &order.id, "owner", &no_order_mail)
        .await
        .unwrap();
    assert!(o.cancelled_ms.is_some());
    assert_eq!(o.status, Payment::AwaitingPayment);
    assert_eq!(stock(&env, t, &mug).await, 5);
    assert_eq!(
        illegal(
            env.store
                .cancel_order(t, &order.id, "", &no_order_mail)
                .await
        ),
        Illegal::Cancelled
    );
    assert_eq!(
        illegal(
            env.store
                .mark_paid(t, &order.id, "UTC", "", &no_order_mail)
                .await
        ),
        Illegal::Cancelled
    );
    assert_eq!(
        env.store
            .expire_unpaid_orders(t, tenants::now_ms() + 1)
            .await
            .unwrap(),
        0
    );
    assert_eq!(stock(&env, t, &mug).await, 5);
    assert_eq!(kinds(&env, t, &order.id).await, ["placed", "cancelled"]);

    // Paid and partly shipped: the charge is given back first, then the unshipped units
    // return.
    let order = card_order(&env, t, &[(&mug, "MUG-M", 2)]).await;
    assert_eq!(stock(&env, t, &mug).await, 3);
    env.store
        .fulfil_order(t, &order.id, &[(0, 1)], "", "", "", &no_order_mail)
        .await
        .unwrap();
    assert_eq!(
        illegal(
            env.store
                .cancel_order(t, &order.id, "", &no_order_mail)
                .await
        ),
        Illegal::RefundFirst
    );
    refund(&env.store, t, &order.id, 2500, "re_1", "").await;
    let o = env
        .store
        .cancel_order(t, &order.id, "", &no_order_mail)
        .await
        .unwrap();
    assert_eq!(
        (o.status, o.cancelled_ms.is_some()),
        (Payment::Refunded, true)
    );
    assert_eq!(stock(&env, t, &mug).await, 4);
}

async fn refunds_are_bounded_by_the_charge(env: Env) {
    let (t, mug, _) = shop(&env, "shop", 5).await;
    let order = card_order(&env, t, &[(&mug, "MUG-M", 2)]).await;
    assert_eq!(order.charged_minor(), 2500);
    let refund = |r: RefundRequest| {
        let store = env.store.clone();
        let id = order.id.clone();
        async move { store.begin_refund(t, &id, &r, "damaged").await }
    };
    assert_eq!(
        illegal(refund(RefundRequest::Amount(2501)).await),
        Illegal::MoreThanCharged { left_minor: 2500 }
    );
    assert_eq!(
        illegal(refund(RefundRequest::Amount(0)).await),
        Illegal::BadAmount
    );

    // A refund the provider refuses gives its amount back to what is refundable.
    let (o, pending) = refund(RefundRequest::Amount(1000)).await.unwrap();
    assert_eq!(
        (o.status, o.refunded_minor),
        (Payment::PartiallyRefunded, 1000)
    );
    assert_eq!(pending.state, "pending");
    let o = env
        .store
        .finish_refund(
            t,
            &order.id,
            &pending.id,
            Err("declined".into()),
            "owner",
            &no_order_mail,
        )
        .await
        .unwrap();
    assert_eq!((o.status, o.refunded_minor), (Payment::Paid, 0));
    assert!(matches!(
        env.store
            .finish_refund(
                t,
                &order.id,
                &pending.id,
                Ok("x".into()),
                "",
                &no_order_mail
            )
            .await,
        Err(StoreError::NotFound(_))
    ));

    // By line: the unit price.
    let (o, r) = refund(RefundRequest::Lines(vec![(0, 1)])).await.unwrap();
    assert_eq!(r.amount_minor, 1250);
    assert_eq!(o.lines[0].refunded_quantity, 1);
    env.store
        .finish_refund(
            t,
            &order.id,
            &r.id,
            Ok("re_2".into()),
            "owner",
            &no_order_mail,
        )
        .await
        .unwrap();
    assert_eq!(
        illegal(refund(RefundRequest::Lines(vec![(0, 2)])).await),
        Illegal::TooManyToRefund {
            position: 0,
            left: 1
        }
    );
    let (o, r) = refund(RefundRequest::Amount(1250)).await.unwrap();
    assert_eq!(o.status, Payment::Refunded);
    let o = env
        .store
        .finish_refund(
            t,
            &order.id,
            &r.id,
            Ok("re_3".into()),
            "owner",
            &no_order_mail,
        )
        .await
        .unwrap();
    assert_eq!((o.status, o.refunded_minor), (Payment::Refunded, 2500));
    // The refunded unit no longer waits to ship; the other one does.
    assert_eq!(o.fulfilment, Fulfilment::Unfulfilled);
    assert_eq!(
        illegal(refund(RefundRequest::Amount(1)).await),
        Illegal::AlreadyRefunded
    );
    let record = env.store.order_record(t, &order.id).await.unwrap().unwrap();
    let states: Vec<_> = record.refunds.iter().map(|r| r.state.as_str()).collect();
    assert_eq!(states, ["failed", "done", "done"]);
    assert_eq!(record.refunds[1].reference.as_deref(), Some("re_2"));
    assert_eq!(
        kinds(&env, t, &order.id).await,
        ["placed", "refund-failed", "refunded", "refunded"]
    );

    // Nothing to refund before payment.
    let unpaid = pay_later_order(&env, t, &mug, 1).await;
    assert_eq!(
        illegal(
            env.store
                .begin_refund(t, &unpaid.id, &RefundRequest::Amount(1), "")
                .await
        ),
        Illegal::NotPaid
    );
}

async fn marking_paid_delivers_once(env: Env) {
    let (t, mug, _) = shop(&env, "shop", 5).await;
    let order = pay_later_order(&env, t, &mug, 1).await;
    assert_eq!(
        illegal(
            env.store
                .fulfil_order(t, &order.id, &[(0, 1)], "", "", "", &no_order_mail)
                .await
        ),
        Illegal::NotPaid
    );
    // The move's email is written from the order as the move left it, and goes in the
    // outbox with the move; a refused move sends none.
    let mail = |o: &tenants::Order| {
        vec![tenants::Email {
            kind: "order-paid".into(),
            from: "shop@shop.test".into(),
            to: o.customer_email.clone(),
            reply_to: None,
            subject: format!("Paid: #{} is {}", o.order_number, o.status.as_str()),
            text: String::new(),
            html: None,
        }]
    };
    let o = env
        .store
        .mark_paid(t, &order.id, "UTC", "owner@shop.test", &mail)
        .await
        .unwrap();
    assert_eq!(o.status, Payment::Paid);
    assert!(o.paid_ms.is_some());
    assert_eq!(
        illegal(env.store.mark_paid(t, &order.id, "UTC", "", &mail).await),
        Illegal::AlreadyPaid
    );
    let sent: Vec<_> = env
        .store
        .outbox(t)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.email.subject)
        .collect();
    assert_eq!(sent, [format!("Paid: #{} is paid", order.order_number)]);
    let record = env.store.order_record(t, &order.id).await.unwrap().unwrap();
    assert_eq!(record.history[1].kind, "paid");
    assert_eq!(record.history[1].actor, "owner@shop.test");
    assert_eq!(
        o.actions().iter().map(|a| a.as_str()).collect::<Vec<_>>(),
        ["fulfil", "cancel", "refund", "resend-confirmation"]
    );
}

/// Many owners (on two nodes) acting on one order at once take turns: refunds never give
/// back more than was charged, shipments never ship more than was ordered.
async fn concurrent_moves_take_turns(env: Env) {
    let (t, mug, _) = shop(&env, "shop", 5).await;
    let order = card_order(&env, t, &[(&mug, "MUG-M", 3)]).await;
    assert_eq!(order.charged_minor(), 3750);
    let other = env.another_node().await;
    let mut tasks = Vec::new();
    for i in 0..16 {
        let store = if i % 2 == 0 {
            env.store.clone()
        } else {
            other.clone()
        };
        let id = order.id.clone();
        tasks.push(tokio::spawn(async move {
            if i % 4 < 2 {
                store
                    .begin_refund(t, &id, &RefundRequest::Amount(1000), "")
                    .await
                    .map(|_| "refund")
            } else {
                store
                    .fulfil_order(t, &id, &[(0, 1)], "", "", "", &no_order_mail)
                    .await
                    .map(|_| "ship")
            }
        }));
    }
    let (mut refunds, mut ships) = (0, 0);
    for task in tasks {
        match task.await.unwrap() {
            Ok("refund") => refunds += 1,
            Ok(_) => ships += 1,
            Err(StoreError::Illegal(_)) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!((refunds, ships), (3, 3));
    let o = env.store.order(t, &order.id).await.unwrap().unwrap();
    assert_eq!(o.refunded_minor, 3000);
    assert_eq!(o.lines[0].fulfilled_quantity, 3);
    assert_eq!(o.fulfilment, Fulfilment::Fulfilled);
    let record = env.store.order_record(t, &order.id).await.unwrap().unwrap();
    assert_eq!(record.refunds.len(), 3);
    assert_eq!(record.fulfilments.len(), 3);
}

fn query(limit: i64) -> OrderQuery {
    OrderQuery {
        limit,
        ..Default::default()
    }
}

async fn numbers(env: &Env, t: TenantId, q: OrderQuery) -> Vec<i64> {
    let page = env.store.order_page(t, &q).await.unwrap();
    page.orders.iter().map(|o| o.number).collect()
}

async fn the_list_filters_searches_and_pages(env: Env) {
    let (t, mug, ebook) = shop(&env, "shop", 50).await;
    let a = card_order(&env, t, &[(&mug, "MUG-M", 2), (&ebook, "EBOOK", 1)]).await;
    let b = pay_later_order(&env, t, &mug, 1).await;
    let c = card_order(&env, t, &[(&ebook, "EBOOK", 1)]).await;
    let d = pay_later_order(&env, t, &mug, 1).await;
    env.store
        .cancel_order(t, &d.id, "", &no_order_mail)
        .await
        .unwrap();
    let e = card_order(&env, t, &[(&mug, "MUG-M", 1)]).await;
    env.store
        .fulfil_order(t, &e.id, &[(0, 1)], "", "", "", &no_order_mail)
        .await
        .unwrap();
    let all: Vec<i64> = [&e, &d, &c, &b, &a]
        .iter()
        .map(|o| o.order_number)
        .collect();

    // Pages of two, newest first, every order once.
    let mut seen = Vec::new();
    let mut q = query(2);
    loop {
        let page = env.store.order_page(t, &q).await.unwrap();
        assert!(page.orders.len() <= 2);
        seen.extend(page.orders.iter().map(|o| o.number));
        match page.next {
            Some(next) => q.after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, all);

    let row = &env.store.order_page(t, &query(50)).await.unwrap().orders[4];
    assert_eq!(row.id, a.id);
    assert_eq!((row.item_count, row.total_minor), (3, 3000));
    assert_eq!(
        (row.email.as_str(), row.name.as_str()),
        ("buyer@b.test", "Test Buyer")
    );
    assert_eq!(
        (row.payment, row.fulfilment, row.cancelled),
        (Payment::Paid, Fulfilment::Unfulfilled, false)
    );

    let search = |s: &str| OrderQuery {
        q: Some(s.into()),
        ..query(50)
    };
    assert_eq!(
        numbers(&env, t, search(&format!("#{}", c.order_number))).await,
        [c.order_number]
    );
    assert_eq!(
        numbers(&env, t, search("  LOVELACE ")).await,
        [d.order_number, b.order_number]
    );
    assert_eq!(
        numbers(&env, t, search("LATER@B")).await,
        [d.order_number, b.order_number]
    );
    assert!(numbers(&env, t, search("%")).await.is_empty());
    assert!(numbers(&env, t, search("b_test")).await.is_empty());

    let awaiting = OrderQuery {
        payment: Some(Payment::AwaitingPayment),
        cancelled: Some(false),
        ..query(50)
    };
    assert_eq!(numbers(&env, t, awaiting).await, [b.order_number]);
    let cancelled = OrderQuery {
        cancelled: Some(true),
        ..query(50)
    };
    assert_eq!(numbers(&env, t, cancelled).await, [d.order_number]);
    let not_required = OrderQuery {
        fulfilment: Some(Fulfilment::NotRequired),
        ..query(50)
    };
    assert_eq!(numbers(&env, t, not_required).await, [c.order_number]);
    let fulfilled = OrderQuery {
        fulfilment: Some(Fulfilment::Fulfilled),
        ..query(50)
    };
    assert_eq!(numbers(&env, t, fulfilled).await, [e.order_number]);
    let window = OrderQuery {
        from_ms: Some(b.created_ms),
        to_ms: Some(d.created_ms),
        ..query(50)
    };
    let inside = numbers(&env, t, window).await;
    assert!(
        inside.contains(&b.order_number)
            && !inside.contains(&a.order_number)
            && !inside.contains(&d.order_number)
    );

    // Another site sees none of them.
    let other = env.tenant("other").await;
    assert!(
        env.store
            .order_page(other, &query(50))
            .await
            .unwrap()
            .orders
            .is_empty()
    );

    for bad in [
        query(0),
        query(tenants::MAX_ORDER_PAGE + 1),
        search(&"x".repeat(tenants::MAX_ORDER_SEARCH_CHARS + 1)),
        OrderQuery {
            after: Some("yesterday".into()),
            ..query(5)
        },
    ] {
        assert!(
            matches!(
                env.store.order_page(t, &bad).await,
                Err(StoreError::Invalid(_))
            ),
            "{bad:?}"
        );
    }
}

/// At 100,000 orders the first page and a later one read the list's index (no sort of the
/// whole table), on both backends, and come back in order.
async fn the_list_uses_its_index_at_100k_orders(env: Env) {
    let t = env.tenant("big").await;
    let noise = env.tenant("noise").await;
    let now = tenants::now_ms();
    env.store.seed_orders(noise, 1_000, now).await.unwrap();
    env.store.seed_orders(t, 100_000, now).await.unwrap();
    let first = env.store.order_page(t, &query(50)).await.unwrap();
    assert_eq!(first.orders.len(), 50);
    assert_eq!(first.orders[0].number, 1);
    let second = OrderQuery {
        after: first.next.clone(),
        ..query(50)
    };
    assert_eq!(
        numbers(&env, t, second.clone()).await,
        (51..=100).collect::<Vec<_>>()
    );
    let awaiting = OrderQuery {
        payment: Some(Payment::AwaitingPayment),
        ..query(50)
    };
    let page = env.store.order_page(t, &awaiting).await.unwrap();
    assert_eq!(page.orders[0].number, 10);
    for q in [query(50), second, awaiting] {
        let plan = env.store.explain_order_page(t, &q).await.unwrap();
        assert!(plan.contains("customer_order_by_placed"), "{q:?}\n{plan}");
        assert!(
            !plan.contains("TEMP B-TREE") && !plan.contains("Sort "),
            "{q:?}\n{plan}"
        );
    }
}

crate::on_both_backends!(
    the_list_filters_searches_and_pages,
    the_list_uses_its_index_at_100k_orders,
    fulfilment_by_line,
    cancelling_gives_stock_back,
    refunds_are_bounded_by_the_charge,
    marking_paid_delivers_once,
    concurrent_moves_take_turns,
    the_customer_summary_follows_every_move,
);

/// The customers list's per-buyer summary follows every write to an order: placed, paid,
/// refunded (and a failed refund given back), cancelled, expired; and a site's rebuilt
/// summary says the same.
async fn the_customer_summary_follows_every_move(env: Env) {
    let (t, mug, _) = shop(&env, "summary", 20).await;
    let drift = async |what: &str| {
        assert_eq!(
            env.store.customer_summary_drift(t).await.unwrap(),
            Vec::<String>::new(),
            "{what}"
        );
    };
    let row = async |email: &str| {
        let c = env.store.customer(t, email, true).await.unwrap().unwrap();
        (c.orders, c.spent_minor, c.last_order_ms)
    };
    let card = card_order(&env, t, &[(&mug, "MUG-M", 1)]).await;
    let later = pay_later_order(&env, t, &mug, 2).await;
    drift("placed").await;
    assert_eq!(
        row("buyer@b.test").await,
        (1, card.grand_total_minor, Some(card.created_ms))
    );
    assert_eq!(row("later@b.test").await, (1, 0, Some(later.created_ms)));

    env.store
        .mark_paid(t, &later.id, "UTC", "", &no_order_mail)
        .await
        .unwrap();
    drift("paid").await;
    assert_eq!(row("LATER@b.test").await.1, later.grand_total_minor);

    let (_, refund) = env
        .store
        .begin_refund(t, &card.id, &RefundRequest::Amount(200), "")
        .await
        .unwrap();
    drift("refund begun").await;
    assert_eq!(row("buyer@b.test").await.1, card.grand_total_minor - 200);
    env.store
        .finish_refund(
            t,
            &card.id,
            &refund.id,
            Err("declined".into()),
            "",
            &no_order_mail,
        )
        .await
        .unwrap();
    drift("refund failed").await;
    assert_eq!(row("buyer@b.test").await.1, card.grand_total_minor);

    // A paid order is refunded before it is cancelled.
    let (_, refund) = env
        .store
        .begin_refund(
            t,
            &card.id,
            &RefundRequest::Amount(card.charged_minor()),
            "",
        )
        .await
        .unwrap();
    env.store
        .finish_refund(
            t,
            &card.id,
            &refund.id,
            Ok("re_1".into()),
            "",
            &no_order_mail,
        )
        .await
        .unwrap();
    drift("refunded").await;
    env.store
        .cancel_order(t, &card.id, "", &no_order_mail)
        .await
        .unwrap();
    drift("cancelled").await;
    assert_eq!(row("buyer@b.test").await, (1, 0, Some(card.created_ms)));

    // A later pay-later order of the same buyer, expired: it no longer counts, and their
    // last order is the one before again.
    let expiring = pay_later_order(&env, t, &mug, 1).await;
    assert_eq!(row("later@b.test").await.0, 2);
    assert_eq!(row("later@b.test").await.2, Some(expiring.created_ms));
    env.store
        .expire_unpaid_orders(t, tenants::now_ms() + 1)
        .await
        .unwrap();
    drift("expired").await;
    assert_eq!(
        row("later@b.test").await,
        (1, later.grand_total_minor, Some(later.created_ms))
    );

    // Orders written in bulk rebuild it.
    env.store
        .seed_orders(t, 500, tenants::now_ms())
        .await
        .unwrap();
    drift("seeded").await;
    assert_eq!(row("buyer7@seed.test").await.0, 1);
}
