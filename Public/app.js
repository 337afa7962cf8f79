// Passkey Server ceremony page: registration, sign-in (named, usernameless and
// autofill/conditional), and the signed-in account view. Talks to the endpoints
// in shared/spec/http-api.md. Plain ES2020 module, no dependencies.
//
// Page URL switches (for debugging and automated browsers):
// - `?json=manual` skips the browser's JSON helpers (parse*OptionsFromJSON,
//   PublicKeyCredential.toJSON) and uses the base64url fallbacks of js/webauthn-json.js, so both
//   paths can be exercised in a modern browser.
// - `?autofill=off` never starts the conditional-mediation (autofill) request.
//   Virtual authenticators answer such a request at once instead of waiting for
//   the user to pick a passkey, which would sign a test straight back in.
//
// The page is split into ES modules by view under js/, loaded by the browser as they are (no
// build step); this one starts it.

import { refreshAccount, showSignedOut } from "./js/account.js";
import { showAppleConfirm } from "./js/apple.js";
import { startConditional } from "./js/ceremonies.js";
import { ServerError, api, describeError, el, pageOptions, returnTo, setStatus, state } from "./js/shared.js";
import "./js/webauthn-json.js";
import "./js/push.js";

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
  if (returnTo && !state.account) setStatus("idle", "Sign in to continue in Messages.");
  if (!state.account) startConditional();
}

start();
