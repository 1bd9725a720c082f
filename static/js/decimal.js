// Exact decimals for money and quantities, on BigInt scaled integers.
//
// The server sends amounts as JSON numbers with at most 4 decimal places; `api.js` keeps
// the exact source text of any number a double cannot hold (it arrives here as a string).
// Nothing here adds binary floats: a value is parsed from its decimal text into a BigInt
// of hundredths (money), thousandths (quantities) or ten-thousandths (prices), and totals
// are sums of those integers. Rounding is half away from zero, as the server rounds.

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Whether `text` is a plain decimal a person may type: `12`, `-3.5`, `.25`. */
export function isDecimal(text) {
  return /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/.test(String(text));
}

/** Number of decimal places written in `text` (trailing zeros do not count). */
export function places(text) {
  const m = DECIMAL.exec(String(text).trim());
  if (!m) return 0;
  const frac = (m[3] || "").replace(/0+$/, "");
  return Math.max(0, frac.length - Number(m[4] || 0));
}

/**
 * `value` (number, numeric string or BigInt) as a BigInt scaled by 10^dp, rounded half away
 * from zero. Returns null for null, undefined, "" or text that is not a number.
 */
export function scaled(value, dp) {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return value * 10n ** BigInt(dp);
  const m = DECIMAL.exec(String(value).trim());
  if (!m || (m[2] === "" && (m[3] === undefined || m[3] === ""))) return null;
  const [, sign, int = "", frac = "", exp = "0"] = m;
  const digits = (int + frac).replace(/^0+(?=\d)/, "") || "0";
  const shift = int.length + Number(exp) - (int + frac).length + dp;
  let n = BigInt(digits);
  if (shift >= 0) {
    n *= 10n ** BigInt(shift);
  } else {
    const d = 10n ** BigInt(-shift);
    const q = n / d;
    n = 2n * (n % d) >= d ? q + 1n : q;
  }
  return sign === "-" ? -n : n;
}

/** Hundredths (pence) of `value`, or null. */
export const pence = (value) => scaled(value, 2);

/** Divides a scaled integer by 10^k, rounding half away from zero. */
export function shiftDown(n, k) {
  if (k <= 0) return n * 10n ** BigInt(-k);
  const d = 10n ** BigInt(k);
  const neg = n < 0n;
  const a = neg ? -n : n;
  const q = a / d;
  const r = 2n * (a % d) >= d ? q + 1n : q;
  return neg ? -r : r;
}

function group(int) {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * A scaled integer as text with `dp` places. `trim` drops trailing zeros (keeping at least
 * `minDp` places); `grouping` adds thousands separators.
 */
export function format(n, dp, { trim = false, minDp = 0, grouping = true } = {}) {
  const neg = n < 0n;
  let s = (neg ? -n : n).toString().padStart(dp + 1, "0");
  let int = dp ? s.slice(0, -dp) : s;
  let frac = dp ? s.slice(-dp) : "";
  if (trim) {
    while (frac.length > minDp && frac.endsWith("0")) frac = frac.slice(0, -1);
  }
  if (grouping) int = group(int);
  const body = frac ? `${int}.${frac}` : int;
  return neg && /[1-9]/.test(s) ? `-${body}` : body;
}

/** `£1,234.50` (or `-£3.20`); a dash for a missing value. */
export function money(value) {
  const p = pence(value);
  return p === null ? "—" : moneyFromPence(p);
}

export function moneyFromPence(p) {
  const neg = p < 0n;
  return `${neg ? "-" : ""}£${format(neg ? -p : p, 2)}`;
}

/** A quantity with up to 3 decimal places, trailing zeros dropped: `1,250.5`. */
export function qty(value) {
  const n = scaled(value, 3);
  return n === null ? "—" : format(n, 3, { trim: true });
}

/** A price with 2 to 4 decimal places: `£0.1235`, `£2.50`. */
export function price(value) {
  const n = scaled(value, 4);
  if (n === null) return "—";
  const neg = n < 0n;
  return `${neg ? "-" : ""}£${format(neg ? -n : n, 4, { trim: true, minDp: 2 })}`;
}

/** A percentage with up to 2 places: `33.33%`. */
export function percent(value) {
  const n = scaled(value, 2);
  return n === null ? "—" : `${format(n, 2, { trim: true })}%`;
}

/** Plain text of a value for an input or a CSV cell: no grouping, no symbol. */
export function plain(value, dp) {
  const n = scaled(value, dp);
  return n === null ? "" : format(n, dp, { trim: true, grouping: false });
}

/** Compares two values exactly at `dp` places: -1, 0 or 1. */
export function compare(a, b, dp = 4) {
  const x = scaled(a, dp) ?? 0n;
  const y = scaled(b, dp) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Sum of `values` at `dp` places, as a scaled BigInt. */
export function sum(values, dp) {
  let t = 0n;
  for (const v of values) t += scaled(v, dp) ?? 0n;
  return t;
}

/**
 * One invoice or bill line in pence, by the server's rule (docs/accounting.md#line-totals):
 * net = round(quantity × unit_price × (1 − discount/100), 2); VAT = round(net × rate/100, 2).
 * A `reverse_charge` line's VAT is its `reverseCharge`, and its `vat` is 0: the buyer
 * accounts for it, so it is in no total. Returns null when a value is not a number.
 */
export function lineTotals({ quantity, unit_price, discount, vat_rate, vat_treatment }) {
  const q = scaled(quantity === "" ? null : quantity, 3);
  const p = scaled(unit_price === "" ? null : unit_price, 4);
  const d = scaled(discount === "" || discount == null ? 0 : discount, 2);
  const r = scaled(vat_rate === "" || vat_rate == null ? 0 : vat_rate, 2);
  if (q === null || p === null || d === null || r === null) return null;
  // q·10³ × p·10⁴ × (100 − d)·10² is quantity × price × (100 − discount) × 10⁹, and
  // quantity × price × (100 − discount) is the net in pence.
  const net = shiftDown(q * p * (10000n - d), 9);
  const vat = shiftDown(net * r, 4);
  if (vat_treatment === "reverse_charge") return { net, vat: 0n, total: net, reverseCharge: vat };
  return { net, vat, total: net + vat, reverseCharge: 0n };
}
