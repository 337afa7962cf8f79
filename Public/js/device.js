// The device flow's page (GET /device; docs/contracts/identity.md, RFC 8628): the code the device shows, typed
// or carried in ?user_code= by its QR code; then a passkey sign-in made for this request (the
// server accepts an approval only from a session opened after the device asked); then the
// application's name, the code to compare, and Approve or Deny.

import { showSignedOut } from "./account.js";
import { api, describeError, deviceCode, el, setStatus, state } from "./shared.js";

export async function continueDevice() {
  el.device.hidden = false;
  el.signedIn.hidden = true;
  if (!deviceCode) {
    askForCode("");
    setStatus("idle", "Type the code your device shows.");
    return;
  }
  let found;
  try {
    found = await api("POST", "/device/lookup", { user_code: deviceCode });
  } catch (error) {
    askForCode(deviceCode);
    setStatus("error", describeError(error), error);
    return;
  }
  const name = found.client_name;
  el.deviceShownCode.textContent = found.user_code;
  switch (found.approval) {
    case "approvable":
      el.signedOut.hidden = true;
      el.signedIn.hidden = true;
      el.deviceQuestion.textContent = `${name} is asking to sign in as ${state.account?.user_name ?? "you"}.`;
      el.deviceAsk.hidden = false;
      el.deviceApprove.hidden = false;
      setStatus("idle", `Approve ${name}?`);
      break;
    case "refused":
      el.signedOut.hidden = true;
      el.signedIn.hidden = true;
      el.deviceQuestion.textContent = `${name} cannot sign in with this account: ${found.refusal?.error_description ?? "refused"}.`;
      el.deviceAsk.hidden = false;
      el.deviceApprove.hidden = true;
      setStatus("error", `This account may not sign in to ${name}.`);
      break;
    default:
      // Sign in first (again, when the session predates the device's request).
      state.account = null;
      showSignedOut();
      el.continueTo.textContent = `Signing in to connect ${name} (code ${found.user_code})`;
      el.continueTo.hidden = false;
      setStatus("idle", `Sign in with your passkey to connect ${name}.`);
  }
}

function askForCode(value) {
  el.signedOut.hidden = true;
  el.deviceForm.hidden = false;
  el.deviceCode.value = value;
  el.deviceCode.focus();
}

el.deviceForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const code = el.deviceCode.value.trim();
  if (!code) return;
  location.assign("/device?user_code=" + encodeURIComponent(code));
});

async function decide(approve) {
  el.deviceApprove.disabled = true;
  el.deviceDeny.disabled = true;
  try {
    await api("POST", "/device/decision", { user_code: deviceCode, approve });
    el.deviceAsk.hidden = true;
    el.deviceDone.hidden = false;
    el.deviceDone.textContent = approve
      ? "Approved. Go back to your device: it signs in within a few seconds."
      : "Denied. The device will not be signed in.";
    setStatus("ok", approve ? "Device approved" : "Device denied");
  } catch (error) {
    setStatus("error", describeError(error), error);
    if (error?.code === "device_sign_in_required") await continueDevice();
  } finally {
    el.deviceApprove.disabled = false;
    el.deviceDeny.disabled = false;
  }
}

el.deviceApprove.addEventListener("click", () => decide(true));
el.deviceDeny.addEventListener("click", () => decide(false));
