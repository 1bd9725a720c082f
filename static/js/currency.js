// The currency and exchange rate of invoices, bills and expenses
// (docs/accounting.md#currencies): the codes are the server's (its OpenAPI document, read
// through vocab.js), amounts are shown in the record's own currency, and pounds are
// worked out the server's way (amount × rate, 2 dp half away from zero).

import { format, moneyFromPence, pence, scaled } from "./decimal.js";
import { field, numberOrText, val } from "./ui.js";

/** The currency the books are kept in: rates are pounds per unit. */
export const HOME = "GBP";

/** "£12.30" in pounds, "12.30 EUR" in any other currency. */
export function amountIn(value, currency) {
  const p = pence(value);
  return p === null ? "—" : amountFromPence(p, currency);
}

/** {@link amountIn} of an amount in pence (hundredths of the currency). */
export function amountFromPence(p, currency) {
  if (!currency || currency === HOME) return moneyFromPence(p);
  return `${format(p, 2)} ${currency}`;
}

/** Pence in the currency → pence in pounds at `rate` (pounds per unit, up to 6 dp). */
export function poundsPence(p, rate) {
  const r = scaled(rate ?? 1, 6) ?? 1000000n;
  const x = p * r;
  const d = 1000000n;
  const q = x / d;
  const rem = x % d;
  if ((rem < 0n ? -rem : rem) * 2n >= d) return q + (x < 0n ? -1n : 1n);
  return q;
}

/**
 * The currency select and the rate field of a form, for `record` (null: a new one in
 * pounds); the rate is shown only for a currency other than pounds.
 */
export function currencyFields(codes, record) {
  const code = record?.currency ?? HOME;
  const list = codes.length ? codes : [HOME];
  const currency = field({ label: "Currency", name: "currency", type: "select", options: list, value: code });
  const rate = field({
    label: "Exchange rate (£ per unit)", name: "exchange_rate", inputmode: "decimal",
    value: code === HOME ? "" : String(record?.exchange_rate ?? ""),
    hint: "What one unit of the currency was worth in pounds (up to 6 decimal places).",
  });
  const sync = () => { rate.hidden = currency.control.value === HOME; };
  currency.control.addEventListener("change", sync);
  sync();
  return [currency, rate];
}

/** Adds the form's `currency` and, unless pounds, its `exchange_rate` to `body`. */
export function currencyBody(form, body) {
  const code = val(form, "currency") || HOME;
  body.currency = code;
  const rate = val(form, "exchange_rate");
  if (code !== HOME && rate !== "") body.exchange_rate = numberOrText(rate);
}
