// The main menu on a narrow screen (docs/accessibility.md#on-a-phone): folded away behind the
// "Menu" button in the top bar, which says whether it is open (`aria-expanded`). Opening
// it puts the focus on the current page's link; Escape closes it and gives the focus back
// to the button; choosing a page closes it. On a wide screen the button is not shown and
// the menu is always there, so nothing here has any effect.

const NARROW = "(max-width: 900px)";

export function setUpMenu() {
  const button = document.getElementById("menu-button");
  const nav = document.getElementById("main-nav");
  const narrow = window.matchMedia(NARROW);

  function setOpen(open, { focus = false } = {}) {
    button.setAttribute("aria-expanded", String(open));
    nav.classList.toggle("open", open);
    if (open && focus) {
      const link = nav.querySelector("a[aria-current=page]") || nav.querySelector("a");
      link?.focus();
    }
  }

  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    setOpen(open, { focus: open });
  });
  nav.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || !narrow.matches || !nav.classList.contains("open")) return;
    ev.preventDefault();
    setOpen(false);
    button.focus();
  });
  button.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
      ev.preventDefault();
      setOpen(false);
    }
  });
  // A page chosen: the menu folds away and the router puts the focus on the new heading.
  nav.addEventListener("click", (ev) => {
    if (ev.target.closest("a") && narrow.matches) setOpen(false);
  });
  narrow.addEventListener("change", () => setOpen(false));

  return {
    /** The "Skip to the menu" link: opens the menu where it folds, then focuses a link. */
    reveal() {
      if (narrow.matches) setOpen(true, { focus: true });
      else (nav.querySelector("a[aria-current=page]") || nav.querySelector("a"))?.focus();
    },
  };
}
