//! `POST /api/import/csv` over real HTTP on loopback: a generated Xero contacts export of
//! 100,000 rows and a Xero sales export of 20,000 invoice lines (5,000 invoices of 4
//! lines), each imported into an empty entity and then again (every record a duplicate).
//! Reports rows per second and the server's peak RSS (`VmHWM`) against the request body,
//! each size in a fresh server process so the peaks do not mix; a 10,000-row contacts run
//! shows how memory grows with the file. Run: `cargo bench --bench import`.

mod support;

use std::fmt::Write as _;
use std::time::Instant;

use serde_json::json;
use support::*;

const CONTACT_ROWS: [usize; 2] = [10_000, 100_000];
const INVOICE_LINES: usize = 20_000;
const LINES_PER_INVOICE: usize = 4;

/// A Xero contacts export (the columns of `tests/fixtures/import/xero/contacts.csv` that
/// carry data) with UK rows: quoted commas, `£`-free, a byte-order mark.
fn contacts_csv(rows: usize) -> String {
    let mut s = String::with_capacity(rows * 160);
    s.push_str(
        "\u{feff}*ContactName,AccountNumber,EmailAddress,FirstName,LastName,POAddressLine1,\
         POAddressLine2,POCity,PORegion,POPostalCode,POCountry,PhoneNumber,TaxNumber\r\n",
    );
    for i in 0..rows {
        let _ = write!(
            s,
            "\"Contact {i:06} & Sons, Ltd\",AC{i:06},accounts{i}@example.co.uk,Sam,Lee,\
             \"Unit {}, Riverside Trading Estate\",Hunslet,Leeds,West Yorkshire,LS11 {}QB,\
             United Kingdom,0113 496 {:04},GB{:09}\r\n",
            i % 90 + 1,
            i % 9 + 1,
            i % 10_000,
            100_000_000 + i
        );
    }
    s
}

/// A Xero sales export: `LINES_PER_INVOICE` lines per invoice, 1,000 customers, DD/MM/YYYY
/// dates, 20% and zero-rated lines, the invoice total repeated on each line.
fn invoices_csv(lines: usize) -> String {
    let mut s = String::with_capacity(lines * 260);
    s.push_str(
        "ContactName,EmailAddress,InvoiceNumber,Reference,InvoiceDate,DueDate,Total,TaxTotal,\
         InvoiceAmountPaid,InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,\
         Discount,LineAmount,AccountCode,TaxType,TaxAmount,Currency,Type,Sent,Status\r\n",
    );
    let invoices = lines / LINES_PER_INVOICE;
    for inv in 0..invoices {
        // Lines: qty k+1 at (10 + inv % 50).25, the last one zero-rated.
        let price_pence = (10 + (inv % 50) as i64) * 100 + 25;
        let mut net_total = 0i64;
        let mut vat_total = 0i64;
        let mut rows = Vec::with_capacity(LINES_PER_INVOICE);
        for k in 0..LINES_PER_INVOICE {
            let qty = k as i64 + 1;
            let net = qty * price_pence;
            let zero = k == LINES_PER_INVOICE - 1;
            let vat = if zero { 0 } else { (net * 20 + 50) / 100 };
            net_total += net;
            vat_total += vat;
            rows.push((qty, net, vat, zero));
        }
        let total = net_total + vat_total;
        let day = inv % 28 + 1;
        let month = inv / 28 % 12 + 1;
        for (k, (qty, net, vat, zero)) in rows.into_iter().enumerate() {
            let _ =
                writeln!(
                s,
                "\"Customer {:04}, Ltd\",c{}@example.co.uk,INV-{:06},,{day:02}/{month:02}/2024,\
                 {day:02}/{month:02}/2025,\"£{}\",{},0.00,{},SKU-{k},\"Item {k}, oak\",{qty}.0000,\
                 {},,{},200,{},{},GBP,Sales invoice,Sent,Awaiting Payment\r",
                inv % 1000,
                inv % 1000,
                inv + 1,
                thousands(total),
                pounds(vat_total),
                pounds(total),
                pounds(price_pence),
                pounds(net),
                if zero { "Zero Rated Income" } else { "20% (VAT on Income)" },
                pounds(vat)
            );
        }
    }
    s
}

fn pounds(pence: i64) -> String {
    format!("{}.{:02}", pence / 100, pence % 100)
}

fn thousands(pence: i64) -> String {
    let whole = (pence / 100).to_string();
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out}.{:02}", pence % 100)
}

struct Measured {
    secs: f64,
    imported: u64,
    skipped: u64,
    failed: usize,
    /// Resident set size just before the request, KiB.
    rss_before: u64,
    /// Highest resident set size sampled (every 2 ms) while the request ran, KiB.
    rss_peak: u64,
}

/// A `/proc/<pid>/status` field in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn import(server: &Server, entity: &str, entity_type: &str, body: &str) -> Measured {
    let pid = server.child.id();
    let rss_before = status_kib(pid, "VmRSS:");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(status_kib(pid, "VmRSS:"));
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            peak
        })
    };
    let mut c = server.conn();
    let t = Instant::now();
    let (status, v) = c.json("POST", "/api/import/csv", body);
    let secs = t.elapsed().as_secs_f64();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let rss_peak = sampler.join().unwrap();
    assert_eq!(status, 200, "{entity_type} into {entity}: {v}");
    Measured {
        secs,
        imported: v["data"]["imported"].as_u64().unwrap(),
        skipped: v["data"]["skipped"].as_u64().unwrap(),
        failed: v["data"]["failed"].as_array().unwrap().len(),
        rss_before,
        rss_peak,
    }
}

/// One file into a fresh server: the first run and the re-run, with the peak RSS.
fn bench(label: &str, entity_type: &str, rows: usize, csv: String) {
    let db = temp_db(&format!("import-{entity_type}-{rows}"));
    let server = start(&db, "full");
    let mut c = server.conn();
    let (_, e) = c.json(
        "POST",
        "/api/entities",
        &json!({"name": "Bench"}).to_string(),
    );
    let entity = e["data"]["id"].as_str().unwrap().to_owned();
    let csv_mb = csv.len() as f64 / 1e6;
    let body = json!({"entityType": entity_type, "csv": csv, "entity_id": entity}).to_string();
    drop(csv);
    let body_mb = body.len() as f64 / 1e6;
    let first = import(&server, &entity, entity_type, &body);
    let again = import(&server, &entity, entity_type, &body);
    assert_eq!(first.failed, 0);
    assert_eq!(again.imported, 0);
    assert_eq!(again.skipped, first.imported);
    let mb = |kib: u64| kib as f64 / 1024.0;
    let growth = |m: &Measured| {
        let kib = m.rss_peak.saturating_sub(m.rss_before);
        format!(
            "{:.1} -> {:.1} MB (+{:.1} MB = {:.2} x body)",
            mb(m.rss_before),
            mb(m.rss_peak),
            mb(kib),
            kib as f64 * 1024.0 / body.len() as f64
        )
    };
    println!(
        "{label}: {rows} rows, CSV {csv_mb:.1} MB, request body {body_mb:.1} MB\n  \
         import: {:.2} s, {:.0} rows/s ({} records imported); RSS {}\n  \
         re-import: {:.2} s, {:.0} rows/s ({} skipped); RSS {}\n  \
         server peak RSS (VmHWM) over both: {:.1} MB",
        first.secs,
        rows as f64 / first.secs,
        first.imported,
        growth(&first),
        again.secs,
        rows as f64 / again.secs,
        again.skipped,
        growth(&again),
        mb(server.peak_rss_kib()),
    );
}

/// `IMPORT_BENCH_SCALE=n` divides every size by n (a quick check of the harness).
fn scaled(rows: usize) -> usize {
    let n: usize = std::env::var("IMPORT_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    (rows / n).max(LINES_PER_INVOICE)
}

fn main() {
    println!("machine: {}", machine());
    for rows in CONTACT_ROWS.map(scaled) {
        bench(
            "contacts (Xero export)",
            "contacts",
            rows,
            contacts_csv(rows),
        );
    }
    let lines = scaled(INVOICE_LINES);
    bench(
        "invoices (Xero sales export)",
        "invoices",
        lines,
        invoices_csv(lines),
    );
}
