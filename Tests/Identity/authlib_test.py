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

Then DPoP (RFC 9449): a code redeemed through Authlib's fetch_token with a proof made by
joserfc, the token bound to joserfc's own thumbprint of the key, userinfo with the DPoP scheme
(as Bearer, by another key or replayed: refused). Then, as a service or an agent would, through docs/examples/authlib_service.py (the Python
guide's machine-client example): the client credentials grant with client_secret_basic, and with
Authlib's private_key_jwt for clients registered with `--jwks FILE` and with `--jwks-uri URL`
(a key set served here on 127.0.0.1, which the server may fetch because it runs with
`--client-metadata-hosts 127.0.0.1`); each token checked as a resource server checks it, with
joserfc against the JWKS; a replayed assertion, a wrong resource and a user scope refused.

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
from authlib_service import ServiceClient, check_token  # noqa: E402
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
         "--public-dir", os.path.join(REPO, "Public"), "--client-metadata-hosts", "127.0.0.1",
         "--dynamic-registration", "token", "--client-metadata-documents", "on"],
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

        dpop(base, session_token, state, check)
        machine_clients(binary, base, database, check)
        self_registration(binary, base, database, session_token, check)
        metadata_document(base, session_token, check)
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


def self_registration(binary, base, database, session_token, check):
    """RFC 7591 registration with an initial access token, then the docs' Authlib example signing
    a user in as that client, then RFC 7592's read and delete."""
    state = {}

    def register():
        made = json.loads(command(binary, "clients", "registration-token", "--database", database, "--expires-in", "600").strip())
        expect(made["token"].startswith("pki_"), f"registration-token printed {made}")
        metadata = {"client_name": "Registered notes", "redirect_uris": [REDIRECT_URI], "scope": "openid profile",
                    "grant_types": ["authorization_code", "refresh_token"], "logo_uri": "https://10.0.0.1/logo.png"}
        discovered = requests.get(base + "/.well-known/oauth-authorization-server", timeout=10).json()
        endpoint = discovered["registration_endpoint"]
        refused = requests.post(endpoint, json={**metadata, "redirect_uris": ["http://notes.example/cb"]},
                                headers={"Authorization": f"Bearer {made['token']}"}, timeout=10)
        expect(refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri", f"http off loopback: {refused.text}")
        answer = requests.post(endpoint, json=metadata, headers={"Authorization": f"Bearer {made['token']}"}, timeout=10)
        expect(answer.status_code == 201, f"register answered {answer.status_code}: {answer.text}")
        state["client"] = answer.json()
        again = requests.post(endpoint, json=metadata, headers={"Authorization": f"Bearer {made['token']}"}, timeout=10)
        expect(again.status_code == 401 and again.json()["error"] == "invalid_token", f"the spent token: {again.status_code} {again.text}")
    check("an initial access token from the command line registers one client at the discovered registration_endpoint; "
          "an http redirect URI off loopback is invalid_redirect_uri and spends nothing", register)

    def sign_in():
        registered = state["client"]
        client = PasskeyServerClient(base, registered["client_id"], registered["client_secret"], REDIRECT_URI, scope="openid profile")
        url, pending = client.begin()
        answer = requests.get(url, cookies={"session": session_token}, allow_redirects=False, timeout=10)
        # A third-party client: the consent page first, answered as the page's form posts it.
        consent = answer.headers.get("Location", "")
        expect(answer.status_code == 302 and "/oauth/consent?authorization=" in consent, f"authorize answered {answer.status_code} {consent}")
        handle = urllib.parse.parse_qs(urllib.parse.urlsplit(consent).query)["authorization"][0]
        page = requests.get(consent, cookies={"session": session_token}, allow_redirects=False, timeout=10)
        expect(page.status_code == 200 and "Registered notes" in page.text, f"the consent page: {page.status_code}")
        allowed = requests.post(base + "/oauth/consent", data={"authorization": handle, "decision": "allow"},
                                cookies={"session": session_token}, headers={"Origin": base}, allow_redirects=False, timeout=10)
        expect(allowed.status_code == 302, f"consent answered {allowed.status_code}: {allowed.text[:200]}")
        signed_in = client.finish(allowed.headers["Location"], pending)
        expect(signed_in.claims["preferred_username"] == "alice" and signed_in.claims["aud"] == registered["client_id"],
               f"claims {signed_in.claims}")
        expect(signed_in.token.get("refresh_token"), f"token {signed_in.token}")
        # Remembered: the next sign-in gets its code at once.
        url, pending = client.begin()
        again = requests.get(url, cookies={"session": session_token}, allow_redirects=False, timeout=10)
        expect(again.headers.get("Location", "").startswith(REDIRECT_URI + "?code="), f"asked again: {again.headers.get('Location')}")
        client.finish(again.headers["Location"], pending)
    check("Authlib signs alice in as the registered client after the consent page (asked once): code, PKCE, "
          "client_secret_basic, the ID token validated", sign_in)

    def manage():
        registered = state["client"]
        uri, token = registered["registration_client_uri"], registered["registration_access_token"]
        read = requests.get(uri, headers={"Authorization": f"Bearer {token}"}, timeout=10)
        expect(read.status_code == 200 and read.json()["client_name"] == "Registered notes" and "client_secret" not in read.json(),
               f"read: {read.status_code} {read.text}")
        expect(requests.get(uri, headers={"Authorization": "Bearer pkr_not-this-one"}, timeout=10).status_code == 401, "a made-up token reads")
        deleted = requests.delete(uri, headers={"Authorization": f"Bearer {token}"}, timeout=10)
        expect(deleted.status_code == 204, f"delete: {deleted.status_code} {deleted.text}")
        gone = requests.post(base + "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": "x"},
                             auth=(registered["client_id"], registered["client_secret"]), timeout=10)
        expect(gone.status_code == 401 and gone.json()["error"] == "invalid_client", f"the deleted client: {gone.status_code} {gone.text}")
    check("RFC 7592: the registration access token reads the registration (no secret) and deletes it; the client is gone", manage)


def metadata_document(base, session_token, check):
    """A public client known only by its metadata document (an https URL in production, loopback
    here, allowed by --client-metadata-hosts 127.0.0.1): Authlib's OAuth2Session uses the URL as
    its client_id, PKCE and no secret; the user is asked for consent once."""
    from authlib.integrations.requests_client import OAuth2Session
    document = {}
    served, url = serve_key_set(document)

    def sign_in():
        document.update(client_id=url, client_name="Document agent", redirect_uris=[REDIRECT_URI], scope="openid profile",
                        token_endpoint_auth_method="none")
        metadata = requests.get(base + "/.well-known/oauth-authorization-server", timeout=10).json()
        expect(metadata.get("client_id_metadata_document_supported") is True, f"discovery says {metadata.get('client_id_metadata_document_supported')}")
        session = OAuth2Session(url, None, scope="openid profile", redirect_uri=REDIRECT_URI, code_challenge_method="S256",
                                token_endpoint_auth_method="none")
        verifier = "v" * 64
        authorize_url, state = session.create_authorization_url(metadata["authorization_endpoint"], nonce="n-doc", code_verifier=verifier)
        answer = requests.get(authorize_url, cookies={"session": session_token}, allow_redirects=False, timeout=10)
        consent = answer.headers.get("Location", "")
        expect(answer.status_code == 302 and "/oauth/consent?authorization=" in consent, f"authorize answered {answer.status_code} {consent}")
        page = requests.get(consent, cookies={"session": session_token}, timeout=10)
        expect("Document agent" in page.text and "127.0.0.1" in page.text, "the consent page does not name the document's client and host")
        handle = urllib.parse.parse_qs(urllib.parse.urlsplit(consent).query)["authorization"][0]
        allowed = requests.post(base + "/oauth/consent", data={"authorization": handle, "decision": "allow"},
                                cookies={"session": session_token}, headers={"Origin": base}, allow_redirects=False, timeout=10)
        expect(allowed.status_code == 302, f"consent answered {allowed.status_code}: {allowed.text[:200]}")
        token = session.fetch_token(metadata["token_endpoint"], authorization_response=allowed.headers["Location"], state=state,
                                    code_verifier=verifier)
        expect(token.get("id_token") and token.get("access_token"), f"token {token}")
        info = requests.get(metadata["userinfo_endpoint"], headers={"Authorization": f"Bearer {token['access_token']}"}, timeout=10)
        expect(info.status_code == 200 and info.json().get("preferred_username") == "alice", f"userinfo {info.status_code} {info.text}")

    def another_client_id():
        document["client_id"] = "https://elsewhere.example/client"
        # A fresh URL (the server remembers the first one's document as fresh).
        other, other_url = serve_key_set({"client_id": "https://elsewhere.example/client", "redirect_uris": [REDIRECT_URI]})
        try:
            parameters = {"response_type": "code", "client_id": other_url, "redirect_uri": REDIRECT_URI, "scope": "openid",
                          "state": "s", "nonce": "n", "code_challenge": "c" * 43, "code_challenge_method": "S256"}
            answer = requests.get(base + "/oauth/authorize", params=parameters, cookies={"session": session_token},
                                  headers={"Accept": "application/json"}, allow_redirects=False, timeout=10)
            expect(answer.status_code == 400 and "Location" not in answer.headers and "client_id" in answer.text,
                   f"another client_id: {answer.status_code} {answer.text[:200]}")
        finally:
            other.shutdown()
    try:
        check("Authlib's public client known by its metadata document URL: consent once, code with PKCE, userinfo", sign_in)
        check("a metadata document that names another client_id is refused, shown, never redirected", another_client_id)
    finally:
        served.shutdown()


def dpop_proof(key, method, url, nonce=None, access_token=None, **changes):
    """An RFC 9449 proof as a client makes one, with joserfc: the public key in the header."""
    import base64
    import hashlib
    import secrets as random
    from joserfc import jwt
    claims = {"jti": random.token_urlsafe(16), "htm": method, "htu": url, "iat": int(time.time())}
    if nonce:
        claims["nonce"] = nonce
    if access_token:
        claims["ath"] = base64.urlsafe_b64encode(hashlib.sha256(access_token.encode()).digest()).rstrip(b"=").decode()
    claims.update(changes)
    return jwt.encode({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)}, claims, key, algorithms=["ES256"])


def dpop(base, session_token, state, check):
    """A code flow whose tokens are bound to a key (DPoP), redeemed through Authlib's fetch_token
    with the proof as a header; userinfo with the DPoP scheme; the binding checked with joserfc's
    own RFC 7638 thumbprint."""
    from joserfc import jwt
    from joserfc.jwk import ECKey, KeySet
    key = ECKey.generate_key("P-256")
    metadata = state["metadata"]

    def bound_tokens():
        expect("ES256" in metadata["dpop_signing_alg_values_supported"], "no dpop_signing_alg_values_supported")
        # The server's nonce: the first proof, without one, is refused with it (RFC 9449 §8).
        first = requests.post(metadata["token_endpoint"], data={"grant_type": "authorization_code", "code": "x"},
                              headers={"DPoP": dpop_proof(key, "POST", metadata["token_endpoint"])}, timeout=10)
        expect(first.status_code in (400, 401) and first.headers.get("DPoP-Nonce"), f"no nonce: {first.status_code} {first.text}")
        nonce = first.headers["DPoP-Nonce"]
        url, pending = state["client"].begin()
        answer = requests.get(url, cookies={"session": session_token}, allow_redirects=False, timeout=10)
        expect(answer.status_code == 302, f"authorize answered {answer.status_code}")
        token = state["client"].session.fetch_token(
            metadata["token_endpoint"], authorization_response=answer.headers["Location"], state=pending["state"],
            code_verifier=pending["verifier"], headers={"DPoP": dpop_proof(key, "POST", metadata["token_endpoint"], nonce)})
        expect(token["token_type"] == "DPoP", f"token_type is {token['token_type']}")
        keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
        claims = jwt.decode(token["access_token"], keys).claims
        expect(claims["cnf"]["jkt"] == key.thumbprint(), f"cnf.jkt {claims.get('cnf')} is not joserfc's thumbprint {key.thumbprint()}")
        state["dpop"] = (token["access_token"], nonce)
    check("Authlib's fetch_token with a joserfc DPoP proof gets a DPoP token bound to joserfc's own thumbprint of the key", bound_tokens)

    def userinfo():
        access, nonce = state["dpop"]
        endpoint = metadata["userinfo_endpoint"]
        good = requests.get(endpoint, headers={"Authorization": f"DPoP {access}",
                                               "DPoP": dpop_proof(key, "GET", endpoint, nonce, access)}, timeout=10)
        expect(good.status_code == 200 and good.json().get("preferred_username") == "alice", f"userinfo: {good.status_code} {good.text}")
        as_bearer = requests.get(endpoint, headers={"Authorization": f"Bearer {access}"}, timeout=10)
        expect(as_bearer.status_code == 401, f"as Bearer: {as_bearer.status_code}")
        other = ECKey.generate_key("P-256")
        stolen = requests.get(endpoint, headers={"Authorization": f"DPoP {access}",
                                                 "DPoP": dpop_proof(other, "GET", endpoint, nonce, access)}, timeout=10)
        expect(stolen.status_code == 401 and 'error="invalid_dpop_proof"' in stolen.headers.get("WWW-Authenticate", ""),
               f"another key: {stolen.status_code} {stolen.headers.get('WWW-Authenticate')}")
        proof = dpop_proof(key, "GET", endpoint, nonce, access)
        once = requests.get(endpoint, headers={"Authorization": f"DPoP {access}", "DPoP": proof}, timeout=10)
        again = requests.get(endpoint, headers={"Authorization": f"DPoP {access}", "DPoP": proof}, timeout=10)
        expect(once.status_code == 200 and again.status_code == 401, f"replayed proof: {once.status_code}, then {again.status_code}")
    check("userinfo takes the bound token with the DPoP scheme and a proof naming it; as Bearer, by another key or replayed it is 401", userinfo)


def serve_key_set(document):
    """A key set at http://127.0.0.1:PORT/jwks.json, in a thread; returns (server, url)."""
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(document).encode()
            self.send_response(200 if self.path == "/jwks.json" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "max-age=300")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/jwks.json"


def machine_clients(binary, base, database, check):
    """The client credentials grant, by secret and by private_key_jwt, through the docs' example."""
    from joserfc.jwk import ECKey, RSAKey
    api = "https://api.example/"
    added = command(binary, "clients", "add", "--database", database, "--id", "reports", "--client-credentials",
                    "--scope", "reports:read reports:write", "--audience", api)
    reports = json.loads(added.strip().splitlines()[-1])

    def by_secret():
        service = ServiceClient(base, "reports", secret=reports["client_secret"])
        expect("client_credentials" in service.metadata["grant_types_supported"], "client_credentials is not in the metadata")
        token = service.token(scope="reports:read", resource=api)
        expect(token["token_type"] == "Bearer" and "refresh_token" not in token and "id_token" not in token, f"token: {token}")
        claims = check_token(token["access_token"], base, api)
        expect(claims["sub"] == "reports" and claims["client_id"] == "reports" and claims["scope"] == "reports:read", f"claims: {claims}")
    check("client_credentials with client_secret_basic gives a token for the resource, checked with joserfc against the JWKS", by_secret)

    def refusals():
        service = ServiceClient(base, "reports", secret=reports["client_secret"])
        for extra, error in (({"resource": "https://other.example/"}, "invalid_target"), ({"scope": "openid"}, "invalid_scope")):
            try:
                service.token(**extra)
            except Exception as refused:
                expect(error in str(refused), f"{extra} refused for another reason: {refused}")
                continue
            raise Failed(f"{extra} was granted")
    check("a resource outside the client's audiences is invalid_target, a user scope invalid_scope", refusals)

    key = ECKey.generate_key("P-256", parameters={"kid": "agent-1", "alg": "ES256", "use": "sig"})
    workdir = os.path.dirname(database)
    with open(os.path.join(workdir, "agent-jwks.json"), "w") as file:
        json.dump({"keys": [key.as_dict(private=False)]}, file)
    added = command(binary, "clients", "add", "--database", database, "--id", "agent", "--client-credentials",
                    "--scope", "reports:read", "--jwks", os.path.join(workdir, "agent-jwks.json"))
    agent = json.loads(added.strip().splitlines()[-1])

    def by_key_file():
        expect("client_secret" not in agent and agent["token_endpoint_auth_method"] == "private_key_jwt", f"added: {agent}")
        service = ServiceClient(base, "agent", key=key)
        claims = check_token(service.token()["access_token"], base, base)
        expect(claims["sub"] == "agent" and claims["scope"] == "reports:read", f"claims: {claims}")
        # The same assertion twice: its jti is spent.
        sent = {}
        original = service.session.send

        def keep(request, **options):
            sent["body"] = request.body
            return original(request, **options)
        service.session.send = keep
        service.token()
        again = requests.post(service.metadata["token_endpoint"], data=sent["body"],
                              headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=10)
        expect(again.status_code == 401 and again.json()["error"] == "invalid_client", f"replayed: {again.status_code} {again.text}")
    check("Authlib's private_key_jwt (ES256, --jwks FILE) authenticates the client; a replayed assertion is invalid_client", by_key_file)

    rsa = RSAKey.generate_key(2048, parameters={"kid": "fetched-1"})
    key_server, url = serve_key_set({"keys": [rsa.as_dict(private=False)]})
    try:
        command(binary, "clients", "add", "--database", database, "--id", "fetched-agent", "--client-credentials",
                "--scope", "reports:read", "--audience", api, "--jwks-uri", url)

        def by_key_uri():
            service = ServiceClient(base, "fetched-agent", key=rsa, alg="PS256")
            claims = check_token(service.token(resource=api)["access_token"], base, api)
            expect(claims["sub"] == "fetched-agent", f"claims: {claims}")
        check("Authlib's private_key_jwt (PS256) against a key set the server fetched from --jwks-uri", by_key_uri)
    finally:
        key_server.shutdown()


if __name__ == "__main__":
    main()
