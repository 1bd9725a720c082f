// Expenses, with their categories (the standard UK set is made with each business).

import { crudPage, optionsFrom } from "../crud.js";
import { money } from "../decimal.js";
import { date, today } from "../ui.js";

export const title = "Expenses";

export const render = (root, ctx) => crudPage(root, ctx, {
  title: "Expenses",
  noun: "expense",
  path: "/api/expenses",
  prepare: async () => {
    const [categories, projects] = await Promise.all([
      optionsFrom("/api/expense-categories", (c) => (c.code ? `${c.code} ${c.name}` : c.name), "No category"),
      optionsFrom("/api/projects", (p) => p.name, "No project"),
    ]);
    return { categories, projects };
  },
  fields: ({ categories, projects }) => [
    { name: "date", label: "Date", type: "date", default: today, required: true },
    { name: "description", label: "Description", required: true, wide: true },
    { name: "amount", label: "Amount (£, including VAT)", type: "decimal", required: true },
    { name: "vat_amount", label: "VAT (£)", type: "decimal", default: "0" },
    { name: "category_id", label: "Category", type: "select", options: categories, nullable: true },
    { name: "project_id", label: "Project", type: "select", options: projects, nullable: true },
  ],
  columns: ({ categories, projects }) => [
    { label: "Date", cell: (e) => date(e.date) },
    { label: "Description", header: true, cell: (e) => e.description },
    { label: "Category", cell: (e) => categories.find((c) => c.value === e.category_id)?.label ?? "" },
    { label: "Project", cell: (e) => (e.project_id ? projects.find((p) => p.value === e.project_id)?.label ?? "" : "") },
    { label: "Amount", num: true, cell: (e) => money(e.amount) },
    { label: "VAT", num: true, cell: (e) => money(e.vat_amount) },
  ],
});
