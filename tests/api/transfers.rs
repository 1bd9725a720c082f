//! Transfer orders (docs/documents.md#transfer-order-states, docs/documents.md#transfer-orders,
//! docs/ledger.md#invariants): every row of the transition table, allowed and refused, with its
//! stock effects read back through `GET /api/products`.

use super::common;

use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// An entity with locations Main and Shop, products Anvil (10 at Main) and Bolt (5 at
/// Main), and an empty product Chain.
struct Fx {
    t: TestApp,
    e: String,
    main: String,
    shop: String,
    anvil: String,
    bolt: String,
    chain: String,
}

fn fixture() -> Fx {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let shop = location(&t, &e, "Shop");
    let anvil = id(&product_with(
        &t,
        &e,
        "Anvil",
        json!({"sku": "SKU-A", "cost_price": 2}),
    ));
    let bolt = id(&product_with(
        &t,
        &e,
        "Bolt",
        json!({"sku": "SKU-B", "cost_price": 1}),
    ));
    let chain = id(&product_with(&t, &e, "Chain", json!({"sku": "SKU-C"})));
    purchase(&t, &anvil, &main, "10");
    purchase(&t, &bolt, &main, "5");
    Fx {
        t,
        e,
        main,
        shop,
        anvil,
        bolt,
        chain,
    }
}

impl Fx {
    fn create(&self, lines: Value) -> (Status, Value) {
        self.t.post(
            "/api/transfer-orders",
            json!({
                "source_location_id": self.main,
                "destination_location_id": self.shop,
                "entity_id": self.e,
                "lines": lines,
            }),
        )
    }

    /// A draft order Main → Shop with `lines`; returns it.
    fn order(&self, lines: Value) -> Value {
        let (s, v) = self.create(lines);
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn put(&self, body: Value) -> (Status, Value) {
        self.t.put("/api/transfer-orders", body)
    }

    fn status(&self, order: &Value, status: &str) -> (Status, Value) {
        self.put(json!({"id": order["id"], "status": status}))
    }

    /// Moves an order to `status` by the allowed path; returns it.
    fn reach(&self, order: &Value, status: &str) -> Value {
        let path: &[&str] = match status {
            "draft" => &[],
            "in_transit" => &["in_transit"],
            "completed" => &["in_transit", "completed"],
            "cancelled" => &["cancelled"],
            _ => unreachable!(),
        };
        let mut last = order.clone();
        for step in path {
            let (s, v) = self.status(order, step);
            assert_eq!(s, Status::Ok, "{v}");
            last = v["data"].clone();
        }
        last
    }

    fn get(&self, order: &Value) -> Value {
        let (s, v) = self.t.get("/api/transfer-orders");
        assert_eq!(s, Status::Ok, "{v}");
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == order["id"])
            .cloned()
            .expect("order listed")
    }

    fn orders(&self) -> Vec<Value> {
        let (s, v) = self.t.get("/api/transfer-orders");
        assert_eq!(s, Status::Ok, "{v}");
        v["data"].as_array().unwrap().clone()
    }

    /// Everything a refused request must leave untouched.
    fn snapshot(&self) -> Value {
        json!({
            "orders": self.orders(),
            "anvil": get_product(&self.t, &self.anvil),
            "bolt": get_product(&self.t, &self.bolt),
            "anvil_moves": ledger(&self.t, &self.anvil).len(),
            "bolt_moves": ledger(&self.t, &self.bolt).len(),
        })
    }
}

fn line(product: &str, quantity: Value) -> Value {
    json!({"product_id": product, "quantity": quantity})
}

// --- create -----------------------------------------------------------------------------

#[test]
fn creating_an_order_gives_a_numbered_draft_with_expanded_references_and_no_stock_effect() {
    let fx = fixture();
    let o = fx.order(json!([
        line(&fx.anvil, json!(4)),
        line(&fx.bolt, json!(1.5))
    ]));
    assert_eq!(o["number"], "TO-001");
    assert_eq!(o["status"], "draft");
    assert_eq!(o["entity_id"], json!(fx.e));
    assert_eq!(
        o["source_location_id"],
        json!({"id": fx.main, "name": "Main"})
    );
    assert_eq!(
        o["destination_location_id"],
        json!({"id": fx.shop, "name": "Shop"})
    );
    assert!(o["date_created"].as_str().unwrap().ends_with('Z'), "{o}");
    assert_eq!(o["date_completed"], Value::Null);
    assert_eq!(o["notes"], Value::Null);
    let lines = o["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0]["product_id"],
        json!({"id": fx.anvil, "name": "Anvil", "sku": "SKU-A"})
    );
    assert_eq!(lines[0]["quantity"], json!(4));
    assert_eq!(lines[0]["received_quantity"], json!(0));
    assert_eq!(lines[1]["quantity"], json!(1.5));
    assert!(lines[0]["id"].is_string());
    // No stock is affected.
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(10), json!(0)));
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(10));
    assert_eq!(fx.get(&o), o);
}

#[test]
fn the_entity_defaults_to_the_source_locations() {
    let fx = fixture();
    let (s, v) = fx.t.post(
        "/api/transfer-orders",
        json!({
            "source_location_id": fx.main,
            "destination_location_id": fx.shop,
            "notes": "  weekly top-up ",
            "lines": [line(&fx.anvil, json!(1))],
        }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["entity_id"], json!(fx.e));
    assert_eq!(v["data"]["notes"], "weekly top-up");
}

#[test]
fn numbers_count_per_entity_and_grow_past_999() {
    let fx = fixture();
    assert_eq!(
        fx.order(json!([line(&fx.anvil, json!(1))]))["number"],
        "TO-001"
    );
    assert_eq!(
        fx.order(json!([line(&fx.anvil, json!(1))]))["number"],
        "TO-002"
    );

    // A second entity of the same user starts at TO-001.
    let e2 = fx.t.entity("Other Ltd");
    let x = location(&fx.t, &e2, "X");
    let y = location(&fx.t, &e2, "Y");
    let p = product(&fx.t, &e2, "Pin");
    let (s, v) = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": x, "destination_location_id": y, "entity_id": e2,
               "lines": [line(&p, json!(1))]}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["number"], "TO-001");

    // Past 999 the sequence simply grows.
    fx.t.db
        .write_sync(|tx| {
            tx.execute(
                "UPDATE transfer_orders SET number_seq = 999, number = 'TO-999' WHERE number = 'TO-002'",
                [],
            )?;
            Ok(())
        })
        .unwrap();
    assert_eq!(
        fx.order(json!([line(&fx.anvil, json!(1))]))["number"],
        "TO-1000"
    );
}

#[test]
fn an_order_needs_different_locations_and_at_least_one_line() {
    let fx = fixture();
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": fx.main, "destination_location_id": fx.main,
               "entity_id": fx.e, "lines": [line(&fx.anvil, json!(1))]}),
    );
    let msg = assert_error(&r, Status::Conflict);
    assert!(msg.contains("different"), "{msg}");
    let msg = assert_error(&fx.create(json!([])), Status::Conflict);
    assert!(msg.contains("at least one line"), "{msg}");
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": fx.main, "destination_location_id": fx.shop, "entity_id": fx.e}),
    );
    // Omitting `lines` is a missing field (400, docs/documents.md#transfer-orders); an empty
    // list stays the 409 refusal above.
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: lines"
    );
    assert!(fx.orders().is_empty());
}

#[test]
fn missing_or_malformed_fields_are_400() {
    let fx = fixture();
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"destination_location_id": fx.shop, "lines": [line(&fx.anvil, json!(1))]}),
    );
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: source_location_id"
    );
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": "nope", "destination_location_id": fx.shop,
               "lines": [line(&fx.anvil, json!(1))]}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("source_location_id"));
    let r = fx.create(json!([{"quantity": 1}]));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: lines[0].product_id"
    );
    let r = fx.create(json!([{"product_id": fx.anvil}]));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: lines[0].quantity"
    );
    assert!(fx.orders().is_empty());
}

#[test]
fn lines_need_an_active_product_of_the_entity_and_a_positive_quantity() {
    let fx = fixture();
    deactivate_product(&fx.t, &fx.chain);
    let msg = assert_error(
        &fx.create(json!([
            line(&fx.anvil, json!(1)),
            line(&fx.chain, json!(1))
        ])),
        Status::BadRequest,
    );
    assert!(
        msg.contains("lines[1].product_id") && msg.contains("SKU-C"),
        "{msg}"
    );

    for q in [json!(0), json!(-1)] {
        let msg = assert_error(&fx.create(json!([line(&fx.anvil, q)])), Status::BadRequest);
        assert!(msg.contains("lines[0].quantity"), "{msg}");
    }
    let msg = assert_error(
        &fx.create(json!([line(&fx.anvil, json!(1.0001))])),
        Status::BadRequest,
    );
    assert!(msg.contains("lines[0].quantity"), "{msg}");

    let unknown = uuid::Uuid::new_v4().to_string();
    assert_error(
        &fx.create(json!([line(&unknown, json!(1))])),
        Status::NotFound,
    );

    // A product of another entity of the same user: 400; another user's: 404.
    let e2 = fx.t.entity("Other Ltd");
    let theirs = product(&fx.t, &e2, "Elsewhere");
    assert_error(
        &fx.create(json!([line(&theirs, json!(1))])),
        Status::BadRequest,
    );
    let (_, outsider) = {
        let t2 = &fx.t;
        let saved = t2.session.borrow().clone();
        t2.signup("other@example.com");
        let e3 = t2.entity("Stranger Ltd");
        let p = product(t2, &e3, "Foreign");
        *t2.session.borrow_mut() = saved;
        (e3, p)
    };
    assert_error(
        &fx.create(json!([line(&outsider, json!(1))])),
        Status::NotFound,
    );
    assert!(fx.orders().is_empty());
}

#[test]
fn locations_must_be_active_visible_and_of_the_orders_entity() {
    let fx = fixture();
    let e2 = fx.t.entity("Other Ltd");
    let far = location(&fx.t, &e2, "Far");
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": fx.main, "destination_location_id": far,
               "entity_id": fx.e, "lines": [line(&fx.anvil, json!(1))]}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("destination_location_id"));

    let unknown = uuid::Uuid::new_v4().to_string();
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": fx.main, "destination_location_id": unknown,
               "lines": [line(&fx.anvil, json!(1))]}),
    );
    assert_error(&r, Status::NotFound);

    deactivate_location(&fx.t, &fx.shop);
    let msg = assert_error(
        &fx.create(json!([line(&fx.anvil, json!(1))])),
        Status::Conflict,
    );
    assert!(msg.contains("Shop") && msg.contains("inactive"), "{msg}");
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": fx.shop, "destination_location_id": fx.main,
               "lines": [line(&fx.anvil, json!(1))]}),
    );
    assert!(assert_error(&r, Status::Conflict).contains("Shop"));
    assert!(fx.orders().is_empty());
}

// --- ship ---------------------------------------------------------------------------------

#[test]
fn shipping_that_would_take_a_reservation_past_ten_to_the_twelve_is_refused_whole() {
    // docs/limits.md#numbers: each shipment is within what Main holds, but two in transit
    // would reserve 2 x 10^12 of Chain at Main.
    let fx = fixture();
    let bound = json!(1_000_000_000_000_i64);
    purchase(&fx.t, &fx.chain, &fx.main, "1000000000000");
    let first = fx.order(json!([line(&fx.chain, bound.clone())]));
    fx.reach(&first, "in_transit");
    purchase(&fx.t, &fx.chain, &fx.main, "1000000000000");
    let second = fx.order(json!([line(&fx.chain, bound)]));
    let before = fx.snapshot();
    let (s, v) = fx.status(&second, "in_transit");
    assert_eq!(s, Status::Conflict, "{v}");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Quantity too large") && msg.contains("SKU-C") && msg.contains("Main"),
        "{msg}"
    );
    assert_eq!(fx.snapshot(), before);
    assert_eq!(
        qty_at(&fx.t, &fx.chain, &fx.main).to_string(),
        "1000000000000"
    );
    common::invariants::check_invariants(&fx.t);
}

#[test]
fn shipping_moves_the_stock_out_of_the_source_into_its_reservation() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(4)), line(&fx.bolt, json!(5))]));
    let (s, v) = fx.status(&o, "in_transit");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["status"], "in_transit");
    assert_eq!(v["data"]["date_completed"], Value::Null);
    assert_eq!(v["data"], fx.get(&o));

    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(6), json!(4)));
    assert_eq!(at(&fx.t, &fx.bolt, &fx.main), (json!(0), json!(5)));
    // In transit, the units are in no location and not in stock_qty (docs/ledger.md#invariants).
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(6));
    assert_eq!(get_product(&fx.t, &fx.bolt)["stock_qty"], json!(0));
    assert_eq!(level(&fx.t, &fx.anvil, &fx.shop), None);
    let last = ledger(&fx.t, &fx.anvil).pop().unwrap();
    assert_eq!(
        last,
        (
            "transfer_out".to_owned(),
            "-4".to_owned(),
            Some(fx.main.clone()),
            Some("TO-001".to_owned())
        )
    );
}

#[test]
fn shipping_sums_the_lines_of_one_product() {
    let fx = fixture();
    let o = fx.order(json!([
        line(&fx.anvil, json!(6)),
        line(&fx.anvil, json!(5))
    ]));
    let before = fx.snapshot();
    let msg = assert_error(&fx.status(&o, "in_transit"), Status::Conflict);
    assert!(
        msg.contains("Insufficient stock at Main: SKU-A needs 11, has 10"),
        "{msg}"
    );
    assert_eq!(fx.snapshot(), before);

    purchase(&fx.t, &fx.anvil, &fx.main, "1");
    let (s, v) = fx.status(&o, "in_transit");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(0), json!(11)));
    let outs: Vec<_> = ledger(&fx.t, &fx.anvil)
        .into_iter()
        .filter(|m| m.0 == "transfer_out")
        .map(|m| m.1)
        .collect();
    assert_eq!(outs, ["-6", "-5"]);
}

#[test]
fn shipping_without_enough_stock_for_every_product_changes_nothing() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(3)), line(&fx.bolt, json!(6))]));
    let before = fx.snapshot();
    let msg = assert_error(&fx.status(&o, "in_transit"), Status::Conflict);
    assert!(
        msg.contains("Main") && msg.contains("SKU-B needs 6, has 5"),
        "{msg}"
    );
    assert!(msg.contains("TO-001"), "{msg}");
    assert_eq!(fx.snapshot(), before);
    assert_eq!(fx.get(&o)["status"], "draft");

    // A product never stocked at the source: it has 0 there.
    let o2 = fx.order(json!([line(&fx.chain, json!(1))]));
    let msg = assert_error(&fx.status(&o2, "in_transit"), Status::Conflict);
    assert!(msg.contains("SKU-C needs 1, has 0"), "{msg}");
}

#[test]
fn shipping_needs_both_locations_active() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(1))]));
    deactivate_location(&fx.t, &fx.shop);
    let before = fx.snapshot();
    let msg = assert_error(&fx.status(&o, "in_transit"), Status::Conflict);
    assert!(msg.contains("Shop") && msg.contains("inactive"), "{msg}");
    assert_eq!(fx.snapshot(), before);

    let r = fx.t.put(
        "/api/warehouse-locations",
        json!({"id": fx.shop, "status": "active"}),
    );
    assert_eq!(r.0, Status::Ok);
    deactivate_location(&fx.t, &fx.main);
    let msg = assert_error(&fx.status(&o, "in_transit"), Status::Conflict);
    assert!(msg.contains("Main"), "{msg}");
    assert_eq!(fx.get(&o)["status"], "draft");
}

// --- receive ------------------------------------------------------------------------------

#[test]
fn receiving_puts_the_stock_at_the_destination_and_releases_the_reservation() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(4)), line(&fx.bolt, json!(2))]));
    fx.reach(&o, "in_transit");
    let (s, v) = fx.status(&o, "completed");
    assert_eq!(s, Status::Ok, "{v}");
    let done = &v["data"];
    assert_eq!(done["status"], "completed");
    assert!(
        done["date_completed"].as_str().unwrap().ends_with('Z'),
        "{done}"
    );
    for l in done["lines"].as_array().unwrap() {
        assert_eq!(l["received_quantity"], l["quantity"], "{l}");
    }
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(6), json!(0)));
    assert_eq!(at(&fx.t, &fx.anvil, &fx.shop), (json!(4), json!(0)));
    assert_eq!(at(&fx.t, &fx.bolt, &fx.shop), (json!(2), json!(0)));
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(10));
    assert_eq!(get_product(&fx.t, &fx.bolt)["stock_qty"], json!(5));
    let last = ledger(&fx.t, &fx.anvil).pop().unwrap();
    assert_eq!(
        last,
        (
            "transfer_in".to_owned(),
            "4".to_owned(),
            Some(fx.shop.clone()),
            Some("TO-001".to_owned())
        )
    );
}

#[test]
fn a_short_receipt_delivers_only_what_arrived() {
    let fx = fixture();
    let o = fx.order(json!([
        line(&fx.anvil, json!(10)),
        line(&fx.bolt, json!(3))
    ]));
    let o = fx.reach(&o, "in_transit");
    let (anvil_line, bolt_line) = (&o["lines"][0]["id"], &o["lines"][1]["id"]);
    let (s, v) = fx.put(json!({
        "id": o["id"], "status": "completed",
        "lines": [{"id": anvil_line, "received_quantity": 7}, {"id": bolt_line, "received_quantity": 0}],
    }));
    assert_eq!(s, Status::Ok, "{v}");
    let lines = &v["data"]["lines"];
    assert_eq!(lines[0]["quantity"], json!(10));
    assert_eq!(lines[0]["received_quantity"], json!(7));
    assert_eq!(lines[1]["received_quantity"], json!(0));
    assert_eq!(at(&fx.t, &fx.anvil, &fx.shop), (json!(7), json!(0)));
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(0), json!(0)));
    assert_eq!(
        level(&fx.t, &fx.bolt, &fx.shop),
        None,
        "nothing of Bolt arrived"
    );
    assert_eq!(at(&fx.t, &fx.bolt, &fx.main), (json!(2), json!(0)));
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(7));
    assert_eq!(get_product(&fx.t, &fx.bolt)["stock_qty"], json!(2));
    let ins: Vec<_> = ledger(&fx.t, &fx.anvil)
        .into_iter()
        .filter(|m| m.0 == "transfer_in")
        .map(|m| m.1)
        .collect();
    assert_eq!(ins, ["7"]);
    assert!(ledger(&fx.t, &fx.bolt).iter().all(|m| m.0 != "transfer_in"));
}

#[test]
fn an_order_of_ten_thousand_lines_ships_and_is_received_short_line_by_line() {
    // The most lines a document may have (docs/limits.md#lists): receipts are matched to
    // their lines through an index, so this is one pass over the lines, not 10^8 steps.
    let fx = fixture();
    purchase(&fx.t, &fx.anvil, &fx.main, "9990");
    purchase(&fx.t, &fx.bolt, &fx.main, "4995");
    let lines: Vec<Value> = (0..10_000)
        .map(|i| line(if i % 2 == 0 { &fx.anvil } else { &fx.bolt }, json!(1)))
        .collect();
    let o = fx.order(Value::Array(lines));
    let o = fx.reach(&o, "in_transit");
    let stored = o["lines"].as_array().unwrap();
    assert_eq!(stored.len(), 10_000);
    // Every third line arrives empty; the rest in full.
    let receipts: Vec<Value> = stored
        .iter()
        .enumerate()
        .map(|(i, l)| json!({"id": l["id"], "received_quantity": if i % 3 == 0 { 0 } else { 1 }}))
        .collect();
    let (s, v) = fx.put(json!({"id": o["id"], "status": "completed", "lines": receipts}));
    assert_eq!(
        s,
        Status::Ok,
        "{}",
        &v.to_string()[..200.min(v.to_string().len())]
    );
    let empty_anvil = (0..10_000).filter(|i| i % 2 == 0 && i % 3 == 0).count();
    let empty_bolt = (0..10_000).filter(|i| i % 2 == 1 && i % 3 == 0).count();
    assert_eq!(
        at(&fx.t, &fx.anvil, &fx.shop).0,
        json!(5000 - empty_anvil),
        "Anvil received"
    );
    assert_eq!(at(&fx.t, &fx.bolt, &fx.shop).0, json!(5000 - empty_bolt));
    assert_eq!(
        get_product(&fx.t, &fx.anvil)["stock_qty"],
        json!(10_000 - empty_anvil),
        "what did not arrive left the books with the shortfall"
    );
}

#[test]
fn a_receipt_outside_zero_to_the_line_quantity_or_for_another_line_is_refused() {
    let fx = fixture();
    let o = fx.reach(&fx.order(json!([line(&fx.anvil, json!(4))])), "in_transit");
    let other = fx.order(json!([line(&fx.anvil, json!(1))]));
    let line_id = &o["lines"][0]["id"];
    let before = fx.snapshot();
    for (received, field) in [
        (json!(5), "lines[0].received_quantity"),
        (json!(-1), "lines[0].received_quantity"),
        (Value::Null, "lines[0].received_quantity"),
    ] {
        let r = fx.put(json!({"id": o["id"], "status": "completed",
                              "lines": [{"id": line_id, "received_quantity": received}]}));
        assert!(assert_error(&r, Status::BadRequest).contains(field));
    }
    let r = fx.put(json!({"id": o["id"], "status": "completed",
                          "lines": [{"id": other["lines"][0]["id"], "received_quantity": 1}]}));
    assert!(assert_error(&r, Status::BadRequest).contains("lines[0].id"));
    let r = fx.put(json!({"id": o["id"], "status": "completed",
                          "lines": [{"id": "x", "received_quantity": 1}]}));
    assert!(assert_error(&r, Status::BadRequest).contains("lines[0].id"));
    assert_eq!(fx.snapshot(), before);
    assert_eq!(fx.get(&o)["status"], "in_transit");
}

#[test]
fn an_order_in_transit_completes_at_a_location_deactivated_meanwhile() {
    let fx = fixture();
    let o = fx.reach(&fx.order(json!([line(&fx.anvil, json!(4))])), "in_transit");
    deactivate_location(&fx.t, &fx.shop);
    deactivate_location(&fx.t, &fx.main);
    deactivate_product(&fx.t, &fx.anvil);
    let (s, v) = fx.status(&o, "completed");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.shop), (json!(4), json!(0)));
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(6), json!(0)));
}

// --- cancel -------------------------------------------------------------------------------

#[test]
fn cancelling_a_draft_has_no_stock_effect() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(4))]));
    let moves = ledger(&fx.t, &fx.anvil).len();
    let (s, v) = fx.status(&o, "cancelled");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["status"], "cancelled");
    assert_eq!(v["data"]["date_completed"], Value::Null);
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(10), json!(0)));
    assert_eq!(ledger(&fx.t, &fx.anvil).len(), moves);
}

#[test]
fn cancelling_in_transit_returns_the_stock_to_the_source() {
    let fx = fixture();
    let o = fx.order(json!([
        line(&fx.anvil, json!(4)),
        line(&fx.anvil, json!(1))
    ]));
    fx.reach(&o, "in_transit");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(5), json!(5)));
    deactivate_location(&fx.t, &fx.main);
    let (s, v) = fx.status(&o, "cancelled");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["status"], "cancelled");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(10), json!(0)));
    assert_eq!(get_product(&fx.t, &fx.anvil)["stock_qty"], json!(10));
    assert_eq!(level(&fx.t, &fx.anvil, &fx.shop), None);
    let back: Vec<_> = ledger(&fx.t, &fx.anvil)
        .into_iter()
        .filter(|m| m.0 == "transfer_cancelled")
        .map(|m| (m.1, m.2.unwrap(), m.3.unwrap()))
        .collect();
    assert_eq!(
        back,
        [
            ("4".to_owned(), fx.main.clone(), "TO-001".to_owned()),
            ("1".to_owned(), fx.main.clone(), "TO-001".to_owned())
        ]
    );
}

#[test]
fn a_completed_order_cannot_be_cancelled() {
    let fx = fixture();
    let o = fx.reach(&fx.order(json!([line(&fx.anvil, json!(4))])), "completed");
    let before = fx.snapshot();
    let msg = assert_error(&fx.status(&o, "cancelled"), Status::Conflict);
    assert!(msg.contains("TO-001") && msg.contains("completed"), "{msg}");
    assert_eq!(fx.snapshot(), before);
}

#[test]
fn transitions_outside_the_table_are_refused() {
    let fx = fixture();
    let refused = [
        ("draft", "completed"),
        ("in_transit", "in_transit"),
        ("completed", "in_transit"),
        ("completed", "completed"),
        ("cancelled", "in_transit"),
        ("cancelled", "completed"),
        ("cancelled", "cancelled"),
    ];
    for (from, to) in refused {
        let o = fx.reach(&fx.order(json!([line(&fx.anvil, json!(1))])), from);
        let before = fx.snapshot();
        let msg = assert_error(&fx.status(&o, to), Status::Conflict);
        assert!(
            msg.contains(&o["number"].as_str().unwrap().to_owned()),
            "{msg}"
        );
        assert_eq!(fx.snapshot(), before, "{from} -> {to}");
    }
}

#[test]
fn a_status_outside_the_put_values_is_400() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(1))]));
    for bad in ["draft", "shipped", ""] {
        let msg = assert_error(&fx.status(&o, bad), Status::BadRequest);
        assert!(msg.contains("status"), "{msg}");
    }
    assert_error(
        &fx.put(json!({"id": o["id"], "status": 3})),
        Status::BadRequest,
    );
    assert_eq!(fx.get(&o)["status"], "draft");
}

// --- edit and delete ----------------------------------------------------------------------

#[test]
fn lines_and_notes_change_only_while_draft() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(1))]));
    let (s, v) = fx.put(json!({"id": o["id"], "notes": "for the shop",
                               "lines": [line(&fx.bolt, json!(2)), line(&fx.anvil, json!(3))]}));
    assert_eq!(s, Status::Ok, "{v}");
    let d = &v["data"];
    assert_eq!(d["notes"], "for the shop");
    assert_eq!(d["lines"].as_array().unwrap().len(), 2);
    assert_eq!(d["lines"][0]["product_id"]["sku"], "SKU-B");
    assert_eq!(d["lines"][1]["quantity"], json!(3));
    assert_eq!(d["number"], "TO-001");

    // Lines and status together: the new lines are what ships.
    let (s, v) = fx.put(json!({"id": o["id"], "status": "in_transit",
                               "lines": [line(&fx.anvil, json!(2))]}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(at(&fx.t, &fx.anvil, &fx.main), (json!(8), json!(2)));
    assert_eq!(at(&fx.t, &fx.bolt, &fx.main), (json!(5), json!(0)));

    let before = fx.snapshot();
    let r = fx.put(json!({"id": o["id"], "lines": [line(&fx.anvil, json!(1))]}));
    assert!(assert_error(&r, Status::Conflict).contains("draft"));
    let r = fx.put(json!({"id": o["id"], "notes": "changed"}));
    assert!(assert_error(&r, Status::Conflict).contains("draft"));
    // Sending the notes unchanged is not a change.
    let (s, _) = fx.put(json!({"id": o["id"], "notes": "for the shop"}));
    assert_eq!(s, Status::Ok);
    assert_eq!(fx.snapshot(), before);
}

#[test]
fn replacing_lines_checks_them_like_a_create() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(1))]));
    deactivate_product(&fx.t, &fx.chain);
    let before = fx.snapshot();
    let r = fx.put(json!({"id": o["id"], "lines": [line(&fx.chain, json!(1))]}));
    assert!(assert_error(&r, Status::BadRequest).contains("SKU-C"));
    let r = fx.put(json!({"id": o["id"], "lines": [line(&fx.anvil, json!(0))]}));
    assert!(assert_error(&r, Status::BadRequest).contains("lines[0].quantity"));
    let r = fx.put(json!({"id": o["id"], "lines": [{"quantity": 1}]}));
    assert!(assert_error(&r, Status::BadRequest).contains("lines[0].product_id"));
    let r = fx.put(json!({"id": o["id"], "lines": []}));
    assert_error(&r, Status::Conflict);
    let r = fx.put(json!({"id": o["id"], "notes": "x", "lines": [line(&uuid::Uuid::new_v4().to_string(), json!(1))]}));
    assert_error(&r, Status::NotFound);
    assert_eq!(fx.snapshot(), before);
}

#[test]
fn only_a_draft_can_be_deleted() {
    let fx = fixture();
    for state in ["in_transit", "completed", "cancelled"] {
        let o = fx.reach(&fx.order(json!([line(&fx.anvil, json!(1))])), state);
        let msg = assert_error(
            &fx.t.delete("/api/transfer-orders", json!({"id": o["id"]})),
            Status::Conflict,
        );
        assert!(msg.contains(state), "{msg}");
    }
    let o = fx.order(json!([line(&fx.anvil, json!(1))]));
    let (s, v) = fx.t.delete("/api/transfer-orders", json!({"id": o["id"]}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"], json!({"success": true}));
    assert!(fx.orders().iter().all(|x| x["id"] != o["id"]));
    let lines: i64 =
        fx.t.db
            .read_sync(|c| {
                Ok(c.query_row(
                    "SELECT COUNT(*) FROM transfer_order_lines tl
                 LEFT JOIN transfer_orders o ON o.id = tl.order_id WHERE o.id IS NULL",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
    assert_eq!(lines, 0, "the lines go with the order");
    assert_error(
        &fx.t.delete("/api/transfer-orders", json!({"id": o["id"]})),
        Status::NotFound,
    );
}

#[test]
fn a_product_on_transfer_lines_cannot_be_deleted() {
    let fx = fixture();
    fx.order(json!([line(&fx.chain, json!(1))]));
    let r = fx.t.delete("/api/products", json!({"id": fx.chain}));
    assert_error(&r, Status::Conflict);
}

// --- list and ownership -------------------------------------------------------------------

#[test]
fn the_list_is_newest_first_filtered_by_entity_and_paged() {
    let fx = fixture();
    for _ in 0..3 {
        fx.order(json!([line(&fx.anvil, json!(1))]));
    }
    let e2 = fx.t.entity("Other Ltd");
    let (x, y, p) = (
        location(&fx.t, &e2, "X"),
        location(&fx.t, &e2, "Y"),
        product(&fx.t, &e2, "Pin"),
    );
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": x, "destination_location_id": y, "lines": [line(&p, json!(1))]}),
    );
    assert_eq!(r.0, Status::Created);

    let numbers = |path: &str| -> Vec<String> {
        let (s, v) = fx.t.get(path);
        assert_eq!(s, Status::Ok, "{v}");
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["number"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        numbers(&format!("/api/transfer-orders?entityId={}", fx.e)),
        ["TO-003", "TO-002", "TO-001"]
    );
    assert_eq!(numbers("/api/transfer-orders").len(), 4);
    assert_eq!(
        numbers(&format!(
            "/api/transfer-orders?entityId={}&limit=1&offset=1",
            fx.e
        )),
        ["TO-002"]
    );
    assert_error(
        &fx.t.get("/api/transfer-orders?entityId=nope"),
        Status::BadRequest,
    );
    assert_error(
        &fx.t.get(&format!(
            "/api/transfer-orders?entityId={}",
            uuid::Uuid::new_v4()
        )),
        Status::NotFound,
    );
    assert_error(
        &fx.t.get("/api/transfer-orders?limit=0"),
        Status::BadRequest,
    );
}

/// docs/documents.md#lists: `id` reads one order; `lines=false` lists them without their
/// lines, with their line count and total quantity.
#[test]
fn one_order_is_read_by_id_and_a_list_can_leave_the_lines_out() {
    let fx = fixture();
    let first = fx.order(json!([
        line(&fx.anvil, json!(2.5)),
        line(&fx.bolt, json!(1))
    ]));
    let second = fx.order(json!([line(&fx.bolt, json!(3))]));
    assert_eq!(
        (first["line_count"].clone(), first["total_quantity"].clone()),
        (json!(2), json!(3.5))
    );
    let list = |query: &str| -> Vec<Value> {
        let (s, v) = fx.t.get(&format!("/api/transfer-orders?{query}"));
        assert_eq!(s, Status::Ok, "{query}: {v}");
        v["data"].as_array().unwrap().clone()
    };
    let first_id = first["id"].as_str().unwrap();

    let one = list(&format!("id={first_id}"));
    assert_eq!(one, vec![fx.get(&first)]);
    assert_eq!(one[0]["lines"].as_array().unwrap().len(), 2);

    let heads = list("lines=false");
    assert_eq!(heads.len(), 2);
    for (head, whole) in heads.iter().zip(&fx.orders()) {
        assert!(head.get("lines").is_none(), "{head}");
        let mut whole = whole.clone();
        whole.as_object_mut().unwrap().remove("lines");
        assert_eq!(head, &whole);
    }
    assert_eq!(heads[0]["id"], second["id"]);
    assert_eq!(
        (
            heads[0]["line_count"].clone(),
            heads[0]["total_quantity"].clone()
        ),
        (json!(1), json!(3))
    );
    assert_eq!(
        (
            heads[1]["line_count"].clone(),
            heads[1]["total_quantity"].clone()
        ),
        (json!(2), json!(3.5))
    );
    let both = list(&format!("id={first_id}&lines=false&entityId={}", fx.e));
    assert_eq!(both.len(), 1);
    assert!(both[0].get("lines").is_none());

    assert_eq!(
        list(&format!("id={}", uuid::Uuid::new_v4())),
        Vec::<Value>::new()
    );
    for (query, field) in [("id=TO-001", "id"), ("lines=no", "lines")] {
        let m = assert_error(
            &fx.t.get(&format!("/api/transfer-orders?{query}")),
            Status::BadRequest,
        );
        assert!(m.contains(field), "{query}: {m}");
    }
    fx.t.signup("intruder@example.com");
    assert_eq!(list(&format!("id={first_id}")), Vec::<Value>::new());
}

#[test]
fn another_users_order_is_not_found() {
    let fx = fixture();
    let o = fx.order(json!([line(&fx.anvil, json!(1))]));
    fx.t.signup("intruder@example.com");
    assert_error(&fx.status(&o, "in_transit"), Status::NotFound);
    assert_error(
        &fx.t.delete("/api/transfer-orders", json!({"id": o["id"]})),
        Status::NotFound,
    );
    let (s, v) = fx.t.get("/api/transfer-orders");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"], json!([]));
    assert_error(
        &fx.t.get(&format!("/api/transfer-orders?entityId={}", fx.e)),
        Status::NotFound,
    );
    // A foreign location is 404 too.
    fx.t.entity("Mine Ltd");
    let r = fx.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": fx.main, "destination_location_id": fx.shop,
               "lines": [line(&fx.anvil, json!(1))]}),
    );
    assert_error(&r, Status::NotFound);
}

#[test]
fn the_session_is_required() {
    let fx = fixture();
    *fx.t.session.borrow_mut() = None;
    assert_error(&fx.t.get("/api/transfer-orders"), Status::Unauthorized);
    assert_error(
        &fx.create(json!([line(&fx.anvil, json!(1))])),
        Status::Unauthorized,
    );
}
