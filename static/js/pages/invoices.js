// Sales invoices: lines with live totals; numbered INV-0001… when no number is given.

import { documentsPage } from "../documents.js";

export const title = "Invoices";

export const render = (root, ctx) => documentsPage(root, ctx, {
  path: "/api/invoices",
  noun: "invoice",
  title: "Invoices",
  contactLabel: "Customer",
  contactTypes: ["customer", "both"],
  schema: "Invoice",
  direction: -1,
  priceOf: (p) => p.unit_price,
  printable: true,
  numberHint: "Left blank, the next number is used (INV-0001…).",
  credit: { hash: "#/credit-notes", label: "Credit" },
  intro: "Sales invoices. Line amounts and totals follow HMRC rounding: each line's net and VAT to the penny.",
});
