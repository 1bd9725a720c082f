// Stock movements (docs/ledger.md#movements-endpoint): the ledger with every filter, and the form
// that records one.

import { get, post } from "../api.js";
import { price, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import {
  field, fill, formDialog, h, loadError, numberOrText, pageHeader, table, toast, today, val, date,
} from "../ui.js";
import { locationSelect, locations, productPicker } from "../widgets.js";

export const title = "Movements";

export const MOVEMENT_TYPES = [
  ["purchase", "Purchase", "in"],
  ["sale", "Sale", "out"],
  ["adjustment", "Adjustment", null],
  ["return", "Return", null],
  ["transfer_in", "Transfer in", "in"],
  ["transfer_out", "Transfer out", "out"],
  ["stock_take", "Stock take", null],
];

export function movementTypeLabel(t) {
  if (t === "transfer_cancelled") return "Transfer cancelled";
  return MOVEMENT_TYPES.find(([v]) => v === t)?.[1] ?? t;
}

const PAGE = 50;
const filters = { productId: "", product: null, locationId: "", type: "", dateFrom: "", dateTo: "", offset: 0 };

export async function render(root, ctx) {
  const recordButton = h("button", { type: "button" }, "Record movement");
  root.append(pageHeader("Stock movements", recordButton),
    h("p", { class: "lead" }, "Every change of stock, newest first. The ledger is permanent: a mistake is put right by another movement."));

  let locs = [];
  try {
    locs = await locations();
  } catch (e) {
    root.append(loadError(e, "the warehouses"));
  }
  if (!ctx.alive()) return;
  const names = new Map(locs.map((l) => [l.id, l.name]));

  const picker = productPicker({ label: "Product", name: "productId", required: false, hint: "", value: filters.product });
  const locSel = locationSelect({ label: "Location", name: "locationId", locs, blank: "All locations", value: filters.locationId });
  const typeSel = field({
    label: "Type", name: "type", type: "select", value: filters.type,
    options: [{ value: "", label: "All types" }, ...MOVEMENT_TYPES.map(([v, l]) => ({ value: v, label: l })),
      { value: "transfer_cancelled", label: "Transfer cancelled" }],
  });
  const from = field({ label: "From", name: "dateFrom", type: "date", value: filters.dateFrom });
  const to = field({ label: "To", name: "dateTo", type: "date", value: filters.dateTo });
  const form = h("form", { class: "filters", role: "search", "aria-label": "Filter movements" },
    picker, locSel, typeSel, from, to,
    h("div", { class: "actions" },
      h("button", { type: "submit" }, "Filter"),
      h("button", { type: "button", class: "secondary", onclick: () => { Object.assign(filters, { productId: "", product: null, locationId: "", type: "", dateFrom: "", dateTo: "", offset: 0 }); ctx.refresh(); } }, "Clear")));
  form.noValidate = true;
  const err = h("div");
  const listArea = h("div");
  const prev = h("button", { type: "button", class: "secondary" }, "← Newer");
  const next = h("button", { type: "button", class: "secondary" }, "Older →");
  const status = h("p", { class: "muted", "aria-live": "polite" });
  root.append(form, err, listArea, h("div", { class: "pager" }, prev, status, next));

  async function load() {
    fill(err);
    listArea.setAttribute("aria-busy", "true");
    try {
      const { data } = await get("/api/stock-movements", scoped({
        productId: filters.productId, locationId: filters.locationId, type: filters.type,
        dateFrom: filters.dateFrom, dateTo: filters.dateTo, limit: PAGE + 1, offset: filters.offset,
      }));
      if (!ctx.alive()) return;
      const more = data.length > PAGE;
      const rows = data.slice(0, PAGE);
      fill(listArea, table({
        caption: "Stock movements",
        rows,
        empty: "No movements match.",
        columns: [
          { label: "Date", class: "nowrap", cell: (m) => date(m.date) },
          { label: "Product", header: true, cell: (m) => [m.product_id.name, h("span", { class: "sub" }, m.product_id.sku)] },
          { label: "Type", cell: (m) => movementTypeLabel(m.type) },
          { label: "Location", cell: (m) => (m.location_id ? names.get(m.location_id) ?? "—" : h("span", { class: "muted" }, "Unallocated")) },
          { label: "Quantity", num: true, cell: (m) => signedQty(m.qty) },
          { label: "Unit cost", num: true, cell: (m) => (m.unit_cost == null ? "" : price(m.unit_cost)) },
          { label: "Reference", cell: (m) => m.reference || "" },
          { label: "Notes", class: "wide-only", cell: (m) => m.notes || "" },
        ],
      }));
      prev.disabled = filters.offset === 0;
      next.disabled = !more;
      status.textContent = rows.length ? `Showing ${filters.offset + 1}–${filters.offset + rows.length}` : "";
    } catch (e) {
      if (ctx.alive()) fill(err, loadError(e, "the movements"));
    } finally {
      listArea.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const p = await picker.resolve();
    if (picker.control.value.trim() && !p) {
      fill(err, h("div", { class: "notice error", role: "alert" }, `No product matches “${picker.control.value.trim()}”.`));
      return;
    }
    Object.assign(filters, {
      productId: p?.id || "", product: p, locationId: val(form, "locationId"), type: val(form, "type"),
      dateFrom: val(form, "dateFrom"), dateTo: val(form, "dateTo"), offset: 0,
    });
    load();
  });
  prev.addEventListener("click", () => { filters.offset = Math.max(0, filters.offset - PAGE); load(); });
  next.addEventListener("click", () => { filters.offset += PAGE; load(); });
  recordButton.addEventListener("click", async () => {
    if (await recordMovement(locs)) load();
  });
  await load();
}

function signedQty(v) {
  const n = scaled(v, 3) ?? 0n;
  return h("span", { class: n < 0n ? "neg" : "pos" }, n > 0n ? `+${qty(v)}` : qty(v));
}

/** The "record a movement" dialog; resolves with the movement or undefined. */
export function recordMovement(locs, { product } = {}) {
  return formDialog({
    title: "Record a stock movement",
    submitLabel: "Record movement",
    build: (form) => {
      const picker = productPicker({ value: product });
      const type = field({
        label: "Type", name: "type", type: "select", required: true,
        options: MOVEMENT_TYPES.map(([v, l]) => ({ value: v, label: l })),
      });
      const direction = field({
        label: "Direction", name: "direction", type: "select",
        options: [{ value: "in", label: "In (increase stock)" }, { value: "out", label: "Out (decrease stock)" }],
      });
      const amount = field({
        label: "Quantity", name: "qty", required: true, inputmode: "decimal",
        hint: "How many units. The direction gives the sign.",
      });
      const unitCost = field({
        label: "Unit cost (£)", name: "unit_cost", inputmode: "decimal",
        hint: "Optional. Updates the product's cost price to the weighted average.",
      });
      const sync = () => {
        const fixed = MOVEMENT_TYPES.find(([v]) => v === type.control.value)?.[2];
        if (fixed) direction.control.value = fixed;
        direction.control.disabled = !!fixed;
        unitCost.hidden = type.control.value !== "purchase";
      };
      type.control.addEventListener("change", sync);
      sync();
      form.picker = picker;
      form.append(h("div", { class: "form-grid" },
        h("div", { class: "wide" }, picker), type, direction, amount,
        locationSelect({ label: "Location", name: "location_id", locs, blank: "No location (unallocated stock)", activeOnly: true }),
        field({ label: "Date", name: "date", type: "date", value: today(), max: today() }),
        unitCost,
        field({ label: "Reference", name: "reference", hint: "Order number, invoice…" }),
        field({ label: "Notes", name: "notes", type: "textarea", wide: true })));
    },
    submit: async (form) => {
      const p = await form.picker.resolve();
      const body = {
        product_id: p ? p.id : "",
        type: val(form, "type"),
        entity_id: state.entity.id,
      };
      if (!p) {
        throw new Error(form.picker.control.value.trim()
          ? `Invalid value for field \`product_id\`: no product matches “${form.picker.control.value.trim()}”`
          : "Missing required field: product_id");
      }
      let q = val(form, "qty");
      if (q === "") throw new Error("Missing required field: qty");
      const out = form.elements.namedItem("direction").value === "out";
      if (out && !q.startsWith("-")) q = `-${q.replace(/^\+/, "")}`;
      body.qty = numberOrText(q);
      for (const n of ["location_id", "date", "reference", "notes"]) {
        if (val(form, n)) body[n] = val(form, n);
      }
      if (body.type === "purchase" && val(form, "unit_cost")) body.unit_cost = numberOrText(val(form, "unit_cost"));
      const { data } = await post("/api/stock-movements", body);
      toast(`Recorded: ${movementTypeLabel(data.type)} of ${qty(data.qty)} × ${data.product_id.name}.`);
      window.dispatchEvent(new Event("stockbook:stock-changed"));
      return data;
    },
  });
}
