// Account recovery (accounts.md): recovery codes made in the account view (a step-up first),
// a code typed on the signed-out view opens a recovery session, and the recovery view registers
// a new passkey with it; the session is then a normal one and the account's other sessions end.

import { hideNewRecoveryCodes, refreshAccount, showNewRecoveryCodes, showSignedOut } from "./account.js";
import { register, runCeremony } from "./ceremonies.js";
import { api, el, setStatus, state } from "./shared.js";

// ------------------------------------------------------- the account view

el.makeRecoveryCodes.addEventListener("click", () => {
  runCeremony("Making new recovery codes…", async () => {
    // A step-up may run first (401 reauthentication_required): api() confirms and retries.
    const answer = await api("POST", "/me/recovery-codes", {});
    const codes = Array.isArray(answer?.codes) ? answer.codes.map(String) : [];
    await refreshAccount();
    showNewRecoveryCodes(codes);
    el.recoveryCodesNew.scrollIntoView({ block: "nearest" });
    setStatus("ok", `${codes.length} new recovery codes made: store them now, they are shown only once`);
  });
});

el.recoveryCodesDone.addEventListener("click", () => {
  hideNewRecoveryCodes();
  el.makeRecoveryCodes.focus();
});

// ------------------------------------------------------- the signed-out view

el.recoveryForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const userName = el.recoveryName.value.trim();
  // The server reads a code without regard to case, spaces or dashes.
  const code = el.recoveryCode.value.trim();
  if (!userName || !code) {
    setStatus("error", "Type your user name and one of your recovery codes.");
    (userName ? el.recoveryCode : el.recoveryName).focus();
    return;
  }
  runCeremony("Checking the recovery code…", async () => {
    const answer = await api("POST", "/recovery", { user_name: userName, code });
    el.recoveryCode.value = "";
    await refreshAccount();
    setStatus("ok", `Recovery code accepted for ${answer?.user_name ?? userName}: now register a new passkey`);
    el.recoveryRegister.focus();
  });
});

// ------------------------------------------------------- the recovery view

el.recoveryRegister.addEventListener("click", () => {
  const userName = state.account?.user_name;
  if (!userName) return;
  runCeremony(`Registering a new passkey for ${userName}…`, async () => {
    await register(userName);
    if (state.account && !state.account.recovery) {
      setStatus("ok", `Passkey created for ${userName}. You are signed in again; your other sessions have ended.`);
    }
  });
});

el.recoveryLogout.addEventListener("click", () => {
  runCeremony("Signing out…", async () => {
    await api("POST", "/logout");
    showSignedOut();
    setStatus("ok", "Signed out");
  });
});
