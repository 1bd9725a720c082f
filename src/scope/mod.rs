//! Ownership: which records a caller may touch (docs/auth.md#ownership-and-scope).
//!
//! Every record row carries `owner_id` (the user who owns its entity, or who created it
//! when it has no entity) and a nullable `entity_id`. A [`Scope`] is the caller's view:
//! a signed-in user sees everything they own; an entity-scoped API key sees one entity.
//! Every endpoint resolves ids through a scope, so a foreign id is a 404 exactly like an
//! unknown one, and no endpoint decides that on its own. Members and roles
//! (docs/auth.md#members-and-roles) are decided here too: the scope knows what its route
//! needs ([`Cap`]) and reads the caller's role in an entity in the caller's own
//! transaction ([`access::role_in`]).

pub mod access;
pub mod members;

use std::sync::OnceLock;

use rusqlite::Connection;

pub use access::{Cap, Role};

use crate::error::{AppError, AppResult};
use crate::http::body::parse_id;

#[derive(Debug, Clone)]
pub struct Scope {
    /// Whose books the caller's records are in when they name no entity: the acting
    /// user, or the entity's owner for an entity-scoped API key. A record of an entity
    /// is always in the entity owner's books ([`Scope::owner_for`]).
    pub owner_id: String,
    /// Set for an entity-scoped API key.
    pub entity_id: Option<String>,
    /// The acting user: the signed-in user, or the API key's creator.
    pub actor_id: String,
    /// What the route needs of the caller's role (docs/auth.md#members-and-roles).
    pub need: Cap,
    /// Whether the actor is a member of an entity someone else owns: then their lists
    /// reach beyond their own books. Read by the first list that needs it, on that
    /// list's own connection ([`Scope::condition`]), so a request that lists nothing
    /// (a write, a record by id) reads no memberships before its transaction.
    elsewhere: OnceLock<bool>,
}

impl Scope {
    /// A user acting on their own books with every right of an owner (the rules' tests
    /// and the server's own jobs).
    pub fn user(owner_id: impl Into<String>) -> Self {
        let owner_id = owner_id.into();
        Self {
            actor_id: owner_id.clone(),
            owner_id,
            entity_id: None,
            need: Cap::Owner,
            elsewhere: OnceLock::from(false),
        }
    }

    /// The scope of a signed-in user's request to a route that needs `need`: their own
    /// books, and every entity where their role allows it, the role read where it is
    /// used (docs/auth.md#members-and-roles).
    pub fn signed_in(actor: impl Into<String>, need: Cap) -> Self {
        let actor = actor.into();
        Self {
            owner_id: actor.clone(),
            actor_id: actor,
            entity_id: None,
            need,
            elsewhere: OnceLock::new(),
        }
    }

    /// The scope of a request of `actor` (through a key scoped to `entity`, if any) to a
    /// route that needs `need`. A scoped key whose creator is no longer a member of its
    /// entity reaches nothing (403).
    pub fn load(
        conn: &Connection,
        actor: &str,
        entity: Option<&str>,
        need: Cap,
    ) -> AppResult<Self> {
        let elsewhere = access::member_elsewhere(conn, actor)?;
        let mut owner = actor.to_owned();
        if let Some(e) = entity {
            match access::role_in(conn, actor, e)? {
                Some((o, Some(_))) => owner = o,
                _ => {
                    return Err(AppError::forbidden(
                        "This API key's creator is no longer a member of its entity",
                    ))
                }
            }
        }
        Ok(Self {
            owner_id: owner,
            entity_id: entity.map(str::to_owned),
            actor_id: actor.to_owned(),
            need,
            elsewhere: OnceLock::from(elsewhere),
        })
    }

    /// This scope for a route that needs `need` instead.
    #[must_use]
    pub fn needing(mut self, need: Cap) -> Self {
        self.need = need;
        self
    }

    /// 403 naming the role: `Your role (staff) cannot read the books`.
    pub fn refused(role: Role, cap: Cap) -> AppError {
        AppError::forbidden(format!(
            "Your role ({}) cannot {}",
            role.as_str(),
            cap.words()
        ))
    }

    /// Resolves an entity id sent by the client (query filter or body field): 400 when it
    /// is not a UUID, 404 when unknown or the caller is not a member, 403 when a scoped
    /// key names another entity or the caller's role cannot do what the route does. The
    /// role is read now, in the caller's transaction, so a removal or a demotion that
    /// committed after the request was authenticated holds.
    pub fn entity(&self, conn: &Connection, field: &str, raw: &str) -> AppResult<String> {
        let id = parse_id(field, raw)?;
        self.require(conn, &id, self.need)?;
        Ok(id)
    }

    /// The user acting through this scope, whom the audit trail names
    /// (docs/audit.md#how-entries-are-written): the signed-in user, or the API key's
    /// creator.
    pub fn actor(&self) -> &str {
        &self.actor_id
    }

    /// Checks that the caller may `cap` in entity `id` (see [`Scope::entity`]).
    pub fn require(&self, conn: &Connection, id: &str, cap: Cap) -> AppResult<()> {
        let not_found = || AppError::not_found(format!("Entity not found: {id}"));
        let (_, role) = access::role_in(conn, &self.actor_id, id)?.ok_or_else(not_found)?;
        let role = role.ok_or_else(not_found)?;
        if let Some(scoped) = &self.entity_id {
            if scoped != id {
                return Err(AppError::forbidden(
                    "This API key is scoped to another entity",
                ));
            }
        }
        if !role.may(cap) {
            return Err(Self::refused(role, cap));
        }
        // An entity that requires two-factor sign-in refuses a member without it
        // (docs/auth.md#requiring-two-factor).
        crate::mfa::refuse_without_two_factor(conn, &self.actor_id, id)?;
        Ok(())
    }

    /// An optional entity filter or field. A scoped key without one gets its own entity.
    pub fn entity_opt(
        &self,
        conn: &Connection,
        field: &str,
        raw: Option<&str>,
    ) -> AppResult<Option<String>> {
        match raw.filter(|s| !s.is_empty()) {
            Some(raw) => self.entity(conn, field, raw).map(Some),
            None => Ok(self.entity_id.clone()),
        }
    }

    /// This scope narrowed to entity `id` (checked as [`Scope::entity`]): what it reads and
    /// writes is that entity's, in its owner's books. An import run writes through it, so
    /// a manager's import finds the owner's records as duplicates.
    pub fn within(&self, conn: &Connection, id: &str) -> AppResult<Scope> {
        self.require(conn, id, self.need)?;
        Ok(Scope {
            owner_id: self.owner_for(conn, Some(id))?,
            entity_id: Some(id.to_owned()),
            ..self.clone()
        })
    }

    /// Whose books a record of `entity` goes in: the entity's owner, or (no entity)
    /// this scope's [`Scope::owner_id`].
    pub fn owner_for(&self, conn: &Connection, entity: Option<&str>) -> AppResult<String> {
        let Some(e) = entity else {
            return Ok(self.owner_id.clone());
        };
        match access::role_in(conn, &self.actor_id, e)? {
            Some((owner, _)) => Ok(owner),
            None => Err(AppError::not_found(format!("Entity not found: {e}"))),
        }
    }

    /// A record table's visibility condition, for SQL built by list endpoints, with its
    /// parameters: the caller's own entity-less records and the records of every entity
    /// where their role may what the route needs, the role read by the query itself.
    ///
    /// `conn` is the list's own connection: whether the caller is a member elsewhere is
    /// read there once (an error reads as yes, the condition that is right either way;
    /// the list's own query then reports the fault).
    pub fn condition(&self, conn: &Connection, alias: &str) -> (String, Vec<String>) {
        let elsewhere = *self
            .elsewhere
            .get_or_init(|| access::member_elsewhere(conn, &self.actor_id).unwrap_or(true));
        let a = if alias.is_empty() {
            String::new()
        } else {
            format!("{alias}.")
        };
        let entities = access::entities_where(self.need);
        match &self.entity_id {
            Some(e) => (
                format!("{a}owner_id = ? AND {a}entity_id = ? AND {a}entity_id IN ({entities})"),
                vec![self.owner_id.clone(), e.clone(), self.actor_id.clone()],
            ),
            // Only their own books: the `owner_id` index still leads.
            None if !elsewhere => (
                format!(
                    "{a}owner_id = ? AND ({a}entity_id IS NULL OR {a}entity_id IN ({entities}))"
                ),
                vec![self.owner_id.clone(), self.actor_id.clone()],
            ),
            None => (
                format!(
                    "(({a}owner_id = ? AND {a}entity_id IS NULL) OR {a}entity_id IN ({entities}))"
                ),
                vec![self.owner_id.clone(), self.actor_id.clone()],
            ),
        }
    }

    /// Does this scope see a record with this owner and entity? Read now, like
    /// [`Scope::entity`].
    pub fn sees(
        &self,
        conn: &Connection,
        owner_id: &str,
        entity_id: Option<&str>,
    ) -> AppResult<bool> {
        match (entity_id, &self.entity_id) {
            (None, None) => Ok(owner_id == self.owner_id),
            (None, Some(_)) => Ok(false),
            (Some(e), Some(scoped)) if e != scoped => Ok(false),
            (Some(e), _) => Ok(access::role_in(conn, &self.actor_id, e)?
                .and_then(|(_, role)| role)
                .is_some_and(|r| r.may(self.need))),
        }
    }

    /// [`Scope::sees`] as an answer: `missing` (a 404) when the record is not the
    /// caller's to know of, 403 naming the role when it is in an entity where their role
    /// cannot what the route needs.
    pub fn reach(
        &self,
        conn: &Connection,
        owner_id: &str,
        entity_id: Option<&str>,
        missing: impl FnOnce() -> AppError,
    ) -> AppResult<()> {
        if self.sees(conn, owner_id, entity_id)? {
            return Ok(());
        }
        if let Some(e) = entity_id {
            if self.entity_id.as_deref().is_none_or(|s| s == e) {
                if let Some((_, Some(role))) = access::role_in(conn, &self.actor_id, e)? {
                    return Err(Self::refused(role, self.need));
                }
            }
        }
        Err(missing())
    }

    /// The answer for record `id` of `table` that the caller does not see: the
    /// [`Scope::refusal`] when there is one (403 naming the role), else `missing`.
    pub fn unseen(&self, conn: &Connection, table: &str, id: &str, missing: AppError) -> AppError {
        match self.refusal(conn, table, id) {
            Ok(Some(refused)) => refused,
            Ok(None) => missing,
            Err(e) => e,
        }
    }

    /// Why a record of `table` the caller does not see may still be theirs to know of:
    /// 403 naming the role when it is in an entity where they are a member whose role
    /// cannot what the route needs.
    pub fn refusal(&self, conn: &Connection, table: &str, id: &str) -> AppResult<Option<AppError>> {
        let entity: Option<Option<String>> = rusqlite::OptionalExtension::optional(
            conn.prepare_cached(&format!("SELECT entity_id FROM {table} WHERE id = ?1"))?
                .query_row([id], |r| r.get(0)),
        )?;
        let Some(Some(e)) = entity else {
            return Ok(None);
        };
        if self.entity_id.as_ref().is_some_and(|s| *s != e) {
            return Ok(None);
        }
        Ok(match access::role_in(conn, &self.actor_id, &e)? {
            Some((_, Some(role))) if !role.may(self.need) => Some(Self::refused(role, self.need)),
            Some((_, Some(_))) => {
                crate::mfa::refuse_without_two_factor(conn, &self.actor_id, &e).err()
            }
            _ => None,
        })
    }
}

/// List queries ([`crate::http::list_sql`]) see what the scope sees.
impl crate::http::list_sql::Visible for Scope {
    fn condition(&self, conn: &Connection, alias: &str) -> (String, Vec<String>) {
        Scope::condition(self, conn, alias)
    }

    fn refusal(&self, conn: &Connection, table: &str, id: &str) -> AppResult<Option<AppError>> {
        Scope::refusal(self, conn, table, id)
    }
}

/// Two records may reference each other only when they belong to the same entity
/// (or both to none): 400 otherwise.
pub fn same_entity(field: &str, a: Option<&str>, b: Option<&str>) -> AppResult<()> {
    if a == b {
        Ok(())
    } else {
        Err(AppError::bad_request(format!(
            "`{field}` belongs to a different entity than this record"
        )))
    }
}
