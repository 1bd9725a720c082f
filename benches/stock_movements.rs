//! `POST /api/stock-movements` over real HTTP on loopback with 16 concurrent clients,
//! against the same writes done by a bare rusqlite loop (one transaction each, same
//! pragmas), both on `synchronous = normal`. Run: `cargo bench --bench stock_movements`.

mod support;

use std::sync::Barrier;
use std::time::Instant;

use serde_json::json;
use stockbook::clock::Clock;
use stockbook::db::decimal::Qty;
use stockbook::inventory::ledger::{apply_movement, MovementType, NewMovement, Origin};
use stockbook::scope::Scope;
use support::*;

const CLIENTS: usize = 16;
const PER_CLIENT: usize = 300;
const PRODUCTS: usize = 200;
const RUNS: usize = 3;

fn main() {
    println!("machine: {}", machine());
    let mut ratios = Vec::new();
    let mut server_rps = Vec::new();
    let mut bare_rps = Vec::new();
    let mut p50s = Vec::new();
    let mut p99s = Vec::new();
    for run in 0..RUNS {
        let (rps, p50, p99) = http_run(run);
        let bare = bare_run(run);
        println!(
            "run {run}: server {rps:.0} req/s (p50 {p50:.2} ms, p99 {p99:.2} ms); bare loop {bare:.0} tx/s; ratio {:.2}",
            rps / bare
        );
        ratios.push(rps / bare);
        server_rps.push(rps);
        bare_rps.push(bare);
        p50s.push(p50);
        p99s.push(p99);
    }
    println!(
        "median of {RUNS}: server {:.0} req/s, bare {:.0} tx/s, ratio {:.2}, p50 {:.2} ms, p99 {:.2} ms",
        median(&mut server_rps),
        median(&mut bare_rps),
        median(&mut ratios),
        median(&mut p50s),
        median(&mut p99s)
    );
    cleanup();
}

fn setup_http(run: usize) -> (Server, String, Vec<String>) {
    let db = temp_db(&format!("movements-http-{run}"));
    let server = start(&db, "normal");
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
    let (_, p) = c.json("GET", &format!("/api/products?entityId={entity}"), "");
    let ids = p["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    (server, loc, ids)
}

fn http_run(run: usize) -> (f64, f64, f64) {
    let (server, loc, products) = setup_http(run);
    let barrier = Barrier::new(CLIENTS);
    let results: Vec<(Vec<f64>, Instant, Instant)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|k| {
                let (server, loc, products, barrier) = (&server, &loc, &products, &barrier);
                s.spawn(move || {
                    let mut c = server.conn();
                    // Bodies are built before the clock starts: the client's work is not
                    // the server's.
                    let bodies: Vec<String> = (0..PER_CLIENT)
                        .map(|i| {
                            json!({
                                "product_id": products[(k * PER_CLIENT + i) % products.len()],
                                "location_id": loc,
                                "qty": 1,
                                "type": "purchase",
                                "reference": "bench"
                            })
                            .to_string()
                        })
                        .collect();
                    let mut lat = Vec::with_capacity(PER_CLIENT);
                    barrier.wait();
                    let start = Instant::now();
                    for body in &bodies {
                        let t = Instant::now();
                        let (status, _) = c.request("POST", "/api/stock-movements", body, None);
                        lat.push(t.elapsed().as_secs_f64() * 1000.0);
                        assert_eq!(status, 201);
                    }
                    (lat, start, Instant::now())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let start = results.iter().map(|r| r.1).min().unwrap();
    let end = results.iter().map(|r| r.2).max().unwrap();
    let elapsed = (end - start).as_secs_f64();
    let mut latencies: Vec<f64> = results.into_iter().flat_map(|r| r.0).collect();
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = latencies.len() as f64;
    (
        n / elapsed,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
    )
}

fn bare_run(run: usize) -> f64 {
    // The same schema and seed as the server's database, written by one bare loop.
    let db = temp_db(&format!("movements-bare-{run}"));
    let server = start(&db, "normal");
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
    drop(server);
    seed_products(&db, &owner, &entity, std::slice::from_ref(&loc), PRODUCTS);

    let mut conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    conn.pragma_update(None, "busy_timeout", 5000).unwrap();
    conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
    let products: Vec<String> = conn
        .prepare("SELECT id FROM products ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let scope = Scope::user(owner);
    let clock = Clock::default();
    let n = CLIENTS * PER_CLIENT;
    let t0 = Instant::now();
    for i in 0..n {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        let product =
            stockbook::inventory::product_ref(&tx, &scope, &products[i % products.len()]).unwrap();
        let location = stockbook::inventory::location_ref(&tx, &scope, &loc).unwrap();
        let now = stockbook::clock::rfc3339(clock.now());
        apply_movement(
            &tx,
            &NewMovement {
                product: &product,
                location: Some(&location),
                qty: Qty::from_i64(1),
                kind: MovementType::Purchase,
                reference: Some("bench".into()),
                notes: None,
                date: clock.today(),
                unit_cost: None,
                origin: Origin::Client,
            },
            false,
            &now,
        )
        .unwrap();
        tx.commit().unwrap();
    }
    n as f64 / t0.elapsed().as_secs_f64()
}
