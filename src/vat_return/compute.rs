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

/// A document line as read, amounts in hundredths of the document's currency.
struct DocLine {
    doc_id: String,
    number: Option<String>,
    date: String,
    contact: Option<String>,
    treatment: String,
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
                self.emit(Line::rounding(self.to.clone(), rounded - exact))?;
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
        let capital = if kind.allows_reverse_charge() {
            "l.capital_goods"
        } else {
            "0"
        };
        let rc = match take {
            Take::All => "",
            Take::ReverseCharge => " AND l.vat_treatment = 'reverse_charge'",
        };
        let statuses = kind
            .posted_statuses()
            .iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT d.id, d.number, d.issue_date, c.name, l.vat_treatment, l.net, l.vat,
                    l.reverse_charge_vat, d.exchange_rate, {capital}
             FROM {docs} d
             JOIN {lines} l ON l.document_id = d.id
             LEFT JOIN contacts c ON c.id = d.contact_id
             WHERE d.owner_id = ?1 AND d.entity_id = ?2
               AND d.issue_date >= ?3 AND d.issue_date <= ?4
               AND d.status IN ({statuses}){rc}
             ORDER BY d.issue_date, d.seq, l.position",
            docs = kind.table(),
            lines = kind.lines_table(),
        );
        let conn = self.conn;
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query([self.owner, self.entity, &self.from, &self.to])?;
        while let Some(r) = rows.next()? {
            if self.stopped {
                break;
            }
            let l = DocLine {
                doc_id: r.get(0)?,
                number: r.get(1)?,
                date: r.get(2)?,
                contact: r.get(3)?,
                treatment: r.get(4)?,
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
            source_id: l.doc_id.clone(),
            number: l.number.clone(),
            date: l.date.clone(),
            contact_name: l.contact.clone(),
            treatment: Some(l.treatment.clone()),
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
    /// its document's figures pro rata (docs/vat.md#cash-accounting-scheme).
    fn payments(&mut self, src: Source) -> AppResult<()> {
        let kind = src.kind().expect("a document source");
        let statuses = kind
            .posted_statuses()
            .iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT p.id, p.date, p.amount, d.id, d.number, c.name, d.total, d.vat_total,
                    d.exchange_rate, l.vat_treatment, l.net, l.vat
             FROM payments p
             JOIN {docs} d ON d.id = p.document_id
             LEFT JOIN {lines} l ON l.document_id = d.id
             LEFT JOIN contacts c ON c.id = d.contact_id
             WHERE p.owner_id = ?1 AND p.entity_id = ?2
               AND p.date >= ?3 AND p.date <= ?4
               AND p.document_type = ?5
               AND d.status IN ({statuses})
             ORDER BY p.date, p.seq, l.position",
            docs = kind.table(),
            lines = kind.lines_table(),
        );
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
            let payment_id: String = r.get(0)?;
            if current.as_ref().is_none_or(|c| c.payment_id != payment_id) {
                if let Some(done) = current.take() {
                    self.payment(src, &done)?;
                }
                current = Some(Paid {
                    payment_id,
                    date: r.get(1)?,
                    amount: r.get(2)?,
                    number: r.get(4)?,
                    contact: r.get(5)?,
                    total: r.get(6)?,
                    vat_total: r.get(7)?,
                    rate: r.get(8)?,
                    groups: Vec::new(),
                });
            }
            let treatment: Option<String> = r.get(9)?;
            if let (Some(t), Some(c)) = (treatment, current.as_mut()) {
                let (net, vat): (i64, i64) = (r.get(10)?, r.get(11)?);
                match c.groups.iter_mut().find(|g| g.treatment == t) {
                    Some(g) => {
                        g.gross += i128::from(net) + i128::from(vat);
                        g.vat += i128::from(vat);
                    }
                    None => c.groups.push(Group {
                        treatment: t,
                        gross: i128::from(net) + i128::from(vat),
                        vat: i128::from(vat),
                    }),
                }
            }
        }
        if let Some(done) = current.take() {
            self.payment(src, &done)?;
        }
        Ok(())
    }

    /// One payment's contributions (docs/vat.md#cash-accounting-scheme): its VAT share is
    /// round(payment × document VAT / document total, 2); the payment is split across the
    /// treatments by their gross, each part's VAT pro rata to the treatment's VAT, the
    /// residue of the rounding on the largest part (the largest VAT for the VAT), so the
    /// parts add up to the payment and the VAT shares to the VAT share.
    fn payment(&mut self, src: Source, p: &Paid) -> AppResult<()> {
        let sign: i128 = if src.is_credit() { -1 } else { 1 };
        let amount = i128::from(p.amount);
        let total = i128::from(p.total);
        let line =
            |treatment: Option<String>, box_no: u8, net: i128, vat: i128, amount: i128| Line {
                box_no,
                source: src.payment(),
                source_id: p.payment_id.clone(),
                number: p.number.clone(),
                date: p.date.clone(),
                contact_name: p.contact.clone(),
                treatment,
                net: sign * net,
                vat: sign * vat,
                amount,
            };
        let (vat_box, net_box) = if src.is_sale() { (1, 6) } else { (4, 7) };
        if total <= 0 || p.groups.is_empty() {
            // Nothing to apportion: the payment is all net, without VAT
            // (docs/vat.md#cash-accounting-scheme).
            let net = to_pounds(amount, p.rate);
            self.emit(line(None, net_box, net, 0, sign * net))?;
            return Ok(());
        }
        let vat_share = div_round(amount * i128::from(p.vat_total), total);
        let mut parts: Vec<(i128, i128)> = p
            .groups
            .iter()
            .map(|g| {
                (
                    div_round(amount * g.gross, total),
                    div_round(amount * g.vat, total),
                )
            })
            .collect();
        let largest = |key: &dyn Fn(&Group) -> i128| {
            (0..p.groups.len())
                .max_by_key(|&i| (key(&p.groups[i]), std::cmp::Reverse(i)))
                .unwrap_or(0)
        };
        let part_residue = amount - parts.iter().map(|x| x.0).sum::<i128>();
        parts[largest(&|g| g.gross)].0 += part_residue;
        let vat_residue = vat_share - parts.iter().map(|x| x.1).sum::<i128>();
        parts[largest(&|g| g.vat)].1 += vat_residue;
        for (g, (part, vat)) in p.groups.iter().zip(parts) {
            if g.treatment == "reverse_charge" {
                // Counted on the document's date (docs/vat.md#cash-accounting-scheme).
                continue;
            }
            let vat_p = to_pounds(vat, p.rate);
            let net_p = to_pounds(part - vat, p.rate);
            let t = Some(g.treatment.clone());
            if vat_p != 0 {
                self.emit(line(t.clone(), vat_box, net_p, vat_p, sign * vat_p))?;
            }
            if g.treatment != "outside_scope" {
                self.emit(line(t, net_box, net_p, vat_p, sign * net_p))?;
            }
        }
        Ok(())
    }

    /// The period's expenses, on their date on every scheme (docs/vat.md#expenses).
    fn expenses(&mut self) -> AppResult<()> {
        let conn = self.conn;
        let mut stmt = conn.prepare_cached(
            "SELECT x.id, x.description, x.date, c.name, x.vat_treatment, x.amount,
                    x.vat_amount, x.reverse_charge_vat, x.exchange_rate, x.vat_reclaimable,
                    x.capital_goods
             FROM expenses x
             LEFT JOIN contacts c ON c.id = x.contact_id
             WHERE x.owner_id = ?1 AND x.entity_id = ?2 AND x.date >= ?3 AND x.date <= ?4
             ORDER BY x.date, x.seq",
        )?;
        let mut rows = stmt.query([self.owner, self.entity, &self.from, &self.to])?;
        while let Some(r) = rows.next()? {
            if self.stopped {
                break;
            }
            let id: String = r.get(0)?;
            let description: String = r.get(1)?;
            let date: String = r.get(2)?;
            let contact: Option<String> = r.get(3)?;
            let treatment: String = r.get(4)?;
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
                source_id: id.clone(),
                number: Some(description.clone()),
                date: date.clone(),
                contact_name: contact.clone(),
                treatment: Some(treatment.clone()),
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
        let mut stmt = conn.prepare_cached(
            "SELECT id, description, date, box, amount FROM vat_adjustments
             WHERE entity_id = ?1 AND date >= ?2 AND date <= ?3
             ORDER BY date, seq",
        )?;
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
                source_id: r.get(0)?,
                number: Some(r.get(1)?),
                date: r.get(2)?,
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

/// A payment being read, with its document's lines grouped by treatment.
struct Paid {
    payment_id: String,
    date: String,
    amount: i64,
    number: Option<String>,
    contact: Option<String>,
    total: i64,
    vat_total: i64,
    rate: i64,
    groups: Vec<Group>,
}

/// A document's lines of one treatment: gross and VAT in hundredths of its currency.
struct Group {
    treatment: String,
    gross: i128,
    vat: i128,
}

#[cfg(test)]
mod tests {
    use super::*;

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
