//! The printable document as a PDF (docs/accounting.md#printing-and-sending-invoices):
//! the same fields as the web app's print view, on A4 pages, in the standard Helvetica
//! font (no font file to ship; text in its Windows-1252 encoding, so `£` and `€` print,
//! and a character outside it prints as `?`).
//!
//! The text is left uncompressed, so that a program (or a test) can find the number in
//! the file. The logo is drawn: a JPEG (grey or RGB) as it is, a PNG of 8-bit samples
//! (grey, RGB or palette, with or without transparency, up to 4 million pixels) decoded
//! and written again as PDF wants it, its transparency as a soft mask; another (a CMYK
//! JPEG, a 16-bit or interlaced PNG) is left out of the PDF, and the print view still
//! shows it.

use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str};
use rust_decimal::Decimal;

use super::print::Printable;
use crate::entities::logo::Logo;

const PAGE_W: f32 = 595.28;
const PAGE_H: f32 = 841.89;
const MARGIN: f32 = 50.0;
const BOTTOM: f32 = 60.0;

const REGULAR: Name<'static> = Name(b"F1");
const BOLD: Name<'static> = Name(b"F2");
const LOGO: Name<'static> = Name(b"Im1");

/// Helvetica's advance widths (per 1000 of the size) of the printable ASCII characters,
/// from its AFM file; anything else counts as 556.
const WIDTHS: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278,
    278, // space../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
    278, 278, 584, 584, 584, 556, 1015, // :;<=>?@
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667,
    611, 722, 667, 944, 667, 667, 611, // A-Z
    278, 278, 278, 469, 556, 333, // [\]^_`
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500,
    278, 556, 500, 722, 500, 500, 500, // a-z
    334, 260, 334, 584, // {|}~
];

/// `s` in Windows-1252 (PDF's `WinAnsiEncoding`): `?` for a character it lacks.
pub fn win_ansi(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| match c {
            '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{ff}' => u8::try_from(u32::from(c)).unwrap_or(b'?'),
            '€' => 0x80,
            '‚' => 0x82,
            '„' => 0x84,
            '…' => 0x85,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '™' => 0x99,
            '\t' => b' ',
            _ => b'?',
        })
        .collect()
}

fn text_width(s: &str, size: f32) -> f32 {
    let units: u32 = s
        .chars()
        .map(|c| {
            let i = u32::from(c).wrapping_sub(32) as usize;
            u32::from(WIDTHS.get(i).copied().unwrap_or(556))
        })
        .sum();
    #[allow(clippy::cast_precision_loss)]
    let units = units as f32;
    units * size / 1000.0
}

/// `s` broken into lines of at most `width` points at `size` (words longer than a line
/// are cut).
fn wrap(s: &str, width: f32, size: f32) -> Vec<String> {
    let mut out = Vec::new();
    for para in s.lines() {
        let mut line = String::new();
        for word in para.split_whitespace() {
            let candidate = if line.is_empty() {
                word.to_owned()
            } else {
                format!("{line} {word}")
            };
            if text_width(&candidate, size) <= width || line.is_empty() && word.len() <= 1 {
                line = candidate;
                continue;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            let mut piece = String::new();
            for c in word.chars() {
                piece.push(c);
                if text_width(&piece, size) > width {
                    piece.pop();
                    out.push(std::mem::take(&mut piece));
                    piece.push(c);
                }
            }
            line = piece;
        }
        out.push(line);
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

/// `1234.5` as `1,234.50`: two decimal places, thousands grouped.
pub fn amount(v: Decimal) -> String {
    let s = format!("{:.2}", v.abs());
    let (whole, frac) = s.split_once('.').unwrap_or((&s, "00"));
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if v.is_sign_negative() && !v.is_zero() {
        "-"
    } else {
        ""
    };
    format!("{sign}{grouped}.{frac}")
}

/// The pages being written, top to bottom.
struct Pages {
    done: Vec<Content>,
    page: Content,
    y: f32,
}

impl Pages {
    fn new() -> Self {
        Self {
            done: Vec::new(),
            page: Content::new(),
            y: PAGE_H - MARGIN,
        }
    }

    /// Starts a new page unless `height` more points fit on this one.
    fn room(&mut self, height: f32) {
        if self.y - height < BOTTOM {
            let full = std::mem::replace(&mut self.page, Content::new());
            self.done.push(full);
            self.y = PAGE_H - MARGIN;
        }
    }

    fn text(&mut self, x: f32, y: f32, size: f32, bold: bool, s: &str) {
        self.page
            .begin_text()
            .set_font(if bold { BOLD } else { REGULAR }, size)
            .next_line(x, y)
            .show(Str(&win_ansi(s)))
            .end_text();
    }

    fn text_right(&mut self, right: f32, y: f32, size: f32, bold: bool, s: &str) {
        self.text(right - text_width(s, size), y, size, bold, s);
    }

    fn rule(&mut self, y: f32) {
        self.page
            .set_line_width(0.5)
            .move_to(MARGIN, y)
            .line_to(PAGE_W - MARGIN, y)
            .stroke();
    }

    /// Lines of text at `x`, each `size + 3` points below the previous, from the cursor.
    fn block(&mut self, x: f32, size: f32, bold: bool, lines: &[String]) {
        for l in lines {
            self.room(size + 3.0);
            self.y -= size + 3.0;
            self.text(x, self.y, size, bold, l);
        }
    }

    fn finish(mut self) -> Vec<Content> {
        self.done.push(self.page);
        self.done
    }
}

fn lines_of(s: Option<&str>) -> Vec<String> {
    s.map(|s| {
        s.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    })
    .unwrap_or_default()
}

/// How the logo goes into the PDF: its colour samples with their filter, and a PNG's
/// transparency as a soft mask.
struct Embedded<'a> {
    samples: std::borrow::Cow<'a, [u8]>,
    width: u32,
    height: u32,
    /// 1 grey, 3 RGB.
    components: u8,
    /// A JPEG's own bytes (`DCTDecode`); else deflated samples (`FlateDecode`).
    jpeg: bool,
    /// Deflated 8-bit alpha, one byte a pixel.
    alpha: Option<Vec<u8>>,
}

/// The largest logo decoded for the PDF, in pixels (a larger one is left out of it).
const MAX_DECODED_PIXELS: usize = 4_000_000;

/// The logo as PDF reads it (see the module's text), or none.
fn embeddable(logo: &Logo) -> Option<Embedded<'_>> {
    if logo.info.content_type == "image/jpeg" {
        return matches!(logo.info.components, 1 | 3).then(|| Embedded {
            samples: std::borrow::Cow::Borrowed(&logo.bytes),
            width: logo.info.width,
            height: logo.info.height,
            components: logo.info.components,
            jpeg: true,
            alpha: None,
        });
    }
    let image = decode_png(&logo.bytes)?;
    let deflate = |b: &[u8]| miniz_oxide::deflate::compress_to_vec_zlib(b, 6);
    Some(Embedded {
        samples: std::borrow::Cow::Owned(deflate(&image.colour)),
        width: image.width,
        height: image.height,
        components: image.components,
        jpeg: false,
        alpha: image.alpha.as_deref().map(deflate),
    })
}

/// A PNG's pixels: colour (grey or RGB) and alpha apart.
#[derive(Debug, PartialEq, Eq)]
struct Pixels {
    width: u32,
    height: u32,
    components: u8,
    colour: Vec<u8>,
    alpha: Option<Vec<u8>>,
}

/// Decodes a non-interlaced PNG of 8-bit samples (grey, RGB, palette, with or without
/// alpha): the image data inflated (at most the size its header announces) and its row
/// filters undone (PNG specification, section 9).
fn decode_png(b: &[u8]) -> Option<Pixels> {
    let be32 = |at: usize| Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?));
    let (width, height) = (be32(16)?, be32(20)?);
    let (depth, colour, interlace) = (*b.get(24)?, *b.get(25)?, *b.get(28)?);
    let channels: usize = match colour {
        0 | 3 => 1,
        2 => 3,
        4 => 2,
        6 => 4,
        _ => return None,
    };
    let (w, h) = (width as usize, height as usize);
    if depth != 8 || interlace != 0 || w.checked_mul(h)? > MAX_DECODED_PIXELS {
        return None;
    }
    let (mut idat, mut palette, mut trns) = (Vec::new(), &[][..], &[][..]);
    let mut at = 8;
    while at + 8 <= b.len() {
        let len = be32(at)? as usize;
        let data = b.get(at + 8..at + 8 + len)?;
        match b.get(at + 4..at + 8)? {
            b"IDAT" => idat.extend_from_slice(data),
            b"PLTE" => palette = data,
            b"tRNS" => trns = data,
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let stride = w * channels;
    let raw =
        miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&idat, (stride + 1) * h).ok()?;
    if raw.len() != (stride + 1) * h {
        return None;
    }
    let px = unfilter(&raw, stride, channels, h)?;
    let split = |colour_channels: usize| -> (Vec<u8>, Vec<u8>) {
        let mut c = Vec::with_capacity(w * h * colour_channels);
        let mut a = Vec::with_capacity(w * h);
        for p in px.chunks_exact(channels) {
            c.extend_from_slice(&p[..colour_channels]);
            a.push(p[colour_channels]);
        }
        (c, a)
    };
    let (components, colour, alpha) = match colour {
        0 => (1, px, None),
        2 => (3, px, None),
        4 => {
            let (c, a) = split(1);
            (1, c, Some(a))
        }
        6 => {
            let (c, a) = split(3);
            (3, c, Some(a))
        }
        _ => {
            let mut c = Vec::with_capacity(w * h * 3);
            let mut a = Vec::with_capacity(w * h);
            for &i in &px {
                let i = usize::from(i);
                c.extend_from_slice(palette.get(3 * i..3 * i + 3)?);
                a.push(trns.get(i).copied().unwrap_or(255));
            }
            (3, c, (!trns.is_empty()).then_some(a))
        }
    };
    Some(Pixels {
        width,
        height,
        components,
        colour,
        alpha,
    })
}

/// Undoes the row filters of `raw` (each row a filter byte, then `stride` bytes), with
/// `bpp` bytes a pixel.
fn unfilter(raw: &[u8], stride: usize, bpp: usize, h: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; stride * h];
    for y in 0..h {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= bpp {
                out[y * stride + x - bpp]
            } else {
                0
            };
            let up = if y > 0 { out[(y - 1) * stride + x] } else { 0 };
            let c = if x >= bpp && y > 0 {
                out[(y - 1) * stride + x - bpp]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => up,
                3 => u8::try_from((u16::from(a) + u16::from(up)) / 2).unwrap_or(0),
                4 => paeth(a, up, c),
                _ => return None,
            };
            out[y * stride + x] = line[x].wrapping_add(predicted);
        }
    }
    Some(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// The document `p` as a PDF, with `logo` when there is one.
#[allow(clippy::too_many_lines)]
pub fn render(p: &Printable, logo: Option<&Logo>) -> Vec<u8> {
    let logo = logo.and_then(embeddable);
    let mut pages = Pages::new();
    let right = PAGE_W - MARGIN;

    // The head: title, and the logo at the top right.
    let top = pages.y;
    if let Some(l) = &logo {
        #[allow(clippy::cast_precision_loss)]
        let (w, h) = (l.width as f32, l.height as f32);
        let scale = (150.0 / w).min(60.0 / h);
        let (w, h) = (w * scale, h * scale);
        pages
            .page
            .save_state()
            .transform([w, 0.0, 0.0, h, right - w, top - h])
            .x_object(LOGO)
            .restore_state();
    }
    pages.y -= 22.0;
    pages.text(MARGIN, pages.y, 20.0, true, p.title);
    if p.status == "draft" || p.status == "void" {
        let word = if p.status == "draft" { "DRAFT" } else { "VOID" };
        pages.text(
            MARGIN + text_width(p.title, 20.0) + 12.0,
            pages.y,
            12.0,
            true,
            word,
        );
    }
    pages.y -= 14.0;

    // The seller, and beside it the document's facts.
    let facts_top = pages.y;
    pages.block(MARGIN, 11.0, true, std::slice::from_ref(&p.seller.name));
    pages.block(MARGIN, 9.0, false, &lines_of(p.seller.address.as_deref()));
    if let Some(v) = &p.seller.vat_number {
        pages.block(
            MARGIN,
            9.0,
            false,
            &[format!("VAT registration number: {v}")],
        );
    }
    let seller_bottom = pages.y;
    let mut facts = vec![
        (
            match p.kind {
                "credit_note" => "Credit note number",
                _ => "Invoice number",
            },
            p.number.clone().unwrap_or_else(|| "(none)".to_owned()),
        ),
        ("Date of issue", p.issue_date.clone()),
    ];
    if p.time_of_supply != p.issue_date {
        facts.push(("Time of supply", p.time_of_supply.clone()));
    }
    if p.kind == "invoice" {
        facts.push(("Due date", p.due_date.clone()));
    }
    facts.push(("Currency", p.currency.clone()));
    pages.y = facts_top;
    for (label, value) in &facts {
        pages.y -= 12.0;
        pages.text(330.0, pages.y, 9.0, false, label);
        pages.text_right(right, pages.y, 9.0, true, value);
    }
    pages.y = pages.y.min(seller_bottom) - 16.0;

    // The customer.
    pages.block(MARGIN, 8.0, false, &["To".to_owned()]);
    pages.block(MARGIN, 11.0, true, std::slice::from_ref(&p.customer.name));
    pages.block(MARGIN, 9.0, false, &lines_of(p.customer.address.as_deref()));
    if let Some(v) = &p.customer.vat_number {
        pages.block(
            MARGIN,
            9.0,
            false,
            &[format!("VAT registration number: {v}")],
        );
    }
    if let Some(c) = &p.credited_invoice {
        pages.y -= 6.0;
        let n = c.number.as_deref().unwrap_or("(unnumbered)");
        pages.block(
            MARGIN,
            9.0,
            false,
            &[format!("Credits invoice {n} of {}", c.issue_date)],
        );
    }
    if let Some(reason) = &p.reason {
        let text = format!("Reason: {reason}");
        pages.block(MARGIN, 9.0, false, &wrap(&text, right - MARGIN, 9.0));
    }
    pages.y -= 16.0;

    // The lines.
    let discount = p.lines.iter().any(|l| !l.discount.is_zero());
    let cols: [(&str, f32); 5] = [
        ("Qty", 300.0),
        ("Unit price", 370.0),
        (if discount { "Disc." } else { "" }, 405.0),
        ("VAT rate", 470.0),
        ("Net", right),
    ];
    let desc_width = 300.0 - MARGIN - 50.0;
    pages.room(30.0);
    pages.y -= 12.0;
    pages.text(MARGIN, pages.y, 9.0, true, "Description");
    for (label, x) in cols {
        pages.text_right(x, pages.y, 9.0, true, label);
    }
    pages.y -= 5.0;
    pages.rule(pages.y);
    for l in &p.lines {
        let desc = wrap(&l.description, desc_width, 9.0);
        #[allow(clippy::cast_precision_loss)]
        let height = 12.0 * desc.len() as f32;
        pages.room(height + 2.0);
        pages.y -= 12.0;
        let y = pages.y;
        pages.text_right(300.0, y, 9.0, false, &l.quantity.to_string());
        pages.text_right(370.0, y, 9.0, false, &amount(l.unit_price.value()));
        if discount && !l.discount.is_zero() {
            pages.text_right(405.0, y, 9.0, false, &format!("{}%", l.discount));
        }
        pages.text_right(470.0, y, 9.0, false, &l.vat_label);
        pages.text_right(right, y, 9.0, false, &amount(l.net.value()));
        pages.text(MARGIN, y, 9.0, false, &desc[0]);
        for more in &desc[1..] {
            pages.y -= 11.0;
            pages.text(MARGIN, pages.y, 9.0, false, more);
        }
    }
    pages.y -= 6.0;
    pages.rule(pages.y);

    // The totals: VAT per rate, then net, VAT and total.
    let mut totals: Vec<(String, String, bool)> = p
        .vat_by_rate
        .iter()
        .map(|g| {
            (
                format!("VAT at {} on {}", g.vat_label, amount(g.net.value())),
                amount(g.vat.value()),
                false,
            )
        })
        .collect();
    totals.push(("Total net".to_owned(), amount(p.subtotal.value()), false));
    totals.push(("Total VAT".to_owned(), amount(p.vat_total.value()), false));
    totals.push((
        format!("Total {}", p.currency),
        amount(p.total.value()),
        true,
    ));
    if let Some(gbp) = p.vat_total_gbp {
        totals.push(("Total VAT in GBP".to_owned(), amount(gbp.value()), false));
    }
    if p.kind == "invoice" && p.amount_due != p.total {
        totals.push(("Amount due".to_owned(), amount(p.amount_due.value()), true));
    }
    for (label, value, bold) in &totals {
        pages.room(14.0);
        pages.y -= 14.0;
        pages.text_right(470.0, pages.y, 9.0, *bold, label);
        pages.text_right(right, pages.y, 9.0, *bold, value);
    }
    pages.y -= 10.0;
    if let Some(note) = p.reverse_charge_note {
        pages.block(MARGIN, 9.0, true, &[note.to_owned()]);
    }
    if let Some(notes) = &p.notes {
        pages.y -= 6.0;
        pages.block(MARGIN, 9.0, false, &wrap(notes, right - MARGIN, 9.0));
    }

    write(pages.finish(), logo.as_ref(), p)
}

/// The file: catalog, page tree, fonts, the logo and each page's content.
fn write(contents: Vec<Content>, logo: Option<&Embedded<'_>>, p: &Printable) -> Vec<u8> {
    let mut pdf = Pdf::new();
    let (catalog, tree, regular, bold, image, info, mask) = (
        Ref::new(1),
        Ref::new(2),
        Ref::new(3),
        Ref::new(4),
        Ref::new(5),
        Ref::new(6),
        Ref::new(7),
    );
    let first_page = 8;
    let page_ids: Vec<Ref> = (0..contents.len())
        .map(|i| Ref::new(first_page + 2 * i32::try_from(i).unwrap_or(0)))
        .collect();
    pdf.catalog(catalog).pages(tree);
    pdf.pages(tree)
        .kids(page_ids.iter().copied())
        .count(i32::try_from(page_ids.len()).unwrap_or(1));
    let title = format!("{} {}", p.title, p.number.as_deref().unwrap_or(""));
    pdf.document_info(info)
        .title(pdf_writer::TextStr(title.trim()))
        .producer(pdf_writer::TextStr("Stockbook"));
    pdf.type1_font(regular)
        .base_font(Name(b"Helvetica"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    pdf.type1_font(bold)
        .base_font(Name(b"Helvetica-Bold"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    if let Some(l) = logo {
        let mut x = pdf.image_xobject(image, &l.samples);
        x.width(i32::try_from(l.width).unwrap_or(1));
        x.height(i32::try_from(l.height).unwrap_or(1));
        x.bits_per_component(8);
        if l.components == 1 {
            x.color_space().device_gray();
        } else {
            x.color_space().device_rgb();
        }
        x.filter(if l.jpeg {
            Filter::DctDecode
        } else {
            Filter::FlateDecode
        });
        if l.alpha.is_some() {
            x.s_mask(mask);
        }
        x.finish();
        if let Some(alpha) = &l.alpha {
            let mut m = pdf.image_xobject(mask, alpha);
            m.width(i32::try_from(l.width).unwrap_or(1));
            m.height(i32::try_from(l.height).unwrap_or(1));
            m.bits_per_component(8);
            m.color_space().device_gray();
            m.filter(Filter::FlateDecode);
            m.finish();
        }
    }
    for (id, content) in page_ids.iter().zip(contents) {
        let content_id = Ref::new(id.get() + 1);
        let mut page = pdf.page(*id);
        page.parent(tree)
            .media_box(Rect::new(0.0, 0.0, PAGE_W, PAGE_H))
            .contents(content_id);
        let mut resources = page.resources();
        resources.fonts().pair(REGULAR, regular).pair(BOLD, bold);
        if logo.is_some() {
            resources.x_objects().pair(LOGO, image);
        }
        resources.finish();
        page.finish();
        pdf.stream(content_id, &content.finish());
    }
    pdf.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_print_with_two_places_and_grouped_thousands() {
        assert_eq!(amount(Decimal::new(12_345_678, 1)), "1,234,567.80");
        assert_eq!(amount(Decimal::new(-5, 0)), "-5.00");
        assert_eq!(amount(Decimal::new(999, 2)), "9.99");
    }

    #[test]
    fn text_is_written_in_windows_1252() {
        assert_eq!(win_ansi("£5 €2 ✓"), b"\xa35 \x802 ?");
    }

    #[test]
    fn long_text_wraps_within_its_width() {
        let lines = wrap("one two three four five six seven", 60.0, 9.0);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines.iter().all(|l| text_width(l, 9.0) <= 60.0),
            "{lines:?}"
        );
    }
}

#[cfg(test)]
mod pages_tests {
    use super::*;
    use crate::accounting::documents::print::{Party, PrintLine, Printable, RateTotal};
    use crate::db::decimal::{Money, Percent, Price, Qty};
    use crate::vat::Treatment;

    fn sample(n: usize) -> Printable {
        let line = PrintLine {
            description: "A long description of roasted coffee beans from a small farm, ground for espresso machines".to_owned(),
            quantity: Qty::from_i64(2),
            unit_price: Price::from_i64(5),
            discount: Percent::from_i64(0),
            vat_rate: Percent::from_i64(20),
            vat_treatment: Treatment::Standard,
            vat_label: "20%".to_owned(),
            net: Money::from_i64(10),
            vat: Money::from_i64(2),
        };
        let party = |name: &str| Party {
            name: name.to_owned(),
            address: Some("1 High St\nLeeds".to_owned()),
            vat_number: Some("GB123456782".to_owned()),
            email: None,
        };
        Printable {
            id: "x".into(),
            kind: "invoice",
            title: "VAT invoice",
            number: Some("INV-0042".into()),
            status: "sent".into(),
            issue_date: "2026-11-02".into(),
            time_of_supply: "2026-11-02".into(),
            due_date: "2026-12-02".into(),
            currency: "GBP".into(),
            seller: party("Acme £ Ltd"),
            logo_url: None,
            customer: party("Ann"),
            lines: vec![line; n],
            vat_by_rate: vec![RateTotal {
                vat_label: "20%".into(),
                vat_rate: Percent::from_i64(20),
                net: Money::from_i64(10),
                vat: Money::from_i64(2),
            }],
            subtotal: Money::from_i64(10),
            vat_total: Money::from_i64(2),
            total: Money::from_i64(12),
            vat_total_gbp: None,
            amount_due: Money::from_i64(12),
            reverse_charge_note: None,
            credited_invoice: None,
            reason: None,
            notes: None,
            sends: Vec::new(),
            entity_id: None,
        }
    }

    #[test]
    fn a_long_invoice_runs_onto_more_pages_and_a_short_one_fits_one() {
        let short = render(&sample(3), None);
        assert!(String::from_utf8_lossy(&short).contains("/Count 1"));
        let long = render(&sample(60), None);
        let text = String::from_utf8_lossy(&long);
        assert!(
            !text.contains("/Count 1"),
            "60 wrapped lines need more than a page"
        );
        assert!(text.contains("(INV-0042)"));
        // With a transparent PNG logo: drawn, with its mask.
        let pixels: Vec<u8> = (0..40 * 20 * 4)
            .map(|i| u8::try_from(i % 251).unwrap())
            .collect();
        let bytes = super::png_tests::encode(40, 20, 6, 4, &pixels);
        let logo = Logo {
            info: crate::entities::logo::inspect(&bytes).unwrap(),
            bytes,
        };
        let with_logo = render(&sample(3), Some(&logo));
        let text = String::from_utf8_lossy(&with_logo);
        assert!(text.contains("/Im1 Do") && text.contains("/SMask"));
        if let Ok(dir) = std::env::var("STOCKBOOK_PDF_SAMPLE") {
            std::fs::write(format!("{dir}/long.pdf"), &long).unwrap();
            std::fs::write(format!("{dir}/short.pdf"), &short).unwrap();
            std::fs::write(format!("{dir}/logo.pdf"), &with_logo).unwrap();
        }
    }
}

#[cfg(test)]
mod png_tests {
    use super::*;

    /// A PNG of `pixels` (`channels` bytes each, colour type `colour`), each row filtered
    /// with the next of the five filters in turn. CRCs are left zero: the reader skips them.
    pub(super) fn encode(
        w: usize,
        h: usize,
        colour: u8,
        channels: usize,
        pixels: &[u8],
    ) -> Vec<u8> {
        let stride = w * channels;
        let mut raw = Vec::new();
        for y in 0..h {
            let filter = u8::try_from(y % 5).unwrap();
            raw.push(filter);
            for x in 0..stride {
                let px = |yy: usize, xx: usize| pixels[yy * stride + xx];
                let a = if x >= channels {
                    px(y, x - channels)
                } else {
                    0
                };
                let b = if y > 0 { px(y - 1, x) } else { 0 };
                let c = if x >= channels && y > 0 {
                    px(y - 1, x - channels)
                } else {
                    0
                };
                let predicted = match filter {
                    0 => 0,
                    1 => a,
                    2 => b,
                    3 => u8::try_from((u16::from(a) + u16::from(b)) / 2).unwrap(),
                    _ => paeth(a, b, c),
                };
                raw.push(px(y, x).wrapping_sub(predicted));
            }
        }
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        let chunk = |png: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
            png.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
            png.extend_from_slice(kind);
            png.extend_from_slice(data);
            png.extend_from_slice(&[0; 4]);
        };
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&u32::try_from(w).unwrap().to_be_bytes());
        ihdr.extend_from_slice(&u32::try_from(h).unwrap().to_be_bytes());
        ihdr.extend_from_slice(&[8, colour, 0, 0, 0]);
        chunk(&mut png, b"IHDR", &ihdr);
        chunk(
            &mut png,
            b"IDAT",
            &miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6),
        );
        chunk(&mut png, b"IEND", &[]);
        png
    }

    #[test]
    fn an_rgba_png_decodes_through_every_row_filter_into_colour_and_alpha() {
        let (w, h) = (7, 10);
        let pixels: Vec<u8> = (0..w * h * 4)
            .map(|i| u8::try_from((i * 37 + i / 3) % 256).unwrap())
            .collect();
        let got = decode_png(&encode(w, h, 6, 4, &pixels)).expect("decodes");
        let colour: Vec<u8> = pixels.chunks(4).flat_map(|p| p[..3].to_vec()).collect();
        let alpha: Vec<u8> = pixels.chunks(4).map(|p| p[3]).collect();
        assert_eq!(
            got,
            Pixels {
                width: 7,
                height: 10,
                components: 3,
                colour,
                alpha: Some(alpha)
            }
        );
    }

    #[test]
    fn a_png_that_inflates_past_its_announced_size_is_left_out() {
        let mut png = encode(2, 2, 0, 1, &[1, 2, 3, 4]);
        // Announce 1×1: the data is larger than that and is not trusted.
        png[16..24].copy_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1]);
        assert_eq!(decode_png(&png), None);
    }
}
