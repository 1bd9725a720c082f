// Bills (purchase invoices): lines with live totals, priced at cost when a product is picked.

import { documentsPage } from "../documents.js";

export const title = "Bills";

export const render = (root, ctx) => documentsPage(root, ctx, {
  path: "/api/bills",
  noun: "bill",
  title: "Bills",
  contactLabel: "Supplier",
  contactTypes: ["supplier", "both"],
  schema: "Bill",
  direction: 1,
  priceOf: (p) => p.cost_price,
  numberHint: "The supplier's own invoice number.",
  credit: { hash: "#/supplier-credits", label: "Credit" },
  intro: "Purchase invoices from your suppliers.",
});
