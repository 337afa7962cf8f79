// The admin page's frame: its elements, its state, the small builders of its lists, and the
// gate that stands in for the console when this browser cannot administer. js/admin.js fills
// the console.

import { ServerError, describeError, pageOptions, setStatus } from "./shared.js";

export const $ = (selector) => document.querySelector(selector);

export const el = {
  gate: $("#admin-gate"),
  gateMessage: $("#admin-gate-message"),
  signinLink: $("#admin-signin-link"),
  retry: $("#admin-retry"),
  console: $("#admin-console"),
  search: $("#user-search"),
  query: $("#user-query"),
  group: $("#user-group"),
  users: $("#users"),
  usersEmpty: $("#users-empty"),
  usersMore: $("#users-more"),
  detail: $("#user-detail"),
  detailTitle: $("#detail-title"),
  detailClose: $("#detail-close"),
  detailSummary: $("#detail-summary"),
  toggleDisabled: $("#detail-toggle-disabled"),
  resetLink: $("#detail-reset-link"),
  reset: $("#detail-reset"),
  resetURL: $("#detail-reset-url"),
  resetExpires: $("#detail-reset-expires"),
  groupsForm: $("#detail-groups-form"),
  groupsInput: $("#detail-groups"),
  passkeys: $("#detail-passkeys"),
  sessions: $("#detail-sessions"),
  endSessions: $("#detail-end-sessions"),
  events: $("#detail-events"),
  deleteBox: $("#detail-delete"),
  deleteForm: $("#detail-delete-form"),
  deleteConfirm: $("#detail-delete-confirm"),
  inviteForm: $("#invite-form"),
  inviteName: $("#invite-name"),
  inviteGroups: $("#invite-groups"),
  inviteResult: $("#invite-result"),
  inviteURL: $("#invite-url"),
  inviteURLLabel: $("#invite-url-label"),
  inviteExpires: $("#invite-expires"),
  groups: $("#groups"),
  clients: $("#clients"),
  clientForm: $("#client-form"),
  clientId: $("#client-id"),
  clientName: $("#client-name"),
  clientRedirect: $("#client-redirect"),
  clientPublic: $("#client-public"),
  clientSecretBox: $("#client-secret-box"),
  clientSecret: $("#client-secret"),
  clientSecretFor: $("#client-secret-for"),
};

export const state = {
  busy: false,
  cursor: null,   // next_cursor of the last page of accounts, null on the last page
  user: null,     // the account open in the detail panel (GET users/{sub})
};

export const pageLimit = (() => {
  const value = Number.parseInt(pageOptions.get("limit") ?? "", 10);
  return Number.isInteger(value) && value >= 1 && value <= 500 ? value : null;
})();

export function path(...parts) {
  return "/admin/api/" + parts.map((part) => encodeURIComponent(part)).join("/");
}

export function splitNames(text) {
  return text.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
}

export function emptyItem(text, tag = "li") {
  const item = document.createElement(tag);
  item.className = "empty";
  item.textContent = text;
  return item;
}

export function button(text, className, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  b.addEventListener("click", onClick);
  return b;
}

export function span(text, className) {
  const s = document.createElement("span");
  if (className) s.className = className;
  s.textContent = text;
  return s;
}

// ----------------------------------------------------------------- the gate

// The API refused this browser: say why instead of showing the console.
export function showGate(reason, text) {
  el.console.hidden = true;
  el.gate.hidden = false;
  el.gate.dataset.reason = reason;
  el.gateMessage.textContent = text;
  el.signinLink.hidden = reason !== "signin";
  el.retry.hidden = reason === "signin" || reason === "forbidden";
}

export function showConsole() {
  el.gate.hidden = true;
  delete el.gate.dataset.reason;
  el.console.hidden = false;
}

// A refusal that means this browser cannot administer: no session (any more), or no admin.
export function gateFor(error) {
  if (!(error instanceof ServerError)) return false;
  if (error.status === 401 && error.code !== "reauthentication_required") {
    showGate("signin", "Sign in on the main page first: this page uses your account's session.");
    setStatus("error", "Not signed in.", error);
    return true;
  }
  if (error.status === 403 && error.code === "forbidden") {
    showGate("forbidden", "Your account is not an administrator.");
    setStatus("error", "Your account is not an administrator.", error);
    return true;
  }
  return false;
}

// Runs one action from a button or form: one at a time, its outcome in #status.
export async function act(busyText, action) {
  if (state.busy) return;
  state.busy = true;
  document.body.setAttribute("aria-busy", "true");
  setStatus("busy", busyText);
  try {
    await action();
  } catch (error) {
    if (!gateFor(error)) setStatus("error", describeError(error), error);
  } finally {
    state.busy = false;
    document.body.setAttribute("aria-busy", "false");
  }
}
