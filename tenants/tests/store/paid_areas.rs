//! Paid member areas (issue 44): an area's price is one of the store's products; placing a
//! paid order for it opens the area to the member whose cart it is, in the order's own
//! transaction; a cart with no member is refused before payment; cancelling the order,
//! refunding it in full or cancelling its subscription closes the area again. On both
//! backends.

use serde_json::json;

use crate::common::{Env, card, refund};
use crate::content::{collection, product};
use tenants::commerce::{CommerceSettings, PlanProblem, Refusal};
use tenants::{
    AddToCart, AreaChange, CartKind, Checkout, CheckoutTerms, PaymentMethod, SiteSettings,
    StoreError, TenantId, no_order_mail,
};

struct Shop {
    t: TenantId,
    /// A digital product, 1200: a one-time price.
    pass: String,
    /// A monthly subscription, 500.
    monthly: String,
    /// A service that costs nothing.
    free_pass: String,
    /// A monthly subscription that costs nothing (a physical one: a box a month).
    trial: String,
    mug: String,
    gift: String,
    /// A digital product with two variants.
    bundle: String,
}

async fn put(
    env: &Env,
    t: TenantId,
    c: &str,
    url: &str,
    kind: i64,
    price: i64,
    structured: serde_json::Value,
) -> String {
    let mut p = product(c, url, &format!("SKU-{url}"), 0);
    p.product_type = Some(kind);
    p.variants[0].unlimited = true;
    p.variants[0].price_minor = price;
    p.structured_content = structured.as_object().unwrap().clone();
    env.store.put_item(t, &p).await.unwrap()
}

/// A shop with areas `club` and `crew` (both free to start with).
async fn shop(env: &Env, name: &str) -> Shop {
    let t = env.tenant(name).await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let sub = json!({"isSubscribable": true,
        "subscriptionPlan": {"billingPeriod": {"value": 1, "unit": "MONTH"}, "numBillingCycles": 0}});
    let pass = put(env, t, &c, "pass", 2, 1200, json!({})).await;
    let monthly = put(env, t, &c, "monthly", 1, 500, sub.clone()).await;
    let trial = put(env, t, &c, "trial", 1, 0, sub).await;
    let free_pass = put(env, t, &c, "free-pass", 3, 0, json!({})).await;
    let mug = put(env, t, &c, "mug", 1, 1250, json!({})).await;
    let gift = put(env, t, &c, "gift", 4, 2500, json!({})).await;
    let mut b = product(&c, "bundle", "B-1", 0);
    b.product_type = Some(2);
    let mut second = b.variants[0].clone();
    second.sku = "B-2".into();
    second.attributes = [("Size".to_string(), "L".to_string())].into();
    b.variants.push(second);
    let bundle = env.store.put_item(t, &b).await.unwrap();
    env.store
        .put_site_settings(
            t,
            &SiteSettings {
                website: Default::default(),
                website_settings: json!({"memberAreas": [
                    {"id": "club", "title": "Studio Club"},
                    {"id": "crew", "title": "Kiln Crew"}
                ]})
                .as_object()
                .unwrap()
                .clone(),
            },
        )
        .await
        .unwrap();
    Shop {
        t,
        pass,
        monthly,
        free_pass,
        trial,
        mug,
        gift,
        bundle,
    }
}

fn plan(id: &str) -> AreaChange {
    AreaChange {
        plan_product_id: Some(id.into()),
        ..Default::default()
    }
}

fn problem<T: std::fmt::Debug>(r: tenants::Result<T>) -> PlanProblem {
    match r {
        Err(StoreError::Refused(Refusal::PlanProduct(p))) => p,
        other => panic!("expected a refused plan product, got {other:?}"),
    }
}

fn add(item: &str) -> AddToCart {
    AddToCart {
        item_id: item.into(),
        quantity: 1,
        ..Default::default()
    }
}

/// Places the order for `cart`, with `member` signed in at checkout, paid by card.
async fn place(
    env: &Env,
    t: TenantId,
    cart: &str,
    member: Option<&str>,
) -> tenants::Result<tenants::Order> {
    let settings = CommerceSettings::plain("USD");
    let terms = CheckoutTerms {
        shipping_address: Some(tenants::Address {
            first_name: "Ana".into(),
            last_name: "Buyer".into(),
            line1: "1 Main St".into(),
            city: "Town".into(),
            postal_code: "12345".into(),
            country: "US".into(),
            ..Default::default()
        }),
        now_ms: tenants::now_ms(),
        member: member.map(str::to_owned),
        ..Default::default()
    };
    let quote = env.store.quote_checkout(t, cart, &settings, &terms).await?;
    env.store
        .place_order(
            t,
            cart,
            &Checkout {
                settings: &settings,
                terms,
                customer_email: "ana@x.test".into(),
                expected_total_minor: Some(quote.totals.grand_total_minor),
                charge_minor: quote.charge_minor,
                payment: if quote.charge_minor == 0 {
                    PaymentMethod::None
                } else {
                    card()
                },
                test_mode: true,
                time_zone: "UTC",
            },
        )
        .await
}

async fn areas(env: &Env, t: TenantId, user: &str) -> Vec<String> {
    env.store.member_areas_of(t, user).await.unwrap()
}

async fn a_plan_is_one_of_the_stores_products(env: Env) {
    let s = shop(&env, "shop").await;
    let other = shop(&env, "other").await;
    let t = s.t;
    assert_eq!(
        problem(
            env.store
                .update_member_area(t, "club", plan(&other.pass))
                .await
        ),
        PlanProblem::NotAProduct
    );
    assert_eq!(
        problem(env.store.update_member_area(t, "club", plan("nope")).await),
        PlanProblem::NotAProduct
    );
    assert_eq!(
        problem(env.store.update_member_area(t, "club", plan(&s.mug)).await),
        PlanProblem::Physical
    );
    assert_eq!(
        problem(env.store.update_member_area(t, "club", plan(&s.gift)).await),
        PlanProblem::GiftCard
    );
    assert_eq!(
        problem(
            env.store
                .update_member_area(t, "club", plan(&s.bundle))
                .await
        ),
        PlanProblem::Variants
    );
    // Nothing was kept of a refused change.
    let kept = env.store.site_settings(t).await.unwrap();
    assert_eq!(
        kept.website_settings["memberAreas"][0].get("planProductId"),
        None
    );

    let club = env
        .store
        .update_member_area(t, "club", plan(&s.pass))
        .await
        .unwrap();
    assert_eq!(club.plan_product_id.as_deref(), Some(s.pass.as_str()));
    assert_eq!(
        problem(env.store.update_member_area(t, "crew", plan(&s.pass)).await),
        PlanProblem::Taken
    );
    let crew = env
        .store
        .update_member_area(t, "crew", plan(&s.monthly))
        .await
        .unwrap();
    assert_eq!(crew.plan_product_id.as_deref(), Some(s.monthly.as_str()));
    // Another site's area is not this site's to change.
    assert!(matches!(
        env.store
            .update_member_area(other.t, "nope", plan(&other.pass))
            .await,
        Err(StoreError::NotFound(_))
    ));

    // The picker's products: one variant, not physical unless a subscription, no gift card.
    let listed = env.store.plan_products(t).await.unwrap();
    let mut ids: Vec<&str> = listed.iter().map(|p| p.item_id.as_str()).collect();
    ids.sort();
    let mut want = vec![
        s.pass.as_str(),
        s.monthly.as_str(),
        s.free_pass.as_str(),
        s.trial.as_str(),
    ];
    want.sort();
    assert_eq!(ids, want);
    let monthly = listed.iter().find(|p| p.item_id == s.monthly).unwrap();
    assert_eq!(
        (monthly.price_minor, monthly.period.clone()),
        (500, Some((1, "MONTH".to_owned())))
    );

    // Back to free: an empty plan.
    let free = env
        .store
        .update_member_area(t, "club", plan(""))
        .await
        .unwrap();
    assert_eq!(free.plan_product_id, None);
}

async fn a_paid_order_opens_the_area_to_its_member(env: Env) {
    let s = shop(&env, "shop").await;
    let t = s.t;
    env.store
        .update_member_area(t, "club", plan(&s.pass))
        .await
        .unwrap();
    let ana = env
        .store
        .create_site_user(t, "ana@x.test", "h", "Ana")
        .await
        .unwrap();

    // Confirming a sign-up from a paid area's page does not open it.
    let signed = env
        .store
        .sign_up(
            t,
            &tenants::SignUp {
                email: "noor@x.test".into(),
                password_hash: "h".into(),
                display_name: "Noor".into(),
                member_area: Some("club".into()),
                redirect: "/club".into(),
                token_hash: "t1".into(),
                ttl_ms: 60_000,
            },
            |_| tenants::Email {
                kind: "sign-up".into(),
                from: "site@x.test".into(),
                to: "noor@x.test".into(),
                reply_to: None,
                subject: "s".into(),
                text: "t".into(),
                html: None,
            },
        )
        .await
        .unwrap();
    let tenants::SignedUp::Created(noor) = signed else {
        panic!("a new account")
    };
    let confirmed = env.store.confirm_sign_up(t, "t1").await.unwrap().unwrap();
    assert_eq!(
        (confirmed.member_area, confirmed.redirect.as_str()),
        (None, "/club")
    );
    assert!(areas(&env, t, &noor.id).await.is_empty());

    // The free join does not open a paid area.
    assert!(matches!(
        env.store.join_member_area(t, &ana.id, "club").await,
        Err(StoreError::Invalid(_))
    ));
    env.store
        .join_member_area(t, &ana.id, "crew")
        .await
        .unwrap();
    assert_eq!(areas(&env, t, &ana.id).await, ["crew"]);

    // A cart nobody owns, checked out signed out: refused before payment.
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&s.pass))
        .await
        .unwrap();
    let refused = place(&env, t, &cart.id, None).await;
    assert!(
        matches!(&refused, Err(StoreError::Refused(Refusal::SignInToJoin { area_title })) if area_title == "Studio Club"),
        "{refused:?}"
    );
    assert!(env.store.orders(t).await.unwrap().is_empty());
    // The same cart once it is the member's (signed in): the order opens the area.
    env.store
        .sign_in_cart(t, &ana.id, Some(&cart.id))
        .await
        .unwrap();
    let order = place(&env, t, &cart.id, None).await.unwrap();
    assert_eq!(areas(&env, t, &ana.id).await, ["club", "crew"]);
    let (rows, _) = env.store.members_page(t, None, None, 10).await.unwrap();
    let joined = &rows.iter().find(|r| r.user.id == ana.id).unwrap().areas;
    assert_eq!(joined[0].area, "club");
    assert_eq!(joined[0].order_id.as_deref(), Some(order.id.as_str()));
    assert_eq!(joined[0].order_number, Some(order.order_number));
    assert_eq!(
        (joined[1].area.as_str(), joined[1].order_id.as_deref()),
        ("crew", None)
    );

    // A partial refund keeps the membership; refunding the rest ends it.
    for (amount, left) in [(600, &["club", "crew"][..]), (600, &["crew"][..])] {
        refund(&env.store, t, &order.id, amount, "r", "owner").await;
        assert_eq!(areas(&env, t, &ana.id).await, left);
    }

    // A visitor's own cart with a member signed in at checkout becomes theirs.
    let cart = env.store.create_cart(t).await.unwrap();
    env.store
        .add_to_cart(t, &cart.id, &add(&s.pass))
        .await
        .unwrap();
    place(&env, t, &cart.id, Some(&ana.id)).await.unwrap();
    assert_eq!(areas(&env, t, &ana.id).await, ["club", "crew"]);
}

async fn cancelling_ends_what_the_order_opened(env: Env) {
    let s = shop(&env, "shop").await;
    let t = s.t;
    env.store
        .update_member_area(t, "club", plan(&s.trial))
        .await
        .unwrap();
    env.store
        .update_member_area(t, "crew", plan(&s.monthly))
        .await
        .unwrap();
    let ana = env
        .store
        .create_site_user(t, "ana@x.test", "h", "Ana")
        .await
        .unwrap();

    // An order that costs nothing is paid at once (a paid one is refunded in full first,
    // which closes the area already): cancelling it closes the area.
    let sc = env
        .store
        .create_token_cart(t, CartKind::Subscription, &add(&s.trial))
        .await
        .unwrap();
    let order = place(&env, t, &sc.id, Some(&ana.id)).await.unwrap();
    assert_eq!(order.charged_minor(), 0);
    assert_eq!(areas(&env, t, &ana.id).await, ["club"]);
    env.store
        .cancel_order(t, &order.id, "owner", &no_order_mail)
        .await
        .unwrap();
    assert!(areas(&env, t, &ana.id).await.is_empty());

    // A subscription's own cart: refused with nobody signed in; bought by a member, the
    // area lasts while the subscription does.
    let sc = env
        .store
        .create_token_cart(t, CartKind::Subscription, &add(&s.monthly))
        .await
        .unwrap();
    let refused = place(&env, t, &sc.id, None).await;
    assert!(
        matches!(&refused, Err(StoreError::Refused(Refusal::SignInToJoin { area_title })) if area_title == "Kiln Crew"),
        "{refused:?}"
    );
    let order = place(&env, t, &sc.id, Some(&ana.id)).await.unwrap();
    assert_eq!(areas(&env, t, &ana.id).await, ["crew"]);
    env.store
        .cancel_subscription(t, &order.subscriptions[0].id)
        .await
        .unwrap();
    assert!(areas(&env, t, &ana.id).await.is_empty());
}

crate::on_both_backends!(
    a_plan_is_one_of_the_stores_products,
    a_paid_order_opens_the_area_to_its_member,
    cancelling_ends_what_the_order_opened,
);
