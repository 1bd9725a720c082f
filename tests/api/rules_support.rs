//! What the rule tests of webhooks, sign-in, API keys and OAuth (`rules_webhooks`,
//! `rules_auth`) share: a fresh in-memory database opened as the app opens it, with two
//! users who own one entity each; writes run as one `BEGIN IMMEDIATE` transaction, as a
//! request's are; and refused writes checked to have changed nothing.

use rusqlite::types::Value;
use rusqlite::{Connection, Transaction};
use serde_json::json;
use time::OffsetDateTime;

use stockbook::config::Synchronous;
use stockbook::ctx::Ctx;
use stockbook::db::Db;
use stockbook::entities;
use stockbook::error::{AppError, AppResult};
use stockbook::scope::Scope;

pub const ANN: &str = "6f1c2a58-0000-4000-8000-0000000000a1";
pub const BOB: &str = "6f1c2a58-0000-4000-8000-0000000000b1";

pub struct Books {
    pub db: Db,
    pub ctx: Ctx,
    /// Ann's entity and Bob's.
    pub ann_entity: String,
    pub bob_entity: String,
}

impl Books {
    pub fn new() -> Self {
        let db = Db::open(":memory:", Synchronous::Full).expect("in-memory database");
        let ctx = Ctx::at(OffsetDateTime::now_utc(), false);
        let (ann_entity, bob_entity) = db
            .write_sync(|tx| {
                let mut ids = Vec::new();
                for (id, email) in [(ANN, "ann@example.com"), (BOB, "bob@example.com")] {
                    tx.execute(
                        "INSERT INTO users (id, email, password_hash, created_at)
                         VALUES (?1, ?2, 'x', ?3)",
                        [id, email, &ctx.now],
                    )?;
                    let body = serde_json::from_value(json!({"name": format!("{email} Ltd")}))
                        .expect("an entity body");
                    ids.push(entities::create_entity(tx, id, body, &ctx)?.id);
                }
                Ok((ids.remove(0), ids.remove(0)))
            })
            .expect("set-up");
        Self {
            db,
            ctx,
            ann_entity,
            bob_entity,
        }
    }

    pub fn ann(&self) -> Scope {
        Scope::user(ANN)
    }

    pub fn bob(&self) -> Scope {
        Scope::user(BOB)
    }

    /// Runs `f` as one write that must succeed.
    pub fn write<T>(&self, f: impl FnOnce(&Transaction) -> AppResult<T>) -> T {
        self.db
            .write_sync(f)
            .unwrap_or_else(|e| panic!("refused: {e}"))
    }

    /// Runs `f` as a read.
    pub fn read<T>(&self, f: impl FnOnce(&Connection) -> AppResult<T>) -> AppResult<T> {
        self.db.read_sync(f)
    }

    /// Runs `f` as one write that must be refused with `status`, leaving the database
    /// exactly as it was. Returns the message.
    pub fn refused<T: std::fmt::Debug>(
        &self,
        status: u16,
        f: impl FnOnce(&Transaction) -> AppResult<T>,
    ) -> String {
        let before = self.dump();
        let e: AppError = self
            .db
            .write_sync(f)
            .expect_err("the call should be refused");
        assert_eq!(e.status().code, status, "{e}");
        assert_eq!(
            self.dump(),
            before,
            "a refused call changed the database: {e}"
        );
        e.to_string()
    }

    /// The one number a query answers.
    pub fn count(&self, sql: &str, args: &[&str]) -> i64 {
        self.db
            .read_sync(|c| Ok(c.query_row(sql, rusqlite::params_from_iter(args), |r| r.get(0))?))
            .expect("a count")
    }

    /// Every row of every table, in a stable order.
    pub fn dump(&self) -> Vec<(String, Vec<String>)> {
        self.db
            .read_sync(|conn| {
                let tables: Vec<String> = conn
                    .prepare(
                        "SELECT name FROM sqlite_master WHERE type = 'table'
                         AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'products_search_%'
                         ORDER BY name",
                    )?
                    .query_map([], |r| r.get(0))?
                    .collect::<Result<_, _>>()?;
                let mut out = Vec::new();
                for t in tables {
                    let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\""))?;
                    let n = stmt.column_count();
                    let mut rows: Vec<String> = stmt
                        .query_map([], |r| {
                            (0..n)
                                .map(|i| r.get::<_, Value>(i))
                                .collect::<Result<Vec<_>, _>>()
                                .map(|v| format!("{v:?}"))
                        })?
                        .collect::<Result<_, _>>()?;
                    rows.sort();
                    out.push((t, rows));
                }
                Ok(out)
            })
            .expect("dump")
    }
}
