"""What image_test.py and package_test.py share: root for podman and apt-get, a passkey
registered and signed in through the page in headless Chromium, and waiting for /healthz.

Builds on Tests/Identity/harness.py (main(), the browser, the process bookkeeping), which builds
on Tests/Browser/browser_test.py. Standard library only.
"""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Identity"))
import harness  # noqa: E402
from harness import CheckFailed, bt, expect  # noqa: E402,F401

REPO = harness.REPO
SUDO = [] if os.geteuid() == 0 else ["sudo"]


# Starting containers and installing packages take longer than the identity tests' steps.
harness.OVERALL_BUDGET = 300.0


class Folder:
    """A folder removed when the run ends (harness.started keeps it with the services)."""

    name = "folder"

    def __init__(self, path):
        self.path = path

    def stop(self):
        run(["rm", "-rf", "--one-file-system", self.path], check=False)


def run(command, timeout=120, check=True, **kwargs):
    """Runs a command (as root: sudo when not root); returns the completed process."""
    done = subprocess.run(SUDO + list(command), capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-6:])
        raise CheckFailed(f"{' '.join(command[:4])} … exited {done.returncode}: {tail}")
    return done


def version(binary):
    return subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def wait_healthy(origin, timeout=30):
    """GET /healthz until it answers 200; returns its JSON."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            status, body, _ = bt.http("GET", origin + "/healthz", timeout=2)
            if status == 200:
                return body
            last = status
        except OSError as error:
            last = error
        time.sleep(0.2)
    raise CheckFailed(f"{origin}/healthz did not answer 200 within {timeout} s (last: {last})")


def register_and_sign_in(driver, origin, user):
    """A new virtual authenticator registers `user` on the page at `origin`, signs out, and
    signs in again by name with the same passkey."""
    page = bt.Page(driver, origin)
    harness.register_passkey(driver, page, user)
    return sign_in(driver, origin, user)


SETUP_LINK = re.compile(r"(https?://[^\s\"]+/setup\?token=[A-Za-z0-9_-]{43})")


def setup_link(log_text):
    """The first admin's setup link a start logged; None when there is none."""
    found = SETUP_LINK.findall(log_text)
    return found[-1] if found else None


def first_admin(driver, link, user):
    """A new virtual authenticator opens the setup link, names the account `user`, registers its
    passkey and lands on the admin page, which lists the account."""
    driver.add_authenticator()
    driver.navigate(link)
    harness.wait_until(driver, lambda w: "first admin" in w["text"].lower(), "the setup page to say it makes the first admin")
    driver.type_into("#username", user)
    driver.click("#register")
    harness.wait_until(driver, lambda w: w["href"].split("?")[0].endswith("/admin") and user in w["text"],
                       f"the admin page listing {user}")


def sign_in(driver, origin, user):
    """The browser's authenticator signs `user` in on the page at `origin`, then signs out."""
    page = bt.Page(driver, origin)
    snap = page.open("?autofill=off&upgrade=off")
    if snap["signedIn"]:
        page.run("#logout", "ok")
        snap = page.open("?autofill=off&upgrade=off")
    expect(snap["signedOut"], "the page shows someone signed in already")
    driver.type_into("#username", user)
    snap = page.run("#login", "ok")
    expect(snap["signedIn"] and user in snap["whoami"], f"signed in as {snap['whoami']!r}, not {user}")
    page.run("#logout", "ok")
    return snap
