//! The rules of sign-up and sign-in (docs/auth.md), API keys (docs/public-api.md#api-keys)
//! and the OAuth state of an import connection (docs/import.md#oauth), called directly,
//! without HTTP: each test opens a fresh in-memory database, calls the functions the
//! handlers call inside a transaction, and checks the rows written; every refused call
//! is checked to have written nothing.

use serde_json::json;

use stockbook::api_keys::{self, NewKey, MAX_ACTIVE_KEYS};
use stockbook::auth::accounts::{self, NewAccount, Signup};
use stockbook::auth::{throttle, token, Lifetime};
use stockbook::clock::Clock;
use stockbook::config::SignupMode;
use stockbook::connectors::Platform;
use stockbook::http::paging::Page;
use stockbook::import::oauth::{self, Pending, Started, STATE_LIFETIME_SECS};

use super::rules_support::{Books, ANN, BOB};

const LIFETIME: Lifetime = Lifetime {
    idle_days: 14,
    max_days: 90,
};

fn account(email: &str) -> NewAccount {
    NewAccount {
        email: email.to_owned(),
        email_key: stockbook::db::ident::compare_key(email),
        name: Some("Cat".into()),
        password_hash: "$argon2id$stand-in".into(),
    }
}

fn key(name: &str, entity_id: Option<&str>) -> NewKey {
    serde_json::from_value(json!({"name": name, "entity_id": entity_id})).expect("a key body")
}

// Sign-up and sign-in --------------------------------------------------------------------

#[test]
fn a_sign_up_is_checked_before_its_password_is_hashed() {
    let s = Signup::check(" Cat@Example.COM ", "long enough".into(), Some("  ".into())).unwrap();
    assert_eq!((s.email.as_str(), s.name), ("Cat@Example.COM", None));
    assert_eq!(s.email_key, "cat@example.com");
    for (email, password, field) in [
        ("not-an-email", "long enough", "email"),
        ("cat@localhost", "long enough", "email"),
        ("cat@example.com", "short", "password"),
    ] {
        let e = Signup::check(email, password.into(), None).unwrap_err();
        assert_eq!(e.status().code, 400);
        assert!(e.to_string().contains(field), "{e}");
    }
    let e = Signup::check("cat@example.com", "x".repeat(1025), None).unwrap_err();
    assert!(e.to_string().contains("1024 bytes"), "{e}");
}

#[test]
fn a_sign_up_creates_the_account_and_its_first_session() {
    let b = Books::new();
    let clock = Clock::default();
    let (user, (token_value, max_age)) = b.write(|tx| {
        accounts::sign_up(
            tx,
            account("cat@example.com"),
            SignupMode::Open,
            &clock,
            &LIFETIME,
        )
    });
    assert_eq!(user.email, "cat@example.com");
    assert_eq!(user.name.as_deref(), Some("Cat"));
    assert_eq!(max_age, 14 * 86_400);
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM users WHERE id = ?1 AND password_hash = '$argon2id$stand-in'",
            &[&user.id]
        ),
        1
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM sessions WHERE user_id = ?1 AND token_hash = ?2",
            &[&user.id, &token::digest(&token_value)]
        ),
        1,
        "the session keeps the token's digest only"
    );
}

#[test]
fn an_email_that_has_an_account_or_a_closed_sign_up_is_refused() {
    let b = Books::new();
    let clock = Clock::default();
    let msg = b.refused(409, |tx| {
        accounts::sign_up(
            tx,
            account("ann@example.com"),
            SignupMode::Open,
            &clock,
            &LIFETIME,
        )
    });
    assert!(msg.contains("already exists"), "{msg}");
    // Only the first account may sign up, and this installation has two.
    let msg = b.refused(403, |tx| {
        accounts::sign_up(
            tx,
            account("cat@example.com"),
            SignupMode::FirstUser,
            &clock,
            &LIFETIME,
        )
    });
    assert!(msg.contains("Sign-up is closed"), "{msg}");
}

#[test]
fn signing_in_forgets_the_failures_drops_expired_sessions_and_starts_one() {
    let b = Books::new();
    let clock = Clock::default();
    let now = clock.now().unix_timestamp();
    b.write(|tx| {
        tx.execute(
            "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
             VALUES ('old', ?1, '2026-01-01T00:00:00Z', 0, ?2),
                    ('bobs', ?3, '2026-01-01T00:00:00Z', 0, ?4)",
            rusqlite::params![ANN, now - 1, BOB, now + 3600],
        )?;
        throttle::begin(tx, "ann@example.com", now)?;
        throttle::begin(tx, "bob@example.com", now)
    });
    let signed_in = b.write(|tx| {
        accounts::sign_in(
            tx,
            "ann@example.com",
            ANN,
            &accounts::SecondFactor::default(),
            &clock,
            &LIFETIME,
        )
    });
    let accounts::SignedIn::Session(t, _) = signed_in else {
        panic!("{signed_in:?}")
    };
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM login_failures WHERE email = ?1",
            &["ann@example.com"]
        ),
        0
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM login_failures WHERE email = ?1",
            &["bob@example.com"]
        ),
        1
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM sessions WHERE token_hash = 'old'",
            &[]
        ),
        0,
        "an expired session goes at the next sign-in"
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM sessions WHERE token_hash = 'bobs'",
            &[]
        ),
        1
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM sessions WHERE user_id = ?1 AND token_hash = ?2",
            &[ANN, &token::digest(&t)]
        ),
        1
    );
}

#[test]
fn signing_out_ends_one_session_and_signing_out_everywhere_ends_them_all() {
    let b = Books::new();
    let clock = Clock::default();
    let session = |user: &str| {
        b.write(|tx| stockbook::auth::create_session(tx, user, &clock, &LIFETIME))
            .0
    };
    let (a1, _a2, b1) = (session(ANN), session(ANN), session(BOB));
    let sessions_of =
        |user: &str| b.count("SELECT COUNT(*) FROM sessions WHERE user_id = ?1", &[user]);
    b.write(|tx| accounts::end_session(tx, &token::digest(&a1)));
    assert_eq!((sessions_of(ANN), sessions_of(BOB)), (1, 1));
    session(ANN);
    b.write(|tx| accounts::end_every_session(tx, ANN));
    assert_eq!((sessions_of(ANN), sessions_of(BOB)), (0, 1));
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM sessions WHERE token_hash = ?1",
            &[&token::digest(&b1)]
        ),
        1
    );
}

// API keys -------------------------------------------------------------------------------

#[test]
fn a_key_is_stored_as_its_digest_and_listed_by_its_prefix() {
    let b = Books::new();
    let created =
        b.write(|tx| api_keys::create_key(tx, &b.ann(), key(" CI ", Some(&b.ann_entity)), &b.ctx));
    assert!(created.raw_key.starts_with("sbk_"));
    assert_eq!(created.key.name, "CI");
    assert_eq!(created.key.prefix, created.raw_key[..12]);
    assert_eq!(
        created.key.entity_id.as_deref(),
        Some(b.ann_entity.as_str())
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM api_keys WHERE id = ?1 AND owner_id = ?2 AND key_hash = ?3",
            &[&created.key.id, ANN, &token::digest(&created.raw_key)]
        ),
        1
    );
    let page = Page {
        limit: None,
        offset: 0,
    };
    let listed = b.read(|c| api_keys::list_keys(c, &b.ann(), page)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].prefix, created.key.prefix);
    assert!(b
        .read(|c| api_keys::list_keys(c, &b.bob(), page))
        .unwrap()
        .is_empty());
}

#[test]
fn a_key_needs_a_name_an_entity_of_its_owner_and_room_under_the_limit() {
    let b = Books::new();
    b.refused(400, |tx| {
        api_keys::create_key(tx, &b.ann(), key("  ", None), &b.ctx)
    });
    b.refused(404, |tx| {
        api_keys::create_key(tx, &b.ann(), key("k", Some(&b.bob_entity)), &b.ctx)
    });
    for i in 0..MAX_ACTIVE_KEYS {
        b.write(|tx| api_keys::create_key(tx, &b.ann(), key(&format!("k{i}"), None), &b.ctx));
    }
    let msg = b.refused(409, |tx| {
        api_keys::create_key(tx, &b.ann(), key("one more", None), &b.ctx)
    });
    assert!(msg.contains("at most 100 active API keys"), "{msg}");
    // A revoked key makes room.
    let first = b
        .read(|c| {
            api_keys::list_keys(
                c,
                &b.ann(),
                Page {
                    limit: Some(1),
                    offset: 0,
                },
            )
        })
        .unwrap();
    b.write(|tx| api_keys::revoke_key(tx, &b.ann(), &first[0].id, &b.ctx));
    b.write(|tx| api_keys::create_key(tx, &b.ann(), key("one more", None), &b.ctx));
}

#[test]
fn a_revoked_key_keeps_its_first_revocation_and_stops_authenticating() {
    let b = Books::new();
    let created = b.write(|tx| api_keys::create_key(tx, &b.ann(), key("k", None), &b.ctx));
    let now = time::OffsetDateTime::now_utc();
    b.read(|c| api_keys::authenticate(c, &created.raw_key, now))
        .expect("a fresh key works");
    b.write(|tx| api_keys::revoke_key(tx, &b.ann(), &created.key.id, &b.ctx));
    let later = stockbook::ctx::Ctx::at(now + time::Duration::days(1), false);
    b.write(|tx| api_keys::revoke_key(tx, &b.ann(), &created.key.id, &later));
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM api_keys WHERE id = ?1 AND revoked_at = ?2",
            &[&created.key.id, &b.ctx.now]
        ),
        1,
        "revoking again keeps the first revoked_at"
    );
    let e = b
        .read(|c| api_keys::authenticate(c, &created.raw_key, now))
        .unwrap_err();
    assert_eq!(e.status().code, 401);
    assert!(e.to_string().contains("revoked"), "{e}");
}

#[test]
fn another_users_key_cannot_be_revoked() {
    let b = Books::new();
    let bobs = b.write(|tx| api_keys::create_key(tx, &b.bob(), key("k", None), &b.ctx));
    b.refused(404, |tx| {
        api_keys::revoke_key(tx, &b.ann(), &bobs.key.id, &b.ctx)
    });
}

// The OAuth state of an import connection ----------------------------------------------

impl Books {
    fn start(&self, scope_of: &str, entity: &str, state: &str, now: i64) {
        let scope = stockbook::scope::Scope::user(scope_of);
        self.write(|tx| oauth::save_state(tx, &scope, &started(entity, state), now));
    }

    fn states(&self) -> i64 {
        self.count("SELECT COUNT(*) FROM import_oauth_states", &[])
    }
}

fn started(entity: &str, state: &str) -> Started {
    Started {
        entity_id: entity.to_owned(),
        platform: Platform::Freeagent,
        state: state.to_owned(),
        redirect_uri: "https://books.example.com/api/import/oauth/callback".into(),
    }
}

#[test]
fn a_started_authorisation_keeps_the_digest_of_its_state_and_drops_expired_ones() {
    let b = Books::new();
    b.start(BOB, &b.bob_entity, "bobs-old-state", 1_000);
    b.start(
        ANN,
        &b.ann_entity,
        "anns-state",
        1_000 + STATE_LIFETIME_SECS,
    );
    assert_eq!(
        b.count(
            "SELECT COUNT(*) FROM import_oauth_states WHERE state_hash = ?1 AND owner_id = ?2
               AND entity_id = ?3 AND platform = 'freeagent' AND expires_at = ?4",
            &[
                &token::digest("anns-state"),
                ANN,
                &b.ann_entity,
                &(1_000 + 2 * STATE_LIFETIME_SECS).to_string()
            ]
        ),
        1
    );
    assert_eq!(b.states(), 1, "an expired state of anybody is dropped");
    b.refused(404, |tx| {
        oauth::save_state(tx, &b.ann(), &started(&b.bob_entity, "s"), 1_000)
    });
    b.refused(400, |tx| {
        oauth::save_state(tx, &b.ann(), &started("not-an-id", "s"), 1_000)
    });
}

#[test]
fn a_callback_state_is_used_up_once_and_only_by_the_user_who_started_it() {
    let b = Books::new();
    b.start(ANN, &b.ann_entity, "anns-state", 1_000);
    let msg = b.write(|tx| oauth::use_state(tx, &b.bob(), "anns-state", 1_001));
    assert!(
        msg.unwrap_err().contains("does not match"),
        "another user's state is refused like an unknown one"
    );
    assert_eq!(b.states(), 1, "and left for its owner");
    let pending: Pending = b
        .write(|tx| oauth::use_state(tx, &b.ann(), "anns-state", 1_001))
        .expect("the owner's state");
    assert_eq!(pending.entity_id, b.ann_entity);
    assert_eq!(pending.platform, Platform::Freeagent);
    assert_eq!(
        pending.redirect_uri,
        "https://books.example.com/api/import/oauth/callback"
    );
    assert_eq!(b.states(), 0);
    let again = b.write(|tx| oauth::use_state(tx, &b.ann(), "anns-state", 1_002));
    assert!(again.unwrap_err().contains("does not match"));
    let unknown = b.write(|tx| oauth::use_state(tx, &b.ann(), "never-started", 1_002));
    assert!(unknown.is_err());
}

#[test]
fn an_expired_state_is_refused_and_used_up() {
    let b = Books::new();
    b.start(ANN, &b.ann_entity, "anns-state", 1_000);
    let late =
        b.write(|tx| oauth::use_state(tx, &b.ann(), "anns-state", 1_000 + STATE_LIFETIME_SECS));
    assert!(late.unwrap_err().contains("expired"));
    assert_eq!(b.states(), 0);
}
