// The account view's recent activity: the audit events of GET /me/events, a line each, newest
// first, with a button for older pages.

import { api, describeError, el, state, timeElement } from "./shared.js";

// ----------------------------------------------------------- recent activity

const methodNames = { passkey: "a passkey", apple: "Apple", push: "a push notification", mfb: "Messages for Business", ciba: "an application's request you approved" };

// One line for an audit event of GET /me/events; unknown types show their name.
function describeEvent(event) {
  const d = event.details ?? {};
  const passkey = d.credential ? ` (passkey ${String(d.credential).slice(0, 8)}…)` : "";
  switch (event.type) {
    case "registration": return `Passkey created${d.name ? `: ${d.name}` : ""}`;
    case "sign_in": return `Signed in with ${methodNames[d.method] ?? d.method ?? "a passkey"}`;
    case "sign_in_refused": return `Sign-in refused: ${d.error ?? "unknown reason"}${passkey}`;
    case "counter_regression": return `Signature counter went backwards${passkey}`;
    case "credential_renamed": return `Passkey renamed to ${d.name ?? "?"}`;
    case "credential_deleted": return `Passkey removed${passkey}`;
    case "session_ended": return d.everywhere === "true" ? "Signed out everywhere" : "Signed out";
    case "apple_linked": return "Sign in with Apple linked";
    case "apple_unlinked": return "Sign in with Apple unlinked";
    case "push_device_enrolled": return `Device enrolled for push sign-in${d.name ? `: ${d.name}` : ""}`;
    case "push_denied": return "A push sign-in request was denied";
    case "push_number_mismatch": return "A push sign-in request was answered with the wrong number";
    case "mfb_key_mismatch": return "A Messages for Business sign-in was refused (key mismatch)";
    case "oauth_code_issued": return `Signed in to the application ${d.client ?? "?"}`;
    case "oauth_token_issued": return `Tokens issued to ${d.client ?? "?"}`;
    case "oauth_token_revoked": return `${d.client ?? "An application"} signed out`;
    case "oauth_code_reuse": return `A code of ${d.client ?? "an application"} was used twice; its tokens were revoked`;
    case "oauth_refresh_reuse": return `A refresh token of ${d.client ?? "an application"} was used twice; its tokens were revoked`;
    case "backchannel_logout_failed": return `${d.client ?? "An application"} could not be told of a sign-out`;
    case "reauthenticated": return `Confirmed it was you${passkey}`;
    case "oauth_device_approved": return `A device of ${d.client ?? "an application"} was approved`;
    case "oauth_device_denied": return `A device of ${d.client ?? "an application"} was denied`;
    case "oauth_device_code_reuse": return `A device code of ${d.client ?? "an application"} was used twice; its tokens were revoked`;
    case "ciba_requested": return `${d.client ?? "An application"} asked for your approval`;
    case "ciba_approved": return d.by === "page" ? "You approved an application's request on this page" : "You approved an application's request on your phone";
    case "ciba_denied": return d.by === "page" ? "You denied an application's request on this page" : "You denied an application's request on your phone";
    case "account_disabled": return "The account was disabled by an operator";
    case "account_enabled": return "The account was enabled by an operator";
    case "recovery_codes_created": return `New recovery codes made${d.count ? ` (${d.count})` : ""}; the old ones no longer work`;
    case "recovery_started": return d.delay
      ? "A recovery code was used to start a recovery that waits"
      : "A recovery code was used to get back in";
    case "recovery_claimed": return "A waiting recovery was opened with its recovery code";
    case "recovery_cancelled": return "A waiting recovery was stopped (“This wasn't me”)";
    case "reset_link_created": return "An operator made a reset link for this account";
    case "display_name_changed": return `Display name changed${d.display_name ? ` to ${d.display_name}` : ""}`;
    case "group_joined": case "group_added": return `Joined the group ${d.group ?? "?"}`;
    case "group_left": case "group_removed": return `Left the group ${d.group ?? "?"}`;
    default: return event.type;
  }
}

function eventItem(event) {
  const li = document.createElement("li");
  li.className = "event";
  li.dataset.type = event.type;
  li.dataset.id = event.id;
  const what = document.createElement("span");
  what.className = "event-what";
  what.textContent = describeEvent(event);
  li.append(what, timeElement(event.at, ""));
  const where = [event.ip, event.user_agent].filter((part) => part).join(" · ");
  if (where) {
    const span = document.createElement("span");
    span.className = "event-where";
    span.textContent = where;
    li.append(span);
  }
  return li;
}

// Loads the newest page of /me/events, or appends the next older one.
export async function loadActivity(older) {
  const query = older && state.activityCursor ? `?before=${encodeURIComponent(state.activityCursor)}` : "";
  const page = await api("GET", `/me/events${query}`);
  const items = (page?.events ?? []).map(eventItem);
  if (older) el.activity.append(...items);
  else el.activity.replaceChildren(...items);
  if (!el.activity.children.length) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "No activity yet.";
    el.activity.append(empty);
  }
  state.activityCursor = page?.next_before ?? null;
  el.activityMore.hidden = state.activityCursor === null;
}

// The account view stays usable when the activity cannot be loaded.
export async function refreshActivity() {
  try {
    await loadActivity(false);
  } catch (error) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = `Recent activity could not be loaded: ${describeError(error)}`;
    el.activity.replaceChildren(li);
    el.activityMore.hidden = true;
  }
}
