//! A crash on a real database file: the server is killed (SIGKILL, no shutdown) while
//! clients post movements. After a restart every movement that was acknowledged with 201
//! is there, and the ledger invariants hold: a write is answered only after its commit.

#[path = "../benches/support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

fn dec(v: &Value) -> rust_decimal::Decimal {
    v.to_string().parse().expect("a decimal")
}

#[test]
fn writes_acknowledged_before_a_kill_survive_it_and_the_ledger_stays_whole() {
    for synchronous in ["full", "normal"] {
        let db = support::temp_db(&format!("crash-{synchronous}"));
        let mut server = support::start(&db, synchronous);
        let mut c = server.conn();
        let (_, e) = c.json(
            "POST",
            "/api/entities",
            &json!({"name": "Crash Ltd"}).to_string(),
        );
        let entity = e["data"]["id"].as_str().unwrap().to_owned();
        let (_, l) = c.json(
            "POST",
            "/api/warehouse-locations",
            &json!({"name": "Main", "entity_id": entity}).to_string(),
        );
        let loc = l["data"]["id"].as_str().unwrap().to_owned();
        let (_, p) = c.json(
            "POST",
            "/api/products",
            &json!({"name": "Widget", "entity_id": entity}).to_string(),
        );
        let product = p["data"]["id"].as_str().unwrap().to_owned();

        // Four clients post purchases until the server dies under them.
        let stop = AtomicBool::new(false);
        let conns: Vec<support::Conn> = (0..4).map(|_| server.conn()).collect();
        let acknowledged: Vec<String> = std::thread::scope(|s| {
            let clients: Vec<_> = conns
                .into_iter()
                .map(|mut c| {
                    let (stop, loc, product) = (&stop, &loc, &product);
                    s.spawn(move || {
                        let mut ids = Vec::new();
                        let body = json!({"product_id": product, "location_id": loc,
                                          "qty": 1, "type": "purchase"})
                        .to_string();
                        while !stop.load(Ordering::Relaxed) {
                            match c.try_request_full("POST", "/api/stock-movements", &body, None) {
                                Ok((201, b, _)) => {
                                    let v: Value = serde_json::from_slice(&b).unwrap();
                                    ids.push(v["data"]["id"].as_str().unwrap().to_owned());
                                }
                                Ok((status, b, _)) => {
                                    panic!("{status}: {}", String::from_utf8_lossy(&b))
                                }
                                Err(_) => break,
                            }
                        }
                        ids
                    })
                })
                .collect();
            std::thread::sleep(Duration::from_millis(400));
            server.child.kill().expect("SIGKILL the server");
            let _ = server.child.wait();
            stop.store(true, Ordering::Relaxed);
            clients
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        assert!(
            acknowledged.len() > 20,
            "too few writes before the kill: {}",
            acknowledged.len()
        );
        drop(server);

        let server = support::start(&db, synchronous);
        let mut c = server.conn();
        let (s, m) = c.json(
            "GET",
            &format!("/api/stock-movements?productId={product}"),
            "",
        );
        assert_eq!(s, 200, "{m}");
        let stored: std::collections::HashSet<&str> = m["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        for id in &acknowledged {
            assert!(
                stored.contains(id.as_str()),
                "acknowledged movement {id} lost ({synchronous})"
            );
        }
        // Invariants 1 and 2: the row and the product equal the sum of the ledger.
        let sum: rust_decimal::Decimal = m["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| dec(&m["qty"]))
            .sum();
        let (_, p) = c.json("GET", &format!("/api/products?entityId={entity}"), "");
        let p = &p["data"][0];
        assert_eq!(dec(&p["stock_qty"]), sum);
        assert_eq!(dec(&p["stock_levels"][0]["quantity"]), sum);
        assert!(sum >= rust_decimal::Decimal::from(acknowledged.len() as i64));
        drop(server);
    }
    support::cleanup();
}
