// Time entries: hours against a project, billable or not.

import { get } from "../api.js";
import { crudPage } from "../crud.js";
import { money, moneyFromPence, pence, shiftDown } from "../decimal.js";
import { scoped } from "../state.js";
import { badge, date, today } from "../ui.js";

export const title = "Time";

/** The entry's own rate, or its project's. */
const rateOf = (t, projects) => t.hourly_rate ?? projects.find((p) => p.id === t.project_id)?.hourly_rate ?? null;

export const render = (root, ctx) => crudPage(root, ctx, {
  title: "Time entries",
  noun: "time entry",
  path: "/api/time-entries",
  intro: "Hours worked on projects. The value uses the entry's rate, or else the project's.",
  prepare: async () => ({ projects: (await get("/api/projects", scoped())).data }),
  fields: ({ projects }) => [
    { name: "project_id", label: "Project", type: "select", required: true,
      options: [{ value: "", label: "Choose…" }, ...projects.map((p) => ({ value: p.id, label: p.name }))] },
    { name: "date", label: "Date", type: "date", default: today, required: true },
    { name: "hours", label: "Hours", type: "decimal", required: true, hint: "Up to 2 decimal places: 1.5 is an hour and a half." },
    { name: "hourly_rate", label: "Hourly rate (£)", type: "decimal", nullable: true, hint: "Blank: the project's rate." },
    { name: "description", label: "Description", type: "textarea", nullable: true },
    { name: "billable", label: "Billable", type: "checkbox", default: true },
  ],
  columns: ({ projects }) => [
    { label: "Date", class: "nowrap", cell: (t) => date(t.date) },
    { label: "Project", header: true, cell: (t) => projects.find((p) => p.id === t.project_id)?.name ?? "" },
    { label: "Description", cell: (t) => t.description || "" },
    { label: "Hours", num: true, cell: (t) => String(t.hours) },
    { label: "Rate", num: true, cell: (t) => (rateOf(t, projects) == null ? "" : money(rateOf(t, projects))) },
    { label: "Value", num: true, cell: (t) => {
      const rate = rateOf(t, projects);
      // hours and rate both in hundredths: their product is in ten-thousandths of a pound.
      return rate == null ? "" : moneyFromPence(shiftDown((pence(t.hours) ?? 0n) * (pence(rate) ?? 0n), 2));
    } },
    { label: "Billable", cell: (t) => (t.billable ? badge("Billable", "ok") : badge("Not billable", "muted")) },
  ],
});
