//! Priced documents as one [`Resource`] over their [`DocKind`]: `/api/invoices`,
//! `/api/bills`, `/api/credit-notes`, `/api/supplier-credits` and their `/api/v1` lists
//! and creates (docs/accounting.md#invoices-and-bills,
//! docs/conventions.md#collection-paths). The rules are in [`super::rules`]; everything
//! that differs per kind is a fact of [`DocKind`].
//!
//! Adding a kind (docs/architecture.md#adding-a-resource): its facts in [`super::kind`],
//! then one line in [`priced_kinds!`] below, which gives it a type for [`Resource`], its
//! four session routes and a place in [`routes`].

use std::marker::PhantomData;

use rusqlite::{Connection, Transaction};

use super::kind::DocKind;
use super::record::{CreateDocument, Document, UpdateDocument};
use super::rules;
use crate::accounting::common::Which;
use crate::accounting::resource::Resource;
use crate::ctx::Ctx;
use crate::error::AppResult;
use crate::http::paging::{Order, Page};
use crate::scope::Scope;

/// A kind of priced document as a type, so that [`Resource`] and `session_crud!` (which
/// work on types) serve it.
pub trait Kind: Send + Sync + 'static {
    const KIND: DocKind;
}

/// The resource of one kind of priced document: the same rules for every kind.
pub struct Priced<K>(PhantomData<K>);

impl<K: Kind> Resource for Priced<K> {
    type Record = Document;
    type Create = CreateDocument;
    type Update = UpdateDocument;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<Document>> {
        rules::list(conn, scope, K::KIND, which, page, order)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateDocument,
        ctx: &Ctx,
    ) -> AppResult<Document> {
        let d = rules::create(tx, scope, K::KIND, b, ctx)?;
        changed(tx, scope, K::KIND, &d, ctx)?;
        Ok(d)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateDocument,
        ctx: &Ctx,
    ) -> AppResult<Document> {
        let d = rules::update(tx, scope, K::KIND, b, ctx)?;
        changed(tx, scope, K::KIND, &d, ctx)?;
        Ok(d)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        rules::delete(tx, scope, K::KIND, id)
    }
}

/// The kind's `<kind>.updated` event of a created or changed document
/// (docs/webhooks.md#events).
fn changed(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    d: &Document,
    ctx: &Ctx,
) -> AppResult<()> {
    crate::webhooks::outbox::emit(
        tx,
        &scope.owner_for(tx, d.entity_id.as_deref())?,
        d.entity_id.as_deref(),
        kind.event(),
        d,
        &ctx.now,
    )
}

/// `module: Type = <DocKind variant>, "<path>?<q..>", "<path>";` per kind: a marker type, the
/// [`Resource`] `Type`, the session routes in `module`, all of them in [`routes`]. Rocket
/// wants the paths as literals; a test checks them against [`DocKind::path`].
macro_rules! priced_kinds {
    ($($module:ident: $name:ident = $kind:ident, $list:tt, $path:tt;)*) => {
        $(
            #[doc = concat!("The session routes of `DocKind::", stringify!($kind), "`.")]
            pub mod $module {
                pub struct Marker;
                impl super::Kind for Marker {
                    const KIND: super::DocKind = super::DocKind::$kind;
                }
                crate::accounting::resource::session_crud!(super::Priced<Marker>, $list, $path);
            }
            #[doc = concat!("The resource of `DocKind::", stringify!($kind), "`.")]
            pub type $name = Priced<$module::Marker>;
        )*

        /// The session routes of every kind of priced document, to mount at `/api`.
        pub fn routes() -> Vec<rocket::Route> {
            [$($module::routes()),*].concat()
        }
    };
}

priced_kinds! {
    invoices: Invoices = Invoice, "/invoices?<q..>", "/invoices";
    bills: Bills = Bill, "/bills?<q..>", "/bills";
    credit_notes: CreditNotes = CreditNote, "/credit-notes?<q..>", "/credit-notes";
    supplier_credits: SupplierCredits = SupplierCredit, "/supplier-credits?<q..>", "/supplier-credits";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_mounted_at_its_path_with_the_four_methods() {
        let routes = routes();
        for kind in DocKind::ALL {
            let mut methods: Vec<_> = routes
                .iter()
                .filter(|r| r.uri.path() == kind.path())
                .map(|r| r.method.as_str())
                .collect();
            methods.sort_unstable();
            assert_eq!(methods, ["DELETE", "GET", "POST", "PUT"], "{kind:?}");
        }
        assert_eq!(routes.len(), 4 * DocKind::ALL.len());
    }
}
