//! Stock takes (docs/documents.md#stock-take-states, docs/documents.md#stock-takes,
//! docs/documents.md#counts-and-completion): lines, counts, every row of the transition
//! table allowed and refused, and the adjustments of a completion read back through
//! `GET /api/products`.

use super::common;

use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// An entity with locations Main and Shop; Anvil (10 at Main), Bolt (4 at Main, 2 at
/// Shop), Chain (a row at Main holding 0) and Dowel (3 at Main, deactivated).
struct Fx {
    t: TestApp,
    e: String,
    main: String,
    shop: String,
    anvil: String,
    bolt: String,
    chain: String,
    dowel: String,
}

fn fixture() -> Fx {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let shop = location(&t, &e, "Shop");
    let anvil = id(&product_with(&t, &e, "Anvil", json!({"sku": "SKU-A"})));
    let bolt = id(&product_with(&t, &e, "bolt", json!({"sku": "SKU-B"})));
    let chain = id(&product_with(&t, &e, "Chain", json!({"sku": "SKU-C"})));
    let dowel = id(&product_with(&t, &e, "Dowel", json!({"sku": "SKU-D"})));
    purchase(&t, &anvil, &main, "10");
    purchase(&t, &bolt, &main, "4");
    purchase(&t, &bolt, &shop, "2");
    purchase(&t, &chain, &main, "1");
    sale(&t, &chain, &main, "1");
    purchase(&t, &dowel, &main, "3");
    deactivate_product(&t, &dowel);
    Fx {
        t,
        e,
        main,
        shop,
        anvil,
        bolt,
        chain,
        dowel,
    }
}

impl Fx {
    fn create_at(&self, location: &str) -> (Status, Value) {
        self.t.post(
            "/api/stock-takes",
            json!({"location_id": location, "entity_id": self.e}),
        )
    }

    fn take(&self) -> Value {
        let (s, v) = self.create_at(&self.main);
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn put(&self, body: Value) -> (Status, Value) {
        self.t.put("/api/stock-takes", body)
    }

    fn status(&self, take: &Value, status: &str) -> (Status, Value) {
        self.put(json!({"id": take["id"], "status": status}))
    }

    fn reach(&self, take: &Value, status: &str) -> Value {
        let path: &[&str] = match status {
            "draft" => &[],
            "in_progress" => &["in_progress"],
            "completed" => &["in_progress", "completed"],
            "cancelled" => &["cancelled"],
            _ => unreachable!(),
        };
        let mut last = take.clone();
        for step in path {
            let (s, v) = self.status(take, step);
            assert_eq!(s, Status::Ok, "{v}");
            last = v["data"].clone();
        }
        last
    }

    /// The line of `product` in a stock take.
    fn line<'a>(&self, take: &'a Value, product: &str) -> &'a Value {
        take["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["product_id"]["id"] == json!(product))
            .expect("a line for the product")
    }

    fn takes(&self) -> Vec<Value> {
        let (s, v) = self.t.get("/api/stock-takes");
        assert_eq!(s, Status::Ok, "{v}");
        v["data"].as_array().unwrap().clone()
    }

    fn get(&self, take: &Value) -> Value {
        self.takes()
            .into_iter()
            .find(|x| x["id"] == take["id"])
            .expect("listed")
    }

    fn snapshot(&self) -> Value {
        json!({
            "takes": self.takes(),
            "anvil": get_product(&self.t, &self.anvil),
            "bolt": get_product(&self.t, &self.bolt),
            "chain": get_product(&self.t, &self.chain),
            "moves": ledger(&self.t, &self.anvil).len() + ledger(&self.t, &self.bolt).len(),
        })
    }
}

#[test]
fn a_new_stock_take_lists_the_locations_rows_of_active_products_uncounted() {
    let fx = fixture();
    let st = fx.take();
    assert_eq!(st["number"], "ST-001");
    assert_eq!(st["status"], "draft");
    assert_eq!(st["entity_id"], json!(fx.e));
    assert_eq!(st["location_id"], json!({"id": fx.main, "name": "Main"}));
    assert_eq!(st["date_completed"], Value::Null);
    assert!(st["date_created"].as_str().unwrap().ends_with('Z'));
    let lines = st["lines"].as_array().unwrap();
    // Anvil, bolt, Chain by name (case-insensitive); the deactivated Dowel is left out;
    // the Chain row at 0 is counted too.
    let skus: Vec<_> = lines
        .iter()
        .map(|l| l["product_id"]["sku"].clone())
        .collect();
    assert_eq!(skus, [json!("SKU-A"), json!("SKU-B"), json!("SKU-C")]);
    assert_eq!(
        lines[0]["product_id"],
        json!({"id": fx.anvil, "name": "Anvil", "sku": "SKU-A"})
    );
    assert_eq!(lines[0]["system_quantity"], json!(10));
    assert_eq!(
        lines[1]["system_quantity"],
        json!(4),
        "Main's quantity, not Shop's"
    );
    assert_eq!(lines[2]["system_quantity"], json!(0));
    for l in lines {
        assert_eq!(l["counted_quantity"], Value::Null);
        assert_eq!(l["variance"], Value::Null);
        assert!(l["id"].is_string());
    }
    assert!(lines
        .iter()
        .all(|l| l["product_id"]["id"] != json!(fx.dowel)));
    assert_eq!(fx.get(&st), st);
    // No stock changes on creation.
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(10), json!(0)));
}

#[test]
fn numbers_count_per_entity() {
    let fx = fixture();
    assert_eq!(fx.take()["number"], "ST-001");
    let (_, v) = fx.create_at(&fx.shop);
    assert_eq!(v["data"]["number"], "ST-002");
    let e2 = fx.t.entity("Other Ltd");
    let far = location(&fx.t, &e2, "Far");
    let (s, v) = fx.t.post(
        "/api/stock-takes",
        json!({"location_id": far, "entity_id": e2, "notes": "year end"}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["number"], "ST-001");
    assert_eq!(v["data"]["notes"], "year end");
    assert_eq!(v["data"]["lines"], json!([]));
}

#[test]
fn the_location_is_required_visible_active_and_of_the_entity() {
    let fx = fixture();
    let r = fx.t.post("/api/stock-takes", json!({"entity_id": fx.e}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: location_id"
    );
    let r =
        fx.t.post("/api/stock-takes", json!({"location_id": fx.main}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: entity_id"
    );
    let r = fx.t.post(
        "/api/stock-takes",
        json!({"location_id": "main", "entity_id": fx.e}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("location_id"));
    assert_error(
        &fx.create_at(&uuid::Uuid::new_v4().to_string()),
        Status::NotFound,
    );
    let e2 = fx.t.entity("Other Ltd");
    let far = location(&fx.t, &e2, "Far");
    assert_error(&fx.create_at(&far), Status::BadRequest);
    deactivate_location(&fx.t, &fx.shop);
    let msg = assert_error(&fx.create_at(&fx.shop), Status::Conflict);
    assert!(msg.contains("Shop") && msg.contains("inactive"), "{msg}");
    assert!(fx.takes().is_empty());
}

#[test]
fn counts_are_recorded_blanked_and_shown_with_their_variance() {
    let fx = fixture();
    let st = fx.take();
    let (a, b) = (
        fx.line(&st, &fx.anvil)["id"].clone(),
        fx.line(&st, &fx.bolt)["id"].clone(),
    );
    // In draft.
    let (s, v) = fx.put(json!({"id": st["id"], "lines": [
        {"id": a, "counted_quantity": 8.5},
        {"id": b, "counted_quantity": 6},
    ]}));
    assert_eq!(s, Status::Ok, "{v}");
    let d = &v["data"];
    assert_eq!(d["status"], "draft");
    assert_eq!(fx.line(d, &fx.anvil)["counted_quantity"], json!(8.5));
    assert_eq!(fx.line(d, &fx.anvil)["variance"], json!(-1.5));
    assert_eq!(fx.line(d, &fx.bolt)["variance"], json!(2));
    assert_eq!(fx.line(d, &fx.chain)["variance"], Value::Null);
    // In progress, and null blanks a count.
    fx.reach(&st, "in_progress");
    let (s, v) = fx.put(json!({"id": st["id"], "lines": [{"id": b, "counted_quantity": null}]}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        fx.line(&v["data"], &fx.bolt)["counted_quantity"],
        Value::Null
    );
    assert_eq!(fx.line(&v["data"], &fx.bolt)["variance"], Value::Null);
    assert_eq!(
        fx.line(&v["data"], &fx.anvil)["counted_quantity"],
        json!(8.5)
    );
    assert_eq!(fx.get(&st), v["data"]);
    // Counting moves no stock.
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(10), json!(0)));
}

#[test]
fn bad_counts_are_400_and_change_nothing() {
    let fx = fixture();
    let st = fx.take();
    let other = {
        let (_, v) = fx.create_at(&fx.shop);
        v["data"].clone()
    };
    let a = fx.line(&st, &fx.anvil)["id"].clone();
    let before = fx.snapshot();
    let cases = [
        (
            json!([{"id": a, "counted_quantity": 1}, {"id": a, "counted_quantity": -1}]),
            "lines[1].counted_quantity",
        ),
        (
            json!([{"id": a, "counted_quantity": 1.0001}]),
            "lines[0].counted_quantity",
        ),
        (json!([{"id": a}]), "lines[0].counted_quantity"),
        (json!([{"counted_quantity": 1}]), "lines[0].id"),
        (json!([{"id": "x", "counted_quantity": 1}]), "lines[0].id"),
        (
            json!([{"id": a, "counted_quantity": 1}, {"id": other["lines"][0]["id"], "counted_quantity": 1}]),
            "lines[1].id",
        ),
        (
            json!([{"id": uuid::Uuid::new_v4().to_string(), "counted_quantity": 1}]),
            "lines[0].id",
        ),
    ];
    for (lines, field) in cases {
        let r = fx.put(json!({"id": st["id"], "lines": lines}));
        let msg = assert_error(&r, Status::BadRequest);
        assert!(msg.contains(field), "{field}: {msg}");
    }
    assert_eq!(fx.snapshot(), before);
}

#[test]
fn counts_are_refused_once_completed_or_cancelled() {
    let fx = fixture();
    for state in ["completed", "cancelled"] {
        let st = fx.reach(&fx.take(), state);
        let before = fx.snapshot();
        let r = fx.put(json!({"id": st["id"], "lines": [
            {"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 1}
        ]}));
        let msg = assert_error(&r, Status::Conflict);
        assert!(msg.contains(state), "{msg}");
        let r = fx.put(json!({"id": st["id"], "notes": "late"}));
        assert_error(&r, Status::Conflict);
        assert_eq!(fx.snapshot(), before);
    }
}

#[test]
fn completing_sets_each_counted_row_to_its_count_with_stock_take_movements() {
    let fx = fixture();
    let st = fx.reach(&fx.take(), "in_progress");
    let moves_before = ledger(&fx.t, &fx.chain).len();
    let (s, v) = fx.put(json!({"id": st["id"], "status": "completed", "lines": [
        {"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 7},
        {"id": fx.line(&st, &fx.bolt)["id"], "counted_quantity": 5.5},
        {"id": fx.line(&st, &fx.chain)["id"], "counted_quantity": 0},
    ]}));
    assert_eq!(s, Status::Ok, "{v}");
    let d = &v["data"];
    assert_eq!(d["status"], "completed");
    assert!(d["date_completed"].as_str().unwrap().ends_with('Z'), "{d}");
    assert_eq!(fx.line(d, &fx.anvil)["variance"], json!(-3));
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(7), json!(0)));
    assert_eq!(at(&fx.t, &fx.bolt, &fx.main), (json!(5.5), json!(0)));
    assert_eq!(
        at(&fx.t, &fx.bolt, &fx.shop),
        (json!(2), json!(0)),
        "other locations untouched"
    );
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(7));
    assert_eq!(get_product(&fx.t, &fx.bolt)["stock_qty"], json!(7.5));
    assert_eq!(
        ledger(&fx.t, &fx.anvil).pop().unwrap(),
        (
            "stock_take".to_owned(),
            "-3".to_owned(),
            Some(fx.main.clone()),
            Some("ST-001".to_owned())
        )
    );
    assert_eq!(ledger(&fx.t, &fx.bolt).pop().unwrap().1, "1.5");
    // A count equal to the stock writes no movement.
    assert_eq!(ledger(&fx.t, &fx.chain).len(), moves_before);
}

#[test]
fn uncounted_lines_are_left_alone() {
    let fx = fixture();
    let st = fx.reach(&fx.take(), "in_progress");
    let bolt_moves = ledger(&fx.t, &fx.bolt).len();
    fx.put(json!({"id": st["id"], "lines": [{"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 12}]}));
    let (s, v) = fx.status(&st, "completed");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main).0, json!(12));
    assert_eq!(at(&fx.t, &fx.bolt, &fx.main).0, json!(4));
    assert_eq!(ledger(&fx.t, &fx.bolt).len(), bolt_moves);
}

#[test]
fn a_sale_between_creation_and_completion_is_respected() {
    let fx = fixture();
    let st = fx.reach(&fx.take(), "in_progress");
    assert_eq!(fx.line(&st, &fx.anvil)["system_quantity"], json!(10));
    // 3 sold after the snapshot: the row holds 7 when the count of 8 completes.
    sale(&fx.t, &fx.anvil, &fx.main, "3");
    let (s, v) = fx.put(json!({"id": st["id"], "status": "completed", "lines": [
        {"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 8},
    ]}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(fx.line(&v["data"], &fx.anvil)["system_quantity"], json!(10));
    assert_eq!(fx.line(&v["data"], &fx.anvil)["variance"], json!(-2));
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main).0, json!(8));
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(8));
    let m = ledger(&fx.t, &fx.anvil).pop().unwrap();
    assert_eq!((m.0.as_str(), m.1.as_str()), ("stock_take", "1"));
}

#[test]
fn a_stock_take_in_progress_completes_at_a_location_deactivated_meanwhile() {
    let fx = fixture();
    let st = fx.reach(&fx.take(), "in_progress");
    fx.put(json!({"id": st["id"], "lines": [{"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 9}]}));
    deactivate_location(&fx.t, &fx.main);
    let (s, v) = fx.status(&st, "completed");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main).0, json!(9));
}

#[test]
fn allowed_transitions_without_adjustments() {
    let fx = fixture();
    // draft -> in_progress
    let st = fx.take();
    let (s, v) = fx.status(&st, "in_progress");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["status"], "in_progress");
    // draft -> cancelled and in_progress -> cancelled apply no adjustments.
    for from in ["draft", "in_progress"] {
        let st = fx.reach(&fx.take(), from);
        fx.put(json!({"id": st["id"], "lines": [{"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 1}]}));
        let before = fx.snapshot()["anvil"].clone();
        let (s, v) = fx.status(&st, "cancelled");
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["data"]["status"], "cancelled");
        assert_eq!(v["data"]["date_completed"], Value::Null);
        assert_eq!(fx.snapshot()["anvil"], before);
    }
}

#[test]
fn transitions_outside_the_table_are_refused() {
    let fx = fixture();
    let refused = [
        ("draft", "completed"),
        ("in_progress", "in_progress"),
        ("completed", "cancelled"),
        ("completed", "in_progress"),
        ("completed", "completed"),
        ("cancelled", "in_progress"),
        ("cancelled", "completed"),
        ("cancelled", "cancelled"),
    ];
    for (from, to) in refused {
        let st = fx.reach(&fx.take(), from);
        let before = fx.snapshot();
        let msg = assert_error(&fx.status(&st, to), Status::Conflict);
        assert!(msg.contains(st["number"].as_str().unwrap()), "{msg}");
        assert_eq!(fx.snapshot(), before, "{from} -> {to}");
    }
}

#[test]
fn a_refused_transition_keeps_no_counts() {
    let fx = fixture();
    let st = fx.take();
    let before = fx.snapshot();
    let r = fx.put(
        json!({"id": st["id"], "status": "completed", "notes": "n", "lines": [
            {"id": fx.line(&st, &fx.anvil)["id"], "counted_quantity": 1}
        ]}),
    );
    assert!(assert_error(&r, Status::Conflict).contains("ST-001"));
    assert_eq!(fx.snapshot(), before);
}

#[test]
fn a_status_outside_the_put_values_is_400() {
    let fx = fixture();
    let st = fx.take();
    for bad in ["draft", "done", ""] {
        let msg = assert_error(&fx.status(&st, bad), Status::BadRequest);
        assert!(msg.contains("status"), "{msg}");
    }
    assert_eq!(fx.get(&st)["status"], "draft");
}

#[test]
fn only_draft_or_cancelled_stock_takes_can_be_deleted() {
    let fx = fixture();
    for state in ["in_progress", "completed"] {
        let st = fx.reach(&fx.take(), state);
        let msg = assert_error(
            &fx.t.delete("/api/stock-takes", json!({"id": st["id"]})),
            Status::Conflict,
        );
        assert!(msg.contains(state), "{msg}");
    }
    for state in ["draft", "cancelled"] {
        let st = fx.reach(&fx.take(), state);
        let (s, v) = fx.t.delete("/api/stock-takes", json!({"id": st["id"]}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["data"], json!({"success": true}));
        assert!(fx.takes().iter().all(|x| x["id"] != st["id"]));
    }
    assert_eq!(fx.takes().len(), 2);
    let orphans: i64 =
        fx.t.db
            .read_sync(|c| {
                Ok(c.query_row(
                    "SELECT COUNT(*) FROM stock_take_lines l
                 LEFT JOIN stock_takes t ON t.id = l.stock_take_id WHERE t.id IS NULL",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
    assert_eq!(orphans, 0);
}

#[test]
fn notes_change_while_counting() {
    let fx = fixture();
    let st = fx.reach(&fx.take(), "in_progress");
    let (s, v) = fx.put(json!({"id": st["id"], "notes": " aisle 3 first "}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["notes"], "aisle 3 first");
    let (s, v) = fx.put(json!({"id": st["id"], "notes": null}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["notes"], Value::Null);
}

#[test]
fn the_list_is_newest_first_filtered_by_entity_and_paged() {
    let fx = fixture();
    fx.take();
    fx.create_at(&fx.shop);
    let e2 = fx.t.entity("Other Ltd");
    let far = location(&fx.t, &e2, "Far");
    fx.t.post(
        "/api/stock-takes",
        json!({"location_id": far, "entity_id": e2}),
    );
    let numbers = |path: &str| -> Vec<Value> {
        let (s, v) = fx.t.get(path);
        assert_eq!(s, Status::Ok, "{v}");
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["number"].clone())
            .collect()
    };
    assert_eq!(
        numbers(&format!("/api/stock-takes?entityId={}", fx.e)),
        [json!("ST-002"), json!("ST-001")]
    );
    assert_eq!(numbers("/api/stock-takes").len(), 3);
    assert_eq!(
        numbers(&format!(
            "/api/stock-takes?entityId={}&limit=1&offset=1",
            fx.e
        )),
        [json!("ST-001")]
    );
    assert_error(&fx.t.get("/api/stock-takes?entityId=x"), Status::BadRequest);
}

/// docs/documents.md#lists: `id` reads one stock take; `lines=false` lists them without
/// their lines, with the figures a list page shows.
#[test]
fn one_stock_take_is_read_by_id_and_a_list_can_leave_the_lines_out() {
    let fx = fixture();
    let main = fx.take();
    let (s, shop) = fx.create_at(&fx.shop);
    assert_eq!(s, Status::Created, "{shop}");
    let shop = shop["data"].clone();
    let (a, b) = (
        fx.line(&main, &fx.anvil)["id"].clone(),
        fx.line(&main, &fx.bolt)["id"].clone(),
    );
    let (s, v) = fx.put(json!({"id": main["id"], "lines": [
        {"id": a, "counted_quantity": 9},
        {"id": b, "counted_quantity": 0},
    ]}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        (
            v["data"]["line_count"].clone(),
            v["data"]["counted_count"].clone()
        ),
        (json!(3), json!(2))
    );
    let list = |query: &str| -> Vec<Value> {
        let (s, v) = fx.t.get(&format!("/api/stock-takes?{query}"));
        assert_eq!(s, Status::Ok, "{query}: {v}");
        v["data"].as_array().unwrap().clone()
    };
    let main_id = main["id"].as_str().unwrap();
    let shop_id = shop["id"].as_str().unwrap();

    // By id: that one alone, with its lines, as the whole list shows it.
    let one = list(&format!("id={main_id}"));
    assert_eq!(one.len(), 1);
    assert_eq!(one[0], fx.get(&main));
    assert_eq!(one[0]["lines"].as_array().unwrap().len(), 3);
    assert_eq!(
        list(&format!("id={}", main_id.to_uppercase()))[0]["id"],
        main["id"]
    );

    // Without lines: every take, newest first, with its figures and nothing else changed.
    let heads = list("lines=false");
    let with_lines = fx.takes();
    assert_eq!(heads.len(), 2);
    for (head, whole) in heads.iter().zip(&with_lines) {
        assert!(head.get("lines").is_none(), "{head}");
        let mut whole = whole.clone();
        whole.as_object_mut().unwrap().remove("lines");
        assert_eq!(head, &whole);
    }
    assert_eq!(heads[0]["id"], shop["id"]);
    assert_eq!(
        (
            heads[0]["line_count"].clone(),
            heads[0]["counted_count"].clone()
        ),
        (json!(1), json!(0))
    );
    assert_eq!(
        (
            heads[1]["line_count"].clone(),
            heads[1]["counted_count"].clone()
        ),
        (json!(3), json!(2))
    );

    // A count blanked, then the stock take completed: the figures follow.
    let (s, v) = fx.put(json!({"id": main["id"], "lines": [{"id": b, "counted_quantity": null}]}));
    assert_eq!(s, Status::Ok, "{v}");
    fx.reach(&main, "completed");
    let heads = list("lines=false");
    assert_eq!(
        (
            heads[1]["line_count"].clone(),
            heads[1]["counted_count"].clone(),
            heads[1]["status"].clone()
        ),
        (json!(3), json!(1), json!("completed"))
    );
    assert_eq!(heads[1]["counted_count"], fx.get(&main)["counted_count"]);

    // Together, with the entity and a page.
    let both = list(&format!(
        "id={shop_id}&lines=false&entityId={}&limit=5",
        fx.e
    ));
    assert_eq!(both.len(), 1);
    assert!(both[0].get("lines").is_none());
    assert_eq!(list("lines=true").len(), 2);

    // Not the caller's, or not of the entity asked for: none.
    let e2 = fx.t.entity("Other Ltd");
    assert_eq!(
        list(&format!("id={main_id}&entityId={e2}")),
        Vec::<Value>::new()
    );
    assert_eq!(
        list(&format!("id={}", uuid::Uuid::new_v4())),
        Vec::<Value>::new()
    );

    // Bad values are 400, naming the parameter.
    for (query, field) in [
        ("id=ST-001", "id"),
        ("id=", "id"),
        ("lines=maybe", "lines"),
        ("lines=", "lines"),
    ] {
        let m = assert_error(
            &fx.t.get(&format!("/api/stock-takes?{query}")),
            Status::BadRequest,
        );
        assert!(m.contains(field), "{query}: {m}");
    }

    fx.t.signup("intruder@example.com");
    assert_eq!(list(&format!("id={main_id}")), Vec::<Value>::new());
    assert_eq!(list("lines=false"), Vec::<Value>::new());
}

#[test]
fn another_users_stock_take_is_not_found() {
    let fx = fixture();
    let st = fx.take();
    fx.t.signup("intruder@example.com");
    assert_error(&fx.status(&st, "in_progress"), Status::NotFound);
    assert_error(
        &fx.t.delete("/api/stock-takes", json!({"id": st["id"]})),
        Status::NotFound,
    );
    assert_eq!(fx.t.get("/api/stock-takes").1["data"], json!([]));
    let e = fx.t.entity("Mine Ltd");
    let r = fx.t.post(
        "/api/stock-takes",
        json!({"location_id": fx.main, "entity_id": e}),
    );
    assert_error(&r, Status::NotFound);
}
