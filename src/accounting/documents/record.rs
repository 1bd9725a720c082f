//! The priced document record as its answers show it, its create and update bodies, and
//! how its row reads (docs/accounting.md#invoices-and-bills). A leaf beside
//! [`super::kind`]: the rules and the stock rule both read it.

use rusqlite::Row;
use serde::{Deserialize, Serialize};

use super::kind::DocKind;
use crate::accounting::common::ListSql;
use crate::accounting::lines::{Line, LineInput};
use crate::db::decimal::{Money, Rate};
use crate::http::body::nullable;

#[derive(Debug, Clone, Serialize)]
pub struct Document {
    pub id: String,
    pub number: Option<String>,
    pub contact_id: String,
    pub contact_name: String,
    pub issue_date: String,
    pub due_date: String,
    pub status: String,
    pub notes: Option<String>,
    pub lines: Vec<Line>,
    pub subtotal: Money,
    pub vat_total: Money,
    pub total: Money,
    pub amount_paid: Money,
    /// The posted credits linked to this document (docs/accounting.md#amount-due).
    pub amount_credited: Money,
    /// `total − amount_paid − amount_credited`: what is still owed; never negative.
    pub amount_due: Money,
    /// ISO 4217; the amounts are in it (docs/accounting.md#currencies).
    pub currency: String,
    /// Pounds per one unit of `currency` (1 for GBP).
    pub exchange_rate: Rate,
    pub provider: Option<String>,
    pub provider_ref: Option<String>,
    pub entity_id: Option<String>,
    /// Where the document takes (invoice) or brings (bill) stock once posted.
    pub location_id: Option<String>,
    /// Invoices posted with a location: Σ -qty × unit_cost of their movements (2 dp);
    /// null otherwise, and always on bills.
    pub cost_of_sales: Option<Money>,
    /// Credits only: the credited document, as `invoice_id` (credit notes) or `bill_id`
    /// (supplier credits); absent from the other kinds' answers
    /// (docs/accounting.md#credit-notes-and-supplier-credits).
    #[serde(flatten)]
    pub link: Link,
    pub created_at: String,
    pub updated_at: String,
    /// False for imported documents: they never move stock.
    #[serde(skip)]
    pub moves_stock: bool,
}

/// The link of a credit to the document it credits: `field` is the kind's
/// ([`DocKind::credits`]), none for invoices and bills. Answers show it as one field,
/// `"invoice_id": ...` or `"bill_id": ...`, null when unlinked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Link {
    pub field: Option<&'static str>,
    pub id: Option<String>,
}

impl Link {
    pub fn of(kind: DocKind, id: Option<String>) -> Self {
        Self {
            field: kind.credits().map(|(_, f)| f),
            id,
        }
    }
}

impl Serialize for Link {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(usize::from(self.field.is_some())))?;
        if let Some(f) = self.field {
            m.serialize_entry(f, &self.id)?;
        }
        m.end()
    }
}

/// The columns of a kind's list, in [`from_row`]'s order; the last is the credited
/// document of a credit (null for the other kinds).
pub(super) fn columns(kind: DocKind) -> String {
    let link = kind.credits().map_or("NULL", |(_, f)| f);
    format!(
        "t.id, t.number, t.contact_id, c.name, t.issue_date, t.due_date, t.status,
    t.notes, t.subtotal, t.vat_total, t.total, t.amount_paid, t.provider, t.provider_ref,
    t.entity_id, t.created_at, t.updated_at, t.location_id, t.moves_stock, t.amount_credited,
    t.currency, t.exchange_rate, t.{link}"
    )
    .replace("t.NULL", "NULL")
}

pub(super) fn from_row(kind: DocKind, r: &Row<'_>) -> rusqlite::Result<Document> {
    let total: Money = r.get(10)?;
    let amount_paid: Money = r.get(11)?;
    let amount_credited: Money = r.get(19)?;
    Ok(Document {
        id: r.get(0)?,
        number: r.get(1)?,
        contact_id: r.get(2)?,
        contact_name: r.get(3)?,
        issue_date: r.get(4)?,
        due_date: r.get(5)?,
        status: r.get(6)?,
        notes: r.get(7)?,
        lines: Vec::new(),
        subtotal: r.get(8)?,
        vat_total: r.get(9)?,
        total,
        amount_paid,
        amount_credited,
        amount_due: total - amount_paid - amount_credited,
        currency: r.get(20)?,
        exchange_rate: r.get(21)?,
        provider: r.get(12)?,
        provider_ref: r.get(13)?,
        entity_id: r.get(14)?,
        location_id: r.get(17)?,
        cost_of_sales: None,
        link: Link::of(kind, r.get(22)?),
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
        moves_stock: r.get(18)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateDocument {
    #[serde(default)]
    pub number: Option<String>,
    pub contact_id: String,
    #[serde(default)]
    pub issue_date: Option<String>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineInput>>,
    #[serde(default)]
    pub amount_paid: Option<Money>,
    /// Default the entity's currency (docs/accounting.md#currencies).
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub exchange_rate: Option<Rate>,
    /// The date of the payment a higher `amount_paid` records (docs/accounting.md#payments).
    #[serde(default)]
    pub paid_date: Option<String>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
    /// Absent: the entity's default location; null: none.
    #[serde(default, deserialize_with = "nullable")]
    pub location_id: Option<Option<String>>,
    /// Credit notes: the invoice credited (other kinds ignore it).
    #[serde(default)]
    pub invoice_id: Option<String>,
    /// Supplier credits: the bill credited (other kinds ignore it).
    #[serde(default)]
    pub bill_id: Option<String>,
}

impl CreateDocument {
    /// The link field of `kind` as sent (none for kinds that credit nothing).
    pub(super) fn link(&self, kind: DocKind) -> Option<&str> {
        match kind.credits()?.1 {
            "invoice_id" => self.invoice_id.as_deref(),
            _ => self.bill_id.as_deref(),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct UpdateDocument {
    pub id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub number: Option<Option<String>>,
    #[serde(default)]
    pub contact_id: Option<String>,
    #[serde(default)]
    pub issue_date: Option<String>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub notes: Option<Option<String>>,
    /// When present, replaces every line.
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineInput>>,
    #[serde(default)]
    pub amount_paid: Option<Money>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub exchange_rate: Option<Rate>,
    /// The date of the payment a higher `amount_paid` or status `paid` records.
    #[serde(default)]
    pub paid_date: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider_ref: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub location_id: Option<Option<String>>,
    /// Credit notes: the invoice credited; null unlinks.
    #[serde(default, deserialize_with = "nullable")]
    pub invoice_id: Option<Option<String>>,
    /// Supplier credits: the bill credited; null unlinks.
    #[serde(default, deserialize_with = "nullable")]
    pub bill_id: Option<Option<String>>,
}

impl UpdateDocument {
    /// The link field of `kind` as sent: absent, null or an id.
    pub(super) fn link(&self, kind: DocKind) -> Option<Option<&str>> {
        let sent = match kind.credits()?.1 {
            "invoice_id" => self.invoice_id.as_ref(),
            _ => self.bill_id.as_ref(),
        };
        sent.map(Option::as_deref)
    }
}

/// The `FROM` of a kind's list: its table, aliased `t`, with the contact's name.
pub(super) fn list_from(kind: DocKind) -> String {
    format!("{} t JOIN contacts c ON c.id = t.contact_id", kind.table())
}

/// One document of a kind without its lines (404 when unknown or foreign).
pub(super) fn one(
    conn: &rusqlite::Connection,
    scope: &crate::scope::Scope,
    kind: DocKind,
    id: &str,
) -> crate::error::AppResult<Document> {
    let (from, cols) = (list_from(kind), columns(kind));
    list_sql(&from, &cols).one(conn, scope, kind.label(), id, |r| from_row(kind, r))
}

/// The list query over [`list_from`] and [`columns`].
pub(super) fn list_sql<'a>(from: &'a str, columns: &'a str) -> ListSql<'a> {
    ListSql {
        from,
        columns,
        session_order: "t.issue_date DESC, t.seq DESC",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::list_sql::Which;
    use crate::scope::Scope;

    /// A session list page of any kind, for one entity or owner-wide, walks the
    /// `(owner_id[, entity_id], issue_date, seq)` index of migration V24 from its end: no
    /// sort of every record (about 50 ms a page over 100,000 invoices without it).
    #[test]
    fn a_session_page_walks_the_date_index_and_sorts_nothing() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::db::migrate_to(&mut conn, i32::MAX);
        for kind in DocKind::ALL {
            let (from, cols) = (list_from(kind), columns(kind));
            for entity in [None, Some("e1")] {
                let scope = Scope::user("u1");
                let which = Which {
                    entity,
                    ..Which::default()
                };
                let (sql, mut params) = list_sql(&from, &cols).session_sql(&conn, &scope, which);
                params.extend(["101".to_owned(), "0".to_owned()]);
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                let plan: Vec<String> = stmt
                    .query_map(rusqlite::params_from_iter(params.iter()), |r| r.get(3))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                assert!(
                    plan.iter().all(|step| !step.contains("TEMP B-TREE")),
                    "{kind:?} {entity:?}: {plan:?}"
                );
            }
        }
    }
}
