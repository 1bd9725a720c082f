//! Ownership: which records a caller may touch (docs/auth.md#ownership-and-scope).
//!
//! Every record row carries `owner_id` (the user who owns its entity, or who created it
//! when it has no entity) and a nullable `entity_id`. A [`Scope`] is the caller's view:
//! a signed-in user sees everything they own; an entity-scoped API key sees one entity.
//! Every endpoint resolves ids through a scope, so a foreign id is a 404 exactly like an
//! unknown one, and no endpoint decides that on its own.

use rusqlite::{Connection, OptionalExtension};

use crate::error::{AppError, AppResult};
use crate::http::body::parse_id;

#[derive(Debug, Clone)]
pub struct Scope {
    pub owner_id: String,
    /// Set for an entity-scoped API key.
    pub entity_id: Option<String>,
}

impl Scope {
    pub fn user(owner_id: impl Into<String>) -> Self {
        Self {
            owner_id: owner_id.into(),
            entity_id: None,
        }
    }

    /// The user acting through this scope, whom the audit trail names
    /// (docs/audit.md#how-entries-are-written): today the signed-in user or the API key's
    /// creator.
    pub fn actor(&self) -> &str {
        &self.owner_id
    }

    /// Resolves an entity id sent by the client (query filter or body field): 400 when it
    /// is not a UUID, 404 when unknown or another user's, 403 when a scoped key names
    /// another entity of its own user.
    pub fn entity(&self, conn: &Connection, field: &str, raw: &str) -> AppResult<String> {
        let id = parse_id(field, raw)?;
        let owned: Option<String> = conn
            .prepare_cached("SELECT id FROM entities WHERE id = ?1 AND owner_id = ?2")?
            .query_row([&id, &self.owner_id], |r| r.get(0))
            .optional()?;
        let id = owned.ok_or_else(|| AppError::not_found(format!("Entity not found: {id}")))?;
        crate::mfa::refuse_without_two_factor(conn, self.actor(), &id)?;
        if let Some(scoped) = &self.entity_id {
            if *scoped != id {
                return Err(AppError::forbidden(
                    "This API key is scoped to another entity",
                ));
            }
        }
        Ok(id)
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

    /// A record table's visibility condition, for SQL built by list endpoints:
    /// `(alias.owner_id = ? [AND alias.entity_id = ?])` with its parameters.
    pub fn condition(&self, alias: &str) -> (String, Vec<String>) {
        let a = if alias.is_empty() {
            String::new()
        } else {
            format!("{alias}.")
        };
        match &self.entity_id {
            Some(e) => (
                format!("{a}owner_id = ? AND {a}entity_id = ?"),
                vec![self.owner_id.clone(), e.clone()],
            ),
            None => (format!("{a}owner_id = ?"), vec![self.owner_id.clone()]),
        }
    }

    /// Does this scope see a record with this owner and entity?
    pub fn sees(&self, owner_id: &str, entity_id: Option<&str>) -> bool {
        owner_id == self.owner_id
            && match &self.entity_id {
                Some(e) => entity_id == Some(e.as_str()),
                None => true,
            }
    }
}

/// List queries ([`crate::http::list_sql`]) see what the scope sees.
impl crate::http::list_sql::Visible for Scope {
    fn condition(&self, alias: &str) -> (String, Vec<String>) {
        Scope::condition(self, alias)
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
