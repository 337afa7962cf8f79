// Automatic passkey upgrades (WebAuthn Level 3 conditional create): after a sign-in by another
// way (Sign in with Apple, a phone), an account with no passkey gets one without a dialog where
// the browser offers it. Never blocking: any refusal leaves the page as it was.

import { refreshAccount } from "./account.js";
import { api, setStatus, state, upgradeEnabled } from "./shared.js";
import { creationOptionsFromJSON, registrationToJSON } from "./webauthn-json.js";

const pendingKey = "passkey-upgrade-after-sign-in";

// Remembers, across the redirect of a sign-in by another way, that one is under way.
export function markSignInByAnotherWay() {
  if (upgradeEnabled) sessionStorage.setItem(pendingKey, "1");
}

// True once after a marked sign-in has come back to the page.
export function takeMark() {
  const marked = sessionStorage.getItem(pendingKey) === "1";
  sessionStorage.removeItem(pendingKey);
  return marked;
}

async function conditionalCreateOffered() {
  if (typeof PublicKeyCredential?.getClientCapabilities !== "function") return false;
  try {
    const capabilities = await PublicKeyCredential.getClientCapabilities();
    return capabilities?.conditionalCreate === true;
  } catch {
    return false;
  }
}

// Creates a passkey for the signed-in account when it has none and the browser offers
// conditional creation. Resolves to true when one was added.
export async function upgradeToPasskey() {
  const account = state.account;
  if (!upgradeEnabled || !account || (account.credentials ?? []).length > 0) return false;
  if (!(await conditionalCreateOffered())) return false;
  try {
    const { publicKey } = await api("POST", "/registration_initialize", {
      user_name: account.user_name,
      mediation: "conditional",
    });
    const credential = await navigator.credentials.create({
      mediation: "conditional",
      publicKey: creationOptionsFromJSON(publicKey),
    });
    if (!credential) return false;
    await api("POST", "/registration_finalize", registrationToJSON(credential));
    await refreshAccount();
    setStatus("ok", "A passkey was added to your account: next time, sign in with it.");
    return true;
  } catch (error) {
    console.info("No automatic passkey upgrade:", error?.name ?? error);
    return false;
  }
}
