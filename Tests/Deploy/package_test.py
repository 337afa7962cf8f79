#!/usr/bin/env python3
"""The Debian package (`make deb`), installed, run as its systemd unit would run it, removed.

Installs .build/passkey-server_<version>_amd64.deb with `apt-get install ./…` (its dependencies
from Debian) and checks what it put in place: the binary (its `--version` the package's), the
page under /usr/share/passkey-server, the unit, the passkey-server system user, the conffile
/etc/passkey-server/passkey-server.env listing every setting commented out; `systemd-analyze
verify` accepts the unit and `systemd-analyze security --offline=yes` rates it 2.0 or below.
This machine runs no systemd, so the test does what the unit says: sets the unit's
Environment= lines, then the env file's (where it sets the port, as an operator edits it),
makes the StateDirectory= for the unit's user, and runs ExecStart as that user and group in
WorkingDirectory= with the unit's UMask=. A passkey registered in headless Chromium through
it signs in; SIGTERM ends it with exit 0. `apt-get purge` then leaves nothing of the package
behind but the state directory and its database (which the test removes afterwards).

    python3 Tests/Deploy/package_test.py --server-binary RELEASE_BINARY

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import os
import pwd
import re
import shlex
import signal
import subprocess

import deploy
from deploy import CheckFailed, bt, expect, harness

UNIT = "/lib/systemd/system/passkey-server.service"
ENV_FILE = "/etc/passkey-server/passkey-server.env"
STATE = "/var/lib/passkey-server"
MAX_EXPOSURE = 2.0
USER = "package-pat"


def unit_settings(path):
    """The [Service] lines of a unit: name -> list of values, in order."""
    settings = {}
    section = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                section = line
                continue
            if section == "[Service]" and "=" in line:
                name, value = line.split("=", 1)
                settings.setdefault(name, []).append(value)
    return settings


def env_file(path):
    """The assignments of an EnvironmentFile= (comments and blank lines skipped)."""
    values = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                name, value = line.split("=", 1)
                values[name] = value
    return values


class UnitProcess(harness.Foreground):
    """ExecStart of the unit, run the way systemd would run it here."""

    name = "passkey-server.service"

    def __init__(self, root, port, settings, account):
        super().__init__(root, port)
        self.settings = settings
        self.account = account

    def command(self):
        umask = self.settings.get("UMask", ["0022"])[-1]
        user, group = self.settings["User"][-1], self.settings["Group"][-1]
        exec_start = shlex.split(self.settings["ExecStart"][-1])
        return deploy.SUDO + ["setpriv", f"--reuid={user}", f"--regid={group}", "--init-groups", "--inh-caps=-all",
                              "sh", "-c", f'umask {umask} && cd "$1" && shift && exec "$@"', "sh",
                              self.settings["WorkingDirectory"][-1], *exec_start]

    def environment(self):
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
        for assignment in self.settings.get("Environment", []):
            for word in shlex.split(assignment):
                name, value = word.split("=", 1)
                env[name] = value
        for path in self.settings.get("EnvironmentFile", []):
            optional = path.startswith("-")
            path = path.lstrip("-")
            if os.path.exists(path) or not optional:
                env.update(env_file(path))
        return env

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                bt.stop_group(self.process)


def run(results, args, workdir, live):
    check = results.check
    version = deploy.version(args.server_binary)
    package = os.path.join(deploy.REPO, ".build", f"passkey-server_{version}_amd64.deb")
    files = []

    class Installed:
        name = "the installed package"

        def stop(self):
            deploy.run(["apt-get", "purge", "-y", "-qq", "passkey-server"], check=False, timeout=300)
            deploy.run(["rm", "-rf", STATE], check=False)

    deploy.run(["apt-get", "purge", "-y", "-qq", "passkey-server"], check=False, timeout=300)   # an earlier run's

    def install():
        expect(os.path.exists(package), f"no {os.path.relpath(package, deploy.REPO)} (make deb)")
        harness.started(live, Installed())
        deploy.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", package], timeout=600,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        files.extend(deploy.run(["dpkg", "-L", "passkey-server"]).stdout.split())
    if not check(f"apt-get install ./passkey-server_{version}_amd64.deb", install):
        return

    def laid_out():
        installed = subprocess.run(["/usr/bin/passkey-server", "--version"], capture_output=True, text=True).stdout.strip()
        expect(installed == version, f"/usr/bin/passkey-server --version says {installed!r}")
        status = deploy.run(["dpkg-query", "-W", "-f", "${Version}", "passkey-server"]).stdout
        expect(status == version, f"the package's version is {status!r}")
        expect(os.path.exists("/usr/share/passkey-server/Public/index.html"), "no page under /usr/share/passkey-server/Public")
        expect(os.path.exists(UNIT), f"no {UNIT}")
        conffiles = deploy.run(["dpkg-query", "-W", "-f", "${Conffiles}", "passkey-server"]).stdout
        expect(ENV_FILE in conffiles, f"{ENV_FILE} is not a conffile: {conffiles!r}")
        account = pwd.getpwnam("passkey-server")
        expect(account.pw_uid < 1000 and account.pw_shell.endswith("nologin"),
               f"the passkey-server user is {account}")
    check("the binary, the page, the unit, the system user and the env file as a conffile", laid_out)

    def env_file_lists_every_setting():
        help_text = subprocess.run(["/usr/bin/passkey-server", "serve", "--help"], capture_output=True, text=True).stdout
        flags = set(re.findall(r"\(env:\s+(PASSKEY_[A-Z0-9_]+)", help_text))
        with open(ENV_FILE) as f:
            text = f.read()
        listed = set(re.findall(r"^#(PASSKEY_[A-Z0-9_]+)=", text, re.M))
        expect(flags and flags == listed, f"missing {sorted(flags - listed)}, extra {sorted(listed - flags)}")
        expect(not env_file(ENV_FILE), "the env file sets something; every line should be commented")
    check("the env file lists every setting of serve --help, each commented out", env_file_lists_every_setting)

    def unit_verifies():
        done = deploy.run(["systemd-analyze", "verify", UNIT], check=False)
        complaints = [line for line in (done.stdout + done.stderr).splitlines()
                      if "passkey-server" in line]
        expect(done.returncode == 0 and not complaints, f"exit {done.returncode}: {complaints}")
        text = deploy.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", UNIT]).stdout
        match = re.search(r"Overall exposure level for passkey-server\.service: ([0-9.]+)", text)
        expect(match and float(match.group(1)) <= MAX_EXPOSURE, f"exposure {match and match.group(1)}")
        return float(match.group(1))
    exposure = check(f"systemd-analyze verify accepts the unit; its exposure is {MAX_EXPOSURE} or below", unit_verifies)
    if exposure:
        print(f"# the unit's exposure: {exposure}", flush=True)

    settings = unit_settings(UNIT)
    port = bt.free_port()

    def runs_as_the_unit():
        expect(settings.get("ExecStart") == ["/usr/bin/passkey-server serve"], f"ExecStart={settings.get('ExecStart')}")
        account = pwd.getpwnam(settings["User"][-1])
        state = "/var/lib/" + settings["StateDirectory"][-1]
        deploy.run(["install", "-d", "-m", settings.get("StateDirectoryMode", ["0755"])[-1],
                    "-o", account.pw_name, "-g", settings["Group"][-1], state])
        # As an operator sets a setting: a line in the env file.
        with open(ENV_FILE, "a") as f:
            f.write(f"\nPASSKEY_PORT={port}\n")
        service = harness.started(live, UnitProcess(os.path.join(workdir, "unit"), port, settings, account))
        service.start(30)
        health = deploy.wait_healthy(f"http://localhost:{port}")
        expect(health.get("version") == version, f"/healthz says {health.get('version')!r}")
        database = os.path.join(state, "passkeys.sqlite")
        expect(os.path.exists(database) and os.stat(database).st_uid == account.pw_uid,
               f"{database} is missing or not the unit user's")
        expect(os.stat(database).st_mode & 0o077 == 0, f"{database} is readable by others: {oct(os.stat(database).st_mode)}")
        return service
    service = check("ExecStart runs as the unit's user with its environment and env file; its database is in "
                    "the state directory, private", runs_as_the_unit)
    if not service:
        return

    driver = harness.start_browser(check, args, live, no_autofill=True)
    if driver is not None:
        check("a passkey registered in Chromium through the installed server signs in",
              lambda: deploy.register_and_sign_in(driver, f"http://localhost:{port}", USER))

    def stops_cleanly():
        os.killpg(service.process.pid, signal.SIGTERM)
        code = service.process.wait(timeout=30)
        expect(code == 0, f"exit code {code} after SIGTERM")
    check("SIGTERM ends it with exit 0", stops_cleanly)

    def by_hand_anywhere():
        # As the getting-started guide runs it: `passkey-server serve` by hand, in an empty
        # directory with no Public of its own, serves the installed page.
        directory = os.path.join(workdir, "by-hand")
        os.makedirs(directory)
        port = bt.free_port()
        process = subprocess.Popen(["/usr/bin/passkey-server", "serve", "--port", str(port), "--database", "passkeys.sqlite"],
                                   cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deploy.wait_healthy(f"http://localhost:{port}")
            status, body, _ = bt.http("GET", f"http://localhost:{port}/", timeout=10)
            text = str(body)
            expect(status == 200 and 'id="register"' in text, f"GET / answered {status}: {text[:200]!r}")
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    check("the installed command started by hand in an empty directory serves the page from /usr/share", by_hand_anywhere)

    def purged():
        deploy.run(["apt-get", "purge", "-y", "-qq", "passkey-server"], timeout=300)
        # The package's files (its folders, /lib among them, a link on a merged /usr, are shared).
        left = [path for path in files if not os.path.isdir(path) and (os.path.isfile(path) or os.path.islink(path))]
        expect(not left, f"left behind: {left[:5]}")
        expect(not os.path.exists("/etc/passkey-server"), "/etc/passkey-server is still there")
        expect(os.path.exists(os.path.join(STATE, "passkeys.sqlite")), "the state directory's database was removed")
    check("apt-get purge leaves nothing but the state directory", purged)


if __name__ == "__main__":
    raise SystemExit(harness.main(__doc__, "passkey-package-", run))
