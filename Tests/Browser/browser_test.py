#!/usr/bin/env python3
"""Real-browser test of Public/index.html against a running passkey-server.

Starts `passkey-server serve --port 0`, starts chromedriver, drives headless
Chromium over plain W3C WebDriver HTTP/JSON, and uses the WebDriver extension
for virtual authenticators (WebAuthn Level 3, section 11) to run every
ceremony the page offers. Standard library only.

    python3 Tests/Browser/browser_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import argparse
import base64
import datetime
import hashlib
import http.client as httpclient
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import urllib.error
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
STATE_TIMEOUT = 15.0       # seconds to wait for #status to settle
OVERALL_BUDGET = 170.0     # seconds for the whole run (setup included)
SCREENSHOT = "/tmp/passkey-page.png"
REAUTH_WINDOW = 30         # --reauth-window: the shortest the server takes (the step-up checks wait it out)


class CheckFailed(Exception):
    """A check's expectation did not hold; the message says why."""


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def record(self, name, error=None):
        if error is None:
            self.passed += 1
            print(f"ok - {name}", flush=True)
        else:
            self.failed += 1
            why = " ".join(str(error).split()) or type(error).__name__
            print(f"not ok - {name}: {why}", flush=True)

    def check(self, name, function):
        """Runs one check; returns its result, or None when it failed."""
        try:
            value = function()
        except Exception as error:  # every failure becomes a reported line
            self.record(name, error)
            return None
        self.record(name)
        return value if value is not None else True


def expect(condition, why):
    if not condition:
        raise CheckFailed(why)


def picture(driver, name):
    """Saves the window, 1100 x 800 CSS pixels, as .build/screenshots/NAME.png: the pictures of
    the README and the documentation (`make screenshots` copies them into docs/images)."""
    driver.command("POST", "/window/rect", {"width": 1100, "height": 800})
    directory = os.path.join(REPO, ".build", "screenshots")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name + ".png")
    size = driver.screenshot(path)
    with open(path, "rb") as f:
        expect(f.read(8) == b"\x89PNG\r\n\x1a\n" and size > 10_000, f"{path} is {size} bytes, not a picture")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=30.0, headers=None, form=None):
    """Returns (status, parsed JSON or raw text, response headers). `body` is sent as JSON,
    `form` (a dict) as application/x-www-form-urlencoded."""
    if form is not None:
        data, media_type = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    else:
        data, media_type = (None if body is None else json.dumps(body).encode()), "application/json; charset=utf-8"
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", media_type)
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw, head = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, head = error.code, error.read(), error.headers
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text) if text else None, head
    except ValueError:
        return status, text, head


# --------------------------------------------------------------------- server

class Server:
    """passkey-server serve --port 0, with its output drained by threads."""

    LISTENING = re.compile(r"listening on http://([^\s:/]+|\[[^\]]+\]):(\d+)")

    def __init__(self, binary, database, public_dir, port=0, extra=()):
        self.lines = queue.Queue()
        self.log = []
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(port), "--database", database, "--public-dir", public_dir, *extra],
            cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for stream, name in ((self.process.stdout, "stdout"), (self.process.stderr, "stderr")):
            threading.Thread(target=self._drain, args=(stream, name), daemon=True).start()

    def _drain(self, stream, name):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.log.append(f"[{name}] {line}")
            self.lines.put((name, line))
        self.lines.put((name, None))

    def wait_listening(self, timeout):
        """Returns (stream name, port) of the `listening on` line."""
        deadline = time.monotonic() + timeout
        closed = set()
        while time.monotonic() < deadline:
            try:
                name, line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None and len(closed) == 2:
                    break
                continue
            if line is None:
                closed.add(name)
                if len(closed) == 2:
                    break
                continue
            match = self.LISTENING.search(line)
            if match:
                return name, int(match.group(2))
        code = self.process.poll()
        tail = " | ".join(self.log[-8:])
        raise CheckFailed(f"no 'listening on' line (exit code {code}); output: {tail}")

    def stop(self):
        """SIGTERM, then wait; returns the exit code (killing it if it hangs)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
                raise CheckFailed("did not exit within 10 s of SIGTERM; killed")
        return self.process.returncode


# ---------------------------------------------------------- Apple stand-in

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class AppleStandIn:
    """Apple's key set and authorize page on 127.0.0.1, for the web flow of Sign in with Apple.

    The authorize page posts a form back to `redirect_uri` (`response_mode=form_post`), as
    Apple's does, with an identity token signed RS256 by a key made here with the openssl
    command (no Python package needed)."""

    CLIENT_ID = "com.example.web"
    SUBJECT = "000123.browser-test"
    EMAIL = "apple-browser@example.com"

    def __init__(self, workdir):
        # The Apple ID the authorize page signs in as (a test may switch to another).
        self.subject = self.SUBJECT
        self.key = os.path.join(workdir, "apple-test-key.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", self.key],
                       check=True, capture_output=True)
        text = subprocess.run(["openssl", "rsa", "-in", self.key, "-noout", "-modulus"],
                              check=True, capture_output=True, text=True).stdout
        modulus = bytes.fromhex(text.strip().split("=", 1)[1])
        self.jwks = json.dumps({"keys": [{"kty": "RSA", "kid": "browser-test", "use": "sig", "alg": "RS256",
                                          "n": b64url(modulus), "e": "AQAB"}]}).encode()
        # An operator's push gateway too (--push-provider webhook): the pushes it received.
        self.pushes = []
        # And a Messages for Business redirect_uri: the query strings the browser arrived with.
        self.mfb_callbacks = []
        # And an OpenID relying party's redirect_uri, the same way.
        self.oidc_callbacks = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/auth/keys":
                    self.answer(200, "application/json", stand_in.jwks)
                elif url.path == "/auth/authorize":
                    query = dict(urllib.parse.parse_qsl(url.query))
                    self.answer(200, "text/html; charset=utf-8", stand_in.authorize_page(query))
                elif url.path == "/mfb/callback":
                    stand_in.mfb_callbacks.append(dict(urllib.parse.parse_qsl(url.query)))
                    self.answer(200, "text/html; charset=utf-8", b"<!doctype html><title>Signed in</title>")
                elif url.path == "/oidc/callback":
                    stand_in.oidc_callbacks.append(dict(urllib.parse.parse_qsl(url.query)))
                    self.answer(200, "text/html; charset=utf-8", b"<!doctype html><title>Signed in</title>")
                else:
                    self.answer(404, "text/plain", b"not found")

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if urllib.parse.urlsplit(self.path).path == "/push":
                    stand_in.pushes.append(json.loads(body))
                    self.answer(200, "application/json", b"{}")
                else:
                    self.answer(404, "text/plain", b"not found")

            def answer(self, status, content_type, body):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def token(self, audience, nonce):
        now = int(time.time())
        header = b64url(json.dumps({"alg": "RS256", "kid": "browser-test"}).encode())
        claims = b64url(json.dumps({
            "iss": "https://appleid.apple.com", "aud": audience, "sub": self.subject, "iat": now, "exp": now + 600,
            "nonce": nonce, "email": self.EMAIL, "email_verified": "true", "is_private_email": "false",
        }).encode())
        signing_input = f"{header}.{claims}".encode()
        signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.key], input=signing_input,
                                   check=True, capture_output=True).stdout
        return f"{header}.{claims}.{b64url(signature)}"

    def authorize_page(self, query):
        """What Apple's page does once the user agreed: post the token back."""
        fields = {
            "id_token": self.token(query.get("client_id", ""), query.get("nonce", "")),
            "state": query.get("state", ""),
            "user": json.dumps({"name": {"firstName": "Browser", "lastName": "Test"}, "email": self.EMAIL}),
        }
        inputs = "".join(f'<input type="hidden" name="{name}" value="{value.replace(chr(34), "&quot;")}">'
                         for name, value in fields.items())
        action = query.get("redirect_uri", "").replace('"', "")
        return (f'<!doctype html><title>Apple (stand-in)</title><form id="f" method="post" action="{action}">'
                f'{inputs}</form><script>document.getElementById("f").submit()</script>').encode()

    def stop(self):
        self.server.shutdown()


# ------------------------------------------------------------------ webdriver

class WebDriverError(Exception):
    pass


class WebDriver:
    """The few W3C WebDriver commands this test needs, over HTTP/JSON."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def command(self, method, path, body=None, timeout=30.0):
        url = self.base + (f"/session/{self.session}" if self.session else "") + path
        if method == "POST" and body is None:
            body = {}
        status, data, _ = http(method, url, body, timeout=timeout)
        value = data.get("value") if isinstance(data, dict) else data
        if status != 200:
            if isinstance(value, dict):
                raise WebDriverError(f"{method} {path}: {value.get('error')}: "
                                     f"{str(value.get('message', ''))[:300]}")
            raise WebDriverError(f"{method} {path}: HTTP {status}: {str(data)[:300]}")
        return value

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status, data, _ = http("GET", self.base + "/status", timeout=2)
                if status == 200 and data.get("value", {}).get("ready"):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise CheckFailed("chromedriver did not become ready")

    def start_session(self):
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": CHROME_ARGS},
        }}}
        value = self.command("POST", "/session", capabilities, timeout=60)
        self.session = value["sessionId"]

    def end_session(self):
        if self.session:
            try:
                self.command("DELETE", "", timeout=15)
            finally:
                self.session = None

    # -- page
    def navigate(self, url):
        self.command("POST", "/url", {"url": url})

    def script(self, source, *args):
        """Runs a function body in the page; a returned Promise is awaited."""
        return self.command("POST", "/execute/sync", {"script": source, "args": list(args)})

    def find(self, selector):
        value = self.command("POST", "/element", {"using": "css selector", "value": selector})
        return value[ELEMENT_KEY]

    def click(self, selector):
        self.command("POST", f"/element/{self.find(selector)}/click")

    def type_into(self, selector, text):
        element = self.find(selector)
        self.command("POST", f"/element/{element}/clear")
        if text:
            self.command("POST", f"/element/{element}/value", {"text": text})

    def screenshot(self, path):
        png = base64.b64decode(self.command("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        return len(png)

    def cdp(self, command, params=None):
        """A Chrome DevTools Protocol command through chromedriver."""
        return self.command("POST", "/goog/cdp/execute", {"cmd": command, "params": params or {}})

    # -- WebAuthn L3 §11 virtual authenticators
    def add_authenticator(self, transport="internal", extensions=()):
        return self.command("POST", "/webauthn/authenticator", {
            "protocol": "ctap2",
            "transport": transport,
            "hasResidentKey": True,
            "hasUserVerification": True,
            "isUserConsenting": True,
            "isUserVerified": True,
            **({"extensions": list(extensions)} if extensions else {}),
        })

    def add_credential(self, authenticator, credential):
        """Puts a credential (as `credentials` lists it) into an authenticator."""
        self.command("POST", f"/webauthn/authenticator/{authenticator}/credential", {
            key: credential[key] for key in ("credentialId", "isResidentCredential", "rpId", "privateKey", "userHandle", "signCount")
        })

    def remove_authenticator(self, authenticator):
        self.command("DELETE", f"/webauthn/authenticator/{authenticator}")

    def credentials(self, authenticator):
        return self.command("GET", f"/webauthn/authenticator/{authenticator}/credentials")

    def replace_credential(self, authenticator, credential, sign_count):
        """Removes a credential and adds it back (same key) with another signature counter."""
        base = f"/webauthn/authenticator/{authenticator}"
        self.command("DELETE", f"{base}/credentials/{credential['credentialId']}")
        self.add_credential(authenticator, {**credential, "signCount": sign_count})


# ----------------------------------------------------------------- page model

PAGE_STATE_JS = """
const q = (s) => document.querySelector(s);
const status = q('#status');
return {
  state: status ? status.dataset.state : null,
  text: status ? status.textContent : null,
  error: status ? (status.dataset.error || null) : null,
  signedIn: q('#signed-in') ? !q('#signed-in').hidden : false,
  signedOut: q('#signed-out') ? !q('#signed-out').hidden : false,
  whoami: q('#whoami') ? q('#whoami').textContent : null,
  passkeys: Array.from(document.querySelectorAll('#passkeys [data-credential-id]')).map((li) => ({
    id: li.dataset.credentialId,
    signCount: li.dataset.signCount,
    lastUsed: li.dataset.lastUsed,
    lastUsedText: (li.querySelector('.last-used') || {}).textContent || '',
    signCountText: (li.querySelector('.sign-count') || {}).textContent || '',
    possiblyCloned: li.dataset.possiblyCloned === 'true',
    warning: (li.querySelector('.warning') || {}).textContent || '',
    text: li.textContent,
  })),
  sessions: Array.from(document.querySelectorAll('#sessions > li.session')).map((li) => ({
    id: li.dataset.sessionId,
    current: li.dataset.current === 'true',
    canEnd: !!li.querySelector('.end-session'),
    text: li.textContent,
  })),
};
"""

STATUS_LOG_JS = """
const status = document.querySelector('#status');
if (!window.__statusLog) {
  const note = () => {
    const entry = `${status.dataset.state}: ${status.textContent}`;
    const log = window.__statusLog;
    if (status.dataset.state !== 'stale' && log[log.length - 1] !== entry) log.push(entry);
  };
  window.__statusLog = [];
  new MutationObserver(note).observe(status, {attributes: true, childList: true, characterData: true, subtree: true});
}
window.__statusLog.length = 0;
status.dataset.state = 'stale';
"""


# A second sign-in of the signed-in account from this browser, outside the page: a usernameless
# ceremony with the virtual authenticator whose requests carry no cookie and whose answers set
# none (credentials: 'omit'), so the browser keeps its own session and the new session's token
# comes back in the finalize answer's body only.
SECOND_SESSION_JS = """
return (async () => {
  const options = await fetch('/authentication_initialize', {credentials: 'omit', headers: {Accept: 'application/json'}});
  if (!options.ok) return {step: 'initialize', status: options.status, body: await options.text()};
  const {publicKey} = await options.json();
  const credential = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey)});
  const finalized = await fetch('/authentication_finalize', {
    method: 'POST', credentials: 'omit',
    headers: {Accept: 'application/json', 'Content-Type': 'application/json'},
    body: JSON.stringify(credential.toJSON()),
  });
  return {step: 'finalize', status: finalized.status, body: await finalized.text()};
})();
"""


# A JSON request from the page, with its session cookie (or, with `omit`, none); answered as
# {status, body (parsed JSON or null), text}.
PAGE_FETCH_JS = """
const [method, path, body, omit] = arguments;
const init = {method, credentials: omit ? 'omit' : 'same-origin', headers: {Accept: 'application/json'}};
if (body !== null && body !== undefined) {
  init.headers['Content-Type'] = 'application/json';
  init.body = JSON.stringify(body);
}
return fetch(path, init).then(async (r) => {
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch (error) {}
  return {status: r.status, body: json, text};
});
"""

# Put on the signed-in page before it adds a passkey that needs a step-up: records every get()
# (the step-up's) and holds create() until the test releases it, so the test can take the
# account's passkey out of the virtual authenticator between the two (with it inside, the
# authenticator would refuse the new passkey: excludeCredentials). STEP_UP_GATE_OFF_JS puts the
# browser's own methods back and lets a create() still held go on.
STEP_UP_GATE_JS = """
const container = navigator.credentials;
const get = container.get.bind(container);
const create = container.create.bind(container);
window.__gets = [];
window.__createHeld = false;
window.__createGate = new Promise((resolve) => { window.__releaseCreate = resolve; });
container.get = (options) => {
  const publicKey = options.publicKey || {};
  window.__gets.push({userVerification: publicKey.userVerification || null, mediation: options.mediation || null,
                      allowCredentials: (publicKey.allowCredentials || []).length});
  return get(options);
};
container.create = async (options) => {
  window.__createHeld = true;
  await window.__createGate;
  return create(options);
};
"""
STEP_UP_GATE_OFF_JS = """
delete navigator.credentials.get;
delete navigator.credentials.create;
if (window.__releaseCreate) window.__releaseCreate();  // a create() still held goes on (and fails)
"""

# A step-up ceremony of the page's session, up to the assertion: {"reauthenticate": true} with
# the cookie, then get() with the options; returns the options and the assertion's JSON (the
# test posts it to /authentication_finalize itself, to see the answer's headers).
STEP_UP_ASSERTION_JS = """
return (async () => {
  const options = await fetch('/authentication_initialize', {
    method: 'POST', credentials: 'same-origin',
    headers: {Accept: 'application/json', 'Content-Type': 'application/json'},
    body: JSON.stringify({reauthenticate: true}),
  });
  if (!options.ok) return {status: options.status, body: await options.text()};
  const {publicKey} = await options.json();
  const credential = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey)});
  return {status: options.status, publicKey, credential: credential.toJSON()};
})();
"""

# A registration from the page outside its session: no cookie sent or set (credentials: 'omit');
# with a bearer token (arguments[1]) it adds a passkey to that session's account. Answers the
# step reached, its status and body, and the new credential's id.
REGISTER_OUTSIDE_JS = """
const [userName, bearer] = arguments;
return (async () => {
  const headers = {Accept: 'application/json', 'Content-Type': 'application/json'};
  if (bearer) headers.Authorization = 'Bearer ' + bearer;
  const options = await fetch('/registration_initialize', {
    method: 'POST', credentials: 'omit', headers, body: JSON.stringify({user_name: userName}),
  });
  if (!options.ok) return {step: 'initialize', status: options.status, body: await options.text()};
  const {publicKey} = await options.json();
  let credential;
  try {
    credential = await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(publicKey)});
  } catch (error) {
    return {step: 'create', status: 0, body: String(error)};
  }
  const finalized = await fetch('/registration_finalize', {
    method: 'POST', credentials: 'omit', headers, body: JSON.stringify(credential.toJSON()),
  });
  return {step: 'finalize', status: finalized.status, body: await finalized.text(), id: credential.id};
})();
"""


class Page:
    def __init__(self, driver, origin):
        self.driver = driver
        self.origin = origin

    def snapshot(self):
        return self.driver.script(PAGE_STATE_JS)

    def open(self, query=""):
        self.driver.navigate(self.origin + "/" + query)
        # The page settles once its /me call has answered: one of the views shows.
        return self.wait_for(lambda s: s["signedIn"] or s["signedOut"], "a view to show")

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

    def run(self, click_selector, expect_state):
        """Clicks a button, then waits for #status to leave `busy` and checks its state."""
        # Mark the status so a stale ok/error from the previous ceremony is not mistaken,
        # and log every later change of it for the failure message.
        self.driver.script(STATUS_LOG_JS)
        self.driver.click(click_selector)
        snap = self.wait_for(lambda s: s["state"] in ("ok", "error"), "#status ok or error")
        if snap["state"] != expect_state:
            time.sleep(0.5)  # let a follow-up change land in the log too
            history = " -> ".join(self.driver.script("return window.__statusLog || [];"))
            raise CheckFailed(f"#status data-state is {snap['state']!r}, wanted {expect_state!r}: "
                              f"{snap['text']!r} (changes: {history})")
        return snap

    def fetch_status(self, path):
        return self.driver.script(
            "return fetch(arguments[0], {credentials: 'same-origin'}).then((r) => r.status);", path)


# ---------------------------------------------------------------------- steps

def run_checks(results, driver, page, server_port, context):
    origin = page.origin
    check = results.check
    state = {}

    def health():
        status, _, _ = http("GET", f"http://127.0.0.1:{server_port}/healthz", timeout=5)
        expect(status == 200, f"GET /healthz answered {status}")
    check("GET /healthz answers 200", health)

    def loads():
        snap = page.open()
        hooks = driver.script("""
            const q = (s) => document.querySelector(s);
            return {
              username: !!q('input#username'),
              autocomplete: q('#username') && q('#username').getAttribute('autocomplete'),
              label: !!q('label[for=username]'),
              register: !!q('button#register'),
              login: !!q('button#login'),
              status: !!q('#status'),
              live: q('#status') && q('#status').getAttribute('aria-live'),
            };""")
        missing = [k for k in ("username", "label", "register", "login", "status") if not hooks[k]]
        expect(not missing, f"missing hooks: {missing}")
        expect(hooks["autocomplete"] == "username webauthn",
               f"#username autocomplete is {hooks['autocomplete']!r}")
        expect(hooks["live"] in ("polite", "assertive"), "#status has no aria-live")
        expect(snap["signedOut"] and not snap["signedIn"], "a fresh browser does not see the sign-in view")
    if not check("page loads with #username, #register, #login, #status", loads):
        return  # nothing else can work
    check("a picture of the sign-in page (.build/screenshots/sign-in.png)", lambda: picture(driver, "sign-in"))

    authenticator = check("virtual authenticator added (ctap2, internal, resident keys, UV)",
                          driver.add_authenticator)
    if not authenticator:
        return
    state["authenticator"] = authenticator

    def register_alice():
        driver.type_into("#username", "alice")
        snap = page.run("#register", "ok")
        expect("Passkey created for alice" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"], "the signed-in view is not shown")
        state["after_register"] = snap
    registered = check("register 'alice' -> #status ok", register_alice)

    def one_resident():
        creds = driver.credentials(authenticator)
        expect(len(creds) == 1, f"authenticator holds {len(creds)} credentials")
        cred = creds[0]
        expect(cred.get("isResidentCredential") is True, "the credential is not resident (discoverable)")
        expect(cred.get("rpId") == "localhost", f"rpId is {cred.get('rpId')!r}")
        expect(cred.get("userHandle"), "the credential has no user handle")
        user_id = base64.urlsafe_b64decode(pad(cred["userHandle"]))
        expect(b"alice" not in user_id, "user.id contains the user name")
        expect(len(user_id) >= 16, f"user.id is {len(user_id)} bytes, fewer than 16")
        state["first_credential"] = cred
    if registered:
        check("virtual authenticator holds 1 resident credential for rpId localhost", one_resident)

    def listed_once():
        snap = page.snapshot()
        expect("alice" in (snap["whoami"] or ""), f"heading is {snap['whoami']!r}")
        expect(len(snap["passkeys"]) == 1, f"#passkeys lists {len(snap['passkeys'])} items")
        cred = state.get("first_credential")
        if cred:
            expect(same_id(snap["passkeys"][0]["id"], cred["credentialId"]),
                   f"listed id {snap['passkeys'][0]['id']!r} is not the authenticator's "
                   f"{cred['credentialId']!r}")
        expect(snap["passkeys"][0]["lastUsed"] == "", "a new passkey already has a last-used time")
    if registered:
        check("/me through the page: signed in as alice, #passkeys has 1 item", listed_once)

    def excluded():
        snap = page.run("#add-passkey", "error")
        expect(snap["error"] == "InvalidStateError",
               f"data-error is {snap['error']!r} ({snap['text']!r}), wanted InvalidStateError")
        expect(len(snap["passkeys"]) == 1, f"#passkeys lists {len(snap['passkeys'])} items")
        expect(len(driver.credentials(authenticator)) == 1, "the authenticator made a second credential")
    if registered:
        check("add-passkey on the same authenticator is refused (excludeCredentials) -> error", excluded)

    # A second device: the first authenticator goes away, a new one creates the second passkey.
    def second_passkey():
        driver.remove_authenticator(authenticator)
        state["authenticator"] = driver.add_authenticator()
        snap = page.run("#add-passkey", "ok")
        expect("Passkey created for alice" in snap["text"], f"status text is {snap['text']!r}")
        expect(len(snap["passkeys"]) == 2, f"#passkeys lists {len(snap['passkeys'])} items")
        creds = driver.credentials(state["authenticator"])
        expect(len(creds) == 1, f"the second authenticator holds {len(creds)} credentials")
        expect(creds[0]["userHandle"] == state["first_credential"]["userHandle"],
               "the second passkey has a different user handle")
        expect(any(same_id(p["id"], creds[0]["credentialId"]) for p in snap["passkeys"]),
               "the new credential is not listed")
    added = registered and check("add a second passkey (another authenticator) -> #passkeys has 2 items",
                                 second_passkey)
    authenticator = state["authenticator"]

    # From here on the page runs with ?autofill=off: a virtual authenticator answers a
    # conditional (autofill) request at once, which would sign the browser straight back
    # in after every logout. Autofill gets its own check further down.
    def reload_keeps_session():
        snap = page.open("?autofill=off")
        expect(snap["signedIn"], "after a reload the sign-in view shows (session not restored by /me)")
        expect(len(snap["passkeys"]) == (2 if added else 1), f"#passkeys lists {len(snap['passkeys'])}")
    if registered:
        check("reloading the page restores the signed-in view from /me", reload_keeps_session)

    def logout():
        snap = page.run("#logout", "ok")
        expect(snap["signedOut"] and not snap["signedIn"], "the sign-in view is not shown")
        expect(snap["passkeys"] == [], "the passkey list still shows")
        code = page.fetch_status("/me")
        expect(code == 401, f"GET /me after logout answered {code}")
    if registered:
        check("logout -> signed-out view, /me answers 401", logout)

    def named_sign_in():
        driver.type_into("#username", "alice")
        snap = page.run("#login", "ok")
        expect("Signed in as alice" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"] and "alice" in snap["whoami"], f"heading is {snap['whoami']!r}")
        state["named"] = snap
    signed_in = registered and check("sign in with name 'alice' -> #status ok", named_sign_in)

    def counter_shown():
        cred = driver.credentials(authenticator)[0]
        item = next((p for p in state["named"]["passkeys"] if same_id(p["id"], cred["credentialId"])), None)
        expect(item is not None, "the credential just used is not listed")
        expect(item["lastUsed"], "last used is empty after a sign-in")
        expect(item["lastUsedText"].strip() and item["lastUsedText"].strip() != "never",
               f"last used shows {item['lastUsedText']!r}")
        expect(int(item["signCount"]) == int(cred["signCount"]),
               f"page shows sign count {item['signCount']}, the authenticator is at {cred['signCount']}")
        expect(item["signCountText"].strip() == str(cred["signCount"]),
               f"sign count text is {item['signCountText']!r}")
        state["count_after_named"] = int(cred["signCount"])
    if signed_in:
        check("last used time and sign counter are shown after sign-in", counter_shown)

    def logout_again():
        snap = page.run("#logout", "ok")
        expect(snap["signedOut"], "the sign-in view is not shown")
    if signed_in:
        check("logout again", logout_again)

    def usernameless():
        driver.type_into("#username", "")
        snap = page.run("#login", "ok")
        state["verified_at"] = time.monotonic()  # this browser's session: user-verified from here (step-up)
        expect("alice" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"] and "alice" in snap["whoami"], f"heading is {snap['whoami']!r}")
        cred = driver.credentials(authenticator)[0]
        item = next((p for p in snap["passkeys"] if same_id(p["id"], cred["credentialId"])), None)
        expect(item is not None, "the credential just used is not listed")
        expect(int(item["signCount"]) == int(cred["signCount"]),
               f"page shows sign count {item['signCount']}, the authenticator is at {cred['signCount']}")
        before = state.get("count_after_named")
        if before is not None and int(cred["signCount"]) != 0:
            expect(int(cred["signCount"]) > before, "the sign counter did not advance")
    nameless = registered and check("usernameless sign-in (empty name) -> ok, alice shown", usernameless)

    def screenshot():
        driver.command("POST", "/window/rect", {"width": 1000, "height": 1100})
        size = driver.screenshot(SCREENSHOT)
        expect(size > 1000, f"screenshot is only {size} bytes")
    if nameless:
        check(f"screenshot of the signed-in view saved to {SCREENSHOT}", screenshot)

    # "Where you are signed in" lists the account's open sessions (GET /me/sessions), newest
    # first; this browser's is marked, every other one can be ended (DELETE /me/sessions/{id}).
    # The checks compare with the list as it was, so other open sessions of alice do not matter.
    def sessions_listed():
        snap = page.snapshot()
        expect(snap["signedIn"], "the page is not signed in")
        sessions = snap["sessions"]
        expect(sessions, "#sessions lists no session")
        current = [item for item in sessions if item["current"]]
        expect(len(current) == 1, f"{len(current)} of the {len(sessions)} sessions are marked current")
        text = current[0]["text"]
        for part in ("(this browser)", "by passkey", "Chrome", "127.0.0.1", "last used"):
            expect(part in text, f"this browser's session reads {text!r}, without {part!r}")
        expect(not current[0]["canEnd"], "this browser's session has an End button")
        expect(current[0]["id"], "this browser's session has no data-session-id")
        state["sessions_before"] = [item["id"] for item in sessions]
        state["current_session"] = current[0]["id"]
    listed = nameless and check("the account view lists this browser's session: (this browser), by passkey, Chrome",
                                sessions_listed)

    def session_ended():
        opened = driver.script(SECOND_SESSION_JS)
        expect(opened["step"] == "finalize" and opened["status"] == 200,
               f"the second sign-in's {opened['step']} answered {opened['status']}: {opened['body'][:200]}")
        answer = json.loads(opened["body"])
        token = answer.get("session")
        expect(token and answer.get("user_name") == "alice", f"the second sign-in answered {answer!r}")
        bearer = {"Authorization": f"Bearer {token}"}
        status, body, _ = http("GET", f"http://127.0.0.1:{server_port}/me/sessions", headers=bearer, timeout=10)
        expect(status == 200, f"GET /me/sessions with the second session's token answered {status}: {body!r}")
        second = [item["id"] for item in body["sessions"] if item["current"]]
        expect(len(second) == 1 and second[0] != state["current_session"],
               f"the second session's own list marks {second!r} current")
        state["ended_session"] = second[0]
        snap = page.open("?autofill=off")
        expect(snap["signedIn"], "the browser's session did not survive the second sign-in")
        snap = page.wait_for(lambda s: s["sessions"], "#sessions to list the sessions")
        ids = [item["id"] for item in snap["sessions"]]
        expect(ids == [second[0], *state["sessions_before"]],
               f"#sessions lists {ids!r}, wanted the second session {second[0]!r} before {state['sessions_before']!r}")
        newest = snap["sessions"][0]
        expect(not newest["current"] and newest["canEnd"], f"the second session is current or has no End button: {newest!r}")
        current = [item["id"] for item in snap["sessions"] if item["current"]]
        expect(current == [state["current_session"]], f"the sessions marked current are {current!r}")
        snap = page.run(f"#sessions li[data-session-id='{second[0]}'] .end-session", "ok")
        expect("Session ended" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"], "ending the other session signed this browser out")
        ids = [item["id"] for item in snap["sessions"]]
        expect(ids == state["sessions_before"], f"#sessions lists {ids!r} after ending the second session, "
                                                f"wanted {state['sessions_before']!r}")
        status, body, _ = http("GET", f"http://127.0.0.1:{server_port}/me", headers=bearer, timeout=10)
        expect(status == 401, f"GET /me with the ended session's token answered {status}")
    if listed:
        check("a second session of the account (signed in without cookies) is listed newest first with an End "
              "button; ending it takes it off the list and its token is refused", session_ended)

    def unknown_session():
        ids = [b64url(os.urandom(16))] + ([state["ended_session"]] if state.get("ended_session") else [])
        answers = driver.script(
            "return Promise.all(arguments[0].map((id) => fetch('/me/sessions/' + encodeURIComponent(id), "
            "{method: 'DELETE', credentials: 'same-origin', headers: {Accept: 'application/json'}})"
            ".then(async (r) => [r.status, await r.text()])));", ids)
        for id, (status, body) in zip(ids, answers):
            expect(status == 404, f"DELETE /me/sessions/{id} answered {status}: {body[:200]}")
        code = page.fetch_status("/me")
        expect(code == 200, f"GET /me answered {code} afterwards")
    if nameless:
        check("DELETE /me/sessions/{id} for an id that is no open session of the account answers 404", unknown_session)

    # The throwaway account the deletion checks at the very end delete (account_deletion_checks):
    # made here, outside this browser's session (no cookie sent or set), so that by the end its
    # session is older than the reauth window and deleting it has the page step up by itself,
    # without a wait of its own. Its two passkeys leave the authenticator at once (the checks
    # until then see only the others'); the deletion checks put the first back.
    def throwaway_account():
        name = THROWAWAY
        base = f"http://127.0.0.1:{server_port}"
        held = []

        def take_out(made, what):
            expect(made["step"] == "finalize" and made["status"] == 200,
                   f"{what}: {made['step']} answered {made['status']}: {made['body'][:200]}")
            found = [c for c in driver.credentials(authenticator) if same_id(c["credentialId"], made["id"])]
            expect(len(found) == 1, f"{what}: the authenticator holds {len(found)} credentials with the new id")
            driver.command("DELETE", f"/webauthn/authenticator/{authenticator}/credentials/{found[0]['credentialId']}")
            held.append(found[0])
            return json.loads(made["body"])

        answer = take_out(driver.script(REGISTER_OUTSIDE_JS, name, None), f"registering {name!r}")
        token = answer.get("session")
        expect(token and answer.get("user_name") == name, f"the registration answered {answer!r}")
        # (Its finalize opens a second session of the account: the deletion ends that one too.)
        second = take_out(driver.script(REGISTER_OUTSIDE_JS, name, token), f"a second passkey for {name!r}")
        expect(second.get("session") and second["session"] != token, f"the second registration answered {second!r}")
        bearer = {"Authorization": f"Bearer {token}"}
        status, account, _ = http("GET", base + "/me", headers=bearer, timeout=10)
        expect(status == 200 and account["user_name"] == name and len(account["credentials"]) == 2,
               f"GET /me with the new session's token answered {status}: {str(account)[:300]}")
        # The server takes nothing but the exact user name (checked while the session is fresh).
        for wrong in (None, name.upper(), "alice"):
            status, body, _ = http("DELETE", base + "/me", None if wrong is None else {"confirm": wrong},
                                   headers=bearer, timeout=10)
            expect(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_request",
                   f"DELETE /me with confirm {wrong!r} answered {status}: {body!r}")
        status, after, _ = http("GET", base + "/me", headers=bearer, timeout=10)
        expect(status == 200 and len(after["credentials"]) == 2, f"GET /me answered {status}: {str(after)[:300]}")
        status, _, _ = http("GET", base + "/registration_initialize?user_name=alice", timeout=10)
        expect(status == 409, f"registration_initialize for alice answered {status}: alice's account should be there")
        state["throwaway"] = {"name": name, "token": token, "other_token": second["session"], "user_id": account["user_id"],
                              "credentials": held, "verified_at": time.monotonic()}
    if registered:
        check(f"a throwaway account '{THROWAWAY}' with two passkeys, registered outside this browser's session; "
              "DELETE /me without the exact user name (none, upper case, another's) answers 400 and deletes nothing",
              throwaway_account)

    # The step-up (docs/contracts/accounts.md): adding a passkey to the account needs a user-verified passkey
    # ceremony in this session within --reauth-window (REAUTH_WINDOW s here). Once this
    # browser's session is older than that, the server answers 401 reauthentication_required;
    # the page confirms with a passkey by itself ({"reauthenticate": true}, which renews this
    # session and opens none) and sends the request again. The run's only wait for it is here.
    def page_json(method, path, body=None, omit=False):
        return driver.script(PAGE_FETCH_JS, method, path, body, omit)

    def account_now():
        answer = page_json("GET", "/me")
        expect(answer["status"] == 200, f"GET /me answered {answer['status']}: {answer['text'][:200]}")
        return answer["body"]

    def sessions_now():
        answer = page_json("GET", "/me/sessions")
        expect(answer["status"] == 200, f"GET /me/sessions answered {answer['status']}: {answer['text'][:200]}")
        return answer["body"]["sessions"]

    def reauthenticated_events():
        answer = page_json("GET", "/me/events")
        expect(answer["status"] == 200, f"GET /me/events answered {answer['status']}: {answer['text'][:200]}")
        return [event for event in answer["body"]["events"] if event["type"] == "reauthenticated"]

    def step_up_needed():
        # Only what is left of the window since the usernameless sign-in opened this session.
        wait = state["verified_at"] + REAUTH_WINDOW + 0.5 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        answer = page_json("POST", "/registration_initialize", {"user_name": "alice"})
        expect(answer["status"] == 401 and (answer["body"] or {}).get("error") == "reauthentication_required",
               f"registration_initialize for alice's own name answered {answer['status']}: {answer['text'][:200]}")
        code = page.fetch_status("/me")
        expect(code == 200, f"GET /me answered {code}: the stale session should still be signed in")
    stale = nameless and check(f"{REAUTH_WINDOW} s after the sign-in, adding a passkey answers 401 "
                               "reauthentication_required (the session itself still works)", step_up_needed)

    def step_up_add_passkey():
        before = sessions_now()
        current = [item for item in before if item["current"]]
        expect(len(current) == 1, f"{len(current)} of the {len(before)} sessions are marked current")
        known = [c["credential_id"] for c in account_now()["credentials"]]
        events_before = len(reauthenticated_events())
        held = driver.credentials(authenticator)
        expect(len(held) == 1, f"the authenticator holds {len(held)} credentials")
        driver.script(STEP_UP_GATE_JS)
        try:
            driver.script(STATUS_LOG_JS)
            driver.click("#add-passkey")
            page.wait_for(lambda s: s["state"] in ("ok", "error") or driver.script("return window.__createHeld;"),
                          "the page to step up and ask for the new passkey")
            log = driver.script("return window.__statusLog || [];")
            expect(driver.script("return window.__createHeld;"),
                   f"the page never got to create() (status changes: {' -> '.join(log)})")
            # The step-up has used the passkey (its counter moved); out of the authenticator it
            # goes, so the authenticator makes the new one, then back in.
            confirmed = driver.credentials(authenticator)[0]
            driver.command("DELETE", f"/webauthn/authenticator/{authenticator}/credentials/{confirmed['credentialId']}")
            try:
                driver.script("window.__releaseCreate();")
                snap = page.wait_for(lambda s: s["state"] in ("ok", "error"), "#status ok or error")
                made = driver.credentials(authenticator)
            finally:
                for extra in driver.credentials(authenticator):
                    driver.command("DELETE", f"/webauthn/authenticator/{authenticator}/credentials/{extra['credentialId']}")
                driver.add_credential(authenticator, confirmed)
        finally:
            driver.script(STEP_UP_GATE_OFF_JS)
        log = driver.script("return window.__statusLog || [];")
        expect(snap["state"] == "ok" and "Passkey created for alice" in snap["text"],
               f"#status is {snap['state']!r}: {snap['text']!r} (changes: {' -> '.join(log)})")
        expect(any("Confirm it is you with your passkey" in entry for entry in log),
               f"the page never asked to confirm (status changes: {' -> '.join(log)})")
        gets = driver.script("return window.__gets;")
        expect(len(gets) == 1 and gets[0]["userVerification"] == "required" and gets[0]["allowCredentials"] == len(known),
               f"get() calls: {gets!r}; wanted one with userVerification required and the {len(known)} passkeys allowed")
        expect(int(confirmed["signCount"]) > int(held[0]["signCount"]),
               f"the step-up did not use the authenticator's passkey (counter {held[0]['signCount']} -> {confirmed['signCount']})")
        expect(len(made) == 1, f"the authenticator made {len(made)} credentials")
        expect(len(snap["passkeys"]) == len(known) + 1, f"#passkeys lists {len(snap['passkeys'])}, had {len(known)}")
        expect(any(same_id(p["id"], made[0]["credentialId"]) for p in snap["passkeys"]), "the new passkey is not listed")
        # The step-up opened no session: the sessions are the ones before, and at most the one
        # the registration opens; the session that stepped up is still open, authenticated anew.
        after = sessions_now()
        ids_before, ids_after = {item["id"] for item in before}, {item["id"] for item in after}
        expect(ids_before <= ids_after and len(ids_after - ids_before) <= 1,
               f"sessions before {sorted(ids_before)!r}, after {sorted(ids_after)!r}")
        renewed = next(item for item in after if item["id"] == current[0]["id"])
        gap = iso_seconds(renewed["auth_time"]) - iso_seconds(current[0]["auth_time"])
        expect(gap >= REAUTH_WINDOW and renewed["created_at"] == current[0]["created_at"],
               f"the session that stepped up reads auth_time {renewed['auth_time']!r}, created_at {renewed['created_at']!r}; "
               f"before {current[0]['auth_time']!r}, {current[0]['created_at']!r}")
        events = reauthenticated_events()
        expect(len(events) == events_before + 1, f"{len(events)} reauthenticated events, {events_before} before")
        details = events[0].get("details") or {}
        expect(details.get("method") == "passkey" and same_id(details.get("credential", ""), confirmed["credentialId"]),
               f"the reauthenticated event reads {events[0]!r}")
    if stale:
        check("add-passkey on a stale session: the page confirms with the passkey (userVerification required), "
              "retries and adds it; no session is opened for the step-up, the stepping session's auth_time is "
              "renewed, /me/events has a reauthenticated event", step_up_add_passkey)

    def step_up_options():
        ids = [c["credential_id"] for c in account_now()["credentials"]]
        answer = page_json("POST", "/authentication_initialize", {"reauthenticate": True})
        expect(answer["status"] == 200, f"authentication_initialize answered {answer['status']}: {answer['text'][:200]}")
        options = answer["body"]["publicKey"]
        expect(options.get("userVerification") == "required", f"userVerification is {options.get('userVerification')!r}")
        allowed = [d.get("id", "") for d in options.get("allowCredentials") or []]
        expect(len(allowed) == len(ids) and all(any(same_id(a, i) for a in allowed) for i in ids),
               f"allowCredentials {allowed!r} are not the account's passkeys {ids!r}")
        expect(options.get("rpId") == "localhost", f"rpId is {options.get('rpId')!r}")
        anonymous = page_json("POST", "/authentication_initialize", {"reauthenticate": True}, omit=True)
        expect(anonymous["status"] == 401, f"without a cookie it answered {anonymous['status']}: {anonymous['text'][:200]}")
    if nameless:
        check("POST /authentication_initialize {reauthenticate: true}: userVerification required, allowCredentials "
              "the account's passkeys; 401 without a session", step_up_options)

    def step_up_finalize():
        before = sessions_now()
        current = [item for item in before if item["current"]]
        expect(len(current) == 1, f"{len(current)} of the {len(before)} sessions are marked current")
        # auth_time has whole seconds: start in a later second than the session's last one.
        for _ in range(20):
            if int(time.time()) > iso_seconds(current[0]["auth_time"]):
                break
            time.sleep(0.1)
        started = int(time.time())
        cookies = {c["name"]: c["value"] for c in driver.command("GET", "/cookie")}
        asserted = driver.script(STEP_UP_ASSERTION_JS)
        expect(asserted["status"] == 200 and asserted.get("credential"),
               f"the step-up's initialize answered {asserted['status']}: {str(asserted.get('body'))[:200]}")
        status, body, head = http("POST", f"http://127.0.0.1:{server_port}/authentication_finalize", asserted["credential"],
                                  timeout=10, headers={"Origin": origin,
                                                       "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
        expect(status == 200, f"authentication_finalize answered {status}: {body!r}")
        expect(body.get("status") == "ok" and body.get("user_name") == "alice" and body.get("reauthenticated") is True
               and same_id(body.get("credential_id", ""), asserted["credential"]["id"]), f"it answered {body!r}")
        expect("session" not in body, f"the step-up's answer carries a session: {body!r}")
        expect(not head.get_all("Set-Cookie"), f"the step-up's answer sets cookies: {head.get_all('Set-Cookie')!r}")
        kept = {c["name"]: c["value"] for c in driver.command("GET", "/cookie")}
        expect(kept == cookies, "the browser's cookies changed")
        code = page.fetch_status("/me")
        expect(code == 200, f"GET /me answered {code} after the step-up")
        after = sessions_now()
        expect([item["id"] for item in after] == [item["id"] for item in before],
               f"sessions before {[i['id'] for i in before]!r}, after {[i['id'] for i in after]!r}")
        renewed = next(item for item in after if item["current"])
        expect(renewed["id"] == current[0]["id"] and iso_seconds(renewed["auth_time"]) >= started,
               f"the current session reads {renewed!r}; before {current[0]!r}, step-up started at {started}")
    if nameless:
        check("a step-up's finalize answers reauthenticated: true with no session and no Set-Cookie; the same "
              "session goes on (GET /me 200), its auth_time renewed", step_up_finalize)

    def taken_name():
        if page.snapshot()["signedIn"]:
            page.run("#logout", "ok")
        status, body, _ = http("POST", f"http://127.0.0.1:{server_port}/registration_initialize",
                               {"user_name": "alice"}, timeout=10)
        expect(status == 409 and isinstance(body, dict) and body.get("error") == "user_exists",
               f"server answered {status} {body!r} to a taken name")
        driver.type_into("#username", "alice")
        snap = page.run("#register", "error")
        expect(snap["error"] == "user_exists", f"data-error is {snap['error']!r}")
        expect(snap["text"].strip() == body.get("message", "").strip(),
               f"status text {snap['text']!r} is not the server's message {body.get('message')!r}")
        expect(len(driver.credentials(authenticator)) == 1, "the authenticator made a credential anyway")
    if registered:
        check("register 'alice' again while signed out -> error with the user_exists message", taken_name)

    def autofill():
        snap = page.snapshot()
        expect(snap["signedOut"], "the page is not signed out before the autofill check")
        available = driver.script(
            "return PublicKeyCredential.isConditionalMediationAvailable ? "
            "PublicKeyCredential.isConditionalMediationAvailable() : false;")
        expect(available is True, f"isConditionalMediationAvailable() is {available!r} in this browser")
        page.driver.navigate(origin + "/")
        snap = page.wait_for(lambda s: s["state"] in ("ok", "error") and (s["signedIn"] or s["state"] == "error"),
                             "the autofill request to sign in")
        expect(snap["state"] == "ok" and snap["signedIn"], f"status {snap['state']!r}: {snap['text']!r}")
        expect("Signed in as alice" in snap["text"], f"status text is {snap['text']!r}")
    if registered:
        check("autofill: a signed-out page's conditional-mediation request signs in as alice", autofill)

    # The authenticator's counter is set back (as a cloned key would be): the server refuses
    # the assertion and marks the passkey; a later assertion that passes every check succeeds
    # and the page warns about the mark.
    def cloned():
        snap = page.open("?autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        cred = driver.credentials(authenticator)[0]
        expect(int(cred["signCount"]) > 1, f"the authenticator's counter is only {cred['signCount']}")
        driver.replace_credential(authenticator, cred, sign_count=1)
        driver.type_into("#username", "alice")
        snap = page.run("#login", "error")
        expect(snap["error"] == "counter_regression",
               f"data-error is {snap['error']!r} ({snap['text']!r}), wanted counter_regression")
        expect(snap["signedOut"], "the refused sign-in signed in anyway")
        driver.replace_credential(authenticator, cred, sign_count=int(cred["signCount"]) + 1000)
        snap = page.run("#login", "ok")
        item = next((p for p in snap["passkeys"] if same_id(p["id"], cred["credentialId"])), None)
        expect(item is not None, "the credential is not listed")
        expect(item["possiblyCloned"], "the passkey is not marked possibly cloned")
        expect(item["warning"].strip(), "no warning is shown for the possibly cloned passkey")
        others = [p for p in snap["passkeys"] if p is not item]
        expect(not any(p["possiblyCloned"] for p in others), "another passkey is marked too")
    if added:
        check("a regressed sign counter is refused (counter_regression), then the passkey shows "
              "a possibly-cloned warning", cloned)

    # "Recent activity" lists the account's own audit events (GET /me/events), newest first.
    def recent_activity():
        items = driver.script(
            "return [...document.querySelectorAll('#activity > li.event')].map((li) => "
            "({type: li.dataset.type, text: li.textContent, at: li.querySelector('time')?.dateTime ?? ''}));")
        types = [item["type"] for item in items]
        expect(types[:2] == ["sign_in", "counter_regression"],
               f"the newest events are {types[:3]!r}, wanted sign_in then counter_regression")
        expect("counter went backwards" in items[1]["text"], f"the refusal reads {items[1]['text']!r}")
        expect("registration" in types, f"no registration among {types!r}")
        expect(all(item["at"].endswith("Z") for item in items), "an event has no time")
        expect(all("127.0.0.1" in item["text"] for item in items), "an event does not show the address")
        status, body, _ = http("GET", f"http://127.0.0.1:{server_port}/me/events", timeout=10)
        expect(status == 401, f"/me/events without a session answered {status}")
    if added:
        check("the signed-in view shows Recent activity: the sign-in, the refused one, the registration", recent_activity)

    # The base64url fallbacks used when the browser lacks the JSON helpers.
    def manual_register():
        snap = page.open("?json=manual&autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        driver.type_into("#username", "bob")
        snap = page.run("#register", "ok")
        expect("Passkey created for bob" in snap["text"], f"status text is {snap['text']!r}")
        expect(len(snap["passkeys"]) == 1, f"#passkeys lists {len(snap['passkeys'])} items")
    manual = check("without the JSON helpers (?json=manual): register 'bob' -> ok", manual_register)

    def manual_sign_in():
        page.run("#logout", "ok")
        driver.type_into("#username", "bob")
        snap = page.run("#login", "ok")
        expect("Signed in as bob" in snap["text"], f"status text is {snap['text']!r}")
        expect(len(snap["passkeys"]) == 1 and snap["passkeys"][0]["lastUsed"], "bob's passkey not marked used")
    if manual:
        check("without the JSON helpers: sign in as 'bob' -> ok", manual_sign_in)

    # Messages for Business: the device's browser at the authorization endpoint has no session,
    # is sent to the page, makes a passkey there and comes back, and is redirected with a code;
    # the device trades it for an access token and returns it encrypted to the request's key.
    mfb = context["mfb"]
    base = f"http://127.0.0.1:{server_port}"
    business = {"Authorization": f"Bearer {mfb['token']}"}

    def mfb_request(state_value):
        status, created, _ = http("POST", base + "/mfb/requests", {"scope": ["profile"], "state": state_value}, headers=business)
        expect(status == 201, f"POST /mfb/requests answered {status}: {created}")
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": mfb["client"], "redirect_uri": mfb["redirect"], "scope": "profile",
            "state": state_value, "responseEncryptionKey": created["responseEncryptionKey"], "userHandle": "browser-device-1"})
        return created, "/mfb/authorize?" + query

    def mfb_callback(before, state_value):
        callbacks = context["apple"].mfb_callbacks
        deadline = time.monotonic() + STATE_TIMEOUT
        while len(callbacks) <= before and time.monotonic() < deadline:
            time.sleep(0.1)
        expect(len(callbacks) > before, f"the browser never reached redirect_uri (at {driver.script('return location.href;')!r})")
        expect(callbacks[-1].get("state") == state_value and callbacks[-1].get("code"), f"redirect_uri got {callbacks[-1]}")
        return callbacks[-1]["code"]

    def mfb_device(created, code):
        """The device: the code for an access token, encrypted to the request's key; the MSP posts it."""
        form = urllib.parse.urlencode({
            "grant_type": "authorization_code", "code": code, "redirect_uri": mfb["redirect"],
            "client_id": mfb["client"], "client_secret": mfb["secret"]}).encode()
        request = urllib.request.Request(base + "/mfb/token", data=form, method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(request, timeout=30) as response:
            granted = json.loads(response.read())
        expect(granted.get("token_type") == "Bearer" and granted.get("access_token"), f"/mfb/token answered {granted}")
        sealed = subprocess.run([context["binary"], "mfb", "encrypt", "--public-key", created["responseEncryptionKey"],
                                 "--plaintext", granted["access_token"]], capture_output=True, text=True, timeout=60)
        expect(sealed.returncode == 0, f"mfb encrypt exited {sealed.returncode}: {sealed.stderr.strip()}")
        reply = {"data": {"version": "1.0", "requestIdentifier": created["requestIdentifier"],
                          "authenticate": {"status": "authenticated", "token": sealed.stdout.strip()}}}
        status, answered, _ = http("POST", base + "/mfb/responses", reply, headers=business)
        expect(status == 200, f"/mfb/responses answered {status}: {answered}")
        status, outcome, _ = http("GET", base + f"/mfb/requests/{created['requestIdentifier']}", headers=business)
        expect(outcome.get("status") == "authenticated" and outcome.get("user_name") == answered.get("user_name"),
               f"the request reads {outcome}")
        return answered.get("user_name")

    def mfb_autofill():
        # Signed out, the server sends the browser to the page, whose autofill request the
        # virtual authenticator answers at once with one of its passkeys: back with a code.
        snap = page.open("?autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        created, path = mfb_request("st-8")
        before = len(context["apple"].mfb_callbacks)
        driver.navigate(origin + path)
        code = mfb_callback(before, "st-8")
        name = mfb_device(created, code)
        expect(name in ("alice", "bob"), f"the request was answered for {name!r}")
    check("Messages for Business: authorize without a session, signed in on the page by autofill, back with a code, "
          "the encrypted token answers the request", mfb_autofill)

    def held_authorization(path):
        """Where the server sends a browser without a session (asked without one, as it would
        be): the OpenID provider holds the request and names the page; the held request's handle."""
        connection = httpclient.HTTPConnection("127.0.0.1", server_port, timeout=30)
        connection.request("GET", path)
        held = connection.getresponse()
        location = held.getheader("Location") or ""
        connection.close()
        expect(held.status == 302 and location.startswith(origin + "/?authorization="), f"authorize answered {held.status} {location!r}")
        return urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["authorization"][0]

    def mfb_register():
        # The held request on the page (autofill off): a new passkey, then on to the code.
        snap = page.open("?autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        created, path = mfb_request("st-9")
        page.open("?autofill=off&authorization=" + held_authorization(path))
        page.wait_for(lambda s: "continue to Messages for Business" in (s["text"] or ""), "the page to name Messages for Business")
        before = len(context["apple"].mfb_callbacks)
        driver.type_into("#username", "mfb-dana")
        driver.click("#register")
        name = mfb_device(created, mfb_callback(before, "st-9"))
        expect(name == "mfb-dana", f"the request was answered for {name!r}")
    check("Messages for Business: a passkey made on the page continues the held request to the redirect URI", mfb_register)

    def mfb_no_open_redirect():
        page.open("?autofill=off")
        page.run("#logout", "ok")
        snap = page.open("?autofill=off&return=" + urllib.parse.quote("https://evil.example/mfb/authorize", safe=""))
        expect("continue to" not in snap["text"], "the page offered to continue somewhere")
        # (A sign-in, not a new passkey: the virtual authenticator holds only three.)
        driver.type_into("#username", "mfb-dana")
        snap = page.run("#login", "ok")
        where = driver.script("return location.origin + location.pathname;")
        expect(snap["signedIn"] and where == origin + "/", f"the page went to {where!r}")
    check("the page takes no return address but a held request's: ?return= is ignored", mfb_no_open_redirect)

    # OpenID Connect: an application sends a signed-out browser to /oauth/authorize; the server
    # holds the request and sends it to the page, which names the application, signs in with a
    # passkey (the button) and continues the request; the application gets a code at its
    # redirect URI and redeems it with its PKCE verifier.
    oidc_redirect = context["apple"].base + "/oidc/callback"

    def oidc_added():
        added = subprocess.run([context["binary"], "clients", "add", "--database", context["database"], "--id", "browser-rp",
                                "--public", "--name", "The Browser Wiki", "--redirect-uri", oidc_redirect],
                               capture_output=True, text=True, timeout=60)
        expect(added.returncode == 0, f"clients add exited {added.returncode}: {added.stderr.strip()}")

    def oidc_request(state_value, hint=None):
        verifier = b64url(os.urandom(32))
        parameters = {
            "response_type": "code", "client_id": "browser-rp", "redirect_uri": oidc_redirect, "scope": "openid profile",
            "state": state_value, "nonce": "n-" + state_value, "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
            "code_challenge_method": "S256"}
        if hint:
            parameters["login_hint"] = hint
        return verifier, "/oauth/authorize?" + urllib.parse.urlencode(parameters)

    def oidc_callback(before, state_value):
        callbacks = context["apple"].oidc_callbacks
        deadline = time.monotonic() + STATE_TIMEOUT
        while len(callbacks) <= before and time.monotonic() < deadline:
            time.sleep(0.1)
        expect(len(callbacks) > before, f"the browser never reached redirect_uri (at {driver.script('return location.href;')!r})")
        answer = callbacks[-1]
        expect(answer.get("state") == state_value and answer.get("iss") == origin and answer.get("code"), f"redirect_uri got {answer}")
        return answer["code"]

    def oidc_redeem(code, verifier):
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": oidc_redirect,
                                       "code_verifier": verifier, "client_id": "browser-rp"}).encode()
        request = urllib.request.Request(base + "/oauth/token", data=form, method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(request, timeout=30) as response:
            tokens = json.loads(response.read())
        status, info, _ = http("GET", base + "/oauth/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]})
        expect(status == 200, f"userinfo answered {status}: {info}")
        return info.get("preferred_username")

    def oidc_button():
        oidc_added()
        snap = page.open("?autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        verifier, path = oidc_request("oidc-st-1", hint="alice")
        page.open("?autofill=off&authorization=" + held_authorization(path))
        # The page shows a view first, then asks for the held request and names the application.
        page.wait_for(lambda s: "continue to The Browser Wiki" in (s["text"] or ""), "the page to name the application")
        banner = driver.script("return document.querySelector('#continue-to').textContent;")
        expect(banner == "Signing in to The Browser Wiki", f"the banner reads {banner!r}")
        typed = driver.script("return document.querySelector('#username').value;")
        expect(typed == "alice", f"login_hint filled {typed!r}")
        before = len(context["apple"].oidc_callbacks)
        driver.click("#login")
        name = oidc_redeem(oidc_callback(before, "oidc-st-1"), verifier)
        expect(name == "alice", f"signed in to the application as {name!r}")
    check("OpenID Connect: the page names the application, fills login_hint, signs in with the button "
          "and continues the held request to the redirect URI with a code", oidc_button)

    def oidc_applications():
        # Back on the page, signed in: the account view lists the application, and its button
        # signs it out (the list empties; its access token stops working).
        snap = page.open("?autofill=off")
        expect(snap["signedIn"], "the page is not signed in after the OpenID sign-in")
        names = driver.script("return Array.from(document.querySelectorAll('#applications .application')).map((li) => li.textContent);")
        expect(len(names) == 1 and names[0].startswith("The Browser Wiki"), f"#applications lists {names}")
        snap = page.run("#applications .sign-out-application", "ok")
        expect("The Browser Wiki signed out" in snap["text"], f"status text is {snap['text']!r}")
        left = driver.script("return document.querySelector('#applications').textContent;")
        expect(left == "No applications.", f"#applications reads {left!r}")
    check("the account view lists the application signed in to and signs it out", oidc_applications)

    def oidc_autofill():
        snap = page.open("?autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        verifier, path = oidc_request("oidc-st-2")
        before = len(context["apple"].oidc_callbacks)
        # Through the server's own redirect: the page's autofill request, answered at once by
        # the virtual authenticator, signs in and continues.
        driver.navigate(origin + path)
        name = oidc_redeem(oidc_callback(before, "oidc-st-2"), verifier)
        expect(bool(name), "userinfo has no preferred_username")
    check("OpenID Connect: authorize without a session, signed in on the page by autofill, back with a code", oidc_autofill)

    def oidc_consent():
        # A client that registered itself (open registration, approved on the command line) is
        # third-party: the signed-in browser is shown the consent page, which names it and its
        # host as text; Allow continues to the redirect URI with a code; the account view lists
        # it and withdraws it.
        registration = {"client_name": "Agent <i>Smith</i>", "redirect_uris": [oidc_redirect], "token_endpoint_auth_method": "none"}
        status, made, _ = http("POST", base + "/oauth/register", body=registration)
        expect(status == 201 and made.get("status") == "pending", f"register answered {status}: {made}")
        approved = subprocess.run([context["binary"], "clients", "approve", made["client_id"], "--database", context["database"]],
                                  capture_output=True, text=True, timeout=60)
        expect(approved.returncode == 0, f"clients approve exited {approved.returncode}: {approved.stderr.strip()}")
        snap = page.open("?autofill=off")
        expect(snap["signedIn"], "the page is not signed in")
        verifier = b64url(os.urandom(32))
        parameters = {
            "response_type": "code", "client_id": made["client_id"], "redirect_uri": oidc_redirect, "scope": "openid profile",
            "state": "consent-st", "nonce": "n-consent", "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
            "code_challenge_method": "S256"}
        driver.navigate(origin + "/oauth/authorize?" + urllib.parse.urlencode(parameters))
        shown = driver.script(
            "const c = document.querySelector('#consent'); return c && {client: document.querySelector('#consent-client').textContent,"
            " host: document.querySelector('#consent-host').textContent, scopes: Array.from(document.querySelectorAll('#consent-scopes li'))"
            ".map((li) => li.dataset.scope), italic: document.querySelectorAll('#consent i').length, path: location.pathname};")
        expect(shown and shown["path"] == "/oauth/consent", f"the browser is at {driver.script('return location.href;')!r}")
        expect(shown["client"] == "Agent <i>Smith</i>" and shown["italic"] == 0, f"the client is shown as {shown}")
        host = urllib.parse.urlsplit(oidc_redirect).hostname
        expect(shown["host"] == host and shown["scopes"] == ["openid", "profile"], f"the page shows {shown}")
        before = len(context["apple"].oidc_callbacks)
        driver.click("#consent-allow")
        code = oidc_callback(before, "consent-st")
        expect(bool(code), "no code")
        snap = page.open("?autofill=off")
        items = driver.script("return Array.from(document.querySelectorAll('#applications .application')).map((li) => "
                              "({id: li.dataset.clientId, text: li.textContent}));")
        mine = [item for item in items if item["id"] == made["client_id"]]
        expect(mine and "third-party application you allowed" in mine[0]["text"] and "Withdraw access" in mine[0]["text"],
               f"#applications lists {items}")
        snap = page.run(f'#applications .application[data-client-id="{made["client_id"]}"] .sign-out-application', "ok")
        expect("no longer has access" in snap["text"], f"status text is {snap['text']!r}")
        # Asked again: back on the consent page, where Deny answers access_denied.
        driver.navigate(origin + "/oauth/authorize?" + urllib.parse.urlencode({**parameters, "state": "consent-st-2"}))
        expect(driver.script("return location.pathname;") == "/oauth/consent", "not asked again after the withdrawal")
        before = len(context["apple"].oidc_callbacks)
        driver.click("#consent-deny")
        deadline = time.monotonic() + STATE_TIMEOUT
        while len(context["apple"].oidc_callbacks) <= before and time.monotonic() < deadline:
            time.sleep(0.1)
        answer = context["apple"].oidc_callbacks[-1] if len(context["apple"].oidc_callbacks) > before else {}
        expect(answer.get("error") == "access_denied" and answer.get("state") == "consent-st-2", f"redirect_uri got {answer}")
    check("OpenID Connect: a self-registered client gets the consent page (its name and host as text); Allow gives a code; "
          "the account view withdraws it; Deny is access_denied", oidc_consent)

    # Sign in with Apple, web flow: the button, Apple's (stand-in) page posting the token back to
    # /siwa/callback, and the signed-in view of the new account.
    def apple_sign_in():
        snap = page.open("?autofill=off&upgrade=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        visible = driver.script("return !document.querySelector('#siwa').hidden;")
        expect(visible, "the Sign in with Apple button is hidden")
        driver.click("#siwa")
        snap = page.wait_for(lambda s: s["signedIn"] and AppleStandIn.EMAIL in (s["whoami"] or ""),
                             "the page to come back signed in with Apple")
        linked = driver.script("return document.querySelector('#apple-link').textContent;")
        expect(AppleStandIn.EMAIL in linked, f"the Apple ID line reads {linked!r}")
        expect(driver.script("return location.pathname + location.search;") == "/", "the callback did not redirect to /")
    apple = check("Sign in with Apple: the button, Apple's page posting back, signed in as a new account",
                  apple_sign_in)

    def apple_last_way_in():
        snap = page.run("#siwa-unlink", "error")
        expect(snap["error"] == "last_sign_in_method", f"data-error is {snap['error']!r} ({snap['text']!r})")
        expect(snap["signedIn"], "the refused unlink signed out")
    if apple:
        check("an Apple-only account cannot unlink its Apple ID (last_sign_in_method)", apple_last_way_in)

    # The push authenticator: the QR code, the simulator as the phone, number matching.
    stand_in = context["apple"]
    key_file = os.path.join(context["workdir"], "device.pem")
    simulator_server = f"http://127.0.0.1:{server_port}"

    def simulator(*arguments):
        run = subprocess.run([context["binary"], "push-device", *arguments, "--key", key_file, "--server", simulator_server],
                             capture_output=True, text=True, timeout=60)
        expect(run.returncode == 0, f"push-device {arguments[0]} exited {run.returncode}: {run.stderr.strip()} {run.stdout.strip()}")

    def add_phone():
        snap = page.open("?autofill=off")
        expect(snap["signedIn"], "not signed in before adding a phone")
        page.run("#add-phone", "ok")
        qr = driver.script("return document.querySelector('#enrol-qr svg') ? document.querySelector('#enrol-qr svg').outerHTML : '';")
        expect(qr.startswith("<svg") and "<path" in qr, "no QR code is shown")
        discovery = driver.script("return document.querySelector('#enrol-json').textContent;")
        simulator("enroll", discovery)
        page.wait_for(lambda s: s["text"] == "Phone added", "the page to notice the new phone")
        phones = driver.script("return document.querySelectorAll('#phones li[data-device-id]').length;")
        expect(phones == 1, f"#phones lists {phones} phones")
    phone = apple and check("Add a phone: the page shows a QR code, the simulator enrols from it, the page lists the phone",
                            add_phone)

    def push_round(deny):
        snap = page.open("?autofill=off&upgrade=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        driver.type_into("#username", AppleStandIn.EMAIL)
        before = len(stand_in.pushes)
        driver.script(STATUS_LOG_JS)
        driver.click("#push-login")
        deadline = time.monotonic() + STATE_TIMEOUT
        while len(stand_in.pushes) <= before and time.monotonic() < deadline:
            time.sleep(0.1)
        expect(len(stand_in.pushes) > before, "no push reached the gateway")
        pushed = stand_in.pushes[-1]
        shown = page.wait_for(lambda s: driver.script("return document.querySelector('#push-number').textContent;"),
                              "the number on the page")
        number = driver.script("return document.querySelector('#push-number').textContent;")
        expect(number == pushed["data"].get("numberChallenge"),
               f"the page shows {number!r}, the push carries {pushed['data'].get('numberChallenge')!r}")
        simulator("answer", json.dumps(pushed), *(["--deny"] if deny else []))
        return page.wait_for(lambda s: s["state"] in ("ok", "error"), "the page to hear the phone's answer")

    def push_approve():
        snap = push_round(deny=False)
        expect(snap["state"] == "ok" and snap["signedIn"], f"status {snap['state']!r}: {snap['text']!r}")
        expect("with your phone" in snap["text"], f"status text is {snap['text']!r}")
    if phone:
        check("Approve on my phone: the page shows the number, the phone approves, the page signs in", push_approve)

    def push_deny():
        snap = push_round(deny=True)
        expect(snap["state"] == "error" and snap["error"] == "denied", f"status {snap['state']!r} {snap['error']!r}: {snap['text']!r}")
        expect("denied" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedOut"], "a denied request signed in")
    if phone:
        check("a denial on the phone shows a clear message and does not sign in", push_deny)

    # CIBA: an application asks for this account's approval; the signed-in page lists the
    # request beside the phone's push, and Approve answers it; the application then gets tokens.
    def ciba_on_the_page():
        added = subprocess.run([context["binary"], "clients", "add", "--database", context["database"], "--id", "browser-desk",
                                "--name", "Help desk", "--ciba", "poll"], capture_output=True, text=True, timeout=60)
        expect(added.returncode == 0, f"clients add exited {added.returncode}: {added.stderr.strip()}")
        secret = json.loads(added.stdout.strip().splitlines()[-1])["client_secret"]
        basic = "Basic " + base64.b64encode(f"browser-desk:{secret}".encode()).decode()
        base = f"http://127.0.0.1:{server_port}"
        status, asked, _ = http("POST", base + "/oauth/bc-authorize", headers={"Authorization": basic},
                                form={"scope": "openid profile", "login_hint": AppleStandIn.EMAIL, "binding_message": "Order 7"})
        expect(status == 200 and isinstance(asked, dict), f"/oauth/bc-authorize answered {status}: {asked}")
        deadline = time.monotonic() + STATE_TIMEOUT
        while not any("ciba" in p.get("data", {}) for p in stand_in.pushes) and time.monotonic() < deadline:
            time.sleep(0.1)  # the server hands pushes to the provider in the background
        cibas = [p for p in stand_in.pushes if "ciba" in p.get("data", {})]
        expect(cibas and json.loads(cibas[-1]["data"]["ciba"]).get("binding_message") == "Order 7", "no CIBA push reached the gateway")
        snap = push_round(deny=False)
        expect(snap["state"] == "ok" and snap["signedIn"], f"signing in with the phone: {snap['state']!r} {snap['text']!r}")
        page.wait_for(lambda s: driver.script("return !document.querySelector('#approvals-section').hidden;"),
                      "the page to list the request")
        listed = driver.script("return document.querySelector('#approvals li').textContent;")
        expect("Help desk" in listed and "Order 7" in listed, f"the request reads {listed!r}")
        token = {"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": asked["auth_req_id"]}
        status, pending, _ = http("POST", base + "/oauth/token", headers={"Authorization": basic}, form=token)
        expect(status == 400 and pending.get("error") == "authorization_pending", f"the poll answered {status}: {pending}")
        snap = page.run("#approvals .approval-approve", "ok")
        expect("Approved the request of Help desk" in snap["text"], f"status text is {snap['text']!r}")
        expect(driver.script("return document.querySelector('#approvals-section').hidden;"), "the request is still listed")
        time.sleep(5.5)  # the request's polling interval
        status, tokens, _ = http("POST", base + "/oauth/token", headers={"Authorization": basic}, form=token)
        expect(status == 200 and "id_token" in tokens, f"the poll after the approval answered {status}: {tokens}")
    if phone:
        check("CIBA: an application's request is listed on the signed-in page and approved there; the application gets its tokens",
              ciba_on_the_page)

    # Linking an Apple ID to a passkey account through the web flow: the callback links nothing
    # until the account's owner confirms it on the page.
    def apple_link_confirmed():
        snap = page.open("?autofill=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        driver.type_into("#username", "mfb-dana")
        page.run("#login", "ok")
        context["apple"].subject = "000456.browser-link"
        driver.click("#siwa-link")
        page.wait_for(lambda s: s["signedIn"] and driver.script("return !document.querySelector('#apple-confirm').hidden;"),
                      "the page to ask to confirm the link")
        expect(driver.script("return location.search;") == "", "the confirm-link address was not cleaned")
        unlinked = driver.script("return document.querySelector('#apple-link').hidden;")
        expect(unlinked, "the Apple ID shows as linked before the confirmation")
        snap = page.run("#apple-confirm-link", "ok")
        linked = driver.script("return document.querySelector('#apple-link').textContent;")
        expect(AppleStandIn.EMAIL in linked, f"the Apple ID line reads {linked!r}")
        expect(driver.script("return document.querySelector('#apple-confirm').hidden;"), "the confirmation still shows")
    if apple:
        check("Link your Apple ID: the page asks to confirm, and only then the account shows it", apple_link_confirmed)

    remaining = level3_checks(check, driver, page, context, authenticator, apple)

    # Near the end, as it ends the throwaway account (and changes the virtual authenticator).
    remaining = account_deletion_checks(check, driver, page, server_port, state.get("throwaway"), remaining)

    # Last: the invitation and reset links (they bring a virtual authenticator of their own).
    invitation_checks(check, driver, page, server_port, context, remaining)


# Records the page's Signal API calls (calling the browser's own afterwards) and the bodies it
# posts to /authentication_finalize.
SIGNAL_RECORDER_JS = """
window.__signals = [];
window.__finalizeBodies = [];
for (const name of ['signalUnknownCredential', 'signalAllAcceptedCredentials', 'signalCurrentUserDetails']) {
  const original = PublicKeyCredential[name];
  PublicKeyCredential[name] = (argument) => {
    window.__signals.push({name, argument});
    return typeof original === 'function' ? original.call(PublicKeyCredential, argument) : Promise.resolve();
  };
}
const originalFetch = window.fetch;
window.fetch = (url, init) => {
  if (String(url).endsWith('/authentication_finalize')) window.__finalizeBodies.push(String(init && init.body));
  return originalFetch(url, init);
};
"""

# Installed before the page's own scripts: the browser offers conditional creation, and each
# create() is recorded with its mediation, then run without it, so the virtual authenticator
# answers as a modal ceremony (UP=1) whatever its support for conditional creation.
UPGRADE_RECORDER_JS = """
window.__creates = [];
PublicKeyCredential.getClientCapabilities = async () => ({conditionalCreate: true, conditionalGet: true});
const originalCreate = navigator.credentials.create.bind(navigator.credentials);
navigator.credentials.create = (options) => {
  window.__creates.push(options.mediation || 'modal');
  const {mediation, ...modal} = options;
  return originalCreate(modal);
};
"""


def level3_checks(check, driver, page, context, authenticator, apple):
    """WebAuthn Level 3 on the page: PRF, the Signal API, the display name, automatic upgrades.
    Returns the virtual authenticator it leaves in the browser (it replaces the one it is given)."""
    state = {}

    def signals(name):
        return [s["argument"] for s in driver.script("return window.__signals || [];") if s["name"] == name]

    def me():
        return driver.script("return fetch('/me').then((r) => r.json());")

    def prf_note():
        driver.remove_authenticator(authenticator)
        state["a"] = driver.add_authenticator(extensions=["prf"])
        snap = page.open("?autofill=off&upgrade=off")
        if snap["signedIn"]:
            page.run("#logout", "ok")
        driver.type_into("#username", "sam")
        page.run("#register", "ok")
        driver.script(SIGNAL_RECORDER_JS)
        account = me()
        expect(account["credentials"][0]["prf_enabled"] is True, f"/me lists {account['credentials']!r}")
        driver.type_into("#prf-text", "secret note 42")
        page.run("#prf-encrypt", "ok")
        stored = driver.script("return JSON.stringify(localStorage);")
        expect("data" in stored and "secret note 42" not in stored, f"localStorage holds {stored[:200]!r}")
        expect(driver.script("return document.querySelector('#prf-text').value;") == "", "the note was not cleared")
        page.run("#prf-decrypt", "ok")
        opened = driver.script("return document.querySelector('#prf-text').value;")
        expect(opened == "secret note 42", f"the decrypted note reads {opened!r}")
        bodies = driver.script("return window.__finalizeBodies;")
        expect(len(bodies) == 2, f"{len(bodies)} finalize requests were sent")
        expect(all('"prf"' not in body for body in bodies), "the PRF output was sent to the server")
    prf = check("PRF: a note encrypted with a key the passkey derives in the browser, opened again; "
                "the server never gets the PRF output", prf_note)

    def display_name():
        driver.type_into("#display-name", "Sam S.")
        page.run("#save-display-name", "ok")
        account = me()
        expect(account["display_name"] == "Sam S.", f"display_name is {account['display_name']!r}")
        calls = signals("signalCurrentUserDetails")
        expect(calls == [{"rpId": "localhost", "userId": account["user_id"], "name": "sam", "displayName": "Sam S."}],
               f"signalCurrentUserDetails calls: {calls!r}")
    if prf:
        check("the display name changes (PATCH /me) and the page calls signalCurrentUserDetails", display_name)

    def accepted_after_sign_in():
        page.run("#logout", "ok")
        driver.type_into("#username", "sam")
        page.run("#login", "ok")
        account = me()
        ids = [c["credential_id"] for c in account["credentials"]]
        calls = signals("signalAllAcceptedCredentials")
        expect(calls and calls[-1] == {"rpId": "localhost", "userId": account["user_id"], "allAcceptedCredentialIds": ids},
               f"signalAllAcceptedCredentials calls: {calls!r}")
    if prf:
        check("after a sign-in the page calls signalAllAcceptedCredentials with the account's passkeys",
              accepted_after_sign_in)

    def accepted_after_deletion():
        first = driver.credentials(state["a"])[0]
        state["deleted"] = first
        driver.remove_authenticator(state["a"])
        state["b"] = driver.add_authenticator()
        page.run("#add-passkey", "ok")
        driver.click(f"#passkeys li[data-credential-id='{first['credentialId'].rstrip('=')}'] .remove-passkey")
        snap = page.wait_for(lambda s: s["state"] == "ok" and len(s["passkeys"]) == 1, "the passkey to be removed")
        account = me()
        calls = signals("signalAllAcceptedCredentials")
        expect(calls and calls[-1]["allAcceptedCredentialIds"] == [snap["passkeys"][0]["id"]]
               and calls[-1]["userId"] == account["user_id"], f"signalAllAcceptedCredentials calls: {calls!r}")
    deleted = prf and check("after removing a passkey the page calls signalAllAcceptedCredentials without it",
                            accepted_after_deletion)

    def unknown_credential():
        page.run("#logout", "ok")
        driver.remove_authenticator(state["b"])
        state["c"] = driver.add_authenticator()
        driver.add_credential(state["c"], state["deleted"])
        driver.type_into("#username", "")
        snap = page.run("#login", "error")
        expect(snap["error"] == "unknown_credential", f"data-error is {snap['error']!r}")
        calls = signals("signalUnknownCredential")
        expect(calls and calls[-1]["rpId"] == "localhost" and same_id(calls[-1]["credentialId"], state["deleted"]["credentialId"]),
               f"signalUnknownCredential calls: {calls!r}")
    if deleted:
        check("a usernameless sign-in with a deleted passkey makes the page call signalUnknownCredential",
              unknown_credential)

    def endpoints():
        status, body, _ = http("GET", page.origin + "/.well-known/passkey-endpoints", timeout=10)
        expect(status == 200 and body.get("manage") == page.origin + "/#passkeys", f"{status} {body!r}")
        snap = page.open("?autofill=off&upgrade=off")
        if snap["signedOut"]:
            driver.type_into("#username", "sam")
            page.run("#login", "error")  # the deleted passkey is the only one this authenticator holds
        driver.navigate(body["enroll"])
        page.wait_for(lambda s: s["signedIn"] or s["signedOut"], "a view to show")
        focused = driver.script("return document.activeElement && document.activeElement.id;")
        signed_in = page.snapshot()["signedIn"]
        expect(focused == ("add-passkey" if signed_in else "username"), f"the focus is on {focused!r}")
    check("/.well-known/passkey-endpoints names the page's views; the enroll view brings the button forward",
          endpoints)

    def automatic_upgrade():
        script = driver.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": UPGRADE_RECORDER_JS})
        try:
            context["apple"].subject = "000789.browser-upgrade"
            snap = page.open("?autofill=off")
            if snap["signedIn"]:
                page.run("#logout", "ok")
            driver.click("#siwa")
            snap = page.wait_for(lambda s: s["signedIn"] and s["state"] == "ok" and len(s["passkeys"]) == 1,
                                 "the page to come back from Apple and add a passkey by itself")
            expect("passkey was added" in snap["text"], f"status text is {snap['text']!r}")
            creates = driver.script("return window.__creates;")
            expect(creates == ["conditional"], f"create() was called with mediation {creates!r}")
        finally:
            driver.cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    if apple:
        check("after Sign in with Apple, an account without a passkey is upgraded by conditional create",
              automatic_upgrade)

    return state.get("c") or state.get("b") or state.get("a") or authenticator


# The account the deletion checks delete; run_checks registers it early (throwaway_account).
THROWAWAY = "erin"


def account_deletion_checks(check, driver, page, server_port, throwaway, authenticator):
    """Deleting the account from the page (docs/contracts/accounts.md): the throwaway account, whose session is
    stale by now, so the page steps up with a passkey before DELETE /me goes through; then the
    Signal API for each deleted passkey, the signed-out view, and the name free again. Returns the
    virtual authenticator it leaves in the browser."""
    if not throwaway:
        return authenticator
    name = throwaway["name"]
    base = f"http://127.0.0.1:{server_port}"
    state = {}

    def page_json(method, path, body=None, omit=False):
        return driver.script(PAGE_FETCH_JS, method, path, body, omit)

    def signed_in_as_throwaway():
        # An authenticator holding just the throwaway's first passkey, for the step-up (one: the
        # virtual authenticator takes no second resident credential of the same user).
        try:
            driver.remove_authenticator(authenticator)
        except WebDriverError:
            pass  # already gone with a check that failed
        state["authenticator"] = driver.add_authenticator()
        driver.add_credential(state["authenticator"], throwaway["credentials"][0])
        page.open("?autofill=off&upgrade=off")
        # This browser takes the throwaway's session (the cookie the server would have set).
        names = [c["name"] for c in driver.command("GET", "/cookie") if c["name"] in ("session", "__Host-session")]
        for cookie in names:
            driver.command("DELETE", f"/cookie/{cookie}")
        driver.command("POST", "/cookie", {"cookie": {"name": (names or ["session"])[0], "value": throwaway["token"],
                                                      "path": "/", "httpOnly": True, "sameSite": "Lax"}})
        snap = page.open("?autofill=off&upgrade=off")
        expect(snap["signedIn"] and name in (snap["whoami"] or ""), f"the page shows {snap['whoami']!r} "
               f"(signed in: {snap['signedIn']})")
        expect(len(snap["passkeys"]) == 2, f"#passkeys lists {len(snap['passkeys'])} items")
        wait = throwaway["verified_at"] + REAUTH_WINDOW + 0.5 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    if not check(f"the browser signed in as '{name}' with a session older than the reauth window", signed_in_as_throwaway):
        return state.get("authenticator", authenticator)

    def wrong_confirmation():
        driver.script("document.querySelector('#delete-account').open = true;")
        driver.type_into("#delete-confirm", "alice")
        snap = page.run("#delete-account-button", "error")
        expect(name in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"], "the signed-in view went away")
        answer = page_json("GET", "/me")
        expect(answer["status"] == 200 and answer["body"]["user_name"] == name and len(answer["body"]["credentials"]) == 2,
               f"GET /me answered {answer['status']}: {answer['text'][:300]}")
        status, _, _ = http("GET", base + "/registration_initialize?user_name=alice", timeout=10)
        expect(status == 409, f"registration_initialize for alice answered {status}: alice's account should be there")
    check("Delete account with another name typed (alice): an error, both accounts still there", wrong_confirmation)

    def deleted():
        account = page_json("GET", "/me")["body"]
        ids = [c["credential_id"] for c in account["credentials"]]
        expect(len(ids) == 2 and all(any(same_id(i, c["credentialId"]) for i in ids) for c in throwaway["credentials"]),
               f"/me lists {ids!r}, not the throwaway's two passkeys")
        cookies = driver.command("GET", "/cookie")
        driver.script(SIGNAL_RECORDER_JS)
        driver.type_into("#delete-confirm", name)
        snap = page.run("#delete-account-button", "ok")
        log = driver.script("return window.__statusLog || [];")
        expect(snap["text"] == "Account deleted", f"status text is {snap['text']!r} (changes: {' -> '.join(log)})")
        expect(snap["signedOut"] and not snap["signedIn"], "the signed-out view is not shown")
        expect(snap["passkeys"] == [], "the passkey list still shows")
        expect(any("Confirm it is you with your passkey" in entry for entry in log),
               f"the page did not step up (status changes: {' -> '.join(log)})")
        calls = [s["argument"] for s in driver.script("return window.__signals;") if s["name"] == "signalUnknownCredential"]
        expect(len(calls) == len(ids) and all(call.get("rpId") == "localhost" for call in calls)
               and all(sum(same_id(call.get("credentialId", ""), i) for call in calls) == 1 for i in ids),
               f"signalUnknownCredential calls: {calls!r}; wanted one for each of {ids!r} with rpId localhost")
        old = "; ".join(f"{c['name']}={c['value']}" for c in cookies)
        status, body, _ = http("GET", base + "/me", headers={"Cookie": old}, timeout=10)
        expect(status == 401, f"GET /me with the old cookie answered {status}: {body!r}")
        for token in (throwaway["token"], throwaway["other_token"]):
            status, body, _ = http("GET", base + "/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
            expect(status == 401, f"GET /me with a session's token from before answered {status}: {body!r}")
        code = page.fetch_status("/me")
        expect(code == 401, f"GET /me from the page answered {code}")
        left = [c for c in driver.command("GET", "/cookie") if c["name"] in ("session", "__Host-session") and c["value"]]
        expect(not left, f"the browser still holds {left!r}")
    gone = check(f"Delete account with '{name}' typed: the page steps up with the passkey, DELETE /me, "
                 "signalUnknownCredential for each passkey, the signed-out view and 'Account deleted'; "
                 "the old cookie and the account's other session get 401", deleted)

    def name_free():
        status, body, _ = http("GET", base + "/registration_initialize?user_name=" + urllib.parse.quote(name), timeout=10)
        expect(status == 200, f"registration_initialize for {name!r} answered {status}: {str(body)[:200]}")
        driver.type_into("#username", name)
        snap = page.run("#register", "ok")
        expect(f"Passkey created for {name}" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"] and len(snap["passkeys"]) == 1, f"signed in: {snap['signedIn']}, "
               f"#passkeys lists {len(snap['passkeys'])} items")
        account = page_json("GET", "/me")["body"]
        expect(account["user_id"] != throwaway["user_id"], "the new account has the deleted one's user id")
        expect(not any(same_id(c["credential_id"], old["credentialId"])
                       for c in account["credentials"] for old in throwaway["credentials"]),
               "the new account lists a deleted passkey")
    if gone:
        check(f"'{name}' is free again: registration_initialize answers 200 and the page registers it anew "
              "(a new user id, none of the deleted passkeys)", name_free)
    return state.get("authenticator", authenticator)


# The invitation page's own parts: the banner above the form (null while hidden), the name field,
# and whether "Create a passkey" can be clicked.
INVITATION_FORM_JS = """
const q = (s) => document.querySelector(s);
return {
  continueTo: q('#continue-to').hidden ? null : q('#continue-to').textContent,
  username: q('#username').value,
  readOnly: q('#username').readOnly,
  register: !q('#register').hidden && q('#register').offsetParent !== null,
};
"""

# The names the invitation checks give out: a new account's, and an existing account's reset.
INVITED = "ivy"
RESET = "rita"


def invitation_checks(check, driver, page, server_port, context, authenticator):
    """Invitation and reset links (docs/contracts/accounts.md, Account recovery): `users invite NAME` (the
    command line, on the running server's database) prints <origin>/?invite=TOKEN; the page opened
    with it names the account, and "Create a passkey" registers one through the link, which is
    then spent. For a new name it makes the account; for an existing one it is a reset: the new
    passkey joins the account and its other sessions end."""
    base = f"http://127.0.0.1:{server_port}"
    state = {}

    def page_json(method, path, body=None, omit=False):
        return driver.script(PAGE_FETCH_JS, method, path, body, omit)

    def invite(name):
        made = subprocess.run([context["binary"], "users", "invite", name, "--origin", page.origin,
                               "--database", context["database"]], capture_output=True, text=True, timeout=60)
        expect(made.returncode == 0, f"users invite {name} exited {made.returncode}: {made.stderr.strip()[-300:]}")
        link = (made.stdout.strip().splitlines() or [""])[-1]
        expect(re.fullmatch(re.escape(page.origin) + r"/\?invite=[A-Za-z0-9_-]{43}", link),
               f"the last line users invite {name} printed is {link!r}, not {page.origin}/?invite=TOKEN")
        return link

    def land(link):
        # The link as printed, with autofill and upgrades off: the invitation page is signed out,
        # and the virtual authenticator would answer an autofill request at once (signing in as
        # whoever it holds) before the test could click "Create a passkey".
        driver.navigate(link + "&autofill=off&upgrade=off")
        return page.wait_for(lambda s: s["state"] == "error" or (
            s["signedOut"] and driver.script("return !document.querySelector('#continue-to').hidden;")),
            "the page to show the invitation or an error")

    def invitation_form(snap, name, banner):
        expect(snap["state"] != "error", f"the page shows an error: {snap['error']!r} {snap['text']!r}")
        expect(snap["signedOut"] and not snap["signedIn"], "the signed-out form is not shown")
        form = driver.script(INVITATION_FORM_JS)
        expect(form["continueTo"] == banner, f"#continue-to reads {form['continueTo']!r}, wanted {banner!r}")
        expect(form["username"] == name and form["readOnly"],
               f"#username holds {form['username']!r} (read-only: {form['readOnly']}), wanted {name!r} read-only")
        expect(form["register"], "#register is not visible")

    def signed_in_through_link(name, passkeys):
        snap = page.run("#register", "ok")
        expect(f"Passkey created for {name}" in snap["text"], f"status text is {snap['text']!r}")
        expect(snap["signedIn"] and name in (snap["whoami"] or ""),
               f"the page shows {snap['whoami']!r} (signed in: {snap['signedIn']})")
        expect(len(snap["passkeys"]) == passkeys, f"#passkeys lists {len(snap['passkeys'])} items, wanted {passkeys}")

    def token_dropped():
        where = driver.script("return location.pathname + location.search;")
        expect(where == "/", f"the address is {where!r} after the registration, wanted / (the token dropped)")

    # A virtual authenticator of their own (one in the browser, holding nothing yet).
    def fresh_authenticator():
        try:
            driver.remove_authenticator(authenticator)
        except WebDriverError:
            pass  # already gone with a check that failed
        state["authenticator"] = driver.add_authenticator()
    if not check("a fresh virtual authenticator for the invitation checks", fresh_authenticator):
        return

    def new_account():
        link = invite(INVITED)
        state["link"] = link
        invitation_form(land(link), INVITED, f"Invitation for {INVITED}: create your passkey")
        signed_in_through_link(INVITED, 1)
        state["spent"] = True
        account = page_json("GET", "/me")
        expect(account["status"] == 200 and account["body"]["user_name"] == INVITED,
               f"GET /me answered {account['status']}: {account['text'][:200]}")
        token_dropped()
    check(f"an invitation link for a new name '{INVITED}' (users invite): the page shows the signed-out form "
                 "with the name read-only, 'Invitation for', the Create button; registering through it signs in "
                 "as the new account and drops the token from the address", new_account)

    def spent():
        snap = land(state["link"])
        expect(snap["state"] == "error" and snap["error"] == "invalid_invite",
               f"#status is {snap['state']!r} with data-error {snap['error']!r}: {snap['text']!r}")
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(state["link"]).query)["invite"][0]
        status, body, _ = http("POST", base + "/invitation", {"invite": token}, timeout=10)
        expect(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_invite",
               f"POST /invitation answered {status}: {body!r}")
    if state.get("spent"):
        check("the same invitation link again: the page shows error invalid_invite (POST /invitation 400)", spent)

    def reset():
        held = state["authenticator"]
        made = driver.script(REGISTER_OUTSIDE_JS, RESET, None)
        expect(made["step"] == "finalize" and made["status"] == 200,
               f"registering {RESET!r}: {made['step']} answered {made['status']}: {made['body'][:200]}")
        token = json.loads(made["body"]).get("session")
        expect(token, f"the registration answered {made['body'][:200]!r}")
        # The account's passkey leaves the authenticator: the reset's options exclude it, and an
        # authenticator holding it would refuse to make the new one.
        found = [c for c in driver.credentials(held) if same_id(c["credentialId"], made["id"])]
        expect(len(found) == 1, f"the authenticator holds {len(found)} credentials with the new id")
        driver.command("DELETE", f"/webauthn/authenticator/{held}/credentials/{found[0]['credentialId']}")
        bearer = {"Authorization": f"Bearer {token}"}
        status, account, _ = http("GET", base + "/me", headers=bearer, timeout=10)
        expect(status == 200 and len(account["credentials"]) == 1, f"GET /me with its token answered {status}: {str(account)[:200]}")
        invitation_form(land(invite(RESET)), RESET, f"Reset for {RESET}: create a new passkey for this account")
        signed_in_through_link(RESET, 2)
        status, body, _ = http("GET", base + "/me", headers=bearer, timeout=10)
        expect(status == 401, f"GET /me with the session's token from before the reset answered {status}: {str(body)[:200]}")
        after = page_json("GET", "/me")
        expect(after["status"] == 200 and after["body"]["user_id"] == account["user_id"]
               and len(after["body"]["credentials"]) == 2
               and any(same_id(c["credential_id"], made["id"]) for c in after["body"]["credentials"]),
               f"GET /me from the page answered {after['status']}: {after['text'][:300]}")
        token_dropped()
    check(f"a reset link for an existing account '{RESET}' (users invite): 'Reset for' on the page, the new passkey "
          "joins the account (two listed), the account's session from before gets 401", reset)


def pad(text):
    return text + "=" * (-len(text) % 4)


def iso_seconds(text):
    """Seconds since the epoch of an ISO 8601 UTC time such as 2025-01-02T03:04:05Z."""
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def same_id(a, b):
    """Compares two credential ids given as base64url/base64, padded or not."""
    try:
        return base64.urlsafe_b64decode(pad(a.replace("+", "-").replace("/", "_"))) == \
            base64.urlsafe_b64decode(pad(b.replace("+", "-").replace("/", "_")))
    except (ValueError, AttributeError):
        return a == b


# ----------------------------------------------------------------------- main

# The Messages for Business client the server is started with.
MFB = {"client": "browser-mfb", "secret": "browser-mfb-secret", "token": "browser-test-business-token"}


class OutOfTime(BaseException):
    """Raised by SIGALRM; a BaseException so no check swallows it."""


def run(results, args, workdir, live):
    """Starts the server, chromedriver and a session (kept in `live` for cleanup), then checks."""
    binary = os.path.abspath(args.server_binary)
    if not results.check("server binary exists",
                         lambda: expect(os.access(binary, os.X_OK), f"{binary} is not executable")):
        return
    apple = AppleStandIn(workdir)
    live["apple"] = apple
    server = Server(binary, os.path.join(workdir, "db.sqlite"), os.path.join(REPO, "Public"),
                    args.server_port, extra=[
                        "--apple-client-id", AppleStandIn.CLIENT_ID,
                        "--apple-jwks-url", apple.base + "/auth/keys",
                        "--apple-authorize-url", apple.base + "/auth/authorize",
                        "--push-provider", "webhook", "--push-webhook-url", apple.base + "/push",
                        "--mfb-client-id", MFB["client"], "--mfb-client-secret", MFB["secret"],
                        "--mfb-redirect-uri", apple.base + "/mfb/callback", "--mfb-api-token", MFB["token"],
                        "--reauth-window", str(REAUTH_WINDOW), "--dynamic-registration", "open",
                    ])
    live["server"] = server
    stream, port = results.check("server starts and prints 'listening on http://HOST:PORT'",
                                 lambda: server.wait_listening(30)) or (None, None)
    if port is None:
        return
    live["server_listening"] = True
    results.check("the 'listening on' line is on stdout",
                  lambda: expect(stream == "stdout", f"it was on {stream}"))

    driver_port = free_port()
    live["chromedriver"] = subprocess.Popen(
        [args.chromedriver, f"--port={driver_port}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so the browser goes with it
    )
    driver = WebDriver(driver_port)
    live["driver"] = driver

    def start_browser():
        driver.wait_ready(20)
        driver.start_session()
    if not results.check("chromedriver starts a headless Chromium session", start_browser):
        return
    # The RP ID is localhost and the allowed origin is http://localhost:PORT (not 127.0.0.1).
    run_checks(results, driver, Page(driver, f"http://localhost:{port}"), port,
               {"binary": binary, "apple": apple, "workdir": workdir, "database": os.path.join(workdir, "db.sqlite"),
                "mfb": {**MFB, "redirect": apple.base + "/mfb/callback"}})


def main_for(run, description, workdir_prefix, cleanup=lambda live: None):
    """The main of a Chromium test (this one, the admin page's, the waiting recovery's): its
    command line, `run(results, args, workdir, live)` bounded by OVERALL_BUDGET, then the browser,
    `cleanup(live)` and the server stopped whatever happened; the last line counts the checks."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--server-binary", default=os.path.join(REPO, ".build", "debug", "passkey-server"))
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--server-port", type=int, default=0,
                        help="port passed to `serve --port` (default 0: the server picks one)")
    args = parser.parse_args()

    results = Results()
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix=workdir_prefix)
    live = {}

    # Bound the whole run: a hang anywhere ends in cleanup, not in a stuck job.
    def out_of_time(signum, frame):
        raise OutOfTime(f"the run took longer than {OVERALL_BUDGET:.0f} s")
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(int(OVERALL_BUDGET))

    try:
        run(results, args, workdir, live)
    except (Exception, OutOfTime) as error:
        results.record("run finished without an unexpected error", error)
    finally:
        signal.alarm(0)
        stop_browser(live)
        cleanup(live)
        stop_server(results, live)
        shutil.rmtree(workdir, ignore_errors=True)
        print(f"# took {time.monotonic() - started:.1f} s", file=sys.stderr)

    print(f"{results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


def main():
    def stop_apple(live):
        if live.get("apple") is not None:
            live["apple"].stop()
    return main_for(run, __doc__, "passkey-browser-", stop_apple)


def stop_browser(live):
    """Ends the WebDriver session in live["driver"] and stops live["chromedriver"] (with the browser)."""
    driver = live.get("driver")
    if driver is not None:
        try:
            driver.end_session()
        except Exception as error:
            print(f"# could not end the WebDriver session: {error}", file=sys.stderr)
    if live.get("chromedriver") is not None:
        stop_group(live["chromedriver"])


def stop_server(results, live):
    """Stops live["server"]: once it listened, exiting 0 on SIGTERM is a check (and its output is
    shown when any check failed)."""
    server = live.get("server")
    if server is not None and not live.get("server_listening"):
        try:
            server.stop()
        except Exception as error:
            print(f"# server: {error}", file=sys.stderr)
    elif server is not None:
        def stopped():
            code = server.stop()
            expect(code == 0, f"exit code {code}")
        results.check("server exits 0 on SIGTERM", stopped)
        if results.failed:
            print("# server output (last 20 lines):", file=sys.stderr)
            for line in server.log[-20:]:
                print(f"#   {line}", file=sys.stderr)


def stop_group(process):
    """Ends chromedriver and anything it started (its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=5)


if __name__ == "__main__":
    sys.exit(main())
