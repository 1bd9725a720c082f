//! Time entries: `/api/time-entries`.
//!
//! `project_id` and `hours` (above 0, up to 2 decimal places) are required; `date`
//! defaults to today; `billable` to true; `hourly_rate` is an optional non-negative
//! money amount (the project's rate applies when absent). An entry belongs to its
//! project's entity.

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, non_negative, reference,
    requested_entity, ListSql, Reference, Which,
};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct TimeEntry {
    pub id: String,
    pub project_id: String,
    pub date: String,
    pub hours: Money,
    pub description: Option<String>,
    pub billable: bool,
    pub hourly_rate: Option<Money>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "time_entries t",
    columns: "t.id, t.project_id, t.date, t.hours, t.description, t.billable, t.hourly_rate,
              t.entity_id, t.created_at, t.updated_at",
    session_order: "t.date DESC, t.seq DESC",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<TimeEntry> {
    Ok(TimeEntry {
        id: r.get(0)?,
        project_id: r.get(1)?,
        date: r.get(2)?,
        hours: r.get(3)?,
        description: r.get(4)?,
        billable: r.get(5)?,
        hourly_rate: r.get(6)?,
        entity_id: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateTimeEntry {
    pub project_id: String,
    #[serde(default)]
    pub date: Option<String>,
    pub hours: Money,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub billable: Option<bool>,
    #[serde(default)]
    pub hourly_rate: Option<Money>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateTimeEntry {
    pub id: String,
    #[serde(default)]
    pub project_id: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub hours: Option<Money>,
    #[serde(default, deserialize_with = "nullable")]
    pub description: Option<Option<String>>,
    #[serde(default)]
    pub billable: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    pub hourly_rate: Option<Option<Money>>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<TimeEntry> {
    SQL.one(conn, scope, "Time entry", id, from_row)
}

fn project(conn: &Connection, scope: &Scope, raw: &str) -> AppResult<Reference> {
    reference(conn, scope, "projects", "Project", "project_id", raw)
}

fn positive_hours(h: Money) -> AppResult<Money> {
    if h.is_zero() || h.is_sign_negative() {
        return Err(AppError::invalid("hours", "must be above 0"));
    }
    Ok(h)
}

pub struct TimeEntries;

impl Resource for TimeEntries {
    type Record = TimeEntry;
    type Create = CreateTimeEntry;
    type Update = UpdateTimeEntry;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<TimeEntry>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateTimeEntry,
        ctx: &Ctx,
    ) -> AppResult<TimeEntry> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let project = project(tx, scope, &b.project_id)?;
        let entity_id = new_record_entity(scope, requested, &[&project])?;
        let e = TimeEntry {
            id: new_id(),
            project_id: project.id,
            date: date_text(date_or("date", b.date.as_deref(), ctx.today)?),
            hours: positive_hours(b.hours)?,
            description: clean(b.description),
            billable: b.billable.unwrap_or(true),
            hourly_rate: b
                .hourly_rate
                .map(|r| non_negative("hourly_rate", r))
                .transpose()?,
            entity_id,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
        };
        tx.execute(
            "INSERT INTO time_entries (id, owner_id, entity_id, project_id, date, hours,
                 description, billable, hourly_rate, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            params![
                e.id,
                scope.owner_for(tx, e.entity_id.as_deref())?,
                e.entity_id,
                e.project_id,
                e.date,
                e.hours,
                e.description,
                e.billable,
                e.hourly_rate,
                e.created_at
            ],
        )?;
        Ok(e)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateTimeEntry,
        ctx: &Ctx,
    ) -> AppResult<TimeEntry> {
        let id = parse_id("id", &b.id)?;
        let mut e = get(tx, scope, &id)?;
        if let Some(raw) = b.project_id.as_deref() {
            let p = project(tx, scope, raw)?;
            check_refs(e.entity_id.as_deref(), &[&p])?;
            e.project_id = p.id;
        }
        if let Some(d) = b.date.as_deref().map(str::trim) {
            e.date = date_text(parse_date("date", d)?);
        }
        if let Some(h) = b.hours {
            e.hours = positive_hours(h)?;
        }
        if let Some(d) = clean_nullable(b.description) {
            e.description = d;
        }
        if let Some(v) = b.billable {
            e.billable = v;
        }
        if let Some(r) = b.hourly_rate {
            e.hourly_rate = r.map(|r| non_negative("hourly_rate", r)).transpose()?;
        }
        e.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE time_entries SET project_id = ?1, date = ?2, hours = ?3, description = ?4,
                 billable = ?5, hourly_rate = ?6, updated_at = ?7
             WHERE id = ?8",
            params![
                e.project_id,
                e.date,
                e.hours,
                e.description,
                e.billable,
                e.hourly_rate,
                e.updated_at,
                e.id
            ],
        )?;
        Ok(e)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let e = get(tx, scope, id)?;
        tx.execute("DELETE FROM time_entries WHERE id = ?1", [&e.id])
            .map_err(in_use("Time entry"))?;
        Ok(())
    }
}

session_crud!(TimeEntries, "/time-entries?<q..>", "/time-entries");
