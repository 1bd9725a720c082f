// Transfer orders (docs/documents.md#transfer-orders,
// docs/documents.md#transfer-order-states): create with a line picker that leaves out
// deactivated products; ship, receive (also short), cancel, delete a draft. Every
// refusal shows the server's message.

import { del, get, post, put } from "../api.js";
import { compare, qty, scaled, sum, format } from "../decimal.js";
import { scoped, state } from "../state.js";
import {
  act, confirmDialog, date, field, fill, formDialog, formError, h, loadError, numberOrText,
  onSubmit, pageHeader, pagedList, statusBadge, table, toast, val,
} from "../ui.js";
import { locationSelect, locations, productPicker } from "../widgets.js";

export const title = "Transfers";

/** Transfer orders listed at once. */
const LIST_PAGE = 100;

export async function render(root, ctx) {
  if (ctx.params[0] === "new") return create(root, ctx);
  if (ctx.params[0]) return detail(root, ctx, ctx.params[0]);
  root.append(pageHeader("Transfer orders", h("a", { class: "button", href: "#/transfers/new" }, "New transfer")),
    h("p", { class: "lead" }, "Move stock between warehouses: a draft is shipped (stock leaves the source), then received at the destination."));
  // A page at a time, without their lines (docs/documents.md#lists).
  const list = pagedList({
    size: LIST_PAGE,
    what: "the transfer orders",
    read: async (limit, offset) => (await get("/api/transfer-orders", scoped({ lines: false, limit, offset }))).data,
    show: (rows) => table({
      caption: "Transfer orders",
      rows,
      empty: "No transfer orders yet.",
      columns: [
        { label: "Number", header: true, cell: (t) => h("a", { href: `#/transfers/${t.id}` }, t.number) },
        { label: "Created", cell: (t) => date(t.date_created) },
        { label: "From", cell: (t) => t.source_location_id.name },
        { label: "To", cell: (t) => t.destination_location_id.name },
        { label: "Lines", num: true, cell: (t) => String(t.line_count) },
        { label: "Units", num: true, cell: (t) => qty(t.total_quantity) },
        { label: "Status", cell: (t) => statusBadge(t.status) },
        { label: "Completed", cell: (t) => (t.date_completed ? date(t.date_completed) : "") },
      ],
    }),
  });
  root.append(list.element);
  await list.load();
}

async function create(root, ctx) {
  root.append(h("p", {}, h("a", { href: "#/transfers" }, "← All transfers")), pageHeader("New transfer order"));
  let locs;
  try {
    locs = await locations();
  } catch (e) {
    root.append(loadError(e, "the warehouses"));
    return;
  }
  const active = locs.filter((l) => l.status === "active");
  if (active.length < 2) {
    root.append(h("div", { class: "notice warn", role: "status" },
      "A transfer needs two active warehouses. ", h("a", { href: "#/warehouses" }, "Add a warehouse"), " first."));
  }
  // The refusal line first: a long form shows it at its top.
  const form = h("form", { class: "card" }, formError());
  const source = locationSelect({ label: "From (source)", name: "source_location_id", locs, activeOnly: true, blank: "Choose…", required: true });
  const dest = locationSelect({ label: "To (destination)", name: "destination_location_id", locs, activeOnly: true, blank: "Choose…", required: true });
  const linesBody = h("tbody");
  // More than the source holds: the server takes the draft and refuses only at Ship, so
  // the form says so as the quantity is typed, from the stock the picker read.
  const shortage = h("div", { id: "transfer-shortage", "aria-live": "polite" });
  const addButton = h("button", { type: "button", class: "secondary" }, "Add line");
  form.append(
    h("div", { class: "form-grid" }, source, dest, field({ label: "Notes", name: "notes", type: "textarea", wide: true })),
    h("h2", {}, "Lines"),
    h("p", { class: "hint" }, "Only active products can be transferred."),
    h("div", { class: "table-wrap" }, h("table", { class: "grid lines" },
      h("caption", { class: "sr-only" }, "Lines of the transfer"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Product"), h("th", { scope: "col" }, "Available at source"),
        h("th", { scope: "col" }, "Quantity"), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Remove")))),
      linesBody)),
    h("div", { class: "actions" }, addButton),
    shortage,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Create draft"),
      h("a", { class: "button secondary", href: "#/transfers" }, "Cancel")));
  root.append(form);

  const lines = [];
  function renumber() {
    lines.forEach((l, i) => {
      l.picker.querySelector("input[type=hidden]").name = `lines[${i}].product_id`;
      l.picker.control.name = `lines[${i}].product_id__search`;
      l.picker.control.dataset.errorFor = `lines[${i}].product_id`;
      l.picker.querySelector("label").textContent = `Product, line ${i + 1}`;
      l.qty.control.name = `lines[${i}].quantity`;
      l.qty.querySelector("label").textContent = `Quantity, line ${i + 1}`;
    });
  }
  function available(line) {
    const p = line.picker.product;
    const src = source.control.value;
    line.short = null;
    if (!p || !src) { line.avail.textContent = "—"; warnShort(); return; }
    const s = (p.stock_levels || []).find((x) => x.location_id.id === src);
    const held = s ? s.quantity : 0;
    line.avail.textContent = qty(held);
    const asked = scaled(line.qty.control.value.trim(), 3);
    const has = scaled(held, 3) ?? 0n;
    if (asked !== null && asked > has) {
      const from = source.control.selectedOptions[0]?.textContent ?? "the source";
      line.short = `${p.name}: ${format(asked - has, 3, { trim: true })} short (${from} holds ${qty(held)}, this transfer moves ${format(asked, 3, { trim: true })}).`;
    }
    warnShort();
  }
  function warnShort() {
    const short = lines.map((l) => l.short).filter(Boolean);
    fill(shortage, short.length
      ? h("div", { class: "notice warn" }, h("p", {}, h("strong", {}, "Not enough stock at the source. "),
        "The draft can be created, but it cannot be shipped until the stock is there:"),
      h("ul", {}, short.map((t) => h("li", {}, t))))
      : "");
  }
  function addLine() {
    const picker = productPicker({ activeOnly: true, hint: "" });
    const q = field({ label: "Quantity", name: "quantity", inputmode: "decimal", required: true });
    for (const w of [picker, q]) { w.querySelector("label").classList.add("sr-only"); w.classList.add("cell"); }
    const avail = h("span", {}, "—");
    const line = { picker, qty: q, avail };
    const remove = h("button", { type: "button", class: "danger secondary small", onclick: () => {
      lines.splice(lines.indexOf(line), 1);
      row.remove();
      renumber();
      warnShort();
    } }, "Remove");
    const row = h("tr", {}, h("td", { class: "desc" }, picker), h("td", { class: "num" }, avail), h("td", {}, q), h("td", {}, remove));
    picker.addEventListener("product", () => available(line));
    q.control.addEventListener("input", () => available(line));
    lines.push(line);
    linesBody.append(row);
    renumber();
    picker.control.focus();
  }
  source.control.addEventListener("change", () => lines.forEach(available));
  addButton.addEventListener("click", addLine);
  addLine();
  source.control.focus();

  onSubmit(form, async () => {
    const body = {
      source_location_id: val(form, "source_location_id"),
      destination_location_id: val(form, "destination_location_id"),
      entity_id: state.entity.id,
      lines: [],
    };
    if (val(form, "notes")) body.notes = val(form, "notes");
    for (const [i, l] of lines.entries()) {
      const p = await l.picker.resolve();
      if (!p) {
        throw new Error(l.picker.control.value.trim()
          ? `Invalid value for field \`lines[${i}].product_id\`: no active product matches “${l.picker.control.value.trim()}”`
          : `Missing required field: lines[${i}].product_id`);
      }
      const q = val(form, `lines[${i}].quantity`);
      body.lines.push({ product_id: p.id, quantity: q === "" ? null : numberOrText(q) });
    }
    for (const k of ["source_location_id", "destination_location_id"]) if (!body[k]) throw new Error(`Missing required field: ${k}`);
    const { data } = await post("/api/transfer-orders", body);
    toast(`Transfer ${data.number} created as a draft.`);
    ctx.go(`#/transfers/${data.id}`);
  });
}

async function detail(root, ctx, id) {
  root.append(h("p", {}, h("a", { href: "#/transfers" }, "← All transfers")));
  let order;
  try {
    const { data } = await get("/api/transfer-orders", scoped({ id }));
    order = data[0];
  } catch (e) {
    // An address whose id is not an id at all (400) shows as not found, like any other.
    if (e.status !== 400) {
      root.append(pageHeader("Transfer order"), loadError(e, "the transfer order"));
      return;
    }
  }
  if (!ctx.alive()) return;
  if (!order) {
    root.append(pageHeader("Transfer not found"), h("p", {}, "It may have been deleted, or it belongs to another business."));
    return;
  }
  const refusal = h("div", { class: "notice error", role: "alert", hidden: true });
  const showRefusal = (e) => { refusal.hidden = false; refusal.textContent = e.message; };
  const buttons = [];
  const transition = (label, status, question, cls = "", done = label.toLowerCase()) => {
    const b = h("button", { type: "button", class: cls }, label);
    b.addEventListener("click", () => act(b, async () => {
      refusal.hidden = true;
      if (question && !(await confirmDialog(question, { confirm: label, danger: cls.includes("danger") }))) return;
      try {
        await put("/api/transfer-orders", { id: order.id, status });
      } catch (e) {
        showRefusal(e);
        return;
      }
      toast(`${order.number} ${done}.`);
      window.dispatchEvent(new Event("stockbook:stock-changed"));
      ctx.refresh();
    }));
    return b;
  };
  if (order.status === "draft") {
    buttons.push(transition("Ship", "in_transit", null, "", "shipped"));
    buttons.push(transition("Cancel order", "cancelled", `Cancel ${order.number}?`, "secondary", "cancelled"));
    const d = h("button", { type: "button", class: "danger secondary" }, "Delete draft");
    d.addEventListener("click", () => act(d, async () => {
      refusal.hidden = true;
      if (!(await confirmDialog(`Delete the draft ${order.number}?`, { confirm: "Delete", danger: true }))) return;
      try {
        await del("/api/transfer-orders", { id: order.id });
      } catch (e) {
        showRefusal(e);
        return;
      }
      toast(`${order.number} deleted.`);
      ctx.go("#/transfers");
    }));
    buttons.push(d);
  } else if (order.status === "in_transit") {
    const r = h("button", { type: "button" }, "Receive");
    r.addEventListener("click", async () => {
      refusal.hidden = true;
      if (await receive(order)) {
        window.dispatchEvent(new Event("stockbook:stock-changed"));
        ctx.refresh();
      }
    });
    buttons.push(r, transition("Cancel order", "cancelled", `Cancel ${order.number}? The stock goes back to ${order.source_location_id.name}.`, "secondary", "cancelled"));
  }
  root.append(pageHeader(`Transfer ${order.number}`, ...buttons), refusal,
    h("dl", { class: "facts card" },
      h("dt", {}, "Status"), h("dd", {}, statusBadge(order.status)),
      h("dt", {}, "From"), h("dd", {}, order.source_location_id.name),
      h("dt", {}, "To"), h("dd", {}, order.destination_location_id.name),
      h("dt", {}, "Created"), h("dd", {}, date(order.date_created)),
      h("dt", {}, "Completed"), h("dd", {}, order.date_completed ? date(order.date_completed) : "—"),
      h("dt", {}, "Notes"), h("dd", {}, order.notes || "—")),
    h("h2", {}, "Lines"),
    table({
      caption: `Lines of ${order.number}`,
      rows: order.lines,
      columns: [
        { label: "Product", header: true, cell: (l) => [l.product_id.name, h("span", { class: "sub" }, l.product_id.sku)] },
        { label: "Quantity", num: true, cell: (l) => qty(l.quantity) },
        { label: "Received", num: true, cell: (l) => (order.status === "completed" ? qty(l.received_quantity) : "—") },
        { label: "Short", num: true, cell: (l) => (order.status === "completed" && compare(l.received_quantity, l.quantity, 3) < 0
          ? h("span", { class: "neg" }, format(toThousandths(l.quantity) - toThousandths(l.received_quantity), 3, { trim: true }))
          : "") },
      ],
    }));
}

const toThousandths = (v) => sum([v], 3);

/** The receive dialog: every line's received quantity, the full quantity by default. */
function receive(order) {
  return formDialog({
    title: `Receive ${order.number} at ${order.destination_location_id.name}`,
    submitLabel: "Receive",
    wide: true,
    build: (form) => {
      form.append(h("p", { class: "muted" }, "Lower a quantity if fewer units arrived (a short receipt): only what arrived is added at the destination."),
        table({
          caption: "Quantities received",
          rows: order.lines.map((l, i) => ({ l, i })),
          columns: [
            { label: "Product", header: true, cell: ({ l }) => [l.product_id.name, h("span", { class: "sub" }, l.product_id.sku)] },
            { label: "Shipped", num: true, cell: ({ l }) => qty(l.quantity) },
            { label: "Received", cell: ({ l, i }) => {
              const f = field({ label: `Received of ${l.product_id.name}`, name: `lines[${i}].received_quantity`, value: String(l.quantity), inputmode: "decimal" });
              f.querySelector("label").classList.add("sr-only");
              f.classList.add("cell");
              return f;
            } },
          ],
        }));
    },
    submit: async (form) => {
      const lines = order.lines.map((l, i) => {
        const v = val(form, `lines[${i}].received_quantity`);
        return { id: l.id, received_quantity: v === "" ? null : numberOrText(v) };
      });
      await put("/api/transfer-orders", { id: order.id, status: "completed", lines });
      toast(`${order.number} received.`);
      return true;
    },
  });
}
