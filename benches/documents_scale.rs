//! Documents at scale over real HTTP on loopback: a stock take of a location holding
//! 20,000 stock rows (create, start, every line counted in two PUTs of 10,000, complete,
//! each count 1 more than on record so that every line writes a movement), and a transfer
//! order of 1,000 lines (create, ship, receive). Between the two, eleven more stock takes
//! of the location, and the stock-take list read with and without its lines, and one
//! stock take read by id; last, 2,000 invoices of 50 lines and the invoice list read
//! whole and a page at a time. Each figure is the time of one request,
//! client side on loopback, so it is the server's time plus under a millisecond.
//! Run: `cargo bench --bench documents_scale`.

mod support;

use std::time::Instant;

use serde_json::{json, Value};
use support::*;

const ROWS: usize = 20_000;
const TRANSFER_LINES: usize = 1_000;
const INVOICES: usize = 2_000;
const RUNS: usize = 2;

fn timed(c: &mut Conn, method: &str, path: &str, body: &Value) -> (f64, Value) {
    let t0 = Instant::now();
    let (status, v) = c.json(method, path, &body.to_string());
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {v}"
    );
    (ms, v)
}

fn main() {
    println!("machine: {}", machine());
    let mut figures: Vec<(&str, Vec<f64>)> = [
        "stock take: create (20,000 lines)",
        "stock take: start",
        "stock take: count 10,000 lines (one PUT)",
        "stock take: complete (20,000 movements)",
        "stock take: GET the list with it",
        "stock takes: GET the list of 12 with their lines (240,000)",
        "stock takes: GET the list of 12, lines=false",
        "stock takes: GET one by id (20,000 lines)",
        "transfer: create (1,000 lines)",
        "transfer: ship",
        "transfer: receive",
        "invoices: GET all 2,000 (50 lines each)",
        "invoices: GET one page (limit=101)",
    ]
    .into_iter()
    .map(|n| (n, Vec::new()))
    .collect();
    for run in 0..RUNS {
        let db = temp_db(&format!("documents-{run}"));
        let server = start(&db, "normal");
        let mut c = server.conn();
        let (_, e) = c.json(
            "POST",
            "/api/entities",
            &json!({"name": "Bench"}).to_string(),
        );
        let entity = e["data"]["id"].as_str().unwrap().to_owned();
        let mut locs = Vec::new();
        for name in ["Main", "Annex"] {
            let (_, l) = c.json(
                "POST",
                "/api/warehouse-locations",
                &json!({"name": name, "entity_id": entity}).to_string(),
            );
            locs.push(l["data"]["id"].as_str().unwrap().to_owned());
        }
        seed_products(&db, &server.user_id(), &entity, &locs, ROWS);

        // The stock take.
        let (ms, take) = timed(
            &mut c,
            "POST",
            "/api/stock-takes",
            &json!({"location_id": locs[0], "entity_id": entity}),
        );
        figures[0].1.push(ms);
        let take = &take["data"];
        let id = take["id"].as_str().unwrap().to_owned();
        let lines = take["lines"].as_array().unwrap();
        assert_eq!(lines.len(), ROWS);
        let (ms, _) = timed(
            &mut c,
            "PUT",
            "/api/stock-takes",
            &json!({"id": id, "status": "in_progress"}),
        );
        figures[1].1.push(ms);
        let counts: Vec<Value> = lines
            .iter()
            .map(|l| {
                let on_record = l["system_quantity"].as_f64().unwrap();
                json!({"id": l["id"], "counted_quantity": on_record + 1.0})
            })
            .collect();
        let mut count_ms = Vec::new();
        for half in counts.chunks(10_000) {
            let (ms, _) = timed(
                &mut c,
                "PUT",
                "/api/stock-takes",
                &json!({"id": id, "lines": half}),
            );
            count_ms.push(ms);
        }
        figures[2].1.push(median(&mut count_ms));
        let (ms, done) = timed(
            &mut c,
            "PUT",
            "/api/stock-takes",
            &json!({"id": id, "status": "completed"}),
        );
        assert_eq!(done["data"]["status"], "completed");
        figures[3].1.push(ms);
        let (ms, _) = timed(
            &mut c,
            "GET",
            &format!("/api/stock-takes?entityId={entity}"),
            &json!(null),
        );
        figures[4].1.push(ms);

        // A year of monthly counts of the location: the list page's read with and
        // without the lines, and the count sheet's read of one (docs/documents.md#lists).
        for _ in 1..12 {
            timed(
                &mut c,
                "POST",
                "/api/stock-takes",
                &json!({"location_id": locs[0], "entity_id": entity}),
            );
        }
        let (ms, all) = timed(
            &mut c,
            "GET",
            &format!("/api/stock-takes?entityId={entity}"),
            &json!(null),
        );
        assert_eq!(all["data"].as_array().unwrap().len(), 12);
        figures[5].1.push(ms);
        let (ms, heads) = timed(
            &mut c,
            "GET",
            &format!("/api/stock-takes?entityId={entity}&lines=false"),
            &json!(null),
        );
        assert_eq!(heads["data"][11]["line_count"], json!(ROWS));
        figures[6].1.push(ms);
        let (ms, one) = timed(
            &mut c,
            "GET",
            &format!("/api/stock-takes?entityId={entity}&id={id}"),
            &json!(null),
        );
        assert_eq!(one["data"][0]["lines"].as_array().unwrap().len(), ROWS);
        figures[7].1.push(ms);
        if run == 0 {
            println!(
                "answer sizes: the list with lines {} bytes, without {} bytes",
                all.to_string().len(),
                heads.to_string().len()
            );
        }

        // The transfer order, of products the stock take left at 1 more than before.
        let (_, products) = c.json(
            "GET",
            &format!("/api/products?entityId={entity}&limit={TRANSFER_LINES}"),
            "",
        );
        let lines: Vec<Value> = products["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({"product_id": p["id"], "quantity": 1}))
            .collect();
        assert_eq!(lines.len(), TRANSFER_LINES);
        let (ms, order) = timed(
            &mut c,
            "POST",
            "/api/transfer-orders",
            &json!({"source_location_id": locs[0], "destination_location_id": locs[1],
                    "entity_id": entity, "lines": lines}),
        );
        figures[8].1.push(ms);
        let order = order["data"]["id"].as_str().unwrap().to_owned();
        let (ms, _) = timed(
            &mut c,
            "PUT",
            "/api/transfer-orders",
            &json!({"id": order, "status": "in_transit"}),
        );
        figures[9].1.push(ms);
        let (ms, v) = timed(
            &mut c,
            "PUT",
            "/api/transfer-orders",
            &json!({"id": order, "status": "completed"}),
        );
        assert_eq!(v["data"]["status"], "completed");
        figures[10].1.push(ms);

        // A year of invoices of 50 lines (no products, so no stock moves): the invoice
        // page's read before (the whole list) and now (a page, docs/conventions.md#lists).
        let (_, contact) = c.json(
            "POST",
            "/api/contacts",
            &json!({"name": "Customer", "entity_id": entity}).to_string(),
        );
        let contact = contact["data"]["id"].as_str().unwrap().to_owned();
        let lines: Vec<Value> = (0..50)
            .map(|i| json!({"description": format!("Item {i}"), "quantity": 1, "unit_price": 2.5}))
            .collect();
        for _ in 0..INVOICES {
            let (status, v) = c.json(
                "POST",
                "/api/invoices",
                &json!({"contact_id": contact, "entity_id": entity, "lines": lines}).to_string(),
            );
            assert_eq!(status, 201, "{v}");
        }
        let (ms, all) = timed(
            &mut c,
            "GET",
            &format!("/api/invoices?entityId={entity}"),
            &json!(null),
        );
        assert_eq!(all["data"].as_array().unwrap().len(), INVOICES);
        figures[11].1.push(ms);
        let (ms, page) = timed(
            &mut c,
            "GET",
            &format!("/api/invoices?entityId={entity}&limit=101&offset=0"),
            &json!(null),
        );
        assert_eq!(page["data"].as_array().unwrap().len(), 101);
        figures[12].1.push(ms);
        if run == 0 {
            println!(
                "answer sizes: every invoice {} bytes, a page {} bytes",
                all.to_string().len(),
                page.to_string().len()
            );
        }
        println!("run {run}:");
        for (name, v) in &figures {
            println!("  {name}: {:.0} ms", v.last().unwrap());
        }
        drop(server);
    }
    println!("median of {RUNS}:");
    for (name, v) in &mut figures {
        println!("  {name}: {:.0} ms", median(v));
    }
    cleanup();
}
