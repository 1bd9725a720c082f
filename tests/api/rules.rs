//! The inventory rules called directly, without HTTP: each test opens an in-memory
//! database the way the app does (`Db::open`, every migration), calls the domain
//! functions inside a `BEGIN IMMEDIATE` transaction (`Db::write_sync`), and checks the
//! result. Every refused call is checked to have changed nothing: the whole database is
//! read before and after it.

use rusqlite::types::Value;
use rusqlite::Transaction;
use serde::de::DeserializeOwned;
use serde_json::json;
use time::OffsetDateTime;

use stockbook::config::Synchronous;
use stockbook::ctx::Ctx;
use stockbook::db::decimal::Qty;
use stockbook::db::Db;
use stockbook::entities::{self, EntityUpdate};
use stockbook::error::{AppError, AppResult};
use stockbook::http::paging::Page;
use stockbook::inventory::documents;
use stockbook::inventory::locations::{self, Location, LocationUpdate};
use stockbook::inventory::products::{self, Product};
use stockbook::inventory::stock::{self, UpsertBody};
use stockbook::inventory::stock_rows::StockRow;
use stockbook::inventory::stock_takes::{self, StockTake, StockTakeStatus};
use stockbook::inventory::transfers::{self, TransferOrder, TransferStatus};
use stockbook::scope::Scope;

const OWNER: &str = "6f1c2a58-0000-4000-8000-000000000001";

/// A user with one entity, two active locations and a product holding 10 at the first.
struct World {
    db: Db,
    scope: Scope,
    ctx: Ctx,
    entity: String,
    a: Location,
    b: Location,
    product: Product,
}

/// A request body as a client would send it.
fn body<T: DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).expect("a valid body")
}

fn qty(n: i64) -> Qty {
    Qty::from_i64(n)
}

impl World {
    fn new() -> Self {
        let db = Db::open(":memory:", Synchronous::Full).expect("in-memory database");
        let scope = Scope::user(OWNER);
        let ctx = Ctx::at(OffsetDateTime::now_utc(), false);
        let (entity, a, b, product) = db
            .write_sync(|tx| {
                tx.execute(
                    "INSERT INTO users (id, email, name, password_hash, created_at)
                     VALUES (?1, 'owner@example.com', 'Owner', 'x', ?2)",
                    [OWNER, &ctx.now],
                )?;
                let e =
                    entities::create_entity(tx, OWNER, body(json!({"name": "Acme Ltd"})), &ctx)?;
                let location = |name: &str| {
                    locations::create_location(
                        tx,
                        &scope,
                        body(json!({"name": name, "entity_id": e.id})),
                        &ctx,
                    )
                };
                let (a, b) = (location("Main")?, location("Shop")?);
                let p = products::create_product(
                    tx,
                    &scope,
                    body(json!({"name": "Widget", "sku": "W-1", "entity_id": e.id})),
                    &ctx,
                )?;
                stock::upsert_stock(
                    tx,
                    &scope,
                    body(json!({"product_id": p.id, "location_id": a.id, "quantity": 10})),
                    &ctx,
                )?;
                Ok((e.id, a, b, p))
            })
            .expect("set-up");
        Self {
            db,
            scope,
            ctx,
            entity,
            a,
            b,
            product,
        }
    }

    /// Runs `f` as one write, as a request does.
    fn write<T>(&self, f: impl FnOnce(&Transaction, &Scope, &Ctx) -> AppResult<T>) -> T {
        self.db
            .write_sync(|tx| f(tx, &self.scope, &self.ctx))
            .unwrap_or_else(|e| panic!("refused: {e}"))
    }

    /// Runs `f` as one write that must be refused with `status`; the database must be
    /// exactly as before. Returns the message.
    fn refused<T: std::fmt::Debug>(
        &self,
        status: u16,
        f: impl FnOnce(&Transaction, &Scope, &Ctx) -> AppResult<T>,
    ) -> String {
        let before = self.dump();
        let e: AppError = self
            .db
            .write_sync(|tx| f(tx, &self.scope, &self.ctx))
            .expect_err("the call should be refused");
        assert_eq!(e.status().code, status, "{e}");
        assert_eq!(
            self.dump(),
            before,
            "a refused call changed the database: {e}"
        );
        e.to_string()
    }

    /// Every row of every table, in order: what "changed nothing" is checked against.
    fn dump(&self) -> Vec<(String, Vec<Vec<Value>>)> {
        self.db
            .read_sync(|conn| {
                let mut stmt = conn.prepare(
                    "SELECT name FROM sqlite_master WHERE type = 'table'
                     AND name NOT LIKE 'sqlite_%' ORDER BY name",
                )?;
                let tables = stmt
                    .query_map([], |r| r.get::<_, String>(0))?
                    .collect::<Result<Vec<_>, _>>()?;
                let mut out = Vec::new();
                for t in tables {
                    // Virtual tables' shadow tables come with their table.
                    if t.starts_with("products_search_") {
                        continue;
                    }
                    let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\""))?;
                    let n = stmt.column_count();
                    let mut rows = stmt
                        .query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())?
                        .collect::<Result<Vec<Vec<Value>>, _>>()?;
                    rows.sort_by(|x, y| format!("{x:?}").cmp(&format!("{y:?}")));
                    out.push((t, rows));
                }
                Ok(out)
            })
            .expect("dump")
    }

    fn stock_at(&self, loc: &Location) -> StockRow {
        self.db
            .read_sync(|conn| {
                stock::list_stock(
                    conn,
                    &self.scope,
                    &stock::StockFilter {
                        product_id: Some(self.product.id.clone()),
                        location_id: Some(loc.id.clone()),
                        ..Default::default()
                    },
                )
            })
            .expect("stock rows")
            .pop()
            .expect("a stock row")
    }

    fn product_qty(&self) -> Qty {
        self.db
            .read_sync(|conn| products::get_product(conn, &self.scope, &self.product.id))
            .expect("product")
            .stock_qty
    }

    /// A draft transfer of `n` units from A to B.
    fn transfer(&self, n: i64) -> TransferOrder {
        self.write(|tx, scope, ctx| {
            transfers::create_transfer(
                tx,
                scope,
                body(json!({
                    "source_location_id": self.a.id,
                    "destination_location_id": self.b.id,
                    "lines": [{"product_id": self.product.id, "quantity": n}],
                })),
                ctx,
            )
        })
    }

    fn set_transfer(&self, id: &str, v: serde_json::Value) -> AppResult<TransferOrder> {
        let mut v = v;
        v["id"] = json!(id);
        self.db
            .write_sync(|tx| transfers::update_transfer(tx, &self.scope, body(v), &self.ctx))
    }
}

#[test]
fn a_transfer_is_created_as_a_numbered_draft_with_its_lines() {
    let w = World::new();
    let t = w.transfer(4);
    assert_eq!(t.status, TransferStatus::Draft);
    assert_eq!(t.number, "TO-001");
    assert_eq!(t.entity_id, w.entity);
    assert_eq!(t.lines().len(), 1);
    assert_eq!(t.lines()[0].quantity, qty(4));
    assert_eq!(w.transfer(1).number, "TO-002");
    let listed: Vec<TransferOrder> =
        w.db.read_sync(|conn| {
            documents::list(
                conn,
                &w.scope,
                &documents::ListOptions::default(),
                Page {
                    limit: None,
                    offset: 0,
                },
            )
        })
        .unwrap();
    assert_eq!(
        listed.iter().map(|t| t.number.as_str()).collect::<Vec<_>>(),
        ["TO-002", "TO-001"]
    );
    assert_eq!(w.stock_at(&w.a).quantity, qty(10), "a draft moves nothing");
}

#[test]
fn a_transfer_without_lines_or_to_its_own_source_is_refused() {
    let w = World::new();
    w.refused(409, |tx, scope, ctx| {
        transfers::create_transfer(
            tx,
            scope,
            body(json!({
                "source_location_id": w.a.id,
                "destination_location_id": w.a.id,
                "lines": [{"product_id": w.product.id, "quantity": 1}],
            })),
            ctx,
        )
    });
    // Omitted lines are a missing field (400); an empty list is the business refusal.
    let msg = w.refused(400, |tx, scope, ctx| {
        transfers::create_transfer(
            tx,
            scope,
            body(json!({"source_location_id": w.a.id, "destination_location_id": w.b.id})),
            ctx,
        )
    });
    assert_eq!(msg, "Missing required field: lines");
    w.refused(409, |tx, scope, ctx| {
        transfers::create_transfer(
            tx,
            scope,
            body(json!({"source_location_id": w.a.id, "destination_location_id": w.b.id, "lines": []})),
            ctx,
        )
    });
}

#[test]
fn shipping_takes_the_units_out_of_the_source_and_receiving_puts_them_in_the_destination() {
    let w = World::new();
    let t = w.transfer(4);
    let t = w
        .set_transfer(&t.id, json!({"status": "in_transit"}))
        .unwrap();
    assert_eq!(t.status, TransferStatus::InTransit);
    let src = w.stock_at(&w.a);
    assert_eq!(src.quantity, qty(6));
    assert_eq!(src.reserved_quantity, qty(4));
    assert_eq!(w.product_qty(), qty(6), "in transit is in no location");

    let t = w
        .set_transfer(&t.id, json!({"status": "completed"}))
        .unwrap();
    assert_eq!(t.status, TransferStatus::Completed);
    assert!(t.date_completed.is_some());
    assert_eq!(t.lines()[0].received_quantity, qty(4));
    assert_eq!(w.stock_at(&w.a).reserved_quantity, qty(0));
    assert_eq!(w.stock_at(&w.b).quantity, qty(4));
    assert_eq!(w.product_qty(), qty(10));
}

#[test]
fn a_short_receipt_puts_only_what_arrived_into_the_destination() {
    let w = World::new();
    let t = w.transfer(4);
    w.set_transfer(&t.id, json!({"status": "in_transit"}))
        .unwrap();
    let line = &t.lines()[0].id;
    let too_many = w.refused(400, |tx, scope, ctx| {
        transfers::update_transfer(
            tx,
            scope,
            body(json!({"id": t.id, "status": "completed",
                        "lines": [{"id": line, "received_quantity": 5}]})),
            ctx,
        )
    });
    assert!(
        too_many.contains("lines[0].received_quantity"),
        "{too_many}"
    );

    let t = w
        .set_transfer(
            &t.id,
            json!({"status": "completed", "lines": [{"id": line, "received_quantity": 3}]}),
        )
        .unwrap();
    assert_eq!(t.lines()[0].quantity, qty(4));
    assert_eq!(t.lines()[0].received_quantity, qty(3));
    assert_eq!(w.stock_at(&w.b).quantity, qty(3));
    let src = w.stock_at(&w.a);
    assert_eq!((src.quantity, src.reserved_quantity), (qty(6), qty(0)));
    assert_eq!(w.product_qty(), qty(9), "the shortfall is gone");
}

#[test]
fn cancelling_in_transit_gives_the_units_back_to_the_source() {
    let w = World::new();
    let t = w.transfer(4);
    w.set_transfer(&t.id, json!({"status": "in_transit"}))
        .unwrap();
    let t = w
        .set_transfer(&t.id, json!({"status": "cancelled"}))
        .unwrap();
    assert_eq!(t.status, TransferStatus::Cancelled);
    let src = w.stock_at(&w.a);
    assert_eq!((src.quantity, src.reserved_quantity), (qty(10), qty(0)));
    assert_eq!(w.product_qty(), qty(10));
}

#[test]
fn transitions_the_table_does_not_allow_are_refused_and_change_nothing() {
    let w = World::new();
    let update = |t: &TransferOrder, v: serde_json::Value| {
        let mut v = v;
        v["id"] = json!(t.id);
        move |tx: &Transaction, scope: &Scope, ctx: &Ctx| {
            transfers::update_transfer(tx, scope, body(v), ctx)
        }
    };
    let t = w.transfer(4);
    let msg = w.refused(409, update(&t, json!({"status": "completed"})));
    assert!(msg.contains("cannot go from draft to completed"), "{msg}");
    w.refused(400, update(&t, json!({"status": "draft"})));

    // Shipping needs the stock at the source, whatever else the PUT changes.
    let big = w.transfer(11);
    let msg = w.refused(
        409,
        update(&big, json!({"notes": "urgent", "status": "in_transit"})),
    );
    assert!(msg.contains("Insufficient stock at Main"), "{msg}");

    w.set_transfer(&t.id, json!({"status": "in_transit"}))
        .unwrap();
    let msg = w.refused(409, update(&t, json!({"notes": "late"})));
    assert!(msg.contains("only be changed while draft"), "{msg}");
    w.refused(409, |tx, scope, _| {
        transfers::delete_transfer(tx, scope, &t.id)
    });
    w.set_transfer(&t.id, json!({"status": "completed"}))
        .unwrap();
    let msg = w.refused(409, update(&t, json!({"status": "cancelled"})));
    assert!(msg.contains("completed and cannot be cancelled"), "{msg}");

    // A draft may be deleted, lines and all.
    w.write(|tx, scope, _| transfers::delete_transfer(tx, scope, &big.id));
    let gone =
        w.db.read_sync(|conn| documents::get::<TransferOrder>(conn, &w.scope, &big.id))
            .unwrap_err();
    assert_eq!(gone.status().code, 404);
}

#[test]
fn a_stock_take_counts_and_completes_to_the_counted_quantity() {
    let w = World::new();
    let st: StockTake = w.write(|tx, scope, ctx| {
        stock_takes::create_stock_take(
            tx,
            scope,
            body(json!({"location_id": w.a.id, "entity_id": w.entity})),
            ctx,
        )
    });
    assert_eq!(
        (st.number.as_str(), st.status),
        ("ST-001", StockTakeStatus::Draft)
    );
    assert_eq!(st.lines().len(), 1);
    assert_eq!(st.lines()[0].system_quantity, qty(10));
    let line = st.lines()[0].id.clone();
    let put = |v: serde_json::Value| {
        let mut v = v;
        v["id"] = json!(st.id);
        move |tx: &Transaction, scope: &Scope, ctx: &Ctx| {
            stock_takes::update_stock_take(tx, scope, body(v), ctx)
        }
    };

    // A draft cannot complete, and the refusal keeps none of the PUT's counts.
    let msg = w.refused(
        409,
        put(json!({"status": "completed", "lines": [{"id": line, "counted_quantity": 7}]})),
    );
    assert!(msg.contains("is a draft"), "{msg}");
    w.refused(
        400,
        put(json!({"lines": [{"id": line, "counted_quantity": -1}]})),
    );

    let st = w.write(put(
        json!({"status": "in_progress", "lines": [{"id": line, "counted_quantity": 7}]}),
    ));
    assert_eq!(st.status, StockTakeStatus::InProgress);
    assert_eq!(st.lines()[0].variance, Some(qty(-3)));
    assert_eq!(w.stock_at(&w.a).quantity, qty(10), "counting moves nothing");

    let st = w.write(put(json!({"status": "completed"})));
    assert_eq!(st.status, StockTakeStatus::Completed);
    assert_eq!(w.stock_at(&w.a).quantity, qty(7));
    assert_eq!(w.product_qty(), qty(7));

    let msg = w.refused(
        409,
        put(json!({"lines": [{"id": line, "counted_quantity": 8}]})),
    );
    assert!(msg.contains("counts can no longer be entered"), "{msg}");
    w.refused(409, |tx, scope, _| {
        stock_takes::delete_stock_take(tx, scope, &st.id)
    });
}

#[test]
fn a_product_with_movements_cannot_be_deleted_but_one_without_can() {
    let w = World::new();
    let msg = w.refused(409, |tx, scope, _| {
        products::delete_product(tx, scope, &w.product.id)
    });
    assert!(msg.contains("has stock movements"), "{msg}");

    let fresh = w.write(|tx, scope, ctx| {
        let p = products::create_product(
            tx,
            scope,
            body(json!({"name": "Gadget", "entity_id": w.entity})),
            ctx,
        )?;
        // An empty stock row does not keep it.
        stock::upsert_stock(
            tx,
            scope,
            body::<UpsertBody>(json!({"product_id": p.id, "location_id": w.b.id})),
            ctx,
        )?;
        Ok(p)
    });
    w.write(|tx, scope, _| products::delete_product(tx, scope, &fresh.id));
    let gone =
        w.db.read_sync(|conn| products::get_product(conn, &w.scope, &fresh.id))
            .unwrap_err();
    assert_eq!(gone.status().code, 404);
}

#[test]
fn a_deactivated_location_keeps_its_stock_and_takes_no_new_documents() {
    let w = World::new();
    let update = |v: serde_json::Value| {
        move |tx: &Transaction, scope: &Scope, ctx: &Ctx| {
            locations::update_location(tx, scope, body::<LocationUpdate>(v), ctx)
        }
    };
    w.refused(400, update(json!({"id": w.a.id, "status": "closed"})));
    w.refused(400, update(json!({"id": w.a.id, "name": "  "})));

    let l = w.write(update(
        json!({"id": w.a.id, "status": "inactive", "address": " 1 Quay St "}),
    ));
    assert_eq!(l.status, "inactive");
    assert_eq!(l.name, "Main");
    assert_eq!(l.address.as_deref(), Some("1 Quay St"));
    assert_eq!(w.stock_at(&w.a).quantity, qty(10));

    let msg = w.refused(409, |tx, scope, ctx| {
        transfers::create_transfer(
            tx,
            scope,
            body(json!({
                "source_location_id": w.a.id,
                "destination_location_id": w.b.id,
                "lines": [{"product_id": w.product.id, "quantity": 1}],
            })),
            ctx,
        )
    });
    assert!(msg.contains("Location Main is inactive"), "{msg}");
    w.refused(409, |tx, scope, ctx| {
        stock_takes::create_stock_take(
            tx,
            scope,
            body(json!({"location_id": w.a.id, "entity_id": w.entity})),
            ctx,
        )
    });
    let msg = w.refused(409, |tx, scope, _| {
        locations::delete_location(tx, scope, &w.a.id)
    });
    assert!(msg.contains("deactivate it instead"), "{msg}");

    let l = w.write(update(
        json!({"id": w.a.id, "status": "active", "address": null}),
    ));
    assert_eq!((l.status.as_str(), l.address), ("active", None));
}

#[test]
fn an_entity_update_changes_only_the_fields_given() {
    let w = World::new();
    let update = |v: serde_json::Value| {
        move |tx: &Transaction, _: &Scope, ctx: &Ctx| {
            entities::update_entity(tx, &Scope::user(OWNER), body::<EntityUpdate>(v), ctx)
        }
    };
    let e = w.write(update(
        json!({"id": w.entity, "vat_number": "GB123456782", "address": "1 Quay St"}),
    ));
    assert_eq!(e.name, "Acme Ltd");
    assert_eq!(e.vat_number.as_deref(), Some("GB123456782"));

    let e = w.write(update(
        json!({"id": w.entity, "name": " Acme Trading ", "address": null}),
    ));
    assert_eq!(e.name, "Acme Trading");
    assert_eq!(e.vat_number.as_deref(), Some("GB123456782"));
    assert_eq!(e.address, None);

    w.refused(400, update(json!({"id": w.entity, "name": "   "})));
    w.refused(
        400,
        update(json!({"id": w.entity, "vat_number": "GB123456789"})),
    );
    w.refused(400, update(json!({"id": "not-a-uuid", "name": "X"})));
    w.refused(
        404,
        update(json!({"id": "6f1c2a58-0000-4000-8000-0000000000ff", "name": "X"})),
    );
    let msg = w.refused(409, |tx, _, _| {
        entities::delete_entity(tx, &Scope::user(OWNER), &w.entity)
    });
    assert!(msg.contains("still holds records"), "{msg}");
}
