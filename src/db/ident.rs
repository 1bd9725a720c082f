//! The compare key of an identifier people type (a SKU, an email): two identifiers are the
//! same when their keys are equal (docs/inventory.md#look-alike-identifiers). What was
//! typed is kept for display; the key sits beside it in its own column with the unique
//! index, and every lookup by SKU or email goes through it.
//!
//! SQLite cannot compute the key (it has no Unicode normalisation), so rows written before
//! the key column existed get theirs at start ([`fill_missing_keys`]).

use caseless::default_case_fold_str;
use rusqlite::{params, Connection, TransactionBehavior};
use unicode_normalization::UnicodeNormalization;

/// Characters that print as nothing and are removed before comparing: zero width space,
/// non-joiner and joiner (U+200B..U+200D), word joiner (U+2060), the byte order mark or
/// zero width no-break space (U+FEFF) and the soft hyphen (U+00AD).
pub const INVISIBLE: [char; 6] = [
    '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{00AD}',
];

/// The key: invisible characters removed, then NFKC, full Unicode case folding and NFKC
/// again (folding can leave a string that is not normalised, e.g. U+0130), then trimmed.
pub fn compare_key(typed: &str) -> String {
    let visible: String = typed.chars().filter(|c| !INVISIBLE.contains(c)).collect();
    let nfkc: String = visible.nfkc().collect();
    let folded = default_case_fold_str(&nfkc);
    folded.nfkc().collect::<String>().trim().to_owned()
}

/// What [`fill_missing_keys`] could not key: rows whose key another row already has.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Unkeyed {
    /// `(id, sku)` of products left without a key.
    pub products: Vec<(String, String)>,
    /// `(id, email)` of accounts left without a key.
    pub users: Vec<(String, String)>,
}

/// Gives every product and account without a compare key its key, in one transaction;
/// run at start after the migrations, so a second run finds nothing to do. A row whose key
/// an older row already holds (two SKUs or emails that were distinct before look-alikes
/// compared equal) keeps no key and is answered in [`Unkeyed`] for the start to log: the
/// database still opens, both records stay readable, and the newer one must be renamed
/// (docs/inventory.md#look-alike-identifiers).
pub fn fill_missing_keys(conn: &mut Connection) -> rusqlite::Result<Unkeyed> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut unkeyed = Unkeyed::default();
    let products: Vec<(String, String)> = tx
        .prepare("SELECT id, sku FROM products WHERE sku_key IS NULL ORDER BY seq")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, sku) in products {
        let done = tx.execute(
            "UPDATE OR IGNORE products SET sku_key = ?1 WHERE id = ?2",
            params![compare_key(&sku), id],
        )?;
        if done == 0 {
            unkeyed.products.push((id, sku));
        }
    }
    let users: Vec<(String, String)> = tx
        .prepare("SELECT id, email FROM users WHERE email_key IS NULL ORDER BY seq")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, email) in users {
        let done = tx.execute(
            "UPDATE OR IGNORE users SET email_key = ?1 WHERE id = ?2",
            params![compare_key(&email), id],
        )?;
        if done == 0 {
            unkeyed.users.push((id, email));
        }
    }
    super::audit::flush(&tx)?;
    tx.commit()?;
    Ok(unkeyed)
}

#[cfg(test)]
mod tests {
    use super::{compare_key, fill_missing_keys, Unkeyed};

    #[test]
    fn a_database_with_look_alikes_from_before_still_opens_and_keys_the_older_of_each() {
        // Distinct under the old rule (ASCII case only), the same under the new one.
        let (db, dir) = crate::db::upgraded_from(
            17,
            "INSERT INTO users (id, email, password_hash, created_at) VALUES
                 ('u1', 'ann@example.com', 'h', '2026-01-01T00:00:00Z'),
                 ('u2', 'ａｎｎ@example.com', 'h', '2026-01-02T00:00:00Z');
             INSERT INTO products (id, owner_id, name, sku, created_at, updated_at) VALUES
                 ('p1', 'u1', 'One', 'ABC-1', 'x', 'x'),
                 ('p2', 'u1', 'Two', 'ＡＢＣ－１', 'x', 'x'),
                 ('p3', 'u1', 'Three', 'ABC-2', 'x', 'x');",
        );
        let keys: Vec<(String, Option<String>)> = db
            .read_sync(|c| {
                Ok(c.prepare("SELECT id, sku_key FROM products ORDER BY seq")?
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?)
            })
            .unwrap();
        let want = |id: &str, k: Option<&str>| (id.to_owned(), k.map(str::to_owned));
        assert_eq!(
            keys,
            [
                want("p1", Some("abc-1")),
                want("p2", None),
                want("p3", Some("abc-2"))
            ]
        );
        // A second start has the same two left over and changes nothing.
        let again = fill_missing_keys(&mut db.conn().unwrap()).unwrap();
        assert_eq!(
            again,
            Unkeyed {
                products: vec![("p2".into(), "ＡＢＣ－１".into())],
                users: vec![("u2".into(), "ａｎｎ@example.com".into())],
            }
        );
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn look_alikes_share_a_key() {
        let key = compare_key("CAFÉ-1");
        assert_eq!(key, "café-1");
        // Full-width, decomposed, zero-width and case variants.
        for v in [
            "ＣＡＦÉ－１",
            "CAFE\u{301}-1",
            "CA\u{200B}FÉ-1",
            "ca\u{00AD}fé-1",
            "\u{FEFF}Café-1",
        ] {
            assert_eq!(compare_key(v), key, "{v:?}");
        }
        assert_eq!(compare_key("STRASSE"), compare_key("straße"));
        assert_ne!(compare_key("CAFE-1"), key);
    }
}
