"""What apache_test.py and proxy_test.py share: the processes they start and always stop.

Builds on Tests/Browser/browser_test.py (its results, server, WebDriver and page helpers) and
adds what the tests of real relying parties and proxies have in common: programs run in the
foreground in their own process group (Apache, nginx, Caddy), starting passkey-server and
headless Chromium, waiting for the browser to get somewhere, and main(), which bounds the whole
run and then stops everything that was started, whatever happened. Standard library only.

A test gives main() its run(results, args, workdir, live) and records in `live` what it
starts: start_server() and start_browser() do so themselves; anything else with a name and a
stop() (and optionally failure_log()) goes into started(live, ...), and is stopped in that order.
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
import browser_test as bt  # noqa: E402  (the server, WebDriver and page helpers)

REPO = bt.REPO
CheckFailed = bt.CheckFailed
expect = bt.expect
OVERALL_BUDGET = 150.0     # seconds for the whole run (setup included)
STEP_TIMEOUT = 20.0        # seconds to wait for the browser to get somewhere

# Installed on every new document: a browser without passkey autofill. A virtual authenticator
# answers an autofill request at once, which would sign in before the page could be looked at;
# this way the sign-in is the button's, every run.
NO_AUTOFILL_JS = """
if (window.PublicKeyCredential) {
  PublicKeyCredential.isConditionalMediationAvailable = async () => false;
}
"""


def guide_includes(guide, fragment):
    """The documentation's guide `guide` (docs/guides/NAME.md) includes `fragment`, the file this
    test runs, in a fenced block (`--8<--`, resolved when the site is built), so that readers
    get the very file that is tested."""
    with open(os.path.join(REPO, "docs", "guides", guide)) as f:
        text = f.read()
    name = os.path.basename(fragment)
    expect(re.search(r"^```[a-z]*\n--8<-- \"" + re.escape(name) + r"\"\n```$", text, re.M),
           f"docs/guides/{guide} does not include {os.path.relpath(fragment, REPO)} in a fenced block")


# ----------------------------------------------------------------- programs

class Foreground:
    """A program in the foreground in its own process group, its output in a file."""

    name = "program"
    output_name = "output.log"

    def __init__(self, root, port):
        self.root = root
        self.port = port
        self.origin = f"http://localhost:{port}"
        os.makedirs(root, exist_ok=True)
        self.output = os.path.join(root, self.output_name)
        self.process = None

    def command(self):
        raise NotImplementedError

    def environment(self):
        return None

    def start(self, timeout):
        with open(self.output, "wb") as out:
            self.process = subprocess.Popen(self.command(), cwd=self.root, env=self.environment(),
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CheckFailed(f"{self.name} exited {self.process.returncode}: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise CheckFailed(f"{self.name} did not listen on 127.0.0.1:{self.port} within {timeout:.0f} s: {self.log_tail()}")

    def logs(self):
        return [self.output]

    def log_lines(self):
        lines = []
        for name in self.logs():
            try:
                with open(name, errors="replace") as f:
                    lines += f.read().splitlines()
            except OSError:
                pass
        return lines

    def log_tail(self, count=8):
        return " | ".join(self.log_lines()[-count:]) or "(no output)"

    def failure_log(self):
        """What to show when a check failed: (a title, its lines)."""
        return f"{self.name} output", self.log_lines()

    def stop(self):
        if self.process is not None:
            bt.stop_group(self.process)


def started(live, service):
    """Has main() stop `service` (in the order they were started) and returns it."""
    live.setdefault("services", []).append(service)
    return service


def start_server(check, live, binary, database, name, extra=()):
    """passkey-server serve --port 0 on `database`; returns its port, or None when the check
    `name` failed."""
    server = bt.Server(binary, database, os.path.join(REPO, "Public"), extra=extra)
    live["server"] = server
    _, port = check(name, lambda: server.wait_listening(30)) or (None, None)
    if port is not None:
        live["server_listening"] = True
    return port


# ------------------------------------------------------------------ browser

def start_browser(check, args, live, no_autofill=False):
    """chromedriver and a headless Chromium session; returns the driver, or None when that
    check failed. With no_autofill the browser offers no passkey autofill (NO_AUTOFILL_JS)."""
    driver_port = bt.free_port()
    live["chromedriver"] = subprocess.Popen(
        [args.chromedriver, f"--port={driver_port}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so the browser goes with it
    )
    driver = bt.WebDriver(driver_port)
    live["driver"] = driver

    def start():
        driver.wait_ready(20)
        driver.start_session()
        if no_autofill:
            driver.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": NO_AUTOFILL_JS})
    if not check("chromedriver starts a headless Chromium session", start):
        return None
    return driver


def register_passkey(driver, page, user):
    """A new virtual authenticator registers `user` on the server's page, which then signs out."""
    driver.add_authenticator()
    snap = page.open("?autofill=off&upgrade=off")
    expect(snap["signedOut"], "a fresh browser is signed in")
    driver.type_into("#username", user)
    page.run("#register", "ok")
    page.run("#logout", "ok")


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


# --------------------------------------------------------------------- main

def stop_all(results, live):
    """The browser, chromedriver, every service and the server, each even if another failed;
    their logs when a check failed."""
    bt.stop_browser(live)
    for service in live.get("services", []):
        if results.failed and hasattr(service, "failure_log"):
            title, lines = service.failure_log()
            print(f"# {title} (last 20 lines):", file=sys.stderr)
            for line in lines[-20:]:
                print(f"#   {line}", file=sys.stderr)
        try:
            service.stop()
        except Exception as error:
            print(f"# {service.name}: {error}", file=sys.stderr)
    bt.stop_server(results, live)


def main(doc, workdir_prefix, run):
    """Parses the command line, calls run(results, args, workdir, live) within OVERALL_BUDGET,
    stops what it started and prints the tally; returns the exit code."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--server-binary", default=os.path.join(REPO, ".build", "debug", "passkey-server"))
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()

    results = bt.Results()
    started_at = time.monotonic()
    workdir = tempfile.mkdtemp(prefix=workdir_prefix)
    # Apache's children and nginx's workers (www-data or nobody when run as root) reach their
    # files in workdir.
    os.chmod(workdir, 0o711)
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
        stop_all(results, live)
        shutil.rmtree(workdir, ignore_errors=True)
        print(f"# took {time.monotonic() - started_at:.1f} s", file=sys.stderr)

    print(f"{results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0
