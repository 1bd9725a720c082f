// Supplier credits: credit notes from suppliers, priced at cost when a product is picked;
// raised from a bill ("Credit" on the bill), they start from its lines and are linked to it
// (docs/accounting.md#credit-notes-and-supplier-credits).

import { documentsPage } from "../documents.js";

export const title = "Supplier credits";

export const render = (root, ctx) => documentsPage(root, ctx, {
  path: "/api/supplier-credits",
  noun: "supplier credit",
  title: "Supplier credits",
  contactLabel: "Supplier",
  contactTypes: ["supplier", "both"],
  schema: "SupplierCredit",
  direction: -1,
  priceOf: (p) => p.cost_price,
  numberHint: "The supplier's own credit note number.",
  locationHint: "Goods on the lines go back to the supplier from here when the credit is posted.",
  link: { field: "bill_id", path: "/api/bills", noun: "bill" },
  intro: "Credit notes from your suppliers. One raised from a bill reduces what you owe on it.",
});
