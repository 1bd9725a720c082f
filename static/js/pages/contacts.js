// Contacts: customers and suppliers.

import { crudPage } from "../crud.js";

export const title = "Contacts";

const TYPES = [
  { value: "customer", label: "Customer" }, { value: "supplier", label: "Supplier" }, { value: "both", label: "Customer and supplier" },
];

export const render = (root, ctx) => crudPage(root, ctx, {
  title: "Contacts",
  noun: "contact",
  path: "/api/contacts",
  intro: "Customers you invoice and suppliers who bill you.",
  fields: [
    { name: "name", label: "Name", required: true, wide: true },
    { name: "type", label: "Type", type: "select", options: TYPES, default: "customer" },
    { name: "email", label: "Email", type: "email", nullable: true },
    { name: "phone", label: "Phone", type: "tel", nullable: true },
    { name: "vat_number", label: "VAT number", nullable: true },
    { name: "address", label: "Address", type: "textarea", nullable: true },
  ],
  columns: () => [
    { label: "Name", header: true, cell: (c) => c.name },
    { label: "Type", cell: (c) => TYPES.find((t) => t.value === c.type)?.label ?? c.type },
    { label: "Email", cell: (c) => c.email || "" },
    { label: "Phone", cell: (c) => c.phone || "" },
    { label: "VAT number", cell: (c) => c.vat_number || "" },
  ],
});
