#!/usr/bin/env python3
"""The OAuth 2.0 Device Authorization Grant (RFC 8628), approved in headless Chromium.

Starts `passkey-server serve --port 0`, registers a public client for a television with
`passkey-server clients add --public --device-flow`, and plays the device itself over HTTP:
it reads the discovery document, asks at the device authorization endpoint and polls the token
endpoint from a thread, honouring `interval` and `slow_down` (RFC 8628 §3.4-3.5). Meanwhile
headless Chromium, with a WebAuthn virtual authenticator, opens `verification_uri_complete`,
is shown the sign-in form naming the television, creates an account with a passkey there,
lands on the approval view showing the device's user code and approves: the device gets its
tokens, whose ID token is verified against the JWKS (RS256, checked here with the standard
library) and whose access token opens userinfo; redeeming the device code again is
`invalid_grant` and revokes that access token. A second request is denied: the signed-in
browser opens /device without a code, types it in lower case without the dash, must sign in
again (its session predates the request) with the passkey, and denies; the device is told
`access_denied`. A wrong code on the page is `unknown_user_code`, and a device that polls
twice without waiting is told `slow_down` (and the interval grows by 5 s). Starts, waits for
and stops its processes with Tests/Identity/harness.py (which builds on
Tests/Browser/browser_test.py). Standard library only.

    python3 Tests/Identity/device_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import harness
from harness import REPO, STEP_TIMEOUT, CheckFailed, bt, expect, wait_until

CLIENT = {"id": "tv", "name": "Living-room TV"}
USER = "device-dana"
SCOPE = "openid profile"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE = re.compile(f"^[{ALPHABET}]{{4}}-[{ALPHABET}]{{4}}$")
SLOW_DOWN_STEP = 5          # RFC 8628 §3.5: seconds each slow_down adds to the interval
MARGIN = 0.1                # seconds a polite device waits beyond the interval
POLLER_LIFETIME = 60.0      # seconds a device keeps polling at most

# What the device page shows: its views, the status line, the sign-in form's note.
DEVICE_VIEW_JS = """
const q = (s) => document.querySelector(s);
const shown = (s) => Boolean(q(s)) && !q(s).closest('[hidden]');
const text = (s) => (q(s) ? q(s).textContent : null);
const status = q('#status');
return {
  href: location.href,
  state: status ? status.dataset.state : null,
  error: status ? (status.dataset.error || null) : null,
  status: text('#status'),
  form: shown('#device-form'),
  typed: q('#device-code') ? q('#device-code').value : null,
  ask: shown('#device-ask'),
  question: text('#device-question'),
  shownCode: text('#device-shown-code'),
  approve: shown('#device-approve'),
  done: shown('#device-done'),
  doneText: text('#device-done'),
  signedOut: shown('#signed-out'),
  signedIn: shown('#signed-in'),
  continueTo: shown('#continue-to') ? text('#continue-to') : null,
};
"""


# ------------------------------------------------------------------- requests

def post_form(url, fields, timeout=30.0):
    """A form POST as a device sends it; returns (status, parsed JSON or text, headers)."""
    return bt.http("POST", url, form=fields, timeout=timeout)


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# SHA-256's DigestInfo prefix (RFC 8017 §9.2, note 1).
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


def verify_rs256(token, jwks):
    """RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3) against the JWKS key the header names;
    returns (header, claims). Standard library only: the whole encoded message is compared."""
    parts = token.split(".")
    expect(len(parts) == 3, f"the ID token has {len(parts)} parts")
    header = json.loads(b64url_decode(parts[0]))
    expect(header.get("alg") == "RS256", f"the ID token's header is {header}")
    keys = [k for k in jwks.get("keys", []) if k.get("kid") == header.get("kid")]
    expect(len(keys) == 1, f"the JWKS has {len(keys)} keys with kid {header.get('kid')!r}")
    key = keys[0]
    expect(key.get("kty") == "RSA" and key.get("use", "sig") == "sig", f"the key is {key}")
    n = int.from_bytes(b64url_decode(key["n"]), "big")
    e = int.from_bytes(b64url_decode(key["e"]), "big")
    size = (n.bit_length() + 7) // 8
    signature = b64url_decode(parts[2])
    expect(len(signature) == size, f"the signature has {len(signature)} bytes, the key {size}")
    digest = hashlib.sha256(f"{parts[0]}.{parts[1]}".encode("ascii")).digest()
    encoded = SHA256_DIGEST_INFO + digest
    wanted = b"\x00\x01" + b"\xff" * (size - 3 - len(encoded)) + b"\x00" + encoded
    got = pow(int.from_bytes(signature, "big"), e, n).to_bytes(size, "big")
    expect(hmac.compare_digest(got, wanted), "the ID token's signature does not verify with the JWKS key")
    return header, json.loads(b64url_decode(parts[1]))


def userinfo(url, access_token):
    return bt.http("GET", url, headers={"Authorization": f"Bearer {access_token}"})


# ---------------------------------------------------------------------- device

def register_client(binary, database):
    """passkey-server clients add beside the running server; returns its JSON line."""
    done = subprocess.run([binary, "clients", "add", "--database", database, "--id", CLIENT["id"],
                           "--name", CLIENT["name"], "--public", "--device-flow", "--scope", SCOPE],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    expect(done.returncode == 0, f"clients add exited {done.returncode}: {done.stderr.strip()}")
    lines = done.stdout.strip().splitlines()
    expect(lines, "clients add printed nothing")
    client = json.loads(lines[-1])
    expect(client.get("client_id") == CLIENT["id"] and client.get("public") is True
           and client.get("device_flow") is True and not client.get("client_secret"),
           f"clients add printed {lines[-1]!r}")
    return client


def ask(metadata, origin):
    """The device's request at the device authorization endpoint, its answer checked."""
    status, answer, head = post_form(metadata["device_authorization_endpoint"], {"client_id": CLIENT["id"], "scope": SCOPE})
    expect(status == 200 and isinstance(answer, dict), f"the endpoint answered {status}: {str(answer)[:300]}")
    expect((head.get("Content-Type") or "").startswith("application/json"), f"Content-Type is {head.get('Content-Type')!r}")
    code = answer.get("user_code")
    expect(isinstance(code, str) and USER_CODE.match(code), f"user_code is {code!r}")
    device_code = answer.get("device_code")
    expect(isinstance(device_code, str) and len(device_code) >= 22, f"device_code is {device_code!r}")
    page = origin + "/device"
    expect(answer.get("verification_uri") == page, f"verification_uri is {answer.get('verification_uri')!r}, wanted {page!r}")
    complete = page + "?" + urllib.parse.urlencode({"user_code": code})
    expect(answer.get("verification_uri_complete") == complete,
           f"verification_uri_complete is {answer.get('verification_uri_complete')!r}, wanted {complete!r}")
    expect(answer.get("expires_in") == 600, f"expires_in is {answer.get('expires_in')!r}")
    expect(answer.get("interval") == 5, f"interval is {answer.get('interval')!r}")
    svg = answer.get("qr_svg")
    expect(isinstance(svg, str) and svg.startswith("<svg") and svg.rstrip().endswith("</svg>"), f"qr_svg is {str(svg)[:80]!r}")
    qr_text = answer.get("qr_text")
    expect(isinstance(qr_text, str) and qr_text.count("\n") >= 10, f"qr_text is {str(qr_text)[:80]!r}")
    return answer


def poll(token_endpoint, device_code):
    """One poll of the token endpoint; returns (status, body)."""
    status, body, _ = post_form(token_endpoint, {"grant_type": DEVICE_GRANT, "device_code": device_code,
                                                 "client_id": CLIENT["id"]})
    return status, body


def error_of(status, body):
    return body.get("error") if status == 400 and isinstance(body, dict) else f"HTTP {status}: {str(body)[:200]}"


class Poller(threading.Thread):
    """The device's side while its user decides: polls the token endpoint at once, then every
    `interval` seconds after each answer (5 s more after each slow_down), until it gets tokens
    or another error. Keeps every poll: (seconds since the start, error or "tokens")."""

    def __init__(self, token_endpoint, answer):
        super().__init__(name=f"device poller ({answer['user_code']})", daemon=True)
        self.token_endpoint = token_endpoint
        self.device_code = answer["device_code"]
        self.interval = answer["interval"]
        self.started_at = time.monotonic()
        self.polls = []
        self.tokens = None
        self.outcome = None
        self.halt = threading.Event()

    def run(self):
        try:
            while not self.halt.is_set() and time.monotonic() - self.started_at < POLLER_LIFETIME:
                status, body = poll(self.token_endpoint, self.device_code)
                at = time.monotonic() - self.started_at
                if status == 200:
                    self.polls.append((at, "tokens"))
                    self.tokens, self.outcome = body, "tokens"
                    return
                error = error_of(status, body)
                self.polls.append((at, error))
                if error == "slow_down":
                    self.interval += SLOW_DOWN_STEP
                elif error != "authorization_pending":
                    self.outcome = error
                    return
                self.halt.wait(self.interval + MARGIN)
            self.outcome = self.outcome or "stopped polling"
        except Exception as error:  # reported by the check that waits for it
            self.outcome = f"{type(error).__name__}: {error}"

    def pending_seen(self):
        return any(error == "authorization_pending" for _, error in self.polls)

    def wait_pending(self, timeout=STEP_TIMEOUT):
        deadline = time.monotonic() + timeout
        while not self.pending_seen() and self.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        expect(self.pending_seen(), f"no authorization_pending; polls: {self.describe()}")

    def finish(self, timeout):
        self.join(timeout)
        expect(not self.is_alive(), f"still polling after {timeout:.0f} s; polls: {self.describe()}")

    def describe(self):
        return ", ".join(f"{error} at {at:.1f} s" for at, error in self.polls) or "none"

    def stop(self):
        self.halt.set()
        self.join(10)

    def failure_log(self):
        return self.name, [f"{at:6.1f} s  {error}" for at, error in self.polls]


# ---------------------------------------------------------------------- browser

def view(driver):
    return driver.script(DEVICE_VIEW_JS)


def wait_view(driver, predicate, what, timeout=STEP_TIMEOUT):
    """Waits for the page's device view to satisfy `predicate`; returns that snapshot."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = view(driver)
        except bt.WebDriverError:
            last = None  # between two documents
        if last is not None and predicate(last):
            return last
        time.sleep(0.1)
    raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}; at {last and last['href']!r}, "
                      f"status {last and last['state']!r} {last and last['status']!r}")


def sign_in_form(driver, code, href):
    """The sign-in form the device page shows, naming the client and the code."""
    at = wait_view(driver, lambda v: v["signedOut"] and v["continueTo"], "the sign-in form to name the device")
    expect(at["href"] == href, f"the browser is at {at['href']!r}, wanted {href!r}")
    wanted = f"Signing in to connect {CLIENT['name']} (code {code})"
    expect(at["continueTo"] == wanted, f"the form reads {at['continueTo']!r}, wanted {wanted!r}")
    expect(not at["ask"] and not at["form"] and not at["signedIn"], f"other views show too: {at}")
    return at


def approval_view(driver, code, href):
    """The approval view: the client's name, the user's, and the device's code."""
    at = wait_view(driver, lambda v: v["ask"] or v["state"] == "error", "the approval view")
    expect(at["ask"] and at["approve"], f"the page shows {at['state']}: {at['status']!r}")
    expect(at["href"] == href, f"the browser is at {at['href']!r}, wanted {href!r}")
    expect(CLIENT["name"] in (at["question"] or "") and USER in (at["question"] or ""), f"the page asks {at['question']!r}")
    expect(at["shownCode"] == code, f"the page shows the code {at['shownCode']!r}, the device {code!r}")
    expect(not at["signedOut"] and not at["signedIn"] and not at["form"], f"other views show too: {at}")
    return at


def decide(driver, button, said):
    driver.click(button)
    at = wait_view(driver, lambda v: v["done"] or v["state"] == "error", "the page to take the answer")
    expect(at["done"] and at["state"] == "ok", f"#status is {at['state']!r} ({at['error']}): {at['status']!r}")
    expect((at["doneText"] or "").startswith(said), f"the page reads {at['doneText']!r}")
    expect(not at["ask"], "the approval buttons still show")


def type_code(driver, origin, typed):
    """/device without a code: types `typed` into its form and continues."""
    driver.navigate(origin + "/device")
    at = wait_view(driver, lambda v: v["form"], "the form asking for the code")
    expect(at["typed"] == "" and not at["ask"] and not at["signedOut"], f"the page shows {at}")
    driver.type_into("#device-code", typed)
    driver.click("#device-next")
    href = origin + "/device?" + urllib.parse.urlencode({"user_code": typed})
    wait_until(driver, lambda w: w["href"] == href, f"the browser to open {href}")
    return href


# ------------------------------------------------------------------------ run

def run(results, args, workdir, live):
    check = results.check
    binary = os.path.abspath(args.server_binary)
    if not check("server binary exists", lambda: expect(os.access(binary, os.X_OK), f"{binary} is not executable")):
        return

    database = os.path.join(workdir, "db.sqlite")
    port = harness.start_server(check, live, binary, database, "server starts and prints 'listening on http://HOST:PORT'")
    if port is None:
        return
    origin = f"http://localhost:{port}"

    if not check(f"passkey-server clients add registers the public client '{CLIENT['id']}' for the device flow",
                 lambda: register_client(binary, database)):
        return

    def discovery():
        status, metadata, _ = bt.http("GET", origin + "/.well-known/openid-configuration")
        expect(status == 200 and isinstance(metadata, dict), f"discovery answered {status}")
        expect(metadata.get("issuer") == origin, f"issuer is {metadata.get('issuer')!r}")
        endpoint = metadata.get("device_authorization_endpoint")
        expect(endpoint == origin + "/oauth/device", f"device_authorization_endpoint is {endpoint!r}")
        expect(DEVICE_GRANT in metadata.get("grant_types_supported", []),
               f"grant_types_supported is {metadata.get('grant_types_supported')}")
        return metadata
    metadata = check("discovery lists device_authorization_endpoint and the device_code grant", discovery)
    if not metadata:
        return
    token_endpoint = metadata["token_endpoint"]

    first = check("the device asks: a device code, a user code like BCDF-GHJK, verification URIs on the "
                  "server's origin, expires_in 600, interval 5 and a QR code (SVG and text)", lambda: ask(metadata, origin))
    if not first:
        return
    code = first["user_code"]
    poller = harness.started(live, Poller(token_endpoint, first))
    poller.start()
    check("the device polls the token endpoint and is told authorization_pending", poller.wait_pending)

    driver = harness.start_browser(check, args, live, no_autofill=True)
    if driver is None:
        return

    def opened():
        driver.add_authenticator()
        driver.navigate(first["verification_uri_complete"])
        sign_in_form(driver, code, first["verification_uri_complete"])
    if not check(f"verification_uri_complete opens the sign-in form, which names {CLIENT['name']} and the code", opened):
        return

    def registered():
        driver.type_into("#username", USER)
        driver.click("#register")
        approval_view(driver, code, first["verification_uri_complete"])
    if not check(f"an account '{USER}' is created there with a passkey, and the page asks to approve "
                 f"{CLIENT['name']}, showing the device's code", registered):
        return

    approved_at = []

    def approve():
        decide(driver, "#device-approve", "Approved")
        approved_at.append(time.monotonic() - poller.started_at)
    if not check("Approve: the page says the device is approved (#status ok)", approve):
        return

    def tokens():
        poller.finish(poller.interval + 2 * MARGIN + 10)
        expect(poller.outcome == "tokens", f"the device ended with {poller.outcome}; polls: {poller.describe()}")
        told = [error for _, error in poller.polls]
        expect("slow_down" not in told, f"a device honouring the interval was told slow_down: {poller.describe()}")
        after = [at for at, _ in poller.polls if at >= approved_at[0]]
        expect(len(after) <= 2, f"{len(after)} polls after the approval: {poller.describe()}")
        body = poller.tokens
        expect(str(body.get("token_type", "")).lower() == "bearer", f"token_type is {body.get('token_type')!r}")
        expect(body.get("access_token") and body.get("id_token"), f"the answer has {sorted(body)}")
        expect(isinstance(body.get("expires_in"), int) and body["expires_in"] > 0, f"expires_in is {body.get('expires_in')!r}")
        return body
    issued = check("polling every interval, the device gets an access token and an ID token within a poll or two "
                   "of the approval, never told slow_down", tokens)
    if not issued:
        return

    claims = {}

    def id_token():
        status, jwks, _ = bt.http("GET", metadata["jwks_uri"])
        expect(status == 200 and isinstance(jwks, dict), f"the JWKS answered {status}")
        _, got = verify_rs256(issued["id_token"], jwks)
        # The verifier is not vacuous: the same token with another payload does not verify.
        head, payload, signature = issued["id_token"].split(".")
        forged = bt.b64url(json.dumps({**got, "preferred_username": "mallory"}).encode())
        try:
            verify_rs256(f"{head}.{forged}.{signature}", jwks)
        except CheckFailed:
            pass
        else:
            raise CheckFailed("a token with another payload verified too")
        now = time.time()
        expect(got.get("iss") == origin, f"iss is {got.get('iss')!r}")
        expect(got.get("aud") in (CLIENT["id"], [CLIENT["id"]]), f"aud is {got.get('aud')!r}")
        expect(got.get("preferred_username") == USER, f"preferred_username is {got.get('preferred_username')!r}")
        expect(got.get("sub"), "no sub")
        expect(isinstance(got.get("exp"), int) and got["exp"] > now, f"exp is {got.get('exp')!r}")
        expect(isinstance(got.get("iat"), int) and got["iat"] <= now + 60, f"iat is {got.get('iat')!r}")
        if "at_hash" in got:
            wanted = bt.b64url(hashlib.sha256(issued["access_token"].encode()).digest()[:16])
            expect(got["at_hash"] == wanted, f"at_hash is {got['at_hash']!r}, wanted {wanted!r}")
        claims.update(got)
    check(f"the ID token verifies against the JWKS (RS256) with aud {CLIENT['id']}, iss the origin and "
          f"preferred_username {USER}", id_token)

    def info():
        status, body, _ = userinfo(metadata["userinfo_endpoint"], issued["access_token"])
        expect(status == 200 and isinstance(body, dict), f"userinfo answered {status}: {str(body)[:200]}")
        expect(body.get("sub") and body.get("sub") == claims.get("sub"), f"userinfo's sub is {body.get('sub')!r}, "
                                                                         f"the ID token's {claims.get('sub')!r}")
        expect(body.get("preferred_username") == USER, f"userinfo's preferred_username is {body.get('preferred_username')!r}")
    check("userinfo with the access token answers the ID token's sub", info)

    def redeemed_again():
        status, body = poll(token_endpoint, first["device_code"])
        expect(error_of(status, body) == "invalid_grant", f"the token endpoint answered {status}: {str(body)[:200]}")
    if check("redeeming the device code a second time is invalid_grant", redeemed_again):
        def revoked():
            status, body, _ = userinfo(metadata["userinfo_endpoint"], issued["access_token"])
            expect(status == 401, f"userinfo answered {status}: {str(body)[:200]}")
        check("that second redemption revokes the access token issued for the code (userinfo 401)", revoked)

    # A device that does not wait: its second poll is too soon. The interval then grows by 5 s
    # for good, so a poll the old interval after that is still too soon; that poll runs in the
    # background while the browser denies another request.
    follow_up = {}

    def fast():
        answer = ask(metadata, origin)
        told = [error_of(*poll(token_endpoint, answer["device_code"])) for _ in range(2)]
        expect(told == ["authorization_pending", "slow_down"], f"the polls were told {told}")

        def later():
            time.sleep(answer["interval"] + 2 * MARGIN)
            try:
                follow_up["error"] = error_of(*poll(token_endpoint, answer["device_code"]))
            except Exception as error:
                follow_up["error"] = f"{type(error).__name__}: {error}"
        thread = threading.Thread(target=later, name="slow_down follow-up", daemon=True)
        thread.start()
        follow_up["thread"] = thread
    check("a device that polls twice without waiting is told slow_down the second time", fast)

    second = check("another device request for the denial", lambda: ask(metadata, origin))
    if second:
        denied = harness.started(live, Poller(token_endpoint, second))
        denied.start()
        deny_checks(check, driver, origin, second, denied)

    def unknown():
        issued_codes = {code, second["user_code"] if second else None}
        wrong = code
        while wrong in issued_codes:
            wrong = "-".join("".join(secrets.choice(ALPHABET) for _ in range(4)) for _ in range(2))
        type_code(driver, origin, wrong)
        at = wait_view(driver, lambda v: v["state"] == "error", "the page to refuse the code")
        expect(at["error"] == "unknown_user_code", f"#status data-error is {at['error']!r}: {at['status']!r}")
        expect(at["form"] and at["typed"] == wrong, f"the form shows {at['typed']!r} ({at})")
        expect(not at["ask"] and not at["signedOut"], f"other views show too: {at}")
    check("a wrong code typed on /device is refused: #status data-error unknown_user_code, the form shows it again", unknown)

    if second:
        def answered():
            driver.navigate(second["verification_uri_complete"])
            at = wait_view(driver, lambda v: v["state"] == "error", "the page to refuse the code")
            expect(at["error"] == "unknown_user_code", f"#status data-error is {at['error']!r}: {at['status']!r}")
            expect(not at["ask"], "the approval view shows")
        check("the denied request's code is refused on the page too (unknown_user_code)", answered)

    def grew():
        thread = follow_up.get("thread")
        expect(thread is not None, "the follow-up poll never started")
        thread.join(STEP_TIMEOUT)
        expect(not thread.is_alive(), "the follow-up poll did not finish")
        expect(follow_up.get("error") == "slow_down", f"the poll was told {follow_up.get('error')!r}")
    if follow_up:
        check("after slow_down, a poll the original 5 s later is still told slow_down (the interval grew by 5 s)", grew)


def deny_checks(check, driver, origin, answer, poller):
    """The signed-in browser types the code on /device, signs in again for it, and denies."""
    code = answer["user_code"]
    check("the device polls for the second request and is told authorization_pending", poller.wait_pending)
    typed = code.replace("-", "").lower()

    typed_href = []

    def sign_in_again():
        href = type_code(driver, origin, typed)
        typed_href.append(href)
        sign_in_form(driver, code, href)
        status = driver.script("return fetch('/me', {credentials: 'same-origin'}).then((r) => r.status);")
        expect(status == 200, f"/me answered {status}: the browser is not signed in")
    if not check(f"/device without a code asks for it; typed as '{typed}', it opens the sign-in form although the "
                 "browser is signed in (its session predates the request)", sign_in_again):
        return

    def signed_in():
        driver.type_into("#username", USER)
        driver.click("#login")
        approval_view(driver, code, typed_href[0])
    if not check("signing in with the passkey (#login) leads to the approval view, showing the code as the device does",
                 signed_in):
        return
    if not check("Deny: the page says the device is denied (#status ok)", lambda: decide(driver, "#device-deny", "Denied")):
        return

    def told():
        poller.finish(poller.interval + 2 * MARGIN + 10)
        expect(poller.outcome == "access_denied", f"the device ended with {poller.outcome}; polls: {poller.describe()}")
    check("the device's next poll is told access_denied", told)


if __name__ == "__main__":
    sys.exit(harness.main(__doc__, "passkey-device-", run))
