#!/usr/bin/env python3
"""Apache httpd with mod_auth_openidc signs its users in through passkey-server.

Starts `passkey-server serve --port 0`, registers an OpenID client for Apache with
`passkey-server clients add`, and starts Apache (`/usr/sbin/apache2 -DFOREGROUND`) on a free
port of 127.0.0.1 with a small main configuration that includes
docs/examples/apache-mod-auth-openidc.conf, the very file the Apache guide (docs/guides/apache.md) includes. Then headless
Chromium, with a WebAuthn virtual authenticator, registers a user on the server's page, signs
out, opens Apache's protected page, is sent to the server's sign-in page, signs in with the
passkey and lands on the protected page, which names the user. Starts, waits for and stops its
processes with Tests/Identity/harness.py (which builds on Tests/Browser/browser_test.py).
Standard library only.

    python3 Tests/Identity/apache_test.py [--server-binary PATH]

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import http.client as httpclient
import json
import os
import subprocess
import sys
import urllib.parse

import harness
from harness import REPO, STEP_TIMEOUT, bt, expect, wait_until, where

FRAGMENT = os.path.join(REPO, "docs", "examples", "apache-mod-auth-openidc.conf")
APACHE = "/usr/sbin/apache2"
MODULES = "/usr/lib/apache2/modules"
# What the main configuration loads: the MPM, Require valid-user, and what the fragment uses.
LOADED = ["mpm_event", "authn_core", "authz_core", "authz_user", "mime", "dir", "include", "auth_openidc"]
CLIENT = {"id": "apache-intranet", "name": "The Apache Intranet"}
USER = "apache-alice"

# The protected page: server-side includes echo REMOTE_USER (OIDCRemoteUserClaim preferred_username).
PROTECTED_PAGE = """<!doctype html>
<title>Protected</title>
<p id="who">Signed in as <!--#echo var="REMOTE_USER" --></p>
<p id="claim"><!--#echo var="OIDC_CLAIM_preferred_username" --></p>
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


class Apache(harness.Foreground):
    """apache2 -DFOREGROUND in its own process group, with its start-up output in a file."""

    name = "apache2"
    output_name = "apache2.out"

    def __init__(self, root, port, defines):
        super().__init__(root, port)
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

    def command(self):
        return [APACHE, "-f", self.config, "-DFOREGROUND"]

    def syntax(self):
        """apache2 -t on the configuration; returns its output."""
        done = subprocess.run([APACHE, "-t", "-f", self.config], capture_output=True, text=True, timeout=30)
        expect(done.returncode == 0, f"apache2 -t exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stderr

    def logs(self):
        return [self.output, os.path.join(self.root, "error.log")]

    def error_log(self):
        try:
            with open(os.path.join(self.root, "error.log"), errors="replace") as f:
                return f.read().splitlines()
        except OSError:
            return []

    def failure_log(self):
        return "Apache error log", self.error_log()


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


def run(results, args, workdir, live):
    check = results.check
    binary = os.path.abspath(args.server_binary)
    if not check("server binary, apache2 and mod_auth_openidc are installed", lambda: (
            expect(os.access(binary, os.X_OK), f"{binary} is not executable"),
            expect(os.access(APACHE, os.X_OK), f"{APACHE} is missing (Debian package apache2)"),
            expect(os.path.exists(f"{MODULES}/mod_auth_openidc.so"),
                   "mod_auth_openidc.so is missing (Debian package libapache2-mod-auth-openidc)"))):
        return
    check("the Apache guide includes this configuration file", lambda: harness.guide_includes("apache.md", FRAGMENT))

    database = os.path.join(workdir, "db.sqlite")
    server_port = harness.start_server(check, live, binary, database,
                                       "server starts and prints 'listening on http://HOST:PORT'")
    if server_port is None:
        return
    issuer = f"http://localhost:{server_port}"

    apache_port = bt.free_port()
    apache_origin = f"http://localhost:{apache_port}"
    redirect_uri = apache_origin + "/protected/redirect_uri"
    client = check("passkey-server clients add registers Apache's client",
                   lambda: register_client(binary, database, redirect_uri))
    if not client:
        return

    apache = harness.started(live, Apache(os.path.join(workdir, "apache"), apache_port, {
        "PASSKEY_ISSUER": issuer,
        "OIDC_CLIENT_ID": client["client_id"],
        "OIDC_CLIENT_SECRET": client["client_secret"],
        "OIDC_REDIRECT_URI": redirect_uri,
        "OIDC_PASSPHRASE": bt.b64url(os.urandom(32)),
    }))
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

    driver = harness.start_browser(check, args, live)
    if driver is None:
        return
    page = bt.Page(driver, issuer)

    if not check(f"a passkey for '{USER}' is registered on the page, then the page signs out",
                 lambda: harness.register_passkey(driver, page, USER)):
        return

    def sent_to_sign_in():
        driver.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": harness.NO_AUTOFILL_JS})
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


if __name__ == "__main__":
    sys.exit(harness.main(__doc__, "passkey-apache-", run))
