//! Bills: `/api/bills`, `/api/v1/bills`. The document rules are in [`super::documents`].

use rusqlite::{Connection, Transaction};

use super::common::Which;
use super::documents::{self, CreateDocument, DocKind, Document, UpdateDocument};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::error::AppResult;
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::Scope;

pub struct Bills;

impl Resource for Bills {
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
        documents::list(conn, scope, DocKind::Bill, which, page, order)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateDocument,
        ctx: &Ctx,
    ) -> AppResult<Document> {
        let d = documents::create(tx, scope, DocKind::Bill, b, ctx)?;
        changed(tx, scope, &d, ctx)?;
        Ok(d)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateDocument,
        ctx: &Ctx,
    ) -> AppResult<Document> {
        let d = documents::update(tx, scope, DocKind::Bill, b, ctx)?;
        changed(tx, scope, &d, ctx)?;
        Ok(d)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        documents::delete(tx, scope, DocKind::Bill, id)
    }
}

/// The `bill.updated` event of a created or changed bill (docs/webhooks.md#events).
fn changed(tx: &Transaction, scope: &Scope, d: &Document, ctx: &Ctx) -> AppResult<()> {
    crate::webhooks::outbox::emit(
        tx,
        &scope.owner_id,
        d.entity_id.as_deref(),
        crate::webhooks::outbox::BILL_UPDATED,
        d,
        &ctx.now,
    )
}

session_crud!(Bills, "/bills?<q..>", "/bills");
