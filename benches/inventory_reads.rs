//! Reads over a large inventory: the stock valuation report with 100,000 products at
//! 5 locations, and the product search (`limit=50&q=...`) and unpaged list over 100,000
//! products. Run: `cargo bench --bench inventory_reads`.

mod support;

use serde_json::json;
use support::*;

const PRODUCTS: usize = 100_000;
const RUNS: usize = 7;

fn main() {
    println!("machine: {}", machine());
    let db = temp_db("inventory-reads");
    let server = start(&db, "normal");
    let mut c = server.conn();
    let (_, e) = c.json(
        "POST",
        "/api/entities",
        &json!({"name": "Bench"}).to_string(),
    );
    let entity = e["data"]["id"].as_str().unwrap().to_owned();
    let locations: Vec<String> = (0..5)
        .map(|i| {
            let (_, l) = c.json(
                "POST",
                "/api/warehouse-locations",
                &json!({"name": format!("Warehouse {i}"), "entity_id": entity}).to_string(),
            );
            l["data"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let owner = server.user_id();
    let t = std::time::Instant::now();
    seed_products(&db, &owner, &entity, &locations, PRODUCTS);
    println!(
        "seeded {PRODUCTS} products x {} locations in {:.1} s",
        locations.len(),
        t.elapsed().as_secs_f64()
    );
    let rss_before = server.peak_rss_kib();

    let path = format!("/api/reports/stock-valuation?entityId={entity}");
    let mut size = 0;
    let mut ttfb = Vec::new();
    let (med, samples) = time_ms(RUNS, || {
        let (s, b) = c.request("GET", &path, "", None);
        assert_eq!(s, 200);
        size = b.len();
        ttfb.push(c.last_ttfb.as_secs_f64() * 1000.0);
    });
    println!(
        "valuation: median {med:.1} ms over {RUNS} runs {:?} (first byte after a median {:.1} ms); \
         body {:.1} MB; server peak RSS {} MB (before: {} MB)",
        samples.iter().map(|s| s.round()).collect::<Vec<_>>(),
        median(&mut ttfb),
        size as f64 / 1e6,
        server.peak_rss_kib() / 1024,
        rss_before / 1024
    );

    // The same report in-process, without HTTP: the server's own work, by phase.
    for (label, pragmas) in [
        ("2 MB cache", ""),
        ("mmap 1 GB", "PRAGMA mmap_size = 1073741824;"),
        ("64 MB cache", "PRAGMA cache_size = -65536;"),
    ] {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(pragmas).unwrap();
        let scope = stockbook::scope::Scope::user(owner.clone());
        let (mut compute, mut write) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let t = std::time::Instant::now();
            let report = stockbook::inventory::reports::stock_valuation_report(
                &conn,
                &scope,
                Some(&entity),
                None,
            )
            .unwrap();
            compute.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = std::time::Instant::now();
            let bytes: usize = report.into_json().map(|chunk| chunk.len()).sum();
            write.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(bytes > 0);
        }
        println!(
            "valuation in-process ({label}): query and join median {:.1} ms, JSON writing median {:.1} ms",
            median(&mut compute),
            median(&mut write)
        );
    }

    // The two scans of the report on their own.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let scan = |sql: &str| {
            time_ms(5, || {
                let mut st = conn.prepare(sql).unwrap();
                let mut rows = st.query([&owner, &entity]).unwrap();
                let mut n = 0_usize;
                while let Some(r) = rows.next().unwrap() {
                    n += r.get_ref(0).unwrap().as_str().map(str::len).unwrap_or(0);
                }
                assert!(n > 0);
            })
            .0
        };
        let products = scan(
            "SELECT p.id, p.name, p.sku, p.category, p.cost_price, p.unit_price, p.stock_qty
             FROM products p WHERE p.owner_id = ?1 AND p.entity_id = ?2
             ORDER BY p.name COLLATE NOCASE, p.seq",
        );
        let stock = scan(
            "SELECT s.product_id, s.location_id, s.quantity FROM warehouse_stock s
             WHERE s.owner_id = ?1 AND s.entity_id = ?2",
        );
        println!(
            "valuation scans: products in name order {products:.1} ms, stock rows {stock:.1} ms"
        );
    }

    for q in ["kettle", "Product 09999", "BENCH-05", "no-such-thing"] {
        let path = format!(
            "/api/products?entityId={entity}&limit=50&q={}",
            q.replace(' ', "%20")
        );
        let mut n = 0;
        let (med, _) = time_ms(RUNS * 3, || {
            let (s, b) = c.request("GET", &path, "", None);
            assert_eq!(s, 200);
            let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
            n = v["data"].as_array().unwrap().len();
        });
        println!("search q={q:?}: median {med:.2} ms ({n} rows)");
    }

    let path = format!("/api/products?entityId={entity}");
    let (med, _) = time_ms(3, || {
        let (s, b) = c.request("GET", &path, "", None);
        assert_eq!(s, 200);
        size = b.len();
    });
    println!(
        "unpaged list: median {med:.0} ms, body {:.1} MB; server peak RSS {} MB",
        size as f64 / 1e6,
        server.peak_rss_kib() / 1024
    );
    cleanup();
}
