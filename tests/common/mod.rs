//! Test harness: a fresh app over a fresh in-memory database for every test, driven
//! through Rocket's blocking client (real routing, guards, catchers and JSON).
//!
//! The client is untracked; `TestApp` holds the session cookie itself, so one test can
//! speak as a signed-in user, as another user, with an API key, or anonymously.
#![allow(dead_code)]

pub mod fake_hmrc;
pub mod fake_smtp;
pub mod invariants;
pub mod mock_server;
pub mod stock_fixtures;

use std::cell::RefCell;

use rocket::figment::Figment;
use rocket::http::{ContentType, Cookie, Header, Status};
use rocket::local::blocking::{Client, LocalRequest, LocalResponse};
use serde_json::{json, Value};
use stockbook::clock::Clock;
use stockbook::db::Db;

/// The password of every account the tests sign up.
pub const PASSWORD: &str = "correct horse";

pub struct TestApp {
    pub client: Client,
    pub clock: Clock,
    pub db: Db,
    /// The session cookie value sent with `get`/`post`/`put`/`delete`.
    pub session: RefCell<Option<String>>,
}

/// Figment for tests: in-memory database, open sign-up, with extra settings merged on top.
pub fn test_figment(extra: &[(&str, Value)]) -> Figment {
    let mut f = stockbook::config::figment()
        .merge(("database", ":memory:"))
        .merge(("signup", "open"))
        .merge(("log_level", "off"));
    for (k, v) in extra {
        f = f.merge((*k, stockbook::config::figment_value(v)));
    }
    f
}

pub fn app_with(extra: &[(&str, Value)]) -> TestApp {
    app_set_up(extra, |_| {})
}

/// [`app_with`], with `set_up` changing the app before it is built (turning on the
/// webhook worker, say).
pub fn app_set_up(extra: &[(&str, Value)], set_up: impl FnOnce(&mut stockbook::App)) -> TestApp {
    let figment = test_figment(extra);
    let mut app = stockbook::App::from_figment(&figment).expect("app config");
    set_up(&mut app);
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

pub fn app() -> TestApp {
    app_with(&[])
}

/// An app with one signed-in user (`owner@example.com`) and one entity; returns the entity id.
pub fn app_with_entity() -> (TestApp, String) {
    let t = app();
    t.signup("owner@example.com");
    let id = t.entity("Acme Ltd");
    (t, id)
}

pub fn body(res: LocalResponse<'_>) -> (Status, Value) {
    let status = res.status();
    let text = res.into_string().unwrap_or_default();
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, v)
}

impl TestApp {
    pub fn with_session<'c>(&self, req: LocalRequest<'c>) -> LocalRequest<'c> {
        match self.session.borrow().as_ref() {
            Some(token) => req.cookie(Cookie::new("stockbook_session", token.clone())),
            None => req,
        }
    }

    fn keep_session(&self, res: &LocalResponse<'_>) {
        if let Some(c) = res.cookies().get("stockbook_session") {
            *self.session.borrow_mut() = Some(c.value().to_owned());
        }
    }

    /// Signs up (and in) as `email`, replacing the current session.
    pub fn signup(&self, email: &str) -> Value {
        let res = self
            .client
            .post("/api/auth/signup")
            .header(ContentType::JSON)
            .body(json!({"email": email, "password": PASSWORD}).to_string())
            .dispatch();
        assert_eq!(res.status(), Status::Created);
        self.keep_session(&res);
        res.into_json().unwrap()
    }

    /// Signs in as `email` (password [`PASSWORD`]), replacing the current session.
    pub fn login(&self, email: &str) -> (Status, Value) {
        let res = self
            .client
            .post("/api/auth/login")
            .header(ContentType::JSON)
            .body(json!({"email": email, "password": PASSWORD}).to_string())
            .dispatch();
        self.keep_session(&res);
        body(res)
    }

    /// Creates an entity for the signed-in user; returns its id.
    pub fn entity(&self, name: &str) -> String {
        let e = self.post("/api/entities", json!({ "name": name }));
        assert_eq!(e.0, Status::Created, "{}", e.1);
        e.1["data"]["id"].as_str().unwrap().to_owned()
    }

    pub fn get(&self, path: &str) -> (Status, Value) {
        body(
            self.with_session(self.client.get(path.to_owned()))
                .dispatch(),
        )
    }

    pub fn post(&self, path: &str, v: Value) -> (Status, Value) {
        self.send(self.client.post(path.to_owned()), v)
    }

    pub fn put(&self, path: &str, v: Value) -> (Status, Value) {
        self.send(self.client.put(path.to_owned()), v)
    }

    pub fn delete(&self, path: &str, v: Value) -> (Status, Value) {
        self.send(self.client.delete(path.to_owned()), v)
    }

    fn send(&self, req: LocalRequest<'_>, v: Value) -> (Status, Value) {
        body(
            self.with_session(req)
                .header(ContentType::JSON)
                .body(v.to_string())
                .dispatch(),
        )
    }

    /// GET with an API key and no session cookie.
    pub fn get_with_key(&self, path: &str, key: &str) -> (Status, Value) {
        body(
            self.client
                .get(path.to_owned())
                .header(Header::new("Authorization", format!("Bearer {key}")))
                .dispatch(),
        )
    }

    /// POST with an API key and no session cookie.
    pub fn post_with_key(&self, path: &str, key: &str, v: Value) -> (Status, Value) {
        body(
            self.client
                .post(path.to_owned())
                .header(Header::new("Authorization", format!("Bearer {key}")))
                .header(ContentType::JSON)
                .body(v.to_string())
                .dispatch(),
        )
    }
}

/// `POST /api/auth/signup` with this body, without keeping the session.
pub fn signup_with(t: &TestApp, v: Value) -> (Status, Value) {
    body(
        t.client
            .post("/api/auth/signup")
            .header(ContentType::JSON)
            .body(v.to_string())
            .dispatch(),
    )
}

/// `POST /api/auth/login` with this email and password, without keeping the session;
/// returns the answer and its `Retry-After` header.
pub fn login_as(t: &TestApp, email: &str, password: &str) -> ((Status, Value), Option<String>) {
    let res = t
        .client
        .post("/api/auth/login")
        .header(ContentType::JSON)
        .body(json!({ "email": email, "password": password }).to_string())
        .dispatch();
    let retry_after = res.headers().get_one("Retry-After").map(str::to_owned);
    (body(res), retry_after)
}

/// Creates a contact named `name` through the session API, with `entity_id` as given;
/// returns its id.
pub fn session_contact(t: &TestApp, entity: Option<&str>, name: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": name, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// Asserts the error body (docs/conventions.md#errors) and returns its message.
pub fn assert_error(res: &(Status, Value), status: Status) -> String {
    assert_eq!(res.0, status, "unexpected answer: {}", res.1);
    assert_eq!(res.1["statusCode"], json!(status.code), "{}", res.1);
    assert!(res.1["statusMessage"].is_string(), "{}", res.1);
    assert!(
        res.1["code"].is_string(),
        "an error without a code: {}",
        res.1
    );
    res.1["message"].as_str().expect("message").to_owned()
}
