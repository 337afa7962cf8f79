#!/usr/bin/env python3
"""Real-browser test of account recovery (Public/index.html) and the admin page (Public/admin.html).

Starts `passkey-server serve --port 0` on a throwaway SQLite file, chromedriver and headless
Chromium with a WebDriver virtual authenticator, as browser_test.py does (whose helpers it
imports), and checks recovery codes, the recovery session, the admin page and admin tokens.
Standard library only.

    python3 Tests/Browser/admin_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # importing browser_test.py leaves no __pycache__ behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from browser_test import (  # noqa: E402  (after the sys.path insert)
    PAGE_FETCH_JS, REGISTER_OUTSIDE_JS, REPO, SECOND_SESSION_JS, STATUS_LOG_JS, CheckFailed, Page, Server, WebDriver,
    expect, free_port, http, main_for, picture, same_id,
)

STATE_TIMEOUT = 15.0       # seconds to wait for the page to settle
REAUTH_WINDOW = 30         # --reauth-window: the shortest the server takes; the admin step-up waits it out once
SCREENSHOT = "/tmp/passkey-admin.png"
CODE = re.compile(r"[A-Z2-7]{4}(-[A-Z2-7]{4}){3}")

# The main page beside the browser_test.py snapshot: the recovery parts.
RECOVERY_STATE_JS = """
const q = (s) => document.querySelector(s);
return {
  recoveryView: !q('#recovery-view').hidden,
  recoveryWho: q('#recovery-who').dataset.userName || null,
  codesSection: !q('#recovery-codes').hidden,
  codesLeft: q('#recovery-codes-left').dataset.left ?? null,
  codesLeftText: q('#recovery-codes-left').textContent,
  codesShown: !q('#recovery-codes-new').hidden,
  codes: Array.from(document.querySelectorAll('#recovery-codes-list li')).map((li) => li.textContent.trim()),
  note: q('#recovery-codes-note').textContent,
};
"""

# The admin page as the tests see it.
ADMIN_STATE_JS = """
const q = (s) => document.querySelector(s);
const all = (s) => Array.from(document.querySelectorAll(s));
const status = q('#status');
const detail = q('#user-detail');
return {
  state: status ? status.dataset.state : null,
  text: status ? status.textContent : null,
  error: status ? (status.dataset.error || null) : null,
  gate: q('#admin-gate') && !q('#admin-gate').hidden ? {
    reason: q('#admin-gate').dataset.reason || null,
    message: q('#admin-gate-message').textContent,
    signIn: q('#admin-signin-link').hidden ? null : q('#admin-signin-link a').getAttribute('href'),
    signInText: q('#admin-signin-link').hidden ? null : q('#admin-signin-link').textContent,
  } : null,
  console: q('#admin-console') ? !q('#admin-console').hidden : false,
  users: all('#users tr.user-row').map((tr) => ({name: tr.dataset.userName, sub: tr.dataset.sub,
                                                disabled: tr.dataset.disabled === 'true', text: tr.textContent})),
  more: q('#users-more') ? !q('#users-more').hidden : false,
  detail: detail && !detail.hidden ? {
    userName: detail.dataset.userName,
    disabled: detail.dataset.disabled === 'true',
    passkeys: all('#detail-passkeys li.admin-passkey').map((li) => li.dataset.credentialId),
    sessions: all('#detail-sessions li.admin-session').map((li) => li.dataset.sessionId),
    events: all('#detail-events li.admin-event').map((li) => li.dataset.type),
    groups: q('#detail-groups').value,
    toggle: q('#detail-toggle-disabled').textContent,
    reset: q('#detail-reset').hidden ? null : q('#detail-reset-url').value,
  } : null,
  invite: q('#invite-result').hidden ? null : {url: q('#invite-url').value, userName: q('#invite-result').dataset.userName},
  groups: all('#groups li.admin-group').map((li) => ({name: li.dataset.group, text: li.textContent})),
  clients: all('#clients li.admin-client').map((li) => li.dataset.clientId),
  pending: all('#clients li.admin-client').filter((li) => li.querySelector('.approve-client')).map((li) => li.dataset.clientId),
  clientText: Object.fromEntries(all('#clients li.admin-client').map((li) => [li.dataset.clientId, li.textContent])),
  secret: q('#client-secret-box').hidden ? null : q('#client-secret').value,
};
"""


# A request to the admin API from the page, with its cookie, as the page's own api() sends it: on
# 401 reauthentication_required it steps up with the virtual authenticator and sends it once more.
# `contentType` replaces application/json (a string body is sent as it is). Answers
# {status, body (parsed JSON or null), text, steppedUp}.
ADMIN_FETCH_JS = """
const [method, path, body, contentType] = arguments;
const send = async () => {
  const init = {method, credentials: 'same-origin', headers: {Accept: 'application/json'}};
  if (body !== null && body !== undefined) {
    init.headers['Content-Type'] = contentType || 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const r = await fetch(path, init);
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch (error) {}
  return {status: r.status, body: json, text, steppedUp: false};
};
const post = (url, data) => fetch(url, {method: 'POST', credentials: 'same-origin',
  headers: {Accept: 'application/json', 'Content-Type': 'application/json'}, body: JSON.stringify(data)});
return (async () => {
  let answer = await send();
  if (answer.status === 401 && answer.body && answer.body.error === 'reauthentication_required') {
    const {publicKey} = await (await post('/authentication_initialize', {reauthenticate: true})).json();
    const credential = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey)});
    await post('/authentication_finalize', credential.toJSON());
    answer = await send();
    answer.steppedUp = true;
  }
  return answer;
})();
"""


class AdminPage:
    """/admin, driven like browser_test.py's Page drives /."""

    def __init__(self, driver, origin):
        self.driver = driver
        self.origin = origin

    def snapshot(self):
        return self.driver.script(ADMIN_STATE_JS)

    def open(self, query=""):
        self.driver.navigate(self.origin + "/admin" + query)
        return self.wait_for(lambda s: (s["console"] and s["state"] == "ok") or s["gate"] is not None,
                             "the console or a refusal to show", timeout=STATE_TIMEOUT + 10)

    def wait_for(self, predicate, what, timeout=STATE_TIMEOUT):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.snapshot()
            if predicate(last):
                return last
            time.sleep(0.1)
        raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}; "
                          f"status={last and last['state']!r} text={last and last['text']!r}")

    def run(self, click_selector, expect_state="ok"):
        """Clicks, then waits for #status to leave busy; checks its state."""
        self.driver.script(STATUS_LOG_JS)
        self.driver.click(click_selector)
        snap = self.wait_for(lambda s: s["state"] in ("ok", "error"), "#status ok or error")
        if snap["state"] != expect_state:
            history = " -> ".join(self.driver.script("return window.__statusLog || [];"))
            raise CheckFailed(f"#status data-state is {snap['state']!r} ({snap['error']!r}), wanted {expect_state!r}: "
                              f"{snap['text']!r} (changes: {history})")
        return snap


def names(snap):
    return [user["name"] for user in snap["users"]]


def run_checks(results, driver, page, server_port, context):
    check = results.check
    base = f"http://127.0.0.1:{server_port}"
    admin = AdminPage(driver, page.origin)
    state = {}

    def page_json(method, path, body=None, omit=False):
        return driver.script(PAGE_FETCH_JS, method, path, body, omit)

    def command(*arguments):
        done = subprocess.run([context["binary"], *arguments, "--database", context["database"]],
                              cwd=REPO, capture_output=True, text=True, timeout=60)
        expect(done.returncode == 0, f"{' '.join(arguments)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
        return done.stdout

    # ------------------------------------------------------------ signed out
    def admin_signed_out():
        snap = admin.open()
        gate = snap["gate"]
        expect(gate and gate["reason"] == "signin", f"the page shows {gate!r} (console: {snap['console']})")
        expect(not snap["console"], "the console shows")
        expect(gate["signIn"] == "/" and "Sign in on the main page first" in (gate["signInText"] or ""),
               f"the sign-in link reads {gate['signInText']!r} -> {gate['signIn']!r}")
        expect(snap["error"] == "unauthorized", f"#status data-error is {snap['error']!r}")
    if not check("/admin signed out: 'Sign in on the main page first' with a link to /, no console", admin_signed_out):
        return

    # ------------------------------------------------------------ accounts
    authenticator = check("virtual authenticator added (ctap2, internal, resident keys, UV)", driver.add_authenticator)
    if not authenticator:
        return
    state["authenticator"] = authenticator

    def register_alice():
        page.open("?autofill=off&upgrade=off")
        driver.type_into("#username", "alice")
        snap = page.run("#register", "ok")
        state["alice_verified"] = time.monotonic()
        expect(snap["signedIn"] and "alice" in (snap["whoami"] or ""), f"heading is {snap['whoami']!r}")
        recovery = driver.script(RECOVERY_STATE_JS)
        expect(recovery["codesSection"] and recovery["codesLeft"] == "0",
               f"the Recovery codes section shows {recovery['codesSection']}, data-left {recovery['codesLeft']!r}")
        expect(not recovery["codesShown"] and not recovery["codes"], "codes are shown before any were made")
        state["alice_credential"] = driver.credentials(authenticator)[0]
    if not check("register 'alice' on the main page; the Recovery codes section shows 0 left", register_alice):
        return

    def register_bob():
        made = driver.script(REGISTER_OUTSIDE_JS, "bob", None)
        expect(made["step"] == "finalize" and made["status"] == 200,
               f"registering bob: {made['step']} answered {made['status']}: {made['body'][:200]}")
        answer = json.loads(made["body"])
        expect(answer.get("session"), f"the registration answered {answer!r}")
        state["bob_token"] = answer["session"]
        state["bob_credential"] = made["id"]
        # Out of the authenticator: it holds alice's passkey alone again (usernameless get()s pick it).
        for held in driver.credentials(authenticator):
            if same_id(held["credentialId"], made["id"]):
                driver.command("DELETE", f"/webauthn/authenticator/{authenticator}/credentials/{held['credentialId']}")
        status, me, _ = http("GET", base + "/me", headers={"Cookie": f"session={state['bob_token']}"}, timeout=10)
        expect(status == 200 and me.get("user_name") == "bob", f"GET /me with bob's cookie answered {status}: {str(me)[:200]}")
    if not check("register 'bob' beside the page (no cookie of the browser's); his session cookie reads /me", register_bob):
        return

    def not_admin():
        snap = admin.open()
        gate = snap["gate"]
        expect(gate and gate["reason"] == "forbidden", f"the page shows {gate!r} (console: {snap['console']})")
        expect("not an administrator" in gate["message"], f"the message reads {gate['message']!r}")
        expect(not snap["console"] and not snap["users"], "the console or accounts show")
        expect(snap["error"] == "forbidden", f"#status data-error is {snap['error']!r}")
    check("/admin as 'alice', not in the admin group: 'Your account is not an administrator'", not_admin)

    # ------------------------------------------------------------ admin tokens (3)
    def admin_token():
        out = command("admin-tokens", "create", "--name", "ci")
        token = (out.strip().splitlines() or [""])[-1].strip()
        expect(token and " " not in token, f"the last line of admin-tokens create is {token!r}")
        bearer = {"Authorization": f"Bearer {token}"}
        status, body, _ = http("GET", base + "/admin/api/users", headers=bearer, timeout=10)
        expect(status == 200 and isinstance(body, dict), f"GET /admin/api/users with the token answered {status}: {str(body)[:200]}")
        listed = sorted(user.get("user_name") for user in body.get("users", []))
        expect(listed == ["alice", "bob"], f"the token's list reads {listed!r}")
        expect("next_cursor" in body and body["next_cursor"] is None, f"next_cursor is {body.get('next_cursor')!r}")
        status, body, _ = http("GET", base + "/admin/api/users", timeout=10)
        expect(status == 401 and (body or {}).get("error") == "unauthorized",
               f"GET /admin/api/users without a token answered {status}: {str(body)[:200]}")
        command("admin-tokens", "revoke", "ci")
        status, body, _ = http("GET", base + "/admin/api/users", headers=bearer, timeout=10)
        expect(status == 401, f"after admin-tokens revoke ci it answered {status}: {str(body)[:200]}")
    check("admin-tokens create --name ci: the token alone on the last line; GET /admin/api/users with it 200 "
          "(alice, bob), without it 401; after admin-tokens revoke ci 401", admin_token)

    # ------------------------------------------------------------ the admin page (2)
    def make_admin():
        command("users", "add-to-group", "alice", "admins")
        page.open("?autofill=off&upgrade=off")
        events = page_json("GET", "/me/events")
        expect(events["status"] == 200, f"GET /me/events answered {events['status']}")
        state["reauth_events"] = sum(1 for e in events["body"]["events"] if e["type"] == "reauthenticated")
    made_admin = check("users add-to-group alice admins (the command beside the running server)", make_admin)

    def admin_steps_up():
        # The session is as old as alice's registration: once the reauth window is over, the admin
        # API wants a step-up, which the page runs with the virtual authenticator.
        wait = state["alice_verified"] + REAUTH_WINDOW + 1 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        before = int(driver.credentials(state["authenticator"])[0]["signCount"])
        snap = admin.open()
        expect(snap["gate"] is None and snap["console"], f"the page shows {snap['gate']!r}: {snap['text']!r}")
        expect(sorted(names(snap)) == ["alice", "bob"], f"the accounts listed are {names(snap)!r}")
        expect(int(driver.credentials(state["authenticator"])[0]["signCount"]) > before,
               "the passkey's counter did not move: no step-up ceremony ran")
        events = page_json("GET", "/me/events")
        count = sum(1 for e in events["body"]["events"] if e["type"] == "reauthenticated")
        expect(count == state["reauth_events"] + 1, f"{count} reauthenticated events, {state['reauth_events']} before")
        expect(any(g["name"] == "admins" for g in snap["groups"]), f"the groups listed are {snap['groups']!r}")
    opened = made_admin and check(f"/admin as admin 'alice' {REAUTH_WINDOW} s after sign-in: the page steps up with "
                                  "the passkey (a reauthenticated event) and lists alice and bob; groups list admins",
                                  admin_steps_up)
    if opened:
        check("a picture of the admin page (.build/screenshots/admin.png)", lambda: picture(driver, "admin"))
        admin_page_checks(check, driver, admin, base, state)

    # ------------------------------------------------------------ recovery (1)
    recovery_checks(check, driver, page, base, state, context)


def admin_page_checks(check, driver, admin, base, state):

    def paging():
        snap = admin.open("?limit=1")
        expect(names(snap) == ["alice"] and snap["more"], f"first page {names(snap)!r}, More shown: {snap['more']}")
        snap = admin.run("#users-more")
        expect(names(snap) == ["alice", "bob"] and not snap["more"], f"after More {names(snap)!r}, More shown: {snap['more']}")
    check("?limit=1: one account a page, 'More' appends the next page (next_cursor) and then hides", paging)

    def search():
        admin.open()
        driver.type_into("#user-query", "bo")
        snap = admin.run("#user-search-button")
        expect(names(snap) == ["bob"], f"searching 'bo' lists {names(snap)!r}")
        state["bob_sub"] = snap["users"][0]["sub"]
    if not check("search 'bo' lists only bob", search):
        return

    def open_bob():
        snap = admin.run('#users tr[data-user-name="bob"] .open-user')
        d = snap["detail"]
        expect(d and d["userName"] == "bob", f"the detail panel shows {d!r}")
        expect(len(d["passkeys"]) == 1 and same_id(d["passkeys"][0], state["bob_credential"]),
               f"bob's passkeys listed: {d['passkeys']!r}")
        expect(len(d["sessions"]) == 1, f"bob's sessions listed: {d['sessions']!r}")
        expect(not d["disabled"] and d["toggle"] == "Disable account", f"the toggle reads {d['toggle']!r}")
        expect("registration" in d["events"], f"bob's events listed: {d['events']!r}")
    if not check("open bob: his passkey, his session and his events are listed", open_bob):
        return

    def admin_json(method, path, body=None, content_type=None):
        return driver.script(ADMIN_FETCH_JS, method, path, body, content_type)

    def api_shapes():
        sub = state["bob_sub"]
        answer = admin_json("GET", f"/admin/api/users/{sub}")
        expect(answer["status"] == 200, f"GET users/{{sub}} answered {answer['status']}: {answer['text'][:200]}")
        user = answer["body"]
        kinds = {"sub": str, "user_name": str, "display_name": str, "created_at": str, "disabled": bool, "credentials": list,
                 "sessions": list, "groups": list, "push_devices": list, "recovery_codes_left": int, "events": list}
        wrong = [key for key, kind in kinds.items() if not isinstance(user.get(key), kind)]
        expect(not wrong and "apple" in user, f"GET users/{{sub}}: members missing or of the wrong type: {wrong!r} in {sorted(user)!r}")
        credential = user["credentials"][0]
        missing = [k for k in ("credential_id", "name", "created_at", "last_used_at", "authenticator_name", "backup_state",
                               "possibly_cloned") if k not in credential]
        expect(not missing, f"a credential lacks {missing!r}: {credential!r}")
        session = user["sessions"][0]
        missing = [k for k in ("id", "created_at", "last_seen_at", "auth_time", "method", "ip", "user_agent", "current", "clients")
                   if k not in session]
        expect(not missing, f"a session lacks {missing!r}: {session!r}")
        renamed = admin_json("PATCH", f"/admin/api/users/{sub}", {"display_name": "Bob B."})
        expect(renamed["status"] == 200 and renamed["body"].get("display_name") == "Bob B." and "credentials" in renamed["body"],
               f"PATCH display_name answered {renamed['status']}: {renamed['text'][:200]}")
        invited = admin_json("POST", "/admin/api/users", {"user_name": "dave", "groups": ["staff"]})
        expect(invited["status"] == 201 and invited["body"].get("user_name") == "dave" and invited["body"].get("reset") is False
               and "?invite=" in invited["body"].get("url", "") and invited["body"].get("expires_at"),
               f"POST users answered {invited['status']}: {invited['text'][:200]}")
        reset = admin_json("POST", f"/admin/api/users/{sub}/invite")
        expect(reset["status"] == 201 and reset["body"].get("reset") is True and reset["body"].get("user_name") == "bob",
               f"POST users/{{sub}}/invite (no body) answered {reset['status']}: {reset['text'][:200]}")
        plain = admin_json("POST", "/admin/api/users", '{"user_name": "eve"}', "text/plain")
        expect(plain["status"] == 415, f"POST users as text/plain answered {plain['status']}: {plain['text'][:200]}")
        events = admin_json("GET", f"/admin/api/events?user={sub}&limit=500")
        ids = [e.get("id") for e in (events["body"] or {}).get("events", [])]
        expect(events["status"] == 200 and ids and ids == sorted(ids) and "next_cursor" in events["body"]
               and all(e.get("sub") == sub for e in events["body"]["events"]),
               f"GET events?user= answered {events['status']}: {events['text'][:300]}")
        typed = admin_json("GET", f"/admin/api/events?user={sub}&type=display_name_changed")
        expect(typed["status"] == 200 and [e["type"] for e in typed["body"]["events"]] == ["display_name_changed"],
               f"GET events?type=display_name_changed answered {typed['status']}: {typed['text'][:300]}")
        groups = admin_json("GET", "/admin/api/groups")
        expect(groups["status"] == 200 and {"name": "admins", "members": 1} in groups["body"].get("groups", []),
               f"GET groups answered {groups['status']}: {groups['text'][:200]}")
        missing = admin_json("GET", "/admin/api/users/" + "A" * 43)
        expect(missing["status"] == 404, f"GET users/<no such sub> answered {missing['status']}: {missing['text'][:200]}")
        taken = admin_json("POST", "/admin/api/users", {"user_name": "Alice"})
        expect(taken["status"] == 409 and (taken["body"] or {}).get("error") == "user_exists",
               f"POST users for a taken name (other case) answered {taken['status']}: {taken['text'][:200]}")
    check("the admin API from the page as documented: users/{sub} members, PATCH display_name, POST users 201, "
          "POST users/{sub}/invite 201 reset, 415 for text/plain, events oldest first (user=, type=), groups, 404, 409",
          api_shapes)

    def disable_bob():
        snap = admin.run("#detail-toggle-disabled")
        expect(snap["detail"]["disabled"] and snap["detail"]["toggle"] == "Enable account",
               f"the detail reads disabled={snap['detail']['disabled']}, toggle {snap['detail']['toggle']!r}")
        row = next((u for u in snap["users"] if u["name"] == "bob"), None)
        expect(row and row["disabled"] and "Disabled" in row["text"], f"bob's row reads {row!r}")
        expect(snap["detail"]["sessions"] == [], f"bob still has sessions {snap['detail']['sessions']!r}")
        status, body, _ = http("GET", base + "/me", headers={"Cookie": f"session={state['bob_token']}"}, timeout=10)
        expect(status == 401, f"GET /me with bob's old session cookie answered {status}: {str(body)[:200]}")
    check("Disable bob: his row shows Disabled, his sessions end (GET /me with his old cookie 401)", disable_bob)

    def enable_bob():
        snap = admin.run("#detail-toggle-disabled")
        expect(not snap["detail"]["disabled"] and snap["detail"]["toggle"] == "Disable account",
               f"the detail reads disabled={snap['detail']['disabled']}, toggle {snap['detail']['toggle']!r}")
        row = next((u for u in snap["users"] if u["name"] == "bob"), None)
        expect(row and not row["disabled"], f"bob's row reads {row!r}")
        expect("account_disabled" in snap["detail"]["events"] and "account_enabled" in snap["detail"]["events"],
               f"bob's events: {snap['detail']['events']!r}")
    check("Enable bob again: the row is active, the events list account_disabled and account_enabled", enable_bob)

    def reset_link():
        snap = admin.run("#detail-reset-link")
        url = snap["detail"]["reset"] or ""
        expect(re.fullmatch(re.escape(admin.origin) + r"/\?invite=[A-Za-z0-9_-]{43}", url), f"the reset link is {url!r}")
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["invite"][0]
        status, body, _ = http("POST", base + "/invitation", {"invite": token}, timeout=10)
        expect(status == 200 and body.get("user_name") == "bob" and body.get("reset") is True,
               f"POST /invitation with it answered {status}: {str(body)[:200]}")
    check("Make reset link: a /?invite= link is shown, and /invitation reads it as bob's reset", reset_link)

    def groups_edit():
        driver.type_into("#detail-groups", "staff, testers")
        snap = admin.run("#detail-groups-save")
        expect(snap["detail"]["groups"] in ("staff, testers", "testers, staff"), f"the groups field reads {snap['detail']['groups']!r}")
        listed = {g["name"] for g in snap["groups"]}
        expect({"admins", "staff", "testers"} <= listed, f"the groups list reads {sorted(listed)!r}")
        driver.type_into("#detail-groups", "staff")
        snap = admin.run("#detail-groups-save")
        expect(snap["detail"]["groups"] == "staff", f"the groups field reads {snap['detail']['groups']!r}")
        expect("testers" not in {g["name"] for g in snap["groups"]}, f"the groups list reads {snap['groups']!r}")
    check("groups edited as comma-separated names (PATCH replaces the set): staff, testers, then staff", groups_edit)

    def invite_carol():
        driver.type_into("#invite-name", "carol")
        driver.type_into("#invite-groups", "staff")
        snap = admin.run("#invite-button")
        invite = snap["invite"] or {}
        expect(invite.get("userName") == "carol", f"the invitation reads {invite!r}")
        expect(re.fullmatch(re.escape(admin.origin) + r"/\?invite=[A-Za-z0-9_-]{43}", invite.get("url", "")),
               f"the invitation link is {invite.get('url')!r}")
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(invite["url"]).query)["invite"][0]
        status, body, _ = http("POST", base + "/invitation", {"invite": token}, timeout=10)
        expect(status == 200 and body.get("user_name") == "carol" and body.get("reset") is False,
               f"POST /invitation with it answered {status}: {str(body)[:200]}")
        # A taken name: 409 user_exists, shown as the error.
        driver.type_into("#invite-name", "bob")
        snap = admin.run("#invite-button", "error")
        expect(snap["error"] == "user_exists", f"inviting bob shows data-error {snap['error']!r}: {snap['text']!r}")
    check("Invite a new user 'carol' with group staff: the link is shown (an invitation, not a reset); "
          "inviting the taken name bob shows user_exists", invite_carol)

    def clients():
        driver.type_into("#client-id", "admin-test-app")
        driver.type_into("#client-name", "Admin test app")
        driver.type_into("#client-redirect", "https://app.example.com/callback")
        driver.click("#client-public")
        snap = admin.run("#client-add")
        expect("admin-test-app" in snap["clients"], f"the clients listed are {snap['clients']!r}")
        expect(snap["secret"] is None, "a public client's secret box shows")
        snap = admin.run('#clients li[data-client-id="admin-test-app"] .remove-client')
        expect("admin-test-app" not in snap["clients"], f"the clients listed are {snap['clients']!r}")
        # A confidential one shows its secret once.
        driver.type_into("#client-id", "admin-test-secret")
        driver.type_into("#client-redirect", "https://app.example.com/callback")
        snap = admin.run("#client-add")
        expect("admin-test-secret" in snap["clients"] and snap["secret"], f"clients {snap['clients']!r}, secret {snap['secret']!r}")
        snap = admin.run('#clients li[data-client-id="admin-test-secret"] .remove-client')
        expect(snap["clients"] == [], f"the clients listed are {snap['clients']!r}")
    check("add an OpenID client (public) and see it listed, remove it; a confidential one shows its secret once", clients)


    def delete_passkey():
        snap = admin.run("#detail-passkeys li.admin-passkey .delete-passkey")
        expect(snap["detail"]["passkeys"] == [], f"bob's passkeys listed: {snap['detail']['passkeys']!r}")
        status, body, _ = http("GET", base + f"/admin/api/users/{state['bob_sub']}", timeout=10)
        expect(status == 401, f"GET /admin/api/users/SUB without a session answered {status}")
        answer = admin_json("GET", f"/admin/api/users/{state['bob_sub']}")
        expect(answer["status"] == 200 and answer["body"]["credentials"] == [],
               f"the API answered {answer['status']}: {answer['text'][:200]}")
    check("delete bob's passkey: the list is empty (GET /admin/api/users/{sub} agrees)", delete_passkey)

    def delete_bob():
        driver.click("#detail-delete > summary")
        driver.type_into("#detail-delete-confirm", "bobby")
        snap = admin.run("#detail-delete-button", "error")
        expect(snap["detail"] and snap["detail"]["userName"] == "bob", "a wrong confirmation closed the panel")
        driver.type_into("#detail-delete-confirm", "bob")
        snap = admin.run("#detail-delete-button")
        expect(snap["detail"] is None, "the detail panel still shows")
        expect("bob" not in names(snap), f"the list still shows bob: {names(snap)!r}")
        driver.type_into("#user-query", "")
        snap = admin.run("#user-search-button")
        expect(names(snap) == ["alice"], f"the accounts listed are {names(snap)!r}")
    check("delete bob (typed confirmation; a wrong one is refused): bob is gone from the list", delete_bob)

    def approve_registration():
        # An open registration (RFC 7591), made as a client makes it, without a session.
        request = urllib.request.Request(
            base + "/oauth/register", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"client_name": "Self-made", "redirect_uris": ["https://self.example/cb"]}).encode())
        with urllib.request.urlopen(request, timeout=10) as answer:
            made = json.loads(answer.read())
        client_id = made["client_id"]
        expect(made["status"] == "pending", f"the registration answered {made!r}")
        snap = admin.open()
        expect(client_id in snap["pending"], f"the pending clients listed are {snap['pending']!r}")
        text = snap["clientText"].get(client_id, "")
        expect("Self-registered" in text and "Waiting for approval" in text and "https://self.example/cb" in text,
               f"the client reads {text!r}")
        snap = admin.run(f'#clients li[data-client-id="{client_id}"] .approve-client')
        expect(client_id in snap["clients"] and client_id not in snap["pending"], f"pending after approval: {snap['pending']!r}")
        expect("Waiting for approval" not in snap["clientText"].get(client_id, ""), "the badge stays")
        listed = admin_json("GET", "/admin/api/clients")["body"]["clients"]
        expect([(c["status"], c["kind"]) for c in listed if c["client_id"] == client_id] == [("active", "registered")],
               f"the admin API lists {listed!r}")
        snap = admin.run(f'#clients li[data-client-id="{client_id}"] .remove-client')
        expect(snap["clients"] == [], f"the clients listed are {snap['clients']!r}")
    check("an open registration shows as self-registered and waiting; Approve makes it active", approve_registration)

    def screenshot():
        driver.command("POST", "/window/rect", {"width": 1100, "height": 1400})
        size = driver.screenshot(SCREENSHOT)
        expect(size > 1000, f"screenshot is only {size} bytes")
    check(f"screenshot of the admin page saved to {SCREENSHOT}", screenshot)

    def end_own_sessions():
        # Last: the admin ends every session of her own account, this browser's too; the page
        # then says to sign in again.
        admin.open()
        snap = admin.run('#users tr[data-user-name="alice"] .open-user')
        expect(snap["detail"] and snap["detail"]["userName"] == "alice" and snap["detail"]["sessions"],
               f"alice's detail reads {snap['detail']!r}")
        driver.script(STATUS_LOG_JS)
        driver.click("#detail-end-sessions")
        snap = admin.wait_for(lambda s: s["gate"] is not None or s["state"] == "error", "the page to notice")
        expect(snap["gate"] and snap["gate"]["reason"] == "signin" and not snap["console"],
               f"the page shows {snap['gate']!r}: {snap['text']!r}")
        code = driver.script("return fetch('/me', {credentials: 'same-origin'}).then((r) => r.status);")
        expect(code == 401, f"GET /me answered {code} after ending every session")
    check("End all sessions on the admin's own account: this browser is signed out, the page says to sign in", end_own_sessions)


def recovery_checks(check, driver, page, base, state, context):
    def page_json(method, path, body=None, omit=False):
        return driver.script(PAGE_FETCH_JS, method, path, body, omit)

    def recovery_state():
        return driver.script(RECOVERY_STATE_JS)

    def make_codes():
        snap = page.open("?autofill=off&upgrade=off")
        if not snap["signedIn"]:
            # Signed out by the admin checks: in again with the passkey, by name.
            driver.type_into("#username", "alice")
            snap = page.run("#login", "ok")
        expect(snap["signedIn"] and "alice" in (snap["whoami"] or ""), f"the page is not signed in as alice: {snap['whoami']!r}")
        snap = page.run("#make-recovery-codes", "ok")
        shown = recovery_state()
        expect(shown["codesShown"] and len(shown["codes"]) == 10, f"{len(shown['codes'])} codes shown")
        expect(all(CODE.fullmatch(code) for code in shown["codes"]) and len(set(shown["codes"])) == 10,
               f"the codes read {shown['codes']!r}")
        expect("password" in shown["note"] and "once" in shown["note"], f"the note reads {shown['note']!r}")
        expect(shown["codesLeft"] == "10" and "10" in shown["codesLeftText"],
               f"recovery codes left reads {shown['codesLeft']!r}: {shown['codesLeftText']!r}")
        me = page_json("GET", "/me")
        expect(me["body"].get("recovery_codes_left") == 10 and me["body"].get("recovery") is False,
               f"GET /me reads recovery_codes_left {me['body'].get('recovery_codes_left')!r}, recovery {me['body'].get('recovery')!r}")
        state["codes"] = shown["codes"]
    if not check("Make new recovery codes in the account view: 10 codes shown once with the note, 10 left", make_codes):
        return

    def second_session():
        opened = driver.script(SECOND_SESSION_JS)
        expect(opened["step"] == "finalize" and opened["status"] == 200,
               f"the second sign-in's {opened['step']} answered {opened['status']}: {opened['body'][:200]}")
        state["other_session"] = json.loads(opened["body"])["session"]
    check("a second session of alice (its token kept, to see it end with the recovery)", second_session)

    def lose_phone():
        snap = page.run("#logout", "ok")
        expect(snap["signedOut"], "the sign-in view is not shown")
        shown = recovery_state()
        expect(not shown["codes"] and not shown["codesShown"], "the codes stay in the page after signing out")
        driver.remove_authenticator(state["authenticator"])
        state["authenticator"] = driver.add_authenticator()
        expect(driver.credentials(state["authenticator"]) == [], "the new authenticator holds credentials")
    if not check("sign out (the codes leave the page); the authenticator is lost: a fresh one holds nothing", lose_phone):
        return

    def recover():
        code = state["codes"][0]
        driver.click("#recovery-open")
        driver.type_into("#recovery-name", "alice")
        driver.type_into("#recovery-code", code.replace("-", "").lower())
        snap = page.run("#recovery-submit", "ok")
        shown = recovery_state()
        expect(shown["recoveryView"] and not snap["signedIn"] and not snap["signedOut"],
               f"recovery view {shown['recoveryView']}, signed in {snap['signedIn']}, signed out {snap['signedOut']}")
        expect(shown["recoveryWho"] == "alice", f"the recovery view names {shown['recoveryWho']!r}")
        me = page_json("GET", "/me")
        expect(me["status"] == 200 and me["body"].get("recovery") is True, f"GET /me answered {me['status']}: {me['text'][:200]}")
        sessions = page_json("GET", "/me/sessions")
        expect(sessions["status"] == 403 and (sessions["body"] or {}).get("error") == "recovery_only",
               f"GET /me/sessions answered {sessions['status']}: {sessions['text'][:200]}")
    recovering = check("the signed-out page's recovery form with the code typed in lower case without dashes: the "
                       "recovery view; GET /me says recovery, GET /me/sessions answers 403 recovery_only", recover)

    def register_new():
        snap = page.run("#recovery-register", "ok")
        expect(snap["signedIn"] and "alice" in (snap["whoami"] or ""), f"signed in {snap['signedIn']}, heading {snap['whoami']!r}")
        expect(not recovery_state()["recoveryView"], "the recovery view still shows")
        expect(len(snap["passkeys"]) == 2, f"#passkeys lists {len(snap['passkeys'])} items")
        made = driver.credentials(state["authenticator"])
        expect(len(made) == 1 and any(same_id(p["id"], made[0]["credentialId"]) for p in snap["passkeys"]),
               "the new authenticator's passkey is not listed")
        shown = recovery_state()
        expect(shown["codesLeft"] == "9", f"recovery codes left reads {shown['codesLeft']!r}")
        sessions = page_json("GET", "/me/sessions")
        expect(sessions["status"] == 200 and len(sessions["body"]["sessions"]) == 1,
               f"GET /me/sessions answered {sessions['status']}: {sessions['text'][:300]}")
        status, body, _ = http("GET", base + "/me", headers={"Authorization": f"Bearer {state.get('other_session', '')}"}, timeout=10)
        expect(status == 401, f"GET /me with alice's other session answered {status}: {str(body)[:200]}")
    if recovering:
        check("Register a new passkey from the recovery view: the normal account view, 2 passkeys, 9 codes left; "
              "the session is normal (GET /me/sessions 200) and alice's other session has ended", register_new)

    def spent_code():
        code = state["codes"][0]
        status, body, _ = http("POST", base + "/recovery", {"user_name": "alice", "code": code}, timeout=10)
        expect(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_recovery_code",
               f"the spent code answered {status}: {body!r}")
        state["spent_body"] = body
        status, other, _ = http("POST", base + "/recovery", {"user_name": "nobody-here", "code": "AAAA-BBBB-CCCC-DDDD"}, timeout=10)
        expect(status == 400 and other == body, f"a wrong code for an unknown name answered {status}: {other!r}, the spent one {body!r}")
    if recovering:
        check("the same code again answers 400 invalid_recovery_code; a wrong code for an unknown name the same body",
              spent_code)


# ----------------------------------------------------------------------- main

def run(results, args, workdir, live):
    binary = os.path.abspath(args.server_binary)
    if not results.check("server binary exists",
                         lambda: expect(os.access(binary, os.X_OK), f"{binary} is not executable")):
        return
    database = os.path.join(workdir, "db.sqlite")
    server = Server(binary, database, os.path.join(REPO, "Public"), args.server_port,
                    extra=["--reauth-window", str(REAUTH_WINDOW), "--dynamic-registration", "open"])
    live["server"] = server
    _, port = results.check("server starts and prints 'listening on http://HOST:PORT'",
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
    run_checks(results, driver, Page(driver, f"http://localhost:{port}"), port, {"binary": binary, "database": database})


def main():
    return main_for(run, __doc__, "passkey-admin-")

if __name__ == "__main__":
    sys.exit(main())
