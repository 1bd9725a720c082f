//! The computation (docs/vat.md#the-computation): one pass over the period's lines on the
//! entity's scheme.
//!
//! [`scan`] reads the period's records once, a query per kind of record (each driven by an
//! index on entity and date, never a query per document), and hands every contribution
//! ([`Line`]: one line's part of one box) to a sink. [`boxes`] sums them, so that a box
//! always equals its lines' total by construction; the drill-down and the CSV are other
//! sinks of the same scan.
//!
//! Amounts are exact integers in millionths of a pound (`i128`): pounds converted per line
//! (docs/vat.md#currencies-and-rounding) are whole pence, a flat-rate line's share of box 1
//! has up to six places, and nothing is rounded until the boxes are.

use rusqlite::{Connection, OptionalExtension};
use time::{Date, Month};

use super::boxes::Boxes;
use super::line::{Line, Source};
use crate::accounting::documents::DocKind;
use crate::db::decimal::{scaled_decimal, Money};
use crate::error::{AppError, AppResult};

/// Millionths of a pound per penny.
const PENNY: i128 = 10_000;
/// Millionths of a pound per pound.
const POUND: i128 = 1_000_000;
/// The flat rate scheme's capital goods threshold: £2,000 gross (docs/vat.md#flat-rate-scheme).
const CAPITAL_GOODS_MIN: i128 = 2_000 * POUND;

/// The VAT accounting scheme of an entity (docs/vat.md#the-entitys-vat-settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Standard,
    Cash,
    /// The flat rate percentage in hundredths (850 is 8.5 %).
    FlatRate(i64),
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Cash => "cash",
            Self::FlatRate(_) => "flat_rate",
        }
    }
}

/// What the computation needs of the entity.
#[derive(Debug, Clone)]
pub struct Settings {
    pub owner_id: String,
    pub scheme: Scheme,
    /// The first day at the full flat rate: the first anniversary of `vat_registered_from`.
    pub full_rate_from: Option<Date>,
}

/// The entity's settings (`entity_id` already resolved through the caller's scope).
pub fn settings(conn: &Connection, entity_id: &str) -> AppResult<Settings> {
    let row: Option<(String, String, Option<i64>, Option<String>)> = conn
        .prepare_cached(
            "SELECT owner_id, vat_scheme, flat_rate_percent, vat_registered_from
             FROM entities WHERE id = ?1",
        )?
        .query_row([entity_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let (owner_id, scheme, percent, registered) =
        row.ok_or_else(|| AppError::not_found(format!("Entity not found: {entity_id}")))?;
    let scheme = match scheme.as_str() {
        "cash" => Scheme::Cash,
        // A flat-rate entity always has its percentage (the settings refuse one without).
        "flat_rate" => Scheme::FlatRate(percent.unwrap_or(0)),
        _ => Scheme::Standard,
    };
    let full_rate_from = registered
        .as_deref()
        .and_then(|d| crate::http::body::parse_date("vat_registered_from", d).ok())
        .map(first_anniversary);
    Ok(Settings {
        owner_id,
        scheme,
        full_rate_from,
    })
}

/// The same day a year on; 29 February's is 1 March (docs/vat.md#flat-rate-scheme).
pub fn first_anniversary(d: Date) -> Date {
    let y = d.year() + 1;
    d.replace_year(y).unwrap_or_else(|_| {
        Date::from_calendar_date(y, Month::March, 1).expect("1 March exists every year")
    })
}

/// The nine boxes of `entity_id` (already resolved through the caller's scope) for the
/// period `from`..=`to` on the entity's scheme, adjustments included.
pub fn boxes(conn: &Connection, entity_id: &str, from: Date, to: Date) -> AppResult<Boxes> {
    let settings = settings(conn, entity_id)?;
    let mut sums = Sums::default();
    scan(conn, entity_id, &settings, from, to, &mut |l| {
        sums.add(l);
        Ok(true)
    })?;
    Ok(sums.boxes())
}

/// The exact sum of each box's lines (index 1..=9; 3 and 5 are never a line's box).
#[derive(Debug, Default, Clone, Copy)]
pub struct Sums(pub [i128; 10]);

impl Sums {
    pub fn add(&mut self, l: &Line) {
        self.0[usize::from(l.box_no)] += l.amount;
    }

    /// The boxes from the sums (docs/vat.md#the-nine-boxes): boxes 1, 2 and 4 to the
    /// penny, box 3 = 1 + 2, box 5 = |3 − 4|, boxes 6-9 with the pence dropped.
    pub fn boxes(&self) -> Boxes {
        let s = &self.0;
        let money = |v: i128| Money::rounded(scaled_decimal(v, 6));
        let pounds = |v: i128| Money::rounded(scaled_decimal(v / POUND, 0));
        let (b1, b2, b4) = (money(s[1]), money(s[2]), money(s[4]));
        let b3 = b1 + b2;
        let diff = b3 - b4;
        Boxes {
            vat_due_sales: b1,
            vat_due_acquisitions: b2,
            total_vat_due: b3,
            vat_reclaimed_curr_period: b4,
            net_vat_due: if diff.is_sign_negative() { -diff } else { diff },
            total_value_sales_ex_vat: pounds(s[6]),
            total_value_purchases_ex_vat: pounds(s[7]),
            total_value_goods_supplied_ex_vat: pounds(s[8]),
            total_acquisitions_ex_vat: pounds(s[9]),
        }
    }
}

/// Hands each contribution to `sink` (which answers `false` to stop: a client gone).
pub type LineSink<'a> = &'a mut dyn FnMut(&Line) -> AppResult<bool>;

/// Every contribution of the period, per kind of record: documents and their payments,
/// expenses, adjustments (and, on the flat rate scheme, the rounding of box 1).
pub fn scan(
    conn: &Connection,
    entity_id: &str,
    settings: &Settings,
    from: Date,
    to: Date,
    sink: LineSink<'_>,
) -> AppResult<()> {
    let mut s = Scan {
        conn,
        entity: entity_id,
        owner: &settings.owner_id,
        from: from.to_string(),
        to: to.to_string(),
        settings,
        sink,
        flat_box1: 0,
        stopped: false,
    };
    s.run()
}

struct Scan<'a, 's> {
    conn: &'a Connection,
    entity: &'a str,
    owner: &'a str,
    from: String,
    to: String,
    settings: &'a Settings,
    sink: LineSink<'s>,
    /// The flat rate scheme: the exact sum of box 1's lines so far.
    flat_box1: i128,
    stopped: bool,
}

/// Which lines of a document kind a read takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Take {
    All,
    /// `reverse_charge` lines only (the cash scheme counts them on the document's date).
    ReverseCharge,
}

/// A document line as read (its text borrowed from the row), amounts in hundredths of
/// the document's currency.
struct DocLine<'r> {
    doc_id: &'r str,
    number: Option<&'r str>,
    date: &'r str,
    contact: Option<&'r str>,
    treatment: &'r str,
    net: i64,
    vat: i64,
    rc_vat: i64,
    rate: i64,
    capital: bool,
}

/// `hundredths` of a currency at `rate` (millionths of a pound per unit) in millionths of
/// a pound, rounded to the penny half away from zero (`Rate::to_pounds`, per line).
pub fn to_pounds(hundredths: i128, rate: i64) -> i128 {
    crate::db::decimal::round_scaled(hundredths * i128::from(rate), 8, 2) * PENNY
}

/// Column `i` of a row as text borrowed from the row (no allocation).
fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    r.get_ref(i)?.as_str().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// [`text`] of a nullable column.
fn text_opt<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<&'r str>> {
    r.get_ref(i)?.as_str_or_null().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// `n / d` rounded half away from zero (`d` > 0).
fn div_round(n: i128, d: i128) -> i128 {
    let (q, r) = (n / d, n % d);
    if r.abs() * 2 >= d {
        q + n.signum()
    } else {
        q
    }
}

impl Scan<'_, '_> {
    fn run(&mut self) -> AppResult<()> {
        match self.settings.scheme {
            Scheme::Standard => {
                for src in [
                    Source::Invoice,
                    Source::CreditNote,
                    Source::Bill,
                    Source::SupplierCredit,
                ] {
                    self.documents(src, Take::All)?;
                }
                self.expenses()?;
            }
            Scheme::Cash => {
                for src in [
                    Source::Invoice,
                    Source::CreditNote,
                    Source::Bill,
                    Source::SupplierCredit,
                ] {
                    self.payments(src)?;
                }
                self.documents(Source::Bill, Take::ReverseCharge)?;
                self.documents(Source::SupplierCredit, Take::ReverseCharge)?;
                self.expenses()?;
            }
            Scheme::FlatRate(_) => {
                for src in [
                    Source::Invoice,
                    Source::CreditNote,
                    Source::Bill,
                    Source::SupplierCredit,
                ] {
                    self.documents(src, Take::All)?;
                }
                self.expenses()?;
            }
        }
        self.adjustments()?;
        if let Scheme::FlatRate(_) = self.settings.scheme {
            // Box 1 is round(turnover × percent / 100, 2): the rounding is a line of its
            // own, so the box still equals its lines' total (docs/vat.md#flat-rate-scheme).
            let exact = self.flat_box1;
            let rounded = crate::db::decimal::round_scaled(exact, 6, 2) * PENNY;
            if rounded != exact {
                let to = self.to.clone();
                self.emit(Line::rounding(&to, rounded - exact))?;
            }
        }
        Ok(())
    }

    fn emit(&mut self, l: Line) -> AppResult<()> {
        if self.stopped {
            return Ok(());
        }
        if l.box_no == 1 && matches!(self.settings.scheme, Scheme::FlatRate(_)) {
            self.flat_box1 += l.amount;
        }
        if !(self.sink)(&l)? {
            self.stopped = true;
        }
        Ok(())
    }

    /// The posted documents of `src` dated in the period, line by line.
    fn documents(&mut self, src: Source, take: Take) -> AppResult<()> {
        let kind = src.kind().expect("a document source");
        let sql = documents_sql(kind, take);
        let conn = self.conn;
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query([self.owner, self.entity, &self.from, &self.to])?;
        while let Some(r) = rows.next()? {
            if self.stopped {
                break;
            }
            let l = DocLine {
                doc_id: text(r, 0)?,
                number: text_opt(r, 1)?,
                date: text(r, 2)?,
                contact: text_opt(r, 3)?,
                treatment: text(r, 4)?,
                net: r.get(5)?,
                vat: r.get(6)?,
                rc_vat: r.get(7)?,
                rate: r.get(8)?,
                capital: r.get::<_, i64>(9)? != 0,
            };
            self.document_line(src, &l)?;
        }
        Ok(())
    }

    /// One document line's contributions on the scheme (docs/vat.md#standard-scheme,
    /// docs/vat.md#flat-rate-scheme; the cash scheme takes only reverse-charge lines here).
    fn document_line(&mut self, src: Source, l: &DocLine) -> AppResult<()> {
        let net = to_pounds(i128::from(l.net), l.rate);
        let vat = to_pounds(i128::from(l.vat), l.rate);
        let rc_vat = to_pounds(i128::from(l.rc_vat), l.rate);
        // Credits count negative.
        let sign: i128 = if src.is_credit() { -1 } else { 1 };
        let outside = l.treatment == "outside_scope";
        let reverse = l.treatment == "reverse_charge";
        let line = |box_no: u8, amount: i128, shown_vat: i128| Line {
            box_no,
            source: src,
            source_id: l.doc_id,
            number: l.number,
            date: l.date,
            contact_name: l.contact,
            treatment: Some(l.treatment),
            net: sign * net,
            vat: sign * shown_vat,
            amount,
        };
        match self.settings.scheme {
            Scheme::Standard | Scheme::Cash => {
                if src.is_sale() {
                    if vat != 0 {
                        self.emit(line(1, sign * vat, vat))?;
                    }
                    if !outside {
                        self.emit(line(6, sign * net, vat))?;
                    }
                } else {
                    if reverse && rc_vat != 0 {
                        self.emit(line(1, sign * rc_vat, rc_vat))?;
                    }
                    let reclaim = if reverse { rc_vat } else { vat };
                    if reclaim != 0 {
                        self.emit(line(4, sign * reclaim, reclaim))?;
                    }
                    if !outside {
                        self.emit(line(7, sign * net, reclaim))?;
                    }
                }
            }
            Scheme::FlatRate(percent) => {
                if src.is_sale() {
                    if !outside {
                        let gross = net + vat;
                        let pct = self.flat_percent(percent, &l.date);
                        // gross (millionths) × percent (hundredths) / 100 / 100.
                        let share = gross * i128::from(pct) / 10_000;
                        self.emit(line(6, sign * gross, vat))?;
                        self.emit(line(1, sign * share, vat))?;
                    }
                } else {
                    if reverse && rc_vat != 0 {
                        self.emit(line(1, sign * rc_vat, rc_vat))?;
                    }
                    let reclaim = if reverse { rc_vat } else { vat };
                    if l.capital && net + reclaim >= CAPITAL_GOODS_MIN {
                        if reclaim != 0 {
                            self.emit(line(4, sign * reclaim, reclaim))?;
                        }
                        self.emit(line(7, sign * net, reclaim))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The flat rate percentage (hundredths) for a sale on `date`: one point lower before
    /// the first anniversary of registration, never below 0.
    fn flat_percent(&self, percent: i64, date: &str) -> i64 {
        match self.settings.full_rate_from {
            Some(full) if date < full.to_string().as_str() => (percent - 100).max(0),
            _ => percent,
        }
    }

    /// The cash scheme: the period's payments on posted documents of `src`, each carrying
    /// its document's figures pro rata (docs/vat.md#cash-accounting-scheme). Each row is
    /// one line of a payment's document; `before` is what the document's earlier payments
    /// (by date, then recording) add up to.
    fn payments(&mut self, src: Source) -> AppResult<()> {
        let kind = src.kind().expect("a document source");
        let sql = payments_sql(kind);
        let conn = self.conn;
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params![
            self.owner,
            self.entity,
            &self.from,
            &self.to,
            kind.document_type()
        ])?;
        let mut current: Option<Paid> = None;
        while let Some(r) = rows.next()? {
            if self.stopped {
                break;
            }
            let payment_id = text(r, 0)?;
            if current.as_ref().is_none_or(|c| c.payment_id != payment_id) {
                if let Some(done) = current.take() {
                    self.payment(src, &done)?;
                }
                current = Some(Paid {
                    payment_id: payment_id.to_owned(),
                    date: r.get(1)?,
                    amount: i128::from(r.get::<_, i64>(2)?),
                    number: r.get(3)?,
                    contact: r.get(4)?,
                    total: i128::from(r.get::<_, i64>(5)?),
                    rate: r.get(6)?,
                    before: i128::from(r.get::<_, i64>(10)?),
                    groups: Vec::new(),
                });
            }
            if let (Some(t), Some(c)) = (text_opt(r, 7)?, current.as_mut()) {
                let (net, vat) = (
                    i128::from(r.get::<_, i64>(8)?),
                    i128::from(r.get::<_, i64>(9)?),
                );
                let (net_p, vat_p) = (to_pounds(net, c.rate), to_pounds(vat, c.rate));
                let g = match c.groups.iter().position(|g| g.treatment == t) {
                    Some(i) => &mut c.groups[i],
                    None => {
                        c.groups.push(Group {
                            treatment: t.to_owned(),
                            ..Group::default()
                        });
                        c.groups.last_mut().expect("just pushed")
                    }
                };
                g.gross += net + vat;
                g.vat += vat;
                g.net_pounds += net_p;
                g.vat_pounds += vat_p;
            }
        }
        if let Some(done) = current.take() {
            self.payment(src, &done)?;
        }
        Ok(())
    }

    /// One payment's contributions (docs/vat.md#cash-accounting-scheme): the difference
    /// between what the document's payments to date and its payments before this one
    /// carry ([`Paid::carried`]), per treatment, in pounds.
    fn payment<'p>(&mut self, src: Source, p: &'p Paid) -> AppResult<()> {
        let sign: i128 = if src.is_credit() { -1 } else { 1 };
        let line =
            |treatment: Option<&'p str>, box_no: u8, net: i128, vat: i128, amount: i128| Line {
                box_no,
                source: src.payment(),
                source_id: &p.payment_id,
                number: p.number.as_deref(),
                date: &p.date,
                contact_name: p.contact.as_deref(),
                treatment,
                net: sign * net,
                vat: sign * vat,
                amount,
            };
        let (vat_box, net_box) = if src.is_sale() { (1, 6) } else { (4, 7) };
        if p.total <= 0 || p.groups.is_empty() {
            // Nothing to apportion: the payment is all net, without VAT
            // (docs/vat.md#cash-accounting-scheme).
            let net = to_pounds(p.amount, p.rate);
            self.emit(line(None, net_box, net, 0, sign * net))?;
            return Ok(());
        }
        let after = p.carried(p.before + p.amount);
        let before = p.carried(p.before);
        for (g, ((net1, vat1), (net0, vat0))) in p.groups.iter().zip(after.into_iter().zip(before))
        {
            if g.treatment == "reverse_charge" {
                // Counted on the document's date (docs/vat.md#cash-accounting-scheme).
                continue;
            }
            let (net, vat) = (net1 - net0, vat1 - vat0);
            let t = Some(g.treatment.as_str());
            if vat != 0 {
                self.emit(line(t, vat_box, net, vat, sign * vat))?;
            }
            if g.treatment != "outside_scope" && net != 0 {
                self.emit(line(t, net_box, net, vat, sign * net))?;
            }
        }
        Ok(())
    }

    /// The period's expenses, on their date on every scheme (docs/vat.md#expenses).
    fn expenses(&mut self) -> AppResult<()> {
        let conn = self.conn;
        let mut stmt = conn.prepare_cached(EXPENSES_SQL)?;
        let mut rows = stmt.query([self.owner, self.entity, &self.from, &self.to])?;
        while let Some(r) = rows.next()? {
            if self.stopped {
                break;
            }
            let id = text(r, 0)?;
            let description = text(r, 1)?;
            let date = text(r, 2)?;
            let contact = text_opt(r, 3)?;
            let treatment = text(r, 4)?;
            let rate: i64 = r.get(8)?;
            let amount = to_pounds(i128::from(r.get::<_, i64>(5)?), rate);
            let vat_paid = to_pounds(i128::from(r.get::<_, i64>(6)?), rate);
            let rc_vat = to_pounds(i128::from(r.get::<_, i64>(7)?), rate);
            let reclaimable = r.get::<_, i64>(9)? != 0;
            let capital = r.get::<_, i64>(10)? != 0;
            let reverse = treatment == "reverse_charge";
            let outside = treatment == "outside_scope";
            // What may be reclaimed; the net is the rest of what was paid.
            let reclaim = match (reclaimable, reverse) {
                (false, _) => 0,
                (true, true) => rc_vat,
                (true, false) => vat_paid,
            };
            let net = if reclaimable {
                amount - vat_paid
            } else {
                amount
            };
            let line = |box_no: u8, vat: i128, amount: i128| Line {
                box_no,
                source: Source::Expense,
                source_id: id,
                number: Some(description),
                date,
                contact_name: contact,
                treatment: Some(treatment),
                net,
                vat,
                amount,
            };
            if reverse && rc_vat != 0 {
                self.emit(line(1, rc_vat, rc_vat))?;
            }
            let counts_in_4_7 = match self.settings.scheme {
                Scheme::Standard | Scheme::Cash => true,
                // Own gross: what was paid, and any VAT accounted for by reverse charge.
                Scheme::FlatRate(_) => capital && amount + rc_vat >= CAPITAL_GOODS_MIN,
            };
            if counts_in_4_7 {
                if reclaim != 0 {
                    self.emit(line(4, reclaim, reclaim))?;
                }
                if !outside {
                    self.emit(line(7, reclaim, net))?;
                }
            }
        }
        Ok(())
    }

    /// The period's adjustments, in their box on every scheme (docs/vat.md#adjustments).
    fn adjustments(&mut self) -> AppResult<()> {
        let conn = self.conn;
        let mut stmt = conn.prepare_cached(ADJUSTMENTS_SQL)?;
        let mut rows = stmt.query([self.entity, &self.from, &self.to])?;
        while let Some(r) = rows.next()? {
            if self.stopped {
                break;
            }
            let amount = i128::from(r.get::<_, i64>(4)?) * PENNY;
            let box_no: u8 = r.get(3)?;
            let l = Line {
                box_no,
                source: Source::Adjustment,
                source_id: text(r, 0)?,
                number: Some(text(r, 1)?),
                date: text(r, 2)?,
                contact_name: None,
                treatment: None,
                net: if matches!(box_no, 6..=9) { amount } else { 0 },
                vat: if matches!(box_no, 1 | 2 | 4) {
                    amount
                } else {
                    0
                },
                amount,
            };
            self.emit(l)?;
        }
        Ok(())
    }
}

/// `'sent', 'paid'`: a kind's posted statuses as SQL literals (constants of the code).
fn posted_in(kind: DocKind) -> String {
    kind.posted_statuses()
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The posted documents of `kind` dated in the period, line by line, in date order:
/// the entity-and-date index of the documents (migration V24; named, because without
/// statistics SQLite takes the owner-and-date one, which also walks the owner's other
/// entities), then each one's lines by their index.
fn documents_sql(kind: DocKind, take: Take) -> String {
    let capital = if kind.allows_reverse_charge() {
        "l.capital_goods"
    } else {
        "0"
    };
    let rc = match take {
        Take::All => "",
        Take::ReverseCharge => " AND l.vat_treatment = 'reverse_charge'",
    };
    format!(
        "SELECT d.id, d.number, d.issue_date, c.name, l.vat_treatment, l.net, l.vat,
                l.reverse_charge_vat, d.exchange_rate, {capital}
         FROM {docs} d INDEXED BY {docs}_entity_date
         JOIN {lines} l ON l.document_id = d.id
         LEFT JOIN contacts c ON c.id = d.contact_id
         WHERE d.owner_id = ?1 AND d.entity_id = ?2
           AND d.issue_date >= ?3 AND d.issue_date <= ?4
           AND d.status IN ({statuses}){rc}
         ORDER BY d.issue_date, d.seq, l.position",
        docs = kind.table(),
        lines = kind.lines_table(),
        statuses = posted_in(kind),
    )
}

/// The period's payments on posted documents of `kind`, each with its document's lines
/// and what the document's earlier payments add up to (migration V26's index). A
/// document's only payment (its `amount_paid`, the payments' sum, is this one) has none
/// before it, which saves the look-up for most payments.
fn payments_sql(kind: DocKind) -> String {
    format!(
        "SELECT p.id, p.date, p.amount, d.number, c.name, d.total, d.exchange_rate,
                l.vat_treatment, l.net, l.vat,
                CASE WHEN d.amount_paid = p.amount THEN 0 ELSE
                    (SELECT COALESCE(SUM(q.amount), 0) FROM payments q
                     WHERE q.document_id = p.document_id
                       AND (q.date < p.date OR (q.date = p.date AND q.seq < p.seq)))
                END
         FROM payments p INDEXED BY payments_entity_type_date
         JOIN {docs} d ON d.id = p.document_id
         LEFT JOIN {lines} l ON l.document_id = d.id
         LEFT JOIN contacts c ON c.id = d.contact_id
         WHERE p.entity_id = ?2 AND p.document_type = ?5
           AND p.date >= ?3 AND p.date <= ?4
           AND p.owner_id = ?1
           AND d.status IN ({statuses})
         ORDER BY p.date, p.seq, l.position",
        docs = kind.table(),
        lines = kind.lines_table(),
        statuses = posted_in(kind),
    )
}

/// The period's expenses, by the entity-and-date index.
const EXPENSES_SQL: &str = "SELECT x.id, x.description, x.date, c.name, x.vat_treatment,
        x.amount, x.vat_amount, x.reverse_charge_vat, x.exchange_rate, x.vat_reclaimable,
        x.capital_goods
     FROM expenses x
     LEFT JOIN contacts c ON c.id = x.contact_id
     WHERE x.owner_id = ?1 AND x.entity_id = ?2 AND x.date >= ?3 AND x.date <= ?4
     ORDER BY x.date, x.seq";

/// The period's adjustments, by their entity-and-date index.
const ADJUSTMENTS_SQL: &str = "SELECT id, description, date, box, amount FROM vat_adjustments
     WHERE entity_id = ?1 AND date >= ?2 AND date <= ?3
     ORDER BY date, seq";

/// A payment being read, with its document's lines grouped by treatment. Amounts in
/// hundredths of the document's currency; `*_pounds` in millionths of a pound.
struct Paid {
    payment_id: String,
    date: String,
    amount: i128,
    number: Option<String>,
    contact: Option<String>,
    total: i128,
    rate: i64,
    /// What the document's earlier payments add up to.
    before: i128,
    groups: Vec<Group>,
}

/// A document's lines of one treatment: gross and VAT in hundredths of its currency, net
/// and VAT in pounds (converted per line).
#[derive(Default)]
struct Group {
    treatment: String,
    gross: i128,
    vat: i128,
    net_pounds: i128,
    vat_pounds: i128,
}

impl Paid {
    /// What payments adding up to `paid` carry of each treatment, `(net, VAT)` in
    /// millionths of a pound (docs/vat.md#cash-accounting-scheme): the VAT is
    /// round(paid × document VAT / total, 2), the payment split across the treatments in
    /// proportion to their gross and each part's VAT in proportion to the treatment's
    /// VAT, the pennies of rounding on the largest part (the largest VAT for VAT). Paid in
    /// full, they carry exactly the document's own figures in pounds, so the payments of
    /// a document paid in full add up to what the standard scheme counts.
    fn carried(&self, paid: i128) -> Vec<(i128, i128)> {
        let paid = paid.clamp(0, self.total);
        if paid == self.total {
            return self
                .groups
                .iter()
                .map(|g| (g.net_pounds, g.vat_pounds))
                .collect();
        }
        let total_vat: i128 = self.groups.iter().map(|g| g.vat).sum();
        let mut parts: Vec<i128> = self
            .groups
            .iter()
            .map(|g| div_round(paid * g.gross, self.total))
            .collect();
        let mut vats: Vec<i128> = self
            .groups
            .iter()
            .map(|g| div_round(paid * g.vat, self.total))
            .collect();
        let largest = |key: fn(&Group) -> i128| {
            (0..self.groups.len())
                .max_by_key(|&i| (key(&self.groups[i]), std::cmp::Reverse(i)))
                .unwrap_or(0)
        };
        parts[largest(|g| g.gross)] += paid - parts.iter().sum::<i128>();
        vats[largest(|g| g.vat)] +=
            div_round(paid * total_vat, self.total) - vats.iter().sum::<i128>();
        parts
            .into_iter()
            .zip(vats)
            .map(|(part, vat)| (to_pounds(part - vat, self.rate), to_pounds(vat, self.rate)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plans of every read of the period: each walks an index by entity (owner) and
    /// date and sorts nothing (docs/vat.md#the-computation).
    #[test]
    fn every_read_of_the_period_walks_an_index_and_sorts_nothing() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::db::migrate_to(&mut conn, i32::MAX);
        let mut sqls: Vec<(String, usize)> = Vec::new();
        for kind in DocKind::ALL {
            sqls.push((documents_sql(kind, Take::All), 4));
            sqls.push((documents_sql(kind, Take::ReverseCharge), 4));
            sqls.push((payments_sql(kind), 5));
        }
        sqls.push((EXPENSES_SQL.to_owned(), 4));
        sqls.push((ADJUSTMENTS_SQL.to_owned(), 3));
        for (sql, n) in sqls {
            let params: Vec<String> = ["u", "e", "2025-01-01", "2025-03-31", "invoice"][..n]
                .iter()
                .map(|s| (*s).to_owned())
                .collect();
            let params: Vec<String> = if n == 3 {
                vec!["e".into(), "2025-01-01".into(), "2025-03-31".into()]
            } else {
                params
            };
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = stmt
                .query_map(rusqlite::params_from_iter(params.iter()), |r| r.get(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                plan.iter()
                    .all(|s| !s.contains("TEMP B-TREE") && !s.starts_with("SCAN")),
                "{sql}: {plan:#?}"
            );
        }
    }

    #[test]
    fn pounds_round_per_line_half_away_from_zero() {
        // 10.01 EUR at 0.855 = 8.558550 → 8.56.
        assert_eq!(to_pounds(1001, 855_000), 856 * PENNY);
        assert_eq!(to_pounds(-1001, 855_000), -856 * PENNY);
        assert_eq!(to_pounds(100, 1_000_000), 100 * PENNY);
    }

    #[test]
    fn division_rounds_half_away_from_zero() {
        assert_eq!(div_round(5, 2), 3);
        assert_eq!(div_round(-5, 2), -3);
        assert_eq!(div_round(4, 3), 1);
    }

    #[test]
    fn the_anniversary_of_29_february_is_1_march() {
        let d = Date::from_calendar_date(2024, Month::February, 29).unwrap();
        assert_eq!(
            first_anniversary(d),
            Date::from_calendar_date(2025, Month::March, 1).unwrap()
        );
    }
}
