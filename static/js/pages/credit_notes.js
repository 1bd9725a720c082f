// Credit notes to customers: lines with live totals; numbered CN-0001… when no number is given;
// raised from an invoice ("Credit" on the invoice), they start from its lines and are linked
// to it (docs/accounting.md#credit-notes-and-supplier-credits).

import { documentsPage } from "../documents.js";

export const title = "Credit notes";

export const render = (root, ctx) => documentsPage(root, ctx, {
  path: "/api/credit-notes",
  noun: "credit note",
  title: "Credit notes",
  contactLabel: "Customer",
  contactTypes: ["customer", "both"],
  schema: "CreditNote",
  direction: 1,
  priceOf: (p) => p.unit_price,
  printable: true,
  numberHint: "Left blank, the next number is used (CN-0001…).",
  locationHint: "Goods on the lines come back here when the credit note is posted.",
  link: { field: "invoice_id", path: "/api/invoices", noun: "invoice" },
  intro: "Credits to your customers: a refund or goods sent back. One raised from an invoice reduces what the invoice is owed.",
});
