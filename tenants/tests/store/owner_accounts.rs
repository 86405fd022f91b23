//! Owner accounts, their sessions and one-time links (migration 15), on both backends:
//! addresses unique per site, the last admin kept, sessions that end on sign-out, role
//! and password changes and removal, that slide and stop at their maximum age, links used
//! once, and nothing of one site reachable from another.

use tenants::{Email, LinkPurpose, NewOwnerLink, SessionLife, StoreError, TenantId, secret_digest};

use crate::common::Env;
use crate::on_both_backends;

on_both_backends!(
    accounts_are_per_site_and_keep_an_admin,
    sessions_end_and_slide,
    links_work_once_and_mail_in_the_same_transaction,
    nothing_crosses_sites,
);

const LIFE: SessionLife = SessionLife {
    idle_ms: 14 * 86_400_000,
    max_ms: 30 * 86_400_000,
};

fn mail(to: &str) -> Email {
    Email {
        kind: "owner-link".into(),
        from: "no-reply@site.example".into(),
        to: to.into(),
        reply_to: None,
        subject: "Your link".into(),
        text: "a link".into(),
        html: None,
    }
}

fn link(purpose: LinkPurpose, email: &str, token: &str, ttl_ms: i64) -> NewOwnerLink {
    NewOwnerLink {
        purpose,
        token_hash: secret_digest(token),
        email: email.into(),
        role: 8,
        ttl_ms,
    }
}

async fn outbox_count(env: &Env, t: TenantId) -> usize {
    env.store
        .outbox(t)
        .await
        .unwrap()
        .iter()
        .filter(|q| q.email.kind == "owner-link")
        .count()
}

async fn accounts_are_per_site_and_keep_an_admin(env: Env) {
    let t = env.tenant("site").await;
    let admin = env
        .store
        .create_owner_account(t, " Ann@Example.TEST ", 1, Some("hash-a"))
        .await
        .unwrap();
    assert_eq!(admin.email, "ann@example.test");
    assert!(admin.has_password());
    assert!(matches!(
        env.store
            .create_owner_account(t, "ANN@example.test", 8, None)
            .await,
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        env.store
            .create_owner_account(t, "not-an-address", 8, None)
            .await,
        Err(StoreError::Invalid(_))
    ));
    // The same address on another site is another account.
    let other = env.tenant("other").await;
    env.store
        .create_owner_account(other, "ann@example.test", 10, None)
        .await
        .unwrap();
    let bob = env
        .store
        .create_owner_account(t, "bob@example.test", 8, None)
        .await
        .unwrap();
    assert!(!bob.has_password());
    let found = env
        .store
        .owner_account_by_email(t, "BOB@example.test")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found, bob);
    let emails: Vec<_> = env
        .store
        .owner_accounts(t)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.email)
        .collect();
    assert_eq!(emails, ["ann@example.test", "bob@example.test"]);

    // The last admin can be neither demoted nor removed.
    for refused in [
        env.store.set_owner_role(t, &admin.id, 8).await.map(|_| ()),
        env.store
            .remove_owner_account(t, &admin.id)
            .await
            .map(|_| ()),
    ] {
        assert!(
            matches!(refused, Err(StoreError::Conflict(_))),
            "{refused:?}"
        );
    }
    // With a second admin, either may go.
    assert_eq!(
        env.store.set_owner_role(t, &bob.id, 1).await.unwrap().role,
        1
    );
    assert_eq!(
        env.store
            .set_owner_role(t, &admin.id, 10)
            .await
            .unwrap()
            .role,
        10
    );
    assert!(matches!(
        env.store.remove_owner_account(t, &bob.id).await,
        Err(StoreError::Conflict(_))
    ));
    env.store.remove_owner_account(t, &admin.id).await.unwrap();
    assert!(
        env.store
            .owner_account(t, &admin.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        env.store.remove_owner_account(t, &admin.id).await,
        Err(StoreError::NotFound(_))
    ));
}

async fn sessions_end_and_slide(env: Env) {
    let t = env.tenant("site").await;
    let a = env
        .store
        .create_owner_account(t, "ann@example.test", 1, Some("hash-a"))
        .await
        .unwrap();
    let b = env
        .store
        .create_owner_account(t, "bob@example.test", 1, Some("hash-b"))
        .await
        .unwrap();
    let s = env
        .store
        .create_owner_session(t, &a.id, LIFE)
        .await
        .unwrap();
    assert_eq!((s.token.len(), s.csrf.len()), (64, 64));
    assert_ne!(s.token, s.csrf);
    let (got, account) = env
        .store
        .owner_session(t, &s.token, LIFE)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (got.csrf.as_str(), account.id.as_str()),
        (s.csrf.as_str(), a.id.as_str())
    );
    // Only the digest is stored: the token itself finds nothing when used as one.
    assert!(
        env.store
            .owner_session(t, &secret_digest(&s.token), LIFE)
            .await
            .unwrap()
            .is_none()
    );

    // Sign-out ends it.
    assert!(env.store.delete_owner_session(t, &s.token).await.unwrap());
    assert!(
        env.store
            .owner_session(t, &s.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );
    assert!(!env.store.delete_owner_session(t, &s.token).await.unwrap());

    // A password change ends the account's other sessions, not the one that made it.
    let one = env
        .store
        .create_owner_session(t, &a.id, LIFE)
        .await
        .unwrap();
    let two = env
        .store
        .create_owner_session(t, &a.id, LIFE)
        .await
        .unwrap();
    let bobs = env
        .store
        .create_owner_session(t, &b.id, LIFE)
        .await
        .unwrap();
    env.store
        .set_owner_password(t, &a.id, "hash-a2", Some(&one.token))
        .await
        .unwrap();
    assert!(
        env.store
            .owner_session(t, &one.token, LIFE)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        env.store
            .owner_session(t, &two.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .owner_session(t, &bobs.token, LIFE)
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        env.store
            .owner_account(t, &a.id)
            .await
            .unwrap()
            .unwrap()
            .password_hash
            .as_deref(),
        Some("hash-a2")
    );
    // A role change ends all of them; so does removal.
    env.store.set_owner_role(t, &a.id, 8).await.unwrap();
    assert!(
        env.store
            .owner_session(t, &one.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );
    env.store.set_owner_role(t, &a.id, 1).await.unwrap();
    env.store.remove_owner_account(t, &b.id).await.unwrap();
    assert!(
        env.store
            .owner_session(t, &bobs.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );

    // Idle too long, or older than the maximum: gone, and swept.
    let idle = SessionLife {
        idle_ms: -1,
        max_ms: LIFE.max_ms,
    };
    let stale = env
        .store
        .create_owner_session(t, &a.id, idle)
        .await
        .unwrap();
    assert!(
        env.store
            .owner_session(t, &stale.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );
    let fresh = env
        .store
        .create_owner_session(t, &a.id, LIFE)
        .await
        .unwrap();
    let old = SessionLife {
        idle_ms: LIFE.idle_ms,
        max_ms: -1,
    };
    assert!(
        env.store
            .owner_session(t, &fresh.token, old)
            .await
            .unwrap()
            .is_none()
    );
    assert!(env.store.sweep_owner_sessions().await.unwrap() >= 1);
    assert!(
        env.store
            .owner_session(t, &fresh.token, LIFE)
            .await
            .unwrap()
            .is_some()
    );
    // Its idle end never passes the maximum age.
    let short = SessionLife {
        idle_ms: LIFE.idle_ms,
        max_ms: 60_000,
    };
    let capped = env
        .store
        .create_owner_session(t, &a.id, short)
        .await
        .unwrap();
    assert!(capped.expires_ms <= capped.created_ms + 60_000);
}

async fn links_work_once_and_mail_in_the_same_transaction(env: Env) {
    let t = env.tenant("site").await;
    let a = env
        .store
        .create_owner_account(t, "ann@example.test", 1, None)
        .await
        .unwrap();
    let old_session = env
        .store
        .create_owner_session(t, &a.id, LIFE)
        .await
        .unwrap();

    // A set-password link for an account: mailed, used once, signs in, ends others.
    let made = env
        .store
        .create_owner_link(
            t,
            &link(
                LinkPurpose::SetPassword,
                "ANN@example.test",
                "t1",
                3_600_000,
            ),
            |account, to| {
                assert_eq!(account.map(|a| a.id.as_str()), Some(a.id.as_str()));
                Some(mail(to))
            },
        )
        .await
        .unwrap();
    assert!(made);
    assert_eq!(outbox_count(&env, t).await, 1);
    assert_eq!(
        env.store.owner_link(t, &secret_digest("t1")).await.unwrap(),
        Some((LinkPurpose::SetPassword, "ann@example.test".to_owned()))
    );
    let used = env
        .store
        .use_owner_link(t, &secret_digest("t1"), "hash-new", LIFE)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.account.id, a.id);
    assert_eq!(used.account.password_hash.as_deref(), Some("hash-new"));
    assert!(
        env.store
            .owner_session(t, &used.session.token, LIFE)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        env.store
            .owner_session(t, &old_session.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );
    // Once only.
    assert!(
        env.store
            .use_owner_link(t, &secret_digest("t1"), "h", LIFE)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .owner_link(t, &secret_digest("t1"))
            .await
            .unwrap()
            .is_none()
    );

    // A reset for an address without an account: nothing stored, nothing mailed.
    let made = env
        .store
        .create_owner_link(
            t,
            &link(LinkPurpose::Reset, "nobody@example.test", "t2", 3_600_000),
            |_, to| Some(mail(to)),
        )
        .await
        .unwrap();
    assert!(!made);
    assert_eq!(outbox_count(&env, t).await, 1);
    assert!(
        env.store
            .use_owner_link(t, &secret_digest("t2"), "h", LIFE)
            .await
            .unwrap()
            .is_none()
    );

    // A newer reset link replaces the older; an expired one works no more.
    for token in ["r1", "r2"] {
        env.store
            .create_owner_link(
                t,
                &link(LinkPurpose::Reset, "ann@example.test", token, 3_600_000),
                |_, to| Some(mail(to)),
            )
            .await
            .unwrap();
    }
    assert!(
        env.store
            .use_owner_link(t, &secret_digest("r1"), "h", LIFE)
            .await
            .unwrap()
            .is_none()
    );
    env.store
        .create_owner_link(
            t,
            &link(LinkPurpose::Reset, "ann@example.test", "r3", -1),
            |_, _| None,
        )
        .await
        .unwrap();
    assert!(
        env.store
            .use_owner_link(t, &secret_digest("r3"), "h", LIFE)
            .await
            .unwrap()
            .is_none()
    );

    // An invite makes the account with its role when used; not for an address that has one.
    assert!(matches!(
        env.store
            .create_owner_link(
                t,
                &link(LinkPurpose::Invite, "ann@example.test", "i0", 3_600_000),
                |_, to| Some(mail(to))
            )
            .await,
        Err(StoreError::Conflict(_))
    ));
    env.store
        .create_owner_link(
            t,
            &link(LinkPurpose::Invite, "Cat@Example.test", "i1", 3_600_000),
            |account, to| {
                assert!(account.is_none());
                Some(mail(to))
            },
        )
        .await
        .unwrap();
    let invites = env.store.owner_invites(t).await.unwrap();
    assert_eq!(invites.len(), 1);
    assert_eq!(
        (invites[0].email.as_str(), invites[0].role),
        ("cat@example.test", 8)
    );
    let used = env
        .store
        .use_owner_link(t, &secret_digest("i1"), "hash-cat", LIFE)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.purpose, LinkPurpose::Invite);
    assert_eq!(
        (used.account.email.as_str(), used.account.role),
        ("cat@example.test", 8)
    );
    assert!(env.store.owner_invites(t).await.unwrap().is_empty());
    assert!(
        env.store
            .use_owner_link(t, &secret_digest("i1"), "h", LIFE)
            .await
            .unwrap()
            .is_none()
    );
}

async fn nothing_crosses_sites(env: Env) {
    let t = env.tenant("site").await;
    let other = env.tenant("other").await;
    let a = env
        .store
        .create_owner_account(t, "ann@example.test", 1, Some("hash"))
        .await
        .unwrap();
    let s = env
        .store
        .create_owner_session(t, &a.id, LIFE)
        .await
        .unwrap();
    env.store
        .create_owner_link(
            t,
            &link(LinkPurpose::Reset, "ann@example.test", "x", 3_600_000),
            |_, _| None,
        )
        .await
        .unwrap();
    assert!(
        env.store
            .owner_account(other, &a.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .owner_account_by_email(other, "ann@example.test")
            .await
            .unwrap()
            .is_none()
    );
    assert!(env.store.owner_accounts(other).await.unwrap().is_empty());
    assert!(
        env.store
            .owner_session(other, &s.token, LIFE)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        !env.store
            .delete_owner_session(other, &s.token)
            .await
            .unwrap()
    );
    assert!(
        env.store
            .owner_link(other, &secret_digest("x"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        env.store
            .use_owner_link(other, &secret_digest("x"), "h", LIFE)
            .await
            .unwrap()
            .is_none()
    );
    for refused in [
        env.store.set_owner_role(other, &a.id, 8).await.map(|_| ()),
        env.store
            .remove_owner_account(other, &a.id)
            .await
            .map(|_| ()),
        env.store.set_owner_password(other, &a.id, "h", None).await,
        env.store
            .create_owner_session(other, &a.id, LIFE)
            .await
            .map(|_| ()),
    ] {
        assert!(
            matches!(refused, Err(StoreError::NotFound(_))),
            "{refused:?}"
        );
    }
    // Still there, still signed in, on its own site.
    assert!(
        env.store
            .owner_session(t, &s.token, LIFE)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        env.store
            .use_owner_link(t, &secret_digest("x"), "h2", LIFE)
            .await
            .unwrap()
            .is_some()
    );
}
