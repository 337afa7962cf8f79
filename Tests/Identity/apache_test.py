#!/usr/bin/env python3
"""Apache httpd with mod_auth_openidc signs its users in through passkey-server.

Starts `passkey-server serve --port 0`, registers an OpenID client for Apache with
`passkey-server clients add`, and starts Apache (`/usr/sbin/apache2 -DFOREGROUND`) on a free
port of 127.0.0.1 with a small main configuration that includes
docs/examples/apache-mod-auth-openidc.conf, the very file README.md quotes. Then headless
Chromium, with a WebAuthn virtual authenticator, registers a user on the server's page, signs
out, opens Apache's protected page, is sent to the server's sign-in page, signs in with the
passkey and lands on the protected page, which names the user. Reuses the server, WebDriver
and page helpers of Tests/Browser/browser_test.py. Standard library only.

    python3 Tests/Identity/apache_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import argparse
import http.client as httpclient
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
import browser_test as bt  # noqa: E402  (the server, WebDriver and page helpers)

REPO = bt.REPO
CheckFailed = bt.CheckFailed
expect = bt.expect
FRAGMENT = os.path.join(REPO, "docs", "examples", "apache-mod-auth-openidc.conf")
README = os.path.join(REPO, "README.md")
APACHE = "/usr/sbin/apache2"
MODULES = "/usr/lib/apache2/modules"
# What the main configuration loads: the MPM, Require valid-user, and what the fragment uses.
LOADED = ["mpm_event", "authn_core", "authz_core", "authz_user", "mime", "dir", "include", "auth_openidc"]
CLIENT = {"id": "apache-intranet", "name": "The Apache Intranet"}
USER = "apache-alice"
OVERALL_BUDGET = 150.0     # seconds for the whole run (setup included)
STEP_TIMEOUT = 20.0        # seconds to wait for the browser to get somewhere

# The protected page: server-side includes echo REMOTE_USER (OIDCRemoteUserClaim preferred_username).
PROTECTED_PAGE = """<!doctype html>
<title>Protected</title>
<p id="who">Signed in as <!--#echo var="REMOTE_USER" --></p>
<p id="claim"><!--#echo var="OIDC_CLAIM_preferred_username" --></p>
"""

# Installed on every new document: a browser without passkey autofill. A virtual authenticator
# answers an autofill request at once, which would sign in before the page could be looked at;
# this way the sign-in is the button's, every run.
NO_AUTOFILL_JS = """
if (window.PublicKeyCredential) {
  PublicKeyCredential.isConditionalMediationAvailable = async () => false;
}
"""


# --------------------------------------------------------------------- apache

def main_config(root, port, defines):
    """The main configuration: Apache's own files in `root`, the documented fragment included."""
    lines = [
        f'ServerRoot "{root}"',
        "ServerName localhost",
        f"Listen 127.0.0.1:{port}",
        f'PidFile "{root}/httpd.pid"',
        f'DefaultRuntimeDir "{root}/run"',
        f'ErrorLog "{root}/error.log"',
        "LogLevel warn auth_openidc:info",
        *[f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in LOADED],
        f'TypesConfig "{root}/mime.types"',
        "StartServers 1",
        "ServerLimit 2",
        "ThreadsPerChild 10",
        "MaxRequestWorkers 20",
        "MinSpareThreads 5",
        "MaxSpareThreads 20",
        f'DocumentRoot "{root}/htdocs"',
        f'<Directory "{root}/htdocs">',
        "    Require all granted",
        "</Directory>",
    ]
    if os.geteuid() == 0:
        # Apache's children leave root for this user (as Debian's own configuration does).
        lines += ["User www-data", "Group www-data"]
    lines += [f"Define {name} {value}" for name, value in defines.items()]
    lines.append(f'Include "{FRAGMENT}"')
    return "\n".join(lines) + "\n"


class Apache:
    """apache2 -DFOREGROUND in its own process group, with its start-up output in a file."""

    def __init__(self, root, port, defines):
        self.root = root
        self.port = port
        for folder in ("run", "htdocs/protected"):
            os.makedirs(os.path.join(root, folder), exist_ok=True)
        with open(os.path.join(root, "mime.types"), "w") as f:
            f.write("text/html html htm\n")
        with open(os.path.join(root, "htdocs", "protected", "index.shtml"), "w") as f:
            f.write(PROTECTED_PAGE)
        self.config = os.path.join(root, "httpd.conf")
        with open(self.config, "w") as f:
            f.write(main_config(root, port, defines))
        # Apache's children run as www-data when started as root: they read the pages.
        for folder, _, files in os.walk(root):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        self.process = None
        self.output = os.path.join(root, "apache2.out")

    def syntax(self):
        """apache2 -t on the configuration; returns its output."""
        done = subprocess.run([APACHE, "-t", "-f", self.config], capture_output=True, text=True, timeout=30)
        expect(done.returncode == 0, f"apache2 -t exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stderr

    def start(self, timeout):
        with open(self.output, "wb") as out:
            self.process = subprocess.Popen([APACHE, "-f", self.config, "-DFOREGROUND"], cwd=self.root,
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CheckFailed(f"apache2 exited {self.process.returncode}: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise CheckFailed(f"apache2 did not listen on 127.0.0.1:{self.port} within {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self, count=8):
        lines = []
        for name in (self.output, os.path.join(self.root, "error.log")):
            try:
                with open(name, errors="replace") as f:
                    lines += f.read().splitlines()
            except OSError:
                pass
        return " | ".join(lines[-count:]) or "(no output)"

    def error_log(self):
        try:
            with open(os.path.join(self.root, "error.log"), errors="replace") as f:
                return f.read().splitlines()
        except OSError:
            return []

    def stop(self):
        if self.process is not None:
            bt.stop_group(self.process)


# ---------------------------------------------------------------------- steps

def register_client(binary, database, redirect_uri):
    """passkey-server clients add beside the running server; returns its JSON line."""
    done = subprocess.run([binary, "clients", "add", "--database", database, "--id", CLIENT["id"],
                           "--name", CLIENT["name"], "--redirect-uri", redirect_uri, "--scope", "openid profile"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    expect(done.returncode == 0, f"clients add exited {done.returncode}: {done.stderr.strip()}")
    lines = done.stdout.strip().splitlines()
    expect(lines, "clients add printed nothing")
    client = json.loads(lines[-1])
    expect(client.get("client_id") == CLIENT["id"] and client.get("client_secret"), f"clients add printed {lines[-1]!r}")
    return client


def readme_quotes_fragment():
    with open(FRAGMENT) as f:
        fragment = f.read()
    with open(README) as f:
        readme = f.read()
    expect("```\n" + fragment + "```\n" in readme,
           f"README.md does not quote {os.path.relpath(FRAGMENT, REPO)} verbatim in a fenced block")


def where(driver):
    return driver.script("return {href: location.href, text: document.body ? document.body.innerText : ''};")


def wait_until(driver, predicate, what, timeout=STEP_TIMEOUT):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = where(driver)
        except bt.WebDriverError:
            last = None  # between two documents
        if last is not None and predicate(last):
            return last
        time.sleep(0.1)
    raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}; "
                      f"at {last and last['href']!r} showing {last and last['text'][:200]!r}")


def run(results, args, workdir, live):
    check = results.check
    binary = os.path.abspath(args.server_binary)
    if not check("server binary, apache2 and mod_auth_openidc are installed", lambda: (
            expect(os.access(binary, os.X_OK), f"{binary} is not executable"),
            expect(os.access(APACHE, os.X_OK), f"{APACHE} is missing (Debian package apache2)"),
            expect(os.path.exists(f"{MODULES}/mod_auth_openidc.so"),
                   "mod_auth_openidc.so is missing (Debian package libapache2-mod-auth-openidc)"))):
        return
    check("README.md quotes the Apache configuration verbatim", readme_quotes_fragment)

    database = os.path.join(workdir, "db.sqlite")
    server = bt.Server(binary, database, os.path.join(REPO, "Public"))
    live["server"] = server
    _, server_port = check("server starts and prints 'listening on http://HOST:PORT'",
                           lambda: server.wait_listening(30)) or (None, None)
    if server_port is None:
        return
    live["server_listening"] = True
    issuer = f"http://localhost:{server_port}"

    apache_port = bt.free_port()
    apache_origin = f"http://localhost:{apache_port}"
    redirect_uri = apache_origin + "/protected/redirect_uri"
    client = check("passkey-server clients add registers Apache's client",
                   lambda: register_client(binary, database, redirect_uri))
    if not client:
        return

    apache = Apache(os.path.join(workdir, "apache"), apache_port, {
        "PASSKEY_ISSUER": issuer,
        "OIDC_CLIENT_ID": client["client_id"],
        "OIDC_CLIENT_SECRET": client["client_secret"],
        "OIDC_REDIRECT_URI": redirect_uri,
        "OIDC_PASSPHRASE": bt.b64url(os.urandom(32)),
    })
    live["apache"] = apache
    if not check("apache2 -t accepts the main configuration with the documented fragment", apache.syntax):
        return
    if not check(f"apache2 starts and listens on 127.0.0.1:{apache_port}", lambda: apache.start(20)):
        return

    def redirected_with_pkce():
        # A browser without a session (no cookies), by name as the browser will ask. Accept
        # names HTML: mod_auth_openidc answers 401, not a redirect, to what is not a browser.
        connection = httpclient.HTTPConnection("127.0.0.1", apache_port, timeout=30)
        connection.request("GET", "/protected/", headers={"Host": f"localhost:{apache_port}", "Accept": "text/html"})
        answer = connection.getresponse()
        location = answer.getheader("Location") or ""
        body = answer.read()
        connection.close()
        expect(answer.status == 302, f"Apache answered {answer.status}: {body[:200]!r} "
                                     f"(error log: {apache.log_tail(4)})")
        url = urllib.parse.urlsplit(location)
        expect(f"{url.scheme}://{url.netloc}{url.path}" == issuer + "/oauth/authorize", f"Location is {location!r}")
        query = dict(urllib.parse.parse_qsl(url.query))
        wanted = {"response_type": "code", "client_id": CLIENT["id"], "redirect_uri": redirect_uri,
                  "scope": "openid profile", "code_challenge_method": "S256"}
        wrong = {k: query.get(k) for k, v in wanted.items() if query.get(k) != v}
        expect(not wrong, f"the request has {wrong} (wanted {wanted})")
        missing = [k for k in ("state", "nonce", "code_challenge") if not query.get(k)]
        expect(not missing, f"the request lacks {missing}")
    check("without a session Apache redirects to /oauth/authorize with PKCE (S256), state and nonce",
          redirected_with_pkce)

    driver_port = bt.free_port()
    live["chromedriver"] = subprocess.Popen(
        [args.chromedriver, f"--port={driver_port}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so the browser goes with it
    )
    driver = bt.WebDriver(driver_port)
    live["driver"] = driver

    def start_browser():
        driver.wait_ready(20)
        driver.start_session()
    if not check("chromedriver starts a headless Chromium session", start_browser):
        return
    page = bt.Page(driver, issuer)

    def registered():
        driver.add_authenticator()
        snap = page.open("?autofill=off&upgrade=off")
        expect(snap["signedOut"], "a fresh browser is signed in")
        driver.type_into("#username", USER)
        page.run("#register", "ok")
        page.run("#logout", "ok")
    if not check(f"a passkey for '{USER}' is registered on the page, then the page signs out", registered):
        return

    def sent_to_sign_in():
        driver.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": NO_AUTOFILL_JS})
        driver.navigate(apache_origin + "/protected/")
        snap = page.wait_for(lambda s: s["signedOut"] and f"continue to {CLIENT['name']}" in (s["text"] or ""),
                             "the sign-in page to name the application", timeout=STEP_TIMEOUT)
        href = driver.script("return location.href;")
        expect(href.startswith(issuer + "/?authorization="), f"the browser is at {href!r}")
        expect(not snap["signedIn"], "the signed-in view shows")
    if not check("the protected page sends the browser to the server's sign-in page, which names Apache's client",
                 sent_to_sign_in):
        return

    def landed():
        driver.type_into("#username", USER)
        driver.click("#login")
        at = wait_until(driver, lambda w: w["href"].startswith(apache_origin + "/protected/")
                        and "Signed in as" in w["text"], "the protected page")
        expect(at["href"] == apache_origin + "/protected/", f"the browser is at {at['href']!r}")
        who = driver.script("return document.querySelector('#who').textContent;")
        expect(who == f"Signed in as {USER}", f"the page reads {who!r}")
        claim = driver.script("return document.querySelector('#claim').textContent;")
        expect(claim == USER, f"OIDC_CLAIM_preferred_username is {claim!r}")
    if not check(f"signed in with the passkey, the browser lands on the protected page as '{USER}'", landed):
        return

    def session_kept():
        driver.navigate(apache_origin + "/protected/index.shtml")
        at = where(driver)
        expect(at["href"] == apache_origin + "/protected/index.shtml", f"the browser is at {at['href']!r}")
        expect(f"Signed in as {USER}" in at["text"], f"the page reads {at['text'][:200]!r}")
    check("Apache's session serves the protected page again without a new sign-in", session_kept)

    def clean_log():
        errors = [line for line in apache.error_log() if ":error]" in line or ":crit]" in line]
        expect(not errors, " | ".join(errors[-4:]))
    check("Apache's error log has no errors", clean_log)


# ----------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-binary", default=os.path.join(REPO, ".build", "debug", "passkey-server"))
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()

    results = bt.Results()
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="passkey-apache-")
    os.chmod(workdir, 0o711)  # Apache's children (www-data when run as root) reach workdir/apache
    live = {}

    # Bound the whole run: a hang anywhere ends in cleanup, not in a stuck job.
    def out_of_time(signum, frame):
        raise bt.OutOfTime(f"the run took longer than {OVERALL_BUDGET:.0f} s")
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(int(OVERALL_BUDGET))

    try:
        run(results, args, workdir, live)
    except (Exception, bt.OutOfTime) as error:
        results.record("run finished without an unexpected error", error)
    finally:
        signal.alarm(0)
        driver = live.get("driver")
        if driver is not None:
            try:
                driver.end_session()
            except Exception as error:
                print(f"# could not end the WebDriver session: {error}", file=sys.stderr)
        if live.get("chromedriver") is not None:
            bt.stop_group(live["chromedriver"])
        apache = live.get("apache")
        if apache is not None:
            if results.failed:
                print("# Apache error log (last 20 lines):", file=sys.stderr)
                for line in apache.error_log()[-20:]:
                    print(f"#   {line}", file=sys.stderr)
            apache.stop()
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
        shutil.rmtree(workdir, ignore_errors=True)
        print(f"# took {time.monotonic() - started:.1f} s", file=sys.stderr)

    print(f"{results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
