//! The amplification of issue 11 (docs/limits.md#text): a CSV of 110 KB whose header
//! holds 100,000 `-` characters, then 1,000 bad rows. It used to answer 200 MB (every row
//! error copied the header twice, and errors were never capped) and take the server's
//! resident memory to 817 MB. Alone in its own test binary, so no other test moves the
//! process's peak resident memory while it is measured.

mod common;

use common::{app_with_entity, assert_error};
use rocket::http::{ContentType, Cookie, Status};
use serde_json::json;

/// The process's peak resident set size (`VmHWM`), in kB.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

#[test]
fn a_csv_with_a_huge_header_and_a_thousand_bad_rows_answers_small_in_bounded_memory() {
    let (t, entity) = app_with_entity();
    let mut csv = format!("name,price{}\n", "-".repeat(100_000));
    for i in 0..1_000 {
        csv.push_str(&format!("x{i},abc\n"));
    }
    assert!(csv.len() > 100_000);
    let token = t.session.borrow().clone().expect("signed in");

    for (path, body) in [
        (
            "/api/import/preview",
            json!({"entityType": "products", "csv": csv, "entity_id": entity}),
        ),
        (
            "/api/import/preview",
            json!({"entityType": "products", "csv": csv}),
        ),
        (
            "/api/import/csv",
            json!({"entityType": "products", "csv": csv, "entity_id": entity}),
        ),
    ] {
        let body = body.to_string();
        let before = peak_rss_kb();
        let res = t
            .client
            .post(path)
            .cookie(Cookie::new("stockbook_session", token.clone()))
            .header(ContentType::JSON)
            .body(body)
            .dispatch();
        let status = res.status();
        let text = res.into_string().unwrap_or_default();
        let growth_mb = (peak_rss_kb() - before) / 1024;

        assert!(
            text.len() < 200_000,
            "{path}: the answer is {} bytes",
            text.len()
        );
        assert!(growth_mb < 100, "{path}: peak RSS grew by {growth_mb} MB");
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON answer");
        let message = assert_error(&(status, v), Status::BadRequest);
        assert!(
            message.contains("column 2") && message.contains("1,024"),
            "{message}"
        );
    }
}
