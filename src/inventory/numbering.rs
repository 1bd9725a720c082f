//! Document numbers: `TO-001`, `ST-001`, ... per entity (DECISIONS §6, §7, §12).
//!
//! The next number is read and used inside the caller's `BEGIN IMMEDIATE` transaction,
//! so two concurrent creates never get the same one; the `UNIQUE (entity_id, number_seq)`
//! constraint of the tables backs this up. Past 999 the number simply grows (`TO-1000`).

use rusqlite::Transaction;

use crate::error::AppResult;

#[derive(Debug, Clone, Copy)]
pub enum Document {
    TransferOrder,
    StockTake,
}

impl Document {
    fn table(self) -> &'static str {
        match self {
            Self::TransferOrder => "transfer_orders",
            Self::StockTake => "stock_takes",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Self::TransferOrder => "TO",
            Self::StockTake => "ST",
        }
    }
}

/// The next sequence and its formatted number for a document of `entity_id`.
pub fn next_number(tx: &Transaction, doc: Document, entity_id: &str) -> AppResult<(i64, String)> {
    let last: i64 = tx.query_row(
        &format!(
            "SELECT COALESCE(MAX(number_seq), 0) FROM {} WHERE entity_id = ?1",
            doc.table()
        ),
        [entity_id],
        |r| r.get(0),
    )?;
    let seq = last + 1;
    Ok((seq, format!("{}-{seq:03}", doc.prefix())))
}
