// Sign in with Apple, web flow.

import { refreshAccount } from "./account.js";
import { runCeremony } from "./ceremonies.js";
import { api, el, setStatus } from "./shared.js";
import { markSignInByAnotherWay } from "./upgrade.js";

// Sign in with Apple, web flow: Apple's page posts the token back to /siwa/callback, which
// redirects here (with ?error=CODE when it was refused). Signed in, the callback links nothing:
// it redirects here with ?siwa=confirm-link, and the account's owner confirms the link.
async function startAppleSignIn() {
  const { authorize_url: url } = await api("GET", "/siwa/initialize");
  markSignInByAnotherWay();
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

// Back from the callback with a link to confirm: ask the signed-in owner first.
export function showAppleConfirm() {
  el.appleConfirm.hidden = false;
  setStatus("idle", "Confirm the link of your Apple ID to this account.");
}

el.appleConfirmLink.addEventListener("click", () => {
  runCeremony("Linking the Apple ID…", async () => {
    await api("POST", "/siwa/link/confirm", {});
    el.appleConfirm.hidden = true;
    await refreshAccount();
    setStatus("ok", "Apple ID linked");
  });
});

el.appleConfirmCancel.addEventListener("click", () => {
  el.appleConfirm.hidden = true;
  setStatus("idle", "The Apple ID was not linked.");
});
