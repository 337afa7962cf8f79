#!/usr/bin/env python3
"""nginx (auth_request) and Caddy (forward_auth) put an application behind passkey-server.

Starts `passkey-server serve --port 0 --trusted-proxy 127.0.0.1/32` with forward-auth rules
for the host `localhost` (the whole host for the group staff, /admin for the group admins,
/fresh for staff with a passkey ceremony in the last 10 s, /vault for a hardware-bound passkey), a
small application on a free port of 127.0.0.1 (it answers with the request headers it was
given, as JSON, or as a page naming Remote-User), and in front of it nginx and Caddy, each on a
free port of 127.0.0.1 with a small main configuration that includes the very file the nginx and
Caddy guides include: docs/examples/nginx-forward-auth.conf and docs/examples/Caddyfile-forward-auth. Then,
through each proxy: no session is sent to the sign-in page; a session reaches the application
with Remote-User, Remote-Name, Remote-Groups and Remote-Sub, and a POST keeps its body;
Remote-Acr, Remote-Amr and Remote-Auth-Time of the sign-in; /vault is 403 to an account
without a hardware-bound passkey, and /fresh sends a session older than 10 s to the sign-in
page while the rest of the host lets it through; Remote-* headers a client sends never reach it, and neither the client's own X-Original-URL or
X-Forwarded-* nor another Host changes which request is judged; the rules give 403 until
`passkey-server users add-to-group` (beside the running server) lets the user in. Last, headless Chromium with a WebAuthn virtual
authenticator opens the application through Caddy, is sent to the server's sign-in page, signs
in with its passkey and sees the application (through Caddy and nginx) under its user name;
11 s later /fresh sends it to the sign-in page, which confirms with the passkey and lets it on;
after signing out, nginx sends it to the sign-in page again. Accounts for the requests without
a browser are registered with Tests/API/sign_up.py. Starts, waits for and stops its processes
with Tests/Identity/harness.py (which builds on Tests/Browser/browser_test.py). Standard library
only.

    python3 Tests/Identity/proxy_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import hashlib
import html
import http.client as httpclient
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import harness
from harness import REPO, STEP_TIMEOUT, CheckFailed, bt, expect, wait_until

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NGINX_FRAGMENT = os.path.join(REPO, "docs", "examples", "nginx-forward-auth.conf")
CADDY_FRAGMENT = os.path.join(REPO, "docs", "examples", "Caddyfile-forward-auth")
SIGN_UP = os.path.join(TESTS, "API", "sign_up.py")
NGINX = "/usr/sbin/nginx"
CADDY = "/usr/bin/caddy"
# open.example lets staff in everywhere: a request for it that the proxy should not take (another
# Host than the application's) must not be judged by that rule.
# /fresh asks for a passkey ceremony in the last 10 s, /vault for a hardware-bound passkey
# (which no account here has, so it is 403, never a round trip to the sign-in page).
FRESH_SECONDS = 10
RULES = ["localhost=staff", "localhost/admin=admins", "open.example=staff",
         f"localhost/fresh=staff max_age={FRESH_SECONDS}", "localhost/vault= acr=phrh"]
REMOTE = ["Remote-User", "Remote-Name", "Remote-Email", "Remote-Groups", "Remote-Sub", "Remote-Acr", "Remote-Amr",
          "Remote-Auth-Time"]

# What a client might send to pass for someone else: each value names "forged", so any of them
# reaching the application shows. Other spellings too: lower case, and underscores (which some
# frameworks read as the same variable as the hyphenated name).
FORGED = [
    ("Remote-User", "admin-forged"),
    ("Remote-Name", "Admin forged"),
    ("Remote-Email", "admin@forged.example"),
    ("Remote-Groups", "admins,forged"),
    ("Remote-Sub", "forged-sub"),
    ("remote-user", "admin-forged-lower"),
    ("Remote_User", "admin-forged-underscore"),
    ("Remote_Groups", "admins,forged-underscore"),
    ("Remote-Acr", "phrh-forged"),
    ("Remote-Auth-Time", "9999999999-forged"),
]


# ----------------------------------------------------------------- application

class Application:
    """The protected application: answers every request with the headers it was given (JSON,
    or a page naming Remote-User when HTML is asked for) and keeps a list of what came."""

    name = "application"

    def __init__(self):
        self.seen = []
        application = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                content = self.rfile.read(length) if length else b""
                headers = list(self.headers.items())
                digest = hashlib.sha256(content).hexdigest()
                application.seen.append({"method": self.command, "path": self.path, "headers": headers})
                if "text/html" in (self.headers.get("Accept") or ""):
                    user = self.headers.get("Remote-User") or ""
                    body = ("<!doctype html>\n<title>Application</title>\n"
                            f'<p id="who">Signed in as {html.escape(user)}</p>\n').encode()
                    kind = "text/html; charset=utf-8"
                else:
                    body = json.dumps({"method": self.command, "path": self.path, "headers": headers,
                                       "body_sha256": digest}).encode()
                    kind = "application/json"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_HEAD = answer

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def reached(self, probe):
        return any(probe in request["path"] for request in self.seen)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# --------------------------------------------------------------------- proxies

class Nginx(harness.Foreground):
    """nginx -g 'daemon off;' with its prefix, pid, logs and temporary files in `root`."""

    name = "nginx"

    def __init__(self, root, port, server_port, application_port):
        super().__init__(root, port)
        self.config = os.path.join(root, "nginx.conf")
        self.error_log = os.path.join(root, "error.log")
        with open(self.config, "w") as f:
            f.write("\n".join([
                "daemon off;",
                "worker_processes 1;",
                f"pid {root}/nginx.pid;",
                f"error_log {self.error_log} info;",
                "events { worker_connections 64; }",
                "http {",
                f"    access_log {root}/access.log;",
                *[f"    {kind}_temp_path {root}/{kind}_temp;" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")],
                f"    upstream passkey_server {{ server 127.0.0.1:{server_port}; }}",
                f"    upstream application {{ server 127.0.0.1:{application_port}; }}",
                "    server {",
                f"        listen 127.0.0.1:{port} default_server;",
                "        return 444;",
                "    }",
                "    server {",
                f"        listen 127.0.0.1:{port};",
                "        server_name localhost;",
                f"        set $passkey_origin http://localhost:{server_port};",
                f"        include {NGINX_FRAGMENT};",
                "    }",
                "}",
            ]) + "\n")

    def command(self):
        return [NGINX, "-p", self.root + "/", "-c", self.config, "-e", self.error_log]

    def syntax(self):
        done = subprocess.run([*self.command(), "-t"], capture_output=True, text=True, timeout=30)
        expect(done.returncode == 0, f"nginx -t exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")

    def logs(self):
        return [self.output, self.error_log]


class Caddy(harness.Foreground):
    """caddy run with the Caddyfile adapter; its data and configuration in `root`."""

    name = "Caddy"

    def __init__(self, root, port, server_port, application_port):
        super().__init__(root, port)
        self.config = os.path.join(root, "Caddyfile")
        self.variables = {
            "SITE_ADDRESS": self.origin,
            "PASSKEY_SERVER": f"127.0.0.1:{server_port}",
            "APPLICATION": f"127.0.0.1:{application_port}",
        }
        with open(self.config, "w") as f:
            f.write("\n".join([
                "{",
                "\tadmin off",
                "\tdefault_bind 127.0.0.1",
                "}",
                f"import {CADDY_FRAGMENT}",
            ]) + "\n")

    def environment(self):
        env = {key: value for key, value in os.environ.items() if not key.startswith("XDG_")}
        env.update(self.variables)
        env.update({"HOME": self.root, "XDG_DATA_HOME": os.path.join(self.root, "data"),
                    "XDG_CONFIG_HOME": os.path.join(self.root, "config")})
        return env

    def command(self):
        return [CADDY, "run", "--config", self.config, "--adapter", "caddyfile"]

    def syntax(self):
        done = subprocess.run([CADDY, "validate", "--config", self.config, "--adapter", "caddyfile"],
                              env=self.environment(), cwd=self.root, capture_output=True, text=True, timeout=60)
        expect(done.returncode == 0, f"caddy validate exited {done.returncode}: "
                                     f"{(done.stderr.strip() or done.stdout.strip())[-600:]}")


# ------------------------------------------------------------------ requests

def request(port, path, cookie=None, extra=(), method="GET", body=None, host="localhost"):
    """http://localhost:PORT/PATH as a client would ask (no redirect followed); returns
    (status, headers as a dict of lower-case names, body)."""
    connection = httpclient.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", f"{host}:{port}")
        connection.putheader("Accept", "application/json")
        if cookie:
            connection.putheader("Cookie", f"session={cookie}")
        for name, value in extra:
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Type", "application/octet-stream")
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        body = answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, body
    finally:
        connection.close()


def probe_path(prefix="/docs/"):
    """A path no other request uses, so the application's list shows whether it arrived."""
    return f"{prefix}page?probe={uuid.uuid4().hex}&x=1"


def answer(body):
    """The application's answer: what it was given."""
    try:
        data = json.loads(body)
        data["headers"] = [tuple(pair) for pair in data["headers"]]
        return data
    except (ValueError, KeyError, TypeError):
        raise CheckFailed(f"not the application's answer: {body[:200]!r}")


def received(body):
    """The headers the application was given, as (name, value) pairs."""
    return answer(body)["headers"]


def header_values(pairs, name):
    """Every value of a header the application got under `name`, in any case."""
    return [value for key, value in pairs if key.lower() == name.lower()]


# ---------------------------------------------------------------------- steps

def sign_up(base, name):
    done = subprocess.run([sys.executable, SIGN_UP, base, name], capture_output=True, text=True, timeout=30)
    expect(done.returncode == 0, f"sign_up.py exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout.split()[0]


def add_to_group(binary, database, name, group):
    done = subprocess.run([binary, "users", "add-to-group", "--database", database, name, group],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    expect(done.returncode == 0, f"users add-to-group exited {done.returncode}: {done.stderr.strip()}")


def account(base, token):
    status, me, _ = bt.http("GET", base + "/me", headers={"Cookie": f"session={token}"})
    expect(status == 200 and isinstance(me, dict), f"/me answered {status}: {str(me)[:200]}")
    return me


def proxy_checks(check, proxy, app, issuer, users):
    """What every request through `proxy` must show."""
    n = proxy.name
    alice, carol = users["proxy-alice"], users["proxy-carol"]

    def signed_out_sent_away(cookie=None):
        path = probe_path()
        lies = [("X-Forwarded-Host", "other.example"), ("X-Forwarded-Proto", "https"), ("X-Forwarded-Uri", "/other")]
        status, head, body = request(proxy.port, path, cookie=cookie, extra=FORGED + lies)
        original = proxy.origin + path
        location = head.get("location", "")
        if isinstance(proxy, Caddy):
            # forward_auth passes /auth/forward's answer on: to the sign-in page with rd=.
            expect(status == 302, f"Caddy answered {status}: {body[:200]!r}")
            url = urllib.parse.urlsplit(location)
            expect(f"{url.scheme}://{url.netloc}{url.path}" == issuer + "/", f"Location is {location!r}")
            rd = urllib.parse.parse_qs(url.query).get("rd")
            expect(rd == [original], f"rd is {rd!r}, wanted {[original]!r} (Location {location!r})")
        else:
            # auth_request's 401, turned by error_page into the sign-in page with rd= (nginx
            # cannot percent-encode it).
            expect(status == 302, f"nginx answered {status}: {body[:200]!r}")
            expect(location == f"{issuer}/?rd={original}", f"Location is {location!r}")
        expect(not app.reached(path), "the request reached the application")
    check(f"{n}: without a session (and with forged Remote-* and X-Forwarded-* headers) the request "
          "is sent to the sign-in page with rd= its URL and never reaches the application", signed_out_sent_away)
    check(f"{n}: an unknown session token is sent to the sign-in page too",
          lambda: signed_out_sent_away(cookie="not-a-session-token"))

    def signed_in():
        status, _, body = request(proxy.port, probe_path(), cookie=alice["token"])
        expect(status == 200, f"{n} answered {status}: {body[:200]!r} ({proxy.log_tail(3)})")
        pairs = received(body)
        wanted = {"Remote-User": "proxy-alice", "Remote-Name": "proxy-alice",
                  "Remote-Groups": ",".join(alice["groups"]), "Remote-Sub": alice["sub"]}
        wrong = {name: header_values(pairs, name) for name, value in wanted.items()
                 if header_values(pairs, name) != [value]}
        expect(not wrong, f"the application got {wrong}, wanted {wanted}")
        email = header_values(pairs, "Remote-Email")
        expect(email in ([], [""]), f"Remote-Email is {email!r} for an account without one")
        # How the session was opened: a passkey on no trusted attestation (phr), device-bound and
        # user-verified, at sign-up.
        assurance = {name: header_values(pairs, name) for name in ("Remote-Acr", "Remote-Amr", "Remote-Auth-Time")}
        expect(assurance["Remote-Acr"] == ["phr"] and assurance["Remote-Amr"] == ["hwk user mfa"],
               f"the application got {assurance}")
        expect(len(assurance["Remote-Auth-Time"]) == 1 and abs(int(assurance["Remote-Auth-Time"][0]) - alice["signed_up"]) <= 5,
               f"Remote-Auth-Time is {assurance['Remote-Auth-Time']}, signed up at {alice['signed_up']}")
    check(f"{n}: with a session the application gets Remote-User, Remote-Name, Remote-Groups "
          "and Remote-Sub of the account, and Remote-Acr, Remote-Amr and Remote-Auth-Time of its sign-in", signed_in)

    def posted():
        content = os.urandom(3000)
        path = probe_path()
        status, _, body = request(proxy.port, path, cookie=alice["token"], method="POST", body=content)
        expect(status == 200, f"{n} answered {status}: {body[:200]!r}")
        got = answer(body)
        expect(got["method"] == "POST" and got["body_sha256"] == hashlib.sha256(content).hexdigest(),
               f"the application got {got['method']} with a body of SHA-256 {got['body_sha256']}")
        expect(header_values(got["headers"], "Remote-User") == ["proxy-alice"], "no Remote-User")
    check(f"{n}: a POST with a body reaches the application whole (the server is asked without the body)",
          posted)

    def forward_cookie_dropped():
        cookies = f"a=1; session={alice['token']}; __Secure-forward=not-for-the-application; b=2"
        status, _, body = request(proxy.port, probe_path(), extra=[("Cookie", cookies)])
        expect(status == 200, f"{n} answered {status}: {body[:200]!r}")
        sent = "; ".join(header_values(received(body), "Cookie"))
        expect("__Secure-forward" not in sent and "not-for-the-application" not in sent,
               f"the application got the forward-auth cookie: {sent!r}")
        expect("a=1" in sent and "b=2" in sent, f"the application lost the other cookies: {sent!r}")
    check(f"{n}: the forward-auth cookie is dropped before the application, the other cookies kept",
          forward_cookie_dropped)

    def forged_dropped():
        status, _, body = request(proxy.port, probe_path(), cookie=alice["token"], extra=FORGED)
        expect(status == 200, f"{n} answered {status}: {body[:200]!r}")
        pairs = received(body)
        leaked = [(k, v) for k, v in pairs if "forged" in v]
        expect(not leaked, f"the application got the client's {leaked}")
        users_seen = header_values(pairs, "Remote-User")
        expect(users_seen == ["proxy-alice"], f"Remote-User is {users_seen!r}")
        odd = [k for k, _ in pairs if k.lower().replace("_", "-") in {r.lower() for r in REMOTE} and k not in REMOTE]
        expect(not odd, f"the application got other spellings of the Remote-* headers: {odd}")
    check(f"{n}: Remote-* headers the client sends (any spelling) never reach the application; "
          "it sees the signed-in user", forged_dropped)

    def not_fooled(lies):
        # The client's own description of the request must not make /admin/ look like a page
        # the user may see: only the proxy's counts.
        def judged():
            path = probe_path("/admin/")
            status, _, body = request(proxy.port, path, cookie=alice["token"], extra=lies)
            reached = app.reached(path)
            expect(status == 403 and not reached, f"{n} answered {status} to GET {path} with "
                   f"{'; '.join(f'{k}: {v}' for k, v in lies)} (the application "
                   f"{'got' if reached else 'did not get'} it); wanted 403")
        return judged
    check(f"{n}: a client's own X-Forwarded-Host, -Proto, -Uri and -Method do not change which request is judged",
          not_fooled([("X-Forwarded-Uri", "/docs/"), ("X-Forwarded-Host", "localhost"),
                      ("X-Forwarded-Proto", "https"), ("X-Forwarded-Method", "HEAD")]))
    check(f"{n}: a client's own X-Original-URL and X-Original-Method do not change which request is judged",
          not_fooled([("X-Original-URL", f"{proxy.origin}/docs/"), ("X-Original-Method", "HEAD")]))

    def other_host():
        path = probe_path("/admin/")
        try:
            status, _, _ = request(proxy.port, path, cookie=alice["token"], host="open.example")
        except (OSError, httpclient.HTTPException):
            status = "no answer"  # nginx's default server closes the connection (444)
        expect(not app.reached(path), f"{n} answered {status} and the application got the request")
    check(f"{n}: a request for another host (Host: open.example, which a rule opens to staff) "
          "never reaches the application", other_host)

    def forbidden(prefix, user):
        def refused():
            path = probe_path(prefix)
            status, _, body = request(proxy.port, path, cookie=user["token"])
            expect(status == 403, f"{n} answered {status}: {body[:200]!r}")
            expect(not app.reached(path), "the request reached the application")
        return refused
    check(f"{n}: the rule localhost/admin=admins answers 403 to a user outside admins, "
          "and the application never sees the request", forbidden("/admin/", alice))
    check(f"{n}: the rule localhost/vault= acr=phrh answers 403 to an account with no hardware-bound passkey "
          "(no step-up could meet it)", forbidden("/vault/", alice))
    no_group = forbidden("/", carol)
    check(f"{n}: a signed-in user in none of the rules' groups gets 403 anywhere on the host", no_group)


def admin_checks(check, proxy, alice):
    def admitted():
        status, _, body = request(proxy.port, probe_path("/admin/"), cookie=alice["token"])
        expect(status == 200, f"{proxy.name} answered {status}: {body[:200]!r}")
        groups = header_values(received(body), "Remote-Groups")
        expect(groups == ["admins,staff"], f"Remote-Groups is {groups!r}")
    check(f"{proxy.name}: after users add-to-group admins, the same request reaches the application "
          "with Remote-Groups admins,staff", admitted)


def fresh_checks(check, proxies, app, issuer, alice):
    """Once alice's sign-up is older than the /fresh rule's max_age: both proxies send her to the
    sign-in page (to step up) there, while the rest of the host still takes her session."""
    time.sleep(max(0.0, alice["signed_up"] + FRESH_SECONDS + 1.5 - time.time()))
    for proxy in proxies:
        def stale():
            path = probe_path("/fresh/")
            status, head, body = request(proxy.port, path, cookie=alice["token"])
            location = head.get("location", "")
            expect(status == 302 and location.startswith(issuer + "/?rd="), f"{proxy.name} answered {status} to {location!r}: {body[:200]!r}")
            expect(not app.reached(path), "the request reached the application")
            status, _, body = request(proxy.port, probe_path("/docs/"), cookie=alice["token"])
            expect(status == 200, f"the rest of the host answered {status}: {body[:200]!r}")
        check(f"{proxy.name}: {FRESH_SECONDS + 1} s after the sign-in, localhost/fresh (max_age={FRESH_SECONDS}) sends "
              "the signed-in user to the sign-in page to step up; the rest of the host lets her through", stale)


def run(results, args, workdir, live):
    check = results.check
    binary = os.path.abspath(args.server_binary)
    if not check("server binary, nginx and caddy are installed", lambda: (
            expect(os.access(binary, os.X_OK), f"{binary} is not executable"),
            expect(os.access(NGINX, os.X_OK), f"{NGINX} is missing (Debian package nginx)"),
            expect(os.access(CADDY, os.X_OK), f"{CADDY} is missing (Debian package caddy)"))):
        return
    check("the nginx guide includes this configuration file", lambda: harness.guide_includes("nginx.md", NGINX_FRAGMENT))
    check("the Caddy guide includes this configuration file", lambda: harness.guide_includes("caddy.md", CADDY_FRAGMENT))

    app = harness.started(live, Application())

    database = os.path.join(workdir, "db.sqlite")
    extra = ["--trusted-proxy", "127.0.0.1/32"]
    for rule in RULES:
        extra += ["--forward-auth-rule", rule]
    server_port = harness.start_server(check, live, binary, database, "server starts with --trusted-proxy and "
                                       "--forward-auth-rule " + " ".join(RULES), extra=extra)
    if server_port is None:
        return
    issuer = f"http://localhost:{server_port}"
    base = f"http://127.0.0.1:{server_port}"

    users = {}

    def accounts():
        for name, groups in (("proxy-alice", ["staff"]), ("proxy-carol", [])):
            token = sign_up(base, name)
            for group in groups:
                add_to_group(binary, database, name, group)
            signed_up = int(time.time())
            me = account(base, token)
            expect(me.get("user_id") and me.get("groups") == groups, f"/me is {me}")
            users[name] = {"token": token, "sub": me["user_id"], "groups": me["groups"], "signed_up": signed_up}
    if not check("accounts proxy-alice (group staff) and proxy-carol (no group) are registered", accounts):
        return

    proxies = []
    for kind in (Nginx, Caddy):
        proxy = harness.started(live, kind(os.path.join(workdir, kind.__name__.lower()), bt.free_port(),
                                           server_port, app.port))
        if not check(f"{proxy.name} accepts the main configuration that includes the documented file", proxy.syntax):
            continue
        if check(f"{proxy.name} starts and listens on 127.0.0.1:{proxy.port}", lambda: proxy.start(30)):
            proxies.append(proxy)

    for proxy in proxies:
        proxy_checks(check, proxy, app, issuer, users)

    alice = users["proxy-alice"]
    if check("passkey-server users add-to-group proxy-alice admins beside the running server",
             lambda: add_to_group(binary, database, "proxy-alice", "admins")):
        for proxy in proxies:
            admin_checks(check, proxy, alice)

    fresh_checks(check, proxies, app, issuer, alice)

    caddy = next((p for p in proxies if isinstance(p, Caddy)), None)
    nginx = next((p for p in proxies if isinstance(p, Nginx)), None)
    if caddy is None:
        return
    browser_checks(check, args, live, binary, database, issuer, caddy, nginx)


def browser_checks(check, args, live, binary, database, issuer, caddy, nginx):
    user = "proxy-dana"
    driver = harness.start_browser(check, args, live, no_autofill=True)
    if driver is None:
        return
    page = bt.Page(driver, issuer)

    def registered():
        harness.register_passkey(driver, page, user)
        add_to_group(binary, database, user, "staff")
    if not check(f"a passkey for '{user}' is registered on the page (group staff), then the page signs out",
                 registered):
        return

    protected = caddy.origin + "/welcome?from=browser"

    def sent_to_sign_in():
        driver.navigate(protected)
        snap = page.wait_for(lambda s: s["signedOut"] and "continue to the application" in (s["text"] or ""),
                             "the sign-in page to offer going on to the application", timeout=STEP_TIMEOUT)
        href = driver.script("return location.href;")
        url = urllib.parse.urlsplit(href)
        expect(f"{url.scheme}://{url.netloc}{url.path}" == issuer + "/", f"the browser is at {href!r}")
        rd = urllib.parse.parse_qs(url.query).get("rd")
        expect(rd == [protected], f"rd is {rd!r}")
        expect(not snap["signedIn"], "the signed-in view shows")
    if not check("through Caddy, the application sends a browser without a session to the server's sign-in page",
                 sent_to_sign_in):
        return

    def signed_in():
        driver.type_into("#username", user)
        driver.click("#login")
        # /auth/return goes back only to this server's origins; the application's port is
        # another origin, so the browser lands on the server's own page, signed in.
        at = wait_until(driver, lambda w: w["href"].startswith(issuer + "/") and "?rd=" not in w["href"]
                        and user in w["text"], "the server's page, signed in")
        snap = page.wait_for(lambda s: s["signedIn"], "the signed-in view")
        expect(user in (snap["whoami"] or ""), f"the page names {snap['whoami']!r} ({at['href']})")
    if not check(f"signing in there with the passkey opens a session for '{user}'", signed_in):
        return

    def through(proxy):
        def shown():
            url = proxy.origin + "/welcome?from=browser"
            driver.navigate(url)
            at = wait_until(driver, lambda w: "Signed in as" in w["text"] or w["href"] != url,
                            f"the application through {proxy.name}")
            expect(at["href"] == url, f"the browser is at {at['href']!r}")
            who = driver.script("return document.querySelector('#who').textContent;")
            expect(who == f"Signed in as {user}", f"the page reads {who!r}")
        return shown
    check(f"opening the application through Caddy again shows it, signed in as '{user}'", through(caddy))
    if nginx is None:
        return
    check(f"the same session opens the application through nginx as '{user}'", through(nginx))

    def stepped_up():
        # The sign-in above is older than the /fresh rule's max_age once this wait is over.
        time.sleep(FRESH_SECONDS + 1.5)
        url = caddy.origin + "/fresh/welcome?from=browser"
        driver.navigate(url)
        wait_until(driver, lambda w: w["href"].startswith(issuer + "/?rd=") and "Confirm and continue" in w["text"],
                   "the server's page asking to confirm with a passkey")
        driver.click("#forward-confirm-button")
        # The step-up (a user-verified ceremony with the virtual authenticator), then
        # /auth/return, which sends a browser to another origin's address only under
        # --cookie-domain: here to the server's own page.
        wait_until(driver, lambda w: w["href"].startswith(issuer + "/") and "?rd=" not in w["href"],
                   "the server's page after the step-up")
        driver.navigate(url)
        at = wait_until(driver, lambda w: "Signed in as" in w["text"] or w["href"] != url, "the application through Caddy")
        expect(at["href"] == url, f"the browser is at {at['href']!r}")
        who = driver.script("return document.querySelector('#who').textContent;")
        expect(who == f"Signed in as {user}", f"the page reads {who!r}")
    check(f"after {FRESH_SECONDS + 1} s, localhost/fresh (max_age={FRESH_SECONDS}) sends the browser to the sign-in page, "
          "which confirms with the passkey and lets it through", stepped_up)

    def signed_out_again():
        page.open("?autofill=off&upgrade=off")
        page.run("#logout", "ok")
        url = nginx.origin + "/welcome?from=browser"
        driver.navigate(url)
        at = wait_until(driver, lambda w: w["href"].startswith(issuer + "/?rd="), "the sign-in page")
        expect("Signed in as" not in at["text"], f"the page reads {at['text'][:200]!r}")
    check("after signing out on the page, nginx sends the browser to the sign-in page again", signed_out_again)


if __name__ == "__main__":
    sys.exit(harness.main(__doc__, "passkey-proxy-", run))
