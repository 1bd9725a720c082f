// The stock valuation report (docs/inventory.md#valuation-report): location filter, an "as at"
// date (docs/documents-stock.md#stock-as-at-a-date), the summary and the totals by location
// and by category computed by the server over every row, the rows a page at a time
// (docs/inventory.md#valuation-report-by-the-page), and the CSV download streamed by the
// server (docs/inventory.md#valuation-report-as-a-spreadsheet). The page never holds more
// than one page of rows, however large the report.

import { get, query } from "../api.js";
import { barChart, shortMoney } from "../charts.js";
import { money, percent, price, qty } from "../decimal.js";
import { scoped } from "../state.js";
import { date, field, fill, h, loadError, pageHeader, table, today } from "../ui.js";
import { locations } from "../widgets.js";

export const title = "Valuation";

/** Rows per page. */
export const PAGE = 100;
/** Bars of the category chart; the other categories are one bar. */
const BARS = 12;

export async function render(root, ctx) {
  const csvButton = h("button", { type: "button", disabled: true }, "Download CSV");
  root.append(pageHeader("Stock valuation", csvButton),
    h("p", { class: "lead" }, "Stock on hand valued at cost (weighted average) and at selling price, per product and location."));
  const locationId = ctx.query.get("location") || "";
  const asOf = ctx.query.get("asOf") || "";
  const params = scoped({ locationId, asOf });
  // The first page is asked for at once, beside the warehouses for the filter.
  let pending = get("/api/reports/stock-valuation", { ...params, limit: PAGE, offset: 0 });
  pending.catch(() => {});
  let locs = [];
  try {
    locs = await locations();
  } catch (e) {
    root.append(loadError(e, "the warehouses"));
  }
  const filter = field({
    label: "Location", name: "locationId", type: "select", value: locationId,
    options: [{ value: "", label: "All locations (and unallocated stock)" }, ...locs.map((l) => ({ value: l.id, label: l.name }))],
  });
  const asAt = field({ label: "As at", name: "asOf", type: "date", value: asOf, max: today(), hint: "End of that day; blank for now." });
  const reload = () => {
    const q = new URLSearchParams();
    if (filter.control.value) q.set("location", filter.control.value);
    if (asAt.control.value) q.set("asOf", asAt.control.value);
    ctx.go(`#/valuation${q.size ? `?${q}` : ""}`);
  };
  filter.control.addEventListener("change", reload);
  asAt.control.addEventListener("change", reload);
  const summaryArea = h("div", { class: "kpis" }, h("p", { class: "muted" }, "Loading…"));
  const byLocationArea = h("section", { class: "panel" }, h("h2", {}, "Cost value by location"));
  const byCategoryArea = h("section", { class: "panel" }, h("h2", {}, "Cost value by category"));
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const rowsArea = h("div", { id: "valuation-rows" });
  const prev = h("button", { type: "button", class: "secondary", disabled: true }, "← Previous");
  const next = h("button", { type: "button", class: "secondary", disabled: true }, "Next →");
  // `append` is the DOM's: no nulls.
  root.append(h("div", { class: "filters" }, filter, asAt),
    ...(asOf ? [h("p", { id: "as-at", class: "notice info" }, `As at the end of ${date(asOf)}: quantities and cost prices of that day, today's selling prices; units in transit are not reconstructed.`)] : []),
    summaryArea, h("div", { class: "charts" }, byLocationArea, byCategoryArea),
    h("h2", {}, "Rows"), rowsArea, h("div", { class: "pager" }, prev, status, next));

  let offset = 0;
  let seq = 0;
  let first = true;

  async function load() {
    const mine = ++seq;
    rowsArea.setAttribute("aria-busy", "true");
    let page;
    try {
      page = await (pending ?? get("/api/reports/stock-valuation", { ...params, limit: PAGE, offset }));
    } catch (e) {
      if (ctx.alive() && mine === seq) {
        fill(first ? summaryArea : rowsArea, loadError(e, "the valuation report"));
        if (first) { byLocationArea.remove(); byCategoryArea.remove(); }
      }
      return;
    } finally {
      pending = null;
      rowsArea.removeAttribute("aria-busy");
    }
    if (!ctx.alive() || mine !== seq) return;
    if (first) {
      first = false;
      totals(page);
    }
    const { data: rows, total } = page;
    fill(rowsArea, table({
      caption: "Stock valuation rows",
      rows,
      empty: "No stock on hand.",
      columns: [
        { label: "Product", header: true, cell: (r) => [r.product_name, h("span", { class: "sub" }, r.product_sku)] },
        { label: "Category", cell: (r) => r.category || "—" },
        { label: "Location", cell: (r) => r.location_name },
        { label: "Qty", num: true, cell: (r) => qty(r.quantity) },
        { label: "Cost", num: true, cell: (r) => price(r.cost_price) },
        { label: "Price", num: true, cell: (r) => price(r.unit_price) },
        { label: "Total cost", num: true, cell: (r) => money(r.total_cost) },
        { label: "Total retail", num: true, cell: (r) => money(r.total_retail) },
        { label: "Margin", num: true, cell: (r) => percent(r.margin) },
      ],
    }));
    prev.disabled = offset === 0;
    next.disabled = offset + rows.length >= total;
    status.textContent = rows.length
      ? `Rows ${(offset + 1).toLocaleString("en-GB")}–${(offset + rows.length).toLocaleString("en-GB")} of ${total.toLocaleString("en-GB")}`
      : "";
  }

  function totals({ summary: s, byLocation, byCategory }) {
    const k = (label, value, exact, id) => h("div", { class: "kpi", id },
      h("p", { class: "kpi-label" }, label),
      h("p", { class: value.length > 9 ? "kpi-value long" : "kpi-value", title: exact || value }, value),
      exact ? h("p", { class: "kpi-exact" }, exact) : null);
    // Millions and more: the short figure, the exact one beneath it.
    const m = (label, v) => (Math.abs(Number(v)) >= 1e6 ? k(label, shortMoney(v), money(v)) : k(label, money(v)));
    fill(summaryArea,
      m("Cost value", s.totalCostValue),
      m("Retail value", s.totalRetailValue),
      k("Units", qty(s.totalUnits)),
      // The stock's margin at retail value over the products with a selling price
      // (docs/inventory.md#valuation-report): a plain mean would count each raw material
      // without one as 0 %.
      k("Margin at retail value", s.retailMargin === null || s.retailMargin === undefined ? "—" : percent(s.retailMargin),
        marginNote(s), "retail-margin"),
      s.inTransitUnits !== undefined && !locationId ? k("In transit (units)", qty(s.inTransitUnits)) : null);

    const bar = (label, g) => ({ label, value: Number(g.totalCostValue), text: money(g.totalCostValue), short: shortMoney(g.totalCostValue) });
    byLocationArea.append(byLocation.length
      ? barChart({ title: "Cost value by location", width: 720, items: byLocation.map((g) => bar(g.locationName, g)) })
      : h("p", { class: "chart-empty" }, "No stock to value."),
    // `append` is the DOM's: a null would show as the word "null".
    totalsTable("Totals by location", "Location", byLocation.map((g) => ({ ...g, name: g.locationName }))) ?? "");

    const ranked = [...byCategory].sort((a, b) => Number(b.totalCostValue) - Number(a.totalCostValue));
    const items = ranked.slice(0, BARS).map((g) => bar(g.category || "Uncategorised", g));
    if (ranked.length > BARS) {
      const rest = ranked.slice(BARS);
      const v = rest.reduce((acc, g) => acc + Number(g.totalCostValue), 0);
      items.push({ label: `${rest.length} other categories`, value: v, text: `about ${shortMoney(v)}`, short: shortMoney(v) });
    }
    byCategoryArea.append(items.length
      ? barChart({ title: "Cost value by category", width: 720, items, barClass: "bar alt" })
      : h("p", { class: "chart-empty" }, "No stock to value."),
    totalsTable("Totals by category", "Category", byCategory.map((g) => ({ ...g, name: g.category || "Uncategorised" }))) ?? "");
  }

  /** What the margin covers: "Σ(retail − cost) ÷ Σ retail; leaves out 3 products without a selling price." */
  function marginNote(s) {
    const n = s.unpricedProducts ?? 0;
    const left = n === 0 ? "" : ` Leaves out ${n.toLocaleString("en-GB")} ${n === 1 ? "product" : "products"} without a selling price.`;
    return `(Retail value − cost) ÷ retail value of the stock with a selling price.${left}`;
  }

  function totalsTable(caption, label, groups) {
    if (!groups.length) return null;
    return h("details", { class: "totals" }, h("summary", {}, caption),
      table({
        caption,
        rows: groups,
        columns: [
          { label, header: true, cell: (g) => g.name },
          { label: "Rows", num: true, cell: (g) => g.rows.toLocaleString("en-GB") },
          { label: "Units", num: true, cell: (g) => qty(g.totalUnits) },
          { label: "Cost value", num: true, cell: (g) => money(g.totalCostValue) },
          { label: "Retail value", num: true, cell: (g) => money(g.totalRetailValue) },
        ],
      }));
  }

  prev.addEventListener("click", () => { offset = Math.max(0, offset - PAGE); load(); });
  next.addEventListener("click", () => { offset += PAGE; load(); });
  // The server streams the whole file; the browser saves it under the name it gives.
  csvButton.disabled = false;
  csvButton.addEventListener("click", () => {
    const a = h("a", { href: `/api/reports/stock-valuation${query({ ...params, format: "csv" })}`, download: "", hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
  });
  await load();
}
