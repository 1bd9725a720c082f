// The browser's part of HMRC's fraud-prevention data (docs/hmrc.md#fraud-prevention-headers):
// the values only the browser knows, collected when a call to HMRC is made, and the device
// id kept in this browser. The server turns them into HMRC's headers.

import { api, query } from "./api.js";

const DEVICE_KEY = "stockbook.hmrcDeviceId";

/** A random UUID (`crypto.randomUUID` exists only on https and localhost). */
function uuid() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((n) => n.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** This browser's device id: made once and kept; a new one when storage was cleared. */
export function deviceId() {
  try {
    let id = localStorage.getItem(DEVICE_KEY);
    if (!id || !/^[0-9a-f-]{36}$/i.test(id)) {
      id = uuid();
      localStorage.setItem(DEVICE_KEY, id);
    }
    return id;
  } catch {
    // Storage refused (a private window's policy): no device id can be kept.
    return null;
  }
}

/** `UTC+01:00` for the browser's current offset. */
function timezone() {
  const minutes = -new Date().getTimezoneOffset();
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `UTC${sign}${hh}:${mm}`;
}

const positive = (n) => Number.isInteger(n) && n > 0;

/** The browser's values, as `client` of docs/hmrc.md; what the browser does not report is left out. */
export function clientInfo() {
  const info = { js_user_agent: navigator.userAgent, timezone: timezone() };
  const s = window.screen;
  if (s && positive(s.width) && positive(s.height)) {
    const screen = { width: s.width, height: s.height };
    if (window.devicePixelRatio > 0) screen.scaling_factor = Math.round(window.devicePixelRatio * 100) / 100;
    if (positive(s.colorDepth)) screen.colour_depth = s.colorDepth;
    info.screens = [screen];
  }
  if (positive(window.innerWidth) && positive(window.innerHeight)) {
    info.window_size = { width: window.innerWidth, height: window.innerHeight };
  }
  if (navigator.doNotTrack === "1" || navigator.doNotTrack === "0") info.do_not_track = navigator.doNotTrack === "1";
  if (navigator.plugins) info.plugins = Array.from(navigator.plugins, (p) => p.name).filter(Boolean);
  const id = deviceId();
  if (id) info.device_id = id;
  return info;
}

/** A GET that reaches HMRC: the browser's values travel in the `Stockbook-Client` header. */
export function hmrcGet(path, params) {
  return api("GET", path + query(params), undefined, {
    "Stockbook-Client": encodeURIComponent(JSON.stringify(clientInfo())),
  });
}
