//! Webhooks (docs/webhooks.md): the CRUD and its URL rules, the outbox written with each
//! change, and delivery by the worker to a receiver on loopback (the tests allow http
//! and private addresses through the settings, and shorten the retry schedule).

use super::common;

use std::collections::HashSet;
use std::io::Read;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::mock_server::{MockServer, Request, Response};
use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// Helpers

/// An app whose webhook worker runs, allowed to call loopback over http, with a short
/// retry schedule.
fn delivering_app(retry: Value) -> TestApp {
    app_set_up(
        &[
            ("webhooks_allow_http", json!(true)),
            ("webhooks_allow_private", json!(true)),
            ("webhooks_retry", retry),
        ],
        |app| app.webhook_worker = true,
    )
}

fn quick() -> Value {
    json!({"first_ms": 200, "max_ms": 1000, "window_ms": 60000, "timeout_ms": 3000})
}

/// Creates a webhook; returns its record and secret.
fn webhook(t: &TestApp, url: &str, events: Value, entity: Option<&str>) -> (Value, String) {
    let (s, v) = t.post(
        "/api/webhooks",
        json!({"url": url, "events": events, "entity_id": entity}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let secret = v["data"]["secret"].as_str().unwrap().to_owned();
    (v["data"].clone(), secret)
}

/// Waits up to `secs` for `done`.
fn wait_for(secs: u64, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Checks `Stockbook-Signature` on a received request: `t=<unix>,v1=<hex HMAC-SHA256 of
/// "<t>.<body>">` with the secret, signed within the last minute.
fn assert_signed(r: &Request, secret: &str) {
    let header = r.header("stockbook-signature").expect("signature header");
    let (t, v1) = header
        .split_once(',')
        .and_then(|(t, v)| Some((t.strip_prefix("t=")?, v.strip_prefix("v1=")?)))
        .unwrap_or_else(|| panic!("malformed signature {header}"));
    let mac = stockbook::webhooks::signature::hmac_sha256(
        secret.as_bytes(),
        format!("{t}.{}", r.body).as_bytes(),
    );
    let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(v1, hex, "signature of {}", r.body);
    let t: i64 = t.parse().unwrap();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!((now - t).abs() < 60, "t={t}");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.method, "POST");
}

fn deliveries(t: &TestApp, query: &str) -> Vec<Value> {
    let (s, v) = t.get(&format!("/api/webhooks/deliveries{query}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

/// Runs the delivery worker's catch-up with the ledger now, as its next round would
/// (docs/webhooks.md#events): the movements' deliveries are then in the outbox. The
/// tests that read the outbox run no worker.
fn caught_up(t: &TestApp) {
    t.db.write_sync(|tx| {
        stockbook::webhooks::outbox::catch_up(
            tx,
            stockbook::webhooks::outbox::Webhooks::Active,
            None,
        )
    })
    .unwrap();
}

fn outbox_rows(t: &TestApp) -> i64 {
    t.db.read_sync(
        |c| Ok(c.query_row("SELECT COUNT(*) FROM webhook_deliveries", [], |r| r.get(0))?),
    )
    .unwrap()
}

fn types(received: &[Request]) -> Vec<String> {
    received
        .iter()
        .map(|r| r.json()["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------
// The resource and its rules

#[test]
fn a_webhook_shows_its_secret_once_and_can_be_changed_deactivated_and_deleted() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let (w, secret) = webhook(
        &t,
        "https://127.0.0.1:9/hook",
        json!(["stock.low", "stock.low", "invoice.updated"]),
        Some(&e),
    );
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert_eq!(secret.len(), "whsec_".len() + 32);
    assert!(secret[6..].chars().all(|c| c.is_ascii_alphanumeric()));
    assert_eq!(w["events"], json!(["stock.low", "invoice.updated"]));
    assert_eq!(w["entity_id"], json!(e));
    assert_eq!(w["active"], json!(true));
    assert!(w["created_at"].is_string());

    let (s, v) = t.get("/api/webhooks");
    assert_eq!(s, Status::Ok);
    let listed = &v["data"][0];
    assert_eq!(listed["id"], w["id"]);
    assert!(listed.get("secret").is_none(), "{listed}");
    assert!(!v.to_string().contains(&secret));

    let (s, v) = t.put(
        "/api/webhooks",
        json!({"id": w["id"], "events": ["*", "bill.updated"], "active": false, "entity_id": null}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["events"], json!(["*"]));
    assert_eq!(v["data"]["active"], json!(false));
    assert_eq!(v["data"]["entity_id"], Value::Null);
    assert_eq!(v["data"]["url"], w["url"]);

    // An inactive webhook sends no test.
    let r = t.post("/api/webhooks/test", json!({"id": w["id"]}));
    assert!(assert_error(&r, Status::Conflict).contains("inactive"));

    let (s, _) = t.delete("/api/webhooks", json!({"id": w["id"]}));
    assert_eq!(s, Status::Ok);
    let (_, v) = t.get("/api/webhooks");
    assert_eq!(v["data"], json!([]));
    let r = t.delete("/api/webhooks", json!({"id": w["id"]}));
    assert_error(&r, Status::NotFound);
}

#[test]
fn bad_event_lists_and_foreign_entities_are_refused() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let url = "https://127.0.0.1:9/hook";
    let r = t.post("/api/webhooks", json!({"url": url}));
    assert!(assert_error(&r, Status::BadRequest).contains("events"));
    let r = t.post("/api/webhooks", json!({"url": url, "events": []}));
    assert!(assert_error(&r, Status::BadRequest).contains("events"));
    let r = t.post(
        "/api/webhooks",
        json!({"url": url, "events": ["stock.moved"]}),
    );
    let msg = assert_error(&r, Status::BadRequest);
    assert!(
        msg.contains("stock.moved") && msg.contains("stock_movement.created"),
        "{msg}"
    );
    let r = t.post("/api/webhooks", json!({"events": ["*"]}));
    assert!(assert_error(&r, Status::BadRequest).contains("url"));

    // Another user's entity is unknown here, and so is their webhook.
    t.signup("other@example.com");
    let theirs = t.entity("Theirs Ltd");
    let (their_hook, _) = webhook(&t, url, json!(["*"]), None);
    t.login("owner@example.com");
    let r = t.post(
        "/api/webhooks",
        json!({"url": url, "events": ["*"], "entity_id": theirs}),
    );
    assert_error(&r, Status::NotFound);
    let r = t.put(
        "/api/webhooks",
        json!({"id": their_hook["id"], "active": false}),
    );
    assert_error(&r, Status::NotFound);
    let r = t.get(&format!(
        "/api/webhooks/deliveries?webhookId={}",
        their_hook["id"].as_str().unwrap()
    ));
    assert_error(&r, Status::NotFound);
}

#[test]
fn http_and_private_addresses_are_refused_by_default_naming_the_rule() {
    let (t, _) = app_with_entity();
    let r = t.post(
        "/api/webhooks",
        json!({"url": "http://hooks.example.com/in", "events": ["*"]}),
    );
    let msg = assert_error(&r, Status::BadRequest);
    assert!(
        msg.contains("https://") && msg.contains("webhooks_allow_http"),
        "{msg}"
    );
    for (url, kind) in [
        ("https://127.0.0.1:8443/in", "loopback"),
        ("https://10.1.2.3/in", "private"),
        ("https://169.254.169.254/latest", "link-local"),
        ("https://localhost/in", "loopback"),
    ] {
        let r = t.post("/api/webhooks", json!({"url": url, "events": ["*"]}));
        let msg = assert_error(&r, Status::BadRequest);
        assert!(
            msg.contains(kind) && msg.contains("webhooks_allow_private"),
            "{url}: {msg}"
        );
    }
    // Allowing private addresses still keeps http out, and the other way round.
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let r = t.post(
        "/api/webhooks",
        json!({"url": "http://127.0.0.1:9/in", "events": ["*"]}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("https://"));
    let t = app_with(&[("webhooks_allow_http", json!(true))]);
    t.signup("owner@example.com");
    let r = t.post(
        "/api/webhooks",
        json!({"url": "http://127.0.0.1:9/in", "events": ["*"]}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("loopback"));
    let r = t.put(
        "/api/webhooks",
        json!({"id": uuid::Uuid::new_v4(), "url": "ftp://x"}),
    );
    assert_error(&r, Status::BadRequest);
}

// ---------------------------------------------------------------------------------------
// The outbox

#[test]
fn a_refused_movement_writes_no_event_and_a_committed_one_writes_one_per_subscriber() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    webhook(
        &t,
        "https://127.0.0.1:9/a",
        json!(["stock_movement.created"]),
        None,
    );
    webhook(&t, "https://127.0.0.1:9/b", json!(["*"]), Some(&e));
    let (inactive, _) = webhook(&t, "https://127.0.0.1:9/c", json!(["*"]), None);
    let (st, _) = t.put(
        "/api/webhooks",
        json!({"id": inactive["id"], "active": false}),
    );
    assert_eq!(st, Status::Ok);
    webhook(
        &t,
        "https://127.0.0.1:9/d",
        json!(["invoice.updated"]),
        None,
    );

    let (s, v) = movement(&t, &p, Some(&main), "sale", json!(-1));
    assert_eq!(s, Status::Conflict, "{v}");
    caught_up(&t);
    assert_eq!(outbox_rows(&t), 0, "a refused movement has no event");

    moved(&t, &p, Some(&main), "purchase", json!(20));
    caught_up(&t);
    // The two active subscribers each get the event; the inactive one and the one
    // subscribed to invoices do not.
    let log = deliveries(&t, "");
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log.iter().all(|d| d["type"] == "stock_movement.created"));
    assert_eq!(log[0]["event_id"], log[1]["event_id"]);
    assert!(log
        .iter()
        .all(|d| d["status"] == "pending" && d["attempts"] == 0));
}

/// The bodies the worker would send to `hook` now, in delivery order (movement events
/// rendered from the ledger rows they name).
fn pending_events(t: &TestApp, hook: &str) -> Vec<Value> {
    t.db.read_sync(|c| {
        stockbook::webhooks::worker::pending_bodies(
            c,
            stockbook::inventory::movements::event_data,
            hook,
        )
    })
    .unwrap()
    .iter()
    .map(|b| serde_json::from_str::<Value>(b).unwrap())
    .collect()
}

/// The outbox of one webhook in delivery order: (type, the movement's id or the alert's
/// product id).
fn outbox_of(t: &TestApp, hook: &str) -> Vec<(String, String)> {
    pending_events(t, hook)
        .iter()
        .map(|v| {
            let about = match v["data"]["id"].as_str() {
                Some(id) => id.to_owned(),
                None => v["data"]["product_id"]["id"].as_str().unwrap().to_owned(),
            };
            (v["type"].as_str().unwrap().to_owned(), about)
        })
        .collect()
}

#[test]
fn a_movements_event_goes_before_the_events_written_after_it_and_only_once() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil"); // low-stock threshold 5
    let (hook, _) = webhook(&t, "https://127.0.0.1:9/a", json!(["*"]), None);
    let hook = id(&hook);
    let bought = moved(&t, &p, Some(&main), "purchase", json!(10));
    // Nothing has caught up with the ledger (no worker runs here): the sale's stock.low,
    // written in the sale's transaction, brings this webhook's movements in first.
    let sold = moved(&t, &p, Some(&main), "sale", json!(-6));
    let expected = vec![
        ("stock_movement.created".to_owned(), id(&bought)),
        ("stock_movement.created".to_owned(), id(&sold)),
        ("stock.low".to_owned(), p.clone()),
    ];
    assert_eq!(outbox_of(&t, &hook), expected);
    // The worker's catch-up finds nothing more to write.
    caught_up(&t);
    assert_eq!(outbox_of(&t, &hook), expected);
    let later = moved(&t, &p, Some(&main), "purchase", json!(1));
    caught_up(&t);
    caught_up(&t);
    let mut expected = expected;
    expected.push(("stock_movement.created".to_owned(), id(&later)));
    assert_eq!(outbox_of(&t, &hook), expected);
}

#[test]
fn a_webhook_receives_the_movements_written_while_it_was_active_and_as_it_was_then() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let acme = t.entity("Acme Ltd");
    let other = t.entity("Other Ltd");
    let (main, shop) = (location(&t, &acme, "Main"), location(&t, &other, "Shop"));
    let (p, q) = (product(&t, &acme, "Anvil"), product(&t, &other, "Bolt"));
    let before = moved(&t, &p, Some(&main), "purchase", json!(1));
    let (w, _) = webhook(&t, "https://127.0.0.1:9/a", json!(["*"]), Some(&acme));
    let w = id(&w);
    let put = |body: Value| {
        let (s, v) = t.put("/api/webhooks", body);
        assert_eq!(s, Status::Ok, "{v}");
    };
    // Written while it is scoped to Acme: Acme's movement is its, Other's is not, even
    // though the scope changes to Other before any catch-up.
    let acme_1 = moved(&t, &p, Some(&main), "purchase", json!(1));
    let other_1 = moved(&t, &q, Some(&shop), "purchase", json!(1));
    put(json!({"id": w, "entity_id": other}));
    let other_2 = moved(&t, &q, Some(&shop), "purchase", json!(1));
    // Written before it is made inactive: still its; while inactive: never its.
    put(json!({"id": w, "active": false}));
    let inactive = moved(&t, &q, Some(&shop), "purchase", json!(1));
    caught_up(&t);
    put(json!({"id": w, "active": true}));
    let after = moved(&t, &q, Some(&shop), "purchase", json!(1));
    caught_up(&t);
    let got: Vec<String> = outbox_of(&t, &w).into_iter().map(|(_, m)| m).collect();
    assert_eq!(got, [id(&acme_1), id(&other_2), id(&after)]);
    for not in [&before, &other_1, &inactive] {
        assert!(!got.contains(&id(not)), "{not}");
    }
    // A webhook added now starts at the ledger's end.
    let (late, _) = webhook(&t, "https://127.0.0.1:9/b", json!(["*"]), None);
    caught_up(&t);
    assert!(outbox_of(&t, &id(&late)).is_empty());
}

#[test]
fn a_movements_event_has_one_id_for_every_webhook_and_every_catch_up() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    let (a, _) = webhook(&t, "https://127.0.0.1:9/a", json!(["*"]), None);
    let (b, _) = webhook(
        &t,
        "https://127.0.0.1:9/b",
        json!(["stock_movement.created"]),
        None,
    );
    let m = moved(&t, &p, Some(&main), "purchase", json!(1));
    // `a` is caught up by the worker, `b` only when it is changed, later.
    caught_up(&t);
    let (s, v) = t.put("/api/webhooks", json!({"id": b["id"], "active": false}));
    assert_eq!(s, Status::Ok, "{v}");
    let log = deliveries(&t, "");
    assert_eq!(log.len(), 2, "{log:?}");
    let ids: HashSet<&str> = log
        .iter()
        .map(|d| d["event_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{log:?}");
    let event = *ids.iter().next().unwrap();
    assert_eq!(
        event,
        stockbook::webhooks::outbox::movement_event_id(
            m["id"].as_str().unwrap(),
            m["created_at"].as_str().unwrap()
        )
    );
    // Time-ordered like every event id: a version-7 UUID.
    assert_eq!(uuid::Uuid::parse_str(event).unwrap().get_version_num(), 7);
    let hooks: HashSet<&str> = log
        .iter()
        .map(|d| d["webhook_id"].as_str().unwrap())
        .collect();
    assert_eq!(hooks, HashSet::from([id(&a).as_str(), id(&b).as_str()]));
}

#[test]
fn stock_low_is_sent_on_entering_the_alert_state_and_not_again_until_it_was_left() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    // Threshold 5 (the default), reorder point 3 at Main.
    let p = product(&t, &e, "Anvil");
    purchase(&t, &p, &main, "10");
    set_reorder_point(&t, &p, &main, "3");
    webhook(&t, "https://127.0.0.1:9/a", json!(["stock.low"]), None);
    let lows = |t: &TestApp| -> Vec<Value> {
        t.db.read_sync(|c| {
            let mut s = c.prepare("SELECT body FROM webhook_deliveries ORDER BY seq")?;
            let rows = s
                .query_map([], |r| r.get::<_, String>(0))?
                .map(|b| serde_json::from_str::<Value>(&b.unwrap()).unwrap())
                .collect();
            Ok(rows)
        })
        .unwrap()
    };
    sale(&t, &p, &main, "4"); // 6: above both
    assert_eq!(lows(&t).len(), 0);
    sale(&t, &p, &main, "1"); // 5: enters the product alert
    let l = lows(&t);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0]["data"]["level"], "global");
    assert_eq!(l[0]["data"]["quantity"], json!(5));
    assert_eq!(l[0]["data"]["threshold"], json!(5));
    assert_eq!(l[0]["data"]["product_id"]["id"], json!(p));
    assert_eq!(l[0]["entity_id"], json!(e));
    sale(&t, &p, &main, "1"); // 4: still in alert, nothing new
    assert_eq!(lows(&t).len(), 1);
    sale(&t, &p, &main, "2"); // 2: enters the location alert too
    let l = lows(&t);
    assert_eq!(l.len(), 2);
    assert_eq!(l[1]["data"]["level"], "location");
    assert_eq!(l[1]["data"]["location_id"]["id"], json!(main));
    assert_eq!(l[1]["data"]["threshold"], json!(3));
    purchase(&t, &p, &main, "10"); // 12: leaves both
    sale(&t, &p, &main, "8"); // 4: enters the product alert again
    let l = lows(&t);
    assert_eq!(l.len(), 3);
    assert_eq!(l[2]["data"]["level"], "global");
}

// ---------------------------------------------------------------------------------------
// Delivery

#[test]
fn every_event_type_arrives_once_signed_with_the_documented_body() {
    let t = delivering_app(quick());
    let rx = MockServer::start(|_| Response::status(204));
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let (w, secret) = webhook(&t, &format!("{}/hooks", rx.url()), json!(["*"]), None);

    let main = location(&t, &e, "Main");
    let shop = location(&t, &e, "Shop");
    let p = product(&t, &e, "Anvil");
    let mv = moved(&t, &p, Some(&main), "purchase", json!(8));
    sale(&t, &p, &main, "3"); // 5: stock.low
    let (s, order) = t.post(
        "/api/transfer-orders",
        json!({"source_location_id": main, "destination_location_id": shop,
               "lines": [{"product_id": p, "quantity": 1}]}),
    );
    assert_eq!(s, Status::Created, "{order}");
    let (s, take) = t.post(
        "/api/stock-takes",
        json!({"location_id": main, "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{take}");
    let take = take["data"].clone();
    let (s, v) = t.put(
        "/api/stock-takes",
        json!({"id": take["id"], "status": "in_progress"}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let line = v["data"]["lines"][0]["id"].clone();
    let (s, completed) = t.put(
        "/api/stock-takes",
        json!({"id": take["id"], "status": "completed",
               "lines": [{"id": line, "counted_quantity": 6}]}),
    );
    assert_eq!(s, Status::Ok, "{completed}");
    let contact = session_contact(&t, Some(&e), "Buyer");
    let (s, inv) = t.post(
        "/api/invoices",
        json!({"contact_id": contact, "entity_id": e, "status": "draft", "lines": []}),
    );
    assert_eq!(s, Status::Created, "{inv}");
    let (s, bill) = t.post(
        "/api/bills",
        json!({"contact_id": contact, "entity_id": e, "status": "draft", "lines": []}),
    );
    assert_eq!(s, Status::Created, "{bill}");
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "products", "entity_id": e,
               "csv": "*ItemCode,ItemName,SalesUnitPrice,SalesTaxRate\nZ-1,Zed,10.00,20%\n"}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let (s, ping) = t.post("/api/webhooks/test", json!({"id": w["id"]}));
    assert_eq!(s, Status::Created, "{ping}");

    let expected = [
        "stock_movement.created",
        "stock.low",
        "transfer_order.updated",
        "stock_take.completed",
        "invoice.updated",
        "bill.updated",
        "import.finished",
        "ping",
    ];
    let all_in = wait_for(15, || {
        let got = types(&rx.requests());
        expected.iter().all(|e| got.iter().any(|g| g == e))
    });
    let received = rx.requests();
    assert!(all_in, "got {:?}", types(&received));
    // Every delivery was delivered once: no event id twice, and the log says so.
    assert!(wait_for(5, || deliveries(&t, "")
        .iter()
        .all(|d| d["status"] == "delivered")));
    let log = deliveries(&t, "?limit=1000");
    assert_eq!(received.len(), log.len(), "{:?}", types(&received));
    let ids: HashSet<String> = received
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), received.len(), "an event arrived twice");
    for r in &received {
        assert_eq!(r.path, "/hooks");
        assert_signed(r, &secret);
        let b = r.json();
        let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 5, "{b}");
        for k in ["id", "type", "created_at", "entity_id", "data"] {
            assert!(b.get(k).is_some(), "{k} missing in {b}");
        }
        if b["type"] != "ping" {
            assert_eq!(b["entity_id"], json!(e), "{b}");
        }
    }
    let body_of = |ty: &str| {
        received
            .iter()
            .map(Request::json)
            .find(|b| b["type"] == ty)
            .unwrap()
    };
    // `data` is the record as the session API shows it.
    assert_eq!(body_of("stock_movement.created")["data"], mv);
    assert_eq!(body_of("transfer_order.updated")["data"], order["data"]);
    assert_eq!(body_of("stock_take.completed")["data"], completed["data"]);
    assert_eq!(body_of("invoice.updated")["data"], inv["data"]);
    assert_eq!(body_of("bill.updated")["data"], bill["data"]);
    assert_eq!(body_of("stock.low")["data"]["level"], "global");
    let import = body_of("import.finished");
    assert_eq!(import["data"]["entity_type"], "products");
    assert_eq!(import["data"]["result"]["imported"], json!(1));
    assert_eq!(body_of("ping")["data"]["webhook_id"], w["id"]);
    // Movements from each path arrived: the purchase, the sale, the stock take's count.
    let movement_types: HashSet<String> = received
        .iter()
        .map(Request::json)
        .filter(|b| b["type"] == "stock_movement.created")
        .map(|b| b["data"]["type"].as_str().unwrap().to_owned())
        .collect();
    for ty in ["purchase", "sale", "stock_take"] {
        assert!(movement_types.contains(ty), "{movement_types:?}");
    }
    // Events of one webhook arrive in the order they were written.
    let seen: Vec<String> = received
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_owned())
        .collect();
    let mut logged: Vec<String> = log
        .iter()
        .map(|d| d["event_id"].as_str().unwrap().to_owned())
        .collect();
    logged.reverse();
    assert_eq!(seen, logged);
}

#[test]
fn a_receiver_answering_500_twice_then_200_gets_three_attempts_with_growing_delays() {
    let t = delivering_app(
        json!({"first_ms": 500, "max_ms": 5000, "window_ms": 60000, "timeout_ms": 3000}),
    );
    let times = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let calls = Arc::new(AtomicUsize::new(0));
    let (tm, c) = (times.clone(), calls.clone());
    let rx = MockServer::start(move |_| {
        tm.lock().unwrap().push(Instant::now());
        if c.fetch_add(1, Ordering::SeqCst) < 2 {
            Response::json(500, &json!({"error": "down for a moment"}))
        } else {
            Response::status(200)
        }
    });
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    webhook(&t, rx.url(), json!(["stock_movement.created"]), None);
    moved(&t, &p, Some(&main), "purchase", json!(1));
    // The body is rendered from the ledger at the first attempt and kept for the
    // retries: a rename after it does not change the bytes that are signed and sent.
    assert!(wait_for(10, || calls.load(Ordering::SeqCst) >= 1));
    let (s, v) = t.put("/api/products", json!({"id": p, "name": "Anvil renamed"}));
    assert_eq!(s, Status::Ok, "{v}");

    assert!(wait_for(10, || deliveries(&t, "")[0]["status"] == "delivered"));
    let d = &deliveries(&t, "")[0];
    assert_eq!(d["attempts"], json!(3), "{d}");
    assert_eq!(d["last_status_code"], json!(200));
    assert_eq!(d["last_error"], Value::Null);
    assert_eq!(d["next_attempt_at"], Value::Null);
    let times = times.lock().unwrap().clone();
    assert_eq!(times.len(), 3);
    let first = times[1] - times[0];
    let second = times[2] - times[1];
    // Retry 1 waits 250-500 ms, retry 2 500-1000 ms (a loaded machine only adds).
    assert!(first >= Duration::from_millis(240), "{first:?}");
    assert!(second >= Duration::from_millis(490), "{second:?}");
    assert!(second > first, "{first:?} then {second:?}");
    let bodies: HashSet<String> = rx.requests().iter().map(|r| r.body.clone()).collect();
    assert_eq!(bodies.len(), 1, "every attempt sends the same event");
    let body: Value = serde_json::from_str(bodies.iter().next().unwrap()).unwrap();
    assert_eq!(body["data"]["product_id"]["name"], "Anvil", "{body}");
}

#[test]
fn a_receiver_that_never_answers_is_retried_and_then_shows_failed() {
    let t = delivering_app(
        json!({"first_ms": 100, "max_ms": 200, "window_ms": 1000, "timeout_ms": 300}),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/never", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let a = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            a.fetch_add(1, Ordering::SeqCst);
            let mut s = stream;
            let mut buf = [0u8; 4096];
            let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
            let _ = s.read(&mut buf);
            held.push(s); // never answered
        }
    });
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    webhook(&t, &url, json!(["*"]), None);
    moved(&t, &p, Some(&main), "purchase", json!(1));
    assert!(wait_for(15, || deliveries(&t, "")
        .first()
        .is_some_and(|d| d["status"] == "failed")));
    let d = &deliveries(&t, "")[0];
    let attempts = d["attempts"].as_i64().unwrap();
    assert!(attempts >= 3, "{d}");
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        usize::try_from(attempts).unwrap()
    );
    assert!(
        d["last_error"]
            .as_str()
            .unwrap()
            .contains("no answer within 300 ms"),
        "{d}"
    );
    assert_eq!(d["next_attempt_at"], Value::Null);

    // A redelivery queues it again, with a fresh window.
    let (s, v) = t.post(
        "/api/webhooks/redeliver",
        json!({"event_id": d["event_id"]}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"][0]["status"], "pending");
    let r = t.post(
        "/api/webhooks/redeliver",
        json!({"event_id": uuid::Uuid::new_v4()}),
    );
    assert_error(&r, Status::NotFound);
}

#[test]
fn events_missed_while_the_receiver_was_down_arrive_in_order_once_it_answers() {
    let t = delivering_app(
        json!({"first_ms": 200, "max_ms": 300, "window_ms": 60000, "timeout_ms": 3000}),
    );
    let up = Arc::new(AtomicUsize::new(0));
    let u = up.clone();
    let rx = MockServer::start(move |_| {
        if u.load(Ordering::SeqCst) == 0 {
            Response::status(503)
        } else {
            Response::status(200)
        }
    });
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    let (w, _) = webhook(&t, rx.url(), json!(["stock_movement.created"]), None);
    let mut written = Vec::new();
    for _ in 0..5 {
        written.push(moved(&t, &p, Some(&main), "purchase", json!(1))["id"].clone());
    }
    assert!(wait_for(5, || rx.requests().len() >= 2));
    up.store(1, Ordering::SeqCst);
    let q = format!("?webhookId={}", w["id"].as_str().unwrap());
    assert!(wait_for(10, || deliveries(&t, &q)
        .iter()
        .all(|d| d["status"] == "delivered")));
    let delivered: Vec<Value> = rx
        .requests()
        .iter()
        .filter(|r| r.json()["type"] == "stock_movement.created")
        .map(|r| r.json()["data"]["id"].clone())
        .collect();
    // The failing head was retried; once it went through, the rest followed in order.
    let unique: Vec<Value> = delivered.iter().fold(Vec::new(), |mut acc: Vec<Value>, v| {
        if !acc.contains(v) {
            acc.push(v.clone());
        }
        acc
    });
    assert_eq!(unique, written);
}

/// The "done when", through the API: the receiver gets a signed event; it is
/// stopped (its port closed, so the attempts are refused), more movements are recorded,
/// it is started again on the same address, and it gets every event it missed, in order,
/// each signed, and each once delivered.
#[test]
fn a_stopped_receiver_gets_every_event_it_missed_once_it_is_started_again() {
    let t = delivering_app(
        json!({"first_ms": 200, "max_ms": 400, "window_ms": 60000, "timeout_ms": 3000}),
    );
    let rx = MockServer::start(|_| Response::status(200));
    let addr = rx.addr();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    let (w, secret) = webhook(
        &t,
        &format!("{}/events", rx.url()),
        json!(["stock_movement.created"]),
        None,
    );
    let q = format!("?webhookId={}", w["id"].as_str().unwrap());

    let first = moved(&t, &p, Some(&main), "purchase", json!(10))["id"].clone();
    assert!(wait_for(10, || !rx.requests().is_empty()));
    let got = rx.requests();
    assert_eq!(got.len(), 1);
    assert_signed(&got[0], &secret);
    assert_eq!(got[0].json()["data"]["id"], first);

    // Stopped: nothing listens on its address any more.
    drop(rx);
    let missed: Vec<Value> = (0..4)
        .map(|_| moved(&t, &p, Some(&main), "sale", json!(-1))["id"].clone())
        .collect();
    assert!(
        wait_for(10, || deliveries(&t, &q).iter().any(|d| {
            d["status"] == "pending"
                && d["attempts"].as_i64() >= Some(2)
                && !d["last_error"].is_null()
        })),
        "the stopped receiver's attempts fail and are retried: {:?}",
        deliveries(&t, &q)
    );

    // Started again on the same address: everything it missed, in order.
    let rx = MockServer::start_at(addr, |_| Response::status(200));
    assert!(wait_for(10, || deliveries(&t, &q)
        .iter()
        .all(|d| d["status"] == "delivered")));
    let got = rx.requests();
    for r in &got {
        assert_signed(r, &secret);
    }
    let ids: Vec<Value> = got.iter().map(|r| r.json()["data"]["id"].clone()).collect();
    assert_eq!(ids, missed, "every missed event once, in the order written");
    assert_eq!(deliveries(&t, &q).len(), 5);
}

#[test]
fn a_scoped_webhook_never_sees_another_entitys_events() {
    let t = delivering_app(quick());
    let rx_a = MockServer::start(|_| Response::status(200));
    let rx_all = MockServer::start(|_| Response::status(200));
    t.signup("owner@example.com");
    let a = t.entity("A Ltd");
    let b = t.entity("B Ltd");
    webhook(&t, rx_a.url(), json!(["*"]), Some(&a));
    webhook(&t, rx_all.url(), json!(["*"]), None);
    // Another user's webhook sees nothing of this user's.
    t.signup("other@example.com");
    let rx_other = MockServer::start(|_| Response::status(200));
    webhook(&t, rx_other.url(), json!(["*"]), None);
    t.login("owner@example.com");

    let (la, lb) = (location(&t, &a, "A main"), location(&t, &b, "B main"));
    let (pa, pb) = (product(&t, &a, "A thing"), product(&t, &b, "B thing"));
    moved(&t, &pb, Some(&lb), "purchase", json!(10));
    moved(&t, &pa, Some(&la), "purchase", json!(10));
    moved(&t, &pb, Some(&lb), "purchase", json!(10));
    assert!(wait_for(10, || rx_all.requests().len() == 3
        && !rx_a.requests().is_empty()));
    std::thread::sleep(Duration::from_millis(300));
    let got = rx_a.requests();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].json()["entity_id"], json!(a));
    assert_eq!(got[0].json()["data"]["product_id"]["id"], json!(pa));
    assert!(rx_other.requests().is_empty());
}

#[test]
fn the_webhook_settings_default_to_public_https_and_a_day_of_retries_and_bad_ones_are_refused() {
    let c = stockbook::config::AppConfig::from_figment(&test_figment(&[])).unwrap();
    assert!(!c.webhooks_allow_http && !c.webhooks_allow_private);
    let s = c.webhooks_retry;
    assert_eq!(
        (s.first_ms, s.max_ms, s.window_ms, s.timeout_ms),
        (30_000, 3_600_000, 86_400_000, 10_000)
    );
    for (bad, key) in [
        (json!({"first_ms": 0}), "webhooks_retry.first_ms"),
        (json!({"timeout_ms": -1}), "webhooks_retry.timeout_ms"),
        (
            json!({"first_ms": 5000, "max_ms": 1000}),
            "webhooks_retry.max_ms",
        ),
        (json!({"window_ms": "a day"}), "webhooks_retry.window_ms"),
        (json!({"first_second": 1}), "webhooks_retry"),
    ] {
        let e = stockbook::config::AppConfig::from_figment(&test_figment(&[(
            "webhooks_retry",
            bad.clone(),
        )]))
        .unwrap_err();
        assert!(e.contains(key), "{bad}: {e}");
    }
    let e = stockbook::config::AppConfig::from_figment(&test_figment(&[(
        "webhooks_allow_http",
        json!("sometimes"),
    )]))
    .unwrap_err();
    assert!(e.contains("webhooks_allow_http"), "{e}");
}

#[test]
fn every_path_that_moves_stock_writes_one_event_per_movement() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let (hook, _) = webhook(
        &t,
        "https://127.0.0.1:9/a",
        json!(["stock_movement.created"]),
        None,
    );
    let hook = hook["id"].as_str().unwrap().to_owned();
    let (main, shop) = (location(&t, &e, "Main"), location(&t, &e, "Shop"));
    // A product's opening stock, and a PUT of its stock_qty.
    let p = id(&product_with(&t, &e, "Anvil", json!({"stock_qty": 4})));
    let (s, v) = t.put("/api/products", json!({"id": p, "stock_qty": 6}));
    assert_eq!(s, Status::Ok, "{v}");
    // POST /api/stock-movements, and a stock row edit.
    moved(&t, &p, Some(&main), "purchase", json!(20));
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({"product_id": p, "location_id": main, "quantity": 18}),
    );
    assert!(s.code < 300, "{v}");
    // A transfer order shipped and received.
    let (s, order) = t.post(
        "/api/transfer-orders",
        json!({"source_location_id": main, "destination_location_id": shop,
               "lines": [{"product_id": p, "quantity": 2}]}),
    );
    assert_eq!(s, Status::Created, "{order}");
    for status in ["in_transit", "completed"] {
        let (s, v) = t.put(
            "/api/transfer-orders",
            json!({"id": order["data"]["id"], "status": status}),
        );
        assert_eq!(s, Status::Ok, "{v}");
    }
    // A posted invoice and bill at a location.
    let contact = session_contact(&t, Some(&e), "Trader");
    for (path, status) in [("/api/invoices", "sent"), ("/api/bills", "paid")] {
        let (s, v) = t.post(
            path,
            json!({"contact_id": contact, "entity_id": e, "status": status, "location_id": shop,
                   "lines": [{"product_id": p, "quantity": 1, "unit_price": 5}]}),
        );
        assert_eq!(s, Status::Created, "{v}");
    }

    let ledger: HashSet<String> = movements(&t, "")
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect();
    // The bodies the worker would send (rendered from the ledger rows they name).
    caught_up(&t);
    let events = pending_events(&t, &hook);
    let evented: HashSet<String> = events
        .iter()
        .map(|b| b["data"]["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events.len(), ledger.len(), "one event per movement");
    assert_eq!(evented, ledger);
    let kinds: HashSet<&str> = events
        .iter()
        .map(|b| b["data"]["type"].as_str().unwrap())
        .collect();
    for k in [
        "adjustment",
        "purchase",
        "transfer_out",
        "transfer_in",
        "sale",
    ] {
        assert!(kinds.contains(k), "{k} missing from {kinds:?}");
    }
}

#[test]
fn a_slow_receiver_never_holds_up_a_request() {
    // The in-memory database has one connection: a worker that kept it while waiting
    // on the receiver would hold up every request for the receiver's 2.5 s.
    let t = delivering_app(quick());
    let rx = MockServer::start(|_| {
        std::thread::sleep(Duration::from_millis(2500));
        Response::status(200)
    });
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    webhook(&t, rx.url(), json!(["*"]), None);
    moved(&t, &p, Some(&main), "purchase", json!(1));
    // The worker is now waiting on the receiver.
    assert!(wait_for(5, || !rx.requests().is_empty()));
    let started = Instant::now();
    moved(&t, &p, Some(&main), "purchase", json!(1));
    let (s, _) = t.get("/api/webhooks/deliveries");
    assert_eq!(s, Status::Ok);
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "a write and a read waited {:?} for the receiver",
        started.elapsed()
    );
}

#[test]
fn events_still_go_out_while_requests_keep_the_writer_saturated() {
    // docs/architecture.md#background-work-yields-to-requests: deliveries wait while the
    // writer is saturated, but at most a second before each batch, so a load that never
    // lets up does not starve them.
    let t = delivering_app(quick());
    let rx = MockServer::start(|_| Response::status(200));
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let p = product(&t, &e, "Anvil");
    webhook(&t, rx.url(), json!(["stock_movement.created"]), None);

    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load: Vec<_> = (0..16)
        .map(|_| {
            let (db, stop) = (t.db.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    db.write_blocking(|tx| {
                        tx.execute_batch("SELECT 1")?;
                        Ok(())
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    assert!(
        wait_for(5, || t.db.writer_saturated()),
        "the load saturates the writer"
    );
    for _ in 0..3 {
        moved(&t, &p, Some(&main), "purchase", json!(1));
    }
    let arrived = wait_for(10, || rx.requests().len() >= 3);
    let still_saturated = t.db.writer_saturated();
    stop.store(true, Ordering::SeqCst);
    for h in load {
        h.join().unwrap();
    }
    assert!(arrived, "events were starved by the load");
    assert!(
        still_saturated,
        "the load stopped before the events arrived"
    );
    assert_eq!(rx.requests().len(), 3);
}

#[test]
fn an_event_is_found_through_indexes_without_reading_every_delivery() {
    // migrations/V15__webhook_movement_events.sql: writing an event touches no event
    // index; redelivery finds attempted deliveries through theirs and pending ones
    // through the pending index.
    let (t, _) = app_with_entity();
    let conn = t.db.conn().unwrap();
    let sql = format!(
        "EXPLAIN QUERY PLAN SELECT 1 WHERE ?1 IS NULL AND 0 IN ({})",
        stockbook::webhooks::DELIVERIES_OF_EVENT
    );
    let mut stmt = conn.prepare(&sql).unwrap();
    let plan: Vec<String> = stmt
        .query_map(rusqlite::params![None::<i64>, "e", "o"], |r| {
            r.get::<_, String>(3)
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let deliveries: Vec<&String> = plan.iter().filter(|l| l.contains(" d ")).collect();
    assert_eq!(deliveries.len(), 2, "{plan:#?}");
    assert!(
        deliveries
            .iter()
            .all(|l| l.starts_with("SEARCH d USING INDEX webhook_deliveries_")),
        "{plan:#?}"
    );
}
