// Account recovery (docs/contracts/accounts.md): recovery codes made in the account view (a step-up first),
// a code typed on the signed-out view opens a recovery session, and the recovery view registers
// a new passkey with it; the session is then a normal one and the account's other sessions end.
//
// With `--recovery-delay`, a good code starts a recovery that waits (202 `status: waiting`): the
// page counts down, asks GET /recovery/{id} now and then (and on "Check now"), and keeps the id
// in sessionStorage so that a reload of the tab goes on waiting. Once the delay is over that GET
// opens the recovery session (its cookie) and the page shows the recovery view; the account's
// owner, signed in elsewhere, may cancel it meanwhile ("This wasn't me", account.js).

import { hideNewRecoveryCodes, refreshAccount, showNewRecoveryCodes, showSignedOut } from "./account.js";
import { register, runCeremony, stopConditional } from "./ceremonies.js";
import { ServerError, api, describeError, el, formatTime, setStatus, state } from "./shared.js";

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
    if (answer?.status === "waiting" && typeof answer.recovery_id === "string") {
      // The code is spent; no session yet.
      waitForRecovery(answer.recovery_id, answer);
      setStatus("ok", `Recovery code accepted for ${userName}: the recovery opens at ${formatTime(answer.ready_at) ?? "the end of the delay"}`);
      return;
    }
    await refreshAccount();
    setStatus("ok", `Recovery code accepted for ${answer?.user_name ?? userName}: now register a new passkey`);
    el.recoveryRegister.focus();
  });
});

// ------------------------------------------------- a recovery that waits

const WAIT_KEY = "passkey-recovery-id";

// The recovery this page waits for: {id, deadline (this clock's ms), ticker, timer, checking,
// due (asked at zero already), failed (the last question failed)}, or null.
let waiting = null;

function storedRecoveryID() {
  try {
    const id = sessionStorage.getItem(WAIT_KEY);
    return id && /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

function storeRecoveryID(id) {
  try {
    sessionStorage.setItem(WAIT_KEY, id);
  } catch {
    // No storage (private mode): the wait lasts as long as the page.
  }
}

function forgetRecoveryID() {
  try {
    sessionStorage.removeItem(WAIT_KEY);
  } catch {
    // Nothing stored.
  }
}

// 75 -> "1:15", 3725 -> "1:02:05", 90061 -> "1 d 1:01:01".
function formatLeft(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const two = (n) => String(n).padStart(2, "0");
  const clock = days || hours ? `${hours}:${two(minutes)}:${two(s % 60)}` : `${minutes}:${two(s % 60)}`;
  return days ? `${days} d ${clock}` : clock;
}

function secondsLeft() {
  return waiting ? Math.max(0, (waiting.deadline - Date.now()) / 1000) : 0;
}

// Shows the waiting panel for the recovery `id`; `answer` is its latest waiting answer, or null
// (a reload: it is asked for at once).
function waitForRecovery(id, answer) {
  stopWatching();
  storeRecoveryID(id);
  waiting = { id, deadline: Date.now(), ticker: null, timer: null, checking: false, due: true, failed: false };
  el.recovery.open = true;
  el.recoveryForm.hidden = true;
  el.recoveryEnded.hidden = true;
  el.recoveryEnded.textContent = "";
  el.recoveryWaitingNow.hidden = false;
  el.recoveryWaiting.dataset.state = "waiting";
  el.recoveryWaiting.hidden = false;
  waiting.ticker = setInterval(tick, 1000);
  if (answer) {
    showWaiting(answer);
  } else {
    el.recoveryWaitingText.textContent = "Checking your recovery…";
    el.recoveryCountdown.textContent = "";
    checkRecovery();
  }
}

function showWaiting(answer) {
  const seconds = Number(answer.seconds_left);
  waiting.deadline = Date.now() + (Number.isFinite(seconds) ? Math.max(0, seconds) : 0) * 1000;
  waiting.due = false;
  el.recoveryWaitingText.textContent = `Your recovery is waiting until ${formatTime(answer.ready_at) ?? "the delay is over"}. ` +
    "The account's owner has been told and can stop it. Keep this page open, or come back later with this page.";
  tick();
  schedule();
}

// Every second: the countdown; when it reaches zero, the server is asked at once.
function tick() {
  if (!waiting) return;
  if (state.account) {
    // Signed in some other way meanwhile: asking on could swap this session for the recovery's.
    stopWatching();
    hideWaiting();
    return;
  }
  const left = secondsLeft();
  el.recoveryCountdown.textContent = formatLeft(left);
  el.recoveryCountdown.dataset.seconds = String(Math.ceil(left));
  if (left <= 0 && !waiting.due) {
    waiting.due = true;
    checkRecovery();
  }
}

// The next question: every 5 s in the last minute, else every 30 s.
function schedule() {
  if (!waiting) return;
  clearTimeout(waiting.timer);
  waiting.timer = setTimeout(checkRecovery, (secondsLeft() < 60 ? 5 : 30) * 1000);
}

function stopWatching() {
  if (!waiting) return;
  clearInterval(waiting.ticker);
  clearTimeout(waiting.timer);
  waiting = null;
}

function hideWaiting() {
  el.recoveryWaiting.hidden = true;
  delete el.recoveryWaiting.dataset.state;
  el.recoveryForm.hidden = false;
}

// The recovery is over without a session: why, in the panel; the form is back for another code.
function endWaiting(stateName, text) {
  stopWatching();
  forgetRecoveryID();
  el.recoveryWaitingNow.hidden = true;
  el.recoveryEnded.textContent = text;
  el.recoveryEnded.hidden = false;
  el.recoveryWaiting.dataset.state = stateName;
  el.recoveryForm.hidden = false;
  setStatus("error", text);
}

async function checkRecovery() {
  const current = waiting;
  if (!current || current.checking) return;
  current.checking = true;
  clearTimeout(current.timer);
  el.recoveryCheck.disabled = true;
  try {
    const answer = await api("GET", `/recovery/${encodeURIComponent(current.id)}`);
    if (waiting !== current) return;
    if (answer?.status === "waiting") {
      if (current.failed) setStatus("idle", "");
      current.failed = false;
      showWaiting(answer);
    } else if (answer?.status === "cancelled") {
      endWaiting("cancelled", "The account's owner cancelled this recovery.");
    } else if (answer?.status === "ok") {
      await recoveryOpened(answer);
    } else {
      throw new Error(`unexpected answer: ${JSON.stringify(answer)?.slice(0, 80)}`);
    }
  } catch (error) {
    if (waiting !== current) return;
    if (error instanceof ServerError && error.status === 404) {
      // Claimed already (by another tab of this browser?) or unknown: nothing left to wait for.
      stopWatching();
      forgetRecoveryID();
      try {
        if (await refreshAccount()) {
          hideWaiting();
          return;
        }
      } catch {
        // Signed out as far as this page knows.
      }
      endWaiting("gone", "This recovery is no longer waiting: it was used already, or it has expired. Use another recovery code.");
      return;
    }
    current.failed = true;
    setStatus("error", `Could not check the recovery: ${describeError(error)}`, error);
    schedule();
  } finally {
    current.checking = false;
    el.recoveryCheck.disabled = false;
  }
}

// GET /recovery/{id} answered with the recovery session (its cookie is set): the recovery view.
async function recoveryOpened(answer) {
  stopWatching();
  forgetRecoveryID();
  hideWaiting();
  try {
    await stopConditional();
    await refreshAccount();
    setStatus("ok", `Your recovery is open for ${answer.user_name ?? state.account?.user_name ?? "you"}: now register a new passkey`);
    el.recoveryRegister.focus();
  } catch (error) {
    setStatus("error", describeError(error), error);
  }
}

el.recoveryCheck.addEventListener("click", () => {
  if (waiting && !waiting.checking) setStatus("busy", "Checking the recovery…");
  checkRecovery().then(() => {
    if (el.status.dataset.state === "busy" && waiting) setStatus("ok", "Checked: the recovery is still waiting.");
  });
});

// At start-up, signed out: a recovery this tab waited for before a reload goes on waiting.
export function resumeRecoveryWait() {
  if (state.account || waiting) return;
  const id = storedRecoveryID();
  if (id) waitForRecovery(id, null);
}

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
