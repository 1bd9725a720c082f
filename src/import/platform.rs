//! The import platforms (docs/import.md#platforms) and the identifiers the API uses for them.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// Every platform the service imports from, plus `generic` (the manual CSV mapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    Xero,
    Quickbooks,
    SageAccounting,
    Sage50,
    Freeagent,
    Kashflow,
    ZohoBooks,
    Freshbooks,
    Stripe,
    Shopify,
    Square,
    Paypal,
    Gocardless,
    Woocommerce,
    Generic,
}

impl Platform {
    pub const ALL: [Platform; 15] = [
        Self::Xero,
        Self::Quickbooks,
        Self::SageAccounting,
        Self::Sage50,
        Self::Freeagent,
        Self::Kashflow,
        Self::ZohoBooks,
        Self::Freshbooks,
        Self::Stripe,
        Self::Shopify,
        Self::Square,
        Self::Paypal,
        Self::Gocardless,
        Self::Woocommerce,
        Self::Generic,
    ];

    /// The eight accounting platforms whose CSV exports are recognised.
    pub const CSV: [Platform; 8] = [
        Self::Xero,
        Self::Quickbooks,
        Self::SageAccounting,
        Self::Sage50,
        Self::Freeagent,
        Self::Kashflow,
        Self::ZohoBooks,
        Self::Freshbooks,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Xero => "xero",
            Self::Quickbooks => "quickbooks",
            Self::SageAccounting => "sage_accounting",
            Self::Sage50 => "sage50",
            Self::Freeagent => "freeagent",
            Self::Kashflow => "kashflow",
            Self::ZohoBooks => "zoho_books",
            Self::Freshbooks => "freshbooks",
            Self::Stripe => "stripe",
            Self::Shopify => "shopify",
            Self::Square => "square",
            Self::Paypal => "paypal",
            Self::Gocardless => "gocardless",
            Self::Woocommerce => "woocommerce",
            Self::Generic => "generic",
        }
    }

    /// Whether files can be uploaded for this platform (the eight, and `generic`).
    pub fn has_csv(self) -> bool {
        self == Self::Generic || Self::CSV.contains(&self)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Platform {
    type Err = ();
    /// Exact identifiers, case-insensitive.
    fn from_str(s: &str) -> Result<Self, ()> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s))
            .ok_or(())
    }
}

impl Serialize for Platform {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
