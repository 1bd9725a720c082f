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
    /// A credit to a customer, optionally against one of its invoices.
    CreditNote,
    /// A credit from a supplier, optionally against one of its bills.
    SupplierCredit,
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
    /// Goods a customer sends back (credit notes): stock in as a `return` at the unit cost
    /// the credited invoice's sale booked for the product (the product's cost price when
    /// unlinked or the invoice sold none); taken back as a `return` at the document's own
    /// average cost of what it took in.
    ReturnIn,
    /// Goods sent back to a supplier (supplier credits): stock out as a `return` without
    /// cost, and back in the same way.
    ReturnOut,
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
    pub const ALL: [DocKind; 4] = [
        DocKind::Invoice,
        DocKind::Bill,
        DocKind::CreditNote,
        DocKind::SupplierCredit,
    ];

    /// The document table (migration V3; credits V23); its lines are in [`Self::lines_table`].
    pub const fn table(self) -> &'static str {
        match self {
            Self::Invoice => "invoices",
            Self::Bill => "bills",
            Self::CreditNote => "credit_notes",
            Self::SupplierCredit => "supplier_credits",
        }
    }

    pub const fn lines_table(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_lines",
            Self::Bill => "bill_lines",
            Self::CreditNote => "credit_note_lines",
            Self::SupplierCredit => "supplier_credit_lines",
        }
    }

    /// The collection path under `/api` and `/api/v1` (docs/conventions.md#collection-paths).
    pub const fn path(self) -> &'static str {
        match self {
            Self::Invoice => "/invoices",
            Self::Bill => "/bills",
            Self::CreditNote => "/credit-notes",
            Self::SupplierCredit => "/supplier-credits",
        }
    }

    /// `Invoice`: the start of its 404 and 409 messages.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Invoice => "Invoice",
            Self::Bill => "Bill",
            Self::CreditNote => "Credit note",
            Self::SupplierCredit => "Supplier credit",
        }
    }

    /// "an invoice": the noun with its article, for messages.
    pub const fn a_noun(self) -> &'static str {
        match self {
            Self::Invoice => "an invoice",
            Self::Bill => "a bill",
            Self::CreditNote => "a credit note",
            Self::SupplierCredit => "a supplier credit",
        }
    }

    /// What the document's contact is to it: `customer` or `supplier`.
    pub const fn contact_role(self) -> &'static str {
        match self {
            Self::Invoice | Self::CreditNote => "customer",
            Self::Bill | Self::SupplierCredit => "supplier",
        }
    }

    /// Every status a document of this kind may have; `draft` is the default.
    pub const fn statuses(self) -> &'static [&'static str] {
        match self {
            Self::Invoice => &["draft", "sent", "paid", "void"],
            Self::Bill => &["draft", "awaiting_payment", "paid", "void"],
            Self::CreditNote | Self::SupplierCredit => &["draft", "posted", "void"],
        }
    }

    /// The statuses in which a document is posted: it then holds stock, given a location
    /// (docs/documents-stock.md#the-one-rule).
    pub const fn posted_statuses(self) -> &'static [&'static str] {
        match self {
            Self::Invoice => &["sent", "paid"],
            Self::Bill => &["awaiting_payment", "paid"],
            Self::CreditNote | Self::SupplierCredit => &["posted"],
        }
    }

    pub fn is_posted(self, status: &str) -> bool {
        self.posted_statuses().contains(&status)
    }

    pub const fn direction(self) -> Direction {
        match self {
            Self::Invoice => Direction::Out,
            Self::Bill => Direction::In,
            Self::CreditNote => Direction::ReturnIn,
            Self::SupplierCredit => Direction::ReturnOut,
        }
    }

    pub const fn numbering(self) -> NumberRule {
        match self {
            Self::Invoice => NumberRule::Sequence { prefix: "INV-" },
            Self::Bill | Self::SupplierCredit => NumberRule::PerContact,
            Self::CreditNote => NumberRule::Sequence { prefix: "CN-" },
        }
    }

    /// Which product price a line naming a product takes when it has no `unit_price`.
    pub const fn price_source(self) -> PriceSource {
        match self {
            Self::Invoice | Self::CreditNote => PriceSource::UnitPrice,
            Self::Bill | Self::SupplierCredit => PriceSource::CostPrice,
        }
    }

    /// Whether a line may be `reverse_charge`: purchases only, where the buyer accounts
    /// for the VAT (docs/accounting.md#vat-treatment).
    pub const fn allows_reverse_charge(self) -> bool {
        match self {
            Self::Invoice | Self::CreditNote => false,
            Self::Bill | Self::SupplierCredit => true,
        }
    }

    /// What the lines of a document of this kind may hold ([`crate::accounting::lines::build`]).
    pub const fn line_rules(self) -> LineRules {
        LineRules {
            price_source: self.price_source(),
            reverse_charge: self.allows_reverse_charge(),
            // Capital goods are purchases, as reverse charge is (docs/vat.md#capital-goods).
            capital_goods: self.allows_reverse_charge(),
            line_noun: match self {
                Self::Invoice => "an invoice line",
                Self::Bill => "a bill line",
                Self::CreditNote => "a credit note line",
                Self::SupplierCredit => "a supplier credit line",
            },
        }
    }

    /// `document_type` of a payment on a document of this kind
    /// (docs/accounting.md#payments).
    pub const fn document_type(self) -> &'static str {
        match self {
            Self::Invoice => "invoice",
            Self::Bill => "bill",
            Self::CreditNote => "credit_note",
            Self::SupplierCredit => "supplier_credit",
        }
    }

    /// The statuses money moves a posted document between, `(owing, paid)`: it becomes
    /// `paid` when nothing is due, and `owing` again when a payment of a `paid` one goes
    /// (docs/accounting.md#status-follows-money). None: its status never follows money.
    pub const fn money_statuses(self) -> Option<(&'static str, &'static str)> {
        match self {
            Self::Invoice => Some(("sent", "paid")),
            Self::Bill => Some(("awaiting_payment", "paid")),
            // A credit's status is the client's: posted or void, refunded or not.
            Self::CreditNote | Self::SupplierCredit => None,
        }
    }

    /// The webhook event of a created or changed document (docs/webhooks.md#events).
    pub const fn event(self) -> &'static str {
        match self {
            Self::Invoice => crate::webhooks::outbox::INVOICE_UPDATED,
            Self::Bill => crate::webhooks::outbox::BILL_UPDATED,
            Self::CreditNote => crate::webhooks::outbox::CREDIT_NOTE_UPDATED,
            Self::SupplierCredit => crate::webhooks::outbox::SUPPLIER_CREDIT_UPDATED,
        }
    }

    /// The kind a document of this kind credits, and the field (and column) naming the
    /// credited document: credit notes credit invoices (`invoice_id`), supplier credits
    /// bills (`bill_id`) (docs/accounting.md#credit-notes-and-supplier-credits).
    pub const fn credits(self) -> Option<(DocKind, &'static str)> {
        match self {
            Self::Invoice | Self::Bill => None,
            Self::CreditNote => Some((Self::Invoice, "invoice_id")),
            Self::SupplierCredit => Some((Self::Bill, "bill_id")),
        }
    }

    /// The kind whose documents credit this one: the converse of [`Self::credits`].
    pub const fn credited_by(self) -> Option<DocKind> {
        match self {
            Self::Invoice => Some(Self::CreditNote),
            Self::Bill => Some(Self::SupplierCredit),
            Self::CreditNote | Self::SupplierCredit => None,
        }
    }

    /// The sign of a posted line's quantity in the stock it moves: −1 out, +1 in.
    pub const fn stock_sign(self) -> i8 {
        match self.direction() {
            Direction::Out | Direction::ReturnOut => -1,
            Direction::In | Direction::ReturnIn => 1,
        }
    }
}

/// The statuses of invoices and bills, for the OpenAPI document: the same as
/// [`DocKind::statuses`].
pub const INVOICE_STATUSES: &[&str] = DocKind::Invoice.statuses();
pub const BILL_STATUSES: &[&str] = DocKind::Bill.statuses();
pub const CREDIT_STATUSES: &[&str] = DocKind::CreditNote.statuses();

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

    #[test]
    fn credits_and_credited_by_are_each_others_converse() {
        for kind in DocKind::ALL {
            if let Some((original, _)) = kind.credits() {
                assert_eq!(original.credited_by(), Some(kind));
            }
            if let Some(credit) = kind.credited_by() {
                assert_eq!(credit.credits().map(|c| c.0), Some(kind));
            }
        }
    }

    /// `stockbook check` (src/inventory/check.rs) cannot read the kinds (inventory sits
    /// below accounting), so it keeps its own table of them: this holds it to the facts.
    #[test]
    fn the_ledger_check_knows_every_kind_as_the_kinds_say() {
        let table = crate::inventory::check::DOCUMENT_KINDS;
        assert_eq!(table.len(), DocKind::ALL.len());
        for kind in DocKind::ALL {
            let k = table
                .iter()
                .find(|k| k.table == kind.table())
                .unwrap_or_else(|| panic!("{kind:?} missing from the ledger check"));
            assert_eq!(k.lines, kind.lines_table());
            assert_eq!(k.label, kind.label());
            assert_eq!(k.posted, kind.posted_statuses());
            assert_eq!(k.sign, i128::from(kind.stock_sign()));
        }
    }
}
