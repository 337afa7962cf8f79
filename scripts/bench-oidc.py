#!/usr/bin/env python3
"""The OpenID phase of `make bench-http` (run by scripts/bench-http in the load generator's venv).

    bench-oidc.py BASE_URL ORIGIN SERVER_PID CLIENT_ID CLIENT_SECRET [--flows N] [--threads T]

Against a running release server, with the shared bench's software authenticator: first N plain
passkey sign-ins (authentication_initialize → finalize), then N complete OpenID flows (passkey
finalize → /oauth/authorize with the session → /oauth/token with PKCE → /oauth/userinfo), T
threads at once, each thread its own users. Reads the server's CPU time (utime + stime of
/proc/PID/stat) around each part and prints one JSON object: per part the count, the wall
seconds and the server's CPU seconds. The client shares the machine's cores, so the rate is the
client's as much as the server's; the server CPU per operation is the server's alone.
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
    a = parser.parse_args()
    redirect_uri = "http://127.0.0.1/callback"

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


if __name__ == "__main__":
    sys.exit(main())
