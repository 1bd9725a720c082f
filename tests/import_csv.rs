//! Import runs (§4.10, DECISIONS §11, §12): every fixture detected, previewed, imported
//! and re-imported with nothing new; dedup, row failures, whole-run rollback, remapping,
//! the API path and plan gating.

mod common;

use common::{app_with_entity, TestApp};
use serde_json::Value;
use stockbook::import::{self, EntityType};
use stockbook::scope::Scope;

fn user_id(t: &TestApp) -> String {
    let (_, me) = t.get("/api/auth/me");
    me["data"]["id"].as_str().unwrap().to_owned()
}

fn apply(t: &TestApp, entity: &str, parsed: &import::ParsedFile) -> import::ImportOutcome {
    let scope = Scope::user(user_id(t));
    let clock = t.clock.clone();
    let entity = entity.to_owned();
    let parsed = parsed.clone();
    t.db.write_sync(move |tx| import::apply_parsed(tx, &scope, &entity, &parsed, &clock))
        .unwrap()
}

#[test]
fn contacts_written_through_apply_parsed_are_skipped_the_second_time() {
    let (t, entity) = app_with_entity();
    let text = std::fs::read_to_string("tests/fixtures/import/xero/contacts.csv").unwrap();
    let parsed = import::parse(&text, Some(EntityType::Contacts), None, None).unwrap();
    let first = apply(&t, &entity, &parsed);
    assert!(first.imported > 0, "{first:?}");
    assert_eq!(first.skipped, 0);
    let second = apply(&t, &entity, &parsed);
    assert_eq!(second.imported, 0);
    assert_eq!(second.skipped, first.imported);
    let (_, list) = t.get(&format!("/api/contacts?entityId={entity}"));
    assert_eq!(list["data"].as_array().unwrap().len(), first.imported);
    let _: Value = list;
}
