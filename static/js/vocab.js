// The server's value sets (statuses and the like), read from its OpenAPI document
// (`/api/openapi.json`), which is built from the Rust facts: for priced documents
// `DocKind` in src/accounting/documents/kind.rs. The web app keeps no copy of them. The
// document is fetched once per page load and shared; a failed read is tried again next
// time.

import { get } from "./api.js";

let openapi = null;

function openapiDocument() {
  if (!openapi) {
    openapi = get("/api/openapi.json").catch((e) => {
      openapi = null;
      throw e;
    });
  }
  return openapi;
}

/** The property `prop` of the schema `schema` (`"Invoice"`, `"status"`), or null. */
async function property(schema, prop) {
  const doc = await openapiDocument();
  return doc?.components?.schemas?.[schema]?.properties?.[prop] ?? null;
}

/** "awaiting_payment" → "Awaiting payment". */
export function label(value) {
  const words = String(value).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The values of an enum property, in the server's order (null left out). */
export async function values(schema, prop) {
  const p = await property(schema, prop);
  return (p?.enum ?? []).filter((v) => v !== null);
}

/** `[{value, label}]` of an enum property, for a select. */
export async function options(schema, prop) {
  return (await values(schema, prop)).map((value) => ({ value, label: label(value) }));
}

/** The statuses in which a document of the schema is posted (moves stock): the
 * `x-posted-statuses` of its `status` property. */
export async function postedStatuses(schema) {
  const p = await property(schema, "status");
  return p?.["x-posted-statuses"] ?? [];
}

/** The VAT treatments a line of a document of the schema may take, as select options: every
 * treatment of `LineInput`, `reverse_charge` only where the schema's `lines` carry
 * `x-reverse-charge` (docs/accounting.md#vat-treatment). */
export async function lineTreatments(schema) {
  const lines = schema ? await property(schema, "lines") : null;
  const all = await options("LineInput", "vat_treatment");
  return all.filter((o) => o.value !== "reverse_charge" || lines?.["x-reverse-charge"] === true);
}
