#!/usr/bin/env python3
"""The machine-client costs: server CPU per request for what services and agents do.

    bench-machine.py PASSKEY_SERVER_BINARY [--requests N] [--threads T] [--rounds R]

Starts the given (release) binary on a throw-away SQLite file (synchronous=FULL, as shipped),
registers its clients with `passkey-server clients add`, signs a user up (Tests/API/sign_up.py),
and measures, in R rounds alternating the parts, N requests over T connections each:

- `client_credentials`: a token by client_secret_basic (signed RS256, the default);
- `client_credentials, ES256 token`: the same for a client registered with `--id-token-alg ES256`;
- `client_credentials, private_key_jwt`: a token by an ES256 assertion (signed beforehand);
- `client_credentials, DPoP`: a token by client_secret_basic with a DPoP proof (signed beforehand);
- `userinfo, Bearer`: the user's access token (from a token exchange);
- `userinfo, DPoP`: the user's DPoP-bound access token, each call with a fresh proof (signed
  beforehand).

The figure is the server's CPU time (utime + stime of /proc/PID/stat) over the part divided by
its requests: the client shares the machine's cores, so throughput alone would hide where the
cost is. Prints one JSON object (per part: requests, wall seconds, server CPU µs per request,
the median over the rounds) and a table. Needs requests and joserfc (the identity tests' venv,
.build-identity/venv, has both).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import requests
from joserfc import jwt
from joserfc.jwk import ECKey

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = "https://api.example/"


def server_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def start(binary: str, workdir: str) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--database", os.path.join(workdir, "db.sqlite"), "--public-dir", os.path.join(REPO, "Public"),
         "--rate-limit-ip", "0", "--rate-limit-client", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    found: dict[str, int] = {}

    def read() -> None:
        for line in process.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match and "port" not in found:
                found["port"] = int(match.group(1))
    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 30
    while "port" not in found and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    if "port" not in found:
        raise SystemExit("bench-machine: the server did not start")
    return process, found["port"]


def command(binary: str, database: str, *arguments: str) -> dict:
    run = subprocess.run([binary, "clients", "add", "--database", database, *arguments], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise SystemExit(f"bench-machine: clients add {arguments[:2]}: {run.stderr.strip()}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def dpop_proof(key: ECKey, method: str, url: str, nonce: str, access_token: str | None = None) -> str:
    claims = {"jti": secrets.token_urlsafe(16), "htm": method, "htu": url, "iat": int(time.time()), "nonce": nonce}
    if access_token:
        claims["ath"] = b64url(hashlib.sha256(access_token.encode()).digest())
    return jwt.encode({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)}, claims, key, algorithms=["ES256"])


def measure(pid: int, count: int, threads: int, request) -> dict:
    """`request(session, index)` `count` times over `threads` sessions; the server's CPU."""
    errors: list[str] = []
    per = count // threads

    def loop(offset: int) -> None:
        session = requests.Session()
        try:
            for i in range(per):
                answer = request(session, offset * per + i)
                if answer.status_code != 200:
                    errors.append(f"{answer.status_code} {answer.text[:200]}")
                    return
        except Exception as error:  # reported, not hidden
            errors.append(repr(error))
    workers = [threading.Thread(target=loop, args=(t,)) for t in range(threads)]
    cpu0, wall0 = server_cpu_seconds(pid), time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    cpu1, wall1 = server_cpu_seconds(pid), time.monotonic()
    if errors:
        raise SystemExit(f"bench-machine: {errors[0]}")
    return {"requests": per * threads, "wall_s": wall1 - wall0, "cpu_us": (cpu1 - cpu0) / (per * threads) * 1e6}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", metavar="PART", help="measure only this part (its name as printed)")
    parser.add_argument("--perf", metavar="FILE", help="`perf record -g` the server during the measured parts into FILE")
    a = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="passkey-bench-machine-")
    server = None
    try:
        server, port = start(os.path.abspath(a.binary), workdir)
        base = f"http://localhost:{port}"
        token_endpoint, userinfo = base + "/oauth/token", base + "/oauth/userinfo"
        database = os.path.join(workdir, "db.sqlite")
        secret = command(a.binary, database, "--id", "reports", "--client-credentials", "--scope", "reports:read",
                         "--audience", API)["client_secret"]
        es_secret = command(a.binary, database, "--id", "reports-es", "--client-credentials", "--scope", "reports:read",
                            "--id-token-alg", "ES256")["client_secret"]
        agent_key = ECKey.generate_key("P-256", parameters={"kid": "agent-1"})
        with open(os.path.join(workdir, "agent.json"), "w") as file:
            json.dump({"keys": [agent_key.as_dict(private=False)]}, file)
        command(a.binary, database, "--id", "agent", "--client-credentials", "--scope", "reports:read", "--jwks",
                os.path.join(workdir, "agent.json"))
        backend = command(a.binary, database, "--id", "backend", "--token-exchange", "--scope", "openid profile")
        signed_up = subprocess.run([sys.executable, os.path.join(REPO, "Tests", "API", "sign_up.py"), f"http://127.0.0.1:{port}", "bench"],
                                   capture_output=True, text=True, timeout=60)
        if signed_up.returncode != 0:
            raise SystemExit(f"bench-machine: sign_up.py: {signed_up.stderr}")
        session_token = signed_up.stdout.split()[0]
        dpop_key = ECKey.generate_key("P-256")
        nonce = requests.post(token_endpoint, data={"grant_type": "client_credentials"}, auth=("reports", secret),
                              headers={"DPoP": dpop_proof(dpop_key, "POST", token_endpoint, "none")}, timeout=10).headers["DPoP-Nonce"]
        exchange = {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": session_token,
                    "subject_token_type": "urn:ietf:params:oauth:token-type:access_token"}
        plain_token = requests.post(token_endpoint, data=exchange, auth=("backend", backend["client_secret"]), timeout=10).json()["access_token"]
        bound = requests.post(token_endpoint, data=exchange, auth=("backend", backend["client_secret"]),
                              headers={"DPoP": dpop_proof(dpop_key, "POST", token_endpoint, nonce)}, timeout=10).json()
        if bound.get("token_type") != "DPoP":
            raise SystemExit(f"bench-machine: no DPoP token: {bound}")
        bound_token = bound["access_token"]

        def assertion() -> str:
            now = int(time.time())
            return jwt.encode({"alg": "ES256", "kid": "agent-1"}, {"iss": "agent", "sub": "agent", "aud": token_endpoint, "iat": now,
                                                                   "exp": now + 120, "jti": secrets.token_urlsafe(16)}, agent_key, algorithms=["ES256"])

        parts = {
            "client_credentials": lambda: lambda s, i: s.post(token_endpoint, data={"grant_type": "client_credentials"}, auth=("reports", secret), timeout=30),
            "client_credentials, ES256 token": lambda: lambda s, i: s.post(
                token_endpoint, data={"grant_type": "client_credentials"}, auth=("reports-es", es_secret), timeout=30),
            "client_credentials, private_key_jwt": lambda: (lambda signed: lambda s, i: s.post(token_endpoint, data={
                "grant_type": "client_credentials", "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": signed[i]}, timeout=30))([assertion() for _ in range(a.requests)]),
            "client_credentials, DPoP": lambda: (lambda signed: lambda s, i: s.post(
                token_endpoint, data={"grant_type": "client_credentials"}, auth=("reports", secret), headers={"DPoP": signed[i]}, timeout=30))(
                [dpop_proof(dpop_key, "POST", token_endpoint, nonce) for _ in range(a.requests)]),
            "userinfo, Bearer": lambda: lambda s, i: s.get(userinfo, headers={"Authorization": "Bearer " + plain_token}, timeout=30),
            "userinfo, DPoP": lambda: (lambda signed: lambda s, i: s.get(
                userinfo, headers={"Authorization": "DPoP " + bound_token, "DPoP": signed[i]}, timeout=30))(
                [dpop_proof(dpop_key, "GET", userinfo, nonce, bound_token) for _ in range(a.requests)]),
        }
        # Warm-up: each part once, a few requests.
        for name, make in parts.items():
            request = make()
            for i in range(4):
                answer = request(requests, i)
                if answer.status_code != 200:
                    raise SystemExit(f"bench-machine: {name}: {answer.status_code} {answer.text[:200]}")
        if a.only:
            parts = {name: make for name, make in parts.items() if name == a.only}
        results: dict[str, list[dict]] = {name: [] for name in parts}
        for _ in range(a.rounds):
            for name, make in parts.items():
                request = make()  # proofs and assertions signed now, outside the measured part
                recorder = None
                if a.perf:
                    recorder = subprocess.Popen(["perf", "record", "-F", "1999", "-g", "-p", str(server.pid), "-o", a.perf],
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    time.sleep(0.5)
                results[name].append(measure(server.pid, a.requests, a.threads, request))
                if recorder:
                    recorder.send_signal(signal.SIGINT)
                    recorder.wait()
        summary = {name: {"requests": rounds[0]["requests"], "rounds": len(rounds),
                          "wall_s": statistics.median(r["wall_s"] for r in rounds),
                          "server_cpu_us_per_request": statistics.median(r["cpu_us"] for r in rounds),
                          "each_round_us": [round(r["cpu_us"], 1) for r in rounds]} for name, rounds in results.items()}
        print(json.dumps(summary))
        for name, row in summary.items():
            print(f"{name:40} {row['server_cpu_us_per_request']:8.1f} µs server CPU per request  (rounds: {row['each_round_us']})")
        return 0
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
