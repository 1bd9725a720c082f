//! Webhooks on the movement write path (docs/webhooks.md): `POST /api/stock-movements`
//! throughput with 16 concurrent clients, with no webhook and with one active webhook
//! subscribed to every event and delivering to a receiver on loopback, in the same run
//! (alternating, fresh database each); then the delivery lag (the client's 201 to the
//! receiver's receipt of the event) at about 1,000 movements a second. Both on
//! `synchronous = normal`. Run: `cargo bench --bench webhooks`.
//!
//! After each run with the webhook it also times the backlog: from the last 201 until the
//! receiver has every movement's event (delivery yields to a saturated writer, so most
//! of a burst's events go out after it).
//!
//! A third kind of run splits the webhook's cost: the same webhook whose receiver refuses
//! connections. Its first delivery fails and the webhook then waits 30 s for the retry,
//! so that run pays for writing the events (the outbox) and not for delivering them.

mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

const CLIENTS: usize = 16;
const PER_CLIENT: usize = 3_000;
const PRODUCTS: usize = 200;
const RUNS: usize = 5;
/// The lag run: this many clients, each posting every `PACE`, for `LAG_SECS`.
const LAG_CLIENTS: usize = 4;
const PACE: Duration = Duration::from_millis(4);
const LAG_SECS: u64 = 10;

const ENV: [(&str, &str); 2] = [
    ("ROCKET_WEBHOOKS_ALLOW_HTTP", "true"),
    ("ROCKET_WEBHOOKS_ALLOW_PRIVATE", "true"),
];

/// Movement id → when the receiver got its `stock_movement.created` event.
type Receipts = Arc<Mutex<HashMap<String, Instant>>>;

/// A keep-alive HTTP/1.1 receiver on loopback answering 200 to every POST.
fn receiver() -> (String, Receipts) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/events", listener.local_addr().unwrap());
    let got: Receipts = Arc::new(Mutex::new(HashMap::new()));
    let keep = got.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let keep = keep.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                loop {
                    let mut len = 0usize;
                    let mut line = String::new();
                    let mut any = false;
                    while reader.read_line(&mut line).unwrap_or(0) > 0 {
                        any = true;
                        if line.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                        line.clear();
                    }
                    if !any {
                        return;
                    }
                    let mut body = vec![0; len];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let at = Instant::now();
                    if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                        if v["type"] == "stock_movement.created" {
                            if let Some(id) = v["data"]["id"].as_str() {
                                keep.lock().unwrap().insert(id.to_owned(), at);
                            }
                        }
                    }
                    if out
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (url, got)
}

/// A server over a fresh database with products at one location and, when `url` is
/// given, one active webhook subscribed to every event.
fn setup(name: &str, url: Option<&str>) -> (Server, String, Vec<String>) {
    let db = temp_db(name);
    let server = start_with(&db, "normal", &ENV);
    let mut c = server.conn();
    let (_, e) = c.json(
        "POST",
        "/api/entities",
        &json!({"name": "Bench"}).to_string(),
    );
    let entity = e["data"]["id"].as_str().unwrap().to_owned();
    let (_, l) = c.json(
        "POST",
        "/api/warehouse-locations",
        &json!({"name": "Main", "entity_id": entity}).to_string(),
    );
    let loc = l["data"]["id"].as_str().unwrap().to_owned();
    let owner = server.user_id();
    seed_products(&db, &owner, &entity, std::slice::from_ref(&loc), PRODUCTS);
    if let Some(url) = url {
        let (s, w) = c.json(
            "POST",
            "/api/webhooks",
            &json!({"url": url, "events": ["*"]}).to_string(),
        );
        assert_eq!(s, 201, "{w}");
    }
    let (_, p) = c.json("GET", &format!("/api/products?entityId={entity}"), "");
    let ids = p["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    (server, loc, ids)
}

fn body(product: &str, loc: &str) -> String {
    json!({"product_id": product, "location_id": loc, "qty": 1, "type": "purchase",
           "reference": "bench"})
    .to_string()
}

/// Movements per second with 16 clients posting as fast as they can.
fn throughput(server: &Server, loc: &str, products: &[String]) -> f64 {
    let barrier = Barrier::new(CLIENTS);
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|k| {
                let barrier = &barrier;
                s.spawn(move || {
                    let mut c = server.conn();
                    let bodies: Vec<String> = (0..PER_CLIENT)
                        .map(|i| body(&products[(k * PER_CLIENT + i) % products.len()], loc))
                        .collect();
                    barrier.wait();
                    let start = Instant::now();
                    for b in &bodies {
                        let (status, _) = c.request("POST", "/api/stock-movements", b, None);
                        assert_eq!(status, 201);
                    }
                    (start, Instant::now())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let start = spans.iter().map(|s| s.0).min().unwrap();
    let end = spans.iter().map(|s| s.1).max().unwrap();
    (CLIENTS * PER_CLIENT) as f64 / (end - start).as_secs_f64()
}

/// Seconds from now (the end of a throughput run) until the receiver holds an event for
/// every movement of the run (at most 120 s).
fn drain(got: &Receipts) -> f64 {
    let start = Instant::now();
    while got.lock().unwrap().len() < CLIENTS * PER_CLIENT {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "only {} of {} events received",
            got.lock().unwrap().len(),
            CLIENTS * PER_CLIENT
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    start.elapsed().as_secs_f64()
}

/// Delivery lag at a paced ~1,000 movements/s: p50, p99 and max in ms, the rate reached,
/// and how many events had not arrived 10 s after the last movement.
fn lag(url: &str, got: &Receipts) -> (f64, f64, f64, f64, usize) {
    let (server, loc, products) = setup("webhooks-lag", Some(url));
    let t0 = Instant::now();
    let acks: Vec<(String, Instant)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..LAG_CLIENTS)
            .map(|k| {
                let (server, loc, products) = (&server, &loc, &products);
                s.spawn(move || {
                    let mut c = server.conn();
                    let mut acks = Vec::new();
                    let mut next = t0 + PACE * k as u32 / LAG_CLIENTS as u32;
                    let mut i = 0;
                    while t0.elapsed() < Duration::from_secs(LAG_SECS) {
                        let now = Instant::now();
                        if next > now {
                            std::thread::sleep(next - now);
                        }
                        next += PACE;
                        let b = body(&products[(k + i * LAG_CLIENTS) % products.len()], loc);
                        i += 1;
                        let (status, v) = c.request("POST", "/api/stock-movements", &b, None);
                        assert_eq!(status, 201);
                        let at = Instant::now();
                        let v: Value = serde_json::from_slice(&v).unwrap();
                        acks.push((v["data"]["id"].as_str().unwrap().to_owned(), at));
                    }
                    acks
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let rate = acks.len() as f64 / t0.elapsed().as_secs_f64();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && got.lock().unwrap().len() < acks.len() {
        std::thread::sleep(Duration::from_millis(50));
    }
    let got = got.lock().unwrap();
    let mut lags: Vec<f64> = acks
        .iter()
        .filter_map(|(id, ack)| {
            got.get(id)
                .map(|r| r.saturating_duration_since(*ack).as_secs_f64() * 1000.0)
        })
        .collect();
    let missing = acks.len() - lags.len();
    lags.sort_by(|a, b| a.partial_cmp(b).unwrap());
    drop(server);
    (
        percentile(&lags, 0.5),
        percentile(&lags, 0.99),
        *lags.last().unwrap_or(&0.0),
        rate,
        missing,
    )
}

fn main() {
    println!("machine: {}", machine());
    let (url, got) = receiver();
    // Nothing listens on the discard port: every connection is refused.
    let refused = "http://127.0.0.1:9/events".to_owned();
    let (mut without, mut with, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut outbox, mut outbox_ratios) = (Vec::new(), Vec::new());
    let mut drains = Vec::new();
    for run in 0..RUNS {
        // Rotate which goes first, so none always meets a warmer machine.
        let mut order = [0, 1, 2];
        order.rotate_left(run % 3);
        let mut rate = [0.0; 3];
        for kind in order {
            let target = [None, Some(url.as_str()), Some(refused.as_str())][kind];
            let (server, loc, products) = setup(&format!("webhooks-{run}-{kind}"), target);
            got.lock().unwrap().clear();
            rate[kind] = throughput(&server, &loc, &products);
            if kind == 1 {
                drains.push(drain(&got));
            }
        }
        println!(
            "run {run}: no webhook {:.0} req/s; one webhook {:.0} req/s, ratio {:.3}; \
             receiver refusing (events written, not sent) {:.0} req/s, ratio {:.3}",
            rate[0],
            rate[1],
            rate[1] / rate[0],
            rate[2],
            rate[2] / rate[0]
        );
        println!(
            "run {run}: the webhook's backlog: every event received {:.2} s after the last 201",
            drains[run]
        );
        without.push(rate[0]);
        with.push(rate[1]);
        ratios.push(rate[1] / rate[0]);
        outbox.push(rate[2]);
        outbox_ratios.push(rate[2] / rate[0]);
    }
    println!(
        "median of {RUNS}: no webhook {:.0} req/s, one webhook {:.0} req/s, ratio {:.3}; \
         receiver refusing {:.0} req/s, ratio {:.3}",
        median(&mut without),
        median(&mut with),
        median(&mut ratios),
        median(&mut outbox),
        median(&mut outbox_ratios)
    );
    println!(
        "median of {RUNS}: the backlog of {} events received {:.2} s after the last 201",
        CLIENTS * PER_CLIENT,
        median(&mut drains)
    );
    got.lock().unwrap().clear();
    let (p50, p99, max, rate, missing) = lag(&url, &got);
    println!(
        "delivery lag at {rate:.0} movements/s: p50 {p50:.1} ms, p99 {p99:.1} ms, max {max:.1} ms; \
         {missing} events not received"
    );
    cleanup();
}
