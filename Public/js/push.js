// The push authenticator: sign-in approved on a phone, and adding a phone by QR code.

import { refreshAccount, refreshActivity, showSignedIn } from "./account.js";
import { runCeremony } from "./ceremonies.js";
import { ServerError, api, el, followReturn, setStatus, state } from "./shared.js";
import { upgradeToPasskey } from "./upgrade.js";

// ------------------------------------------------------------ push sign-in

const pushMessages = {
  denied: "The sign-in was denied on your phone.",
  expired: "The request expired before your phone answered.",
  number_mismatch: "The number chosen on your phone did not match; the request was cancelled.",
};

// Sends a push to the user's phones and waits for the answer, showing the number to match.
async function pushSignIn(userName) {
  const started = await api("POST", "/push/authentication_initialize", { user_name: userName });
  const watch = { cancelled: false };
  state.pushWatch = watch;
  el.pushNumber.textContent = started.numberChallenge ?? "";
  el.pushWait.hidden = false;
  el.pushWait.querySelector("p").hidden = started.numberChallenge === null;
  try {
    while (!watch.cancelled) {
      const answer = await api("GET", `/push/authentication_status?watch=${encodeURIComponent(started.watch)}`);
      if (answer.status === "approved") {
        if (await followReturn()) return;
        await refreshAccount();
        setStatus("ok", `Signed in as ${answer.user_name ?? state.account?.user_name ?? userName} with your phone`);
        upgradeToPasskey();
        return;
      }
      if (answer.status !== "pending") {
        throw new ServerError(400, answer.status, pushMessages[answer.status] ?? answer.status);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    setStatus("idle", "");
  } finally {
    state.pushWatch = null;
    el.pushWait.hidden = true;
  }
}

el.pushLogin.addEventListener("click", () => {
  const userName = el.username.value.trim();
  if (!userName) {
    setStatus("error", "Type your user name to get a push on your phone.");
    el.username.focus();
    return;
  }
  runCeremony(`Sending a push to ${userName}'s phones…`, () => pushSignIn(userName));
});

el.pushCancel.addEventListener("click", () => {
  if (state.pushWatch) state.pushWatch.cancelled = true;
});

el.addPhone.addEventListener("click", () => {
  runCeremony("Preparing the QR code…", async () => {
    const discovery = await api("POST", "/push/devices/discovery");
    const { qr_svg: svg, ...data } = discovery;
    el.enrolQR.innerHTML = svg;
    el.enrolJSON.textContent = JSON.stringify(data);
    el.enrol.dataset.deviceId = data.deviceId;
    el.enrol.hidden = false;
    setStatus("ok", "Scan the QR code with the authenticator app");
    watchEnrolment(data.deviceId);
  });
});

// Polls /me while the QR code shows, until the phone has registered (or the code expired).
async function watchEnrolment(deviceId) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline && !el.enrol.hidden && el.enrol.dataset.deviceId === deviceId) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    let account;
    try {
      account = await api("GET", "/me");
    } catch {
      return;
    }
    if ((account.push_devices ?? []).some((device) => device.deviceId === deviceId)) {
      el.enrol.hidden = true;
      showSignedIn(account);
      await refreshActivity();
      setStatus("ok", "Phone added");
      return;
    }
  }
  if (el.enrol.dataset.deviceId === deviceId) el.enrol.hidden = true;
}
