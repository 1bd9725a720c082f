//! The valuation report a page at a time, its totals by location and category, and its
//! spreadsheet (docs/inventory.md#valuation-report-by-the-page,
//! docs/inventory.md#valuation-report-as-a-spreadsheet).

use super::common;

use common::invariants::dec;
use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// Three locations (one of them with nothing), products in three categories, stock spread
/// over two locations and some unallocated: 12 rows.
fn stocked() -> (TestApp, String, String, String) {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let annex = location(&t, &e, "Annex");
    location(&t, &e, "Empty");
    for (i, (cat, cost, unit)) in [
        ("Tools", "6", "10"),
        ("tools", "1.25", "2"),
        ("", "0.3333", "0.5"),
        ("Kitchen", "12", "0"),
        ("Kitchen", "2.5", "4"),
    ]
    .iter()
    .enumerate()
    {
        let p = id(&product_with(
            &t,
            &e,
            &format!("Product {i}"),
            json!({"sku": format!("P-{i}"), "category": cat, "cost_price": num(cost), "unit_price": num(unit)}),
        ));
        purchase(&t, &p, &main, &format!("{}", i + 1));
        if i % 2 == 0 {
            purchase(&t, &p, &annex, "2.5");
        }
        if i != 1 {
            moved(&t, &p, None, "purchase", num("4"));
        }
    }
    (t, e, main, annex)
}

fn whole(t: &TestApp, query: &str) -> Value {
    let (s, v) = t.get(&format!("/api/reports/stock-valuation{query}"));
    assert_eq!(s, Status::Ok, "{v}");
    v
}

fn sum(rows: &[Value], field: &str) -> Decimal {
    rows.iter().map(|r| dec(&r[field])).sum()
}

/// Σ quantity × `price` over the rows, exact, rounded once half away from zero (as the
/// summary is).
fn value(rows: &[Value], price: &str) -> Decimal {
    rows.iter()
        .map(|r| dec(&r["quantity"]) * dec(&r[price]))
        .sum::<Decimal>()
        .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
}

/// A group's figures are those of its rows: their count, Σ quantity, and the values
/// summed exactly and rounded once, within a penny a row of the rows' rounded values.
fn assert_totals_of(g: &Value, mine: &[Value]) {
    assert_eq!(g["rows"], json!(mine.len()), "{g}");
    assert_eq!(dec(&g["totalUnits"]), sum(mine, "quantity"), "{g}");
    assert_eq!(dec(&g["totalCostValue"]), value(mine, "cost_price"), "{g}");
    assert_eq!(
        dec(&g["totalRetailValue"]),
        value(mine, "unit_price"),
        "{g}"
    );
    let slack = Decimal::new(mine.len() as i64, 2);
    assert!(
        (dec(&g["totalCostValue"]) - sum(mine, "total_cost")).abs() <= slack,
        "{g}"
    );
}

#[test]
fn pages_are_slices_of_the_whole_report_with_its_summary() {
    let (t, _, _, _) = stocked();
    let all = whole(&t, "");
    let rows = all["data"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    let mut seen = Vec::new();
    for offset in (0..12).step_by(5) {
        let page = whole(&t, &format!("?limit=5&offset={offset}"));
        assert_eq!(page["total"], json!(12));
        assert_eq!(page["limit"], json!(5));
        assert_eq!(page["offset"], json!(offset));
        assert_eq!(page["summary"], all["summary"]);
        let data = page["data"].as_array().unwrap();
        assert_eq!(data.len(), 5.min(12 - offset), "{page}");
        seen.extend(data.iter().cloned());
    }
    assert_eq!(&seen, rows);
    // Past the end: no rows, the same totals.
    let page = whole(&t, "?offset=50");
    assert_eq!(page["data"], json!([]));
    assert_eq!(page["limit"], json!(null));
    assert_eq!(page["total"], json!(12));
    // An offset alone is a page too: every row from there.
    assert_eq!(
        whole(&t, "?offset=9")["data"].as_array().unwrap(),
        &rows[9..]
    );
}

#[test]
fn the_group_totals_are_the_sums_of_every_row_not_just_the_page() {
    let (t, _, main, annex) = stocked();
    let rows = whole(&t, "")["data"].as_array().unwrap().clone();
    let page = whole(&t, "?limit=1");
    assert_eq!(page["data"].as_array().unwrap().len(), 1);

    // By location: in row order, unallocated last, the empty location left out.
    let by_location = page["byLocation"].as_array().unwrap();
    let names: Vec<&str> = by_location
        .iter()
        .map(|g| g["locationName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Annex", "Main", "Unallocated"]);
    assert_eq!(by_location[0]["locationId"], json!(annex));
    assert_eq!(by_location[1]["locationId"], json!(main));
    assert_eq!(by_location[2]["locationId"], json!(null));
    for g in by_location {
        let mine: Vec<Value> = rows
            .iter()
            .filter(|r| r["location_name"] == g["locationName"])
            .cloned()
            .collect();
        assert_totals_of(g, &mine);
    }

    // By category: by name ignoring case (exact names, so `Tools` and `tools` are two).
    let by_category = page["byCategory"].as_array().unwrap();
    let names: Vec<&str> = by_category
        .iter()
        .map(|g| g["category"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["", "Kitchen", "Tools", "tools"]);
    for g in by_category {
        let mine: Vec<Value> = rows
            .iter()
            .filter(|r| r["category"] == g["category"])
            .cloned()
            .collect();
        assert_totals_of(g, &mine);
    }

    // Each grouping covers every row once; the summary is the same sums over all of them.
    for groups in [by_location, by_category] {
        let count: u64 = groups.iter().map(|g| g["rows"].as_u64().unwrap()).sum();
        assert_eq!(count, 12);
        let units: Decimal = groups.iter().map(|g| dec(&g["totalUnits"])).sum();
        assert_eq!(units, dec(&page["summary"]["totalUnits"]));
    }
    assert_eq!(
        dec(&page["summary"]["totalCostValue"]),
        value(&rows, "cost_price")
    );
}

#[test]
fn a_location_filter_pages_and_totals_that_locations_rows_only() {
    let (t, _, main, _) = stocked();
    let all = whole(&t, &format!("?locationId={main}"));
    let page = whole(&t, &format!("?locationId={main}&limit=2&offset=1"));
    assert_eq!(
        page["data"].as_array().unwrap(),
        &all["data"].as_array().unwrap()[1..3]
    );
    assert_eq!(page["total"], json!(5));
    assert_eq!(page["summary"], all["summary"]);
    assert_eq!(page["byLocation"].as_array().unwrap().len(), 1);
    assert_eq!(page["byLocation"][0]["locationId"], json!(main));
}

#[test]
fn as_of_a_past_day_pages_the_report_of_that_day() {
    let (t, _, main, _) = stocked();
    t.clock.freeze();
    let day1 = t.clock.today();
    t.clock.advance(86_400);
    // The next day's stock is not in the first day's report.
    let first = whole(&t, "")["data"][0]["product_id"]
        .as_str()
        .unwrap()
        .to_owned();
    purchase(&t, &first, &main, "100");
    let all = whole(&t, &format!("?asOf={day1}"));
    let rows = all["data"].as_array().unwrap();
    let page = whole(&t, &format!("?asOf={day1}&limit=3&offset=2"));
    assert_eq!(page["data"].as_array().unwrap(), &rows[2..5]);
    assert_eq!(page["summary"], all["summary"]);
    assert!(page["summary"].get("inTransitUnits").is_none(), "{page}");
    assert_eq!(page["total"], json!(rows.len()));
    assert_ne!(all["summary"], whole(&t, "")["summary"]);
    for g in page["byLocation"].as_array().unwrap() {
        let mine: Vec<Value> = rows
            .iter()
            .filter(|r| r["location_name"] == g["locationName"])
            .cloned()
            .collect();
        assert_totals_of(g, &mine);
    }
    // A future day is refused with paging too.
    let future = t.clock.today() + time::Duration::days(1);
    let msg = assert_error(
        &t.get(&format!(
            "/api/reports/stock-valuation?asOf={future}&limit=5"
        )),
        Status::BadRequest,
    );
    assert!(msg.contains("asOf"), "{msg}");
}

fn csv(t: &TestApp, query: &str) -> (String, String) {
    let res = t
        .with_session(
            t.client
                .get(format!("/api/reports/stock-valuation?format=csv{query}")),
        )
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    let ct = res.content_type().unwrap();
    assert_eq!((ct.top().as_str(), ct.sub().as_str()), ("text", "csv"));
    let disposition = res
        .headers()
        .get_one("Content-Disposition")
        .unwrap()
        .to_owned();
    (res.into_string().unwrap(), disposition)
}

/// The rows of the JSON report as the spreadsheet writes them.
fn as_csv_line(r: &Value) -> String {
    let cell = |v: &Value| {
        let s = v.as_str().unwrap().to_owned();
        if s.contains([',', '"']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s
        }
    };
    let fixed = |v: &Value| format!("{:.2}", dec(v));
    format!(
        "{},{},{},{},{},{},{},{},{},{}",
        cell(&r["product_sku"]),
        cell(&r["product_name"]),
        cell(&r["category"]),
        cell(&r["location_name"]),
        dec(&r["quantity"]).normalize(),
        dec(&r["cost_price"]).normalize(),
        dec(&r["unit_price"]).normalize(),
        fixed(&r["total_cost"]),
        fixed(&r["total_retail"]),
        fixed(&r["margin"]),
    )
}

#[test]
fn the_spreadsheet_holds_exactly_the_rows_of_the_json_report() {
    let (t, e, main, _) = stocked();
    let odd = id(&product_with(
        &t,
        &e,
        "=Thirds, \"boxed\"",
        json!({"sku": "THR-1", "category": "Odd", "cost_price": 0.3333, "unit_price": 0.5}),
    ));
    purchase(&t, &odd, &main, "3");
    let rows = whole(&t, "")["data"].as_array().unwrap().clone();
    let (text, disposition) = csv(&t, "");
    let lines: Vec<&str> = text.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "product_sku,product_name,category,location,quantity,cost_price,unit_price,total_cost,total_retail,margin_percent"
    );
    assert_eq!(
        lines.len(),
        rows.len() + 2,
        "header, rows, final newline: {text}"
    );
    assert_eq!(lines[lines.len() - 1], "");
    for (line, r) in lines[1..].iter().zip(&rows) {
        if r["product_id"] == json!(odd) {
            // A formula is neutralised.
            assert_eq!(
                *line,
                "THR-1,\"'=Thirds, \"\"boxed\"\"\",Odd,Main,3,0.3333,0.5,1.00,1.50,33.34"
            );
        } else {
            assert_eq!(*line, as_csv_line(r));
        }
    }
    let today = t.clock.today();
    assert_eq!(
        disposition,
        format!("attachment; filename=\"stock-valuation-{today}.csv\"")
    );

    // With an entity and a location: their names in the file's name, their rows only;
    // paging applies as in JSON.
    let (text, disposition) = csv(
        &t,
        &format!("&entityId={e}&locationId={main}&limit=2&offset=1"),
    );
    let mine = whole(&t, &format!("?entityId={e}&locationId={main}"))["data"]
        .as_array()
        .unwrap()
        .clone();
    let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[1], as_csv_line(&mine[1]));
    assert_eq!(lines[2], as_csv_line(&mine[2]));
    assert!(
        disposition.ends_with(&format!("-main-{today}.csv\"")),
        "{disposition}"
    );
}

#[test]
fn the_unpaged_answer_is_unchanged_and_bad_paging_is_a_400() {
    let (t, _, _, _) = stocked();
    let raw = |q: &str| {
        t.with_session(t.client.get(format!("/api/reports/stock-valuation{q}")))
            .dispatch()
            .into_string()
            .unwrap()
    };
    let plain = raw("");
    assert!(plain.starts_with("{\"data\":[{\"product_id\":"), "{plain}");
    assert!(!plain.contains("byLocation"));
    // `format=json` is the default, not a page.
    assert_eq!(raw("?format=json"), plain);
    for (q, field) in [
        ("?limit=0", "limit"),
        ("?limit=x", "limit"),
        ("?offset=-1", "offset"),
        ("?format=xml", "format"),
        ("?format=csv&limit=0", "limit"),
    ] {
        let msg = assert_error(
            &t.get(&format!("/api/reports/stock-valuation{q}")),
            Status::BadRequest,
        );
        assert!(msg.contains(field), "{q}: {msg}");
    }
}
