//! Outgoing calls and pull bounds (docs/limits.md): the connectors call only `https://`
//! hosts with public addresses unless the operator configured the origin, pulls stop at
//! their limits with nothing kept, only `pulls.concurrent` runs pull at once, secrets
//! never reach `Debug`, and a FreeAgent token answer cannot panic or lose the rotated
//! refresh token.

use super::common;
use super::platform_mocks;

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::mock_server::{MockServer, Request, Response};
use common::{assert_error, body, TestApp};
use platform_mocks::*;
use rocket::http::{ContentType, Cookie, Header, Status};
use rocket::local::blocking::Client;
use serde_json::{json, Value};
use stockbook::config::{PlatformConfig, PullLimits};
use stockbook::connectors::freeagent::{self, FreeAgentToken};
use stockbook::connectors::{self, ConnectorError, DataType, Platform, Pull, RetryPolicy};

// ---------------------------------------------------------------------------------------
// Helpers

fn no_sleep() -> RetryPolicy {
    RetryPolicy::with_sleep(|_| {})
}

fn net_app_with(extra: &[(&str, Value)]) -> TestApp {
    let figment = common::test_figment(extra);
    let mut app = stockbook::App::from_figment(&figment).expect("app config");
    app.retry = no_sleep();
    let clock = app.clock.clone();
    let db = app.db.clone();
    let client = Client::untracked(stockbook::build_rocket(figment, app)).expect("valid rocket");
    TestApp {
        client,
        clock,
        db,
        session: RefCell::new(None),
    }
}

/// A signed-in owner with one entity, with these settings.
fn net_app(extra: &[(&str, Value)]) -> (TestApp, String) {
    let t = net_app_with(extra);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    (t, entity)
}

fn save(t: &TestApp, platform: &str, entity: &str, credentials: Value) -> (Status, Value) {
    t.post(
        "/api/import/connections",
        json!({"platform": platform, "entity_id": entity, "credentials": credentials}),
    )
}

fn migrate(t: &TestApp, platform: &str, entity_type: &str, entity: &str) -> (Status, Value) {
    let mode = if platform == "freeagent" {
        "oauth"
    } else {
        "api"
    };
    t.post(
        "/api/import/migrate",
        json!({"mode": mode, "platform": platform, "entityType": entity_type, "entity_id": entity}),
    )
}

fn woo(url: &str) -> Value {
    json!({"url": url, "consumer_key": "ck_abc", "consumer_secret": "cs_def"})
}

fn contacts_of(t: &TestApp, entity: &str) -> usize {
    let res = t.get(&format!("/api/contacts?entityId={entity}"));
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    res.1["data"].as_array().unwrap().len()
}

// ---------------------------------------------------------------------------------------
// SSRF: the WooCommerce `url` and the Shopify `shop`

#[test]
fn a_woocommerce_url_over_plain_http_is_refused_when_saved_naming_https() {
    let (t, entity) = net_app(&[]);
    let msg = assert_error(
        &save(&t, "woocommerce", &entity, woo("http://shop.example")),
        Status::BadRequest,
    );
    assert!(msg.contains("https://"), "{msg}");
    assert!(msg.contains("`url`"), "{msg}");
    assert!(
        t.get("/api/import/connections").1["data"]
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing stored"
    );
}

#[test]
fn a_site_or_shop_on_a_loopback_private_or_link_local_address_is_refused_when_saved() {
    let (t, entity) = net_app(&[]);
    for (platform, creds, kind) in [
        ("woocommerce", woo("https://127.0.0.1:8443/"), "loopback"),
        ("woocommerce", woo("https://10.1.2.3/shop"), "private"),
        (
            "woocommerce",
            woo("https://[::ffff:192.168.0.7]/"),
            "private",
        ),
        ("woocommerce", woo("https://169.254.169.254/"), "link-local"),
        (
            "shopify",
            json!({"shop": "10.0.0.5", "access_token": "shpat_abc"}),
            "private",
        ),
        (
            "shopify",
            json!({"shop": "http://127.0.0.1:9000", "access_token": "shpat_abc"}),
            "loopback",
        ),
    ] {
        let msg = assert_error(&save(&t, platform, &entity, creds), Status::BadRequest);
        assert!(msg.contains(kind), "{platform}: {msg}");
        assert!(msg.contains("public hosts"), "{platform}: {msg}");
    }
}

#[test]
fn a_name_that_resolves_to_loopback_is_refused_when_saved() {
    let (t, entity) = net_app(&[]);
    let msg = assert_error(
        &save(&t, "woocommerce", &entity, woo("https://localhost/")),
        Status::BadRequest,
    );
    assert!(msg.contains("`localhost` is a loopback address"), "{msg}");
}

#[test]
fn the_origin_the_operator_configured_may_be_private_and_plain_http() {
    let server = woo_server(Once(Arc::new(true.into())));
    let (t, entity) = net_app(&[(
        "platforms",
        json!({"woocommerce": {"base_url": server.url()}}),
    )]);
    let res = save(&t, "woocommerce", &entity, woo(server.url()));
    assert_eq!(res.0, Status::Created, "{}", res.1);
    let res = migrate(&t, "woocommerce", "contacts", &entity);
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    assert!(contacts_of(&t, &entity) > 0);
    // Another port of the same host is not the configured origin.
    let port: u16 = server.url().rsplit(':').next().unwrap().parse().unwrap();
    let other = format!("http://127.0.0.1:{}", port.wrapping_add(1).max(1));
    let msg = assert_error(
        &save(&t, "woocommerce", &entity, woo(&other)),
        Status::BadRequest,
    );
    assert!(msg.contains("https://"), "{msg}");
}

#[test]
fn a_pull_refuses_a_site_on_loopback_even_by_name_and_sends_nothing() {
    let server = woo_server(Once::default());
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    let none = PlatformConfig::default();
    for url in [
        format!("http://127.0.0.1:{port}"),
        format!("https://127.0.0.1:{port}"),
        // Passes every check made on the name: the resolved address is refused.
        format!("https://localhost:{port}"),
    ] {
        let err = connectors::pull(
            Platform::Woocommerce,
            DataType::Contacts,
            &woo(&url),
            &none,
            &no_sleep(),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                ConnectorError::Credentials { .. } | ConnectorError::Refused { .. }
            ),
            "{url}: {err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("https://") || msg.contains("loopback"),
            "{url}: {msg}"
        );
    }
    assert!(server.requests().is_empty(), "no request reached the host");

    let err = connectors::pull(
        Platform::Shopify,
        DataType::Contacts,
        &json!({"shop": format!("127.0.0.1:{port}"), "access_token": "shpat_abc"}),
        &none,
        &no_sleep(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("loopback"), "{err:?}");
    assert!(server.requests().is_empty());
}

#[test]
fn a_connection_stored_before_the_rule_is_refused_at_pull_time() {
    let (t, entity) = net_app(&[]);
    // As an older version stored it, unchecked.
    let owner: String =
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT owner_id FROM entities WHERE id = ?1",
                [&entity],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    let creds = woo("http://10.0.0.9");
    t.db.write_sync(|tx| {
        stockbook::import::connections::upsert(
            tx,
            &owner,
            &entity,
            Platform::Woocommerce,
            &creds,
            "2024-01-01T00:00:00Z",
        )
    })
    .unwrap();
    let msg = assert_error(
        &migrate(&t, "woocommerce", "contacts", &entity),
        Status::BadRequest,
    );
    assert!(msg.contains("https://"), "{msg}");
}

#[test]
fn an_error_answer_from_a_platform_is_not_echoed() {
    let page = format!("<html>{}</html>", "internal secret ".repeat(100));
    let server = MockServer::start(move |_: &Request| Response {
        status: 404,
        headers: vec![("Content-Type".into(), "text/html".into())],
        body: page.clone(),
    });
    let cfg = PlatformConfig {
        base_url: Some(server.url().to_owned()),
        ..PlatformConfig::default()
    };
    let err = connectors::pull(
        Platform::Stripe,
        DataType::Contacts,
        &stripe_creds(),
        &cfg,
        &no_sleep(),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(!msg.contains("internal secret"), "{msg}");
    assert!(msg.contains("text/html"), "{msg}");
    assert!(msg.len() < 300, "{msg}");
}

// ---------------------------------------------------------------------------------------
// Unbounded pulls

/// A WooCommerce site whose customers never end: every page links to the next.
fn endless_woo(per_page: usize) -> MockServer {
    MockServer::start(move |r: &Request| {
        let n: usize = r.param("page").and_then(|p| p.parse().ok()).unwrap_or(1);
        let customers: Vec<Value> = (0..per_page)
            .map(|i| {
                let id = n * 1000 + i;
                json!({"id": id, "first_name": "Customer", "last_name": id.to_string(), "email": format!("c{id}@example.com")})
            })
            .collect();
        Response::ok(&json!(customers)).header(
            "Link",
            &format!(
                "<{}/wp-json/wc/v3/customers?per_page=100&role=all&page={}>; rel=\"next\"",
                origin(r),
                n + 1
            ),
        )
    })
}

#[test]
fn a_platform_that_answers_next_forever_stops_at_the_page_cap_and_nothing_is_imported() {
    let server = endless_woo(1);
    let (t, entity) = net_app(&[
        (
            "platforms",
            json!({"woocommerce": {"base_url": server.url()}}),
        ),
        ("pulls", json!({"max_pages": 25})),
    ]);
    let res = save(&t, "woocommerce", &entity, woo_creds());
    assert_eq!(res.0, Status::Created, "{}", res.1);
    let msg = assert_error(
        &migrate(&t, "woocommerce", "contacts", &entity),
        Status::BadRequest,
    );
    assert_eq!(
        msg,
        "woocommerce: the pull went beyond 25 requests (the `pulls.max_pages` setting); \
         nothing was imported"
    );
    assert_eq!(server.requests().len(), 25);
    assert_eq!(contacts_of(&t, &entity), 0, "nothing of the run is kept");
}

#[test]
fn a_pull_stops_at_its_record_and_byte_caps() {
    let server = endless_woo(3);
    let cfg = PlatformConfig {
        base_url: Some(server.url().to_owned()),
        ..PlatformConfig::default()
    };
    let limits = |max_records, max_bytes| PullLimits {
        max_records,
        max_bytes,
        ..PullLimits::default()
    };
    let err = connectors::pull_within(
        Platform::Woocommerce,
        DataType::Contacts,
        &woo_creds(),
        &cfg,
        &Pull::new(&no_sleep(), limits(10, u64::MAX)),
    )
    .unwrap_err();
    assert!(
        matches!(err, ConnectorError::LimitExceeded { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("`pulls.max_records`"), "{err}");
    assert_eq!(server.requests().len(), 4, "3 + 3 + 3 + 3 > 10");

    let before = server.requests().len();
    let pull = Pull::new(&no_sleep(), limits(u64::MAX, 2000));
    let err = connectors::pull_within(
        Platform::Woocommerce,
        DataType::Contacts,
        &woo_creds(),
        &cfg,
        &pull,
    )
    .unwrap_err();
    assert!(err.to_string().contains("`pulls.max_bytes`"), "{err}");
    assert!(server.requests().len() - before < 20);

    // The limits are per run: every type of an `all` run draws on one budget.
    let pull = Pull::new(
        &no_sleep(),
        PullLimits {
            max_pages: 3,
            ..PullLimits::default()
        },
    );
    let stripe = stripe_server(Once(Arc::new(true.into())));
    let cfg = PlatformConfig {
        base_url: Some(stripe.url().to_owned()),
        ..PlatformConfig::default()
    };
    let pull_one = |t| connectors::pull_within(Platform::Stripe, t, &stripe_creds(), &cfg, &pull);
    pull_one(DataType::Contacts).expect("two pages");
    let err = pull_one(DataType::Products).unwrap_err();
    assert!(err.to_string().contains("`pulls.max_pages`"), "{err}");
}

#[test]
fn the_pull_limits_have_documented_defaults_and_refuse_zero() {
    let d = PullLimits::default();
    assert_eq!(
        (d.max_pages, d.max_records, d.max_bytes, d.concurrent),
        (10_000, 1_000_000, 256 * 1024 * 1024, 2)
    );
    let figment = common::test_figment(&[("pulls", json!({"max_pages": 0}))]);
    let err = stockbook::App::from_figment(&figment)
        .err()
        .expect("refused");
    assert!(err.contains("`pulls.max_pages`"), "{err}");
    let figment = common::test_figment(&[("pulls", json!({"concurrent": 0}))]);
    let err = stockbook::App::from_figment(&figment)
        .err()
        .expect("refused");
    assert!(err.contains("`pulls.concurrent`"), "{err}");
}

/// Holds every request until `release` is set (at most 20 s).
fn gated(
    handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    release: Arc<AtomicBool>,
) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
        let start = Instant::now();
        while !release.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        handler(r)
    }
}

#[test]
fn pulls_beyond_the_concurrent_cap_are_refused_with_retry_after_and_the_slots_come_back() {
    use rocket::local::asynchronous::Client as AsyncClient;

    let release = Arc::new(AtomicBool::new(false));
    let stripe = MockServer::start(gated(
        stripe_handler(Once(Arc::new(true.into()))),
        release.clone(),
    ));
    let woo = MockServer::start(gated(
        woo_handler(Once(Arc::new(true.into()))),
        release.clone(),
    ));
    let figment = common::test_figment(&[
        (
            "platforms",
            json!({"stripe": {"base_url": stripe.url()}, "woocommerce": {"base_url": woo.url()},
                   "gocardless": {"base_url": "https://api.gocardless.example"}}),
        ),
        ("pulls", json!({"concurrent": 2})),
    ]);
    let mut app = stockbook::App::from_figment(&figment).expect("app config");
    app.retry = no_sleep();
    let rt = rocket::tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = AsyncClient::untracked(stockbook::build_rocket(figment, app))
            .await
            .unwrap();
        let signup = client
            .post("/api/auth/signup")
            .header(ContentType::JSON)
            .body(json!({"email": "owner@example.com", "password": "correct horse"}).to_string())
            .dispatch()
            .await;
        let session = signup
            .cookies()
            .get("stockbook_session")
            .unwrap()
            .value()
            .to_owned();
        let post = |path: &'static str, v: Value| {
            let client = &client;
            let session = session.clone();
            async move {
                let res = client
                    .post(path)
                    .header(ContentType::JSON)
                    .cookie(Cookie::new("stockbook_session", session))
                    .body(v.to_string())
                    .dispatch()
                    .await;
                let status = res.status();
                let retry_after = res.headers().get_one("Retry-After").map(str::to_owned);
                let v: Value = res.into_json().await.unwrap_or(Value::Null);
                (status, retry_after, v)
            }
        };
        let (_, _, e) = post("/api/entities", json!({"name": "Acme Ltd"})).await;
        let entity = e["data"]["id"].as_str().unwrap().to_owned();
        for (platform, creds) in [
            ("stripe", stripe_creds()),
            ("woocommerce", woo_creds()),
            ("gocardless", json!({"access_token": "gc_token"})),
        ] {
            let (s, _, v) = post(
                "/api/import/connections",
                json!({"platform": platform, "entity_id": entity, "credentials": creds}),
            )
            .await;
            assert_eq!(s, Status::Created, "{v}");
        }
        let run = |platform: &str| {
            json!({"mode": "api", "platform": platform, "entityType": "contacts", "entity_id": entity})
        };
        let third = async {
            // Both runs are inside their platforms: both slots are taken.
            let start = Instant::now();
            while (stripe.requests().is_empty() || woo.requests().is_empty())
                && start.elapsed() < Duration::from_secs(20)
            {
                rocket::tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let refused = post("/api/import/migrate", run("gocardless")).await;
            release.store(true, Ordering::SeqCst);
            refused
        };
        let (a, b, c) = rocket::tokio::join!(
            post("/api/import/migrate", run("stripe")),
            post("/api/import/migrate", run("woocommerce")),
            third,
        );
        assert_eq!(a.0, Status::Ok, "{}", a.2);
        assert_eq!(b.0, Status::Ok, "{}", b.2);
        assert_eq!(c.0, Status::ServiceUnavailable, "{}", c.2);
        assert_eq!(c.1.as_deref(), Some("30"));
        assert!(
            c.2["message"].as_str().unwrap().contains("retry in 30 seconds"),
            "{}",
            c.2
        );
        // The slots came back.
        let again = post("/api/import/migrate", run("stripe")).await;
        assert_eq!(again.0, Status::Ok, "{}", again.2);
    });
}

// ---------------------------------------------------------------------------------------
// Secrets

#[test]
fn credentials_tokens_and_settings_print_no_secret_in_debug() {
    let token = FreeAgentToken {
        access_token: "at-secret-1".into(),
        refresh_token: "rt-secret-2".into(),
        expires_at: time::OffsetDateTime::UNIX_EPOCH,
    };
    let cfg = PlatformConfig {
        client_id: Some("fa_client".into()),
        client_secret: Some("cs-secret-3".into()),
        ..PlatformConfig::default()
    };
    let settings = freeagent::OAuthSettings::from_config(&cfg).unwrap();
    let stored = stockbook::import::connections::StoredConnection {
        connection: stockbook::import::connections::Connection {
            id: "c1".into(),
            platform: "woocommerce".into(),
            entity_id: "e1".into(),
            created_at: "2024-01-01T00:00:00Z".into(),
            last_used_at: None,
            status: "connected".into(),
        },
        credentials: json!({"url": "https://shop.example", "consumer_key": "ck-secret-4", "consumer_secret": "cs-secret-5"}),
    };
    let auth = [
        stockbook::connectors::http::Auth::Bearer("bearer-secret-6".into()),
        stockbook::connectors::http::Auth::Basic {
            user: "ck".into(),
            password: "basic-secret-7".into(),
        },
    ];
    let printed = format!("{token:?} {cfg:?} {settings:?} {stored:?} {auth:?} {token:#?}");
    for secret in [
        "at-secret-1",
        "rt-secret-2",
        "cs-secret-3",
        "ck-secret-4",
        "cs-secret-5",
        "bearer-secret-6",
        "basic-secret-7",
    ] {
        assert!(!printed.contains(secret), "{secret} in {printed}");
    }
    assert!(printed.contains("consumer_key"), "the fields are named");
    assert!(printed.contains("fa_client"), "what is not secret stays");
}

// ---------------------------------------------------------------------------------------
// FreeAgent `expires_in`

/// A token endpoint answering `answer` (raw JSON) to every grant.
fn token_endpoint(answer: &'static str) -> MockServer {
    MockServer::start(move |_: &Request| Response {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: answer.to_owned(),
    })
}

#[test]
fn a_huge_or_negative_expires_in_is_clamped_without_panicking() {
    let now = time::macros::datetime!(2024-03-01 12:00 UTC);
    for (expires_in, lives) in [
        ("9223372036854775807", 86_400),
        ("1e30", 86_400),
        ("-9223372036854775808", 0),
        ("-1e30", 0),
        ("\"7200\"", 7200),
        ("null", 3600),
    ] {
        let answer: &'static str = Box::leak(
            format!(
                r#"{{"access_token": "at-9", "refresh_token": "rt-9", "expires_in": {expires_in}}}"#
            )
            .into_boxed_str(),
        );
        let server = token_endpoint(answer);
        let token =
            freeagent::exchange_code(&fa_config(&server), "code", REDIRECT, now, &no_sleep())
                .unwrap_or_else(|e| panic!("{expires_in}: {e}"));
        assert_eq!(
            token.expires_at - now,
            time::Duration::seconds(lives),
            "{expires_in}"
        );
        assert_eq!(token.refresh_token, "rt-9");
    }
}

#[test]
fn a_rotated_refresh_token_is_kept_even_when_the_rest_of_the_answer_is_unusable() {
    let now = time::macros::datetime!(2024-03-01 12:00 UTC);
    let server = token_endpoint(r#"{"refresh_token": "rt-rotated", "expires_in": 3600}"#);
    let mut token = FreeAgentToken {
        access_token: "at-old".into(),
        refresh_token: "rt-old".into(),
        expires_at: now,
    };
    let err = freeagent::refresh(&fa_config(&server), &mut token, now, &no_sleep()).unwrap_err();
    assert!(err.to_string().contains("access_token"), "{err}");
    assert_eq!(token.refresh_token, "rt-rotated");
}

/// FreeAgent as `freeagent_handler`, except that a refresh rotates `rt-1` into `rt-2`
/// with `answer`'s own `expires_in` (and access token, when it has one).
fn freeagent_with_refresh(answer: Value, calls: Arc<AtomicUsize>) -> MockServer {
    let inner = freeagent_handler(Once(Arc::new(true.into())));
    MockServer::start(move |r: &Request| {
        if r.path == "/v2/token_endpoint"
            && r.form_value("grant_type").as_deref() == Some("refresh_token")
        {
            calls.fetch_add(1, Ordering::SeqCst);
            return Response {
                status: 200,
                headers: vec![("Content-Type".into(), "application/json".into())],
                body: answer.to_string(),
            };
        }
        inner(r)
    })
}

fn connect_freeagent(t: &TestApp, entity: &str) {
    let browse = |path: String| {
        let mut req = t.client.get(path);
        if let Some(token) = t.session.borrow().as_ref() {
            req = req.cookie(Cookie::new("stockbook_session", token.clone()));
        }
        req.header(Header::new("Host", "books.example"))
            .header(Header::new("X-Forwarded-Proto", "https"))
            .dispatch()
    };
    let (status, v) = body(browse(format!(
        "/api/import/oauth/start?platform=freeagent&entityId={entity}"
    )));
    assert_eq!(status, Status::Ok, "{v}");
    let u = url::Url::parse(v["data"]["authorize_url"].as_str().unwrap()).unwrap();
    let state = u
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    let res = browse(format!(
        "/api/import/oauth/callback?code=good-code&state={state}"
    ));
    assert_eq!(res.status(), Status::SeeOther);
    assert_eq!(
        res.headers().get_one("Location"),
        Some("/#/import?connected=freeagent")
    );
}

fn stored_grant(t: &TestApp) -> Value {
    let text: String =
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT unseal(credentials, 'import_connections.credentials') FROM import_connections WHERE platform = 'freeagent'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn freeagent_platforms(server: &MockServer) -> Value {
    json!({"freeagent": {
        "base_url": server.url(),
        "authorize_url": format!("{}/v2/approve_app", server.url()),
        "token_url": format!("{}/v2/token_endpoint", server.url()),
        "client_id": "fa_client",
        "client_secret": "fa_secret",
    }})
}

#[test]
fn freeagent_a_refresh_with_an_i64_max_expires_in_imports_and_stores_the_rotated_grant() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = freeagent_with_refresh(
        json!({"access_token": "at-2", "refresh_token": "rt-2", "expires_in": i64::MAX}),
        calls.clone(),
    );
    let (t, entity) = net_app(&[("platforms", freeagent_platforms(&server))]);
    connect_freeagent(&t, &entity);
    t.clock.advance(3600);
    let res = migrate(&t, "freeagent", "contacts", &entity);
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    assert_eq!(contacts_of(&t, &entity), 3);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let grant = stored_grant(&t);
    assert_eq!(grant["refresh_token"], "rt-2");
    let expires = time::OffsetDateTime::parse(
        grant["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let lives = (expires - t.clock.now()).whole_seconds();
    assert!(
        (freeagent::MAX_EXPIRES_IN - 60..=freeagent::MAX_EXPIRES_IN).contains(&lives),
        "clamped to a day: {lives}"
    );
}

#[test]
fn freeagent_a_rotated_refresh_token_is_stored_when_the_rest_of_the_answer_fails() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = freeagent_with_refresh(
        json!({"refresh_token": "rt-2", "expires_in": 3600}),
        calls.clone(),
    );
    let (t, entity) = net_app(&[("platforms", freeagent_platforms(&server))]);
    connect_freeagent(&t, &entity);
    t.clock.advance(3600);
    let msg = assert_error(
        &migrate(&t, "freeagent", "contacts", &entity),
        Status::ServiceUnavailable,
    );
    assert!(msg.contains("access_token"), "{msg}");
    assert_eq!(stored_grant(&t)["refresh_token"], "rt-2");
    assert_eq!(contacts_of(&t, &entity), 0);
}
