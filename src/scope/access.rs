//! Who may do what in an entity (docs/auth.md#members-and-roles): the roles, the
//! capabilities a route needs, the one table joining them, and [`role_in`], the one
//! place that decides a user's access to an entity.

use rusqlite::{Connection, OptionalExtension};

/// A member's role in one entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Owner,
    Manager,
    Staff,
    Accountant,
    Viewer,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Owner,
        Role::Manager,
        Role::Staff,
        Role::Accountant,
        Role::Viewer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Manager => "manager",
            Role::Staff => "staff",
            Role::Accountant => "accountant",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The role table of docs/auth.md#members-and-roles.
    pub fn may(self, cap: Cap) -> bool {
        use Role::{Accountant, Manager, Owner, Staff, Viewer};
        match cap {
            Cap::Any | Cap::ReadStock => true,
            Cap::WriteStock => matches!(self, Owner | Manager | Staff),
            Cap::ReadBooks => matches!(self, Owner | Manager | Accountant | Viewer),
            Cap::WriteBooks => matches!(self, Owner | Manager | Accountant),
            Cap::Vat => matches!(self, Owner | Accountant),
            Cap::Admin => matches!(self, Owner | Manager),
            Cap::Owner => self == Owner,
        }
    }

    /// The roles that may `cap`, as an SQL list of literals (`'owner', 'manager'`).
    pub fn sql_list(cap: Cap) -> String {
        Role::ALL
            .into_iter()
            .filter(|r| r.may(cap))
            .map(|r| format!("'{}'", r.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a route needs of the caller's role in the entity it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// No role: the caller's own account, entity-less records and the entity list.
    Any,
    ReadStock,
    WriteStock,
    ReadBooks,
    WriteBooks,
    /// VAT returns and adjustments, the lock date, the HMRC connection.
    Vat,
    /// Import, webhooks, API keys.
    Admin,
    /// Members, entity settings, deleting the entity.
    Owner,
}

impl Cap {
    /// In words, after "cannot" (`Your role (staff) cannot write stock`).
    pub fn words(self) -> &'static str {
        match self {
            Cap::Any => "do this",
            Cap::ReadStock => "read stock",
            Cap::WriteStock => "change stock",
            Cap::ReadBooks => "read the books",
            Cap::WriteBooks => "change the books",
            Cap::Vat => "file VAT, move the lock date or connect HMRC",
            Cap::Admin => "manage imports, webhooks or API keys",
            Cap::Owner => "manage members or the entity's settings",
        }
    }

    /// The capability of a route of either API, by its method and its path after the
    /// mount point (`/api` or `/api/v1`): the first segment names the area, a `GET`
    /// reads and anything else writes. A path this table does not know needs the owner,
    /// so a new route is closed until it is given its place here (a test lists every
    /// documented operation).
    pub fn of_route(method: &str, path: &str) -> Cap {
        let path = path
            .strip_prefix("/api/v1")
            .or_else(|| path.strip_prefix("/api"))
            .unwrap_or(path);
        let mut segments = path.trim_start_matches('/').split('/');
        let first = segments.next().unwrap_or("");
        let second = segments.next().unwrap_or("");
        let third = segments.next().unwrap_or("");
        let read = method.eq_ignore_ascii_case("GET");
        let rw = |r: Cap, w: Cap| if read { r } else { w };
        match first {
            "auth" | "health" | "openapi.json" | "audit" => Cap::Any,
            // The logo prints on every invoice: any member reads it; it is the owner's to set.
            "entities" if third == "logo" => rw(Cap::ReadStock, Cap::Owner),
            "entities" => match method {
                "GET" | "POST" => Cap::Any,
                // An accountant may send `lock_date` alone (`entities::update_entity`).
                "PUT" => Cap::Vat,
                _ => Cap::Owner,
            },
            "members" => Cap::Owner,
            "inventory" if second == "summary" || second == "locations" => Cap::ReadBooks,
            "products"
            | "warehouse-locations"
            | "locations"
            | "warehouse-stock"
            | "stock"
            | "stock-movements"
            | "movements"
            | "transfer-orders"
            | "stock-takes"
            | "inventory" => rw(Cap::ReadStock, Cap::WriteStock),
            // Valuation, margin and the dashboard's money are reports of the books.
            "reports" | "dashboard" => Cap::ReadBooks,
            "categories" | "invoices" | "bills" | "credit-notes" | "supplier-credits"
            | "contacts" | "payments" | "transactions" | "expenses" | "expense-categories"
            | "employees" | "projects" | "time-entries" | "recurring-invoices" => {
                rw(Cap::ReadBooks, Cap::WriteBooks)
            }
            // HMRC's own records of the business, read with its connection.
            "vat"
                if second == "obligations"
                    || second == "liabilities"
                    || second == "payments"
                    || second == "submitted" =>
            {
                Cap::Vat
            }
            "vat" => rw(Cap::ReadBooks, Cap::Vat),
            "hmrc" => Cap::Vat,
            "import" | "webhooks" | "api-keys" => Cap::Admin,
            _ => Cap::Owner,
        }
    }
}

// The one place a user's access to an entity is decided: `role_in` for one entity and
// `entities_where` for the SQL of lists, which say the same thing and change together.

/// The entity's owner (the user whose books its records are in) and the role `user`
/// holds in it, read now, in the caller's transaction: `None` when the entity is unknown,
/// `Some((owner, None))` when `user` is not a member. Every check of a user's access to
/// one entity comes here; [`Role::may`] then reads the table.
pub fn role_in(
    conn: &Connection,
    user: &str,
    entity: &str,
) -> rusqlite::Result<Option<(String, Option<Role>)>> {
    let row: Option<(String, Option<String>)> = conn
        .prepare_cached(
            "SELECT e.owner_id, m.role FROM entities e
             LEFT JOIN members m ON m.entity_id = e.id AND m.user_id = ?2
             WHERE e.id = ?1",
        )?
        .query_row([entity, user], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(row.map(|(owner, role)| (owner, role.as_deref().and_then(Role::parse))))
}

/// SQL for `entity_id IN (...)`: the entities where the user bound to its one `?` holds
/// a role that may `cap`; the list form of [`role_in`] and [`Role::may`], run by the
/// list's own query in the caller's transaction.
pub fn entities_where(cap: Cap) -> String {
    // An entity that requires two-factor sign-in shows nothing to a member without it
    // (docs/auth.md#requiring-two-factor; `crate::mfa` says the same for one entity).
    format!(
        "SELECT mb.entity_id FROM members mb WHERE mb.user_id = ? AND mb.role IN ({})
           AND NOT EXISTS (SELECT 1 FROM entities en JOIN users us ON us.id = mb.user_id
                           WHERE en.id = mb.entity_id AND en.require_2fa = 1
                             AND us.totp_enabled_at IS NULL)",
        Role::sql_list(cap)
    )
}

/// Whether `user` is a member of some entity another user owns (then their lists reach
/// beyond their own books).
pub fn member_elsewhere(conn: &Connection, user: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM members m JOIN entities e ON e.id = m.entity_id
                        WHERE m.user_id = ?1 AND e.owner_id <> ?1)",
    )?
    .query_row([user], |r| r.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_table_reads_the_area_and_the_method() {
        assert_eq!(Cap::of_route("GET", "/api/products"), Cap::ReadStock);
        assert_eq!(Cap::of_route("POST", "/api/v1/movements"), Cap::WriteStock);
        assert_eq!(Cap::of_route("GET", "/api/vat/return"), Cap::ReadBooks);
        assert_eq!(Cap::of_route("POST", "/api/vat/returns"), Cap::Vat);
        assert_eq!(Cap::of_route("PUT", "/api/entities"), Cap::Vat);
        assert_eq!(Cap::of_route("DELETE", "/api/entities"), Cap::Owner);
        assert_eq!(Cap::of_route("GET", "/api/unheard-of"), Cap::Owner);
    }

    #[test]
    fn only_the_owner_may_everything() {
        for cap in [
            Cap::ReadStock,
            Cap::WriteStock,
            Cap::ReadBooks,
            Cap::WriteBooks,
            Cap::Vat,
            Cap::Admin,
            Cap::Owner,
        ] {
            assert!(Role::Owner.may(cap));
        }
        assert!(!Role::Staff.may(Cap::ReadBooks));
        assert!(!Role::Accountant.may(Cap::WriteStock));
        assert!(!Role::Viewer.may(Cap::WriteBooks));
        assert!(!Role::Manager.may(Cap::Vat));
    }
}
