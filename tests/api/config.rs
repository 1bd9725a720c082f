//! Configuration (docs/configuration.md): the defaults, and every bad value refused at start with
//! a message naming its key.

use super::common;

use common::*;
use rocket::figment::providers::Serialized;
use rocket::figment::Figment;
use serde_json::{json, Value};
use stockbook::config::{AppConfig, Plan, SignupMode, Synchronous};

fn config_with(key: &str, value: Value) -> Result<AppConfig, String> {
    AppConfig::from_figment(&test_figment(&[(key, value)]))
}

#[test]
fn the_defaults_are_those_of_decisions_section_0() {
    let f = Figment::from(rocket::Config::default()).merge(Serialized::defaults(
        stockbook::config::figment_value(&stockbook::config::defaults()),
    ));
    let c = AppConfig::from_figment(&f).unwrap();
    assert_eq!(c.database, "stockbook.db");
    assert_eq!(c.signup, SignupMode::FirstUser);
    assert_eq!(c.plan, Plan::Pro);
    assert!(!c.allow_negative_stock);
    assert_eq!(c.session_days, 14);
    assert_eq!(c.synchronous, Synchronous::Full);
    let rocket: rocket::Config = f.extract().unwrap();
    assert_eq!(
        rocket.limits.get("json"),
        Some(rocket::data::ByteUnit::Mebibyte(32))
    );
    assert_eq!(rocket.port, 8000);
    assert_eq!(rocket.address.to_string(), "127.0.0.1");
}

#[test]
fn a_bad_signup_value_is_refused_naming_the_key() {
    let e = config_with("signup", json!("everyone")).unwrap_err();
    assert!(e.contains("`signup`"), "{e}");
}

#[test]
fn a_bad_plan_is_refused_naming_the_key() {
    let e = config_with("plan", json!("gold")).unwrap_err();
    assert!(e.contains("`plan`"), "{e}");
}

#[test]
fn a_bad_synchronous_value_is_refused_naming_the_key() {
    let e = config_with("synchronous", json!("off")).unwrap_err();
    assert!(e.contains("`synchronous`"), "{e}");
}

#[test]
fn a_session_lifetime_out_of_range_is_refused_naming_the_key() {
    for bad in [json!(0), json!(-3), json!(100_000)] {
        let e = config_with("session_days", bad).unwrap_err();
        assert!(e.contains("`session_days`"), "{e}");
    }
}

#[test]
fn a_value_of_the_wrong_type_is_refused_naming_the_key() {
    let e = config_with("session_days", json!("a fortnight")).unwrap_err();
    assert!(e.contains("`session_days`"), "{e}");
    let e = config_with("allow_negative_stock", json!("maybe")).unwrap_err();
    assert!(e.contains("`allow_negative_stock`"), "{e}");
}

#[test]
fn valid_values_are_accepted() {
    let c = AppConfig::from_figment(&test_figment(&[
        ("signup", json!("first-user")),
        ("plan", json!("essential")),
        ("synchronous", json!("normal")),
        ("session_days", json!(30)),
        ("allow_negative_stock", json!(true)),
    ]))
    .unwrap();
    assert_eq!(c.signup, SignupMode::FirstUser);
    assert_eq!(c.plan, Plan::Essential);
    assert_eq!(c.synchronous, Synchronous::Normal);
    assert_eq!(c.session_days, 30);
    assert!(c.allow_negative_stock);
}
