// Passkey Server ceremony page: registration, sign-in (named, usernameless and
// autofill/conditional), and the signed-in account view. Talks to the endpoints
// in shared/spec/http-api.md. Plain ES2020 module, no dependencies.
//
// Page URL switches (for debugging and automated browsers):
// - `?json=manual` skips the browser's JSON helpers (parse*OptionsFromJSON,
//   PublicKeyCredential.toJSON) and uses the base64url fallbacks below, so both
//   paths can be exercised in a modern browser.
// - `?autofill=off` never starts the conditional-mediation (autofill) request.
//   Virtual authenticators answer such a request at once instead of waiting for
//   the user to pick a passkey, which would sign a test straight back in.

const pageOptions = new URLSearchParams(location.search);
const useBrowserJSON = pageOptions.get("json") !== "manual";
const autofillEnabled = pageOptions.get("autofill") !== "off";
// Where to go once signed in: only the OAuth authorization endpoint of Messages
// for Business on this origin (it sends a browser without a session here with
// ?return=…); anything else would make the page an open redirect.
const returnTo = (() => {
  const value = pageOptions.get("return");
  if (!value) return null;
  try {
    const url = new URL(value, location.origin);
    return url.origin === location.origin && url.pathname === "/mfb/authorize" ? url.href : null;
  } catch {
    return null;
  }
})();

// After a sign-in: back to where the sign-in was asked for, when there is such a place.
function followReturn() {
  if (!returnTo) return false;
  setStatus("busy", "Signed in; returning to Messages…");
  location.assign(returnTo);
  return true;
}

const el = {
  signedOut: document.querySelector("#signed-out"),
  signedIn: document.querySelector("#signed-in"),
  form: document.querySelector("#ceremony-form"),
  username: document.querySelector("#username"),
  register: document.querySelector("#register"),
  login: document.querySelector("#login"),
  whoami: document.querySelector("#whoami"),
  passkeys: document.querySelector("#passkeys"),
  addPasskey: document.querySelector("#add-passkey"),
  logout: document.querySelector("#logout"),
  pushLogin: document.querySelector("#push-login"),
  pushWait: document.querySelector("#push-wait"),
  pushNumber: document.querySelector("#push-number"),
  pushCancel: document.querySelector("#push-cancel"),
  phones: document.querySelector("#phones"),
  addPhone: document.querySelector("#add-phone"),
  enrol: document.querySelector("#enrol"),
  enrolQR: document.querySelector("#enrol-qr"),
  enrolJSON: document.querySelector("#enrol-json"),
  siwa: document.querySelector("#siwa"),
  siwaLink: document.querySelector("#siwa-link"),
  siwaUnlink: document.querySelector("#siwa-unlink"),
  appleLink: document.querySelector("#apple-link"),
  activity: document.querySelector("#activity"),
  activityMore: document.querySelector("#activity-more"),
  status: document.querySelector("#status"),
};

const state = {
  account: null,          // the /me body while signed in, else null
  busy: false,
  conditional: null,      // {controller, done} while an autofill request is pending
  lastCredentialId: null, // credential used by the latest ceremony, highlighted in the list
  activityCursor: null,   // next_before of the last /me/events page, null on the last page
  apple: false,           // Sign in with Apple is on (GET /healthz)
  pushWatch: null,        // {cancelled} while the page waits for a phone's answer
};

// ---------------------------------------------------------------- base64url

function bufferToBase64url(value) {
  const bytes = value instanceof ArrayBuffer
    ? new Uint8Array(value)
    : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// Accepts base64url with or without padding, and plain base64.
function base64urlToBuffer(text) {
  const b64 = String(text).replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

// ------------------------------------------------------- options from JSON

function descriptorsFromJSON(list) {
  return (list ?? []).map((d) => ({ ...d, id: base64urlToBuffer(d.id) }));
}

function creationOptionsFromJSON(json) {
  if (useBrowserJSON && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: base64urlToBuffer(json.challenge),
    user: { ...json.user, id: base64urlToBuffer(json.user.id) },
    excludeCredentials: descriptorsFromJSON(json.excludeCredentials),
  };
}

function requestOptionsFromJSON(json) {
  if (useBrowserJSON && typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  const options = { ...json, challenge: base64urlToBuffer(json.challenge) };
  if (json.allowCredentials !== undefined) {
    options.allowCredentials = descriptorsFromJSON(json.allowCredentials);
  }
  return options;
}

// ------------------------------------------------------ credential to JSON

function commonCredentialJSON(credential, response) {
  const json = {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults?.() ?? {},
  };
  if (credential.authenticatorAttachment) {
    json.authenticatorAttachment = credential.authenticatorAttachment;
  }
  return json;
}

// RegistrationResponseJSON (WebAuthn L3 §5.1).
function registrationToJSON(credential) {
  if (useBrowserJSON && typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = {
    clientDataJSON: bufferToBase64url(r.clientDataJSON),
    attestationObject: bufferToBase64url(r.attestationObject),
    transports: typeof r.getTransports === "function" ? r.getTransports() : [],
  };
  if (typeof r.getAuthenticatorData === "function") {
    response.authenticatorData = bufferToBase64url(r.getAuthenticatorData());
  }
  if (typeof r.getPublicKeyAlgorithm === "function") {
    response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
  }
  const publicKey = typeof r.getPublicKey === "function" ? r.getPublicKey() : null;
  if (publicKey) response.publicKey = bufferToBase64url(publicKey);
  return commonCredentialJSON(credential, response);
}

// AuthenticationResponseJSON (WebAuthn L3 §5.1).
function assertionToJSON(credential) {
  if (useBrowserJSON && typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = {
    clientDataJSON: bufferToBase64url(r.clientDataJSON),
    authenticatorData: bufferToBase64url(r.authenticatorData),
    signature: bufferToBase64url(r.signature),
  };
  if (r.userHandle) response.userHandle = bufferToBase64url(r.userHandle);
  return commonCredentialJSON(credential, response);
}

// ------------------------------------------------------------------- server

class ServerError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ServerError";
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = typeof data?.message === "string" && data.message
      ? data.message
      : `The server answered ${response.status} ${response.statusText}.`.replace(" .", ".");
    throw new ServerError(response.status, data?.error ?? `http_${response.status}`, message);
  }
  return data;
}

function describeError(error) {
  if (error instanceof ServerError) return error.message;
  if (error instanceof DOMException || error?.name?.endsWith?.("Error")) {
    switch (error.name) {
      case "NotAllowedError":
        return "The passkey request was cancelled or timed out.";
      case "InvalidStateError":
        return "This authenticator already holds a passkey for this account.";
      case "AbortError":
        return "The passkey request was aborted.";
      case "SecurityError":
        return "The browser refused the request: this page's address does not match the relying party.";
      case "NotSupportedError":
        return "This authenticator does not support the requested options.";
      case "TypeError":
        if (error.message.includes("fetch")) return "Could not reach the server.";
        break;
      default:
        break;
    }
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}

// ----------------------------------------------------------------- the view

// `data-state` is idle | busy | ok | error; on error `data-error` carries the server's
// error code or the browser's DOMException name, for scripts and tests.
function setStatus(kind, text, error) {
  el.status.dataset.state = kind;
  el.status.textContent = text;
  if (kind === "error" && error !== undefined) {
    el.status.dataset.error = error instanceof ServerError ? error.code : (error?.name ?? "Error");
  } else {
    delete el.status.dataset.error;
  }
}

function setBusy(busy) {
  state.busy = busy;
  document.body.setAttribute("aria-busy", busy ? "true" : "false");
  for (const button of [el.register, el.login, el.addPasskey, el.logout, el.siwa, el.siwaLink, el.siwaUnlink, el.pushLogin, el.addPhone]) {
    button.disabled = busy;
  }
}

function formatTime(iso) {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function timeElement(iso, fallback) {
  if (!iso) {
    const span = document.createElement("span");
    span.textContent = fallback;
    return span;
  }
  const time = document.createElement("time");
  time.dateTime = iso;
  time.textContent = formatTime(iso);
  time.title = iso;
  return time;
}

function detail(list, term, value, className) {
  const dt = document.createElement("dt");
  dt.textContent = term;
  const dd = document.createElement("dd");
  if (className) dd.className = className;
  if (value instanceof Node) dd.append(value);
  else dd.textContent = value;
  list.append(dt, dd);
}

function badge(text, className) {
  const span = document.createElement("span");
  span.className = `badge ${className}`;
  span.textContent = text;
  return span;
}

function passkeyItem(credential) {
  const li = document.createElement("li");
  li.className = "passkey";
  li.dataset.credentialId = credential.credential_id;
  li.dataset.signCount = String(credential.sign_count ?? 0);
  li.dataset.lastUsed = credential.last_used_at ?? "";
  li.dataset.possiblyCloned = credential.possibly_cloned ? "true" : "false";

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
    const warning = document.createElement("p");
    warning.className = "warning cloned";
    warning.textContent =
      "Warning: this passkey's signature counter went backwards once. It may have been cloned; " +
      "consider removing it from your authenticator and creating a new one.";
    li.append(warning);
  }
  return li;
}

function showSignedIn(account) {
  state.account = account;
  const shown = account.display_name && account.display_name !== account.user_name
    ? `${account.display_name} (${account.user_name})`
    : account.user_name;
  el.whoami.textContent = `Signed in as ${shown}`;
  el.whoami.dataset.userName = account.user_name;
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
  const apple = account.apple ?? null;
  el.appleLink.hidden = !apple;
  el.appleLink.textContent = apple
    ? `Apple ID linked${apple.email ? ` (${apple.email}${apple.is_private_email ? ", private relay" : ""})` : ""}.`
    : "";
  el.siwaLink.hidden = !state.apple || Boolean(apple);
  el.siwaUnlink.hidden = !apple;
  el.signedOut.hidden = true;
  el.signedIn.hidden = false;
}

// ----------------------------------------------------------- recent activity

const methodNames = { passkey: "a passkey", apple: "Apple", push: "a push notification", mfb: "Messages for Business" };

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
async function loadActivity(older) {
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
async function refreshActivity() {
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

function showSignedOut() {
  state.account = null;
  el.enrol.hidden = true;
  state.lastCredentialId = null;
  state.activityCursor = null;
  el.passkeys.replaceChildren();
  el.activity.replaceChildren();
  el.activityMore.hidden = true;
  el.whoami.textContent = "Signed in";
  delete el.whoami.dataset.userName;
  el.signedIn.hidden = true;
  el.signedOut.hidden = false;
}

// Loads /me; shows the account and returns true, or shows the sign-in view on 401.
async function refreshAccount() {
  try {
    showSignedIn(await api("GET", "/me"));
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

// ---------------------------------------------------------- conditional UI

// Starts the autofill request: passkeys show in the #username suggestions, and
// picking one signs in. Its challenge expires on the server, so the request is
// renewed shortly before the options' timeout.
function startConditional() {
  if (!autofillEnabled || state.conditional || state.account) return;
  if (typeof PublicKeyCredential?.isConditionalMediationAvailable !== "function") return;
  const controller = new AbortController();
  let renewal = null;
  const renewAfter = (ms) => {
    renewal = setTimeout(() => {
      if (state.conditional?.controller !== controller) return;
      stopConditional().then(startConditional);
    }, ms);
  };
  const done = conditionalCeremony(controller.signal, renewAfter).catch((error) => {
    if (controller.signal.aborted || error?.name === "AbortError") return;
    console.warn("Passkey autofill ended:", error);
  }).finally(() => {
    clearTimeout(renewal);
    if (state.conditional?.controller === controller) state.conditional = null;
  });
  state.conditional = { controller, done };
}

async function conditionalCeremony(signal, renewAfter) {
  if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
  if (signal.aborted) return;
  const { publicKey } = await api("GET", "/authentication_initialize");
  if (signal.aborted) return;
  const timeout = Number.isFinite(publicKey.timeout) ? publicKey.timeout : 300000;
  renewAfter(Math.max(30000, timeout - 15000));
  const credential = await navigator.credentials.get({
    mediation: "conditional",
    publicKey: requestOptionsFromJSON(publicKey),
    signal,
  });
  if (signal.aborted || !credential) return;
  // The user picked a passkey from the autofill list.
  state.conditional = null;
  setBusy(true);
  setStatus("busy", "Signing in…");
  try {
    await finishSignIn(credential, publicKey);
  } catch (error) {
    setStatus("error", describeError(error), error);
  } finally {
    setBusy(false);
    // Offer autofill again once the user returns to the field, not at once: a
    // browser that answers autofill requests by itself would loop on the error.
    if (!state.account) el.username.addEventListener("focus", startConditional, { once: true });
  }
}

async function stopConditional() {
  const pending = state.conditional;
  if (!pending) return;
  state.conditional = null;
  pending.controller.abort();
  await pending.done;
}

// ---------------------------------------------------------------- ceremonies

// WebAuthn L3 signal API, where the browser has it; best effort.
function signalUnknown(rpId, credentialId) {
  if (typeof PublicKeyCredential.signalUnknownCredential !== "function") return;
  PublicKeyCredential.signalUnknownCredential({ rpId: rpId ?? location.hostname, credentialId })
    .catch(() => {});
}

// Sends the assertion. `publicKey` is the request options JSON it answers.
async function finishSignIn(credential, publicKey) {
  let result;
  try {
    result = await api("POST", "/authentication_finalize", assertionToJSON(credential));
  } catch (error) {
    // A discoverable passkey the server does not hold (deleted account, reset
    // database): tell the authenticator so it stops offering it (WebAuthn L3
    // signal API). Only without allowCredentials: in a named ceremony the
    // refusal says nothing about the passkey itself.
    const discoverable = !(publicKey.allowCredentials?.length);
    if (discoverable && error instanceof ServerError && error.code === "unknown_credential") {
      signalUnknown(publicKey.rpId, credential.id);
    }
    throw error;
  }
  state.lastCredentialId = result?.credential_id ?? credential.id;
  if (followReturn()) return;
  await refreshAccount();
  setStatus("ok", `Signed in as ${result?.user_name ?? state.account?.user_name ?? "you"}`);
}

async function register(userName) {
  const { publicKey } = await api("POST", "/registration_initialize", { user_name: userName });
  const credential = await navigator.credentials.create({ publicKey: creationOptionsFromJSON(publicKey) });
  let result;
  try {
    result = await api("POST", "/registration_finalize", registrationToJSON(credential));
  } catch (error) {
    // The server refused the new passkey and stored nothing (a 400; not a 409
    // credential_exists, whose passkey is registered): tell the authenticator,
    // so it does not keep offering a passkey that cannot sign in.
    if (error instanceof ServerError && error.status === 400) {
      signalUnknown(publicKey.rp?.id, credential.id);
    }
    throw error;
  }
  state.lastCredentialId = result?.credential_id ?? credential.id;
  if (followReturn()) return;
  await refreshAccount();
  setStatus("ok", `Passkey created for ${result?.user_name ?? userName}`);
}

async function signIn(userName) {
  const { publicKey } = userName
    ? await api("POST", "/authentication_initialize", { user_name: userName })
    : await api("GET", "/authentication_initialize");
  const credential = await navigator.credentials.get({ publicKey: requestOptionsFromJSON(publicKey) });
  await finishSignIn(credential, publicKey);
}

// Runs one modal ceremony from a button: stops autofill first, reports the outcome.
async function runCeremony(busyText, ceremony) {
  if (state.busy) return;
  setBusy(true);
  setStatus("busy", busyText);
  try {
    await stopConditional();
    await ceremony();
  } catch (error) {
    setStatus("error", describeError(error), error);
  } finally {
    setBusy(false);
    if (!state.account) startConditional();
  }
}

el.register.addEventListener("click", () => {
  const userName = el.username.value.trim();
  if (!userName) {
    setStatus("error", "Type a user name to create a passkey for.");
    el.username.focus();
    return;
  }
  runCeremony(`Creating a passkey for ${userName}…`, () => register(userName));
});

el.form.addEventListener("submit", (event) => {
  event.preventDefault();
  const userName = el.username.value.trim();
  runCeremony(userName ? `Signing in as ${userName}…` : "Signing in…", () => signIn(userName));
});

el.addPasskey.addEventListener("click", () => {
  const userName = state.account?.user_name;
  if (!userName) return;
  runCeremony(`Creating another passkey for ${userName}…`, () => register(userName));
});

el.logout.addEventListener("click", () => {
  runCeremony("Signing out…", async () => {
    await api("POST", "/logout");
    showSignedOut();
    setStatus("ok", "Signed out");
  });
});

// ------------------------------------------------------------ push sign-in

const pushMessages = {
  denied: "The sign-in was denied on your phone.",
  expired: "The request expired before your phone answered.",
  number_mismatch: "The number chosen on your phone did not match; the request was cancelled.",
};

// Sends a push to the user's phones and waits for the answer, showing the number to match.
async function pushSignIn(userName) {
  const started = await api("POST", "/push/authentication_initialize", { user_name: userName });
  const watch = { cancelled: false };
  state.pushWatch = watch;
  el.pushNumber.textContent = started.numberChallenge ?? "";
  el.pushWait.hidden = false;
  el.pushWait.querySelector("p").hidden = started.numberChallenge === null;
  try {
    while (!watch.cancelled) {
      const answer = await api("GET", `/push/authentication_status?watch=${encodeURIComponent(started.watch)}`);
      if (answer.status === "approved") {
        if (followReturn()) return;
        await refreshAccount();
        setStatus("ok", `Signed in as ${answer.user_name ?? state.account?.user_name ?? userName} with your phone`);
        return;
      }
      if (answer.status !== "pending") {
        throw new ServerError(400, answer.status, pushMessages[answer.status] ?? answer.status);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    setStatus("idle", "");
  } finally {
    state.pushWatch = null;
    el.pushWait.hidden = true;
  }
}

el.pushLogin.addEventListener("click", () => {
  const userName = el.username.value.trim();
  if (!userName) {
    setStatus("error", "Type your user name to get a push on your phone.");
    el.username.focus();
    return;
  }
  runCeremony(`Sending a push to ${userName}'s phones…`, () => pushSignIn(userName));
});

el.pushCancel.addEventListener("click", () => {
  if (state.pushWatch) state.pushWatch.cancelled = true;
});

el.addPhone.addEventListener("click", () => {
  runCeremony("Preparing the QR code…", async () => {
    const discovery = await api("POST", "/push/devices/discovery");
    const { qr_svg: svg, ...data } = discovery;
    el.enrolQR.innerHTML = svg;
    el.enrolJSON.textContent = JSON.stringify(data);
    el.enrol.dataset.deviceId = data.deviceId;
    el.enrol.hidden = false;
    setStatus("ok", "Scan the QR code with the authenticator app");
    watchEnrolment(data.deviceId);
  });
});

// Polls /me while the QR code shows, until the phone has registered (or the code expired).
async function watchEnrolment(deviceId) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline && !el.enrol.hidden && el.enrol.dataset.deviceId === deviceId) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    let account;
    try {
      account = await api("GET", "/me");
    } catch {
      return;
    }
    if ((account.push_devices ?? []).some((device) => device.deviceId === deviceId)) {
      el.enrol.hidden = true;
      showSignedIn(account);
      await refreshActivity();
      setStatus("ok", "Phone added");
      return;
    }
  }
  if (el.enrol.dataset.deviceId === deviceId) el.enrol.hidden = true;
}

// Sign in with Apple, web flow: Apple's page posts the token back to /siwa/callback, which
// redirects here (with ?error=CODE when it was refused). Signed in, the state links the Apple ID.
async function startAppleSignIn() {
  const { authorize_url: url } = await api("GET", "/siwa/initialize");
  location.assign(url);
}

for (const button of [el.siwa, el.siwaLink]) {
  button.addEventListener("click", () => {
    runCeremony("Opening Sign in with Apple…", startAppleSignIn);
  });
}

el.siwaUnlink.addEventListener("click", () => {
  runCeremony("Unlinking the Apple ID…", async () => {
    await api("DELETE", "/siwa/link");
    await refreshAccount();
    setStatus("ok", "Apple ID unlinked");
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

// ---------------------------------------------------------------- start-up

async function start() {
  if (typeof window.PublicKeyCredential !== "function" || !navigator.credentials) {
    setStatus("error", "This browser does not support passkeys (WebAuthn), or the page is not in a secure context.");
    showSignedOut();
    for (const button of [el.register, el.login]) button.disabled = true;
    return;
  }
  try {
    state.apple = Boolean((await api("GET", "/healthz"))?.sign_in_with_apple);
  } catch {
    state.apple = false;
  }
  el.siwa.hidden = !state.apple;
  try {
    await refreshAccount();
  } catch (error) {
    showSignedOut();
    setStatus("error", describeError(error), error);
  }
  // Back from Sign in with Apple's callback: report a refusal, then clean the address.
  const appleError = pageOptions.get("error");
  if (appleError) {
    setStatus("error", `Sign in with Apple was refused: ${appleError}`, new ServerError(400, appleError, appleError));
    history.replaceState(null, "", location.pathname);
  }
  if (returnTo && !state.account) setStatus("idle", "Sign in to continue in Messages.");
  if (!state.account) startConditional();
}

start();
