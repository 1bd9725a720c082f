// Time entries: hours against a project, billable or not.

import { crudPage, optionsFrom } from "../crud.js";
import { money, moneyFromPence, pence, shiftDown } from "../decimal.js";
import { badge, date, today } from "../ui.js";

export const title = "Time";

export const render = (root, ctx) => crudPage(root, ctx, {
  title: "Time entries",
  noun: "time entry",
  path: "/api/time-entries",
  intro: "Hours worked on projects. The value uses the entry's rate, or the project's.",
  prepare: async () => {
    const projects = await optionsFrom("/api/projects", (p) => p.name);
    return { projects };
  },
  fields: ({ projects }) => [
    { name: "project_id", label: "Project", type: "select", options: [{ value: "", label: "Choose…" }, ...projects], required: true },
    { name: "date", label: "Date", type: "date", default: today, required: true },
    { name: "hours", label: "Hours", type: "decimal", required: true, hint: "Up to 2 decimal places: 1.5 is an hour and a half." },
    { name: "hourly_rate", label: "Hourly rate (£)", type: "decimal", nullable: true, hint: "Blank: the project's rate." },
    { name: "description", label: "Description", type: "textarea", nullable: true },
    { name: "billable", label: "Billable", type: "checkbox", default: true },
  ],
  columns: ({ projects }) => [
    { label: "Date", cell: (t) => date(t.date) },
    { label: "Project", header: true, cell: (t) => projects.find((p) => p.value === t.project_id)?.label ?? "" },
    { label: "Description", cell: (t) => t.description || "" },
    { label: "Hours", num: true, cell: (t) => String(t.hours) },
    { label: "Rate", num: true, cell: (t) => (t.hourly_rate == null ? "" : money(t.hourly_rate)) },
    { label: "Value", num: true, cell: (t) => (t.hourly_rate == null ? "" : moneyFromPence(shiftDown((pence(t.hours) ?? 0n) * (pence(t.hourly_rate) ?? 0n), 2))) },
    { label: "Billable", cell: (t) => (t.billable ? badge("Billable", "ok") : badge("Not billable", "muted")) },
  ],
});
