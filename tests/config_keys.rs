//! The configuration table is complete and true (docs/configuration.md#keys): it lists
//! every key the server reads, and every key it lists is read.
//!
//! The keys the server reads are taken from the code, not from a second list: the fields
//! of `RawConfig` in `src/config.rs` (a field whose type is another struct of that file
//! stands for its fields, `pulls.max_pages`; a map of such structs for one row per map
//! key, `platforms.<id>`), the keys of `config::defaults()` (Rocket's `limits` and
//! `log_level` among them), and the keys the shipped `Rocket.toml` sets (Rocket's
//! `address` and `port`). Each key of the table is then given a value of the wrong type
//! and must be refused by Stockbook's or Rocket's reading of the configuration, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

use rocket::figment::providers::{Format, Serialized, Toml};
use rocket::figment::value::Value;
use rocket::figment::Figment;
use stockbook::config::{defaults, figment_value, AppConfig};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The stand-in for a map key in the table (`platforms.<id>`).
const MAP_KEY: &str = "<id>";

/// `(name, type)` of every field of `struct <name> { ... }` in `src`, or `None` when the
/// file declares no such struct.
fn struct_fields(src: &str, name: &str) -> Option<Vec<(String, String)>> {
    let mut lines = src.lines().skip_while(|l| {
        let l = l.trim_start().trim_start_matches("pub ");
        l != format!("struct {name} {{")
    });
    lines.next()?;
    let mut fields = Vec::new();
    for line in lines {
        let line = line.trim();
        if line == "}" {
            break;
        }
        if line.starts_with("//") || line.starts_with('#') || line.is_empty() {
            continue;
        }
        let line = line.trim_start_matches("pub ").trim_end_matches(',');
        if let Some((field, ty)) = line.split_once(':') {
            fields.push((field.trim().to_owned(), ty.trim().to_owned()));
        }
    }
    Some(fields)
}

/// The struct a field type names, when `src/config.rs` declares it.
fn local_struct(src: &str, ty: &str) -> Option<Vec<(String, String)>> {
    let ty = ty
        .strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(ty);
    let name = ty.rsplit("::").next().unwrap_or(ty);
    struct_fields(src, name).filter(|f| !f.is_empty())
}

/// Keys the code reads, each with the sub-fields its table row must mention (the fields
/// of a map's value struct).
fn keys_read_by_the_code() -> BTreeMap<String, Vec<String>> {
    let src = fs::read_to_string(root().join("src/config.rs")).expect("src/config.rs");
    let raw = struct_fields(&src, "RawConfig").expect("src/config.rs declares RawConfig");
    assert!(raw.len() > 10, "read only {raw:?} from RawConfig");
    let mut keys = BTreeMap::new();
    for (field, ty) in raw {
        if let Some(inner) = local_struct(&src, &ty) {
            for (sub, _) in inner {
                keys.insert(format!("{field}.{sub}"), Vec::new());
            }
        } else if let Some(value_ty) = ty
            .strip_prefix("BTreeMap<String,")
            .and_then(|t| t.strip_suffix('>'))
        {
            let inner = local_struct(&src, value_ty.trim())
                .unwrap_or_else(|| panic!("{field}: a map of {value_ty}, not declared here"));
            keys.insert(
                format!("{field}.{MAP_KEY}"),
                inner.into_iter().map(|(sub, _)| sub).collect(),
            );
        } else {
            keys.insert(field, Vec::new());
        }
    }
    let mut flat = Vec::new();
    flatten("", &figment_value(&defaults()), &mut flat);
    let rocket_toml = Figment::from(Toml::file(root().join("Rocket.toml")).nested())
        .extract::<BTreeMap<String, Value>>()
        .expect("Rocket.toml parses");
    assert!(
        rocket_toml.contains_key("port"),
        "Rocket.toml: {rocket_toml:?}"
    );
    for (key, value) in &rocket_toml {
        flatten(key, value, &mut flat);
    }
    for key in flat {
        keys.entry(key).or_default();
    }
    keys
}

/// The dotted keys of the leaves of `value`, under `prefix`.
fn flatten(prefix: &str, value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Dict(_, dict) => {
            for (k, v) in dict {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        _ => out.push(prefix.to_owned()),
    }
}

/// The table of docs/configuration.md#keys: each row's key and its whole text.
fn documented_keys() -> BTreeMap<String, String> {
    let page = fs::read_to_string(root().join("docs/configuration.md")).expect("the page");
    let mut rows = BTreeMap::new();
    let section = page
        .lines()
        .skip_while(|l| *l != "## Keys")
        .skip(1)
        .take_while(|l| !l.starts_with("## "));
    for line in section {
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let key = rest.split('`').next().unwrap_or_default().to_owned();
        assert!(
            rest[key.len()..].starts_with("` |"),
            "one key a row, alone in its cell: {line}"
        );
        assert!(
            rows.insert(key.clone(), line.to_owned()).is_none(),
            "{key} has two rows"
        );
    }
    rows
}

#[test]
fn the_configuration_table_lists_exactly_the_keys_the_server_reads() {
    let read = keys_read_by_the_code();
    let documented = documented_keys();
    let read_names: BTreeSet<&String> = read.keys().collect();
    let documented_names: BTreeSet<&String> = documented.keys().collect();
    let missing: Vec<_> = read_names.difference(&documented_names).collect();
    let extra: Vec<_> = documented_names.difference(&read_names).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "docs/configuration.md#keys lacks {missing:?} and lists {extra:?}, which the code \
         does not read"
    );
    for (key, subs) in &read {
        for sub in subs {
            assert!(
                documented[key].contains(&format!("`{sub}`")),
                "the row of {key} does not mention `{sub}`"
            );
        }
    }
}

#[test]
fn every_key_in_the_table_is_read_and_checked_at_start() {
    let base = Figment::from(rocket::Config::default())
        .merge(Serialized::defaults(figment_value(&defaults())));
    assert!(AppConfig::from_figment(&base).is_ok());
    assert!(rocket::Config::try_from(base.clone()).is_ok());
    let documented = documented_keys();
    assert!(documented.len() > 20, "read {documented:?}");
    for key in documented.keys() {
        let key = key.replace(MAP_KEY, "stripe");
        let bad = base
            .clone()
            .merge(Serialized::global(&key, vec!["not", "a", "setting"]));
        let ours = AppConfig::from_figment(&bad)
            .err()
            .is_some_and(|e| e.contains(&format!("`{key}`")));
        let rockets = rocket::Config::try_from(bad).err().is_some_and(|e| {
            e.into_iter().any(|e| {
                let path = e.path.join(".");
                !path.is_empty() && (path == key || key.starts_with(&format!("{path}.")))
            })
        });
        assert!(
            ours || rockets,
            "a wrong value of {key} was not refused by name"
        );
    }
}

#[test]
fn the_field_reader_reads_structs_as_rustfmt_writes_them() {
    let src = "/// doc\n#[derive(Deserialize)]\nstruct Raw {\n    a: String,\n    \
               #[serde(default)]\n    /// b\n    pub b: BTreeMap<String, Inner>,\n}\n\
               pub struct Inner {\n    pub x: Option<String>,\n}\n";
    assert_eq!(
        struct_fields(src, "Raw").unwrap(),
        vec![
            ("a".to_owned(), "String".to_owned()),
            ("b".to_owned(), "BTreeMap<String, Inner>".to_owned()),
        ]
    );
    assert_eq!(local_struct(src, "crate::Inner").unwrap().len(), 1);
    assert!(struct_fields(src, "Missing").is_none());
}
