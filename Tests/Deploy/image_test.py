#!/usr/bin/env python3
"""The container image (`make image`), run with podman as an operator runs it.

Starts localhost/passkey-server:<version> on a volume of its own with PASSKEY_PORT given at
`run` (the variable wins over the image's ENV), the way this machine lets podman run a
container (runc, cgroupfs, vfs, the host's network, a containers.conf without default
ulimits). Checks the image's promises: its version label is the binary's `--version` and
/healthz's `version`; it runs as uid 65532, not root; its size is under 120 MB; its health
check passes; the first admin's setup link it logs opens /setup in headless Chromium, which
registers the admin's passkey and goes on to /admin, and that passkey signs in; SIGTERM ends it
cleanly (exit 0) within its shutdown timeout; started again on the same volume, the same passkey
signs in (nothing lost) and no setup link is logged, and the database in the volume belongs to
uid 65532. Removes the
container and the volume's folder; leaves the image.

    python3 Tests/Deploy/image_test.py --server-binary RELEASE_BINARY

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import json
import os
import tempfile
import time

import deploy
from deploy import CheckFailed, bt, expect, harness

CONTAINERS_CONF = os.path.join(deploy.REPO, "packaging", "containers.conf")
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--storage-driver", "vfs"]
USER_ID = 65532
MAX_SIZE = 120_000_000
SHUTDOWN_LIMIT = 30.0       # seconds: the server's default --shutdown-timeout and then some
USER = "container-carol"


def podman(*args, timeout=120, check=True):
    env = dict(os.environ, CONTAINERS_CONF=CONTAINERS_CONF)
    return deploy.run(PODMAN + list(args), timeout=timeout, check=check, env=env)


class Container:
    """One container of the image, removed at the end whatever happened."""

    name = "container"

    def __init__(self, image, port, volume):
        self.image = image
        self.port = port
        self.volume = volume
        self.container = f"passkey-server-test-{os.getpid()}"
        self.origin = f"http://localhost:{port}"

    def run(self):
        podman("run", "--detach", "--name", self.container, "--network", "host",
               "--env", f"PASSKEY_PORT={self.port}", "--volume", f"{self.volume}:/data", self.image)

    def inspect(self):
        return json.loads(podman("container", "inspect", self.container).stdout)[0]

    def failure_log(self):
        done = podman("logs", self.container, check=False)
        return "container log", (done.stdout + done.stderr).splitlines()

    def stop(self):
        podman("rm", "--force", "--time", "5", self.container, check=False)


def run(results, args, workdir, live):
    check = results.check
    version = deploy.version(args.server_binary)
    image = f"localhost/passkey-server:{version}"
    volume = tempfile.mkdtemp(prefix="passkey-image-volume-")
    os.chown(volume, USER_ID, USER_ID)
    os.chmod(volume, 0o700)

    def described():
        found = json.loads(podman("image", "inspect", image).stdout)[0]
        config = found["Config"]
        labels = config.get("Labels") or {}
        expect(labels.get("org.opencontainers.image.version") == version,
               f"the version label is {labels.get('org.opencontainers.image.version')!r}, the binary says {version}")
        expect(config.get("User") == f"{USER_ID}:{USER_ID}", f"the image runs as {config.get('User')!r}")
        expect("/data" in (config.get("Volumes") or {}), f"no /data volume: {config.get('Volumes')}")
        environment = dict(item.split("=", 1) for item in config.get("Env") or [])
        expect(environment.get("PASSKEY_DATABASE") == "/data/passkeys.sqlite", f"PASSKEY_DATABASE is {environment.get('PASSKEY_DATABASE')!r}")
        expect(config.get("Entrypoint") == ["/usr/bin/passkey-server"] and config.get("Cmd") == ["serve"],
               f"entry point {config.get('Entrypoint')} {config.get('Cmd')}: a flag there would win over PASSKEY_*")
        health = found.get("Healthcheck") or {}
        expect(health.get("Test") == ["CMD", "/usr/bin/passkey-server", "healthcheck"], f"health check {health}")
        expect(found["Size"] < MAX_SIZE, f"{found['Size']} bytes, over {MAX_SIZE}")
        return found["Size"]
    size = check(f"{image}: version label {version}, uid {USER_ID}, /data volume, PASSKEY_* defaults, "
                 "a health check, under 120 MB", described)
    if size:
        print(f"# image size: {size / 1e6:.1f} MB uncompressed", flush=True)

    container = harness.started(live, Container(image, bt.free_port(), volume))
    harness.started(live, deploy.Folder(volume))   # after the container is gone
    healthy = check("the container starts with PASSKEY_PORT given at run and /healthz shows the version",
                    lambda: (container.run(),
                             expect(deploy.wait_healthy(container.origin).get("version") == version, "wrong version"))[1])
    if not healthy:
        return

    def runs_unprivileged():
        pid = container.inspect()["State"]["Pid"]
        with open(f"/proc/{pid}/status") as f:
            uids = next(line for line in f if line.startswith("Uid:")).split()[1:]
        expect(set(uids) == {str(USER_ID)}, f"the server runs with uids {uids}")
    check(f"the server runs as uid {USER_ID}, not root", runs_unprivileged)

    check("podman healthcheck run: the image's health check passes",
          lambda: podman("healthcheck", "run", container.container, timeout=30))

    driver = harness.start_browser(check, args, live, no_autofill=True)
    if driver is None:
        return
    def first_admin():
        link = deploy.setup_link("\n".join(container.failure_log()[1]))
        expect(link and link.startswith(container.origin + "/setup?token="), f"no setup link in the container's log: {link!r}")
        deploy.first_admin(driver, link, USER)
        deploy.sign_in(driver, container.origin, USER)
    signed_in = check("the setup link in the container's log makes the first admin in Chromium (/setup, then /admin); "
                      "the passkey signs in", first_admin)

    def stops_cleanly():
        started = time.monotonic()
        podman("stop", "--time", str(int(SHUTDOWN_LIMIT)), container.container, timeout=SHUTDOWN_LIMIT + 30)
        took = time.monotonic() - started
        state = container.inspect()["State"]
        expect(state["ExitCode"] == 0, f"exit code {state['ExitCode']} after SIGTERM")
        expect(took < SHUTDOWN_LIMIT, f"took {took:.1f} s")
        return took
    took = check("SIGTERM stops the container cleanly: exit 0 within the shutdown timeout", stops_cleanly)
    if took:
        print(f"# stopped in {took:.1f} s", flush=True)

    def database_kept():
        database = os.path.join(volume, "passkeys.sqlite")
        expect(os.path.exists(database), "no passkeys.sqlite in the volume")
        expect(os.stat(database).st_uid == USER_ID, f"the database belongs to uid {os.stat(database).st_uid}")
    check(f"the database is in the volume, owned by uid {USER_ID}", database_kept)

    if signed_in and took:
        def setup_lines():
            return sum(1 for line in container.failure_log()[1] if "/setup?token=" in line)

        def again():
            # podman logs gives standard output's lines before standard error's, not in time
            # order: the setup lines are counted, not looked for after a place.
            before = setup_lines()
            podman("start", container.container)
            deploy.wait_healthy(container.origin)
            deploy.sign_in(driver, container.origin, USER)
            expect(setup_lines() == before, "the second start logged a setup link although an admin exists")
        check("started again on the same volume, the same passkey signs in, and no setup link is logged", again)


if __name__ == "__main__":
    raise SystemExit(harness.main(__doc__, "passkey-image-", run))
