//! Contacts (customers and suppliers): `/api/contacts`, `/api/v1/contacts`.
//!
//! `name` is required; `type` is `customer` (default), `supplier` or `both`. A contact
//! that any document, project or recurring invoice references cannot be deleted (409).

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    in_use, new_id, new_record_entity, one_of, requested_entity, required_update, ListSql, Which,
};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, clean_nullable};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::http::required_text;
use crate::scope::Scope;

pub const TYPES: &[&str] = &["customer", "supplier", "both"];

#[derive(Debug, Clone, Serialize)]
pub struct Contact {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<String>,
    pub vat_number: Option<String>,
    pub provider: Option<String>,
    pub provider_ref: Option<String>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "contacts t",
    columns: "t.id, t.name, t.type, t.email, t.phone, t.address, t.vat_number, t.provider,
              t.provider_ref, t.entity_id, t.created_at, t.updated_at",
    session_order: "t.name COLLATE NOCASE, t.seq",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<Contact> {
    Ok(Contact {
        id: r.get(0)?,
        name: r.get(1)?,
        kind: r.get(2)?,
        email: r.get(3)?,
        phone: r.get(4)?,
        address: r.get(5)?,
        vat_number: r.get(6)?,
        provider: r.get(7)?,
        provider_ref: r.get(8)?,
        entity_id: r.get(9)?,
        created_at: r.get(10)?,
        updated_at: r.get(11)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateContact {
    pub name: String,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub vat_number: Option<String>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateContact {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub email: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub address: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub vat_number: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider_ref: Option<Option<String>>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Contact> {
    SQL.one(conn, scope, "Contact", id, from_row)
}

fn save(tx: &Transaction, c: &Contact) -> AppResult<()> {
    tx.execute(
        "UPDATE contacts SET name = ?1, type = ?2, email = ?3, phone = ?4, address = ?5,
             vat_number = ?6, provider = ?7, provider_ref = ?8, updated_at = ?9
         WHERE id = ?10",
        params![
            c.name,
            c.kind,
            c.email,
            c.phone,
            c.address,
            c.vat_number,
            c.provider,
            c.provider_ref,
            c.updated_at,
            c.id
        ],
    )?;
    Ok(())
}

/// Creates a contact (session API, public API and import).
pub fn create(tx: &Transaction, scope: &Scope, b: CreateContact, ctx: &Ctx) -> AppResult<Contact> {
    let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
    let name = required_text("name", &b.name)?;
    let kind = match b.kind.as_deref() {
        Some(k) => one_of("type", k, TYPES)?,
        None => "customer".to_owned(),
    };
    let entity_id = new_record_entity(scope, requested, &[])?;
    let c = Contact {
        id: new_id(),
        name,
        kind,
        email: clean(b.email),
        phone: clean(b.phone),
        address: clean(b.address),
        vat_number: clean(b.vat_number),
        provider: clean(b.provider),
        provider_ref: clean(b.provider_ref),
        entity_id,
        created_at: ctx.now.clone(),
        updated_at: ctx.now.clone(),
    };
    tx.execute(
        "INSERT INTO contacts (id, owner_id, entity_id, name, type, email, phone, address,
             vat_number, provider, provider_ref, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
        params![
            c.id,
            scope.owner_for(tx, c.entity_id.as_deref())?,
            c.entity_id,
            c.name,
            c.kind,
            c.email,
            c.phone,
            c.address,
            c.vat_number,
            c.provider,
            c.provider_ref,
            c.created_at
        ],
    )?;
    Ok(c)
}

pub struct Contacts;

impl Resource for Contacts {
    type Record = Contact;
    type Create = CreateContact;
    type Update = UpdateContact;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<Contact>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(tx: &Transaction, scope: &Scope, b: CreateContact, ctx: &Ctx) -> AppResult<Contact> {
        create(tx, scope, b, ctx)
    }

    fn update(tx: &Transaction, scope: &Scope, b: UpdateContact, ctx: &Ctx) -> AppResult<Contact> {
        let id = parse_id("id", &b.id)?;
        let mut c = get(tx, scope, &id)?;
        if let Some(n) = required_update("name", b.name)? {
            c.name = n;
        }
        if let Some(k) = b.kind {
            c.kind = one_of("type", &k, TYPES)?;
        }
        if let Some(v) = clean_nullable(b.email) {
            c.email = v;
        }
        if let Some(v) = clean_nullable(b.phone) {
            c.phone = v;
        }
        if let Some(v) = clean_nullable(b.address) {
            c.address = v;
        }
        if let Some(v) = clean_nullable(b.vat_number) {
            c.vat_number = v;
        }
        if let Some(v) = clean_nullable(b.provider) {
            c.provider = v;
        }
        if let Some(v) = clean_nullable(b.provider_ref) {
            c.provider_ref = v;
        }
        c.updated_at = ctx.now.clone();
        save(tx, &c)?;
        Ok(c)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let c = get(tx, scope, id)?;
        let users: i64 = tx.query_row(
            "SELECT (SELECT COUNT(*) FROM invoices WHERE contact_id = ?1)
                  + (SELECT COUNT(*) FROM bills WHERE contact_id = ?1)
                  + (SELECT COUNT(*) FROM projects WHERE contact_id = ?1)
                  + (SELECT COUNT(*) FROM recurring_invoices WHERE contact_id = ?1)",
            [&c.id],
            |r| r.get(0),
        )?;
        if users > 0 {
            return Err(AppError::refused("in_use", format!(
                "Contact {} is used by invoices, bills, projects or recurring invoices and cannot be deleted",
                c.name
            )));
        }
        tx.execute("DELETE FROM contacts WHERE id = ?1", [&c.id])
            .map_err(in_use("Contact"))?;
        Ok(())
    }
}

session_crud!(Contacts, "/contacts?<q..>", "/contacts");
