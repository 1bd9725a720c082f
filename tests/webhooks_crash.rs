//! A crash between a movement's commit and its webhook delivery (docs/webhooks.md#delivery):
//! the server is killed (SIGKILL) right after movements are acknowledged, while their
//! receiver is down. After a restart every one of their events reaches the receiver,
//! signed, because the outbox was written in the movement's own transaction.

#[path = "../benches/support/mod.rs"]
mod support;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A receiver on `port` that answers 200 to every POST and keeps the bodies with their
/// signature headers.
fn receiver(port: u16) -> Arc<Mutex<Vec<(String, String)>>> {
    let listener = (0..50)
        .find_map(|_| {
            TcpListener::bind(("127.0.0.1", port))
                .map_err(|_| std::thread::sleep(Duration::from_millis(100)))
                .ok()
        })
        .expect("bind the receiver's port again");
    let got = Arc::new(Mutex::new(Vec::new()));
    let keep = got.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut len, mut signature) = (0usize, String::new());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line.trim() != "" {
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("stockbook-signature:") {
                    signature = line.split_once(':').unwrap().1.trim().to_owned();
                }
                line.clear();
            }
            let mut body = vec![0; len];
            if reader.read_exact(&mut body).is_ok() {
                keep.lock()
                    .unwrap()
                    .push((String::from_utf8_lossy(&body).into_owned(), signature));
            }
            let mut out = stream;
            let _ =
                out.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    got
}

#[test]
fn events_of_movements_acknowledged_before_a_kill_are_delivered_after_the_restart() {
    let env = [
        ("ROCKET_WEBHOOKS_ALLOW_HTTP", "true"),
        ("ROCKET_WEBHOOKS_ALLOW_PRIVATE", "true"),
        (
            "ROCKET_WEBHOOKS_RETRY",
            "{first_ms=200,max_ms=500,window_ms=600000,timeout_ms=2000}",
        ),
    ];
    // The receiver's port, closed for now: every attempt before the kill fails.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let db = support::temp_db("webhooks-crash");
    let mut server = support::start_with(&db, "full", &env);
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
    let (s, w) = c.json(
        "POST",
        "/api/webhooks",
        &json!({"url": format!("http://127.0.0.1:{port}/in"),
                "events": ["stock_movement.created"]})
        .to_string(),
    );
    assert_eq!(s, 201, "{w}");
    let secret = w["data"]["secret"].as_str().unwrap().to_owned();

    let body = json!({"product_id": product, "location_id": loc, "qty": 1, "type": "purchase"})
        .to_string();
    let mut acknowledged = Vec::new();
    for _ in 0..10 {
        let (s, m) = c.json("POST", "/api/stock-movements", &body);
        assert_eq!(s, 201, "{m}");
        acknowledged.push(m["data"]["id"].as_str().unwrap().to_owned());
    }
    server.child.kill().expect("SIGKILL the server");
    let _ = server.child.wait();
    drop(server);

    let got = receiver(port);
    let server = support::start_with(&db, "full", &env);
    let t0 = Instant::now();
    let delivered = loop {
        let seen: HashSet<String> = got
            .lock()
            .unwrap()
            .iter()
            .filter_map(|(b, _)| {
                let v: Value = serde_json::from_str(b).ok()?;
                Some(v["data"]["id"].as_str()?.to_owned())
            })
            .collect();
        if acknowledged.iter().all(|id| seen.contains(id)) || t0.elapsed() > Duration::from_secs(30)
        {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    for id in &acknowledged {
        assert!(
            delivered.contains(id),
            "the event of movement {id} was lost"
        );
    }
    for (body, signature) in got.lock().unwrap().iter() {
        let (t, v1) = signature.split_once(",v1=").expect("signature");
        let t = t.strip_prefix("t=").unwrap();
        let mac = stockbook::webhooks::signature::hmac_sha256(
            secret.as_bytes(),
            format!("{t}.{body}").as_bytes(),
        );
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(v1, hex);
    }
    drop(server);
    support::cleanup();
}
