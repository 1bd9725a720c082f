//! The service's clock. Production reads the system clock; tests move it forward to
//! exercise session expiry, the login throttle and rate-limit windows without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime};

#[derive(Clone, Default)]
pub struct Clock {
    offset_secs: Arc<AtomicI64>,
    /// Unix time the clock is stopped at; 0 while it runs.
    frozen_at: Arc<AtomicI64>,
}

impl Clock {
    pub fn now(&self) -> OffsetDateTime {
        let frozen = self.frozen_at.load(Ordering::Relaxed);
        let base = if frozen == 0 {
            OffsetDateTime::now_utc()
        } else {
            OffsetDateTime::from_unix_timestamp(frozen)
                .unwrap_or_else(|_| OffsetDateTime::now_utc())
        };
        base + time::Duration::seconds(self.offset_secs.load(Ordering::Relaxed))
    }

    /// Stops the clock at the current whole second, so that only [`Clock::advance`] moves
    /// it (tests that check exact window boundaries; every clone shares it).
    pub fn freeze(&self) {
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let _ = self
            .frozen_at
            .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
    }

    pub fn today(&self) -> Date {
        self.now().date()
    }

    /// Moves the clock forward (tests only have a use for this).
    pub fn advance(&self, secs: i64) {
        self.offset_secs.fetch_add(secs, Ordering::Relaxed);
    }
}

/// RFC 3339 UTC with whole seconds, the service's timestamp format.
pub fn rfc3339(t: OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&Rfc3339)
        .unwrap_or_default()
}

/// `yyyy-MM-ddThh:mm:ss.sssZ` in UTC: the audit trail's `at` (SQLite's
/// `strftime('%Y-%m-%dT%H:%M:%fZ')`) and HMRC's fraud-prevention timestamps.
pub fn utc_millis(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

pub fn parse_rfc3339(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &Rfc3339).ok()
}
