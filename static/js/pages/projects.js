// Projects: for time tracking and grouping expenses.

import { crudPage, optionsFrom } from "../crud.js";
import { money } from "../decimal.js";
import { statusBadge } from "../ui.js";

export const title = "Projects";

export const render = (root, ctx) => crudPage(root, ctx, {
  title: "Projects",
  noun: "project",
  path: "/api/projects",
  prepare: async () => ({ contacts: await optionsFrom("/api/contacts", (c) => c.name, "No client") }),
  fields: ({ contacts }) => [
    { name: "name", label: "Name", required: true, wide: true },
    { name: "contact_id", label: "Client", type: "select", options: contacts, nullable: true },
    { name: "status", label: "Status", type: "select", options: [{ value: "active", label: "Active" }, { value: "completed", label: "Completed" }, { value: "archived", label: "Archived" }], default: "active" },
    { name: "hourly_rate", label: "Hourly rate (£)", type: "decimal", nullable: true },
    { name: "budget", label: "Budget (£)", type: "decimal", nullable: true },
  ],
  columns: ({ contacts }) => [
    { label: "Name", header: true, cell: (p) => p.name },
    { label: "Client", cell: (p) => (p.contact_id ? contacts.find((c) => c.value === p.contact_id)?.label ?? "" : "") },
    { label: "Status", cell: (p) => statusBadge(p.status) },
    { label: "Hourly rate", num: true, cell: (p) => (p.hourly_rate == null ? "" : money(p.hourly_rate)) },
    { label: "Budget", num: true, cell: (p) => (p.budget == null ? "" : money(p.budget)) },
  ],
});
