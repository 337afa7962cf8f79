// The step-up (docs/contracts/accounts.md): a request refused with 401 reauthentication_required is sent once
// more after this ceremony; forward authentication's return runs it with the class its rule asks. It confirms with one of the account's own passkeys, user
// verification required; the server renews the session (no new one, no new cookie). Shared by
// the account page and the admin page (/admin): importing this module sets `stepUp.run`.
//
// Requests that hit the refusal at the same time share one ceremony: a browser runs only one
// navigator.credentials.get() at a time.

import { api, setStatus, stepUp } from "./shared.js";
import { assertionToJSON, requestOptionsFromJSON } from "./webauthn-json.js";

let pending = null;

async function reauthenticate(acr) {
  setStatus("busy", acr === "phrh"
    ? "Confirm it is you with your security key (a passkey bound to its device)…"
    : "Confirm it is you with your passkey…");
  const body = acr ? { reauthenticate: true, acr } : { reauthenticate: true };
  const { publicKey } = await api("POST", "/authentication_initialize", body, true);
  const credential = await navigator.credentials.get({ publicKey: requestOptionsFromJSON(publicKey) });
  await api("POST", "/authentication_finalize", assertionToJSON(credential), true);
}

stepUp.run = (acr) => {
  pending ??= reauthenticate(acr).finally(() => {
    pending = null;
  });
  return pending;
};
