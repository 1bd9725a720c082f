// Products (docs/inventory.md#products): server-side search and paging (fast with 100,000
// products), create and edit every field, deactivate and reactivate, stock per location with
// reorder points, and the invoices and bills that moved it (docs/documents-stock.md#the-one-rule).

import { get, post, put } from "../api.js";
import { editRecord, recordBody, recordFields } from "../crud.js";
import { format, percent, price, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import {
  act, badge, date, field, fill, formDialog, h, loadError, numberOrText, onSubmit, pageHeader,
  table, toast, val,
} from "../ui.js";
import { label, options } from "../vocab.js";
import { putAway, unallocatedOf } from "./movements.js";

export const title = "Products";

const PAGE = 25;

export const PRODUCT_FIELDS = [
  { name: "name", label: "Name", required: true, wide: true },
  { name: "sku", label: "SKU", hint: "Left blank, one is made up (SKU-00001)." },
  { name: "barcode", label: "Barcode", hint: "EAN, UPC or similar.", nullable: true },
  { name: "category", label: "Category", list: "product-categories" },
  { name: "unit", label: "Unit", default: "pcs", hint: "pcs, kg, box…" },
  { name: "unit_price", label: "Selling price (£)", type: "decimal", default: "0" },
  { name: "cost_price", label: "Cost price (£)", type: "decimal", default: "0" },
  { name: "vat_rate", label: "VAT rate (%)", type: "decimal", default: "20" },
  { name: "vat_treatment", label: "VAT treatment", type: "select",
    options: async () => [{ value: "", label: "By rate" }, ...await options("Product", "vat_treatment")],
    hint: "Zero-rated, exempt and outside the scope take a rate of 0." },
  { name: "low_stock_threshold", label: "Low stock threshold", type: "decimal", default: "5",
    hint: "An alert shows when total stock is at or below this." },
  { name: "stock_qty", label: "Opening stock", type: "decimal", edit: false,
    hint: "Units you hold now. Leave blank for none." },
  // Not a field of the product: where its opening stock is (docs/inventory.md#product-stock).
  { name: "opening_location_id", label: "Opening stock is at", type: "select", edit: false, send: false,
    options: async () => [...(await get("/api/warehouse-locations", scoped())).data
      .filter((l) => l.status === "active").map((l) => ({ value: l.id, label: l.name })),
    { value: "", label: "No location (unallocated: put it away later)" }],
    default: () => state.entity?.default_location_id ?? "",
    hint: "The warehouse or shop the opening stock is in." },
  { name: "stock_qty", label: "Total stock", type: "decimal", create: false, onlyChanged: true,
    hint: "Changing it records an unallocated adjustment." },
  { name: "description", label: "Description", type: "textarea", nullable: true },
  { name: "notes", label: "Internal notes", type: "textarea", nullable: true },
  { name: "active", label: "Active (shown in transfers, stock takes and alerts)", type: "checkbox", create: false },
];

// Filters survive moving between pages in one visit.
const filters = { q: "", category: "", active: "true", offset: 0 };

export async function render(root, ctx) {
  const newButton = h("button", { type: "button" }, "New product");
  root.append(pageHeader("Products", newButton));

  const search = field({ label: "Search name, SKU or barcode", name: "q", type: "search", value: filters.q, wide: true });
  search.classList.add("grow");
  const category = field({ label: "Category", name: "category", value: filters.category, list: "product-categories" });
  const active = field({
    label: "Status", name: "active", type: "select", value: filters.active,
    options: [{ value: "true", label: "Active" }, { value: "false", label: "Deactivated" }, { value: "", label: "All" }],
  });
  const filterForm = h("form", { class: "filters", role: "search", "aria-label": "Find products" },
    search, category, active, h("button", { type: "submit" }, "Search"));
  const datalist = h("datalist", { id: "product-categories" });
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const listArea = h("div");
  const prev = h("button", { type: "button", class: "secondary" }, "← Previous");
  const next = h("button", { type: "button", class: "secondary" }, "Next →");
  root.append(filterForm, datalist, listArea, h("div", { class: "pager" }, prev, status, next));

  let seq = 0;
  async function load() {
    const mine = ++seq;
    listArea.setAttribute("aria-busy", "true");
    try {
      const { data } = await get("/api/products", scoped({
        q: filters.q, category: filters.category, active: filters.active,
        limit: PAGE + 1, offset: filters.offset,
      }));
      if (!ctx.alive() || mine !== seq) return;
      const more = data.length > PAGE;
      const rows = data.slice(0, PAGE);
      fill(listArea, productTable(rows));
      for (const c of new Set(rows.map((p) => p.category).filter(Boolean))) {
        if (![...datalist.options].some((o) => o.value === c)) datalist.append(h("option", { value: c }));
      }
      prev.disabled = filters.offset === 0;
      next.disabled = !more;
      status.textContent = rows.length
        ? `Showing ${filters.offset + 1}–${filters.offset + rows.length}${more ? "" : " (end of list)"}`
        : "No products match.";
    } catch (e) {
      if (ctx.alive()) fill(listArea, loadError(e, "the products"));
    } finally {
      listArea.removeAttribute("aria-busy");
    }
  }

  function readFilters() {
    filters.q = val(filterForm, "q");
    filters.category = val(filterForm, "category");
    filters.active = filterForm.elements.namedItem("active").value;
    filters.offset = 0;
  }
  filterForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    readFilters();
    load();
  });
  let timer;
  search.control.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => { readFilters(); load(); }, 250);
  });
  active.control.addEventListener("change", () => { readFilters(); load(); });
  prev.addEventListener("click", () => { filters.offset = Math.max(0, filters.offset - PAGE); load(); });
  next.addEventListener("click", () => { filters.offset += PAGE; load(); });

  function productTable(rows) {
    return table({
      caption: "Products",
      rows,
      empty: filters.q ? `No product matches “${filters.q}”.` : "No products yet. Create the first one.",
      rowProps: (p) => ({ class: p.active ? null : "inactive", "data-id": p.id }),
      columns: [
        { label: "Product", header: true, cell: (p) => [p.name, h("span", { class: "sub" }, [p.sku, p.barcode].filter(Boolean).join(" · "))] },
        { label: "Category", cell: (p) => p.category || "—" },
        { label: "Price", num: true, cell: (p) => price(p.unit_price) },
        { label: "Cost", num: true, cell: (p) => price(p.cost_price) },
        { label: "VAT", num: true, cell: (p) => `${percent(p.vat_rate)}${p.vat_treatment && p.vat_treatment !== "standard" && p.vat_treatment !== "reduced" ? ` ${label(p.vat_treatment).toLowerCase()}` : ""}` },
        { label: "Stock", num: true, cell: (p) => `${qty(p.stock_qty)} ${p.unit}` },
        { label: "Locations", class: "wide-only", cell: (p) => stockSummary(p) },
        { label: "Status", cell: (p) => (p.active ? badge("Active", "ok") : badge("Deactivated", "muted")) },
        {
          label: "Actions", class: "num", cell: (p) => h("div", { class: "row-actions" },
            h("button", { type: "button", class: "secondary small", "aria-label": `Edit ${p.name}`, onclick: () => edit(p) }, "Edit"),
            h("button", { type: "button", class: "secondary small", "aria-label": `Stock of ${p.name} per location`, onclick: () => stockDialog(p).then(load) }, "Stock"),
            h("button", {
              type: "button", class: "secondary small", "aria-label": `${p.active ? "Deactivate" : "Reactivate"} ${p.name}`,
              onclick: (ev) => act(ev.currentTarget, async () => {
                await put("/api/products", { id: p.id, active: !p.active });
                toast(`${p.name} ${p.active ? "deactivated" : "reactivated"}.`);
                window.dispatchEvent(new Event("stockbook:stock-changed"));
                load();
              }),
            }, p.active ? "Deactivate" : "Reactivate")),
        },
      ],
    });
  }

  async function edit(p) {
    const saved = p ? await editRecord({ path: "/api/products", noun: "product", fields: PRODUCT_FIELDS, record: p, wide: true }) : await createProduct();
    if (saved) {
      toast(`${saved.name} saved.`);
      window.dispatchEvent(new Event("stockbook:stock-changed"));
      load();
    }
  }
  newButton.addEventListener("click", () => edit(null));
  await load();
}

/**
 * The new-product dialog: the product with its opening stock at the location chosen (an
 * adjustment there, in the same request), or unallocated when no location is chosen.
 * Resolves with the product.
 */
function createProduct() {
  return formDialog({
    title: "New product",
    submitLabel: "Create product",
    wide: true,
    build: async (form) => {
      await recordFields(form, PRODUCT_FIELDS, null, false);
      // Without a usable default location, the only active location when there is one; an
      // inactive default is not listed: then the first listed.
      const sel = form.elements.namedItem("opening_location_id");
      const only = sel && sel.options.length === 2 && !state.entity?.default_location_id;
      if (sel && (sel.selectedIndex < 0 || (only && sel.value === ""))) sel.selectedIndex = 0;
    },
    submit: async (form) => {
      const body = recordBody(form, PRODUCT_FIELDS, false, null);
      // The product and its opening stock at the location chosen are one request (one
      // transaction on the server); no location: the opening stock is unallocated.
      const where = body.opening_location_id;
      delete body.opening_location_id;
      if (where) body.stock_location_id = where;
      body.entity_id = state.entity.id;
      const created = (await post("/api/products", body)).data;
      return created;
    },
  });
}

function stockSummary(p) {
  if (!p.stock_levels?.length) return h("span", { class: "muted" }, "—");
  return h("span", {}, p.stock_levels.map((s) => `${s.location_id.name}: ${qty(s.quantity)}`).join(", "));
}

/** Stock of one product at each location, with each location's reorder point. */
async function stockDialog(product) {
  const [locations, movements] = await Promise.all([
    get("/api/warehouse-locations", scoped()).then((r) => r.data),
    get("/api/stock-movements", scoped({ productId: product.id, limit: 500 })).then((r) => r.data).catch(() => []),
  ]);
  const documents = documentMovements(movements);
  const locationName = new Map(locations.map((l) => [l.id, l.name]));
  let levels = product.stock_levels || [];
  return formDialog({
    title: `${product.name}: stock per location`,
    submitLabel: "Save reorder points",
    wide: true,
    build: (form) => {
      const rows = locations.map((l) => {
        const s = levels.find((x) => x.location_id.id === l.id);
        return { l, s };
      });
      form.append(
        h("p", { class: "muted" }, "A location alert shows when the quantity there is at or below its reorder point. To change quantities, record a movement."),
        table({
          caption: `Stock of ${product.name} per location`,
          rows,
          empty: "No warehouses yet.",
          columns: [
            { label: "Location", header: true, cell: ({ l }) => [l.name, l.status === "inactive" ? [" ", badge("Inactive", "muted")] : null] },
            { label: "On hand", num: true, cell: ({ s }) => qty(s?.quantity ?? 0) },
            { label: "Reserved", num: true, cell: ({ s }) => qty(s?.reserved_quantity ?? 0) },
            {
              label: "Reorder point", cell: ({ l, s }) => {
                const f = field({ label: `Reorder point at ${l.name}`, name: `reorder:${l.id}`, value: s ? String(s.reorder_point) : "", inputmode: "decimal" });
                f.querySelector("label").classList.add("sr-only");
                f.classList.add("cell");
                return f;
              },
            },
          ],
        }),
        h("p", {}, "Total: ", h("strong", {}, `${qty(product.stock_qty)} ${product.unit}`),
          " (including unallocated stock, not at any location)."),
        unallocatedLine(product, locations, form),
        h("h3", {}, "Invoices and bills that moved it"),
        h("div", { id: "product-documents" }, table({
          caption: `Invoices and bills that moved ${product.name}`,
          rows: documents,
          empty: "No invoice or bill has moved this product.",
          columns: [
            { label: "Date", cell: ({ m }) => date(m.date) },
            {
              label: "Document", header: true, cell: ({ m, kind }) => h("a", {
                href: `#/${kind === "invoice" ? "invoices" : "bills"}?open=${encodeURIComponent(m.document_id)}`,
                onclick: (ev) => ev.currentTarget.closest("dialog")?.close(),
              }, `${kind === "invoice" ? "Invoice" : "Bill"} ${m.reference || ""}`.trim()),
            },
            { label: "Type", cell: ({ m }) => m.type },
            { label: "Quantity", num: true, cell: ({ m }) => qty(m.qty) },
            { label: "Location", cell: ({ m }) => locationName.get(m.location_id) ?? "—" },
          ],
        })));
    },
    submit: async (form) => {
      for (const l of locations) {
        const name = `reorder:${l.id}`;
        const v = val(form, name);
        const s = levels.find((x) => x.location_id.id === l.id);
        const before = s ? String(s.reorder_point) : "";
        if (v === before || (v === "" && !s)) continue;
        try {
          if (s) {
            await put("/api/warehouse-stock", { id: s.id, reorder_point: numberOrText(v === "" ? "0" : v) });
          } else {
            await post("/api/warehouse-stock", {
              product_id: product.id, location_id: l.id, reorder_point: numberOrText(v), entity_id: state.entity.id,
            });
          }
        } catch (e) {
          // Name the field of this location so the message sits beside it.
          e.message = e.message.replace("`reorder_point`", `\`${name}\``);
          throw e;
        }
      }
      toast("Reorder points saved.");
      window.dispatchEvent(new Event("stockbook:stock-changed"));
      return true;
    },
  });
}

/**
 * "Unallocated: 12 pcs" with a Put away button (docs/inventory.md#put-away), when the product
 * has stock at no location; the stock dialog closes once it is put away.
 */
function unallocatedLine(product, locations, form) {
  const n = unallocatedOf(product);
  if (n === 0n) return h("p", { class: "muted", id: "product-unallocated" }, "No unallocated stock: every unit is at a location.");
  const button = h("button", {
    type: "button", class: "small",
    onclick: async () => {
      if (await putAway(locations, { product })) form.closest("dialog")?.close();
    },
  }, "Put away…");
  if (!locations.some((l) => l.status === "active")) button.disabled = true;
  return h("p", { id: "product-unallocated", class: n < 0n ? "notice warn" : null },
    "Unallocated: ", h("strong", {}, `${format(n, 3, { trim: true })} ${product.unit}`), " at no location. ", button);
}

/**
 * The movements written for invoices and bills, newest first, each with the kind of its
 * document: a document that wrote a sale is an invoice, one that wrote a purchase a bill; a
 * lone return (its first movement beyond the page) by its sign (an invoice's returns come in).
 */
function documentMovements(movements) {
  const mine = movements.filter((m) => m.document_id);
  const kinds = new Map();
  for (const m of mine) {
    if (m.type === "sale") kinds.set(m.document_id, "invoice");
    else if (m.type === "purchase") kinds.set(m.document_id, "bill");
  }
  return mine.map((m) => ({
    m,
    kind: kinds.get(m.document_id) ?? (String(m.qty).startsWith("-") ? "bill" : "invoice"),
  }));
}

// Re-exported for the form dialogs of other pages.
export { onSubmit };
