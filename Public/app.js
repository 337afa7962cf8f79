// Passkey Server ceremony page: registration, sign-in (named, usernameless and
// autofill/conditional), and the signed-in account view. Talks to the endpoints
// in docs/contracts/http-api.md. Plain ES2020 module, no dependencies.
//
// Page URL switches (for debugging and automated browsers):
// - `?json=manual` skips the browser's JSON helpers (parse*OptionsFromJSON,
//   PublicKeyCredential.toJSON) and uses the base64url fallbacks of js/webauthn-json.js, so both
//   paths can be exercised in a modern browser.
// - `?autofill=off` never starts the conditional-mediation (autofill) request.
//   Virtual authenticators answer such a request at once instead of waiting for
//   the user to pick a passkey, which would sign a test straight back in.
// - `?upgrade=off` never upgrades an account to a passkey by itself (conditional
//   create after a sign-in by another way), for the same reason.
//
// Fragments: `#add-passkey` (the passkey endpoints' `enroll`) and `#passkeys` (`manage`)
// bring the signed-in view's part forward; signed out, they lead to the sign-in form.
//
// The page is split into ES modules by view under js/, loaded by the browser as they are (no
// build step); this one starts it.

import { refreshAccount, showSignedOut } from "./js/account.js";
import { showAppleConfirm } from "./js/apple.js";
import { startConditional } from "./js/ceremonies.js";
import { continueDevice } from "./js/device.js";
import { takeMark, upgradeToPasskey } from "./js/upgrade.js";
import "./js/prf-note.js";
import {
  ServerError, api, authorization, describeError, deviceCode, el, followReturn, forwardRequirements, forwardTarget, invitation,
  pageOptions, returnTo, setStatus, state,
} from "./js/shared.js";
import "./js/webauthn-json.js";
import "./js/push.js";
import { resumeRecoveryWait } from "./js/recovery.js";

// ---------------------------------------------------------------- start-up

async function start() {
  if (typeof window.PublicKeyCredential !== "function" || !navigator.credentials) {
    setStatus("error", "This browser does not support passkeys (WebAuthn), or the page is not in a secure context.");
    showSignedOut();
    for (const button of [el.register, el.login]) button.disabled = true;
    return;
  }
  let health = null;
  try {
    health = await api("GET", "/healthz");
  } catch {
    health = null;
  }
  state.apple = Boolean(health?.sign_in_with_apple);
  el.siwa.hidden = !state.apple;
  // --registration invite or closed: no new accounts but by invitation, so the page does not
  // offer to make one (an invitation link brings the button back).
  if (health?.registration && health.registration !== "open") {
    el.register.hidden = true;
    el.usernameHint.textContent = "To sign in, leave it empty and pick your passkey, or type your name. This server does not create new accounts.";
  }
  // --recovery-codes off: no recovery form to offer.
  if (health && health.recovery_codes === false) {
    document.getElementById("recovery").hidden = true;
  }
  try {
    await refreshAccount();
  } catch (error) {
    showSignedOut();
    setStatus("error", describeError(error), error);
  }
  // A recovery this tab waits for (--recovery-delay) goes on waiting after a reload.
  if (!state.account) resumeRecoveryWait();
  // Back from Sign in with Apple's callback: report a refusal, or ask to confirm a link; then
  // clean the address.
  const appleError = pageOptions.get("error");
  if (appleError) {
    setStatus("error", `Sign in with Apple was refused: ${appleError}`, new ServerError(400, appleError, appleError));
    history.replaceState(null, "", location.pathname);
  }
  if (pageOptions.get("siwa") === "confirm-link") {
    if (state.account) showAppleConfirm();
    history.replaceState(null, "", location.pathname);
  }
  if (invitation) {
    await continueInvitation();
  } else if (deviceCode !== null) {
    await continueDevice();
  } else if (authorization) {
    await continueAuthorization();
  } else if (returnTo && !state.account) {
    setStatus("idle", "Sign in to continue to the application.");
  } else if (forwardTarget && state.account) {
    await offerForwardStepUp();
  }
  showFragment();
  if (!state.account) startConditional();
  // Back from a sign-in by another way (Apple): offer the passkey upgrade.
  if (takeMark() && state.account) await upgradeToPasskey();
}

// Signed in, and sent here by forward authentication: the address asks for more than this
// session has (a recent passkey ceremony, or a hardware-bound passkey). One button confirms
// with the passkey the rule needs and goes back.
async function offerForwardStepUp() {
  let needs;
  try {
    needs = await forwardRequirements();
  } catch (error) {
    setStatus("error", describeError(error), error);
    return;
  }
  el.forwardConfirmText.textContent = needs.satisfied
    ? "You are signed in. Continue to the application."
    : needs.acr === "phrh"
      ? "The application asks you to confirm it is you with your security key (a passkey bound to its device)."
      : "The application asks you to confirm it is you with your passkey.";
  el.forwardConfirmButton.textContent = needs.satisfied ? "Continue" : "Confirm and continue";
  el.forwardConfirm.hidden = false;
  el.forwardConfirmButton.addEventListener("click", async () => {
    el.forwardConfirmButton.disabled = true;
    try {
      await followReturn();
    } catch (error) {
      setStatus("error", describeError(error), error);
      el.forwardConfirmButton.disabled = false;
    }
  });
}

// A held OpenID request: the server sent the browser here because it needs a (new) passkey
// ceremony, so the sign-in form shows even with a session, names the application, and takes
// the request's login_hint; signing in (button or autofill) continues the request.
async function continueAuthorization() {
  let held;
  try {
    held = await api("GET", "/oauth/authorize/request?authorization=" + authorization);
  } catch (error) {
    setStatus("error", "This sign-in request has expired or was already finished. Go back to the application and start again.", error);
    return;
  }
  if (state.account) {
    state.account = null;
    showSignedOut();
  }
  if (held?.login_hint && !el.username.value) el.username.value = held.login_hint;
  const name = held?.client_name ?? "the application";
  setStatus("idle", held?.reauthenticate
    ? `Confirm with your passkey to continue to ${name}.`
    : `Sign in to continue to ${name}.`);
  el.continueTo.textContent = `Signing in to ${name}`;
  el.continueTo.hidden = false;
}

// An invitation or reset link: the page names the account, and "Create a passkey" registers one
// for it (the server spends the link; a reset ends the account's other sessions).
async function continueInvitation() {
  let invited;
  try {
    invited = await api("POST", "/invitation", { invite: invitation });
  } catch (error) {
    setStatus("error", describeError(error), error);
    return;
  }
  if (state.account) {
    state.account = null;
    showSignedOut();
  }
  el.register.hidden = false;
  if (invited.first_admin) {
    // The setup link: no account has the admin group yet; this one will.
    el.username.readOnly = false;
    el.continueTo.textContent = "First admin: choose your user name and create your passkey";
    el.continueTo.hidden = false;
    setStatus("idle", "This account becomes the server's first admin. The link works once, within an hour.");
    el.username.focus();
    return;
  }
  el.username.value = invited.user_name;
  el.username.readOnly = true;
  el.continueTo.textContent = invited.reset
    ? `Reset for ${invited.user_name}: create a new passkey for this account`
    : `Invitation for ${invited.user_name}: create your passkey`;
  el.continueTo.hidden = false;
  setStatus("idle", invited.reset
    ? "Create a new passkey. Your other sessions will end; your other passkeys stay (remove lost ones afterwards)."
    : "Create a passkey to open your account.");
}

// The passkey endpoints' views: the part of the page a fragment names.
function showFragment() {
  const target = { "#add-passkey": el.addPasskey, "#passkeys": el.passkeys }[location.hash];
  if (!target) return;
  if (!state.account) {
    setStatus("idle", "Sign in first to manage your passkeys.");
    el.username.focus();
    return;
  }
  target.scrollIntoView({ block: "center" });
  if (target === el.addPasskey) target.focus();
}

start();
