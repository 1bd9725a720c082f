// The line editor of invoices, bills and recurring invoices, with live totals. Each
// line's net and VAT are computed in integer pence by the server's own rule
// (docs/accounting.md#line-totals, `decimal.lineTotals`); the totals are sums of
// those integers. A line's VAT treatment sits beside its rate; a reverse-charge line's
// VAT is shown apart and left out of the totals (docs/accounting.md#vat-treatment).

import { get } from "./api.js";
import { amountFromPence, HOME } from "./currency.js";
import { lineTotals, plain } from "./decimal.js";
import { field, h, numberOrText } from "./ui.js";
import { productPicker } from "./widgets.js";

const COLS = [
  ["description", "Description"],
  ["product", "Product (optional)"],
  ["quantity", "Qty"],
  ["unit_price", "Unit price"],
  ["discount", "Discount %"],
  ["vat_rate", "VAT %"],
  ["vat_treatment", "VAT treatment"],
];

/** The treatments that carry no VAT: choosing one sets the rate to 0. */
const NO_VAT = ["zero", "exempt", "outside_scope"];

/**
 * `lines`: existing lines (or none); `priceOf(product)` gives a chosen product's price
 * (selling price on sales documents, cost on purchases); `currency()` the code the
 * amounts are in (docs/accounting.md#currencies); `treatments`: the VAT treatments a line
 * may take, `[{value, label}]` (`vocab.lineTreatments`). Returns the element with `.body()`
 * giving the lines for the JSON body and `.recompute()` to show the totals again.
 */
export function linesEditor({ lines = [], priceOf = (p) => p.unit_price, currency = () => HOME, treatments = [] } = {}) {
  const moneyFromPence = (p) => amountFromPence(p, currency());
  const tbody = h("tbody");
  const subtotal = h("td", { id: "doc-subtotal" });
  const vatTotal = h("td", { id: "doc-vat" });
  const total = h("td", { id: "doc-total" });
  const reverseCharge = h("td", { id: "doc-reverse-charge" });
  const reverseChargeRow = h("tr", { hidden: true },
    h("th", { scope: "row" }, "Reverse-charge VAT (yours to account for, not in the total)"), reverseCharge);
  const hint = h("p", { class: "hint", "aria-live": "polite" });
  const rows = [];

  function recompute() {
    let net = 0n;
    let vat = 0n;
    let rc = 0n;
    let ok = true;
    for (const r of rows) {
      const t = lineTotals(r.values());
      if (t) {
        net += t.net;
        vat += t.vat;
        rc += t.reverseCharge;
        r.out.textContent = moneyFromPence(t.total);
      } else {
        ok = false;
        r.out.textContent = "—";
      }
    }
    subtotal.textContent = moneyFromPence(net);
    vatTotal.textContent = moneyFromPence(vat);
    total.textContent = moneyFromPence(net + vat);
    reverseCharge.textContent = moneyFromPence(rc);
    reverseChargeRow.hidden = rc === 0n;
    hint.textContent = ok ? "" : "Lines showing — are not counted yet: give each a quantity and a unit price.";
  }

  function renumber() {
    rows.forEach((r, i) => {
      for (const [key, label] of COLS) {
        const w = r.fields[key];
        const name = `lines[${i}].${key === "product" ? "product_id" : key}`;
        if (key === "product") {
          w.querySelector("input[type=hidden]").name = name;
          w.control.name = `${name}__search`;
          w.control.dataset.errorFor = name;
        } else {
          w.control.name = name;
        }
        w.querySelector("label").textContent = `${label}, line ${i + 1}`;
      }
    });
  }

  function add(line = {}) {
    const fields = {};
    for (const [key, label] of COLS) {
      if (key === "product") {
        fields.product = productPicker({ label, required: false, hint: "" });
      } else if (key === "vat_treatment") {
        // Known treatments the kind refuses (an imported line) stay shown, for the server to judge.
        const known = treatments.some((o) => o.value === line.vat_treatment);
        const extra = line.vat_treatment && !known ? [{ value: line.vat_treatment, label: line.vat_treatment }] : [];
        fields.vat_treatment = field({ label, name: key, type: "select", value: line.vat_treatment ?? "",
          options: [{ value: "", label: "By rate" }, ...treatments, ...extra] });
      } else {
        const value = line[key] === undefined || line[key] === null
          ? { quantity: "1", discount: "0", vat_rate: "20" }[key] ?? ""
          : key === "description" ? line[key] : plain(line[key], 4);
        fields[key] = field({ label, name: key, value, inputmode: key === "description" ? null : "decimal", required: key === "description" });
      }
      fields[key].querySelector("label").classList.add("sr-only");
      fields[key].classList.add("cell");
    }
    if (line.product_id) fields.product.querySelector("input[type=hidden]").value = line.product_id;
    // The chosen product's whole name, wrapped below its box (the box cuts a long one off).
    const picked = h("p", { class: "picked-product" });
    fields.product.append(picked);
    const showPicked = () => {
      const p = fields.product.product;
      picked.textContent = p ? `${p.name} (${p.sku})` : "";
      fields.product.control.title = p ? p.name : "";
    };
    fields.product.addEventListener("product", showPicked);
    const out = h("td", { class: "num line-total" });
    const row = {
      fields,
      out,
      line,
      showPicked,
      values: () => ({
        quantity: fields.quantity.control.value.trim(),
        unit_price: fields.unit_price.control.value.trim(),
        discount: fields.discount.control.value.trim(),
        vat_rate: fields.vat_rate.control.value.trim(),
        vat_treatment: fields.vat_treatment.control.value,
      }),
    };
    fields.vat_treatment.control.addEventListener("change", () => {
      const t = fields.vat_treatment.control.value;
      const rate = fields.vat_rate.control.value.trim();
      if (NO_VAT.includes(t)) fields.vat_rate.control.value = "0";
      else if (t && (rate === "" || Number(rate) === 0)) fields.vat_rate.control.value = t === "reduced" ? "5" : "20";
      recompute();
    });
    fields.product.addEventListener("product", (ev) => {
      const p = ev.detail;
      if (!p) return;
      if (!fields.description.control.value.trim()) fields.description.control.value = p.name;
      fields.unit_price.control.value = plain(priceOf(p), 4);
      fields.vat_rate.control.value = plain(p.vat_rate, 2);
      if (p.vat_treatment && [...fields.vat_treatment.control.options].some((o) => o.value === p.vat_treatment)) {
        fields.vat_treatment.control.value = p.vat_treatment;
      }
      recompute();
    });
    const remove = h("button", { type: "button", class: "danger secondary small", "aria-label": "Remove line", onclick: () => {
      rows.splice(rows.indexOf(row), 1);
      tr.remove();
      renumber();
      recompute();
    } }, "✕");
    const tr = h("tr", {},
      h("td", { class: "desc" }, fields.description), h("td", { class: "desc" }, fields.product),
      h("td", {}, fields.quantity), h("td", {}, fields.unit_price), h("td", {}, fields.discount),
      h("td", {}, fields.vat_rate), h("td", {}, fields.vat_treatment), out, h("td", {}, remove));
    tr.addEventListener("input", recompute);
    rows.push(row);
    tbody.append(tr);
    renumber();
    recompute();
    return row;
  }

  const addButton = h("button", { type: "button", class: "secondary" }, "Add line");
  addButton.addEventListener("click", () => add().fields.description.control.focus());
  for (const l of lines) add(l);
  if (!lines.length) add();
  // A reopened document's lines name their products by id: the boxes show which
  // product each is (docs/inventory.md#products, `ids`), keeping the saved prices.
  const named = [...new Set(rows.map((r) => r.line.product_id).filter(Boolean))];
  const shown = named.length
    ? get("/api/products", { ids: named.join(",") }).then(({ data }) => {
      const byId = new Map(data.map((p) => [p.id, p]));
      for (const r of rows) {
        const p = byId.get(r.line.product_id);
        const box = r.fields.product;
        // Only while the box is untouched and still holds the saved product.
        if (p && box.control.value === "" && box.querySelector("input[type=hidden]").value === p.id) {
          box.show(p);
          r.showPicked();
        }
      }
    }).catch(() => {})
    : Promise.resolve();

  const el = h("div", { class: "lines-editor" },
    h("div", { class: "table-wrap" }, h("table", { class: "grid lines" },
      h("caption", { class: "sr-only" }, "Lines"),
      h("thead", {}, h("tr", {}, ...COLS.map(([, l]) => h("th", { scope: "col" }, l)),
        h("th", { scope: "col", class: "num" }, "Line total"), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Remove")))),
      tbody)),
    h("div", { class: "actions" }, addButton),
    h("table", { class: "totals", "aria-label": "Totals", "aria-live": "polite" },
      h("tbody", {},
        h("tr", {}, h("th", { scope: "row" }, "Subtotal"), subtotal),
        h("tr", {}, h("th", { scope: "row" }, "VAT"), vatTotal),
        h("tr", { class: "grand" }, h("th", { scope: "row" }, "Total"), total),
        reverseChargeRow)),
    hint);

  el.body = async () => {
    const out = [];
    for (const r of rows) {
      const f = r.fields;
      const line = { description: f.description.control.value.trim() };
      const p = f.product.control.value.trim() ? await f.product.resolve() : null;
      const hiddenId = f.product.querySelector("input[type=hidden]").value;
      if (p) line.product_id = p.id;
      else if (hiddenId && f.product.control.value.trim() === "") line.product_id = hiddenId;
      for (const k of ["quantity", "unit_price", "discount", "vat_rate"]) {
        const v = f[k].control.value.trim();
        if (v !== "") line[k] = numberOrText(v);
      }
      if (f.vat_treatment.control.value) line.vat_treatment = f.vat_treatment.control.value;
      out.push(line);
    }
    return out;
  };
  /** The lines that name a product, as `{product, quantity}` (text as typed); for the stock effect. */
  el.stockLines = async () => {
    const out = [];
    for (const r of rows) {
      const f = r.fields;
      const quantity = f.quantity.control.value.trim() || "1";
      const hiddenId = f.product.querySelector("input[type=hidden]").value;
      const p = f.product.control.value.trim() ? await f.product.resolve().catch(() => null) : null;
      if (p) out.push({ product: p, quantity });
      else if (hiddenId) out.push({ product: { id: hiddenId, name: null }, quantity });
    }
    return out;
  };
  el.recompute = recompute;
  /** Resolves once the saved lines' products are shown. */
  el.ready = shown;
  return el;
}
