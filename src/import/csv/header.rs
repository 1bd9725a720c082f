//! Header normalisation: the key a header cell is matched by.
//!
//! Case, spacing, punctuation, a leading byte-order mark and Xero/QuickBooks `*`
//! required-markers do not count: `*ContactName`, `Contact Name`, `contact_name` and
//! ` CONTACT-NAME ` all become `contactname`. Three symbols carry meaning and are
//! spelt out first: `#` → `number` (`Invoice #` = `Invoice Number`), `%` → `percent`,
//! `&` → `and`.

/// The matching key of a header cell.
pub fn normalise(header: &str) -> String {
    let mut key = String::with_capacity(header.len());
    for c in header.trim_start_matches('\u{feff}').chars() {
        match c {
            '#' => key.push_str("number"),
            '%' => key.push_str("percent"),
            '&' => key.push_str("and"),
            c if c.is_alphanumeric() => key.extend(c.to_lowercase()),
            _ => {}
        }
    }
    key
}

/// The header text as shown back to the caller: BOM and surrounding spaces removed.
pub fn display(header: &str) -> String {
    header.trim_start_matches('\u{feff}').trim().to_owned()
}

/// Longest header text a row error repeats; a longer one is cut (with `…`): each error
/// names its column briefly and by position, never by copying a long header.
pub const SHORT_HEADER_CHARS: usize = 40;

/// The header as a row error names it: at most [`SHORT_HEADER_CHARS`] characters.
pub fn short(header: &str) -> String {
    match header.char_indices().nth(SHORT_HEADER_CHARS) {
        None => header.to_owned(),
        Some((cut, _)) => format!("{}…", &header[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_spacing_punctuation_and_star_markers_do_not_count() {
        for h in [
            "*ContactName",
            "Contact Name",
            "contact_name",
            " CONTACT-NAME ",
            "\u{feff}ContactName",
        ] {
            assert_eq!(normalise(h), "contactname", "{h}");
        }
        assert_eq!(
            normalise("Item(Product/Service)"),
            normalise("Item (Product/Service)")
        );
        assert_eq!(normalise("Sales Price / Rate"), "salespricerate");
        assert_eq!(normalise("Line-Quantity"), normalise("Line Quantity"));
    }

    #[test]
    fn hash_percent_and_ampersand_are_spelt_out() {
        assert_eq!(normalise("Invoice #"), normalise("Invoice Number"));
        assert_eq!(normalise("Item Tax %"), "itemtaxpercent");
        assert_eq!(normalise("Terms & Conditions"), "termsandconditions");
    }

    #[test]
    fn a_long_header_is_cut_to_forty_characters() {
        assert_eq!(short("Price"), "Price");
        let long = "é".repeat(100);
        assert_eq!(short(&long), format!("{}…", "é".repeat(40)));
        assert_eq!(short(&"x".repeat(40)), "x".repeat(40));
    }

    #[test]
    fn display_drops_the_bom_and_outer_spaces_only() {
        assert_eq!(display("\u{feff} *ContactName "), "*ContactName");
    }
}
