// A smoke run of the TypeScript client generated from the served OpenAPI document
// (openapi-typescript types + openapi-fetch): sign up, create an entity, a contact and an
// invoice with lines through the session API, make an API key, read the invoice back
// through /api/v1 and check that quantities and amounts come back exactly. Amounts go out
// as strings and answers are read as text, as docs/public-api.md#exact-amounts advises.
// Run by .ci/clients after `tsc` has type-checked it against the generated schema.
import createClient from "openapi-fetch";
import type { paths } from "./schema";

const base = process.argv[2];
let cookie = "";
const session = createClient<paths>({
  baseUrl: base,
  fetch: async (req: Request) => {
    const headers = new Headers(req.headers);
    if (cookie) headers.set("Cookie", cookie);
    const res = await fetch(new Request(req, { headers }));
    const set = res.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    return res;
  },
});

function fail(what: string, detail: unknown): never {
  console.error(`smoke: ${what}:`, detail);
  process.exit(1);
  throw new Error(what);
}

async function main(): Promise<void> {
  const signup = await session.POST("/api/auth/signup", {
    body: { email: "smoke@example.com", password: "correct horse battery", name: "Smoke" },
  });
  if (signup.error) fail("sign up", signup.error);
  const entity = await session.POST("/api/entities", { body: { name: "Smoke Ltd" } });
  if (!entity.data) fail("entity", entity.error);
  const entityId = entity.data.data.id;
  const contact = await session.POST("/api/contacts", {
    body: { name: "Customer", entity_id: entityId },
  });
  if (!contact.data) fail("contact", contact.error);
  const invoice = await session.POST("/api/invoices", {
    body: {
      contact_id: contact.data.data.id,
      entity_id: entityId,
      lines: [
        { description: "Big", quantity: "3", unit_price: "123456789012.3456", discount: "12.5" },
        { description: "Small", quantity: "0.125", unit_price: "19.99" },
      ],
    },
  });
  if (!invoice.data) fail("invoice", invoice.error);
  const key = await session.POST("/api/api-keys", { body: { name: "smoke", entity_id: entityId } });
  if (!key.data) fail("API key", key.error);

  const v1 = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${key.data.data.raw_key}` },
  });
  const read = await v1.GET("/api/v1/invoices/{id}", {
    params: { path: { id: invoice.data.data.id } },
    parseAs: "text",
  });
  if (read.error !== undefined || typeof read.data !== "string") fail("read back", read.error);
  const text = read.data;
  for (const exact of [
    '"quantity":3',
    '"unit_price":123456789012.3456',
    '"discount":12.5',
    '"quantity":0.125',
    '"unit_price":19.99',
  ]) {
    if (!text.includes(exact)) fail(`${exact} not in the answer`, text);
  }
  const list = await v1.GET("/api/v1/invoices", { params: { query: { limit: 1 } } });
  if (!list.data || list.data.has_more !== false || list.data.data.length !== 1) {
    fail("the list", list.data ?? list.error);
  }
  console.log("smoke: the TypeScript client round-tripped an invoice exactly");
}

main().catch((e) => fail("unexpected", e));
