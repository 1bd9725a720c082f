//! Projects: `/api/projects`.
//!
//! `name` is required; `contact_id` optional (the client); `status` is `active`
//! (default), `completed` or `archived`; `hourly_rate` and `budget` are optional
//! non-negative money amounts. A project with time entries or expenses cannot be
//! deleted (409).

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    check_refs, in_use, new_id, new_record_entity, non_negative, one_of, reference_opt,
    requested_entity, required_update, ListSql, Which,
};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::http::required_text;
use crate::scope::Scope;

pub const STATUSES: &[&str] = &["active", "completed", "archived"];

#[derive(Debug, Clone, Serialize)]
pub struct Project {
    pub id: String,
    pub name: String,
    pub contact_id: Option<String>,
    pub status: String,
    pub hourly_rate: Option<Money>,
    pub budget: Option<Money>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "projects t",
    columns: "t.id, t.name, t.contact_id, t.status, t.hourly_rate, t.budget, t.entity_id,
              t.created_at, t.updated_at",
    session_order: "t.name COLLATE NOCASE, t.seq",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<Project> {
    Ok(Project {
        id: r.get(0)?,
        name: r.get(1)?,
        contact_id: r.get(2)?,
        status: r.get(3)?,
        hourly_rate: r.get(4)?,
        budget: r.get(5)?,
        entity_id: r.get(6)?,
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateProject {
    pub name: String,
    #[serde(default)]
    pub contact_id: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub hourly_rate: Option<Money>,
    #[serde(default)]
    pub budget: Option<Money>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateProject {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub contact_id: Option<Option<String>>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub hourly_rate: Option<Option<Money>>,
    #[serde(default, deserialize_with = "nullable")]
    pub budget: Option<Option<Money>>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Project> {
    SQL.one(conn, scope, "Project", id, from_row)
}

fn opt_money(field: &str, v: Option<Money>) -> AppResult<Option<Money>> {
    v.map(|m| non_negative(field, m)).transpose()
}

pub struct Projects;

impl Resource for Projects {
    type Record = Project;
    type Create = CreateProject;
    type Update = UpdateProject;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<Project>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(tx: &Transaction, scope: &Scope, b: CreateProject, ctx: &Ctx) -> AppResult<Project> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let name = required_text("name", &b.name)?;
        let contact = reference_opt(
            tx,
            scope,
            "contacts",
            "Contact",
            "contact_id",
            b.contact_id.as_deref(),
        )?;
        let refs: Vec<_> = contact.iter().collect();
        let entity_id = new_record_entity(scope, requested, &refs)?;
        let p = Project {
            id: new_id(),
            name,
            contact_id: contact.map(|c| c.id),
            status: match b.status.as_deref() {
                Some(s) => one_of("status", s, STATUSES)?,
                None => "active".to_owned(),
            },
            hourly_rate: opt_money("hourly_rate", b.hourly_rate)?,
            budget: opt_money("budget", b.budget)?,
            entity_id,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
        };
        tx.execute(
            "INSERT INTO projects (id, owner_id, entity_id, name, contact_id, status, hourly_rate,
                 budget, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
            params![
                p.id,
                scope.owner_for(tx, p.entity_id.as_deref())?,
                p.entity_id,
                p.name,
                p.contact_id,
                p.status,
                p.hourly_rate,
                p.budget,
                p.created_at
            ],
        )?;
        Ok(p)
    }

    fn update(tx: &Transaction, scope: &Scope, b: UpdateProject, ctx: &Ctx) -> AppResult<Project> {
        let id = parse_id("id", &b.id)?;
        let mut p = get(tx, scope, &id)?;
        if let Some(n) = required_update("name", b.name)? {
            p.name = n;
        }
        if let Some(c) = b.contact_id {
            let contact =
                reference_opt(tx, scope, "contacts", "Contact", "contact_id", c.as_deref())?;
            if let Some(r) = &contact {
                check_refs(p.entity_id.as_deref(), &[r])?;
            }
            p.contact_id = contact.map(|c| c.id);
        }
        if let Some(s) = b.status.as_deref() {
            p.status = one_of("status", s, STATUSES)?;
        }
        if let Some(v) = b.hourly_rate {
            p.hourly_rate = opt_money("hourly_rate", v)?;
        }
        if let Some(v) = b.budget {
            p.budget = opt_money("budget", v)?;
        }
        p.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE projects SET name = ?1, contact_id = ?2, status = ?3, hourly_rate = ?4,
                 budget = ?5, updated_at = ?6
             WHERE id = ?7",
            params![
                p.name,
                p.contact_id,
                p.status,
                p.hourly_rate,
                p.budget,
                p.updated_at,
                p.id
            ],
        )?;
        Ok(p)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let p = get(tx, scope, id)?;
        let users: i64 = tx.query_row(
            "SELECT (SELECT COUNT(*) FROM time_entries WHERE project_id = ?1)
                  + (SELECT COUNT(*) FROM expenses WHERE project_id = ?1)",
            [&p.id],
            |r| r.get(0),
        )?;
        if users > 0 {
            return Err(AppError::refused(
                "in_use",
                format!(
                    "Project {} has time entries or expenses and cannot be deleted",
                    p.name
                ),
            ));
        }
        tx.execute("DELETE FROM projects WHERE id = ?1", [&p.id])
            .map_err(in_use("Project"))?;
        Ok(())
    }
}

session_crud!(Projects, "/projects?<q..>", "/projects");
