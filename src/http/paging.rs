//! Paging of list endpoints. The session API takes optional `limit` and `offset` (no
//! default limit, docs/conventions.md#lists); the public API defaults to 50 and
//! serves at most 200 (docs/public-api.md#paging). Values that are not whole numbers
//! in range are a 400.

use rocket::FromForm;

use crate::error::{AppError, AppResult};

/// Query parameters every session list endpoint accepts.
#[derive(Debug, Default, FromForm)]
pub struct ListQuery {
    pub limit: Option<String>,
    pub offset: Option<String>,
}

/// Which order a list comes back in.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The session API's order for the resource (names alphabetically, dated records
    /// newest first).
    #[default]
    Session,
    /// Creation order (`seq`): the public API's stable paging order.
    Creation,
}

#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub limit: Option<i64>,
    pub offset: i64,
}

impl Page {
    /// `LIMIT` for SQL: -1 means no limit in SQLite.
    pub fn sql_limit(self) -> i64 {
        self.limit.unwrap_or(-1)
    }
}

impl ListQuery {
    pub fn page(&self) -> AppResult<Page> {
        parse_page(self.limit.as_deref(), self.offset.as_deref(), None)
    }
}

/// `default_limit` set: public API rules (default, capped at 200).
pub fn parse_page(
    limit: Option<&str>,
    offset: Option<&str>,
    default_limit: Option<i64>,
) -> AppResult<Page> {
    let limit = match limit {
        None => default_limit,
        Some(s) => {
            let n: i64 = s
                .trim()
                .parse()
                .map_err(|_| AppError::invalid("limit", "must be a whole number"))?;
            if n < 1 {
                return Err(AppError::invalid("limit", "must be at least 1"));
            }
            Some(if default_limit.is_some() {
                n.min(200)
            } else {
                n
            })
        }
    };
    let offset = match offset {
        None => 0,
        Some(s) => {
            let n: i64 = s
                .trim()
                .parse()
                .map_err(|_| AppError::invalid("offset", "must be a whole number"))?;
            if n < 0 {
                return Err(AppError::invalid("offset", "must not be negative"));
            }
            n
        }
    };
    Ok(Page { limit, offset })
}

/// Query parameters of the accounting lists and of the public API's lists: `entityId`,
/// `limit`, `offset`. Each may be given once (a repeated one is a 400, not silently
/// ignored).
#[derive(Debug, Default, Clone, FromForm)]
pub struct EntityListQuery {
    #[field(name = "entityId")]
    pub entity_id: Vec<String>,
    /// One record (session lists only, docs/conventions.md#lists).
    pub id: Vec<String>,
    pub limit: Vec<String>,
    pub offset: Vec<String>,
    /// Only records changed since (public lists, docs/public-api.md#incremental-sync).
    pub updated_since: Vec<String>,
}

fn single<'a>(field: &str, values: &'a [String]) -> AppResult<Option<&'a str>> {
    match values {
        [] => Ok(None),
        [v] => Ok(Some(v.as_str())),
        _ => Err(AppError::invalid(field, "given more than once")),
    }
}

impl EntityListQuery {
    /// The `entityId` filter, when given.
    pub fn entity(&self) -> AppResult<Option<String>> {
        single("entityId", &self.entity_id).map(|e| e.map(str::to_owned))
    }

    /// The `updated_since` filter, in the stored form ([`parse_since`]).
    pub fn since(&self) -> AppResult<Option<String>> {
        parse_since(single("updated_since", &self.updated_since)?)
    }

    /// The `id` filter of a session list, when given: 400 unless a UUID.
    pub fn id(&self) -> AppResult<Option<String>> {
        single("id", &self.id)?
            .map(|raw| crate::http::body::parse_id("id", raw))
            .transpose()
    }

    fn page(&self, default_limit: Option<i64>) -> AppResult<Page> {
        parse_page(
            single("limit", &self.limit)?,
            single("offset", &self.offset)?,
            default_limit,
        )
    }

    /// Session paging: no default limit.
    pub fn session_page(&self) -> AppResult<Page> {
        self.page(None)
    }

    /// Public API paging: default 50, at most 200.
    pub fn v1_page(&self) -> AppResult<Page> {
        self.page(Some(50))
    }
}

/// `updated_since` (docs/public-api.md#incremental-sync): an RFC 3339 time with its offset
/// (`2026-11-01T09:30:00Z`, `2026-11-01T10:30:00+01:00`), turned into the stored form (UTC,
/// whole seconds, rounded down, so the filter is inclusive and never misses a record).
pub fn parse_since(raw: Option<&str>) -> AppResult<Option<String>> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    let t = time::OffsetDateTime::parse(raw.trim(), &time::format_description::well_known::Rfc3339)
        .map_err(|_| {
            AppError::invalid(
                "updated_since",
                "must be an RFC 3339 time with its offset, like 2026-11-01T09:30:00Z",
            )
        })?;
    Ok(Some(crate::clock::rfc3339(
        t.to_offset(time::UtcOffset::UTC),
    )))
}
