#!/usr/bin/env python3
"""A relying party written with Authlib against a real Passkey Server (docs/contracts/identity.md).

    authlib_test.py PASSKEY_SERVER_BINARY

Run by `make identity-test` with a Python that has Authlib (Tests/Identity/run.sh installs a
pinned Authlib into .build-identity/venv). It starts `passkey-server serve` on a throw-away
SQLite file, registers a confidential client with `passkey-server clients add`, signs a user up
with the software authenticator of Tests/API/sign_up.py, and then, as an application built on
Authlib would, through docs/examples/authlib_client.py (the documentation's example, included
in its Python guide):

1. reads the discovery document and builds the authorization URL with Authlib's
   OAuth2Session (PKCE S256, state, nonce);
2. sends the user's browser there (the user's session cookie, no redirects followed) and takes
   the code from the redirect;
3. redeems it with Authlib's fetch_token (client_secret_basic, the code verifier), which also
   checks `state` and the RFC 9207 `iss`;
4. validates the ID token with Authlib's own OIDC code-flow claims checks (signature against
   the JWKS, iss, aud, exp, iat, nonce, at_hash);
5. calls userinfo with the access token, refreshes, and sees the retired refresh token refused.

Prints `ok - …` / `not ok - …` per check and exits non-zero on any failure.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The application of the documentation's Python guide, as it is written there.
sys.path.insert(0, os.path.join(REPO, "docs", "examples"))
sys.dont_write_bytecode = True
from authlib_client import PasskeyServerClient  # noqa: E402
REDIRECT_URI = "http://127.0.0.1/callback"   # a loopback URI: any port matches (RFC 8252 §7.3)


class Failed(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise Failed(why)


def start_server(binary, workdir):
    """`serve --port 0`; returns (process, port) once it prints its `listening on` line."""
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--database", os.path.join(workdir, "db.sqlite"),
         "--public-dir", os.path.join(REPO, "Public")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    found = {}

    def read():
        for line in process.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match and "port" not in found:
                found["port"] = int(match.group(1))
    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 30
    while "port" not in found and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    expect("port" in found, "the server did not print its listening line within 30 s")
    return process, found["port"]


def command(binary, *arguments):
    run = subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=60)
    expect(run.returncode == 0, f"{' '.join(arguments[:2])} exited {run.returncode}: {run.stderr.strip()}")
    return run.stdout


def main():
    binary = os.path.abspath(sys.argv[1])
    workdir = tempfile.mkdtemp(prefix="passkey-authlib-")
    server = None
    failures = 0
    passed = 0

    def check(name, body):
        nonlocal failures, passed
        try:
            value = body()
            print(f"ok - {name}", flush=True)
            passed += 1
            return value
        except Exception as error:  # a failed check is reported, the run goes on
            print(f"not ok - {name}\n#   {type(error).__name__}: {error}", flush=True)
            failures += 1
            return None

    try:
        server, port = start_server(binary, workdir)
        base = f"http://localhost:{port}"
        database = os.path.join(workdir, "db.sqlite")
        added = command(binary, "clients", "add", "--database", database, "--id", "authlib-rp", "--name", "Authlib app",
                        "--redirect-uri", REDIRECT_URI, "--scope", "openid profile groups")
        client = json.loads(added.strip().splitlines()[-1])
        signed_up = subprocess.run([sys.executable, os.path.join(REPO, "Tests", "API", "sign_up.py"), f"http://127.0.0.1:{port}", "alice"],
                                   capture_output=True, text=True, timeout=60)
        expect(signed_up.returncode == 0, f"sign_up.py exited {signed_up.returncode}: {signed_up.stderr}")
        session_token = signed_up.stdout.split()[0]
        state = {}

        def discovery():
            state["client"] = PasskeyServerClient(base, client["client_id"], client["client_secret"], REDIRECT_URI)
            metadata = state["client"].metadata
            expect(metadata["issuer"] == base, f"issuer is {metadata['issuer']}")
            expect("S256" in metadata["code_challenge_methods_supported"], "no S256")
            state["metadata"] = metadata
        check("the discovery document names the issuer and S256", discovery)

        def authorize():
            url, pending = state["client"].begin()
            expect("code_challenge_method=S256" in url and "nonce=" in url and "state=" in url, f"Authlib built {url}")
            # The user's browser, signed in (its session cookie), following nothing.
            answer = requests.get(url, cookies={"session": session_token}, allow_redirects=False, timeout=10)
            expect(answer.status_code == 302, f"authorize answered {answer.status_code}: {answer.text[:200]}")
            location = answer.headers["Location"]
            expect(location.startswith(REDIRECT_URI + "?"), f"redirected to {location}")
            state.update(pending=pending, location=location)
        check("Authlib's authorization URL (PKCE S256, state, nonce) is answered with a code at the redirect URI", authorize)

        def finish():
            metadata = state["metadata"]
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(state["location"]).query))
            expect(query.get("iss") == metadata["issuer"], f"iss in the redirect is {query.get('iss')}")
            signed_in = state["client"].finish(state["location"], state["pending"])
            token, claims = signed_in.token, signed_in.claims
            expect(token["token_type"] == "Bearer" and token.get("id_token") and token.get("refresh_token"), f"token: {token}")
            expect(claims["preferred_username"] == "alice", f"preferred_username is {claims.get('preferred_username')}")
            expect(claims["groups"] == [], f"groups is {claims.get('groups')}")
            expect(claims["amr"] == ["hwk", "user", "mfa"], f"amr is {claims.get('amr')}")
            state["token"] = token
        check("fetch_token redeems the code with client_secret_basic and the verifier; the ID token passes Authlib's "
              "code-flow validation against the JWKS (iss, aud, exp, nonce, at_hash)", finish)

        def tampered_nonce():
            # The same check refuses an ID token whose nonce is not the one sent.
            url, pending = state["client"].begin()
            answer = requests.get(url, cookies={"session": session_token}, allow_redirects=False, timeout=10)
            expect(answer.status_code == 302, f"authorize answered {answer.status_code}")
            try:
                state["client"].finish(answer.headers["Location"], {**pending, "nonce": "another"})
            except Exception as error:
                expect("nonce" in str(error).lower(), f"refused for another reason: {error}")
                return
            raise Failed("an ID token with another nonce was accepted")
        check("the example's ID token check refuses a nonce that is not the one sent", tampered_nonce)

        def userinfo():
            info = state["client"].userinfo()
            expect(info.get("preferred_username") == "alice" and info.get("sub"), f"userinfo: {info}")
        check("userinfo answers Authlib's Bearer request", userinfo)

        def refresh():
            old = state["token"]["refresh_token"]
            renewed = state["client"].refresh(old)
            expect(renewed["refresh_token"] != old and renewed["access_token"], f"refresh: {renewed}")
            again = requests.post(state["metadata"]["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": old},
                                  auth=(client["client_id"], client["client_secret"]), timeout=10)
            expect(again.status_code == 400 and again.json()["error"] == "invalid_grant", f"the retired token: {again.status_code} {again.text}")
        check("Authlib's refresh_token rotates the refresh token; the retired one is refused", refresh)
    except Exception as error:
        print(f"not ok - set-up\n#   {type(error).__name__}: {error}", flush=True)
        failures += 1
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{passed} passed, {failures} failed", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
