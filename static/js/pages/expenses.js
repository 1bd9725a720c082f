// Expenses, with their categories (the standard UK set is made with each business), in
// their own currency (docs/accounting.md#currencies), with their VAT treatment, supplier
// and reclaimable VAT (docs/accounting.md#vat-treatment).

import { get } from "../api.js";
import { crudPage, optionsFrom } from "../crud.js";
import { amountIn, HOME } from "../currency.js";
import { scoped } from "../state.js";
import { date, today, val } from "../ui.js";
import { label, options, values } from "../vocab.js";

export const title = "Expenses";

export const render = (root, ctx) => crudPage(root, ctx, {
  title: "Expenses",
  noun: "expense",
  path: "/api/expenses",
  prepare: async () => {
    const [categories, projects, contacts, treatments, currencies] = await Promise.all([
      optionsFrom("/api/expense-categories", (c) => (c.code ? `${c.code} ${c.name}` : c.name), "No category"),
      optionsFrom("/api/projects", (p) => p.name, "No project"),
      get("/api/contacts", scoped()).then((r) => r.data),
      options("Expense", "vat_treatment"),
      values("Expense", "currency"),
    ]);
    const suppliers = [{ value: "", label: "No supplier" },
      ...contacts.filter((c) => c.type !== "customer").map((c) => ({ value: c.id, label: c.name }))];
    return { categories, projects, suppliers, treatments, currencies };
  },
  fields: ({ categories, projects, suppliers, treatments, currencies }) => [
    { name: "date", label: "Date", type: "date", default: today, required: true },
    { name: "description", label: "Description", required: true, wide: true },
    { name: "amount", label: "Amount (including VAT)", type: "decimal", required: true },
    { name: "vat_amount", label: "VAT", type: "decimal", default: "0" },
    { name: "currency", label: "Currency", type: "select", options: currencies.length ? currencies : [HOME], default: HOME },
    { name: "exchange_rate", label: "Exchange rate (£ per unit)", type: "decimal", hint: "What one unit of the currency was worth in pounds.", shownWhen: (form) => (val(form, "currency") || HOME) !== HOME },
    { name: "category_id", label: "Category", type: "select", options: categories, nullable: true },
    { name: "project_id", label: "Project", type: "select", options: projects, nullable: true },
    { name: "vat_treatment", label: "VAT treatment", type: "select",
      options: [{ value: "", label: "By category or VAT" }, ...treatments],
      hint: "Reverse charge: no VAT paid to the supplier; the VAT you account for is 20 % of the amount." },
    { name: "contact_id", label: "Supplier", type: "select", options: suppliers, nullable: true },
    { name: "vat_reclaimable", label: "VAT reclaimable (not for business entertainment)", type: "checkbox", default: true },
  ],
  columns: ({ categories, projects }) => [
    { label: "Date", cell: (e) => date(e.date) },
    { label: "Description", header: true, cell: (e) => e.description },
    { label: "Category", cell: (e) => categories.find((c) => c.value === e.category_id)?.label ?? "" },
    { label: "Project", cell: (e) => (e.project_id ? projects.find((p) => p.value === e.project_id)?.label ?? "" : "") },
    { label: "Amount", num: true, cell: (e) => amountIn(e.amount, e.currency) },
    { label: "VAT", num: true, cell: (e) => amountIn(e.vat_amount, e.currency) },
    { label: "VAT treatment", cell: (e) => (e.reverse_charge_vat && Number(e.reverse_charge_vat) !== 0
      ? `${label(e.vat_treatment)} (${amountIn(e.reverse_charge_vat, e.currency)})` : label(e.vat_treatment ?? "")) },
  ],
});
