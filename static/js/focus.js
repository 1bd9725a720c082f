// Where the focus goes when the page under it is redrawn (docs/accessibility.md#focus). A list
// reloaded after a dialog's Save, or a page refreshed after an action, replaces the
// elements the focus was on, and the browser would drop it to the page body: a keyboard
// or screen-reader user would start again from the top. Instead the focus goes to the
// same control in the new drawing (the saved row's "Edit" button, whose label names the
// record; the button that opened the dialog), and when there is none, to the page
// heading. A dialog that closes gives the focus back to the control that opened it
// (the browser does that); when that control has gone meanwhile, the same rule applies.

let last = null;

/** What identifies a control across a redraw: its id, or its tag, label and text. */
function keyOf(el) {
  if (!el || el === document.body) return null;
  if (el.id) return { id: el.id };
  return {
    tag: el.tagName,
    label: el.getAttribute("aria-label"),
    name: el.getAttribute("name"),
    text: el.textContent.trim(),
  };
}

function findLike(view, key) {
  if (!key) return null;
  if (key.id) return document.getElementById(key.id);
  for (const el of view.querySelectorAll(key.tag)) {
    if (el.getAttribute("aria-label") === key.label && el.getAttribute("name") === key.name
        && el.textContent.trim() === key.text && !el.disabled && el.offsetParent !== null) {
      return el;
    }
  }
  return null;
}

function dialogOpen() {
  return !!document.querySelector("dialog[open]");
}

export function keepFocus(view) {
  document.addEventListener("focusin", (ev) => {
    if (view.contains(ev.target) && ev.target !== view) last = { el: ev.target, key: keyOf(ev.target) };
  });
  function restore() {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    if (!last || last.el.isConnected || dialogOpen()) return;
    // The router focuses the heading of a page it has just opened; a busy view is
    // still drawing, and the next change will ask again.
    if (view.getAttribute("aria-busy") === "true") return;
    const target = findLike(view, last.key) || view.querySelector("h1");
    last = null;
    if (target) target.focus({ preventScroll: true });
  }
  // Focus moved away on purpose (a click on the page, not on a control): nothing to keep.
  document.addEventListener("focusout", (ev) => {
    const el = ev.target;
    setTimeout(() => {
      if (last?.el === el && el.isConnected && document.activeElement === document.body) last = null;
    }, 0);
  });
  new MutationObserver(restore).observe(view, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-busy"] });
  document.addEventListener("close", () => setTimeout(restore, 0), true);
}
