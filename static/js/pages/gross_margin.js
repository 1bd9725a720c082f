// The gross-margin report (docs/documents-stock.md#costs): per product, the sales of posted
// invoices issued in a date range, their cost of sales, the margin and margin %, with a chart.

import { get } from "../api.js";
import { barChart } from "../charts.js";
import { money, percent, qty, scaled } from "../decimal.js";
import { scoped } from "../state.js";
import { field, fill, h, loadError, onSubmit, pageHeader, table, today, val } from "../ui.js";

export const title = "Gross margin";

/** The first day of this year, UTC. */
const yearStart = () => `${today().slice(0, 4)}-01-01`;

export async function render(root, ctx) {
  const from = ctx.query.has("from") ? ctx.query.get("from") : yearStart();
  const to = ctx.query.has("to") ? ctx.query.get("to") : today();
  root.append(pageHeader("Gross margin"),
    h("p", { class: "lead" }, "Sales of sent and paid invoices issued in the period, less the cost of the stock they took (at weighted average cost when it left)."));
  const form = h("form", { class: "filters", "aria-label": "Period" },
    field({ label: "From", name: "dateFrom", type: "date", value: from }),
    field({ label: "To", name: "dateTo", type: "date", value: to }),
    h("button", { type: "submit" }, "Show"));
  const summaryArea = h("div", { class: "kpis" }, h("p", { class: "muted" }, "Loading…"));
  const chartArea = h("section", { class: "panel" }, h("h2", {}, "Gross margin by product"));
  const rowsArea = h("div");
  root.append(form, summaryArea, chartArea, h("h2", {}, "Products"), rowsArea);
  onSubmit(form, async () => {
    const q = new URLSearchParams({ from: val(form, "dateFrom"), to: val(form, "dateTo") });
    ctx.go(`#/gross-margin?${q}`);
  });

  let report;
  try {
    report = await get("/api/reports/gross-margin", scoped({ dateFrom: from, dateTo: to }));
  } catch (e) {
    if (ctx.alive()) { fill(summaryArea, loadError(e, "the gross-margin report")); chartArea.remove(); }
    return;
  }
  if (!ctx.alive()) return;
  const { data: rows, summary: s } = report;
  const k = (label, value) => h("div", { class: "kpi" }, h("p", { class: "kpi-label" }, label), h("p", { class: "kpi-value" }, value));
  fill(summaryArea,
    k("Sales", money(s.sales)),
    k("Cost of sales", money(s.costOfSales)),
    k("Gross margin", money(s.grossMargin)),
    k("Margin", percent(s.margin)));

  // Bar lengths are geometry (a loss draws no bar); the printed figures are exact.
  chartArea.append(rows.length
    ? barChart({
      title: "Gross margin by product",
      width: 720,
      items: rows.map((r) => ({ label: r.product_name, value: Math.max(0, Number(scaled(r.gross_margin, 2) ?? 0n)), text: money(r.gross_margin) })),
    })
    : h("p", { class: "chart-empty" }, "No sales in this period."));

  fill(rowsArea, table({
    caption: "Gross margin per product",
    rows,
    empty: "No sales in this period.",
    columns: [
      { label: "Product", header: true, cell: (r) => [r.product_name, h("span", { class: "sub" }, r.product_sku)] },
      { label: "Qty sold", num: true, cell: (r) => qty(r.quantity) },
      { label: "Sales", num: true, cell: (r) => money(r.sales) },
      { label: "Cost of sales", num: true, cell: (r) => money(r.cost_of_sales) },
      { label: "Gross margin", num: true, cell: (r) => money(r.gross_margin) },
      { label: "Margin", num: true, cell: (r) => percent(r.margin) },
    ],
  }));
}
