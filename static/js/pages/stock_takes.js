// Stock takes (docs/documents.md#stock-takes, docs/documents.md#stock-take-states):
// create for a location; a count sheet made for fast keyboard entry (Enter moves to
// the next line), progress, variance highlighted; start, complete, cancel, delete.

import { del, get, post, put } from "../api.js";
import { format, isDecimal, qty, scaled } from "../decimal.js";
import { scoped, state } from "../state.js";
import {
  act, confirmDialog, date, field, fill, formDialog, formError, h, loadError, numberOrText,
  pageHeader, statusBadge, table, toast, val,
} from "../ui.js";
import { locationSelect, locations } from "../widgets.js";

export const title = "Stock takes";

const counted = (t) => t.lines.filter((l) => l.counted_quantity !== null && l.counted_quantity !== undefined).length;

export async function render(root, ctx) {
  if (ctx.params[0]) return detail(root, ctx, ctx.params[0]);
  const newButton = h("button", { type: "button" }, "New stock take");
  root.append(pageHeader("Stock takes", newButton),
    h("p", { class: "lead" }, "Count what is on the shelves; completing the count sets the stock to what you counted and records the differences."));
  const area = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(area);
  newButton.addEventListener("click", async () => {
    const created = await createDialog();
    if (created) ctx.go(`#/stock-takes/${created.id}`);
  });
  try {
    const { data } = await get("/api/stock-takes", scoped());
    if (!ctx.alive()) return;
    fill(area, table({
      caption: "Stock takes",
      rows: data,
      empty: "No stock takes yet.",
      columns: [
        { label: "Number", header: true, cell: (t) => h("a", { href: `#/stock-takes/${t.id}` }, t.number) },
        { label: "Location", cell: (t) => t.location_id.name },
        { label: "Created", cell: (t) => date(t.date_created) },
        { label: "Counted", num: true, cell: (t) => `${counted(t)} of ${t.lines.length}` },
        { label: "Status", cell: (t) => statusBadge(t.status) },
        { label: "Completed", cell: (t) => (t.date_completed ? date(t.date_completed) : "") },
      ],
    }));
  } catch (e) {
    if (ctx.alive()) fill(area, loadError(e, "the stock takes"));
  }
}

async function createDialog() {
  const locs = await locations();
  return formDialog({
    title: "New stock take",
    submitLabel: "Create count sheet",
    build: (form) => form.append(
      locationSelect({ label: "Location", name: "location_id", locs, activeOnly: true, blank: "Choose…", required: true,
        hint: "The sheet lists every active product held there, with the quantity on record now." }),
      field({ label: "Notes", name: "notes", type: "textarea" })),
    submit: async (form) => {
      const body = { location_id: val(form, "location_id"), entity_id: state.entity.id };
      if (!body.location_id) throw new Error("Missing required field: location_id");
      if (val(form, "notes")) body.notes = val(form, "notes");
      const { data } = await post("/api/stock-takes", body);
      toast(`${data.number} created with ${data.lines.length} lines.`);
      return data;
    },
  });
}

async function detail(root, ctx, id) {
  root.append(h("p", {}, h("a", { href: "#/stock-takes" }, "← All stock takes")));
  let take;
  try {
    take = (await get("/api/stock-takes", scoped())).data.find((t) => t.id === id);
  } catch (e) {
    root.append(pageHeader("Stock take"), loadError(e, "the stock take"));
    return;
  }
  if (!ctx.alive()) return;
  if (!take) {
    root.append(pageHeader("Stock take not found"), h("p", {}, "It may have been deleted, or it belongs to another business."));
    return;
  }
  const editable = take.status === "draft" || take.status === "in_progress";
  const refusal = h("div", { class: "notice error", role: "alert", hidden: true });
  const form = h("form", { class: "count-form" });
  const buttons = [];

  // Counts typed since the last save, by line id.
  const inputs = new Map();
  function changedLines() {
    const out = [];
    for (const l of take.lines) {
      const input = inputs.get(l.id);
      if (!input) continue;
      const v = input.value.trim();
      const before = l.counted_quantity === null || l.counted_quantity === undefined ? "" : String(l.counted_quantity);
      const same = v === "" ? before === "" : before !== "" && isDecimal(v) && scaled(v, 3) === scaled(before, 3);
      if (!same) out.push({ id: l.id, counted_quantity: v === "" ? null : numberOrText(v) });
    }
    return out;
  }
  async function send(status, label) {
    refusal.hidden = true;
    const body = { id: take.id };
    const lines = editable ? changedLines() : [];
    if (lines.length) body.lines = lines;
    if (status) body.status = status;
    if (!status && !lines.length) { toast("No changes to save."); return; }
    try {
      await put("/api/stock-takes", body);
    } catch (e) {
      refusal.hidden = false;
      refusal.textContent = e.message;
      const m = /lines\[(\d+)\]/.exec(e.message);
      if (m && lines[Number(m[1])]) inputs.get(lines[Number(m[1])].id)?.focus();
      return;
    }
    toast(label);
    if (status === "completed") window.dispatchEvent(new Event("stockbook:stock-changed"));
    ctx.refresh();
  }
  const button = (label, handler, cls = "") => {
    const b = h("button", { type: "button", class: cls }, label);
    b.addEventListener("click", () => act(b, handler));
    buttons.push(b);
    return b;
  };
  if (editable) {
    button("Save counts", () => send(null, "Counts saved."), "secondary").id = "save-counts";
  }
  if (take.status === "draft") {
    button("Start counting", () => send("in_progress", `${take.number} started.`));
  }
  if (take.status === "in_progress") {
    button("Complete", async () => {
      const n = counted(take) + changedLines().filter((l) => l.counted_quantity !== null).length;
      if (!(await confirmDialog(`Complete ${take.number}?`, {
        confirm: "Complete",
        detail: "Stock at the location is set to the counted quantities and the differences are recorded as stock take movements. Lines left blank are not changed.",
      }))) return;
      await send("completed", `${take.number} completed.`);
      return n;
    });
  }
  if (editable) {
    button("Cancel stock take", async () => {
      if (!(await confirmDialog(`Cancel ${take.number}?`, { confirm: "Cancel stock take", danger: true, detail: "No stock changes are made." }))) return;
      await send("cancelled", `${take.number} cancelled.`);
    }, "secondary");
  }
  if (take.status === "draft" || take.status === "cancelled") {
    button("Delete", async () => {
      if (!(await confirmDialog(`Delete ${take.number}?`, { confirm: "Delete", danger: true }))) return;
      try {
        await del("/api/stock-takes", { id: take.id });
      } catch (e) {
        refusal.hidden = false;
        refusal.textContent = e.message;
        return;
      }
      toast(`${take.number} deleted.`);
      ctx.go("#/stock-takes");
    }, "danger secondary");
  }

  const bar = h("progress", { max: String(take.lines.length || 1), value: "0", "aria-label": "Lines counted" });
  const progressText = h("span", { "aria-live": "polite" });
  function progress() {
    let n = 0;
    for (const l of take.lines) {
      const input = inputs.get(l.id);
      const v = input ? input.value.trim() : (l.counted_quantity ?? "");
      if (String(v) !== "") n++;
    }
    bar.value = n;
    progressText.textContent = `${n} of ${take.lines.length} lines counted`;
  }

  h(root, {}, pageHeader(`Stock take ${take.number}`, ...buttons), refusal,
    h("dl", { class: "facts card" },
      h("dt", {}, "Location"), h("dd", {}, take.location_id.name),
      h("dt", {}, "Status"), h("dd", {}, statusBadge(take.status)),
      h("dt", {}, "Created"), h("dd", {}, date(take.date_created)),
      h("dt", {}, "Completed"), h("dd", {}, take.date_completed ? date(take.date_completed) : "—"),
      h("dt", {}, "Notes"), h("dd", {}, take.notes || "—")),
    h("div", { class: "progress" }, bar, progressText),
    editable ? h("p", { class: "hint" }, "Type each count and press Enter to go to the next line. Leave a line blank to leave its stock unchanged.") : null,
    form);

  const rows = take.lines.map((l, i) => {
    const varCell = h("td", { class: "num var" });
    const tr = h("tr", { "data-line": l.id });
    let countCell;
    if (editable) {
      const f = field({
        label: `Counted ${l.product_id.name}`, name: `lines[${i}].counted_quantity`,
        value: l.counted_quantity ?? "", inputmode: "decimal", autocomplete: "off", class: "count",
      });
      f.querySelector("label").classList.add("sr-only");
      f.classList.add("cell");
      inputs.set(l.id, f.control);
      f.control.addEventListener("input", () => { variance(); progress(); });
      f.control.addEventListener("keydown", (ev) => {
        if (ev.key !== "Enter") return;
        ev.preventDefault();
        const next = take.lines[i + (ev.shiftKey ? -1 : 1)];
        const target = next ? inputs.get(next.id) : document.getElementById("save-counts");
        if (target) { target.focus(); if (target.select) target.select(); }
      });
      countCell = h("td", {}, f);
    } else {
      countCell = h("td", { class: "num" }, l.counted_quantity === null || l.counted_quantity === undefined ? h("span", { class: "muted" }, "not counted") : qty(l.counted_quantity));
    }
    function variance() {
      const raw = editable ? inputs.get(l.id).value.trim() : (l.counted_quantity ?? "");
      const c = raw === "" ? null : scaled(raw, 3);
      tr.classList.toggle("counted", c !== null);
      if (c === null) {
        varCell.textContent = "";
        varCell.classList.remove("zero");
        tr.classList.remove("variance");
        return;
      }
      const d = c - scaled(l.system_quantity, 3);
      varCell.textContent = d > 0n ? `+${format(d, 3, { trim: true })}` : format(d, 3, { trim: true });
      varCell.classList.toggle("zero", d === 0n);
      tr.classList.toggle("variance", d !== 0n);
    }
    tr.append(h("th", { scope: "row" }, l.product_id.name, h("span", { class: "sub" }, l.product_id.sku)),
      h("td", { class: "num" }, qty(l.system_quantity)), countCell, varCell);
    variance();
    return tr;
  });
  form.append(h("div", { class: "table-wrap count-sheet" }, h("table", { class: "grid" },
    h("caption", { class: "sr-only" }, `Count sheet of ${take.number}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Product"), h("th", { scope: "col", class: "num" }, "On record"),
      h("th", { scope: "col" }, "Counted"), h("th", { scope: "col", class: "num" }, "Variance"))),
    h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No active products are held at this location."))))),
  formError());
  form.addEventListener("submit", (ev) => ev.preventDefault());
  progress();
  const first = take.lines.find((l) => l.counted_quantity === null || l.counted_quantity === undefined);
  if (editable && first) setTimeout(() => inputs.get(first.id)?.focus(), 0);
}
