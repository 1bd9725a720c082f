//! The kinds of priced document, and every fact that differs between them
//! (docs/accounting.md#invoices-and-bills, docs/documents-stock.md#the-one-rule).
//!
//! This is the one source of those facts: the rules ([`super::rules`]), the stock rule
//! ([`super::stock`]), the session and public routes ([`super::resource`]), the OpenAPI
//! document and, through it, the web app read them from here. Adding a kind is a
//! migration for its two tables, a variant here with its facts, and one line in
//! [`super::resource`] (docs/architecture.md#adding-a-resource). A leaf: it imports no
//! other file of `documents`.

use crate::accounting::lines::{LineRules, PriceSource};

/// A kind of priced document with lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    Invoice,
    Bill,
}

/// Which way a posted document moves stock at its location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Stock out as a `sale` at the product's cost price; taken back as a `return` at the
    /// document's own average sale cost. The document shows its `cost_of_sales`.
    Out,
    /// Stock in as a `purchase` at the lines' net over their quantity; taken back as a
    /// `return` without cost.
    In,
}

/// What a document without a `number` gets, and what a number must be unique among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberRule {
    /// `<prefix><n>` (at least 4 digits), one past the highest in use, when omitted; unique
    /// per entity ignoring case; a document keeps its number.
    Sequence { prefix: &'static str },
    /// The contact's own number, null when omitted; unique per entity and contact.
    PerContact,
}

impl DocKind {
    /// Every kind, in the order the routes are mounted.
    pub const ALL: [DocKind; 2] = [DocKind::Invoice, DocKind::Bill];

    /// The document table (migration V3); its lines are in [`Self::lines_table`].
    pub const fn table(self) -> &'static str {
        match self {
            Self::Invoice => "invoices",
            Self::Bill => "bills",
        }
    }

    pub const fn lines_table(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_lines",
            Self::Bill => "bill_lines",
        }
    }

    /// The collection path under `/api` and `/api/v1` (docs/conventions.md#collection-paths).
    pub const fn path(self) -> &'static str {
        match self {
            Self::Invoice => "/invoices",
            Self::Bill => "/bills",
        }
    }

    /// `Invoice`: the start of its 404 and 409 messages.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Invoice => "Invoice",
            Self::Bill => "Bill",
        }
    }

    /// "an invoice": the noun with its article, for messages.
    pub const fn a_noun(self) -> &'static str {
        match self {
            Self::Invoice => "an invoice",
            Self::Bill => "a bill",
        }
    }

    /// What the document's contact is to it: `customer` or `supplier`.
    pub const fn contact_role(self) -> &'static str {
        match self {
            Self::Invoice => "customer",
            Self::Bill => "supplier",
        }
    }

    /// Every status a document of this kind may have; `draft` is the default.
    pub const fn statuses(self) -> &'static [&'static str] {
        match self {
            Self::Invoice => &["draft", "sent", "paid", "void"],
            Self::Bill => &["draft", "awaiting_payment", "paid", "void"],
        }
    }

    /// The statuses in which a document is posted: it then holds stock, given a location
    /// (docs/documents-stock.md#the-one-rule).
    pub const fn posted_statuses(self) -> &'static [&'static str] {
        match self {
            Self::Invoice => &["sent", "paid"],
            Self::Bill => &["awaiting_payment", "paid"],
        }
    }

    pub fn is_posted(self, status: &str) -> bool {
        self.posted_statuses().contains(&status)
    }

    pub const fn direction(self) -> Direction {
        match self {
            Self::Invoice => Direction::Out,
            Self::Bill => Direction::In,
        }
    }

    pub const fn numbering(self) -> NumberRule {
        match self {
            Self::Invoice => NumberRule::Sequence { prefix: "INV-" },
            Self::Bill => NumberRule::PerContact,
        }
    }

    /// Which product price a line naming a product takes when it has no `unit_price`.
    pub const fn price_source(self) -> PriceSource {
        match self {
            Self::Invoice => PriceSource::UnitPrice,
            Self::Bill => PriceSource::CostPrice,
        }
    }

    /// Whether a line may be `reverse_charge`: purchases only, where the buyer accounts
    /// for the VAT (docs/accounting.md#vat-treatment).
    pub const fn allows_reverse_charge(self) -> bool {
        match self {
            Self::Invoice => false,
            Self::Bill => true,
        }
    }

    /// What the lines of a document of this kind may hold ([`crate::accounting::lines::build`]).
    pub const fn line_rules(self) -> LineRules {
        LineRules {
            price_source: self.price_source(),
            reverse_charge: self.allows_reverse_charge(),
            line_noun: match self {
                Self::Invoice => "an invoice line",
                Self::Bill => "a bill line",
            },
        }
    }

    /// `document_type` of a payment on a document of this kind
    /// (docs/accounting.md#payments).
    pub const fn document_type(self) -> &'static str {
        match self {
            Self::Invoice => "invoice",
            Self::Bill => "bill",
        }
    }

    /// The statuses money moves a posted document between, `(owing, paid)`: it becomes
    /// `paid` when nothing is due, and `owing` again when a payment of a `paid` one goes
    /// (docs/accounting.md#status-follows-money). None: its status never follows money.
    pub const fn money_statuses(self) -> Option<(&'static str, &'static str)> {
        match self {
            Self::Invoice => Some(("sent", "paid")),
            Self::Bill => Some(("awaiting_payment", "paid")),
        }
    }

    /// The webhook event of a created or changed document (docs/webhooks.md#events).
    pub const fn event(self) -> &'static str {
        match self {
            Self::Invoice => crate::webhooks::outbox::INVOICE_UPDATED,
            Self::Bill => crate::webhooks::outbox::BILL_UPDATED,
        }
    }
}

/// The statuses of invoices and bills, for the OpenAPI document: the same as
/// [`DocKind::statuses`].
pub const INVOICE_STATUSES: &[&str] = DocKind::Invoice.statuses();
pub const BILL_STATUSES: &[&str] = DocKind::Bill.statuses();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_posted_status_is_a_status_and_draft_is_never_posted() {
        for kind in DocKind::ALL {
            assert!(kind.statuses().contains(&"draft"));
            assert!(!kind.is_posted("draft"));
            for s in kind.posted_statuses() {
                assert!(kind.statuses().contains(s), "{kind:?} {s}");
            }
        }
    }
}
