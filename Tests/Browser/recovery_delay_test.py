#!/usr/bin/env python3
"""Real-browser test of recoveries made to wait (`--recovery-delay`) on Public/index.html.

Starts `passkey-server serve --port 0 --recovery-delay 20s` on a throwaway SQLite file,
chromedriver and headless Chromium with a WebDriver virtual authenticator, as browser_test.py
does (whose helpers it imports), and checks both sides of a recovery that waits: the account's
owner sees it in a banner of the account view and stops it ("This wasn't me"); the signed-out
page that started one counts down, asks GET /recovery/{id} until it opens, and then shows the
recovery view. Standard library only.

    python3 Tests/Browser/recovery_delay_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import datetime
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # importing browser_test.py leaves no __pycache__ behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from browser_test import (  # noqa: E402  (after the sys.path insert)
    PAGE_FETCH_JS, REPO, SECOND_SESSION_JS, CheckFailed, Page, Server, WebDriver, expect, free_port, http, main_for,
)

DELAY = 20                 # --recovery-delay, in seconds
READY_TIMEOUT = 40.0       # seconds to wait for the page's polling to find the recovery open
STATE_TIMEOUT = 15.0
WAIT_KEY = "passkey-recovery-id"   # the sessionStorage key recovery.js keeps the recovery's id under
SCREENSHOTS = {"banner": "/tmp/passkey-recovery-banner.png", "waiting": "/tmp/passkey-recovery-waiting.png"}
CODE = re.compile(r"[A-Z2-7]{4}(-[A-Z2-7]{4}){3}")
PAGE_QUERY = "?autofill=off&upgrade=off"
# The requester outside the browser: a User-Agent the page shortens to "Firefox on Linux".
OUTSIDE_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

# The recovery parts of the main page: the signed-out page's waiting panel, the account view's
# banner, the recovery view.
WAIT_STATE_JS = """
const q = (s) => document.querySelector(s);
const panel = q('#recovery-waiting');
const banner = q('#recovery-banner');
const status = q('#status');
return {
  state: status.dataset.state,
  text: status.textContent,
  signedIn: !q('#signed-in').hidden,
  signedOut: !q('#signed-out').hidden,
  panel: panel.hidden ? null : (panel.dataset.state || '?'),
  panelText: q('#recovery-waiting-text').textContent,
  countdown: q('#recovery-countdown').textContent,
  seconds: q('#recovery-countdown').dataset.seconds ?? null,
  ended: q('#recovery-ended').hidden ? null : q('#recovery-ended').textContent,
  formShown: !q('#recovery-form').hidden && q('#recovery').open,
  stored: sessionStorage.getItem(arguments[0]),
  recoveryView: !q('#recovery-view').hidden,
  recoveryWho: q('#recovery-who').dataset.userName || null,
  banner: banner.hidden ? null : Array.from(document.querySelectorAll('#recovery-banner-list li')).map((li) => ({
    id: li.dataset.id,
    text: (li.querySelector('.waiting-recovery-text') || li).textContent,
    button: li.querySelector('button') ? {id: li.querySelector('button').id, text: li.querySelector('button').textContent,
                                          dataId: li.querySelector('button').dataset.id} : null,
  })),
  bannerTop: banner.parentElement.id === 'signed-in' && banner === banner.parentElement.firstElementChild,
  activity: Array.from(document.querySelectorAll('#activity li.event')).map((li) => li.dataset.type),
};
"""

# Records when the page asks GET /recovery/{id}, and what it is answered (the page's api() calls
# the global fetch).
POLL_LOG_JS = """
if (!window.__recoveryPolls) {
  window.__recoveryPolls = [];
  window.__recoveryAnswers = [];
  const original = window.fetch;
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    const method = (init && init.method) || 'GET';
    const answer = original(input, init);
    if (method === 'GET' && /^\\/recovery\\/./.test(url)) {
      window.__recoveryPolls.push(Date.now());
      answer.then((r) => r.clone().text().then((text) => window.__recoveryAnswers.push({status: r.status, text})), () => {});
    }
    return answer;
  };
}
window.__recoveryPolls.length = 0;
window.__recoveryAnswers.length = 0;
"""


def parse_time(text):
    expect(isinstance(text, str), f"{text!r} is not a time")
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def run_checks(results, driver, page, server_port):
    check = results.check
    base = f"http://127.0.0.1:{server_port}"
    state = {}

    def snap():
        return driver.script(WAIT_STATE_JS, WAIT_KEY)

    def wait_for(predicate, what, timeout=STATE_TIMEOUT):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = snap()
            if predicate(last):
                return last
            time.sleep(0.2)
        shown = {key: last[key] for key in ("state", "text", "panel", "countdown", "ended", "recoveryView", "banner")} if last else None
        raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}; the page reads {shown!r}")

    def page_json(method, path, body=None):
        return driver.script(PAGE_FETCH_JS, method, path, body, False)

    def outside(method, path, body=None, headers=None):
        return http(method, base + path, body, timeout=10, headers={"User-Agent": OUTSIDE_AGENT, **(headers or {})})

    def screenshot(which):
        size = driver.screenshot(SCREENSHOTS[which])
        expect(size > 1000, f"the screenshot is only {size} bytes")

    def no_cookie(head, what):
        cookies = head.get_all("Set-Cookie") or []
        expect(not cookies, f"{what} set a cookie: {cookies!r}")

    # ------------------------------------------------------------ the account
    authenticator = check("virtual authenticator added (ctap2, internal, resident keys, UV)", driver.add_authenticator)
    if not authenticator:
        return

    def register_alice():
        page.open(PAGE_QUERY)
        driver.type_into("#username", "alice")
        shown = page.run("#register", "ok")
        expect(shown["signedIn"] and "alice" in (shown["whoami"] or ""), f"heading is {shown['whoami']!r}")
        me = page_json("GET", "/me")
        expect(me["status"] == 200 and me["body"].get("waiting_recoveries") == [],
               f"GET /me answered {me['status']}, waiting_recoveries {(me['body'] or {}).get('waiting_recoveries', 'missing')!r}")
        expect(snap()["banner"] is None, "the recovery banner shows with nothing waiting")
    if not check("register 'alice' on the main page; GET /me has waiting_recoveries [] and no banner shows", register_alice):
        return

    def make_codes():
        page.run("#make-recovery-codes", "ok")
        codes = driver.script("return Array.from(document.querySelectorAll('#recovery-codes-list li'))"
                              ".map((li) => li.textContent.trim());")
        expect(len(codes) == 10 and all(CODE.fullmatch(code) for code in codes), f"the codes read {codes!r}")
        state["codes"] = codes
        driver.click("#recovery-codes-done")
    if not check("Make new recovery codes in the account view: 10 codes", make_codes):
        return

    def other_session():
        opened = driver.script(SECOND_SESSION_JS)
        expect(opened["step"] == "finalize" and opened["status"] == 200,
               f"the second sign-in's {opened['step']} answered {opened['status']}: {opened['body'][:200]}")
        state["other"] = {"Authorization": "Bearer " + json.loads(opened["body"])["session"]}
    if not check("a second session of alice outside the page (its token kept: the owner signed in elsewhere)", other_session):
        return

    # ------------------------------------------------- 1: started outside, stopped by the owner
    def start_outside():
        before = datetime.datetime.now(datetime.timezone.utc)
        status, body, head = outside("POST", "/recovery", {"user_name": "alice", "code": state["codes"][0]})
        expect(status == 202, f"POST /recovery answered {status}: {body!r}")
        expect(isinstance(body, dict) and body.get("status") == "waiting", f"the body is {body!r}")
        expect(isinstance(body.get("recovery_id"), str) and len(body["recovery_id"]) >= 32, f"recovery_id is {body.get('recovery_id')!r}")
        expect(isinstance(body.get("seconds_left"), int) and 0 < body["seconds_left"] <= DELAY,
               f"seconds_left is {body.get('seconds_left')!r}")
        lead = (parse_time(body.get("ready_at")) - before).total_seconds()
        expect(DELAY - 5 <= lead <= DELAY + 5, f"ready_at {body.get('ready_at')!r} is {lead:.1f} s after the request")
        expect("session" not in body, f"the body carries a session: {body!r}")
        no_cookie(head, "POST /recovery")
        state["first"] = body["recovery_id"]
        state["first_ready_at"] = body["ready_at"]
    if not check(f"outside the browser, POST /recovery with a good code: 202 status waiting, a recovery_id, "
                 f"seconds_left <= {DELAY}, ready_at {DELAY} s ahead; no session, no cookie", start_outside):
        return

    def status_outside():
        answers = []
        for pause in (0, 2.1):
            time.sleep(pause)
            status, body, head = outside("GET", f"/recovery/{state['first']}")
            expect(isinstance(body, dict) and body.get("status") == "waiting" and body.get("recovery_id") == state["first"]
                   and isinstance(body.get("seconds_left"), int) and 0 < body["seconds_left"] <= DELAY
                   and body.get("ready_at") == state["first_ready_at"] and "session" not in body,
                   f"GET /recovery/{{id}} answered {status}: {body!r}")
            no_cookie(head, "GET /recovery/{id} while waiting")
            answers.append((status, body))
        expect(answers[1][1]["seconds_left"] < answers[0][1]["seconds_left"],
               f"seconds_left did not count down in 2 s: {answers[0][1]['seconds_left']} then {answers[1][1]['seconds_left']}")
        state["waiting_statuses"] = sorted({status for status, _ in answers})
        status, body, _ = outside("GET", "/recovery/" + "A" * 43)
        expect(status == 404 and (body or {}).get("error") == "not_found", f"an unknown id answered {status}: {body!r}")
    check("GET /recovery/{id} while waiting: status waiting, the same recovery_id and ready_at, seconds_left counting "
          "down, no session or cookie; an unknown id 404 not_found", status_outside)

    def waiting_is_200():
        statuses = state.get("waiting_statuses")
        expect(statuses == [200], f"GET /recovery/{{id}} of a waiting recovery answered HTTP {statuses!r} (the POST's 202), "
               "not 200")
    check("GET /recovery/{id} of a waiting recovery answers HTTP 200 (only POST /recovery answers 202)", waiting_is_200)

    def banner_shows():
        page.open(PAGE_QUERY)
        shown = wait_for(lambda s: s["signedIn"] and s["banner"] is not None, "the recovery banner")
        me = page_json("GET", "/me")["body"]
        waiting = me.get("waiting_recoveries")
        expect(isinstance(waiting, list) and len(waiting) == 1, f"GET /me waiting_recoveries is {waiting!r}")
        entry = waiting[0]
        missing = [key for key in ("id", "created_at", "ready_at", "ip", "user_agent") if key not in entry]
        expect(not missing, f"the entry lacks {missing!r}: {entry!r}")
        expect(entry["ip"] == "127.0.0.1" and entry["user_agent"] == OUTSIDE_AGENT,
               f"the entry names ip {entry['ip']!r}, user_agent {entry['user_agent']!r}")
        span = (parse_time(entry["ready_at"]) - parse_time(entry["created_at"])).total_seconds()
        expect(abs(span - DELAY) <= 1, f"ready_at is {span:.1f} s after created_at")
        expect(entry["id"] != state["first"], "the owner's id is the requester's recovery_id (the token that opens the session)")
        expect(shown["bannerTop"], "the banner is not the first thing in the account view")
        lines = shown["banner"]
        expect(len(lines) == 1, f"the banner has {len(lines)} lines: {lines!r}")
        line = lines[0]
        text = line["text"]
        expect(text.startswith("Someone started recovering this account on ") and " from 127.0.0.1 (Firefox on Linux); it opens at "
               in text and text.endswith("."), f"the line reads {text!r}")
        expect(line["button"] and line["button"]["text"] == "This wasn't me" and line["button"]["id"] == "recovery-cancel-0"
               and line["button"]["dataId"] == entry["id"] and line["id"] == entry["id"], f"the line's button is {line['button']!r}")
        state["first_public"] = entry["id"]
        driver.command("POST", "/window/rect", {"width": 900, "height": 900})
    if not check("reload alice's page: a banner at the top of the account view, one line: 'Someone started recovering "
                 "this account on … from 127.0.0.1 (Firefox on Linux); it opens at ….' with 'This wasn't me' "
                 "(GET /me waiting_recoveries agrees)", banner_shows):
        return

    check(f"screenshot of the banner saved to {SCREENSHOTS['banner']}", lambda: screenshot("banner"))

    def cancel_refusals():
        wrong = page_json("DELETE", "/me/recoveries/" + "A" * 22)
        expect(wrong["status"] == 404, f"DELETE /me/recoveries/<unknown> answered {wrong['status']}: {wrong['text'][:200]}")
        status, body, _ = outside("DELETE", f"/me/recoveries/{state['first_public']}")
        expect(status == 401, f"DELETE /me/recoveries/{{id}} without a session answered {status}: {body!r}")
        status, body, _ = outside("GET", f"/recovery/{state['first']}")
        expect((body or {}).get("status") == "waiting", f"the recovery now answers {status}: {body!r}")
    check("DELETE /me/recoveries/<unknown id> 404; without a session 401; the recovery still waits", cancel_refusals)

    def cancel_in_banner():
        shown = page.run("#recovery-cancel-0", "ok")
        after = wait_for(lambda s: s["banner"] is None, "the banner to go")
        expect(after["signedIn"], "the account view is gone")
        me = page_json("GET", "/me")["body"]
        expect(me.get("waiting_recoveries") == [], f"GET /me waiting_recoveries is {me.get('waiting_recoveries')!r}")
        expect("recovery_cancelled" in after["activity"], f"the activity lists {after['activity']!r}")
        expect("recovery code" in shown["text"], f"the status reads {shown['text']!r}")
    if not check("'This wasn't me': the banner goes, waiting_recoveries is [], the activity lists recovery_cancelled",
                 cancel_in_banner):
        return

    def cancelled_outside():
        status, body, head = outside("GET", f"/recovery/{state['first']}")
        expect(status == 200 and body == {"status": "cancelled"}, f"GET /recovery/{{id}} answered {status}: {body!r}")
        no_cookie(head, "GET /recovery/{id} of a cancelled recovery")
    check("outside, GET /recovery/{id} answers 200 {\"status\": \"cancelled\"} and sets no cookie", cancelled_outside)

    def code_spent():
        status, body, _ = outside("POST", "/recovery", {"user_name": "alice", "code": state["codes"][0]})
        expect(status == 400 and (body or {}).get("error") == "invalid_recovery_code", f"the spent code answered {status}: {body!r}")
    check("the code of the cancelled recovery is spent: POST /recovery with it again 400 invalid_recovery_code", code_spent)

    # ------------------------------------------- 2: started in the browser, stopped by the owner
    def logout():
        shown = page.run("#logout", "ok")
        expect(shown["signedOut"], "the sign-in view is not shown")
    if not check("alice signs out in the browser", logout):
        return

    def start_in_browser(code):
        if not driver.script("return document.querySelector('#recovery').open;"):
            driver.click("#recovery-open")
        driver.type_into("#recovery-name", "alice")
        driver.type_into("#recovery-code", code)
        page.run("#recovery-submit", "ok")
        shown = wait_for(lambda s: s["panel"] == "waiting" and s["countdown"], "the waiting panel")
        expect(re.fullmatch(r"\d+:\d\d", shown["countdown"]) and 0 < int(shown["seconds"]) <= DELAY,
               f"the countdown reads {shown['countdown']!r} ({shown['seconds']!r} s)")
        text = shown["panelText"]
        expect(text.startswith("Your recovery is waiting until ") and "The account's owner has been told and can stop it. "
               "Keep this page open, or come back later with this page." in text, f"the panel reads {text!r}")
        expect(not shown["formShown"] and not shown["recoveryView"] and shown["signedOut"],
               f"form shown {shown['formShown']}, recovery view {shown['recoveryView']}")
        expect(shown["stored"], "no recovery id in sessionStorage")
        me = page_json("GET", "/me")
        expect(me["status"] == 401, f"GET /me from the page answered {me['status']}: no session should be open yet")
        return shown

    def wait_browser():
        shown = start_in_browser(state["codes"][1])
        state["second"] = shown["stored"]
        time.sleep(2.2)
        later = snap()
        expect(int(later["seconds"]) < int(shown["seconds"]),
               f"the countdown did not move: {shown['countdown']!r} then {later['countdown']!r}")
    if not check("signed out, the recovery form with another code: the waiting panel ('Your recovery is waiting until "
                 "…'), a live countdown, the id in sessionStorage; no session yet (GET /me 401)", wait_browser):
        return

    check(f"screenshot of the waiting panel saved to {SCREENSHOTS['waiting']}", lambda: screenshot("waiting"))

    def resume_after_reload():
        page.open(PAGE_QUERY)
        shown = wait_for(lambda s: s["panel"] == "waiting" and s["countdown"] and s["panelText"].startswith("Your recovery"),
                         "the waiting panel after the reload")
        expect(shown["stored"] == state["second"], f"sessionStorage holds {shown['stored']!r}")
        expect(shown["signedOut"] and not shown["formShown"], "the form shows beside the waiting panel")
        checked = page.run("#recovery-check", "ok")
        expect("still waiting" in checked["text"], f"'Check now' says {checked['text']!r}")
    check("reload: the page resumes the waiting panel from sessionStorage; 'Check now' says it is still waiting",
          resume_after_reload)

    def owner_cancels():
        status, me, _ = outside("GET", "/me", headers=state["other"])
        waiting = (me or {}).get("waiting_recoveries") if isinstance(me, dict) else None
        expect(status == 200 and isinstance(waiting, list) and len(waiting) == 1,
               f"GET /me of alice's other session answered {status}: waiting_recoveries {waiting!r}")
        status, body, _ = outside("DELETE", f"/me/recoveries/{waiting[0]['id']}", headers=state["other"])
        expect(status == 200 and body == {"status": "cancelled"}, f"DELETE /me/recoveries/{{id}} answered {status}: {body!r}")
        page.run("#recovery-check", "error")
        shown = wait_for(lambda s: s["panel"] == "cancelled", "the panel to say cancelled")
        expect(shown["ended"] == "The account's owner cancelled this recovery.", f"the panel reads {shown['ended']!r}")
        expect(shown["stored"] is None, f"sessionStorage still holds {shown['stored']!r}")
        expect(shown["formShown"] and not shown["recoveryView"], "the form is not back")
    check("the owner cancels it from another session (DELETE /me/recoveries/{id} with its bearer token); 'Check now': "
          "'The account's owner cancelled this recovery.', sessionStorage cleared, the form back", owner_cancels)

    # ------------------------------------------------------- 3: started in the browser, opens
    def ready_in_browser():
        shown = start_in_browser(state["codes"][2])
        state["third"] = shown["stored"]
        driver.script(POLL_LOG_JS)
        started = time.monotonic()
        opened = wait_for(lambda s: s["recoveryView"], "the recovery view (the page's polling)", timeout=READY_TIMEOUT)
        took = time.monotonic() - started
        polls = driver.script("return window.__recoveryPolls || [];")
        expect(opened["recoveryWho"] == "alice", f"the recovery view names {opened['recoveryWho']!r}")
        expect(opened["panel"] is None and opened["stored"] is None,
               f"the panel reads {opened['panel']!r}, sessionStorage {opened['stored']!r}")
        expect(opened["state"] == "ok" and "register a new passkey" in opened["text"], f"the status reads {opened['text']!r}")
        me = page_json("GET", "/me")
        expect(me["status"] == 200 and me["body"].get("recovery") is True and me["body"].get("user_name") == "alice",
               f"GET /me answered {me['status']}: {me['text'][:200]}")
        gaps = [(b - a) / 1000 for a, b in zip(polls, polls[1:])]
        expect(len(polls) >= 3 and max(gaps) <= 6.5,
               f"{len(polls)} polls in {took:.0f} s, gaps {[round(g, 1) for g in gaps]!r} (every 5 s in the last minute)")
        answers = driver.script("return window.__recoveryAnswers || [];")
        last = answers[-1] if answers else {}
        body = json.loads(last.get("text") or "null")
        expect(last.get("status") == 200 and isinstance(body, dict) and body.get("status") == "ok"
               and body.get("user_name") == "alice" and isinstance(body.get("session"), str) and body.get("recovery") is True,
               f"the last GET /recovery/{{id}} answered {last.get('status')!r}: {last.get('text')!r}")
    if not check(f"a third code in the browser: waiting; within {READY_TIMEOUT:.0f} s the page's polling (every 5 s) finds it "
                 "open and shows the recovery view for alice (GET /me says recovery); sessionStorage cleared", ready_in_browser):
        return

    def claimed_once():
        status, body, head = outside("GET", f"/recovery/{state['third']}")
        expect(status == 404 and (body or {}).get("error") == "not_found", f"GET /recovery/{{id}} again answered {status}: {body!r}")
        no_cookie(head, "GET /recovery/{id} once claimed")
    check("the opened recovery answers once: GET /recovery/{id} again 404 not_found", claimed_once)

    def recovery_session_cannot_cancel():
        answer = page_json("DELETE", "/me/recoveries/" + "A" * 22)
        expect(answer["status"] == 403 and (answer["body"] or {}).get("error") == "recovery_only",
               f"DELETE /me/recoveries/{{id}} from the recovery session answered {answer['status']}: {answer['text'][:200]}")
    check("the recovery session may not cancel recoveries: DELETE /me/recoveries/{id} 403 recovery_only",
          recovery_session_cannot_cancel)

    def wrong_code():
        # The fifth recovery attempt of the hour for this name and address (--rate-limit-recovery's default is 5).
        status, body, _ = outside("POST", "/recovery", {"user_name": "alice", "code": "AAAA-BBBB-CCCC-DDDD"})
        expect(status == 400 and (body or {}).get("error") == "invalid_recovery_code", f"a wrong code answered {status}: {body!r}")
        status, me, _ = outside("GET", "/me", headers=state["other"])
        expect(status == 200 and me.get("waiting_recoveries") == [],
               f"GET /me of alice's other session answered {status}: waiting_recoveries {(me or {}).get('waiting_recoveries')!r}")
    check("a wrong code answers 400 invalid_recovery_code and starts nothing (waiting_recoveries stays [])", wrong_code)


# ----------------------------------------------------------------------- main

def run(results, args, workdir, live):
    binary = os.path.abspath(args.server_binary)
    if not results.check("server binary exists",
                         lambda: expect(os.access(binary, os.X_OK), f"{binary} is not executable")):
        return
    server = Server(binary, os.path.join(workdir, "db.sqlite"), os.path.join(REPO, "Public"), args.server_port,
                    extra=["--recovery-delay", f"{DELAY}s"])
    live["server"] = server
    _, port = results.check(f"server starts with --recovery-delay {DELAY}s and prints 'listening on http://HOST:PORT'",
                            lambda: server.wait_listening(30)) or (None, None)
    if port is None:
        return
    live["server_listening"] = True

    driver_port = free_port()
    live["chromedriver"] = subprocess.Popen(
        [args.chromedriver, f"--port={driver_port}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    driver = WebDriver(driver_port)
    live["driver"] = driver

    def start_browser():
        driver.wait_ready(20)
        driver.start_session()
    if not results.check("chromedriver starts a headless Chromium session", start_browser):
        return
    # The RP ID is localhost and the allowed origin is http://localhost:PORT (not 127.0.0.1).
    run_checks(results, driver, Page(driver, f"http://localhost:{port}"), port)


def main():
    return main_for(run, __doc__, "passkey-recovery-delay-")

if __name__ == "__main__":
    sys.exit(main())
