//! Secrets at rest (docs/operations.md#the-key-file): webhook secrets and platform
//! credentials are encrypted in the database under a key kept in `<database>.key`;
//! secrets written in clear by an earlier version are encrypted at start; a database whose
//! secrets are encrypted does not start without its key file, nor with another one.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// A directory of its own under the temporary directory, removed at the end.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("stockbook-secrets-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn db(&self) -> String {
        self.0.join("shop.db").to_str().unwrap().to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn raw(t: &TestApp, sql: &str) -> String {
    t.db.read_sync(|c| Ok(c.query_row(sql, [], |r| r.get(0))?))
        .unwrap()
}

/// A webhook and a Stripe connection, made through the API; their secrets.
fn make_secrets(t: &TestApp, entity: &str) -> (String, &'static str) {
    let (s, v) = t.post(
        "/api/webhooks",
        json!({"url": "https://example.com/hook", "events": ["*"]}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let secret = v["data"]["secret"].as_str().unwrap().to_owned();
    let (s, v) = t.post(
        "/api/import/connections",
        json!({"platform": "stripe", "entity_id": entity, "credentials": {"api_key": "sk_live_abc123"}}),
    );
    assert_eq!(s, Status::Created, "{v}");
    (secret, "sk_live_abc123")
}

#[test]
fn webhook_secrets_and_platform_credentials_are_stored_encrypted_and_read_back() {
    let (t, entity) = app_with_entity();
    let (secret, api_key) = make_secrets(&t, &entity);

    let stored = raw(&t, "SELECT secret FROM webhooks");
    assert!(stored.starts_with("enc:v1:"), "{stored}");
    assert!(!stored.contains(&secret[6..]), "{stored}");
    let stored = raw(&t, "SELECT credentials FROM import_connections");
    assert!(stored.starts_with("enc:v1:"), "{stored}");
    assert!(!stored.contains(api_key), "{stored}");

    // What the worker and the pulls read is the secret itself.
    assert_eq!(
        raw(&t, "SELECT unseal(secret, 'webhooks.secret') FROM webhooks"),
        secret
    );
    let creds: Value = serde_json::from_str(&raw(
        &t,
        "SELECT unseal(credentials, 'import_connections.credentials') FROM import_connections",
    ))
    .unwrap();
    assert_eq!(creds, json!({"api_key": api_key}));
    // A sealed value does not open as another column's.
    let wrong = t.db.read_sync(|c| {
        Ok(c.query_row(
            "SELECT unseal(secret, 'import_connections.credentials') FROM webhooks",
            [],
            |r| r.get::<_, String>(0),
        )?)
    });
    assert!(wrong.is_err());
}

#[test]
fn the_key_file_is_made_beside_the_database_and_reopens_its_secrets_after_a_restart() {
    let dir = TempDir::new();
    let settings = [("database", json!(dir.db()))];
    let t = app_with(&settings);
    t.signup("ann@example.com");
    let entity = t.entity("Acme Ltd");
    let (secret, _) = make_secrets(&t, &entity);
    drop(t);

    let key = dir.0.join("shop.db.key");
    assert!(key.exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    // The database file holds no secret in clear.
    let bytes = std::fs::read(dir.db()).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains(&secret) && !text.contains("sk_live_abc123"));

    let t = app_with(&settings);
    assert_eq!(
        raw(&t, "SELECT unseal(secret, 'webhooks.secret') FROM webhooks"),
        secret
    );
}

#[test]
fn secrets_written_in_clear_by_an_earlier_version_are_encrypted_at_start() {
    let dir = TempDir::new();
    let settings = [("database", json!(dir.db()))];
    let t = app_with(&settings);
    t.signup("ann@example.com");
    let entity = t.entity("Acme Ltd");
    make_secrets(&t, &entity);
    // As an earlier version left them: in clear.
    t.db.write_sync(|tx| {
        tx.execute("UPDATE webhooks SET secret = 'whsec_clear'", [])?;
        tx.execute(
            "UPDATE import_connections SET credentials = '{\"api_key\":\"sk_clear\"}'",
            [],
        )?;
        Ok(())
    })
    .unwrap();
    drop(t);

    let t = app_with(&settings);
    let stored = raw(&t, "SELECT secret FROM webhooks");
    assert!(stored.starts_with("enc:v1:"), "{stored}");
    assert_eq!(
        raw(&t, "SELECT unseal(secret, 'webhooks.secret') FROM webhooks"),
        "whsec_clear"
    );
    let stored = raw(&t, "SELECT credentials FROM import_connections");
    assert!(
        stored.starts_with("enc:v1:") && !stored.contains("sk_clear"),
        "{stored}"
    );
}

#[test]
fn a_database_with_encrypted_secrets_does_not_start_without_its_key_file_or_with_another() {
    let dir = TempDir::new();
    let settings = [("database", json!(dir.db()))];
    let t = app_with(&settings);
    t.signup("ann@example.com");
    let entity = t.entity("Acme Ltd");
    make_secrets(&t, &entity);
    drop(t);

    let key = dir.0.join("shop.db.key");
    let kept = std::fs::read(&key).unwrap();
    std::fs::remove_file(&key).unwrap();
    let err = stockbook::App::from_figment(&test_figment(&settings))
        .err()
        .expect("no start without the key file");
    assert!(
        err.contains("key file") && err.contains("shop.db.key") && err.contains("missing"),
        "{err}"
    );
    assert!(!key.exists(), "no new key is made over encrypted secrets");

    // Another database's key.
    let other = TempDir::new();
    let _ = app_with(&[("database", json!(other.db()))]);
    std::fs::copy(other.0.join("shop.db.key"), &key).unwrap();
    let err = stockbook::App::from_figment(&test_figment(&settings))
        .err()
        .expect("no start with another key");
    assert!(err.contains("does not open"), "{err}");

    // Its own key back: the secrets are there.
    std::fs::write(&key, kept).unwrap();
    let t = app_with(&settings);
    let creds = raw(
        &t,
        "SELECT unseal(credentials, 'import_connections.credentials') FROM import_connections",
    );
    assert!(creds.contains("sk_live_abc123"), "{creds}");
}
