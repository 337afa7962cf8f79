// Sign in with Apple, web flow.

import { refreshAccount } from "./account.js";
import { runCeremony } from "./ceremonies.js";
import { api, el, setStatus } from "./shared.js";

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
