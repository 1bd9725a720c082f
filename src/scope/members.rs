//! The members of an entity and their invitations (docs/auth.md#members-and-roles): the
//! record, its SQL and its rules. The HTTP handlers are `crate::members`; sign-up and
//! sign-in accept an invitation through [`accept`].
//!
//! A row with a `user_id` is a member; a row without one is an invitation, found by the
//! SHA-256 digest of its token (the token itself is never stored) until it is accepted,
//! which clears the digest, so a token works once. An entity always keeps one owner.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::{Cap, Role, Scope};
use crate::error::{AppError, AppResult};
use crate::http::body::parse_id;

/// How long an invitation can be accepted: 7 days.
pub const INVITE_LIFETIME_SECS: i64 = 7 * 86_400;

#[derive(Debug, Clone, Serialize)]
pub struct Member {
    pub id: String,
    pub entity_id: String,
    pub user_id: Option<String>,
    pub email: String,
    pub name: Option<String>,
    pub role: String,
    /// `invited` or `active`.
    pub status: &'static str,
    pub invited_at: String,
    pub joined_at: Option<String>,
}

const COLUMNS: &str = "m.id, m.entity_id, m.user_id, COALESCE(u.email, m.email), u.name, m.role, \
    m.invited_at, m.joined_at";
const FROM: &str = "members m LEFT JOIN users u ON u.id = m.user_id";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Member> {
    let user_id: Option<String> = r.get(2)?;
    Ok(Member {
        id: r.get(0)?,
        entity_id: r.get(1)?,
        status: if user_id.is_some() {
            "active"
        } else {
            "invited"
        },
        user_id,
        email: r.get(3)?,
        name: r.get(4)?,
        role: r.get(5)?,
        invited_at: r.get(6)?,
        joined_at: r.get(7)?,
    })
}

/// Every member of an entity, owners first, then by when they were invited; open
/// invitations included. The entity's owners only.
pub fn list_members(conn: &Connection, scope: &Scope, entity: &str) -> AppResult<Vec<Member>> {
    scope.require(conn, entity, Cap::Owner)?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM {FROM} WHERE m.entity_id = ?1
         ORDER BY m.role <> 'owner', m.seq"
    ))?;
    let rows = stmt
        .query_map([entity], from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

fn get(conn: &Connection, id: &str) -> AppResult<Option<Member>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM {FROM} WHERE m.id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

/// A member of an entity where the caller is an owner: 404 when unknown or the caller
/// is not a member of its entity, 403 when they are but not an owner.
fn get_as_owner(conn: &Connection, scope: &Scope, raw: &str) -> AppResult<Member> {
    let id = parse_id("id", raw)?;
    let missing = || AppError::not_found(format!("Member not found: {id}"));
    let m = get(conn, &id)?.ok_or_else(missing)?;
    scope
        .require(conn, &m.entity_id, Cap::Owner)
        .map_err(|e| match e {
            AppError::NotFound(_) => missing(),
            other => other,
        })?;
    Ok(m)
}

fn parse_role(raw: &str) -> AppResult<Role> {
    Role::parse(raw.trim()).ok_or_else(|| {
        AppError::invalid(
            "role",
            "must be one of owner, manager, staff, accountant, viewer",
        )
    })
}

/// The body of `POST /api/members`.
#[derive(Debug, Deserialize)]
pub struct Invite {
    pub entity_id: String,
    pub email: String,
    pub role: String,
}

/// Invites `email` into an entity of the caller's (owners only) with `role`: the new
/// member row, `invited`, whose token (of SHA-256 `digest`) can be accepted for
/// [`INVITE_LIFETIME_SECS`] from `now` (Unix seconds). A new invitation of the same email
/// to the same entity replaces the open one; an email that is already a member is 409.
pub fn invite(
    tx: &Transaction,
    scope: &Scope,
    b: Invite,
    digest: &str,
    now: i64,
    at: &str,
) -> AppResult<Member> {
    let entity = scope.entity(tx, "entity_id", &b.entity_id)?;
    scope.require(tx, &entity, Cap::Owner)?;
    let role = parse_role(&b.role)?;
    let email = b.email.trim().to_owned();
    let key = crate::db::ident::compare_key(&email);
    if !key.contains('@') || key.starts_with('@') || key.ends_with('@') || email.len() > 254 {
        return Err(AppError::invalid("email", "not an email address"));
    }
    let taken: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM members m JOIN users u ON u.id = m.user_id
                            WHERE m.entity_id = ?1
                              AND (u.email_key = ?2 OR (u.email_key IS NULL AND u.email = ?3)))",
        )?
        .query_row(params![entity, key, email], |r| r.get(0))?;
    if taken {
        return Err(AppError::conflict(
            "This email is already a member of this entity",
        ));
    }
    // Inviting the same email again renews the open invitation in place (a new link, the
    // new role, seven days from now): the member keeps its id.
    let open: Option<String> = tx
        .prepare_cached(
            "SELECT id FROM members WHERE entity_id = ?1 AND user_id IS NULL AND email = ?2",
        )?
        .query_row(params![entity, email], |r| r.get(0))
        .optional()?;
    if let Some(id) = open {
        let before: String = tx
            .prepare_cached("SELECT role FROM members WHERE id = ?1")?
            .query_row([&id], |r| r.get(0))?;
        tx.prepare_cached(
            "UPDATE members SET role = ?2, invite_hash = ?3, invite_expires_at = ?4,
                 invited_by = ?5, invited_at = ?6
             WHERE id = ?1",
        )?
        .execute(params![
            id,
            role.as_str(),
            digest,
            now + INVITE_LIFETIME_SECS,
            scope.actor_id,
            at
        ])?;
        let owner = scope.owner_for(tx, Some(&entity))?;
        crate::db::audit::role_changed(
            tx,
            &scope.actor_id,
            &entity,
            &owner,
            &id,
            Some(&before),
            Some(role.as_str()),
        )?;
        return get(tx, &id)?.ok_or_else(|| AppError::internal("the member is gone"));
    }
    let id = uuid::Uuid::new_v4().to_string();
    tx.prepare_cached(
        "INSERT INTO members (id, entity_id, email, role, invite_hash, invite_expires_at,
             invited_by, invited_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        id,
        entity,
        email,
        role.as_str(),
        digest,
        now + INVITE_LIFETIME_SECS,
        scope.actor_id,
        at
    ])?;
    let owner = scope.owner_for(tx, Some(&entity))?;
    crate::db::audit::role_changed(
        tx,
        &scope.actor_id,
        &entity,
        &owner,
        &id,
        None,
        Some(role.as_str()),
    )?;
    get(tx, &id)?.ok_or_else(|| AppError::internal("the new member is gone"))
}

/// The open invitation of token digest `digest` at `now`: 400 when no invitation has it
/// (unknown, or already used) or it has expired. Its id and entity.
pub fn open_invitation(conn: &Connection, digest: &str, now: i64) -> AppResult<(String, String)> {
    let row: Option<(String, String, i64)> = conn
        .prepare_cached(
            "SELECT id, entity_id, invite_expires_at FROM members
             WHERE invite_hash = ?1 AND user_id IS NULL",
        )?
        .query_row([digest], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    match row {
        None => Err(AppError::invalid(
            "invite_token",
            "this invitation is unknown or has already been used",
        )),
        Some((_, _, expires)) if expires <= now => Err(AppError::invalid(
            "invite_token",
            "this invitation has expired: ask for a new one",
        )),
        Some((id, entity, _)) => Ok((id, entity)),
    }
}

/// Accepts the invitation of token digest `digest` for `user` at `now`: they are a
/// member from then on and the token is used up. 400 as [`open_invitation`]; 409 when
/// they already are a member of that entity. Runs in the sign-up or sign-in's own write,
/// so a refusal leaves nothing behind.
pub fn accept(tx: &Transaction, digest: &str, user: &str, now: i64, at: &str) -> AppResult<()> {
    let (id, entity) = open_invitation(tx, digest, now)?;
    let already: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM members WHERE entity_id = ?1 AND user_id = ?2)",
        )?
        .query_row([&entity, user], |r| r.get(0))?;
    if already {
        return Err(AppError::conflict(
            "You are already a member of this entity",
        ));
    }
    tx.prepare_cached(
        "UPDATE members SET user_id = ?2, joined_at = ?3, invite_hash = NULL,
             invite_expires_at = NULL
         WHERE id = ?1",
    )?
    .execute(params![id, user, at])?;
    // The trail names the new member joining with the role they were invited to.
    let (owner, role): (String, String) = tx
        .prepare_cached(
            "SELECT e.owner_id, m.role FROM members m JOIN entities e ON e.id = m.entity_id
             WHERE m.id = ?1",
        )?
        .query_row([&id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    crate::db::audit::role_changed(tx, user, &entity, &owner, &id, None, Some(&role))?;
    Ok(())
}

/// Stops (makes inactive) the webhooks member `m` made for their entity, when they leave
/// it or their new role no longer manages webhooks, as their API keys stop reaching it
/// (docs/auth.md#members-and-roles).
fn stop_webhooks(tx: &Transaction, m: &Member, role: Option<Role>) -> AppResult<()> {
    let Some(user) = &m.user_id else {
        return Ok(());
    };
    if role.is_some_and(|r| r.may(Cap::Admin)) {
        return Ok(());
    }
    tx.prepare_cached(
        "UPDATE webhooks SET active = 0 WHERE created_by = ?1 AND entity_id = ?2 AND active = 1",
    )?
    .execute([user, &m.entity_id])?;
    Ok(())
}

/// 409 unless the entity keeps another active owner than member `id`.
fn keep_an_owner(tx: &Transaction, m: &Member) -> AppResult<()> {
    if m.role != "owner" || m.user_id.is_none() {
        return Ok(());
    }
    let others: i64 = tx
        .prepare_cached(
            "SELECT COUNT(*) FROM members
             WHERE entity_id = ?1 AND role = 'owner' AND user_id IS NOT NULL AND id <> ?2",
        )?
        .query_row([&m.entity_id, &m.id], |r| r.get(0))?;
    if others == 0 {
        return Err(AppError::conflict(
            "An entity keeps at least one owner: make someone else an owner first",
        ));
    }
    Ok(())
}

/// The body of `PUT /api/members`.
#[derive(Debug, Deserialize)]
pub struct RoleChange {
    pub id: String,
    pub role: String,
}

/// Changes a member's role (owners only); the last owner stays one (409). Takes effect
/// on the member's next request, and on any of theirs still running; a role that no
/// longer manages webhooks stops the ones they made.
pub fn change_role(tx: &Transaction, scope: &Scope, b: RoleChange) -> AppResult<Member> {
    let mut m = get_as_owner(tx, scope, &b.id)?;
    let role = parse_role(&b.role)?;
    if role != Role::Owner {
        keep_an_owner(tx, &m)?;
    }
    tx.prepare_cached("UPDATE members SET role = ?2 WHERE id = ?1")?
        .execute(params![m.id, role.as_str()])?;
    stop_webhooks(tx, &m, Some(role))?;
    let owner = scope.owner_for(tx, Some(&m.entity_id))?;
    crate::db::audit::role_changed(
        tx,
        &scope.actor_id,
        &m.entity_id,
        &owner,
        &m.id,
        Some(&m.role),
        Some(role.as_str()),
    )?;
    role.as_str().clone_into(&mut m.role);
    Ok(m)
}

/// Removes a member or withdraws an invitation (owners only); the last owner stays (409).
/// The member's sessions and API keys stop reaching the entity at once: access is read
/// on every request, in its own transaction. The webhooks they made for it stop.
pub fn remove(tx: &Transaction, scope: &Scope, raw_id: &str) -> AppResult<()> {
    let m = get_as_owner(tx, scope, raw_id)?;
    keep_an_owner(tx, &m)?;
    let owner = scope.owner_for(tx, Some(&m.entity_id))?;
    tx.prepare_cached("DELETE FROM members WHERE id = ?1")?
        .execute([&m.id])?;
    stop_webhooks(tx, &m, None)?;
    crate::db::audit::role_changed(
        tx,
        &scope.actor_id,
        &m.entity_id,
        &owner,
        &m.id,
        Some(&m.role),
        None,
    )?;
    Ok(())
}
