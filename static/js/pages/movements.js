// Stock movements (docs/ledger.md#movements-endpoint): the ledger with every filter, and the form
// that records one.

import { get, post } from "../api.js";
import { format, price, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import {
  field, fieldError, fill, formDialog, h, loadError, numberOrText, pageHeader, STAY, table, toast,
  today, val, date,
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

/** Movement types a person records by hand: a transfer is always between two places. */
const MANUAL_TYPES = MOVEMENT_TYPES.filter(([v]) => v !== "transfer_in" && v !== "transfer_out");

/**
 * The location a stock action starts at: the one given, else the business's default, else
 * the only active location (or, with `first`, the first one); "" when none of these.
 */
function startingLocation(locs, location, { first = false } = {}) {
  const open = locs.filter((l) => l.status === "active");
  const active = (id) => id && open.some((l) => l.id === id);
  if (active(location)) return location;
  const def = state.entity?.default_location_id;
  if (active(def)) return def;
  return open.length === 1 || (first && open.length) ? open[0].id : "";
}

/**
 * The quantity typed in a dialog whose direction or action gives the sign: a sign typed
 * there is refused beside the field (−2 "In" is not a decrease). Returns the text, or null
 * after marking the field.
 */
function unsignedQty(form, name = "qty") {
  const q = val(form, name);
  if (q === "") {
    fieldError(form, name, "Enter how many units.");
    return null;
  }
  if (/^[-−–]/.test(q)) {
    fieldError(form, name, "Enter the quantity without a minus sign: the direction says whether stock goes in or out.");
    return null;
  }
  return q.replace(/^\+/, "");
}

/**
 * The "record a movement" dialog; resolves with the movement or undefined. `location`: the
 * place it starts at (a warehouse page's own); otherwise the business's default location.
 * A transfer in or out is not offered: it is a transfer between two places, or a put-away.
 */
export function recordMovement(locs, { product, location } = {}) {
  return formDialog({
    title: "Record a stock movement",
    submitLabel: "Record movement",
    build: (form) => {
      const picker = productPicker({ value: product });
      const type = field({
        label: "Type", name: "type", type: "select", required: true,
        options: MANUAL_TYPES.map(([v, l]) => ({ value: v, label: l })),
      });
      const direction = field({
        label: "Direction", name: "direction", type: "select",
        options: [{ value: "in", label: "In (increase stock)" }, { value: "out", label: "Out (decrease stock)" }],
      });
      const amount = field({
        label: "Quantity", name: "qty", required: true, inputmode: "decimal",
        hint: "How many units, without a sign. The direction says in or out.",
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
        locationSelect({
          label: "Location", name: "location_id", locs, blank: "No location (unallocated stock)", activeOnly: true,
          value: startingLocation(locs, location), hint: "Where the stock is. Unallocated stock is at no location until it is put away.",
        }),
        field({ label: "Date", name: "date", type: "date", value: today(), max: today() }),
        unitCost,
        field({ label: "Reference", name: "reference", hint: "Order number, invoice…" }),
        field({ label: "Notes", name: "notes", type: "textarea", wide: true })),
      h("p", { class: "hint", id: "movement-transfer-hint" },
        "Moving stock from one place to another? Make a ", h("a", { href: "#/transfers", onclick: (ev) => ev.currentTarget.closest("dialog")?.close() }, "transfer"),
        ", or put unallocated stock away from the product's Stock button or a warehouse page."));
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
      const q = unsignedQty(form);
      if (q === null) return STAY;
      const out = form.elements.namedItem("direction").value === "out";
      body.qty = numberOrText(out ? `-${q}` : q);
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

/** A product's unallocated stock (`stock_qty` less its stock rows), scaled to 3 places. */
export function unallocatedOf(p) {
  let n = scaled(p.stock_qty, 3) ?? 0n;
  for (const s of p.stock_levels || []) n -= scaled(s.quantity, 3) ?? 0n;
  return n;
}

/**
 * The "put away" dialog (docs/inventory.md#put-away): unallocated units of a product into a
 * location, one request. `product` and `location` preset it; resolves with the answer or
 * undefined.
 */
export function putAway(locs, { product, location } = {}) {
  return formDialog({
    title: "Put stock away",
    submitLabel: "Put away",
    build: (form) => {
      const picker = productPicker({ value: product, activeOnly: false });
      const amount = field({ label: "Quantity", name: "qty", required: true, inputmode: "decimal", hint: "Units to move out of the unallocated stock." });
      const shown = (p) => {
        const n = p ? unallocatedOf(p) : null;
        const hint = amount.querySelector(".hint");
        if (n === null) {
          hint.textContent = "Units to move out of the unallocated stock.";
          return;
        }
        hint.textContent = `${p.name} has ${format(n, 3, { trim: true })} unallocated.`;
        if (!amount.control.value && n > 0n) amount.control.value = format(n, 3, { trim: true, grouping: false });
      };
      picker.addEventListener("product", (ev) => shown(ev.detail));
      form.picker = picker;
      form.id = "put-away-form";
      form.append(
        h("p", { class: "muted" }, "Unallocated stock (opening stock, or stock recorded without a location) is at no location. Putting it away moves it into one, in a single step."),
        h("div", { class: "form-grid" },
          h("div", { class: "wide" }, picker),
          locationSelect({ label: "Into location", name: "location_id", locs, activeOnly: true, required: true, value: startingLocation(locs, location, { first: true }) }),
          amount,
          field({ label: "Date", name: "date", type: "date", value: today(), max: today() }),
          field({ label: "Notes", name: "notes", type: "textarea", wide: true })));
      if (product) shown(product);
    },
    submit: async (form) => {
      const p = await form.picker.resolve();
      if (!p) {
        throw new Error(form.picker.control.value.trim()
          ? `Invalid value for field \`product_id\`: no product matches “${form.picker.control.value.trim()}”`
          : "Missing required field: product_id");
      }
      const q = unsignedQty(form);
      if (q === null) return STAY;
      const body = { product_id: p.id, location_id: val(form, "location_id"), qty: numberOrText(q) };
      if (!body.location_id) throw new Error("Missing required field: location_id");
      for (const n of ["date", "notes"]) if (val(form, n)) body[n] = val(form, n);
      const { data } = await post("/api/stock/put-away", body);
      const name = locs.find((l) => l.id === body.location_id)?.name ?? "the location";
      toast(`Put away: ${qty(data.movements[1].qty)} × ${p.name} into ${name}.`);
      window.dispatchEvent(new Event("stockbook:stock-changed"));
      return data;
    },
  });
}
