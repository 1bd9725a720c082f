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

    // The same request from curl, which throws the body away as it reads it: the
    // figure above includes our client keeping all 165 MB.
    let url = format!("http://127.0.0.1:{}{path}", server.port);
    let mut curl = Vec::new();
    for _ in 0..RUNS {
        let out = std::process::Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}"])
            .args(["-H", &format!("Cookie: {}", server.cookie), &url])
            .output();
        let Ok(out) = out else {
            break; // no curl on this machine
        };
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut parts = text.split_whitespace();
        assert_eq!(parts.next(), Some("200"), "curl: {text}");
        curl.push(parts.next().unwrap_or("0").parse::<f64>().unwrap_or(0.0) * 1000.0);
    }
    if !curl.is_empty() {
        println!(
            "valuation via curl -o /dev/null: median {:.1} ms over {} runs {:?}",
            median(&mut curl.clone()),
            curl.len(),
            curl.iter().map(|s| s.round()).collect::<Vec<_>>()
        );
    }

    // The same report in-process, without HTTP: the server's own work, by phase.
    for (label, pragmas) in [
        ("2 MB cache", ""),
        ("mmap 1 GB", "PRAGMA mmap_size = 1073741824;"),
        ("64 MB cache", "PRAGMA cache_size = -65536;"),
    ] {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(pragmas).unwrap();
        let scope = stockbook::scope::Scope::user(owner.clone());
        let (mut first, mut whole) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let t = std::time::Instant::now();
            let mut bytes = 0_usize;
            let mut at_first = None;
            stockbook::inventory::valuation::write_valuation(
                &conn,
                &scope,
                Some(&entity),
                None,
                1 << 20,
                &mut |chunk| {
                    at_first.get_or_insert_with(|| t.elapsed().as_secs_f64() * 1000.0);
                    bytes += chunk.len();
                    true
                },
            )
            .unwrap();
            whole.push(t.elapsed().as_secs_f64() * 1000.0);
            first.push(at_first.unwrap_or_default());
            assert!(bytes > 0);
        }
        println!(
            "valuation in-process ({label}): first chunk median {:.1} ms, whole body median {:.1} ms",
            median(&mut first),
            median(&mut whole)
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
        let by_location = scan(
            "SELECT s.product_id, s.quantity FROM warehouse_stock s
             WHERE s.location_id IN
                 (SELECT id FROM warehouse_locations WHERE owner_id = ?1 AND entity_id = ?2)",
        );
        println!(
            "valuation scans: products in name order {products:.1} ms, stock rows {stock:.1} ms, \
             stock rows through the location index {by_location:.1} ms"
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
