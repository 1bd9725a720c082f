//! Password hashing with argon2id (the crate's default parameters: 19 MiB, 2 passes).

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::error::{AppError, AppResult};

pub fn hash(password: &str) -> AppResult<String> {
    let salt = SaltString::generate(&mut rand::rngs::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AppError::internal(format!("password hashing failed: {e}")))
}

pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A hash of a password nobody has, verified against when the email is unknown so that a
/// wrong email takes as long as a wrong password.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash("not a real password, only for timing").unwrap_or_default())
}

/// Bounds the password hashes computed at once (`password_hash_concurrency`): each costs
/// 19 MiB and a core for a fraction of a second, so a flood of sign-in attempts would
/// otherwise take every core and as much memory as it likes. An attempt that finds every
/// permit taken waits up to [`HashGate::WAIT`], then is refused with 503 and `Retry-After`
/// without touching the database.
pub struct HashGate {
    permits: std::sync::Arc<rocket::tokio::sync::Semaphore>,
}

impl HashGate {
    pub const WAIT: std::time::Duration = std::time::Duration::from_secs(2);

    pub fn new(concurrency: usize) -> Self {
        Self {
            permits: std::sync::Arc::new(rocket::tokio::sync::Semaphore::new(concurrency.max(1))),
        }
    }

    /// A permit to hash one password, held until dropped.
    pub async fn enter(&self) -> AppResult<rocket::tokio::sync::OwnedSemaphorePermit> {
        let wait = self.permits.clone().acquire_owned();
        match rocket::tokio::time::timeout(Self::WAIT, wait).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(e)) => Err(AppError::internal(format!("password permits: {e}"))),
            Err(_) => Err(AppError::Unavailable(
                "Too many sign-in attempts are being checked at once; retry in a moment".into(),
            )),
        }
    }

    /// Permits free now (for the tests).
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// Takes every permit (for the tests: a saturated gate).
    pub fn saturate(&self) -> Vec<rocket::tokio::sync::OwnedSemaphorePermit> {
        std::iter::from_fn(|| self.permits.clone().try_acquire_owned().ok()).collect()
    }
}
