use serde_json::json;

use crate::common::Env;
use crate::content::{collection, product};
use tenants::{AnalyticsEvent, Email, Form, PerformanceRecord, StoreError, TemplateFile};

async fn forms_keys_and_submissions(env: Env) {
    let t = env.tenant("site").await;
    let form = Form {
        id: String::new(),
        name: "Contact".into(),
        fields: json!([{"id": "email", "type": "email"}]),
        settings: Default::default(),
    };
    let fid = env.store.put_form(t, &form).await.unwrap();
    assert_eq!(
        env.store.form(t, &fid).await.unwrap().unwrap().name,
        "Contact"
    );
    let key = env.store.create_submission_key(t, 60_000).await.unwrap();
    let page = json!({"pagePath": "/contact", "contentSource": "c"});
    let sub = env
        .store
        .save_submission(
            t,
            &key,
            &fid,
            &json!({"email": "a@b.test"}),
            &page,
            &[],
            None,
        )
        .await
        .unwrap();
    assert_eq!(sub.answers["email"], "a@b.test");
    // A key works once.
    let err = env
        .store
        .save_submission(t, &key, &fid, &json!({}), &page, &[], None)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    // An expired key does not work.
    let old = env.store.create_submission_key(t, -1).await.unwrap();
    assert!(matches!(
        env.store
            .save_submission(t, &old, &fid, &json!({}), &page, &[], None)
            .await,
        Err(StoreError::Invalid(_))
    ));
    // Unknown form.
    let k2 = env.store.create_submission_key(t, 60_000).await.unwrap();
    assert!(matches!(
        env.store
            .save_submission(t, &k2, "nope", &json!({}), &page, &[], None)
            .await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(
        env.store.form_submissions(t, &fid).await.unwrap(),
        vec![sub]
    );
    let counts = env.store.form_submission_counts(t).await.unwrap();
    assert_eq!(counts.get(&fid), Some(&1));
    assert_eq!(counts.len(), 1);

    // Deleting: another site's id deletes nothing; the form's own goes with its answers.
    let other = env.tenant("other").await;
    assert!(!env.store.delete_form(other, &fid).await.unwrap());
    assert!(env.store.form(t, &fid).await.unwrap().is_some());
    assert!(env.store.delete_form(t, &fid).await.unwrap());
    assert!(env.store.form(t, &fid).await.unwrap().is_none());
    assert_eq!(env.store.form_submissions(t, &fid).await.unwrap(), vec![]);
    assert!(
        env.store
            .form_submission_counts(t)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(!env.store.delete_form(t, &fid).await.unwrap());
}

async fn restock_signups_group_and_paginate(env: Env) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mut p = product(&c, "mug", "MUG-S", 0);
    let mut v2 = p.variants[0].clone();
    v2.sku = "MUG-L".into();
    p.variants.push(v2);
    let item = env.store.put_item(t, &p).await.unwrap();
    for i in 0..3 {
        env.store
            .restock_signup(
                t,
                &item,
                "MUG-S",
                &format!("V{i}@Example.test"),
                i == 0,
                None,
            )
            .await
            .unwrap();
    }
    let again = env
        .store
        .restock_signup(t, &item, "MUG-S", "v0@example.test", false, None)
        .await
        .unwrap();
    assert!(
        again.join_mailing_list,
        "a repeated sign-up keeps the first one"
    );
    env.store
        .restock_signup(t, &item, "MUG-L", "x@example.test", false, Some("fr-FR"))
        .await
        .unwrap();
    assert!(matches!(
        env.store
            .restock_signup(t, &item, "NOPE", "x@example.test", false, None)
            .await,
        Err(StoreError::NotFound(_))
    ));

    let first = env.store.restock_groups(t, None, 1).await.unwrap();
    assert!(first.has_next_page);
    assert_eq!(
        (first.rows[0].sku.as_str(), first.rows[0].pending),
        ("MUG-L", 1)
    );
    let second = env
        .store
        .restock_groups(t, first.next_page_cursor.as_deref(), 1)
        .await
        .unwrap();
    assert_eq!(
        (second.rows[0].sku.as_str(), second.rows[0].pending),
        ("MUG-S", 3)
    );
    assert!(!second.has_next_page);

    let p1 = env
        .store
        .restock_signups(t, &item, "MUG-S", None, 2)
        .await
        .unwrap();
    assert_eq!(p1.rows.len(), 2);
    let p2 = env
        .store
        .restock_signups(t, &item, "MUG-S", p1.next_page_cursor.as_deref(), 2)
        .await
        .unwrap();
    assert_eq!(p2.rows.len(), 1);
    assert!(!p2.has_next_page);
    let notice = |s: &tenants::RestockSignup| {
        Some(Email {
            kind: "restock".into(),
            from: "shop@example.test".into(),
            to: s.email.clone(),
            reply_to: None,
            subject: format!("{} is back", s.sku),
            text: "Back in stock".into(),
            html: None,
        })
    };
    assert_eq!(
        env.store
            .send_restock_notices(t, &item, "MUG-S", notice)
            .await
            .unwrap(),
        3
    );
    // Each signer is told once: a second send finds nobody waiting.
    assert_eq!(
        env.store
            .send_restock_notices(t, &item, "MUG-S", notice)
            .await
            .unwrap(),
        0
    );
    let outbox = env.store.outbox(t).await.unwrap();
    assert_eq!(outbox.len(), 3);
    assert!(outbox.iter().all(|m| m.email.subject == "MUG-S is back"));
    assert_eq!(
        env.store
            .restock_groups(t, None, 10)
            .await
            .unwrap()
            .rows
            .len(),
        1
    );
}

/// The notice an owner's raise sends: the store addresses a copy to each signer.
fn back_in_stock(item: &str, sku: &str) -> Option<Email> {
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

/// Restock notices that send themselves when an owner raises a sold-out variant: each
/// waiting sign-up told once, whatever raises and sends run at once on two nodes; a raise
/// of a variant in stock, or one without a notice (the setting off), sends nothing.
async fn restock_raises_tell_each_signer_once(env: Env) {
    let t = env.tenant("shop").await;
    let c = env
        .store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    let mut p = product(&c, "mug", "MUG-S", 0);
    let mut large = p.variants[0].clone();
    large.sku = "MUG-L".into();
    large.qty_in_stock = 3;
    p.variants.push(large);
    let item = env.store.put_item(t, &p).await.unwrap();
    p.id = item.clone();
    for i in 0..5 {
        let email = format!("s{i}@example.test");
        env.store
            .restock_signup(t, &item, "MUG-S", &email, false, None)
            .await
            .unwrap();
    }
    // Sign-ups left waiting on a variant that is in stock (raised with the setting off).
    for i in 0..2 {
        let email = format!("l{i}@example.test");
        env.store
            .restock_signup(t, &item, "MUG-L", &email, false, None)
            .await
            .unwrap();
    }
    let notice: &tenants::RestockNotice = &back_in_stock;
    // 3 → 5 is no restock.
    let told = env
        .store
        .set_stock_notifying(t, &item, "MUG-L", 5, false, Some(notice))
        .await
        .unwrap();
    assert_eq!(told, 0);
    // 0 → 2 and 0 → 3 on two nodes at once, and the owner's send on a third handle: the
    // five are told once between them.
    let (node2, node3) = (env.another_node().await, env.another_node().await);
    let (a, b, c3) = tokio::join!(
        env.store
            .set_stock_notifying(t, &item, "MUG-S", 2, false, Some(notice)),
        node2.set_stock_notifying(t, &item, "MUG-S", 3, false, Some(notice)),
        node3.send_restock_notices(t, &item, "MUG-S", |s| {
            Some(Email {
                to: s.email.clone(),
                ..back_in_stock(&item, "MUG-S").unwrap()
            })
        }),
    );
    assert_eq!(a.unwrap() + b.unwrap() + c3.unwrap(), 5);
    let outbox = env.store.outbox(t).await.unwrap();
    let mut to: Vec<&str> = outbox.iter().map(|m| m.email.to.as_str()).collect();
    to.sort();
    assert_eq!(
        to,
        (0..5)
            .map(|i| format!("s{i}@example.test"))
            .collect::<Vec<_>>()
    );
    assert!(outbox.iter().all(|m| m.email.kind == "restock"));
    // Sold out again, a new sign-up; a raise without a notice (the setting off) sends
    // nothing and leaves it waiting for the owner.
    env.store
        .set_stock(t, &item, "MUG-S", 0, false)
        .await
        .unwrap();
    env.store
        .restock_signup(t, &item, "MUG-S", "late@example.test", false, None)
        .await
        .unwrap();
    env.store
        .set_stock(t, &item, "MUG-S", 4, false)
        .await
        .unwrap();
    assert_eq!(env.store.outbox(t).await.unwrap().len(), 5);
    // The item written whole (an owner's PUT) with the variant sold out and then back:
    // the late signer is told by the raise; MUG-L (in stock before and after) tells
    // nobody.
    p.variants[0].qty_in_stock = 0;
    env.store.put_item(t, &p).await.unwrap();
    p.variants[0].qty_in_stock = 0;
    p.variants[0].unlimited = true;
    p.variants[1].qty_in_stock = 9;
    let (_, told) = env
        .store
        .put_item_notifying(t, &p, Some(notice))
        .await
        .unwrap();
    assert_eq!(told, 1, "unlimited is in stock");
    let outbox = env.store.outbox(t).await.unwrap();
    assert_eq!(outbox.len(), 6);
    assert!(
        outbox.iter().any(|m| m.email.to == "late@example.test"
            && m.email.subject == format!("{item}/MUG-S is back"))
    );
    // Nobody waits for MUG-S any more; MUG-L's two still wait for the owner's send.
    let groups = env.store.restock_groups(t, None, 10).await.unwrap().rows;
    assert_eq!(
        groups
            .iter()
            .map(|g| (g.sku.as_str(), g.pending))
            .collect::<Vec<_>>(),
        [("MUG-L", 2)]
    );
    // An unknown variant is refused.
    assert!(matches!(
        env.store
            .set_stock_notifying(t, &item, "NOPE", 1, false, Some(notice))
            .await,
        Err(StoreError::NotFound(_))
    ));
    // A visitor's sign-up is taken only while the variant is sold out (checked under its
    // lock, so it is never left waiting behind a raise).
    assert!(matches!(
        env.store
            .restock_signup_if_sold_out(t, &item, "MUG-L", "new@example.test", false, None)
            .await,
        Err(StoreError::Conflict(_))
    ));
    env.store
        .set_stock(t, &item, "MUG-L", 0, false)
        .await
        .unwrap();
    let s = env
        .store
        .restock_signup_if_sold_out(t, &item, "MUG-L", "New@example.test", false, None)
        .await
        .unwrap();
    assert_eq!(
        (s.email.as_str(), s.notified_ms),
        ("new@example.test", None)
    );
    assert!(matches!(
        env.store
            .restock_signup_if_sold_out(t, &item, "NOPE", "new@example.test", false, None)
            .await,
        Err(StoreError::NotFound(_))
    ));
    // Sign-ups on one node while the owner raises on another: each one taken is told.
    let node2 = env.another_node().await;
    let signups = (0..12).map(|i| {
        let (store, item) = (env.store.clone(), item.clone());
        async move {
            let email = format!("race{i}@example.test");
            store
                .restock_signup_if_sold_out(t, &item, "MUG-L", &email, false, None)
                .await
        }
    });
    let raise = async {
        tokio::task::yield_now().await;
        node2
            .set_stock_notifying(t, &item, "MUG-L", 1, false, Some(notice))
            .await
            .unwrap()
    };
    let (taken, told) = tokio::join!(futures_util::future::join_all(signups), raise);
    let taken = taken.iter().filter(|r| r.is_ok()).count() as u64;
    // Three waited already: l0, l1 (left by the raise with the setting off) and new@.
    assert_eq!(
        told,
        taken + 3,
        "every sign-up taken before the raise is told by it"
    );
    let waiting = env.store.restock_groups(t, None, 10).await.unwrap().rows;
    assert!(waiting.iter().all(|g| g.sku != "MUG-L"), "{waiting:?}");
}

async fn site_users_and_sessions(env: Env) {
    let t = env.tenant("site").await;
    let u = env
        .store
        .create_site_user(t, "Ann@Example.test", "hash", "Ann")
        .await
        .unwrap();
    assert!(matches!(
        env.store
            .create_site_user(t, "ann@example.test", "h", "A")
            .await,
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(
        env.store
            .site_user_by_email(t, "ANN@example.test")
            .await
            .unwrap()
            .unwrap()
            .id,
        u.id
    );
    // Text with U+0000 is refused alike on both backends (PostgreSQL cannot store it).
    assert!(matches!(
        env.store
            .create_site_user(t, "nul@example.test", "h", "A\0")
            .await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        env.store.site_user_by_email(t, "ann\0@example.test").await,
        Err(StoreError::Invalid(_))
    ));
    let s = env.store.create_session(t, &u.id, 60_000).await.unwrap();
    assert_eq!(s.token.len(), 64);
    let (got, user) = env.store.session(t, &s.token).await.unwrap().unwrap();
    assert_eq!(
        (got.xsrf_token, user.email),
        (s.xsrf_token.clone(), "ann@example.test".to_string())
    );
    let expired = env.store.create_session(t, &u.id, -1).await.unwrap();
    assert!(
        env.store
            .session(t, &expired.token)
            .await
            .unwrap()
            .is_none()
    );
    assert!(env.store.delete_session(t, &s.token).await.unwrap());
    assert!(env.store.session(t, &s.token).await.unwrap().is_none());
    // Expired sessions are swept; live ones stay.
    let live = env.store.create_session(t, &u.id, 60_000).await.unwrap();
    assert_eq!(env.store.sweep_expired_sessions().await.unwrap(), 1);
    assert!(env.store.session(t, &live.token).await.unwrap().is_some());
    // The member's language; another site's user id is not found here.
    assert_eq!(user.locale, None);
    env.store
        .set_site_user_locale(t, &u.id, "pt-BR")
        .await
        .unwrap();
    let (_, user) = env.store.session(t, &live.token).await.unwrap().unwrap();
    assert_eq!(user.locale.as_deref(), Some("pt-BR"));
    let other = env.tenant("other-site").await;
    assert!(matches!(
        env.store.set_site_user_locale(other, &u.id, "en").await,
        Err(StoreError::NotFound(_))
    ));
}

fn sign_up(email: &str, token_hash: &str, ttl_ms: i64) -> tenants::SignUp {
    tenants::SignUp {
        email: email.into(),
        password_hash: "hash-1".into(),
        display_name: "Ana".into(),
        member_area: Some("club".into()),
        redirect: "/club".into(),
        token_hash: token_hash.into(),
        ttl_ms,
    }
}

fn note(kind: &str) -> impl FnOnce(&tenants::SignedUp) -> Email {
    let kind = kind.to_owned();
    move |outcome| Email {
        kind: format!(
            "{kind}:{}",
            match outcome {
                tenants::SignedUp::Created(_) => "created",
                tenants::SignedUp::Renewed(_) => "renewed",
                tenants::SignedUp::AlreadyMember(_) => "member",
            }
        ),
        from: "site@x.test".into(),
        to: "ana@x.test".into(),
        reply_to: None,
        subject: "s".into(),
        text: "t".into(),
        html: None,
    }
}

async fn sign_ups_confirm_once_and_join_areas(env: Env) {
    let t = env.tenant("site").await;
    let other = env.tenant("other-site").await;
    let tenants::SignedUp::Created(ana) = env
        .store
        .sign_up(t, &sign_up("ana@x.test", "h1", 60_000), note("first"))
        .await
        .unwrap()
    else {
        panic!("a new address makes a new account")
    };
    assert_eq!(ana.verified_ms, None);
    // Signing up again before confirming: the new password, and only the new link works.
    let again = sign_up("ana@x.test", "h2", 60_000);
    let again = tenants::SignUp {
        password_hash: "hash-2".into(),
        ..again
    };
    let renewed = env.store.sign_up(t, &again, note("second")).await.unwrap();
    assert!(
        matches!(&renewed, tenants::SignedUp::Renewed(u) if u.id == ana.id && u.password_hash == "hash-2")
    );
    assert_eq!(env.store.confirm_sign_up(t, "h1").await.unwrap(), None);
    // Another site cannot spend this site's link.
    assert_eq!(env.store.confirm_sign_up(other, "h2").await.unwrap(), None);
    let confirmed = env.store.confirm_sign_up(t, "h2").await.unwrap().unwrap();
    assert_eq!(
        (
            confirmed.user.id.as_str(),
            confirmed.member_area.as_deref(),
            confirmed.redirect.as_str()
        ),
        (ana.id.as_str(), Some("club"), "/club")
    );
    assert!(confirmed.user.verified_ms.is_some());
    assert_eq!(
        env.store.confirm_sign_up(t, "h2").await.unwrap(),
        None,
        "a link works once"
    );
    assert_eq!(
        env.store.member_areas_of(t, &ana.id).await.unwrap(),
        ["club"]
    );
    // A confirmed address: nothing changes, and the mail says so.
    let third = tenants::SignUp {
        password_hash: "hash-3".into(),
        ..sign_up("ANA@x.test".to_lowercase().as_str(), "h3", 60_000)
    };
    let member = env.store.sign_up(t, &third, note("third")).await.unwrap();
    assert!(matches!(&member, tenants::SignedUp::AlreadyMember(u) if u.password_hash == "hash-2"));
    assert_eq!(env.store.confirm_sign_up(t, "h3").await.unwrap(), None);
    let kinds: Vec<String> = env
        .store
        .outbox(t)
        .await
        .unwrap()
        .into_iter()
        .map(|q| q.email.kind)
        .collect();
    let mut sorted = kinds.clone();
    sorted.sort();
    assert_eq!(sorted, ["first:created", "second:renewed", "third:member"]);
    // Joining more areas; another site's member id is not found there.
    env.store
        .join_member_area(t, &ana.id, "kiln")
        .await
        .unwrap();
    env.store
        .join_member_area(t, &ana.id, "kiln")
        .await
        .unwrap();
    assert_eq!(
        env.store.member_areas_of(t, &ana.id).await.unwrap(),
        ["club", "kiln"]
    );
    assert!(matches!(
        env.store.join_member_area(other, &ana.id, "club").await,
        Err(StoreError::NotFound(_))
    ));
    assert!(
        env.store
            .member_areas_of(other, &ana.id)
            .await
            .unwrap()
            .is_empty()
    );
    // Expired links do not work and are swept; live ones stay.
    env.store
        .sign_up(t, &sign_up("bo@x.test", "old", -1), note("bo"))
        .await
        .unwrap();
    env.store
        .sign_up(t, &sign_up("cy@x.test", "live", 60_000), note("cy"))
        .await
        .unwrap();
    assert_eq!(env.store.confirm_sign_up(t, "old").await.unwrap(), None);
    assert_eq!(env.store.sweep_expired_sign_ups().await.unwrap(), 1);
    assert!(
        env.store
            .confirm_sign_up(t, "live")
            .await
            .unwrap()
            .is_some()
    );
}

/// An item's counts as pages read them.
async fn counts(env: &Env, t: tenants::TenantId, item: &str) -> (i64, i64) {
    let site = env.store.site_content(t).await.unwrap();
    let i = site.items.iter().find(|i| i.id == item).unwrap();
    let n = |k: &str| i.data.get(k).and_then(|v| v.as_i64()).unwrap_or(0);
    (n("publicCommentCount"), n("likeCount"))
}

async fn comments_wait_for_the_owner_and_likes_count_once(env: Env) {
    let t = env.tenant("site").await;
    let blog = env
        .store
        .put_collection(t, &collection("blog", "blog", 1))
        .await
        .unwrap();
    let mut post = product(&blog, "post", "P", 0);
    post.record_type = 1;
    post.variants.clear();
    post.data.insert("likeCount".into(), json!(2));
    let item = env.store.put_item(t, &post).await.unwrap();
    let ana = env
        .store
        .create_site_user(t, "ana@x.test", "h", "Ana")
        .await
        .unwrap();
    assert_eq!(
        counts(&env, t, &item).await,
        (0, 2),
        "the imported like count"
    );

    // A comment waiting for the owner changes nothing pages show.
    let before = env.store.tenant(t).await.unwrap().content_version;
    let c = env
        .store
        .post_comment(t, &item, &ana.id, "Ana", "Lovely glaze", false)
        .await
        .unwrap();
    assert_eq!(c.state, tenants::comment_state::PENDING);
    assert_eq!(env.store.tenant(t).await.unwrap().content_version, before);
    assert!(
        env.store
            .public_comments(t, &item)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        env.store.pending_comments(t).await.unwrap(),
        std::slice::from_ref(&c)
    );
    // Approved, it is public and counted; rejected, it goes again.
    env.store
        .moderate_comment(t, &c.id, tenants::comment_state::APPROVED)
        .await
        .unwrap();
    assert_eq!(
        env.store.public_comments(t, &item).await.unwrap()[0].body,
        "Lovely glaze"
    );
    assert_eq!(counts(&env, t, &item).await, (1, 2));
    assert!(env.store.pending_comments(t).await.unwrap().is_empty());
    let direct = env
        .store
        .post_comment(t, &item, &ana.id, "Ana", "Second", true)
        .await
        .unwrap();
    assert_eq!(counts(&env, t, &item).await, (2, 2));
    env.store
        .moderate_comment(t, &direct.id, tenants::comment_state::REJECTED)
        .await
        .unwrap();
    assert_eq!(counts(&env, t, &item).await, (1, 2));
    assert!(matches!(
        env.store.moderate_comment(t, &c.id, "pending").await,
        Err(StoreError::Invalid(_))
    ));

    // Likes: once per visitor.
    assert!(env.store.like_item(t, &item, "crumb-1").await.unwrap());
    assert!(!env.store.like_item(t, &item, "crumb-1").await.unwrap());
    assert!(env.store.like_item(t, &item, "crumb-2").await.unwrap());
    assert_eq!(counts(&env, t, &item).await, (1, 4));

    // Another site cannot touch this site's items or comments.
    let other = env.tenant("other-site").await;
    for r in [
        env.store
            .like_item(other, &item, "crumb-3")
            .await
            .map(|_| ()),
        env.store
            .post_comment(other, &item, &ana.id, "Ana", "x", true)
            .await
            .map(|_| ()),
        env.store
            .moderate_comment(other, &c.id, tenants::comment_state::REJECTED)
            .await
            .map(|_| ()),
    ] {
        assert!(matches!(r, Err(StoreError::NotFound(_))), "{r:?}");
    }
    assert_eq!(counts(&env, t, &item).await, (1, 4));
}

async fn analytics_and_performance(env: Env) {
    let t = env.tenant("site").await;
    let e = AnalyticsEvent {
        occurred_ms: 1000,
        name: "pageview".into(),
        page_path: "/".into(),
        visitor_id: Some("v1".into()),
        referrer: None,
        data: json!({"title": "Home"}),
    };
    env.store
        .record_events(
            t,
            &[
                e.clone(),
                AnalyticsEvent {
                    occurred_ms: 2000,
                    ..e.clone()
                },
            ],
        )
        .await
        .unwrap();
    assert_eq!(env.store.events(t, 1500, 10).await.unwrap().len(), 1);
    assert_eq!(env.store.events(t, 0, 10).await.unwrap()[0], e);
    let p = PerformanceRecord {
        page_load_id: "pl1".into(),
        app: "web".into(),
        event: "lcp".into(),
        ts_ms: 5,
        data: json!({"ms": 812}),
    };
    env.store
        .record_performance(t, std::slice::from_ref(&p))
        .await
        .unwrap();
    assert_eq!(
        env.store.performance_records(t, "pl1").await.unwrap(),
        vec![p]
    );

    // The owner's summary of a period, read from the daily roll-ups: visits by visitors,
    // pages and referrers ranked, carts and orders; earlier days and another site's events
    // not counted; a later batch counted on top of the first.
    const DAY: i64 = tenants::DAY_MS;
    let visit = |path: &str, visitor: &str, referrer: Option<&str>| AnalyticsEvent {
        occurred_ms: 5 * DAY + 10_000,
        name: "pageview".into(),
        page_path: path.into(),
        visitor_id: Some(visitor.into()),
        referrer: referrer.map(str::to_owned),
        // One visit a visitor (it runs past midnight: a period counts it once).
        data: json!({ tenants::SESSION_KEY: format!("{visitor}-1") }),
    };
    let named = |name: &str| AnalyticsEvent {
        name: name.into(),
        ..visit("/shop", "a", None)
    };
    env.store
        .record_events(
            t,
            &[
                visit("/shop", "a", Some("search.example")),
                visit("/shop", "b", Some("search.example")),
                visit("/", "a", Some("friend.example")),
                AnalyticsEvent {
                    name: "page_view".into(),
                    ..visit("/journal", "c", None)
                },
                named("add-to-cart"),
                named("add-to-cart"),
                named("purchase"),
                named("button-click"),
            ],
        )
        .await
        .unwrap();
    let other = env.tenant("elsewhere").await;
    env.store
        .record_events(other, &[visit("/shop", "z", Some("search.example"))])
        .await
        .unwrap();
    let s = env.store.analytics_summary(t, 5).await.unwrap();
    assert_eq!(s.since_ms, 5 * DAY);
    assert_eq!((s.page_views, s.visits, s.unique_visitors), (4, 3, 3));
    assert_eq!(
        s.top_pages,
        [
            ("/shop".to_owned(), 2),
            ("/".to_owned(), 1),
            ("/journal".to_owned(), 1)
        ]
    );
    assert_eq!(
        s.top_referrers,
        [
            ("search.example".to_owned(), 2),
            ("friend.example".to_owned(), 1)
        ]
    );
    assert_eq!((s.add_to_carts, s.purchases), (2, 1));
    assert!((s.conversion_rate - 1.0 / 3.0).abs() < 1e-9);

    // The next day's batch: a returning visitor and a new one.
    let next = |path: &str, visitor: &str| AnalyticsEvent {
        occurred_ms: 6 * DAY + 1,
        ..visit(path, visitor, None)
    };
    env.store
        .record_events(t, &[next("/", "a"), next("/", "d"), next("/", "d")])
        .await
        .unwrap();
    let s = env.store.analytics_summary(t, 5).await.unwrap();
    assert_eq!((s.page_views, s.visits, s.unique_visitors), (7, 4, 4));
    assert_eq!(s.top_pages[0], ("/".to_owned(), 4));
    // Day 0's two events are outside both periods; day 6 alone is three page views in two
    // visits by two visitors.
    let s = env.store.analytics_summary(t, 6).await.unwrap();
    assert_eq!(
        (s.page_views, s.visits, s.unique_visitors, s.purchases),
        (3, 2, 2, 0)
    );
    assert_eq!(
        env.store.analytics_summary(t, 0).await.unwrap().page_views,
        9
    );
    let empty = env.store.analytics_summary(t, 7).await.unwrap();
    assert_eq!((empty.visits, empty.conversion_rate), (0, 0.0));
    assert!(empty.top_pages.is_empty() && empty.top_referrers.is_empty());
}

async fn template_versions(env: Env) {
    let t = env.tenant("site").await;
    let files = vec![
        TemplateFile {
            path: "template.conf".into(),
            content: br#"{"name":"T"}"#.to_vec(),
        },
        TemplateFile {
            path: "assets/logo.bin".into(),
            content: vec![0, 159, 255],
        },
    ];
    let v1 = env.store.put_template_version(t, &files).await.unwrap();
    let v2 = env
        .store
        .put_template_version(t, &files[..1])
        .await
        .unwrap();
    assert!(v2 > v1);
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v2)
    );
    // The active version's content hash comes with the tenant row, whichever way it is
    // read; it depends on the files, not on the order they were given in.
    let hash = Some(tenants::template_hash(&files[..1]));
    assert_eq!(env.store.tenant(t).await.unwrap().template_hash, hash);
    let by_host = env.store.tenant_by_host("site.example").await.unwrap();
    assert_eq!(by_host.unwrap().template_hash, hash);
    let snapshot = env.store.site_content(t).await.unwrap();
    assert_eq!(snapshot.tenant.template_hash, hash);
    let reversed: Vec<_> = files.iter().rev().cloned().collect();
    assert_eq!(
        tenants::template_hash(&reversed),
        tenants::template_hash(&files)
    );
    assert_ne!(hash, Some(tenants::template_hash(&files)));
    // Another tenant uploading the same files gets the same hash (its pages can share
    // the compiled folder).
    let twin = env.tenant("twin").await;
    env.store.put_template_version(twin, &files).await.unwrap();
    assert_eq!(
        env.store.tenant(twin).await.unwrap().template_hash,
        Some(tenants::template_hash(&files))
    );
    assert_eq!(
        env.store
            .site_content(t)
            .await
            .unwrap()
            .tenant
            .template_version,
        Some(v2)
    );
    assert_eq!(env.store.template_files(t, v1).await.unwrap().len(), 2);
    assert_eq!(
        env.store
            .template_file(t, v1, "assets/logo.bin")
            .await
            .unwrap(),
        Some(vec![0, 159, 255])
    );
    assert_eq!(
        env.store
            .template_file(t, v2, "assets/logo.bin")
            .await
            .unwrap(),
        None
    );
    let bad = [TemplateFile {
        path: "../etc".into(),
        content: vec![],
    }];
    assert!(matches!(
        env.store.put_template_version(t, &bad).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v2),
        "a failed upload changes nothing"
    );

    // Stored without switching, listed the newest first, then switched to and back.
    let v3 = env.store.store_template_version(t, &files).await.unwrap();
    assert!(v3 > v2);
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v2),
        "stored, not active"
    );
    let list = env.store.template_versions(t).await.unwrap();
    assert_eq!(
        list.iter()
            .map(|v| (v.version, v.files, v.bytes))
            .collect::<Vec<_>>(),
        [(v3, 2, 15), (v2, 1, 12), (v1, 2, 15)]
    );
    env.store.switch_template_version(t, v3).await.unwrap();
    let tenant = env.store.tenant(t).await.unwrap();
    assert_eq!(tenant.template_version, Some(v3));
    assert_eq!(
        tenant.template_hash,
        Some(tenants::template_hash(&files)),
        "the active version's hash follows a switch"
    );
    env.store.switch_template_version(t, v1).await.unwrap();
    assert_eq!(
        env.store
            .site_content(t)
            .await
            .unwrap()
            .tenant
            .template_version,
        Some(v1),
        "rolled back"
    );
    // Another tenant's version numbers are not this one's.
    let twin_version = env.store.template_versions(twin).await.unwrap()[0].version;
    let twin_next = env
        .store
        .store_template_version(twin, &files)
        .await
        .unwrap();
    assert!(matches!(
        env.store
            .switch_template_version(t, tenants::TemplateVersion(twin_next.0 + 10))
            .await,
        Err(StoreError::NotFound(_))
    ));
    env.store
        .switch_template_version(twin, twin_version)
        .await
        .unwrap();
    assert_eq!(
        env.store.tenant(t).await.unwrap().template_version,
        Some(v1)
    );
}

/// A site keeps its newest `KEPT_TEMPLATE_VERSIONS` template versions and its live one;
/// older ones go, files and all, when a new one is stored.
async fn template_versions_are_capped(env: Env) {
    let t = env.tenant("site").await;
    let other = env.tenant("other").await;
    let folder = |n: i64| {
        vec![TemplateFile {
            path: "template.conf".into(),
            content: format!(r#"{{"name":"T{n}"}}"#).into_bytes(),
        }]
    };
    let live = env.store.put_template_version(t, &folder(0)).await.unwrap();
    let others = env.store.template_versions(other).await.unwrap();
    let mut stored = Vec::new();
    for n in 1..=tenants::KEPT_TEMPLATE_VERSIONS + 1 {
        stored.push(
            env.store
                .store_template_version(t, &folder(n))
                .await
                .unwrap(),
        );
    }
    let listed = |list: Vec<tenants::TemplateVersionInfo>| {
        list.into_iter().map(|v| v.version).collect::<Vec<_>>()
    };
    // The newest 30 and the live one, which is older than all of them.
    let mut expected: Vec<_> = stored[1..].iter().rev().copied().collect();
    expected.push(live);
    assert_eq!(
        listed(env.store.template_versions(t).await.unwrap()),
        expected
    );
    assert!(
        env.store
            .template_files(t, stored[0])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(env.store.template_files(t, live).await.unwrap(), folder(0));
    // Once another is live, the old live one goes with the next version stored.
    let newest = *stored.last().unwrap();
    env.store.switch_template_version(t, newest).await.unwrap();
    let next = env
        .store
        .store_template_version(t, &folder(99))
        .await
        .unwrap();
    let list = listed(env.store.template_versions(t).await.unwrap());
    assert_eq!(list.len() as i64, tenants::KEPT_TEMPLATE_VERSIONS);
    assert_eq!((list[0], list.contains(&live)), (next, false));
    assert!(env.store.template_files(t, live).await.unwrap().is_empty());
    // Another site's versions are untouched.
    assert_eq!(env.store.template_versions(other).await.unwrap(), others);
}

/// The mailer's reads through the per-site due index (migration 24): each site with mail due
/// now is found, in site order, once, and gives its due messages in the order they fell due,
/// up to the limit; sites whose unsent mail is all leased or waiting for a later retry, and
/// sent mail, are not offered.
async fn outbox_due_mail_is_found_site_by_site(env: Env) {
    let mail = |to: String| Email {
        kind: "form-submission".into(),
        from: "Site <no-reply@site.test>".into(),
        to,
        reply_to: None,
        subject: "New submission".into(),
        text: "Hello".into(),
        html: None,
    };
    let quiet = env.tenant("quiet").await;
    let leased = env.tenant("leased").await;
    let later = env.tenant("later").await;
    let busy = env.tenant("busy").await;
    let few = env.tenant("few").await;
    let none = env.tenant("none").await;
    let _ = (quiet, none);
    // A message taken by another mailer (its lease runs for a minute).
    let held = env
        .store
        .enqueue_email(leased, &mail("held@site.test".into()))
        .await
        .unwrap();
    let first = env.store.claim_due_emails(60_000, 10).await.unwrap();
    assert_eq!(
        first.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        [held.as_str()]
    );
    // A message that failed and is tried again in an hour.
    let hour = tenants::now_ms() + 3_600_000;
    let waiting = env
        .store
        .enqueue_email(later, &mail("later@site.test".into()))
        .await
        .unwrap();
    env.store
        .email_failed(later, &waiting, "connection refused", hour)
        .await
        .unwrap();
    // 25 due messages, due in the reverse order of their writing (and of nothing in their
    // ids), the sent one and one waiting for its retry left out.
    let now = tenants::now_ms();
    let mut busy_ids = Vec::new();
    for i in 0..25 {
        let id = env
            .store
            .enqueue_email(busy, &mail(format!("b{i}@site.test")))
            .await
            .unwrap();
        env.store
            .email_failed(busy, &id, "try again", now - 1_000 - i)
            .await
            .unwrap();
        busy_ids.push(id);
    }
    busy_ids.reverse();
    let sent = env
        .store
        .enqueue_email(busy, &mail("sent@site.test".into()))
        .await
        .unwrap();
    env.store.email_sent(busy, &sent).await.unwrap();
    let retry = env
        .store
        .enqueue_email(busy, &mail("retry@site.test".into()))
        .await
        .unwrap();
    env.store
        .email_failed(busy, &retry, "connection refused", hour)
        .await
        .unwrap();
    let mut few_ids = Vec::new();
    for i in 0..3 {
        let to = format!("f{i}@site.test");
        few_ids.push(env.store.enqueue_email(few, &mail(to)).await.unwrap());
    }
    let per_site = |taken: &[tenants::QueuedEmail]| {
        let mut sites: Vec<(tenants::TenantId, Vec<String>)> = Vec::new();
        for m in taken {
            match sites.last_mut() {
                Some((t, ids)) if *t == m.tenant => ids.push(m.id.clone()),
                _ => sites.push((m.tenant, vec![m.id.clone()])),
            }
        }
        sites
    };
    let one = env.store.claim_due_emails(60_000, 10).await.unwrap();
    assert!(one.iter().all(|m| m.attempts >= 1));
    let mut sites = per_site(&one);
    // `few`'s three fell due in one millisecond or a few: compared as a set.
    sites[1].1.sort();
    few_ids.sort();
    assert_eq!(
        sites,
        [(busy, busy_ids[..10].to_vec()), (few, few_ids.clone())],
        "busy's ten due first, then few's three; nothing of the others"
    );
    let two = env.store.claim_due_emails(60_000, 10).await.unwrap();
    assert_eq!(per_site(&two), [(busy, busy_ids[10..20].to_vec())]);
    let three = env.store.claim_due_emails(60_000, 10).await.unwrap();
    assert_eq!(per_site(&three), [(busy, busy_ids[20..].to_vec())]);
    assert!(
        env.store
            .claim_due_emails(60_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
    // The retry falls due: its site is found again, with that message only.
    env.store
        .email_failed(later, &waiting, "connection refused", tenants::now_ms() - 1)
        .await
        .unwrap();
    let four = env.store.claim_due_emails(60_000, 10).await.unwrap();
    assert_eq!(per_site(&four), [(later, vec![waiting.clone()])]);
    assert_eq!(four[0].attempts, 1);
}

/// The outbox hands a message to one mailer at a time (a lease), counts tries, keeps failed
/// ones for their retry time and stops offering sent ones.
async fn outbox_leases_retries_and_sends(env: Env) {
    let t = env.tenant("site").await;
    let mail = |to: &str| Email {
        kind: "form-submission".into(),
        from: "Site <no-reply@site.test>".into(),
        to: to.into(),
        reply_to: Some("visitor@example.test".into()),
        subject: "New submission".into(),
        text: "Hello".into(),
        html: Some("<p>Hello</p>".into()),
    };
    let a = env
        .store
        .enqueue_email(t, &mail("a@site.test"))
        .await
        .unwrap();
    let b = env
        .store
        .enqueue_email(t, &mail("b@site.test"))
        .await
        .unwrap();
    let mut taken = env.store.claim_due_emails(60_000, 10).await.unwrap();
    // Due first; two due in the same millisecond come in either order.
    taken.sort_by_key(|m| m.id != a);
    assert_eq!(
        taken.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        [a.as_str(), b.as_str()]
    );
    assert_eq!(taken[0].email, mail("a@site.test"));
    assert_eq!(taken[0].attempts, 1);
    assert!(
        env.store
            .claim_due_emails(60_000, 10)
            .await
            .unwrap()
            .is_empty(),
        "leased messages are not handed out twice"
    );
    env.store.email_sent(t, &a).await.unwrap();
    env.store
        .email_failed(t, &b, "connection refused", tenants::now_ms() - 1)
        .await
        .unwrap();
    let again = env.store.claim_due_emails(60_000, 10).await.unwrap();
    assert_eq!(
        again.len(),
        1,
        "the failed one is due again, the sent one is not"
    );
    assert_eq!((again[0].id.as_str(), again[0].attempts), (b.as_str(), 2));
    assert_eq!(again[0].last_error.as_deref(), Some("connection refused"));
    let outbox = env.store.outbox(t).await.unwrap();
    let sent = |id: &str| {
        outbox
            .iter()
            .find(|m| m.id == id)
            .unwrap()
            .sent_ms
            .is_some()
    };
    assert!(sent(&a) && !sent(&b));
    // Two mailers claiming at once share the due messages out: none is taken by both.
    let mut queued = Vec::new();
    for i in 0..6 {
        let to = format!("c{i}@site.test");
        queued.push(env.store.enqueue_email(t, &mail(&to)).await.unwrap());
    }
    let (one, two) = tokio::join!(
        env.store.claim_due_emails(60_000, 10),
        env.store.claim_due_emails(60_000, 10)
    );
    let mut ids: Vec<String> = one
        .unwrap()
        .into_iter()
        .chain(two.unwrap())
        .map(|m| m.id)
        .collect();
    ids.sort();
    queued.sort();
    assert_eq!(ids, queued, "each due message is claimed exactly once");
    // A batch marked sent in one write: those named, and only those.
    env.store.emails_sent(t, &[]).await.unwrap();
    env.store
        .emails_sent(t, &[queued[0].as_str(), queued[1].as_str()])
        .await
        .unwrap();
    let outbox = env.store.outbox(t).await.unwrap();
    let sent: Vec<&str> = outbox
        .iter()
        .filter(|m| m.sent_ms.is_some() && queued.contains(&m.id))
        .map(|m| m.id.as_str())
        .collect();
    let mut want = vec![queued[0].as_str(), queued[1].as_str()];
    want.sort();
    let mut sent = sent;
    sent.sort();
    assert_eq!(sent, want);
    // Captcha challenges are spent once.
    let later = tenants::now_ms() + 60_000;
    assert!(env.store.spend_captcha(t, "c1", later).await.unwrap());
    assert!(!env.store.spend_captcha(t, "c1", later).await.unwrap());
    let other = env.tenant("other").await;
    assert!(
        env.store.spend_captcha(other, "c1", later).await.unwrap(),
        "per tenant"
    );
    assert!(
        env.store
            .spend_captcha(t, "old", tenants::now_ms() - 1)
            .await
            .unwrap()
    );
    assert_eq!(env.store.sweep_spent_captchas().await.unwrap(), 1);
}

crate::on_both_backends!(
    outbox_leases_retries_and_sends,
    outbox_due_mail_is_found_site_by_site,
    forms_keys_and_submissions,
    restock_signups_group_and_paginate,
    restock_raises_tell_each_signer_once,
    site_users_and_sessions,
    sign_ups_confirm_once_and_join_areas,
    comments_wait_for_the_owner_and_likes_count_once,
    analytics_and_performance,
    template_versions,
    template_versions_are_capped
);
