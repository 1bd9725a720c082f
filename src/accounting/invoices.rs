//! Invoices: `/api/invoices`, `/api/v1/invoices`. The document rules are in [`super::documents`].

use rusqlite::{Connection, Transaction};

use super::documents::{self, CreateDocument, DocKind, Document, UpdateDocument};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::error::AppResult;
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::Scope;

pub struct Invoices;

impl Resource for Invoices {
    type Record = Document;
    type Create = CreateDocument;
    type Update = UpdateDocument;

    fn list(
        conn: &Connection,
        scope: &Scope,
        entity: Option<&str>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<Document>> {
        documents::list(conn, scope, DocKind::Invoice, entity, page, order)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateDocument,
        ctx: &Ctx,
    ) -> AppResult<Document> {
        documents::create(tx, scope, DocKind::Invoice, b, ctx)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateDocument,
        ctx: &Ctx,
    ) -> AppResult<Document> {
        documents::update(tx, scope, DocKind::Invoice, b, ctx)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        documents::delete(tx, scope, DocKind::Invoice, id)
    }
}

session_crud!(Invoices, "/invoices?<q..>", "/invoices");
