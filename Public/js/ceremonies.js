// Passkey ceremonies: registration, sign-in (named, usernameless, autofill) and signing out.

import { refreshAccount, showSignedOut } from "./account.js";
import { ServerError, api, autofillEnabled, describeError, el, followReturn, invitation, setBusy, setStatus, state } from "./shared.js";
import { signalAccepted, signalUnknown } from "./signals.js";
// The step-up (a 401 reauthentication_required runs it, then the request is retried).
import "./step-up.js";
import { assertionToJSON, creationOptionsFromJSON, registrationToJSON, requestOptionsFromJSON } from "./webauthn-json.js";

// ---------------------------------------------------------- conditional UI

// Starts the autofill request: passkeys show in the #username suggestions, and
// picking one signs in. Its challenge expires on the server, so the request is
// renewed shortly before the options' timeout.
export function startConditional() {
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

export async function stopConditional() {
  const pending = state.conditional;
  if (!pending) return;
  state.conditional = null;
  pending.controller.abort();
  await pending.done;
}

// ---------------------------------------------------------------- ceremonies

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
  if (await followReturn()) return;
  await refreshAccount();
  // The passkeys the account has now: the password manager hides any it no longer has.
  signalAccepted(state.account);
  setStatus("ok", `Signed in as ${result?.user_name ?? state.account?.user_name ?? "you"}`);
}

export async function register(userName) {
  // Through an invitation link only while signed out (a signed-in user adds a passkey as usual).
  const invite = invitation && !state.account ? { invite: invitation } : {};
  const { publicKey } = await api("POST", "/registration_initialize", { user_name: userName, prf: true, ...invite });
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
  if (invite.invite) {
    // The first admin goes on to the admin page.
    if (location.pathname === "/setup") {
      location.assign("/admin");
      return;
    }
    // The link is spent: drop it from the address, and let the name be edited again.
    history.replaceState(null, "", "/");
    el.username.readOnly = false;
    el.continueTo.hidden = true;
  }
  if (await followReturn()) return;
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
export async function runCeremony(busyText, ceremony) {
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
