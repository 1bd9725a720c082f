//! Employees: `/api/employees`, `/api/v1/employees`.
//!
//! `name` is required; `email` and `role` optional; `active` defaults to true.

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    in_use, new_id, new_record_entity, requested_entity, required_update, ListSql, Which,
};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::error::AppResult;
use crate::http::body::{clean, clean_nullable};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::http::required_text;
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct Employee {
    pub id: String,
    pub name: String,
    pub email: Option<String>,
    pub role: Option<String>,
    pub active: bool,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "employees t",
    columns: "t.id, t.name, t.email, t.role, t.active, t.entity_id, t.created_at, t.updated_at",
    session_order: "t.name COLLATE NOCASE, t.seq",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<Employee> {
    Ok(Employee {
        id: r.get(0)?,
        name: r.get(1)?,
        email: r.get(2)?,
        role: r.get(3)?,
        active: r.get(4)?,
        entity_id: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateEmployee {
    pub name: String,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateEmployee {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub email: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub role: Option<Option<String>>,
    #[serde(default)]
    pub active: Option<bool>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Employee> {
    SQL.one(conn, scope, "Employee", id, from_row)
}

pub struct Employees;

impl Resource for Employees {
    type Record = Employee;
    type Create = CreateEmployee;
    type Update = UpdateEmployee;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<Employee>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateEmployee,
        ctx: &Ctx,
    ) -> AppResult<Employee> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let name = required_text("name", &b.name)?;
        let entity_id = new_record_entity(scope, requested, &[])?;
        let e = Employee {
            id: new_id(),
            name,
            email: clean(b.email),
            role: clean(b.role),
            active: b.active.unwrap_or(true),
            entity_id,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
        };
        tx.execute(
            "INSERT INTO employees (id, owner_id, entity_id, name, email, role, active,
                 created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            params![
                e.id,
                scope.owner_for(tx, e.entity_id.as_deref())?,
                e.entity_id,
                e.name,
                e.email,
                e.role,
                e.active,
                e.created_at
            ],
        )?;
        Ok(e)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateEmployee,
        ctx: &Ctx,
    ) -> AppResult<Employee> {
        let id = parse_id("id", &b.id)?;
        let mut e = get(tx, scope, &id)?;
        if let Some(n) = required_update("name", b.name)? {
            e.name = n;
        }
        if let Some(v) = clean_nullable(b.email) {
            e.email = v;
        }
        if let Some(v) = clean_nullable(b.role) {
            e.role = v;
        }
        if let Some(a) = b.active {
            e.active = a;
        }
        e.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE employees SET name = ?1, email = ?2, role = ?3, active = ?4, updated_at = ?5
             WHERE id = ?6",
            params![e.name, e.email, e.role, e.active, e.updated_at, e.id],
        )?;
        Ok(e)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let e = get(tx, scope, id)?;
        tx.execute("DELETE FROM employees WHERE id = ?1", [&e.id])
            .map_err(in_use("Employee"))?;
        Ok(())
    }
}

session_crud!(Employees, "/employees?<q..>", "/employees");
