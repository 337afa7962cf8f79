// The signed-in view: passkeys, phones, recent activity, and the signed-out view.

import { runCeremony } from "./ceremonies.js";
import { ServerError, api, badge, describeError, detail, el, formatTime, setStatus, state, timeElement } from "./shared.js";
import { signalAccepted, signalUnknown, signalUserDetails } from "./signals.js";
import { loadActivity, refreshActivity } from "./activity.js";
import { refreshApprovals } from "./approvals.js";

export { refreshActivity };

function paragraph(className, text) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

function passkeyItem(credential) {
  const li = document.createElement("li");
  li.className = "passkey";
  li.dataset.credentialId = credential.credential_id;
  li.dataset.signCount = String(credential.sign_count ?? 0);
  li.dataset.lastUsed = credential.last_used_at ?? "";
  li.dataset.possiblyCloned = credential.possibly_cloned ? "true" : "false";
  li.dataset.discoverable = credential.discoverable === false ? "false" : "true";

  const head = document.createElement("div");
  head.className = "passkey-head";
  const name = document.createElement("span");
  name.className = "passkey-name";
  name.textContent = credential.name || `Passkey ${String(credential.credential_id).slice(0, 8)}`;
  head.append(name);
  if (credential.backup_state) head.append(badge("Synced", "synced"));
  else if (credential.backup_eligible) head.append(badge("Not synced yet", "neutral"));
  else head.append(badge("This device only", "neutral"));
  if (credential.credential_id === state.lastCredentialId) {
    li.setAttribute("aria-current", "true");
    head.append(badge("Just used", "current"));
  }
  li.append(head);

  const dl = document.createElement("dl");
  detail(dl, "Created", timeElement(credential.created_at, "unknown"), "created");
  detail(dl, "Last used", timeElement(credential.last_used_at, "never"), "last-used");
  detail(dl, "Sign count", String(credential.sign_count ?? 0), "sign-count");
  const transports = Array.isArray(credential.transports) && credential.transports.length
    ? credential.transports.join(", ")
    : "unknown";
  detail(dl, "Transports", transports, "transports");
  const id = document.createElement("code");
  const fullId = String(credential.credential_id);
  id.textContent = fullId.length > 16 ? `${fullId.slice(0, 16)}…` : fullId;
  id.title = fullId;
  detail(dl, "Credential ID", id, "credential-id");
  li.append(dl);

  if (credential.possibly_cloned) {
    li.append(paragraph("warning cloned",
      "Warning: this passkey's signature counter went backwards once. It may have been cloned; " +
      "consider removing it from your authenticator and creating a new one."));
  }
  if (credential.discoverable === false) {
    li.append(paragraph("hint not-discoverable",
      "This security key keeps no record of the passkey, so it cannot be found without your name: " +
      "type your user name before signing in with it."));
  }
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove-passkey";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => {
    runCeremony("Removing the passkey…", async () => {
      await api("DELETE", `/credentials/${encodeURIComponent(credential.credential_id)}`);
      if (await refreshAccount()) signalAccepted(state.account);
      setStatus("ok", "Passkey removed");
    });
  });
  li.append(remove);
  return li;
}

export function showSignedIn(account) {
  state.account = account;
  const shown = account.display_name && account.display_name !== account.user_name
    ? `${account.display_name} (${account.user_name})`
    : account.user_name;
  el.whoami.textContent = `Signed in as ${shown}`;
  el.whoami.dataset.userName = account.user_name;
  if (document.activeElement !== el.displayName) el.displayName.value = account.display_name ?? "";
  const items = (account.credentials ?? []).map(passkeyItem);
  el.passkeys.replaceChildren(...items);
  if (items.length === 0) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "No passkeys.";
    el.passkeys.append(empty);
  }
  const phones = (account.push_devices ?? []).map(phoneItem);
  el.phones.replaceChildren(...phones);
  if (phones.length === 0) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "No phones.";
    el.phones.append(empty);
  }
  const applications = (account.applications ?? []).map(applicationItem);
  el.applications.replaceChildren(...applications);
  if (applications.length === 0) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "No applications.";
    el.applications.append(empty);
  }
  const apple = account.apple ?? null;
  el.appleLink.hidden = !apple;
  el.appleLink.textContent = apple
    ? `Apple ID linked${apple.email ? ` (${apple.email}${apple.is_private_email ? ", private relay" : ""})` : ""}.`
    : "";
  el.siwaLink.hidden = !state.apple || Boolean(apple);
  el.siwaUnlink.hidden = !apple;
  showRecoveryCodesLeft(account.recovery_codes_left);
  showWaitingRecoveries(account.waiting_recoveries);
  el.signedOut.hidden = true;
  el.recoveryView.hidden = true;
  el.signedIn.hidden = false;
}

// ------------------------------------------------------------ account recovery

// The count of unspent recovery codes (`recovery_codes_left`; null: the server has none).
function showRecoveryCodesLeft(left) {
  const off = left === null || left === undefined;
  el.recoveryCodes.hidden = off;
  el.recoveryCodesLeft.dataset.left = off ? "" : String(left);
  el.recoveryCodesLeft.textContent = off ? ""
    : left === 0 ? "You have no recovery codes."
    : left === 1 ? "You have 1 recovery code left."
    : `You have ${left} recovery codes left.`;
}

// Recoveries of this account waiting out --recovery-delay (`waiting_recoveries`): a banner at the
// top of the account view, one line each with "This wasn't me" (DELETE /me/recoveries/{id}).
function showWaitingRecoveries(recoveries) {
  const list = Array.isArray(recoveries) ? recoveries : [];
  el.recoveryBannerList.replaceChildren(...list.map(waitingRecoveryItem));
  el.recoveryBanner.dataset.count = String(list.length);
  el.recoveryBanner.hidden = list.length === 0;
}

function waitingRecoveryItem(recovery, index) {
  const li = document.createElement("li");
  li.className = "waiting-recovery";
  li.dataset.id = recovery.id;
  const text = document.createElement("span");
  text.className = "waiting-recovery-text";
  text.textContent = `Someone started recovering this account on ${formatTime(recovery.created_at) ?? "an unknown date"} ` +
    `from ${recovery.ip || "an unknown address"} (${describeAgent(recovery.user_agent)}); ` +
    `it opens at ${formatTime(recovery.ready_at) ?? "an unknown time"}.`;
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.id = `recovery-cancel-${index}`;
  cancel.className = "danger recovery-cancel";
  cancel.dataset.id = recovery.id;
  cancel.textContent = "This wasn't me";
  cancel.addEventListener("click", () => {
    runCeremony("Stopping the recovery…", async () => {
      await api("DELETE", `/me/recoveries/${encodeURIComponent(recovery.id)}`);
      await refreshAccount();
      setStatus("ok", "Recovery stopped. Someone has one of your recovery codes: make new ones.");
    });
  });
  li.append(text, cancel);
  return li;
}

function hideWaitingRecoveries() {
  el.recoveryBannerList.replaceChildren();
  delete el.recoveryBanner.dataset.count;
  el.recoveryBanner.hidden = true;
}

// New codes, shown once (they are in the page until dismissed or signed out, never stored).
export function showNewRecoveryCodes(codes) {
  el.recoveryCodesList.replaceChildren(...codes.map((code) => {
    const li = document.createElement("li");
    const text = document.createElement("code");
    text.textContent = code;
    li.append(text);
    return li;
  }));
  el.recoveryCodesNew.hidden = codes.length === 0;
}

export function hideNewRecoveryCodes() {
  el.recoveryCodesList.replaceChildren();
  el.recoveryCodesNew.hidden = true;
}

// A recovery session (GET /me answers recovery: true): it can only register a new passkey.
export function showRecovery(account) {
  state.account = account;
  el.recoveryWho.textContent = `Signed in as ${account.user_name} with a recovery code.`;
  el.recoveryWho.dataset.userName = account.user_name;
  hideWaitingRecoveries();
  el.signedOut.hidden = true;
  el.signedIn.hidden = true;
  el.recoveryView.hidden = false;
}

// An application of the OpenID provider holding tokens of the account, or a third-party one the
// user allowed: its name, what it may read, and a button that signs it out (its tokens are
// revoked; it is told by back-channel) and, for a third-party one, withdraws what was allowed.
function applicationItem(application) {
  const li = document.createElement("li");
  li.className = "application";
  li.dataset.clientId = application.client_id;
  const label = document.createElement("span");
  const scopes = (application.scopes ?? []).filter((scope) => scope !== "openid").join(", ") || "sign-in only";
  const consent = application.consent ?? null;
  label.textContent = `${application.name} (${scopes}), since ${formatTime(application.since)}` +
    (application.offline ? " — keeps access while you are signed out" : "") +
    (consent ? " — a third-party application you allowed" : "");
  const signOut = document.createElement("button");
  signOut.type = "button";
  signOut.className = "sign-out-application";
  signOut.textContent = consent ? "Withdraw access" : "Sign out";
  signOut.addEventListener("click", () => {
    runCeremony(`Signing ${application.name} out…`, async () => {
      await api("DELETE", `/me/applications/${encodeURIComponent(application.client_id)}`);
      await refreshAccount();
      setStatus("ok", consent ? `${application.name} no longer has access` : `${application.name} signed out`);
    });
  });
  li.append(label, signOut);
  return li;
}

// The account's open sessions (GET /me/sessions): how each was opened, from where, when it was
// last used, which applications hold tokens from it; each but this one can be ended here.
async function refreshSessions() {
  const { sessions = [] } = (await api("GET", "/me/sessions")) ?? {};
  el.sessions.replaceChildren(...sessions.map(sessionItem));
}

const sessionMethodNames = {
  passkey: "passkey", apple: "Sign in with Apple", push: "phone approval", mfb: "Messages", recovery: "recovery code",
  ciba: "an application's request you approved",
};

function sessionItem(session) {
  const li = document.createElement("li");
  li.className = "session";
  li.dataset.sessionId = session.id;
  if (session.current) li.dataset.current = "true";
  const label = document.createElement("span");
  const device = describeAgent(session.user_agent);
  const where = session.ip ? ` from ${session.ip}` : "";
  const apps = session.clients?.length ? `; applications: ${session.clients.join(", ")}` : "";
  label.textContent = `${device}${where}, by ${sessionMethodNames[session.method] ?? session.method}, ` +
    `last used ${formatTime(session.last_seen_at)}${session.current ? " (this browser)" : ""}${apps}`;
  li.append(label);
  if (!session.current) {
    const end = document.createElement("button");
    end.type = "button";
    end.className = "end-session";
    end.textContent = "End";
    end.addEventListener("click", () => {
      runCeremony("Ending the session…", async () => {
        await api("DELETE", `/me/sessions/${encodeURIComponent(session.id)}`);
        await refreshAccount();
        setStatus("ok", "Session ended");
      });
    });
    li.append(end);
  }
  return li;
}

// A short name for a User-Agent: the browser and the system, as far as they can be told.
function describeAgent(agent) {
  if (!agent) return "Unknown device";
  const browser = /Edg\//.test(agent) ? "Edge" : /Firefox\//.test(agent) ? "Firefox" : /Chrome\//.test(agent) ? "Chrome"
    : /Safari\//.test(agent) ? "Safari" : null;
  const system = /iPhone|iPad/.test(agent) ? "iOS" : /Android/.test(agent) ? "Android" : /Mac OS X/.test(agent) ? "macOS"
    : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : null;
  if (browser || system) return [browser, system].filter(Boolean).join(" on ");
  return agent.slice(0, 40);
}

function phoneItem(device) {
  const li = document.createElement("li");
  li.className = "phone";
  li.dataset.deviceId = device.deviceId;
  const label = document.createElement("span");
  const used = device.last_used_at ? `last used ${formatTime(device.last_used_at)}` : "never used";
  label.textContent = `${device.name} (${device.model}, ${device.key}), ${used}${device.disabled ? " — disabled by the push service" : ""}`;
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove-phone";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => {
    runCeremony("Removing the phone…", async () => {
      await api("DELETE", `/push/devices/${encodeURIComponent(device.deviceId)}`);
      await refreshAccount();
      setStatus("ok", "Phone removed");
    });
  });
  li.append(label, remove);
  return li;
}

export function showSignedOut() {
  state.account = null;
  el.enrol.hidden = true;
  state.lastCredentialId = null;
  state.activityCursor = null;
  el.passkeys.replaceChildren();
  el.sessions.replaceChildren();
  el.activity.replaceChildren();
  el.activityMore.hidden = true;
  el.whoami.textContent = "Signed in";
  delete el.whoami.dataset.userName;
  hideNewRecoveryCodes();
  hideWaitingRecoveries();
  el.recoveryWho.textContent = "";
  delete el.recoveryWho.dataset.userName;
  el.signedIn.hidden = true;
  el.recoveryView.hidden = true;
  el.signedOut.hidden = false;
}

// Loads /me; shows the account (or, for a recovery session, the recovery view) and returns
// true, or shows the sign-in view on 401.
export async function refreshAccount() {
  try {
    const account = await api("GET", "/me");
    if (account?.recovery) {
      // Everything else answers 403 recovery_only until a new passkey is registered.
      showRecovery(account);
      return true;
    }
    showSignedIn(account);
    await refreshSessions();
    await refreshApprovals();
    await refreshActivity();
    return true;
  } catch (error) {
    if (error instanceof ServerError && error.status === 401) {
      showSignedOut();
      return false;
    }
    throw error;
  }
}

el.displayNameForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const displayName = el.displayName.value.trim();
  runCeremony("Saving your display name…", async () => {
    await api("PATCH", "/me", { display_name: displayName });
    el.displayName.blur();
    if (await refreshAccount()) signalUserDetails(state.account);
    setStatus("ok", "Display name saved");
  });
});

el.activityMore.addEventListener("click", async () => {
  el.activityMore.disabled = true;
  try {
    await loadActivity(true);
  } catch (error) {
    setStatus("error", describeError(error), error);
  } finally {
    el.activityMore.disabled = false;
  }
});

// Deleting the account (docs/contracts/accounts.md): the user name typed to confirm; the server may ask for a
// passkey first (the step-up runs by itself). Afterwards the password manager is told that each
// of the account's passkeys is gone (Signal API), and the page is signed out.
el.deleteAccountForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const account = state.account;
  if (!account) return;
  const confirm = el.deleteConfirm.value.trim();
  if (confirm !== account.user_name) {
    setStatus("error", `Type ${account.user_name} exactly to delete this account.`);
    el.deleteConfirm.focus();
    return;
  }
  runCeremony("Deleting the account…", async () => {
    const result = await api("DELETE", "/me", { confirm });
    for (const id of result?.credential_ids ?? []) signalUnknown(account.rp_id, id);
    el.deleteConfirm.value = "";
    showSignedOut();
    setStatus("ok", "Account deleted");
  });
});
