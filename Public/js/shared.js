// The page's shared parts: its URL switches, the elements, the state, the JSON API client and
// its errors, and the status line.

export const pageOptions = new URLSearchParams(location.search);
export const useBrowserJSON = pageOptions.get("json") !== "manual";
export const autofillEnabled = pageOptions.get("autofill") !== "off";
export const upgradeEnabled = pageOptions.get("upgrade") !== "off";
// A held OpenID authorization request (docs/contracts/identity.md): the server sends a browser that must
// sign in first here with ?authorization=HANDLE, and the page continues it once signed in.
export const authorization = (() => {
  const value = pageOptions.get("authorization");
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
})();

// An operator's invitation or reset link (docs/contracts/accounts.md): /?invite=TOKEN registers a passkey for
// the account it names.
// The first admin's setup link, /setup?token=TOKEN, is one too: its registrant names the account.
export const invitation = (() => {
  const value = location.pathname === "/setup" ? pageOptions.get("token") : pageOptions.get("invite");
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
})();

// The device flow's page (GET /device, docs/contracts/identity.md): the user code it was opened with, "" when
// none was given; null on any other path.
export const deviceCode = location.pathname === "/device" ? (pageOptions.get("user_code") ?? "").slice(0, 32) : null;

// Where to go once signed in: the resumption of a held OpenID request (Messages for Business's
// device among them), or /auth/return with forward authentication's ?rd= (which checks it);
// anything else would make the page an open redirect.
export const returnTo = (() => {
  // Signing in on the device page comes back to it, to approve the same code.
  if (deviceCode) return new URL("/device?user_code=" + encodeURIComponent(deviceCode), location.origin).href;
  if (authorization) return new URL("/oauth/authorize/resume?authorization=" + authorization, location.origin).href;
  // Forward authentication's ?rd=URL: the server's /auth/return decides whether to go there.
  const rd = pageOptions.get("rd");
  return rd ? new URL("/auth/return?rd=" + encodeURIComponent(rd), location.origin).href : null;
})();

// Forward authentication's ?rd=URL, when that is where the page returns to.
export const forwardTarget = !deviceCode && !authorization ? pageOptions.get("rd") : null;

// What the rule for forward authentication's ?rd= asks of this session (GET
// /auth/requirements): {acr, max_age, satisfied}.
export function forwardRequirements() {
  return api("GET", "/auth/requirements?rd=" + encodeURIComponent(forwardTarget));
}

// After a sign-in: back to where the sign-in was asked for, when there is such a place. For
// forward authentication, first the step-up its rule needs (a fresh passkey ceremony, or one
// with a passkey of the rule's class), which the server checks again at /auth/return's target.
export async function followReturn() {
  if (!returnTo) return false;
  if (forwardTarget) {
    const needs = await forwardRequirements();
    if (!needs.satisfied && (needs.acr || needs.max_age)) await stepUp.run(needs.acr);
  }
  setStatus("busy", deviceCode ? "Signed in; back to the device…"
    : "Signed in; continuing to the application…");
  location.assign(returnTo);
  return true;
}

export const el = {
  continueTo: document.querySelector("#continue-to"),
  forwardConfirm: document.querySelector("#forward-confirm"),
  forwardConfirmText: document.querySelector("#forward-confirm-text"),
  forwardConfirmButton: document.querySelector("#forward-confirm-button"),
  device: document.querySelector("#device"),
  deviceForm: document.querySelector("#device-form"),
  deviceCode: document.querySelector("#device-code"),
  deviceAsk: document.querySelector("#device-ask"),
  deviceQuestion: document.querySelector("#device-question"),
  deviceShownCode: document.querySelector("#device-shown-code"),
  deviceApprove: document.querySelector("#device-approve"),
  deviceDeny: document.querySelector("#device-deny"),
  deviceDone: document.querySelector("#device-done"),
  signedOut: document.querySelector("#signed-out"),
  signedIn: document.querySelector("#signed-in"),
  form: document.querySelector("#ceremony-form"),
  username: document.querySelector("#username"),
  usernameHint: document.querySelector("#username-hint"),
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
  applications: document.querySelector("#applications"),
  approvals: document.querySelector("#approvals"),
  approvalsSection: document.querySelector("#approvals-section"),
  sessions: document.querySelector("#sessions"),
  deleteAccountForm: document.querySelector("#delete-account-form"),
  deleteConfirm: document.querySelector("#delete-confirm"),
  addPhone: document.querySelector("#add-phone"),
  enrol: document.querySelector("#enrol"),
  enrolQR: document.querySelector("#enrol-qr"),
  enrolJSON: document.querySelector("#enrol-json"),
  siwa: document.querySelector("#siwa"),
  siwaLink: document.querySelector("#siwa-link"),
  siwaUnlink: document.querySelector("#siwa-unlink"),
  appleLink: document.querySelector("#apple-link"),
  appleConfirm: document.querySelector("#apple-confirm"),
  appleConfirmLink: document.querySelector("#apple-confirm-link"),
  appleConfirmCancel: document.querySelector("#apple-confirm-cancel"),
  displayNameForm: document.querySelector("#display-name-form"),
  displayName: document.querySelector("#display-name"),
  prfText: document.querySelector("#prf-text"),
  prfEncrypt: document.querySelector("#prf-encrypt"),
  prfDecrypt: document.querySelector("#prf-decrypt"),
  activity: document.querySelector("#activity"),
  activityMore: document.querySelector("#activity-more"),
  recovery: document.querySelector("#recovery"),
  recoveryForm: document.querySelector("#recovery-form"),
  recoveryName: document.querySelector("#recovery-name"),
  recoveryCode: document.querySelector("#recovery-code"),
  recoverySubmit: document.querySelector("#recovery-submit"),
  recoveryView: document.querySelector("#recovery-view"),
  recoveryWho: document.querySelector("#recovery-who"),
  recoveryRegister: document.querySelector("#recovery-register"),
  recoveryLogout: document.querySelector("#recovery-logout"),
  recoveryCodes: document.querySelector("#recovery-codes"),
  recoveryCodesLeft: document.querySelector("#recovery-codes-left"),
  makeRecoveryCodes: document.querySelector("#make-recovery-codes"),
  recoveryCodesNew: document.querySelector("#recovery-codes-new"),
  recoveryCodesList: document.querySelector("#recovery-codes-list"),
  recoveryCodesDone: document.querySelector("#recovery-codes-done"),
  recoveryWaiting: document.querySelector("#recovery-waiting"),
  recoveryWaitingText: document.querySelector("#recovery-waiting-text"),
  recoveryCountdown: document.querySelector("#recovery-countdown"),
  recoveryCheck: document.querySelector("#recovery-check"),
  recoveryWaitingNow: document.querySelector("#recovery-waiting-now"),
  recoveryEnded: document.querySelector("#recovery-ended"),
  recoveryBanner: document.querySelector("#recovery-banner"),
  recoveryBannerList: document.querySelector("#recovery-banner-list"),
  status: document.querySelector("#status"),
};

export const state = {
  account: null,          // the /me body while signed in (a recovery session's too), else null
  busy: false,
  conditional: null,      // {controller, done} while an autofill request is pending
  lastCredentialId: null, // credential used by the latest ceremony, highlighted in the list
  activityCursor: null,   // next_before of the last /me/events page, null on the last page
  apple: false,           // Sign in with Apple is on (GET /healthz)
  pushWatch: null,        // {cancelled} while the page waits for a phone's answer
};

// ------------------------------------------------------------------- server

export class ServerError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ServerError";
    this.status = status;
    this.code = code;
  }
}

// The step-up (docs/contracts/accounts.md): set by step-up.js to a function that runs the
// {"reauthenticate": true} ceremony (with an acr, only with a passkey of that class). A request refused with 401 reauthentication_required runs
// it, then is sent once more.
export const stepUp = { run: null };

export async function api(method, path, body, retried = false) {
  try {
    return await send(method, path, body);
  } catch (error) {
    if (!retried && stepUp.run && error instanceof ServerError && error.code === "reauthentication_required") {
      await stepUp.run();
      return api(method, path, body, true);
    }
    throw error;
  }
}

async function send(method, path, body) {
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

export function describeError(error) {
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
export function setStatus(kind, text, error) {
  el.status.dataset.state = kind;
  el.status.textContent = text;
  if (kind === "error" && error !== undefined) {
    el.status.dataset.error = error instanceof ServerError ? error.code : (error?.name ?? "Error");
  } else {
    delete el.status.dataset.error;
  }
}

export function setBusy(busy) {
  state.busy = busy;
  document.body.setAttribute("aria-busy", busy ? "true" : "false");
  for (const button of [el.register, el.login, el.addPasskey, el.logout, el.siwa, el.siwaLink, el.siwaUnlink, el.pushLogin, el.addPhone,
    el.recoverySubmit, el.recoveryRegister, el.recoveryLogout, el.makeRecoveryCodes]) {
    if (button) button.disabled = busy;
  }
}

export function formatTime(iso) {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function timeElement(iso, fallback) {
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

export function detail(list, term, value, className) {
  const dt = document.createElement("dt");
  dt.textContent = term;
  const dd = document.createElement("dd");
  if (className) dd.className = className;
  if (value instanceof Node) dd.append(value);
  else dd.textContent = value;
  list.append(dt, dd);
}

export function badge(text, className) {
  const span = document.createElement("span");
  span.className = `badge ${className}`;
  span.textContent = text;
  return span;
}
