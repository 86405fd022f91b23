//! The owner's dashboard and analytics counts: spans of the site's calendar read from the
//! quarter-hour roll-ups and the orders, top pages and referrers, and the to-do counts.

use serde_json::json;

use crate::common::{Env, buy, card};
use crate::content::{collection, product};
use tenants::{
    AddToCart, AnalyticsEvent, CustomerQuery, DAY_MS, Email, InventoryQuery, PageView,
    ProductQuery, SLOT_MS, Span, StockUpdate, StoreError, Tally, TenantId, day_of, minted_session,
    minted_visitor, now_ms, slot_of,
};

crate::on_both_backends!(
    counted_visits_are_the_distinct_visits,
    days_count_visits_views_funnel_and_orders,
    top_pages_and_referrers_of_a_span,
    todo_counts_what_needs_doing,
    too_many_spans_are_refused,
    inventory_lists_filters_and_pages,
    stocks_change_together_and_tell_waiting_signers,
    products_list_by_kind_search_and_pages,
    customers_join_buyers_members_and_subscribers,
    subscriptions_are_cancelled_once,
    gift_cards_list_with_their_uses,
);

/// An event `at` ms, of `session` when it is a page view with one.
fn event(
    at: i64,
    name: &str,
    path: &str,
    session: Option<&str>,
    referrer: Option<&str>,
) -> AnalyticsEvent {
    AnalyticsEvent {
        occurred_ms: at,
        name: name.into(),
        page_path: path.into(),
        visitor_id: Some("v".into()),
        referrer: referrer.map(str::to_owned),
        data: session.map_or(json!({}), |s| json!({ "session": s })),
    }
}

/// A day starting at 05:00 UTC (New York's winter midnight): what falls before 05:00 is
/// the day before.
const DAY: i64 = 20_000 * DAY_MS + 5 * 3_600_000;

/// The same traffic stored two ways gives the same numbers: as raw page views with ids the
/// server did not make (each visit and visitor a row per bucket, distinct rows counting),
/// and as the server counts its own pages (ids it made, carrying the day and quarter hour
/// they were made in: counted once when made, a row only in a later bucket), written in
/// several tallies. Visits cross quarter hours and midnights; the spans start and end on
/// every kind of boundary.
async fn counted_visits_are_the_distinct_visits(env: Env) {
    let raw = env.tenant("raw").await;
    let counted = env.tenant("counted").await;
    // A small generator, the same every run.
    let mut seed: u64 = 46;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let start = 20_000 * DAY_MS;
    // (at, visitor, session, path, referrer) for 40 visitors of 1-3 visits of 1-6 pages
    // within 30 minutes, over three days (a fifth of the visits start near a midnight).
    let mut views = Vec::new();
    let mut session_no = 0;
    for visitor in 0..40u64 {
        for _ in 0..=next(3) {
            session_no += 1;
            let begin = if next(5) == 0 {
                start + (1 + next(2) as i64) * DAY_MS - 600_000 + next(300_000) as i64
            } else {
                start + next(3 * DAY_MS as u64) as i64
            };
            let mut at = begin;
            for _ in 0..=next(6) {
                let path = ["/", "/shop", "/about", "/checkout"][next(4) as usize];
                let referrer = [None, Some("search.example")][next(2) as usize];
                views.push((at, visitor, session_no, path, referrer));
                at += next(360_000) as i64;
                if at >= begin + 1_800_000 {
                    break;
                }
            }
        }
    }
    views.sort();
    // Raw, with ids of their own.
    let events: Vec<_> = views
        .iter()
        .map(|&(at, v, s, path, referrer)| AnalyticsEvent {
            occurred_ms: at,
            name: "pageview".into(),
            page_path: path.into(),
            visitor_id: Some(format!("visitor-{v}")),
            referrer: referrer.map(str::to_owned),
            data: json!({ "session": format!("session-{s}") }),
        })
        .collect();
    env.store.record_events(raw, &events).await.unwrap();
    // Counted, with ids made at each visitor's and visit's first page.
    let mut visitors = std::collections::HashMap::new();
    let mut sessions = std::collections::HashMap::new();
    let mut tally = Tally::new();
    for (k, &(at, v, s, path, referrer)) in views.iter().enumerate() {
        let new_visitor = !visitors.contains_key(&v);
        let vid = visitors
            .entry(v)
            .or_insert_with(|| minted_visitor(day_of(at), &format!("{v:032x}")))
            .clone();
        let new_session = !sessions.contains_key(&s);
        let sid = sessions
            .entry(s)
            .or_insert_with(|| minted_session(slot_of(at), &format!("{s:032x}")))
            .clone();
        let view = PageView {
            occurred_ms: at,
            page_path: path.into(),
            referrer: referrer.map(str::to_owned),
            // As the server sends them: a visitor or visit this page named goes without its
            // id (only the cookie carries it).
            visitor_id: (!new_visitor).then_some(vid),
            session: (!new_session).then_some(sid),
            new_visitor,
            new_session,
        };
        tally.page_view(counted, &view);
        if k % 17 == 16 {
            env.store.record_analytics(&tally, &[]).await.unwrap();
            tally = Tally::new();
        }
    }
    env.store.record_analytics(&tally, &[]).await.unwrap();

    for since in 19_999..20_004 {
        let want = env.store.analytics_summary(raw, since).await.unwrap();
        let got = env.store.analytics_summary(counted, since).await.unwrap();
        assert_eq!(got, want, "since day {since}");
    }
    let want = env.store.analytics_summary(raw, 20_000).await.unwrap();
    assert!(want.visits > 40 && want.unique_visitors == 40, "{want:?}");
    // Days from midnight, from 05:00 and from 23:45; a quarter hour; periods; an empty one.
    let mut spans = Vec::new();
    for offset in [0, 5 * 3_600_000, DAY_MS - SLOT_MS] {
        for d in -1..4 {
            let lo = start + d * DAY_MS + offset;
            spans.push(Span {
                start_ms: lo,
                end_ms: lo + DAY_MS,
            });
        }
    }
    for _ in 0..40 {
        let lo = start + next(3 * 96) as i64 * SLOT_MS;
        spans.push(Span {
            start_ms: lo,
            end_ms: lo + (1 + next(2 * 96) as i64) * SLOT_MS,
        });
    }
    let want = env.store.span_counts(raw, &spans, false).await.unwrap();
    let got = env.store.span_counts(counted, &spans, false).await.unwrap();
    for ((span, w), g) in spans.iter().zip(&want).zip(&got) {
        assert_eq!(g, w, "{span:?}");
    }
    assert!(want.iter().any(|c| c.visits > 10));
    for span in &spans[..6] {
        assert_eq!(
            env.store.span_top(counted, *span, 10).await.unwrap(),
            env.store.span_top(raw, *span, 10).await.unwrap()
        );
    }
}

async fn days_count_visits_views_funnel_and_orders(env: Env) {
    let t = env.tenant("stats").await;
    let other = env.tenant("other").await;
    let h = 3_600_000;
    env.store
        .record_events(
            t,
            &[
                // The day before (04:59 UTC).
                event(DAY - 60_000, "pageview", "/", Some("s0"), None),
                // The day: two visits, s1 crossing a quarter hour.
                event(DAY + h, "pageview", "/", Some("s1"), Some("search.example")),
                event(DAY + h + SLOT_MS, "pageview", "/shop", Some("s1"), None),
                event(DAY + 2 * h, "page_view", "/shop", Some("s2"), None),
                event(DAY + 2 * h, "add-to-cart", "/shop", None, None),
                event(DAY + 2 * h, "pageview", "/checkout", Some("s2"), None),
                event(
                    DAY + 2 * h,
                    "pageview",
                    "/checkout/subscription",
                    Some("s2"),
                    None,
                ),
                event(DAY + 2 * h, "purchase", "/checkout", None, None),
                event(DAY + 2 * h, "something-else", "/", None, None),
                // The day after (the next 05:00 UTC).
                event(DAY + DAY_MS, "pageview", "/", Some("s1"), None),
            ],
        )
        .await
        .unwrap();
    // Another site's visits are never counted.
    env.store
        .record_events(other, &[event(DAY + h, "pageview", "/", Some("x"), None)])
        .await
        .unwrap();

    let day = |k: i64| Span {
        start_ms: DAY + k * DAY_MS,
        end_ms: DAY + (k + 1) * DAY_MS,
    };
    let both = Span {
        start_ms: DAY,
        end_ms: DAY + 2 * DAY_MS,
    };
    let c = env
        .store
        .span_counts(t, &[day(-1), day(0), day(1), both], false)
        .await
        .unwrap();
    assert_eq!((c[0].visits, c[0].page_views), (1, 1));
    let d = &c[1];
    assert_eq!(
        (
            d.visits,
            d.page_views,
            d.add_to_carts,
            d.checkouts,
            d.purchases
        ),
        (2, 5, 1, 2, 1)
    );
    assert_eq!((c[2].visits, c[2].page_views), (1, 1));
    // A period's visits are distinct: s1 came on both days.
    assert_eq!((c[3].visits, c[3].page_views), (2, 6));
    assert_eq!(c[3].orders, 0);

    // Orders: a test order counts only when test orders are asked for; revenue is what is
    // paid.
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let item = env
        .store
        .put_item(t, &product(&c, "mug", "MUG", 5))
        .await
        .unwrap();
    let cart = env.store.create_cart(t).await.unwrap();
    let add = AddToCart {
        item_id: item,
        sku: "MUG".into(),
        quantity: 2,
        ..Default::default()
    };
    env.store.add_to_cart(t, &cart.id, &add).await.unwrap();
    let order = buy(&env.store, t, &cart.id, "a@example.com").await.unwrap();
    let now = now_ms();
    let today = Span {
        start_ms: now - DAY_MS,
        end_ms: now + DAY_MS,
    };
    let live = env.store.span_counts(t, &[today], false).await.unwrap();
    assert_eq!((live[0].orders, live[0].revenue_minor), (0, 0));
    let test = env.store.span_counts(t, &[today], true).await.unwrap();
    assert_eq!(
        (test[0].orders, test[0].revenue_minor),
        (1, order.grand_total_minor)
    );
    assert!(order.grand_total_minor >= 2500);
    let elsewhere = env.store.span_counts(other, &[today], true).await.unwrap();
    assert_eq!(elsewhere[0].orders, 0);
}

async fn top_pages_and_referrers_of_a_span(env: Env) {
    let t = env.tenant("stats").await;
    let mut events = Vec::new();
    for (i, path) in ["/a", "/b", "/b", "/c", "/c", "/c"].iter().enumerate() {
        let referrer = (i % 2 == 0).then_some("news.example");
        events.push(event(DAY + i as i64, "pageview", path, Some("s"), referrer));
    }
    // Outside the span.
    events.push(event(
        DAY + DAY_MS,
        "pageview",
        "/a",
        Some("s"),
        Some("late.example"),
    ));
    env.store.record_events(t, &events).await.unwrap();
    let span = Span {
        start_ms: DAY,
        end_ms: DAY + DAY_MS,
    };
    let (pages, referrers) = env.store.span_top(t, span, 2).await.unwrap();
    assert_eq!(pages, [("/c".to_owned(), 3), ("/b".to_owned(), 2)]);
    assert_eq!(referrers, [("news.example".to_owned(), 3)]);
    let other = env.tenant("other").await;
    let (pages, referrers) = env.store.span_top(other, span, 10).await.unwrap();
    assert!(pages.is_empty() && referrers.is_empty());
}

async fn todo_counts_what_needs_doing(env: Env) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let low = env
        .store
        .put_item(t, &product(&c, "low", "LOW", 3))
        .await
        .unwrap();
    env.store
        .put_item(t, &product(&c, "plenty", "PLENTY", 50))
        .await
        .unwrap();
    let sold_out = env
        .store
        .put_item(t, &product(&c, "none", "NONE", 0))
        .await
        .unwrap();
    for email in ["a@example.com", "b@example.com"] {
        env.store
            .restock_signup(t, &sold_out, "NONE", email, false, None)
            .await
            .unwrap();
    }
    let todo = env.store.owner_todo(t, 5, true).await.unwrap();
    assert_eq!(
        (
            todo.low_stock,
            todo.to_fulfil,
            todo.unpaid,
            todo.restock_waiting
        ),
        (2, 0, 0, 2)
    );
    assert_eq!(env.store.owner_todo(t, 0, true).await.unwrap().low_stock, 1);

    let cart = env.store.create_cart(t).await.unwrap();
    let add = AddToCart {
        item_id: low,
        sku: "LOW".into(),
        quantity: 1,
        ..Default::default()
    };
    env.store.add_to_cart(t, &cart.id, &add).await.unwrap();
    let order = buy(&env.store, t, &cart.id, "a@example.com").await.unwrap();
    assert_eq!(env.store.owner_todo(t, 5, true).await.unwrap().to_fulfil, 1);
    // A live store does not count its test orders.
    assert_eq!(
        env.store.owner_todo(t, 5, false).await.unwrap().to_fulfil,
        0
    );
    // Once shipped, it is no longer to do.
    env.store
        .fulfil_order(
            t,
            &order.id,
            &[(0, 1)],
            "",
            "",
            "owner@shop.test",
            &tenants::no_order_mail,
        )
        .await
        .unwrap();
    assert_eq!(env.store.owner_todo(t, 5, true).await.unwrap().to_fulfil, 0);
    // Another site has nothing to do.
    let other = env.tenant("other").await;
    assert_eq!(
        env.store.owner_todo(other, 5, true).await.unwrap(),
        Default::default()
    );
}

async fn too_many_spans_are_refused(env: Env) {
    let t = env.tenant("stats").await;
    let spans = vec![
        Span {
            start_ms: DAY,
            end_ms: DAY + DAY_MS
        };
        tenants::MAX_SPANS + 1
    ];
    let err = env.store.span_counts(t, &spans, false).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    let year = vec![
        Span {
            start_ms: DAY,
            end_ms: DAY + DAY_MS
        };
        366
    ];
    assert_eq!(
        env.store.span_counts(t, &year, false).await.unwrap().len(),
        366
    );
}

/// A shop with a two-variant mug (S: 0, L: 3), a bowl (20) and an unlimited print: the
/// tenant and the three item ids.
async fn inventory_shop(env: &Env, identifier: &str) -> (TenantId, [String; 3]) {
    let t = env.tenant(identifier).await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mut mug = product(&c, "mug", "MUG-S", 0);
    mug.title = "Mug".into();
    let mut large = mug.variants[0].clone();
    large.sku = "MUG-L".into();
    large.qty_in_stock = 3;
    large.attributes = [("Size".to_string(), "L".to_string())].into();
    mug.variants.push(large);
    let mug = env.store.put_item(t, &mug).await.unwrap();
    let mut bowl = product(&c, "bowl", "BOWL_1", 20);
    bowl.title = "Bowl 50%".into();
    let bowl = env.store.put_item(t, &bowl).await.unwrap();
    let mut print = product(&c, "print", "PRINT", 0);
    print.title = "Print".into();
    print.variants[0].unlimited = true;
    let print = env.store.put_item(t, &print).await.unwrap();
    (t, [mug, bowl, print])
}

fn query(q: Option<&str>, low_stock: Option<i64>, limit: usize) -> InventoryQuery {
    InventoryQuery {
        q: q.map(str::to_owned),
        low_stock,
        after: None,
        limit,
    }
}

async fn inventory_lists_filters_and_pages(env: Env) {
    let (t, [mug, _bowl, _print]) = inventory_shop(&env, "shop").await;
    env.store
        .restock_signup(t, &mug, "MUG-S", "a@example.com", false, None)
        .await
        .unwrap();
    let all = env
        .store
        .inventory(t, &query(None, None, 50))
        .await
        .unwrap();
    let rows: Vec<_> = all
        .rows
        .iter()
        .map(|r| {
            (
                r.product_title.as_str(),
                r.sku.as_str(),
                r.stock,
                r.restock_waiting,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("Bowl 50%", "BOWL_1", Some(20), 0),
            ("Mug", "MUG-S", Some(0), 1),
            ("Mug", "MUG-L", Some(3), 0),
            ("Print", "PRINT", None, 0),
        ]
    );
    assert_eq!(all.rows[2].attributes["Size"], "L");
    assert!(all.next.is_none());

    // Low stock: counted stock at or under the threshold, never unlimited.
    let low = env
        .store
        .inventory(t, &query(None, Some(5), 50))
        .await
        .unwrap();
    let skus: Vec<_> = low.rows.iter().map(|r| r.sku.as_str()).collect();
    assert_eq!(skus, ["MUG-S", "MUG-L"]);
    // Search by title or SKU, any case; `%` and `_` are plain characters.
    for (q, want) in [
        ("mug-l", vec!["MUG-L"]),
        ("MUG", vec!["MUG-S", "MUG-L"]),
        ("50%", vec!["BOWL_1"]),
        ("_", vec!["BOWL_1"]),
        ("%", vec!["BOWL_1"]),
        ("nothing", vec![]),
    ] {
        let page = env
            .store
            .inventory(t, &query(Some(q), None, 50))
            .await
            .unwrap();
        let skus: Vec<_> = page.rows.iter().map(|r| r.sku.as_str()).collect();
        assert_eq!(skus, want, "{q}");
    }
    // Pages of one row, following the cursor, give every row once.
    let mut seen = Vec::new();
    let mut q = query(None, None, 1);
    loop {
        let page = env.store.inventory(t, &q).await.unwrap();
        assert!(page.rows.len() <= 1);
        seen.extend(page.rows.iter().map(|r| r.sku.clone()));
        match page.next {
            Some(next) => q.after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, ["BOWL_1", "MUG-S", "MUG-L", "PRINT"]);
    // Another site has none of these.
    let other = env.tenant("other").await;
    assert!(
        env.store
            .inventory(other, &query(None, None, 50))
            .await
            .unwrap()
            .rows
            .is_empty()
    );
    let mine = [(mug.clone(), "MUG-L".to_owned())];
    assert!(
        env.store
            .inventory_of(other, &mine)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        env.store.inventory_of(t, &mine).await.unwrap()[0].stock,
        Some(3)
    );
}

fn back(item: &str, sku: &str) -> Option<Email> {
    Some(Email {
        kind: "restock".into(),
        from: "shop@example.test".into(),
        to: String::new(),
        reply_to: None,
        subject: format!("{item}/{sku} is back"),
        text: "Back in stock".into(),
        html: None,
    })
}

fn update(item: &str, sku: &str, qty: i64, unlimited: bool) -> StockUpdate {
    StockUpdate {
        item_id: item.into(),
        sku: sku.into(),
        qty,
        unlimited,
    }
}

async fn stocks_change_together_and_tell_waiting_signers(env: Env) {
    let (t, [mug, bowl, print]) = inventory_shop(&env, "shop").await;
    for email in ["a@example.com", "b@example.com"] {
        env.store
            .restock_signup(t, &mug, "MUG-S", email, false, None)
            .await
            .unwrap();
    }
    let notice: &tenants::RestockNotice = &back;
    let told = env
        .store
        .set_stocks_notifying(
            t,
            &[
                update(&mug, "MUG-S", 4, false),
                update(&bowl, "BOWL_1", 0, false),
                update(&print, "PRINT", 7, false),
                update(&mug, "MUG-L", 0, true),
            ],
            Some(notice),
        )
        .await
        .unwrap()
        .unwrap();
    // The raise from sold out told both signers; the others told nobody.
    assert_eq!(told, [2, 0, 0, 0]);
    let outbox = env.store.outbox(t).await.unwrap();
    assert_eq!(outbox.len(), 2);
    let levels: Vec<_> = env
        .store
        .inventory(t, &query(None, None, 50))
        .await
        .unwrap()
        .rows
        .into_iter()
        .map(|r| (r.sku, r.stock, r.restock_waiting))
        .collect();
    assert_eq!(
        levels,
        [
            ("BOWL_1".to_owned(), Some(0), 0),
            ("MUG-S".to_owned(), Some(4), 0),
            ("MUG-L".to_owned(), None, 0),
            ("PRINT".to_owned(), Some(7), 0),
        ]
    );

    // One unknown variant (or another site's) changes nothing: the index names it.
    let other = env.tenant("other").await;
    let r = env
        .store
        .set_stocks_notifying(
            t,
            &[
                update(&bowl, "BOWL_1", 9, false),
                update(&mug, "NOPE", 1, false),
            ],
            None,
        )
        .await
        .unwrap();
    assert_eq!(r, Err(1));
    let r = env
        .store
        .set_stocks_notifying(other, &[update(&bowl, "BOWL_1", 9, false)], None)
        .await
        .unwrap();
    assert_eq!(r, Err(0));
    let r = env
        .store
        .set_stocks_notifying(t, &[update(&bowl, "BOWL_1", -1, false)], None)
        .await
        .unwrap();
    assert_eq!(r, Err(0));
    assert_eq!(env.store.stock(t, &bowl).await.unwrap()[0].qty_in_stock, 0);
}

async fn products_list_by_kind_search_and_pages(env: Env) {
    let (t, [mug, bowl, print]) = inventory_shop(&env, "shop").await;
    let c = env
        .store
        .collection_by_url(t, "store")
        .await
        .unwrap()
        .unwrap()
        .id;
    let mut card = product(&c, "card", "CARD", 0);
    card.title = "Gift card".into();
    card.product_type = Some(4);
    card.variants[0].unlimited = true;
    let card = env.store.put_item(t, &card).await.unwrap();
    let mut box_ = product(&c, "box", "BOX", 8);
    box_.title = "Tea box".into();
    box_.structured_content
        .insert("isSubscribable".into(), json!(true));
    box_.structured_content.insert(
        "subscriptionPlan".into(),
        json!({"billingPeriod": {"value": 1, "unit": "MONTH"}}),
    );
    let box_ = env.store.put_item(t, &box_).await.unwrap();
    // A sale on the bowl's only variant.
    let mut on_sale = env.store.item(t, &bowl).await.unwrap().unwrap();
    on_sale.variants[0].on_sale = true;
    on_sale.variants[0].sale_price_minor = 900;
    env.store.put_item(t, &on_sale).await.unwrap();

    let all = |q: ProductQuery| {
        let store = &env.store;
        async move { store.product_rows(t, &q).await.unwrap() }
    };
    let q = |q: Option<&str>, kind: Option<&str>, limit: usize| ProductQuery {
        q: q.map(str::to_owned),
        kind: kind.map(str::to_owned),
        after: None,
        limit,
    };
    let (rows, next) = all(q(None, None, 50)).await;
    assert!(next.is_none());
    let got: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r.title.as_str(),
                r.kind.as_str(),
                r.price_minor,
                r.on_sale,
                r.stock,
                r.visible,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("Bowl 50%", "physical", 900, true, Some(20), true),
            ("Gift card", "gift-card", 1250, false, None, true),
            ("Mug", "physical", 1250, false, Some(3), true),
            ("Print", "physical", 1250, false, None, true),
            ("Tea box", "subscription", 1250, false, Some(8), true),
        ]
    );
    assert_eq!(rows[2].id, mug);
    for (kind, want) in [
        ("gift-card", vec![card.clone()]),
        ("subscription", vec![box_.clone()]),
        ("physical", vec![bowl.clone(), mug.clone(), print.clone()]),
        ("digital", vec![]),
    ] {
        let ids: Vec<_> = all(q(None, Some(kind), 50))
            .await
            .0
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids, want, "{kind}");
    }
    assert!(matches!(
        env.store.product_rows(t, &q(None, Some("boat"), 50)).await,
        Err(StoreError::Invalid(_))
    ));
    let ids: Vec<_> = all(q(Some("TEA"), None, 50))
        .await
        .0
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [box_]);
    // Pages of two.
    let mut seen = Vec::new();
    let mut page = q(None, None, 2);
    loop {
        let (rows, next) = all(page.clone()).await;
        seen.extend(rows.into_iter().map(|r| r.title));
        match next {
            Some(n) => page.after = Some(n),
            None => break,
        }
    }
    assert_eq!(seen, ["Bowl 50%", "Gift card", "Mug", "Print", "Tea box"]);
    let other = env.tenant("other").await;
    assert!(
        env.store
            .product_rows(other, &q(None, None, 50))
            .await
            .unwrap()
            .0
            .is_empty()
    );
}

async fn customers_join_buyers_members_and_subscribers(env: Env) {
    let (t, [_mug, bowl, _print]) = inventory_shop(&env, "shop").await;
    let order = |email: &'static str| {
        let store = &env.store;
        let bowl = bowl.clone();
        async move {
            let cart = store.create_cart(t).await.unwrap();
            let add = AddToCart {
                item_id: bowl,
                sku: "BOWL_1".into(),
                quantity: 1,
                ..Default::default()
            };
            store.add_to_cart(t, &cart.id, &add).await.unwrap();
            buy(store, t, &cart.id, email).await.unwrap()
        }
    };
    let first = order("ada@example.com").await;
    let second = order("Ada@Example.com").await;
    let bob = order("bob@example.com").await;
    env.store
        .create_site_user(t, "bob@example.com", "x", "Bob Member")
        .await
        .unwrap();
    env.store
        .create_site_user(t, "cy@example.com", "x", "Cy")
        .await
        .unwrap();
    // A restock sign-up that joins the list makes a subscriber.
    env.store
        .restock_signup(t, &bowl, "BOWL_1", "dee@example.com", true, None)
        .await
        .unwrap();

    let q = |q: Option<&str>, limit: usize| CustomerQuery {
        q: q.map(str::to_owned),
        after: None,
        limit,
        test_orders: true,
    };
    let (rows, next) = env.store.customers(t, &q(None, 50)).await.unwrap();
    assert!(next.is_none());
    let got: Vec<_> = rows
        .iter()
        .map(|c| {
            (
                c.email.as_str(),
                c.name.as_str(),
                c.orders,
                c.member,
                c.subscriber,
            )
        })
        .collect();
    // The latest buyer first, then the others by email.
    assert_eq!(
        got,
        [
            ("bob@example.com", "Bob Member", 1, true, false),
            ("ada@example.com", "Test Buyer", 2, false, false),
            ("cy@example.com", "Cy", 0, true, false),
            ("dee@example.com", "", 0, false, true),
        ]
    );
    assert_eq!(
        rows[1].spent_minor,
        first.grand_total_minor + second.grand_total_minor
    );
    assert_eq!(rows[0].last_order_ms, Some(bob.created_ms));
    assert_eq!(rows[2].last_order_ms, None);
    // A live store does not count test orders (the buyers stay, with none).
    let live = CustomerQuery {
        test_orders: false,
        ..q(Some("ada"), 50)
    };
    let (rows, _) = env.store.customers(t, &live).await.unwrap();
    assert!(rows.is_empty(), "{rows:?}");
    // Search: email, member name, the names and addresses on orders.
    for (text, want) in [
        ("ADA@", vec!["ada@example.com"]),
        ("member", vec!["bob@example.com"]),
        ("BUYER", vec!["bob@example.com", "ada@example.com"]),
        ("dee", vec!["dee@example.com"]),
        ("%", vec![]),
    ] {
        let (rows, _) = env.store.customers(t, &q(Some(text), 50)).await.unwrap();
        let emails: Vec<_> = rows.iter().map(|c| c.email.as_str()).collect();
        assert_eq!(emails, want, "{text}");
    }
    // Pages of one.
    let mut seen = Vec::new();
    let mut page = q(None, 1);
    loop {
        let (rows, next) = env.store.customers(t, &page).await.unwrap();
        seen.extend(rows.into_iter().map(|c| c.email));
        match next {
            Some(n) => page.after = Some(n),
            None => break,
        }
    }
    assert_eq!(
        seen,
        [
            "bob@example.com",
            "ada@example.com",
            "cy@example.com",
            "dee@example.com"
        ]
    );
    // One customer, any case; their orders newest first.
    let ada = env
        .store
        .customer(t, "ADA@example.com", true)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((ada.orders, ada.name.as_str()), (2, "Test Buyer"));
    let orders = env
        .store
        .orders_of_customer(t, "ada@EXAMPLE.com", 10, true)
        .await
        .unwrap();
    let ids: Vec<_> = orders.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, [second.id.as_str(), first.id.as_str()]);
    assert_eq!(
        env.store
            .orders_of_customer(t, "ada@example.com", 1, true)
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        env.store
            .customer(t, "nobody@example.com", true)
            .await
            .unwrap()
            .is_none()
    );
    // Another site knows none of them.
    let other = env.tenant("other").await;
    assert!(
        env.store
            .customers(other, &q(None, 50))
            .await
            .unwrap()
            .0
            .is_empty()
    );
    assert!(
        env.store
            .customer(other, "ada@example.com", true)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .orders_of_customer(other, "ada@example.com", 10, true)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn subscriptions_are_cancelled_once(env: Env) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mut p = product(&c, "box", "BOX", 5);
    p.structured_content
        .insert("isSubscribable".into(), json!(true));
    p.structured_content.insert(
        "subscriptionPlan".into(),
        json!({"billingPeriod": {"value": 1, "unit": "MONTH"}, "numBillingCycles": 0}),
    );
    let item = env.store.put_item(t, &p).await.unwrap();
    let add = AddToCart {
        item_id: item,
        sku: "BOX".into(),
        quantity: 1,
        ..Default::default()
    };
    let cart = env
        .store
        .create_token_cart(t, tenants::CartKind::Subscription, &add)
        .await
        .unwrap();
    let order = buy(&env.store, t, &cart.id, "sub@example.com")
        .await
        .unwrap();
    let id = order.subscriptions[0].id.clone();
    assert_eq!(order.subscriptions[0].status, "active");

    // Another site cannot touch it.
    let other = env.tenant("other").await;
    assert!(matches!(
        env.store.cancel_subscription(other, &id).await,
        Err(StoreError::NotFound(_))
    ));
    // Two cancels at once: one wins, the other finds it cancelled.
    let node2 = env.another_node().await;
    let (a, b) = tokio::join!(
        env.store.cancel_subscription(t, &id),
        node2.cancel_subscription(t, &id)
    );
    let (won, lost) = if a.is_ok() { (a, b) } else { (b, a) };
    let won = won.unwrap();
    assert_eq!(
        (won.status.as_str(), won.next_billing_ms),
        ("cancelled", None)
    );
    assert!(
        matches!(lost, Err(StoreError::Conflict(ref s)) if s == "cancelled"),
        "{lost:?}"
    );
    let stored = env
        .store
        .orders_of_customer(t, "sub@example.com", 1, true)
        .await
        .unwrap();
    assert_eq!(stored[0].subscriptions[0].status, "cancelled");
    assert!(stored[0].subscriptions[0].next_billing_ms.is_none());
    assert!(matches!(
        env.store.cancel_subscription(t, "nope").await,
        Err(StoreError::NotFound(_))
    ));
}

async fn gift_cards_list_with_their_uses(env: Env) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mut gift = product(&c, "gift", "GC-25", 0);
    gift.product_type = Some(4);
    gift.variants[0].unlimited = true;
    gift.variants[0].price_minor = 2500;
    gift.variants[0].attributes = [("Amount".to_string(), "$25".to_string())].into();
    let gift = env.store.put_item(t, &gift).await.unwrap();
    let lesson_item = {
        let mut p = product(&c, "lesson", "LESSON", 10);
        p.product_type = Some(3);
        env.store.put_item(t, &p).await.unwrap()
    };
    let cart = env.store.create_cart(t).await.unwrap();
    let add = |item: &str, sku: &str, quantity: i64| AddToCart {
        item_id: item.into(),
        sku: sku.into(),
        quantity,
        ..Default::default()
    };
    env.store
        .add_to_cart(t, &cart.id, &add(&gift, "GC-25", 2))
        .await
        .unwrap();
    let bought = buy(&env.store, t, &cart.id, "giver@example.com")
        .await
        .unwrap();
    let spent_code = bought.gift_cards[0].code.clone();

    // Spend 12.50 of one card.
    let settings = tenants::commerce::CommerceSettings::plain("USD");
    let spend_cart = env.store.create_cart(t).await.unwrap().id;
    env.store
        .add_to_cart(t, &spend_cart, &add(&lesson_item, "LESSON", 1))
        .await
        .unwrap();
    let terms = tenants::CheckoutTerms {
        gift_card_code: Some(spent_code.clone()),
        now_ms: now_ms(),
        ..Default::default()
    };
    let quote = env
        .store
        .quote_checkout(t, &spend_cart, &settings, &terms)
        .await
        .unwrap();
    let spending = env
        .store
        .place_order(
            t,
            &spend_cart,
            &tenants::Checkout {
                settings: &settings,
                terms,
                customer_email: "spender@example.com".into(),
                expected_total_minor: None,
                charge_minor: quote.charge_minor,
                payment: card(),
                test_mode: true,
                time_zone: "UTC",
            },
        )
        .await
        .unwrap();

    let q = |q: Option<&str>, limit: usize| tenants::GiftCardQuery {
        q: q.map(str::to_owned),
        after: None,
        limit,
    };
    let (rows, next) = env.store.gift_card_rows(t, &q(None, 50)).await.unwrap();
    assert!(next.is_none());
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|g| g.buyer_email == "giver@example.com"
        && g.order_id == bought.id
        && g.order_number == bought.order_number
        && g.initial_minor == 2500));
    let used = rows.iter().find(|g| g.code == spent_code).unwrap();
    assert_eq!(used.balance_minor, 2500 - 1250);
    assert_eq!(used.uses.len(), 1);
    assert_eq!(
        (used.uses[0].order_id.as_str(), used.uses[0].amount_minor),
        (spending.id.as_str(), 1250)
    );
    let unused = rows.iter().find(|g| g.code != spent_code).unwrap();
    assert!(unused.uses.is_empty() && unused.balance_minor == 2500);
    // Search by the buyer or the code.
    let (found, _) = env
        .store
        .gift_card_rows(t, &q(Some(&spent_code.to_lowercase()), 50))
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, spent_code);
    assert_eq!(
        env.store
            .gift_card_rows(t, &q(Some("GIVER"), 50))
            .await
            .unwrap()
            .0
            .len(),
        2
    );
    assert!(
        env.store
            .gift_card_rows(t, &q(Some("spender"), 50))
            .await
            .unwrap()
            .0
            .is_empty()
    );
    // Pages of one.
    let (first, next) = env.store.gift_card_rows(t, &q(None, 1)).await.unwrap();
    let after = tenants::GiftCardQuery {
        after: next,
        ..q(None, 1)
    };
    let (second, last) = env.store.gift_card_rows(t, &after).await.unwrap();
    assert!(last.is_none());
    assert_ne!(first[0].code, second[0].code);
    let other = env.tenant("other").await;
    assert!(
        env.store
            .gift_card_rows(other, &q(None, 50))
            .await
            .unwrap()
            .0
            .is_empty()
    );
}
