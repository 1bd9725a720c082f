//! The service's clock. Production reads the system clock; tests move it forward to
//! exercise session expiry, the login throttle and rate-limit windows without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime};

#[derive(Clone, Default)]
pub struct Clock {
    offset_secs: Arc<AtomicI64>,
}

impl Clock {
    pub fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
            + time::Duration::seconds(self.offset_secs.load(Ordering::Relaxed))
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

pub fn parse_rfc3339(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &Rfc3339).ok()
}
