//! Concurrency on a real database file (docs/ledger.md#transactions-and-concurrency: every
//! write that touches stock is one `BEGIN IMMEDIATE` transaction, so concurrent requests
//! never oversell and never lose an update).
//!
//! Rocket's blocking test client is not `Sync`, so the concurrent phase drives one server
//! instance through its asynchronous client from many tasks of a multi-threaded runtime:
//! every request runs its transaction on the server's blocking pool with its own pooled
//! connection, as in production. Setup and the final checks go through the blocking
//! `TestApp` over the same file (sessions live in the database).

mod common;

use std::path::PathBuf;
use std::sync::{Arc, Barrier};

use common::invariants::{check_invariants, dec};
use common::stock_fixtures::*;
use common::*;
use rocket::http::{ContentType, Cookie, Status};
use rocket::local::asynchronous::Client;
use rocket::tokio;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{json, Value};

/// A database file in its own temporary directory, removed on drop.
struct TempDb {
    dir: PathBuf,
    path: String,
}

impl TempDb {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "stockbook-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("stockbook.db").to_string_lossy().into_owned();
        Self { dir, path }
    }

    fn app(&self) -> TestApp {
        app_with(&[("database", json!(self.path))])
    }

    /// Another app over the file (its own Rocket and pool), signed in with `session`.
    fn app_as(&self, session: Option<String>) -> TestApp {
        let t = self.app();
        *t.session.borrow_mut() = session;
        t
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn post(client: &Client, session: &str, path: &str, body: Value) -> (Status, Value) {
    let res = client
        .post(path.to_owned())
        .header(ContentType::JSON)
        .cookie(Cookie::new("stockbook_session", session.to_owned()))
        .body(body.to_string())
        .dispatch()
        .await;
    let status = res.status();
    let text = res.into_string().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Starts a second server instance over the same file and has `workers` tasks, released
/// together, each POST `per_worker` bodies made by `body(worker, i)` to `path`, one after
/// another. Returns every answer.
fn hammer(
    db: &TempDb,
    session: &str,
    path: &'static str,
    workers: usize,
    per_worker: usize,
    body: impl Fn(usize, usize) -> Value + Send + Sync + 'static,
) -> Vec<(Status, Value)> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime");
    let figment = test_figment(&[("database", json!(db.path))]);
    let session = session.to_owned();
    rt.block_on(async move {
        let app = stockbook::App::from_figment(&figment).expect("app");
        let client = Arc::new(
            Client::untracked(stockbook::build_rocket(figment, app))
                .await
                .expect("client"),
        );
        let body = Arc::new(body);
        let start = Arc::new(tokio::sync::Barrier::new(workers));
        let mut tasks = Vec::new();
        for w in 0..workers {
            let (client, body, start, session) =
                (client.clone(), body.clone(), start.clone(), session.clone());
            tasks.push(tokio::spawn(async move {
                start.wait().await;
                let mut out = Vec::new();
                for i in 0..per_worker {
                    out.push(post(&client, &session, path, body(w, i)).await);
                }
                out
            }));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.expect("worker"));
        }
        all
    })
}

fn session_of(t: &TestApp) -> String {
    t.session.borrow().clone().expect("signed in")
}

#[test]
fn concurrent_sales_never_oversell() {
    let db = TempDb::new("sales");
    let t = db.app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({"product_id": p, "location_id": l, "quantity": 100}),
    );
    assert_eq!(s, Status::Created, "{v}");

    let (pid, lid) = (p.clone(), l.clone());
    let answers = hammer(
        &db,
        &session_of(&t),
        "/api/stock-movements",
        8,
        25,
        move |_, _| json!({"product_id": pid, "location_id": lid, "type": "sale", "qty": -1}),
    );

    let sold = answers.iter().filter(|a| a.0 == Status::Created).count();
    let refused: Vec<_> = answers.iter().filter(|a| a.0 != Status::Created).collect();
    assert_eq!(sold, 100, "exactly the stock is sold");
    assert_eq!(refused.len(), 100);
    for a in refused {
        assert_eq!(
            assert_error(a, Status::Conflict),
            "Insufficient stock at Main: SKU-00001 needs 1, has 0"
        );
    }
    assert_eq!(qty_at(&t, &p, &l), d("0"));
    assert_eq!(stock_qty(&t, &p), d("0"));
    assert_eq!(movements(&t, "?type=sale").len(), 100);
    check_invariants(&t);
}

#[test]
fn concurrent_purchases_lose_no_update() {
    let db = TempDb::new("purchases");
    let t = db.app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product_with(&t, &e, "Widget", json!({"stock_qty": 10, "cost_price": 2}))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let l = location(&t, &e, "Main");
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({"product_id": p, "location_id": l, "quantity": 10}),
    );
    assert_eq!(s, Status::Created, "{v}");

    // Every purchase has its own unit cost; even-numbered ones go to Main, the others
    // are unallocated.
    let (pid, lid) = (p.clone(), l.clone());
    let answers = hammer(
        &db,
        &session_of(&t),
        "/api/stock-movements",
        8,
        25,
        move |w, i| {
            let cost = Decimal::new(100 + (w * 25 + i) as i64, 2);
            let mut b = json!({"product_id": pid, "type": "purchase", "qty": 1.5,
                           "unit_cost": num(&cost.to_string())});
            if i % 2 == 0 {
                b["location_id"] = json!(lid);
            }
            b
        },
    );
    for a in &answers {
        assert_eq!(a.0, Status::Created, "{}", a.1);
    }

    // 20 before + 200 × 1.5; Main: 10 + 8 workers × 13 even i × 1.5.
    assert_eq!(stock_qty(&t, &p), d("320"));
    assert_eq!(qty_at(&t, &p, &l), d("166"));
    let list = movements(&t, &format!("?productId={p}"));
    assert_eq!(list.iter().filter(|m| m["type"] == "purchase").count(), 200);

    // Replaying the ledger in its order gives the weighted average the product holds:
    // no purchase read a stale quantity or cost.
    let (mut stock, mut cost) = (Decimal::ZERO, d("2"));
    for m in list.iter().rev() {
        let qty = dec(&m["qty"]);
        if m["type"] == "purchase" && !m["unit_cost"].is_null() {
            let unit = dec(&m["unit_cost"]);
            cost = if stock <= Decimal::ZERO {
                unit
            } else {
                ((stock * cost + qty * unit) / (stock + qty))
                    .round_dp_with_strategy(4, RoundingStrategy::MidpointAwayFromZero)
            };
        }
        stock += qty;
    }
    assert_eq!(stock, d("320"));
    assert_eq!(cost_price(&t, &p), cost.normalize());
    check_invariants(&t);
}

#[test]
fn concurrent_sales_and_purchases_on_one_row_stay_consistent() {
    let db = TempDb::new("mixed");
    let t = db.app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({"product_id": p, "location_id": l, "quantity": 20}),
    );
    assert_eq!(s, Status::Created, "{v}");

    // Half the workers sell 2 at a time, the other half buy 1 at a time.
    let (pid, lid) = (p.clone(), l.clone());
    let answers = hammer(
        &db,
        &session_of(&t),
        "/api/stock-movements",
        8,
        20,
        move |w, _| {
            let (kind, qty) = if w % 2 == 0 {
                ("sale", -2)
            } else {
                ("purchase", 1)
            };
            json!({"product_id": pid, "location_id": lid, "type": kind, "qty": qty})
        },
    );
    let mut expected = d("20");
    for a in &answers {
        match a.0 {
            Status::Created => expected += dec(&a.1["data"]["qty"]),
            _ => {
                assert_error(a, Status::Conflict);
            }
        }
    }
    assert_eq!(qty_at(&t, &p, &l), expected);
    assert!(expected >= Decimal::ZERO);
    assert_eq!(stock_qty(&t, &p), expected);
    check_invariants(&t);
}

/// A streamed answer (the stock valuation) keeps its connection while the client reads.
/// At most half the pool may be held so; the next stream waits for a permit, and other
/// requests still find connections.
#[test]
fn streamed_answers_hold_at_most_half_the_pool_and_other_requests_still_run() {
    use rocket::futures::FutureExt;

    let file = TempDb::new("streams");
    let t = file.app();
    t.signup("streams@example.com");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _in_runtime = rt.enter();
    let held: Vec<_> = (0..4)
        .map(|_| rt.block_on(t.db.streaming_permit()).unwrap())
        .collect();
    // Each permit may hold a connection; do so, as a slow download would.
    let conns: Vec<_> = held.iter().map(|_| t.db.conn().unwrap()).collect();
    assert!(
        t.db.streaming_permit().now_or_never().is_none(),
        "a fifth stream must wait"
    );
    // ... and when no permit comes back in time, it is a 503 to retry, not a hang.
    let waited = rt.block_on(t.db.streaming_permit_within(std::time::Duration::from_millis(50)));
    assert_eq!(
        waited.err().map(|e| e.status()),
        Some(Status::ServiceUnavailable)
    );
    // Requests that are not streamed still find a connection.
    let (s, v) = t.get("/api/products?limit=10");
    assert_eq!(s, Status::Ok, "{v}");
    drop(conns);
    drop(held);
    assert!(t.db.streaming_permit().now_or_never().is_some());
}

/// The valuation reads products, then each location's stock rows, in one snapshot: while
/// purchases land, every report still balances (no stock shows as unallocated, when all
/// of it is at locations, and the summary is the sum of the rows).
#[test]
fn valuations_taken_during_purchases_always_balance() {
    let file = TempDb::new("valuation");
    let t = file.app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let locations = [location(&t, &e, "Main"), location(&t, &e, "Annex")];
    let products: Vec<String> = (0..30)
        .map(|i| product(&t, &e, &format!("Item {i:02}")))
        .collect();
    for p in &products {
        for l in &locations {
            let (s, v) = t.post(
                "/api/stock-movements",
                json!({"product_id": p, "location_id": l, "type": "purchase", "qty": 1}),
            );
            assert_eq!(s, Status::Created, "{v}");
        }
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    let figment = test_figment(&[("database", json!(file.path))]);
    let session = session_of(&t);
    let reports = rt.block_on(async move {
        let app = stockbook::App::from_figment(&figment).expect("app");
        let client = Arc::new(
            Client::untracked(stockbook::build_rocket(figment, app))
                .await
                .expect("client"),
        );
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut writers = Vec::new();
        for w in 0..4 {
            let (client, session, products, locations) = (
                client.clone(),
                session.clone(),
                products.clone(),
                locations.clone(),
            );
            writers.push(tokio::spawn(async move {
                for i in 0..60 {
                    let body = json!({
                        "product_id": products[(w * 7 + i) % products.len()],
                        "location_id": locations[i % 2],
                        "type": "purchase",
                        "qty": 1,
                    });
                    let (s, v) = post(&client, &session, "/api/stock-movements", body).await;
                    assert_eq!(s, Status::Created, "{v}");
                }
            }));
        }
        let reader = {
            let (client, session, done) = (client.clone(), session.clone(), done.clone());
            tokio::spawn(async move {
                let mut reports = Vec::new();
                loop {
                    // Once the writers are done, one more report sees all they wrote.
                    let finished = done.load(std::sync::atomic::Ordering::SeqCst);
                    let res = client
                        .get("/api/reports/stock-valuation")
                        .cookie(Cookie::new("stockbook_session", session.clone()))
                        .dispatch()
                        .await;
                    assert_eq!(res.status(), Status::Ok);
                    let v: Value = serde_json::from_str(&res.into_string().await.unwrap()).unwrap();
                    reports.push(v);
                    if finished && reports.len() >= 5 {
                        break;
                    }
                }
                reports
            })
        };
        for w in writers {
            w.await.expect("writer");
        }
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        reader.await.expect("reader")
    });

    let mut last = Decimal::ZERO;
    for v in &reports {
        let rows = v["data"].as_array().unwrap();
        let unallocated: Vec<&Value> = rows
            .iter()
            .filter(|r| r["location_name"] == json!("Unallocated"))
            .collect();
        assert!(unallocated.is_empty(), "{unallocated:?}");
        let units: Decimal = rows.iter().map(|r| dec(&r["quantity"])).sum();
        assert_eq!(units, dec(&v["summary"]["totalUnits"]));
        assert!(units >= last, "stock only grows: {units} after {last}");
        last = units;
    }
    assert_eq!(
        last,
        Decimal::from(60 + 240),
        "the last report saw every purchase"
    );
}

/// docs/auth.md#login-throttle: 10 failed sign-ins for one email, then 429. Checking the
/// count and recording the attempt are one transaction, so parallel wrong attempts
/// cannot all pass the check while their passwords are being verified.
#[test]
fn parallel_wrong_sign_ins_stop_at_exactly_ten() {
    let file = TempDb::new("throttle");
    let t = file.app();
    t.signup("owner@example.com");
    let answers = hammer(
        &file,
        "",
        "/api/auth/login",
        8,
        3,
        |_, _| json!({"email": "owner@example.com", "password": "not the password"}),
    );
    let wrong = answers
        .iter()
        .filter(|a| a.0 == Status::Unauthorized)
        .count();
    let throttled = answers
        .iter()
        .filter(|a| a.0 == Status::TooManyRequests)
        .count();
    assert_eq!((wrong, throttled), (10, 14), "401s and 429s");
    // The right password is refused too while the email is locked.
    let (s, _) = t.login("owner@example.com");
    assert_eq!(s, Status::TooManyRequests);
}

// ---------------------------------------------------------------------------------------
// Transfer orders: one server instance per thread over the same file

const THREADS: usize = 12;

/// Runs `f` once per app, all threads released together; returns the answers.
fn race<F>(apps: Vec<TestApp>, f: F) -> Vec<(Status, Value)>
where
    F: Fn(usize, &TestApp) -> (Status, Value) + Send + Sync + 'static,
{
    let barrier = Arc::new(Barrier::new(apps.len()));
    let f = Arc::new(f);
    let handles: Vec<_> = apps
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let barrier = barrier.clone();
            let f = f.clone();
            std::thread::spawn(move || {
                barrier.wait();
                f(i, &t)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn concurrent_shipments_from_one_source_never_oversell() {
    let db = TempDb::new("transfers");
    let t = db.app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let shop = location(&t, &e, "Shop");
    let p = product(&t, &e, "Anvil");
    purchase(&t, &p, &main, "35");
    let orders: Vec<String> = (0..THREADS)
        .map(|_| {
            let (s, v) = t.post(
                "/api/transfer-orders",
                json!({"source_location_id": main, "destination_location_id": shop,
                       "lines": [{"product_id": p, "quantity": 4}]}),
            );
            assert_eq!(s, Status::Created, "{v}");
            v["data"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let session = t.session.borrow().clone();
    let apps: Vec<TestApp> = (0..THREADS).map(|_| db.app_as(session.clone())).collect();
    let orders = Arc::new(orders);
    let answers = race(apps, {
        let orders = orders.clone();
        move |i, t| {
            t.put(
                "/api/transfer-orders",
                json!({"id": orders[i], "status": "in_transit"}),
            )
        }
    });
    let shipped = answers.iter().filter(|a| a.0 == Status::Ok).count();
    for a in &answers {
        assert!(
            a.0 == Status::Ok || a.0 == Status::Conflict,
            "unexpected answer {} {}",
            a.0,
            a.1
        );
        if a.0 == Status::Conflict {
            assert!(a.1["message"]
                .as_str()
                .unwrap()
                .contains("Insufficient stock"));
        }
    }
    // 35 units ship as 8 orders of 4: no oversell, and no order refused while stock lasted.
    assert_eq!(shipped, 8, "{answers:?}");
    assert_eq!(at(&t, &p, &main), (json!(3), json!(32)));
    assert_eq!(get_product(&t, &p)["stock_qty"], json!(3));
    let (_, v) = t.get("/api/transfer-orders");
    let in_transit = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["status"] == "in_transit")
        .count();
    assert_eq!(in_transit, shipped);
    let outs = ledger(&t, &p)
        .iter()
        .filter(|m| m.0 == "transfer_out")
        .count();
    assert_eq!(outs, shipped);
}

#[test]
fn concurrent_creates_get_distinct_numbers() {
    let db = TempDb::new("transfers");
    let t = db.app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let main = location(&t, &e, "Main");
    let shop = location(&t, &e, "Shop");
    let p = product(&t, &e, "Anvil");
    let session = t.session.borrow().clone();
    let apps: Vec<TestApp> = (0..THREADS).map(|_| db.app_as(session.clone())).collect();
    let answers = race(apps, move |_, t| {
        t.post(
            "/api/transfer-orders",
            json!({"source_location_id": main, "destination_location_id": shop,
                   "lines": [{"product_id": p, "quantity": 1}]}),
        )
    });
    let mut numbers: Vec<String> = answers
        .iter()
        .map(|(s, v)| {
            assert_eq!(*s, Status::Created, "{v}");
            v["data"]["number"].as_str().unwrap().to_owned()
        })
        .collect();
    numbers.sort();
    let expected: Vec<String> = (1..=THREADS).map(|n| format!("TO-{n:03}")).collect();
    assert_eq!(numbers, expected);
}
