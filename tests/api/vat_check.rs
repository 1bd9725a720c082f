//! `stockbook check` on filed VAT returns (docs/vat.md#filed-returns,
//! docs/operations.md#check): figures whose relations break, a period no longer locked,
//! and overlapping returns, each found in words.

use super::common;

use common::*;

/// Writes a filed return behind the server's back (as a damaged or edited file holds it).
fn file(t: &TestApp, entity: &str, from: &str, to: &str, boxes: [i64; 9]) {
    let (entity, from, to) = (entity.to_owned(), from.to_owned(), to.to_owned());
    t.db.write_sync(move |tx| {
        let (owner, user): (String, String) = tx.query_row(
            "SELECT owner_id, owner_id FROM entities WHERE id = ?1",
            [&entity],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        tx.execute(
            "INSERT INTO vat_returns (id, owner_id, entity_id, period_from, period_to, scheme,
                 box1, box2, box3, box4, box5, box6, box7, box8, box9, method, filed_at, filed_by)
             VALUES (?1, ?2, ?3, ?4, ?5, 'standard', ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
                 'recorded', '2026-01-10T09:00:00Z', ?15)",
            rusqlite::params![
                uuid::Uuid::new_v4().to_string(),
                owner,
                entity,
                from,
                to,
                boxes[0],
                boxes[1],
                boxes[2],
                boxes[3],
                boxes[4],
                boxes[5],
                boxes[6],
                boxes[7],
                boxes[8],
                user
            ],
        )?;
        Ok(())
    })
    .unwrap();
}

fn lock(t: &TestApp, entity: &str, date: Option<&str>) {
    let (entity, date) = (entity.to_owned(), date.map(str::to_owned));
    t.db.write_sync(move |tx| {
        tx.execute(
            "UPDATE entities SET lock_date = ?1 WHERE id = ?2",
            rusqlite::params![date, entity],
        )?;
        Ok(())
    })
    .unwrap();
}

fn breaches(t: &TestApp) -> Vec<String> {
    t.db.read_sync(|c| Ok(stockbook::ops::check::breaches(c, false).unwrap()))
        .unwrap()
}

#[test]
fn check_finds_a_filed_return_whose_figures_period_or_lock_broke() {
    let (t, entity) = app_with_entity();
    // £1,000.00 due on sales, £400.00 reclaimed: box 5 £600.00; boxes 6-9 in pounds.
    file(
        &t,
        &entity,
        "2026-01-01",
        "2026-03-31",
        [100_000, 0, 100_000, 40_000, 60_000, 5_000, 2_000, 0, 0],
    );
    lock(&t, &entity, Some("2026-03-31"));
    assert_eq!(breaches(&t), Vec::<String>::new());

    // The lock date moved back behind the server's back: the filed period could change.
    lock(&t, &entity, Some("2026-02-28"));
    let found = breaches(&t);
    assert!(
        found.len() == 1 && found[0].contains("lock date is 2026-02-28"),
        "{found:?}"
    );
    lock(&t, &entity, None);
    assert!(breaches(&t)[0].contains("lock date is not set"));
    lock(&t, &entity, Some("2026-06-30"));

    // Figures HMRC would refuse: box 3 not 1 + 2, box 5 not |3 - 4|; and an overlap.
    file(
        &t,
        &entity,
        "2026-04-01",
        "2026-06-30",
        [100, 50, 100, 0, 100, 0, 0, 0, 0],
    );
    file(
        &t,
        &entity,
        "2026-03-01",
        "2026-03-31",
        [0, 0, 0, 100, 50, 0, 0, 0, 0],
    );
    let found = breaches(&t).join("\n");
    assert!(found.contains("box 3 is not box 1 + box 2"), "{found}");
    assert!(found.contains("box 5 is not the difference"), "{found}");
    assert!(found.contains("overlaps that of return"), "{found}");
    assert_eq!(breaches(&t).len(), 3, "{found}");
}
