#!/usr/bin/env python3
"""The OpenID phase of `make bench-http` (run by scripts/bench-http in the load generator's venv).

    bench-oidc.py BASE_URL ORIGIN SERVER_PID CLIENT_ID CLIENT_SECRET [--flows N] [--threads T] [--client wrk|python]

Against a running release server, with the shared bench's software authenticator: N plain
passkey finalizes, then N complete OpenID flows (passkey finalize → /oauth/authorize with the
session → /oauth/token with PKCE → /oauth/userinfo), T connections at once. Reads the server's
CPU time (utime + stime of /proc/PID/stat) around each part and prints one JSON object: per part
the count, the wall seconds and the server's CPU seconds.

`--client wrk` (the default, as the shared load generator's finalize phase): the assertions are
signed beforehand (synced passkeys, counter 0) and wrk sends them, the plain ones with the shared
loadgen_wrk.lua and the flows with scripts/bench-oidc.lua (one connection per wrk thread, each
flow's four requests in turn). `--client python`: requests threads do everything, signing
included (slower clients, so fewer requests in flight at once). Either way the client shares
the machine's cores: the rate is the client's as much as the server's, the CPU per operation
is the server's alone.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import secrets
import sys
import threading
import time
import urllib.parse
from pathlib import Path

BENCH = (Path(__file__).resolve().parent.parent.parent / "shared" / "bench").resolve()
sys.path.insert(0, str(BENCH))

from authenticator import SoftAuthenticator  # noqa: E402
from passkey_client import Client, unique_name  # noqa: E402


def server_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("origin")
    parser.add_argument("pid", type=int)
    parser.add_argument("client_id")
    parser.add_argument("client_secret")
    parser.add_argument("--flows", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--client", choices=["wrk", "python"], default="wrk")
    parser.add_argument("--perf", metavar="FILE", help="with --client wrk: `perf record` the server during the flows into FILE")
    a = parser.parse_args()
    redirect_uri = "http://127.0.0.1/callback"
    if a.client == "wrk":
        print(json.dumps(with_wrk(a)))
        return 0

    # Users first (not measured): one per thread, each with its passkey.
    workers = []
    for _ in range(a.threads):
        client = Client(a.base, a.origin, "localhost")
        authn = SoftAuthenticator()
        registration = client.register(authn, unique_name("oidc"))
        workers.append((client, authn, registration.credential))

    def sign_in(client, authn, credential) -> str:
        response = client.login(authn, credential)
        return response.json()["session"]

    def flow(client, authn, credential) -> None:
        session = sign_in(client, authn, credential)
        verifier = b64url(secrets.token_bytes(32))
        challenge = b64url(hashlib.sha256(verifier.encode()).digest())
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": a.client_id, "redirect_uri": redirect_uri, "scope": "openid profile",
            "state": "s", "nonce": "n", "code_challenge": challenge, "code_challenge_method": "S256"})
        answer = client.http.get(f"{a.base}/oauth/authorize?{query}", headers={"Authorization": f"Bearer {session}"},
                                 allow_redirects=False, timeout=30)
        assert answer.status_code == 302, answer.text
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(answer.headers["Location"]).query)["code"][0]
        tokens = client.http.post(f"{a.base}/oauth/token", data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier},
            auth=(a.client_id, a.client_secret), timeout=30)
        assert tokens.status_code == 200, tokens.text
        info = client.http.get(f"{a.base}/oauth/userinfo", headers={"Authorization": "Bearer " + tokens.json()["access_token"]},
                               timeout=30)
        assert info.status_code == 200, info.text

    def measure(step) -> dict:
        per_thread = a.flows // a.threads
        errors: list[str] = []

        def loop(worker):
            try:
                for _ in range(per_thread):
                    step(*worker)
            except Exception as error:  # reported, not hidden
                errors.append(repr(error))
        threads = [threading.Thread(target=loop, args=(w,)) for w in workers]
        cpu0, wall0 = server_cpu_seconds(a.pid), time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        cpu1, wall1 = server_cpu_seconds(a.pid), time.monotonic()
        if errors:
            raise SystemExit(f"bench-oidc: {errors[0]}")
        return {"count": per_thread * a.threads, "wall_s": wall1 - wall0, "server_cpu_s": cpu1 - cpu0}

    # Warm-up (keys made, caches filled), then the two parts.
    for worker in workers:
        flow(*worker)
    result = {"finalize": measure(sign_in), "flow": measure(flow)}
    print(json.dumps(result))
    return 0


def with_wrk(a) -> dict:
    import shutil
    import signal
    import subprocess
    import tempfile
    import loadgen
    target = loadgen.Target(a.base, a.origin, "localhost")
    users = loadgen.register_users(target, 32, 8, unique_name("oidc-wrk"))
    threads = max(1, a.threads)

    def bodies(count: int) -> list[bytes]:
        return loadgen.sign_all(target, users, loadgen.fetch_challenges(target, count, 8))

    def measured(run) -> dict:
        cpu0, wall0 = server_cpu_seconds(a.pid), time.monotonic()
        count, seconds = run()
        cpu1, wall1 = server_cpu_seconds(a.pid), time.monotonic()
        return {"count": count, "wall_s": seconds or (wall1 - wall0), "server_cpu_s": cpu1 - cpu0}

    def plain():
        r = loadgen.run_wrk(a.base + "/authentication_finalize", "/authentication_finalize", finalize_bodies, threads, threads, 600)
        if r["non2xx"] or r["errors"]:
            raise SystemExit(f"bench-oidc: {r['non2xx']} finalizes failed")
        return r["requests"], r["seconds"]

    def flows():
        folder = tempfile.mkdtemp(prefix="bench-oidc-wrk-")
        try:
            path = os.path.join(folder, "bodies.jsonl")
            with open(path, "wb") as f:
                for body in flow_bodies:
                    f.write(body + b"\n")
            marker = os.path.join(folder, "done")
            verifier = b64url(secrets.token_bytes(32))
            challenge = b64url(hashlib.sha256(verifier.encode()).digest())
            basic = base64.b64encode(f"{a.client_id}:{a.client_secret}".encode()).decode()
            command = [shutil.which("wrk") or "wrk", "-t", str(threads), "-c", str(threads), "-d", "600s", "--timeout", "30s",
                       "-s", str(Path(__file__).resolve().parent / "bench-oidc.lua"), a.base, "--", path, str(threads), marker,
                       basic, challenge, verifier, a.client_id]
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 620
            while time.monotonic() < deadline and process.poll() is None:
                if sum(1 for n in os.listdir(folder) if n.startswith("done.")) >= threads:
                    process.send_signal(signal.SIGINT)
                    break
                time.sleep(0.02)
            out, _ = process.communicate(timeout=60)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        text = out.decode("utf-8", "replace")
        line = next((l for l in text.splitlines() if l.startswith("BENCH-OIDC ")), None)
        if line is None:
            raise SystemExit("bench-oidc: wrk gave no result:\n" + text[-2000:])
        fields = dict(part.split("=") for part in line.split()[1:])
        if int(fields["failures"]):
            raise SystemExit(f"bench-oidc: {fields['failures']} flows failed")
        return int(fields["flows"]), float(fields["seconds"])

    finalize_bodies, flow_bodies = bodies(a.flows), bodies(a.flows)
    # Warm-up, not measured: one flow per connection's worth (the server's caches fill).
    warm = bodies(threads)
    flow_bodies, saved = warm, flow_bodies
    flows()
    flow_bodies = saved
    result = {"finalize": measured(plain)}
    recorder = None
    if a.perf:
        recorder = subprocess.Popen(["perf", "record", "-F", "999", "--call-graph", "dwarf,16384", "-p", str(a.pid), "-o", a.perf],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    result["flow"] = measured(flows)
    if recorder:
        recorder.send_signal(signal.SIGINT)
        recorder.wait()
    return result


if __name__ == "__main__":
    sys.exit(main())
