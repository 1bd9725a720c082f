// The storage banner (docs/operations.md#storage-faults): when the server cannot save
// (a full disk, a read-only or vanished database file), a banner across the top of every
// screen says why, in the server's words from `GET /api/health`. The app asks at start,
// whenever a request answers 503, and every minute (every 15 s while the banner shows,
// so it goes away soon after the fault is fixed).

import { onUnavailable } from "./api.js";

const EVERY_MS = 60_000;
const WHILE_DEGRADED_MS = 15_000;
let timer = null;
let asking = null;

function banner() {
  return document.getElementById("storage-banner");
}

function show(reason) {
  const el = banner();
  if (!el) return;
  el.querySelector("[data-reason]").textContent = reason;
  el.hidden = false;
}

function hide() {
  const el = banner();
  if (el) el.hidden = true;
}

/** Asks `GET /api/health` (a 503 there carries the same body) and shows what it says. */
export function checkStorage() {
  if (asking) return asking;
  asking = (async () => {
    let degraded = false;
    try {
      const res = await fetch("/api/health", { headers: { Accept: "application/json" } });
      const body = await res.json();
      const health = body && body.data;
      degraded = Boolean(health && health.status === "degraded");
      if (degraded) show(String(health.reason || "The server cannot save changes."));
      else if (health) hide();
    } catch {
      // Unreachable or not JSON: the requests themselves say so.
    }
    clearTimeout(timer);
    timer = setTimeout(checkStorage, degraded ? WHILE_DEGRADED_MS : EVERY_MS);
  })().finally(() => {
    asking = null;
  });
  return asking;
}

/** Starts watching: once now, on every 503, then on the timer. */
export function watchStorage() {
  onUnavailable(() => {
    checkStorage();
  });
  checkStorage();
}
