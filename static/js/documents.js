// Invoices, bills, credit notes and supplier credits (docs/accounting.md#invoices-and-bills,
// docs/accounting.md#credit-notes-and-supplier-credits, docs/accounting.md#line-totals): the
// list and the form with lines and live totals. Every kind's page is this one module with its own
// words; their status values, and which of them are posted, are the server's (vocab.js). The
// form shows the location stock moves at, what posting it does to stock and a warning when
// stock is short (docs/documents-stock.md#the-one-rule); a posted invoice shows its cost of
// sales and margin (docs/documents-stock.md#costs). Amounts are in the document's currency,
// with its rate to pounds on the form (docs/accounting.md#currencies).

import { del, get, post, put } from "./api.js";
import { format, money, moneyFromPence, pence, scaled } from "./decimal.js";
import { amountIn, currencyBody, currencyFields, HOME, poundsPence } from "./currency.js";
import { linesEditor } from "./lines.js";
import { paymentsPanel } from "./payments.js";
import { scoped, state } from "./state.js";
import {
  confirmDialog, date, field, fill, formDialog, h, loadError, notice, numberOrText, pageHeader,
  pagedList, STAY, statusBadge, table, toast, today, val,
} from "./ui.js";
import { LIST_PAGE } from "./crud.js";
import { lineTreatments, options, postedStatuses, values } from "./vocab.js";

/**
 * `page`: `{path, schema, noun, title, contactLabel, contactTypes, direction, priceOf,
 * numberHint, intro, locationHint, credit?, link?, printable?}`; `schema` names the record in the OpenAPI
 * document, whose `status` gives the kind's `statuses` and `posted` ones. `credit: {hash,
 * label}`: posted documents get that action, which opens the credit's page with
 * `?credit=<id>`; `link: {field, path, noun}`: the page's documents credit one of `path`'s,
 * named in `field`, and `?credit=<id>` opens a new one prefilled from it.
 */
export async function documentsPage(root, ctx, page) {
  let kind = page;
  // Enabled once its form can open (the contacts, locations and value sets loaded): a
  // click before then did nothing.
  const newButton = h("button", { type: "button", disabled: true }, `New ${kind.noun}`);
  root.append(pageHeader(kind.title, newButton));
  if (kind.intro) root.append(h("p", { class: "lead" }, kind.intro));
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(area);

  let contacts = [];
  let locations = [];
  try {
    let statuses;
    let posted;
    let currencies;
    let treatments;
    [contacts, locations, statuses, posted, currencies, treatments] = await Promise.all([
      get("/api/contacts", scoped()).then((r) => r.data),
      get("/api/warehouse-locations", scoped()).then((r) => r.data),
      options(page.schema, "status"),
      postedStatuses(page.schema),
      values(page.schema, "currency"),
      lineTreatments(page.schema)]);
    kind = { ...page, statuses, posted, currencies, treatments };
  } catch (e) {
    if (ctx.alive()) fill(area, loadError(e, `the ${kind.title.toLowerCase()}`));
    newButton.disabled = true;
    return;
  }

  // A page at a time (docs/conventions.md#lists): a year of invoices of 50 lines is
  // 100,000 lines.
  const list = pagedList({
    size: LIST_PAGE,
    what: `the ${kind.title.toLowerCase()}`,
    read: async (limit, offset) => (await get(kind.path, scoped({ limit, offset }))).data,
    show: (rows) => table({
      caption: kind.title,
      rows,
      empty: `No ${kind.title.toLowerCase()} yet.`,
      columns: [
        { label: "Number", header: true, cell: (d) => d.number || h("span", { class: "muted" }, "no number") },
        { label: kind.contactLabel, cell: (d) => d.contact_name },
        { label: "Issued", cell: (d) => date(d.issue_date) },
        { label: "Due", cell: (d) => date(d.due_date) },
        { label: "Status", cell: (d) => statusBadge(d.status) },
        { label: "Net", num: true, cell: (d) => amountIn(d.subtotal, d.currency) },
        { label: "VAT", num: true, cell: (d) => amountIn(d.vat_total, d.currency) },
        { label: "Total", num: true, cell: (d) => amountIn(d.total, d.currency) },
        ...(kind.direction < 0 && !kind.link ? [{ label: "Margin", num: true, cell: (d) => marginText(d) ?? "—" }] : []),
        ...(kind.credit ? [{ label: "Credited", num: true, cell: (d) => amountIn(d.amount_credited ?? "0", d.currency) }] : []),
        { label: kind.link ? "To refund" : "Outstanding", num: true, cell: (d) => (d.status === "void" ? "—" : amountIn(d.amount_due, d.currency)) },
        { label: "Actions", class: "num", cell: (d) => h("div", { class: "row-actions" },
          h("button", { type: "button", class: "secondary small", "aria-label": `Edit ${d.number || kind.noun}`, onclick: () => edit(d) }, "Edit"),
          kind.printable
            ? h("a", { class: "button secondary small", href: `#/print${kind.path.slice(4)}/${encodeURIComponent(d.id)}`, "aria-label": `Print or send ${d.number || kind.noun}` }, "Print")
            : null,
          kind.credit && kind.posted.includes(d.status)
            ? h("button", { type: "button", class: "secondary small", "aria-label": `${kind.credit.label} ${d.number || kind.noun}`, onclick: () => ctx.go(`${kind.credit.hash}?credit=${encodeURIComponent(d.id)}`) }, kind.credit.label)
            : null,
          h("button", { type: "button", class: "danger secondary small", "aria-label": `Delete ${d.number || kind.noun}`, onclick: () => remove(d) }, "Delete")) },
      ],
    }),
  });
  fill(area, list.element);
  const load = list.load;

  async function edit(doc, seed = null) {
    const saved = await documentDialog(kind, contacts, locations, doc, seed);
    if (saved) {
      toast(`${capital(kind.noun)} ${saved.number || ""} saved: total ${amountIn(saved.total, saved.currency)}.`);
      load();
    }
  }
  async function remove(doc) {
    if (!(await confirmDialog(`Delete ${kind.noun} ${doc.number || ""}?`, { confirm: "Delete", danger: true }))) return;
    try {
      await del(kind.path, { id: doc.id });
      toast(`${capital(kind.noun)} deleted.`);
      load();
    } catch (e) {
      toast(e.message, "error");
    }
  }
  newButton.addEventListener("click", () => {
    if (!contacts.length) {
      toast(`Add a contact first: a ${kind.noun} needs a ${kind.contactLabel.toLowerCase()}.`, "error");
      ctx.go("#/contacts");
      return;
    }
    edit(null);
  });
  newButton.disabled = false;
  await load();
  // `#/credit-notes?credit=<invoice id>` (the invoice's "Credit"): a new credit note with
  // the invoice's customer, location and lines, linked to it; the user keeps what comes back.
  const credited = kind.link && ctx.query.get("credit");
  if (credited) {
    try {
      const [original] = (await get(kind.link.path, scoped({ id: credited }))).data;
      if (original && ctx.alive()) edit(null, creditSeed(kind, original));
    } catch (e) {
      toast(e.message, "error");
    }
    return;
  }
  // `#/invoices?open=<id>` (a link from a product's documents) opens that document,
  // on whichever page of the list it is.
  const wanted = ctx.query.get("open");
  if (!wanted) return;
  try {
    const [doc] = (await get(kind.path, scoped({ id: wanted }))).data;
    if (doc && ctx.alive()) edit(doc);
  } catch (e) {
    toast(e.message, "error");
  }
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The net of a document in pounds, in pence: each line's net at the document's rate. */
function netPence(d) {
  if (!d.currency || d.currency === HOME) return pence(d.subtotal) ?? 0n;
  return (d.lines || []).reduce((s, l) => s + poundsPence(pence(l.net) ?? 0n, d.exchange_rate), 0n);
}

/** A new credit of `kind` for `original`: its contact, location, currency and lines,
 * linked to it. */
function creditSeed(kind, original) {
  return {
    contact_id: original.contact_id,
    location_id: original.location_id,
    currency: original.currency,
    exchange_rate: original.exchange_rate,
    lines: (original.lines || []).map(({ id, net, vat, total, ...l }) => l),
    notes: `Credit for ${kind.link.noun} ${original.number || ""}`.trim(),
    [kind.link.field]: original.id,
    linkedNumber: original.number || original.id,
  };
}

/** "£12.30 (41%)": sales net (in pounds) minus cost of sales, for a posted invoice with a
 * cost; else null. */
function marginText(d) {
  if (d.cost_of_sales === null || d.cost_of_sales === undefined) return null;
  const net = netPence(d);
  const m = net - (pence(d.cost_of_sales) ?? 0n);
  const pct = net === 0n ? "—" : `${format((m * 10000n * 2n + (m >= 0n ? net : -net)) / (2n * net), 2, { trim: true })}%`;
  return `${moneyFromPence(m)} (${pct})`;
}

/**
 * Keeps `area` showing what saving the form does to stock: "Posting takes 3 × Blue mug from
 * Shop floor", with a warning for each product the location holds less of than it needs.
 */
function stockEffect(kind, form, editor, locations, doc, area) {
  let run = 0;
  async function update() {
    const mine = ++run;
    const status = val(form, "status");
    const locId = val(form, "location_id");
    const loc = locations.find((l) => l.id === locId);
    let lines;
    try {
      lines = await editor.stockLines();
    } catch {
      lines = [];
    }
    if (mine !== run) return;
    if (!loc) {
      fill(area, h("p", { class: "muted" }, `No location: this ${kind.noun} does not move stock.`));
      return;
    }
    if (!lines.length) {
      fill(area, h("p", { class: "muted" }, `No line names a product: this ${kind.noun} does not move stock.`));
      return;
    }
    const byProduct = new Map();
    for (const l of lines) {
      const q = scaled(l.quantity, 3);
      if (q === null) continue;
      const e = byProduct.get(l.product.id) || { product: l.product, q: 0n };
      e.q += q;
      if (l.product.name) e.product = l.product;
      byProduct.set(l.product.id, e);
    }
    const stock = new Map();
    await Promise.all([...byProduct.keys()].map(async (id) => {
      try {
        const rows = (await get("/api/warehouse-stock", { productId: id, locationId: loc.id })).data ?? [];
        const r = Array.isArray(rows) ? rows[0] : null;
        stock.set(id, { q: r ? scaled(r.quantity, 3) ?? 0n : 0n, name: r?.product_id?.name });
      } catch {
        // Unknown stock: no warning for that product.
      }
    }));
    if (mine !== run) return;
    const posting = kind.posted.includes(status);
    const verb = kind.direction < 0 ? "takes" : "brings";
    const prep = kind.direction < 0 ? "from" : "into";
    const effects = [];
    const warnings = [];
    // What the document already holds at this location (a posted one being edited).
    const already = new Map();
    if (doc && kind.posted.includes(doc.status) && doc.location_id === loc.id) {
      for (const l of doc.lines || []) {
        if (l.product_id) already.set(l.product_id, (already.get(l.product_id) ?? 0n) + (scaled(l.quantity, 3) ?? 0n));
      }
    }
    for (const [id, e] of byProduct) {
      const name = e.product.name || stock.get(id)?.name || e.product.sku || "product";
      const text = `${format(e.q, 3, { trim: true })} × ${name}`;
      effects.push(h("li", {}, `${verb} ${text} ${prep} ${loc.name}`));
      const held = stock.get(id);
      // Short as soon as a line is, posted or not: "39 short" is what is missing.
      if (kind.direction < 0 && held) {
        const needed = e.q - (already.get(id) ?? 0n);
        if (needed > 0n && held.q < needed) {
          const n = (v) => format(v, 3, { trim: true });
          warnings.push(h("li", {}, `${name}: ${n(needed - held.q)} short (${loc.name} holds ${n(held.q)}, this ${kind.noun} takes ${n(needed)}).`));
        }
      }
    }
    fill(area,
      warnings.length ? notice("warn", h("p", {}, h("strong", {}, "Not enough stock. "),
        posting ? "Saving will be refused:" : `It can be saved while it is ${status.replace(/_/g, " ")}, but not posted until the stock is there:`),
      h("ul", {}, ...warnings)) : "",
      h("p", {}, posting ? `Saving as ${status.replace(/_/g, " ")}:` : `Nothing moves while it is ${status.replace(/_/g, " ")}; once posted it:`),
      h("ul", { class: "stock-effect" }, ...effects));
  }
  let timer;
  const later = () => { clearTimeout(timer); timer = setTimeout(update, 250); };
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  form.addEventListener("product", later);
  // A reopened document's products are named once they are read.
  editor.ready.then(later);
  update();
}

/**
 * Before a document is saved posted with product lines and no location, says plainly that no
 * stock will move and lets the user go back (docs/documents-stock.md#the-one-rule). Not asked
 * again of a document already posted without a location. Resolves true to save.
 */
async function stockWillMove(kind, doc, body, locations) {
  if (body.location_id || !kind.posted.includes(body.status)) return true;
  if (!body.lines.some((l) => l.product_id)) return true;
  if (doc && kind.posted.includes(doc.status) && !doc.location_id) return true;
  const verb = kind.direction < 0 ? "take" : "bring";
  const prep = kind.direction < 0 ? "out of" : "into";
  const where = locations.some((l) => l.status === "active")
    ? "Go back and choose a location, or save it without moving stock."
    : "There is no location yet: add one on the Warehouses page, or save it without moving stock.";
  return confirmDialog(`No stock will move: this ${kind.noun} has no location`, {
    confirm: "Save without moving stock",
    cancel: "Go back",
    detail: `Its lines name products, but without a location saving it will not ${verb} them ${prep} any warehouse. ${where}`,
  });
}

function documentDialog(kind, contacts, locations, doc, seed = null) {
  const editing = !!doc;
  // What the form starts from: the document, or a new one's seed (a credit from its original).
  const init = doc ?? seed;
  let editor;
  return formDialog({
    title: editing ? `Edit ${kind.noun} ${doc.number || ""}` : `New ${kind.noun}`,
    submitLabel: editing ? "Save changes" : `Create ${kind.noun}`,
    wide: true,
    build: (form) => {
      const preferred = contacts.filter((c) => kind.contactTypes.includes(c.type));
      const others = contacts.filter((c) => !kind.contactTypes.includes(c.type));
      const options = [{ value: "", label: "Choose…" },
        ...[...preferred, ...others].map((c) => ({ value: c.id, label: `${c.name}${kind.contactTypes.includes(c.type) ? "" : ` (${c.type})`}` }))];
      editor = linesEditor({ lines: init?.lines || [], priceOf: kind.priceOf, currency: () => val(form, "currency") || HOME, treatments: kind.treatments });
      const locId = init ? init.location_id : state.entity.default_location_id;
      const locationOptions = [{ value: "", label: "None: no stock moves" },
        ...locations.filter((l) => l.status !== "inactive" || l.id === locId).map((l) => ({ value: l.id, label: l.name }))];
      const effect = h("div", { id: "doc-stock", "aria-live": "polite" });
      const margin = editing && marginText(doc);
      form.append(
        h("div", { class: "form-grid" },
          field({ label: kind.contactLabel, name: "contact_id", type: "select", options, value: init?.contact_id ?? "", required: true }),
          field({ label: "Number", name: "number", value: doc?.number ?? "", hint: kind.numberHint }),
          field({ label: "Issue date", name: "issue_date", type: "date", value: doc?.issue_date ?? today() }),
          field({ label: "Due date", name: "due_date", type: "date", value: doc?.due_date ?? "", hint: editing ? null : "Left blank: 30 days after issue." }),
          field({ label: "Status", name: "status", type: "select", options: kind.statuses, value: doc?.status ?? "draft" }),
          editing ? null : field({ label: kind.link ? "Refunded" : "Amount paid", name: "amount_paid", value: "", inputmode: "decimal", hint: "In the document's currency; recorded as one payment dated today." }),
          ...currencyFields(kind.currencies, init),
          field({ label: "Location", name: "location_id", type: "select", options: locationOptions, value: locId ?? "", hint: kind.locationHint ?? (kind.direction < 0 ? "Stock is taken from here when the invoice is sent." : "Stock arrives here when the bill is awaiting payment.") })),
        h("h3", {}, "Lines"),
        editor,
        h("h3", {}, "Stock"),
        effect,
        ...(editing ? [h("h3", {}, kind.link ? "Refunds" : "Payments"), paymentsPanel(kind, doc, (d) => { form.elements.namedItem("status").value = d.status; })] : []),
        field({ label: "Notes", name: "notes", type: "textarea", value: init?.notes ?? "", rows: 2 }));
      const linked = kind.link && init?.[kind.link.field];
      if (linked) {
        form.querySelector(".form-grid").after(h("p", { id: "doc-link" },
          `Credits ${kind.link.noun} ${init.linkedNumber ?? doc?.[kind.link.field] ?? ""}. `,
          "Remove the lines that do not come back and lower the quantities of those that come back in part."));
      }
      if (editing && kind.credit && doc.status !== "void") {
        const m = (x) => amountIn(x ?? "0", doc.currency);
        form.querySelector(".form-grid").after(h("p", { id: "doc-due" },
          `Total ${m(doc.total)}, paid ${m(doc.amount_paid)}, credited ${m(doc.amount_credited)}: ${m(doc.amount_due)} due.`));
      }
      // After the details, before the lines (form.append is the DOM's: no nulls).
      if (margin) form.querySelector(".form-grid").after(h("p", { id: "doc-margin" }, `Sales ${moneyFromPence(netPence(doc))}, cost of sales ${money(doc.cost_of_sales)}, margin ${margin}.`));
      stockEffect(kind, form, editor, locations, doc, effect);
      editor.recompute();
      form.addEventListener("change", (e) => { if (e.target.name === "currency") editor.recompute(); });
    },
    submit: async (form) => {
      const body = { lines: await editor.body() };
      for (const n of ["contact_id", "number", "issue_date", "due_date", "status", "notes"]) {
        const v = val(form, n);
        if (v !== "") body[n] = v;
        else if (editing && n === "notes") body[n] = null;
      }
      if (!body.contact_id) throw new Error("Missing required field: contact_id");
      if (val(form, "amount_paid") !== "") body.amount_paid = numberOrText(val(form, "amount_paid"));
      body.location_id = val(form, "location_id") || null;
      if (!(await stockWillMove(kind, doc, body, locations))) {
        form.elements.namedItem("location_id")?.focus();
        return STAY;
      }
      currencyBody(form, body);
      if (!editing && kind.link && seed?.[kind.link.field]) body[kind.link.field] = seed[kind.link.field];
      if (editing) {
        body.id = doc.id;
        return (await put(kind.path, body)).data;
      }
      body.entity_id = state.entity.id;
      return (await post(kind.path, body)).data;
    },
  });
}
