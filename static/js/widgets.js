// Pickers shared by the stock pages: a product search box that asks the server as you
// type (a select of 100,000 products would be useless), and a location select.

import { get } from "./api.js";
import { scoped } from "./state.js";
import { field, h, nextId } from "./ui.js";

const label = (p) => `${p.name} (${p.sku})`;

/**
 * A labelled search box with suggestions: typing asks the server (`q`, 20 at a time);
 * the chosen product's id is in the hidden input `name`. `activeOnly` leaves out
 * deactivated products. Typing a SKU or a name exactly is enough: `resolve()` finds it.
 */
export function productPicker({ label: text = "Product", name = "product_id", required = true, activeOnly = false, hint, value } = {}) {
  const listId = nextId("products");
  const wrap = field({
    label: text, name: `${name}__search`, type: "search", required, list: listId,
    autocomplete: "off", hint: hint ?? "Type a name, SKU or barcode and pick from the list.",
  });
  const input = wrap.control;
  const hidden = h("input", { type: "hidden", name });
  const list = h("datalist", { id: listId });
  wrap.append(hidden, list);
  // The server names `product_id` in its messages: the visible box shows them.
  input.dataset.errorFor = name;
  let results = [];
  let seq = 0;

  // Each caller gets the answer to its own question; only the newest answer fills the
  // suggestions (an older one may arrive after it).
  async function search(q) {
    const mine = ++seq;
    const { data } = await get("/api/products", scoped({ q, limit: 20, active: activeOnly ? "true" : "" }));
    if (mine === seq) {
      results = data;
      list.replaceChildren(...data.map((p) => h("option", { value: label(p) })));
    }
    return data;
  }

  function match(text, rows) {
    const t = text.trim().toLowerCase();
    if (!t) return null;
    const exact = rows.find((p) => label(p).toLowerCase() === t)
      || rows.find((p) => p.sku.toLowerCase() === t)
      || rows.find((p) => (p.barcode || "").toLowerCase() === t);
    if (exact) return exact;
    const byName = rows.filter((p) => p.name.toLowerCase() === t);
    return byName.length === 1 ? byName[0] : null;
  }

  function choose(p) {
    hidden.value = p ? p.id : "";
    wrap.product = p || null;
    if (p) input.value = label(p);
    wrap.dispatchEvent(new CustomEvent("product", { detail: p }));
  }

  let timer;
  input.addEventListener("input", () => {
    const p = match(input.value, results);
    if (p) { choose(p); return; }
    hidden.value = "";
    wrap.product = null;
    clearTimeout(timer);
    const q = input.value.trim();
    if (q) timer = setTimeout(() => search(q).then((rows) => { const m = match(input.value, rows); if (m) choose(m); }).catch(() => {}), 200);
  });

  /** The chosen product, asking the server once more if the text was typed quickly. */
  wrap.resolve = async () => {
    if (hidden.value) return wrap.product;
    clearTimeout(timer);
    const q = input.value.trim();
    if (!q) return null;
    const p = match(q, await search(q));
    if (p) choose(p);
    return p;
  };
  wrap.set = (p) => choose(p);
  /** Shows `p` as the chosen product without a "product" event (a saved line's product:
   * its saved price stays). */
  wrap.show = (p) => {
    hidden.value = p.id;
    wrap.product = p;
    input.value = label(p);
  };
  wrap.clear = () => { input.value = ""; choose(null); };
  if (value) choose(value);
  return wrap;
}

/** Locations of the current entity, by name. */
export async function locations() {
  return (await get("/api/warehouse-locations", scoped())).data;
}

/** A location select; `blank` is the label of the empty choice (omit for none). */
export function locationSelect({ label: text, name, locs, blank, required, activeOnly = false, value, hint }) {
  const options = locs
    .filter((l) => !activeOnly || l.status === "active")
    .map((l) => ({ value: l.id, label: l.status === "inactive" ? `${l.name} (inactive)` : l.name }));
  if (blank !== undefined) options.unshift({ value: "", label: blank });
  return field({ label: text, name, type: "select", options, required, value, hint });
}
