#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, made from the committed test data.

    python3 Fuzz/make_seeds.py OUT_DIR

Writes OUT_DIR/<target>/<name> for every target of Fuzz/Sources/PasskeyFuzz (see Fuzz/README.md)
from Tests/PasskeyCoreTests/Vectors (ceremony and attestation vectors, the Metadata Service
BLOBs) and Tests/PasskeyCryptoTests/Fixtures (certificates). Standard library only; the output
is the same on every run, and OUT_DIR/<target> is emptied first.
"""

import base64
import binascii
import hashlib
import json
import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "Tests/PasskeyCoreTests/Vectors"
CRYPTO_FIXTURES = ROOT / "Tests/PasskeyCryptoTests/Fixtures"

TARGETS = [
    "cbor", "attestation-object", "cose-key", "der-x509",
    "attestation-formats", "jws", "jose", "registration", "authentication", "strict-json", "postgres-url",
    "apple-jws", "push-answer", "qr", "mfb-token", "mfb-reply", "stored-json",
    "form", "http-headers", "ip-address", "request-path", "redirect-uri", "forward-auth", "outbound-host", "user-code", "recovery-code", "page-cursor",
    "name", "checkpoint-copies", "json-offsets", "export-lines", "client-metadata", "forward-auth-rule",
    "sealed-ceremony",
]


# --- small helpers ---------------------------------------------------------------------------

def b64url_decode(text):
    """base64url or standard base64, padded or not (as the server accepts)."""
    text = text.strip().replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def pem_blocks(text):
    """DER bytes of every CERTIFICATE block in a PEM text."""
    pattern = r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----"
    return [base64.b64decode("".join(body.split())) for body in re.findall(pattern, text, re.S)]


class CBOR:
    """A minimal CBOR reader (definite lengths), enough to take attestation objects apart."""

    def __init__(self, data):
        self.data = data
        self.offset = 0

    @classmethod
    def decode(cls, data):
        reader = cls(data)
        return reader.item()

    def argument(self, info):
        if info < 24:
            return info
        size = {24: 1, 25: 2, 26: 4, 27: 8}[info]
        value = int.from_bytes(self.data[self.offset:self.offset + size], "big")
        self.offset += size
        return value

    def item(self):
        initial = self.data[self.offset]
        self.offset += 1
        major, info = initial >> 5, initial & 0x1F
        if major == 7:
            if info in (25, 26, 27):
                size = {25: 2, 26: 4, 27: 8}[info]
                raw = self.data[self.offset:self.offset + size]
                self.offset += size
                return struct.unpack(">" + {2: "e", 4: "f", 8: "d"}[size], raw)[0]
            value = self.argument(info)
            return {20: False, 21: True, 22: None}.get(value, ("simple", value))
        value = self.argument(info)
        if major == 0:
            return value
        if major == 1:
            return -1 - value
        if major in (2, 3):
            raw = self.data[self.offset:self.offset + value]
            self.offset += value
            return bytes(raw) if major == 2 else raw.decode("utf-8")
        if major == 4:
            return [self.item() for _ in range(value)]
        if major == 5:
            result = {}
            for _ in range(value):
                key = self.item()
                result[key if not isinstance(key, list) else tuple(key)] = self.item()
            return result
        return ("tag", value, self.item())


def cbor_head(major, value):
    if value < 24:
        return bytes([major << 5 | value])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * size):
            return bytes([major << 5 | info]) + value.to_bytes(size, "big")
    raise ValueError(value)


# --- reading the vectors ---------------------------------------------------------------------

def vector_files():
    return sorted(p for p in VECTORS.rglob("*.json") if p.name != "mds.json")


def load_vectors():
    """(file stem, file json, vector) for every vector of every file."""
    for path in vector_files():
        contents = json.loads(path.read_text())
        stem = str(path.relative_to(VECTORS).with_suffix("")).replace("/", "-")
        for vector in contents.get("vectors", []):
            yield stem, contents, vector


class Seeds:
    def __init__(self, out):
        self.out = Path(out)
        self.seen = {target: set() for target in TARGETS}
        self.names = {target: set() for target in TARGETS}
        for target in TARGETS:
            directory = self.out / target
            directory.mkdir(parents=True, exist_ok=True)
            for old in directory.iterdir():
                old.unlink()

    def add(self, target, name, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        if not data or digest in self.seen[target]:
            return
        self.seen[target].add(digest)
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:80] or "seed"
        unique, n = name, 2
        while unique in self.names[target]:
            unique, n = f"{name}-{n}", n + 1
        self.names[target].add(unique)
        (self.out / target / unique).write_bytes(data)

    def counts(self):
        return {target: len(self.seen[target]) for target in TARGETS}


def certificates_in_statement(statement):
    """DER certificates of x5c (also inside compound sub-statements)."""
    found = []
    if isinstance(statement, dict):
        for cert in statement.get("x5c", []) or []:
            if isinstance(cert, bytes):
                found.append(cert)
    elif isinstance(statement, list):
        for sub in statement:
            if isinstance(sub, dict):
                found.extend(certificates_in_statement(sub.get("attStmt")))
    return found


def split_authenticator_data(auth_data):
    """The COSE key bytes inside authenticator data with attested credential data, if any."""
    if len(auth_data) < 55 or not auth_data[32] & 0x40:
        return None
    id_length = int.from_bytes(auth_data[53:55], "big")
    start = 55 + id_length
    reader = CBOR(auth_data[start:])
    try:
        reader.item()
    except Exception:
        return None
    return auth_data[start:start + reader.offset]


def jws_structured(compact):
    """header JSON NUL payload JSON NUL signature bytes: the harness's second JWS form."""
    parts = compact.strip().split(b".")
    if len(parts) != 3:
        return None
    try:
        header, payload, signature = (b64url_decode(p.decode("ascii")) for p in parts)
    except (ValueError, binascii.Error):
        return None   # a deliberately malformed vector: kept in its compact form only
    return header + b"\0" + payload + b"\0" + signature


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_seeds.py OUT_DIR")
    seeds = Seeds(sys.argv[1])

    anchors = []
    for stem, contents, vector in load_vectors():
        name = f"{stem}-{vector['name']}"
        for pem in (vector.get("trust_anchors") or []) + (contents.get("trust_anchors") or []):
            anchors.append(pem)
        response = vector.get("response")
        if not response:
            continue
        body = response.get("response", {})
        ceremony = vector.get("ceremony", "registration")
        client_data = b64url_decode(body["clientDataJSON"]) if "clientDataJSON" in body else b""

        if ceremony == "registration":
            state = {"challenge": vector["challenge"],
                     "userVerification": vector.get("user_verification", "preferred")}
            seeds.add("registration", name, json.dumps({**response, "fuzz": state}, separators=(",", ":")))
            seeds.add("strict-json", name, json.dumps(response, separators=(",", ":")))
            if client_data:
                seeds.add("strict-json", name + "-clientData", client_data)
            object_bytes = b64url_decode(body["attestationObject"])
            seeds.add("cbor", name, object_bytes)
            seeds.add("attestation-object", name, object_bytes)
            seeds.add("attestation-formats", name, hashlib.sha256(client_data).digest() + object_bytes)
            try:
                attestation = CBOR.decode(object_bytes)
            except Exception:
                attestation = {}
            if isinstance(attestation, dict):
                auth_data = attestation.get("authData")
                if isinstance(auth_data, bytes):
                    seeds.add("attestation-object", name + "-authData", auth_data)
                    key = split_authenticator_data(auth_data)
                    if key:
                        seeds.add("cose-key", name, key)
                        seeds.add("cbor", name + "-key", key)
                statement = attestation.get("attStmt")
                for index, cert in enumerate(certificates_in_statement(statement)):
                    seeds.add("der-x509", f"{name}-x5c{index}", cert)
                if isinstance(statement, dict):
                    sig = statement.get("sig")
                    if isinstance(sig, bytes) and sig[:1] == b"\x30":
                        seeds.add("der-x509", name + "-sig", sig)
                    jws = statement.get("response")
                    if isinstance(jws, bytes):
                        seeds.add("jws", name, jws)
                        structured = jws_structured(jws)
                        if structured:
                            seeds.add("jws", name + "-structured", structured)
            if "publicKey" in body:
                seeds.add("der-x509", name + "-spki", b64url_decode(body["publicKey"]))
            public_key = (vector.get("expect") or {}).get("public_key")
            if public_key:
                seeds.add("cose-key", name + "-expected", b64url_decode(public_key))
        else:
            credential = vector["credential"]
            state = {"challenge": vector["challenge"],
                     "userVerification": vector.get("user_verification", "preferred"),
                     "credential": {"id": credential["id"], "publicKey": credential["public_key"],
                                    "signCount": credential["sign_count"], "userHandle": credential["user_handle"],
                                    "backupEligible": credential["backup_eligible"]},
                     "allowCredentials": vector.get("allow_credentials")}
            seeds.add("authentication", name, json.dumps({**response, "fuzz": state}, separators=(",", ":")))
            auth_data = b64url_decode(body["authenticatorData"])
            seeds.add("attestation-object", name + "-authData", auth_data)
            key = b64url_decode(credential["public_key"])
            seeds.add("cose-key", name, key)
            seeds.add("cbor", name + "-key", key)
            signature = b64url_decode(body["signature"])
            if signature[:1] == b"\x30":
                seeds.add("der-x509", name + "-sig", signature)

    # Certificates: trust anchors, the spec's attestation CA, the crypto fixtures, the MDS PEMs.
    for index, pem in enumerate(sorted(set(anchors))):
        for der in pem_blocks(pem):
            seeds.add("der-x509", f"anchor{index}", der)
    spec = json.loads((VECTORS / "spec.json").read_text())
    ca = spec.get("attestation_ca_cert") or {}
    if ca.get("der"):
        seeds.add("der-x509", "spec-attestation-ca", binascii.unhexlify(ca["der"]))
    for path in sorted(CRYPTO_FIXTURES.rglob("*.der")):
        seeds.add("der-x509", f"{path.parent.name}-{path.stem}", path.read_bytes())
    for path in sorted(list(CRYPTO_FIXTURES.rglob("*.pem")) + list((VECTORS / "mds").glob("*.pem"))):
        if "PRIVATE KEY" in path.read_text():
            continue
        text = path.read_text()
        seeds.add("der-x509", f"{path.parent.name}-{path.stem}-pem", text)
        for index, der in enumerate(pem_blocks(text)):
            seeds.add("der-x509", f"{path.parent.name}-{path.stem}-{index}", der)

    # --database URLs, as operators write them.
    for index, url in enumerate([
        "postgres://passkey:secret@127.0.0.1:5432/passkeys",
        "postgresql://app%40corp:p%3As%2Fw@db.internal:6543/pass%20keys?sslmode=verify-full&sslrootcert=/etc/ca.pem",
        "postgres://alice@localhost",
        "postgres://u:p@[::1]:5432/db?sslmode=require",
        "postgres://u@h/db?sslmode=disable&sslrootcert=",
        "postgres://passkey@/passkeys?host=/run/postgresql",
        "postgresql://u:p@%2Fvar%2Frun%2Fpostgresql:5433/db?sslmode=prefer",
    ]):
        seeds.add("postgres-url", f"url{index}", url)

    # Metadata Service BLOBs, compact and in the harness's structured form.
    for path in sorted((VECTORS / "mds").glob("*.jwt")):
        data = path.read_bytes()
        seeds.add("jws", "mds-" + path.stem, data)
        structured = jws_structured(data)
        if structured:
            seeds.add("jws", "mds-" + path.stem + "-structured", structured)
    seeds.add("jws", "mds-minimal-structured",
              b'{"alg":"ES256","typ":"JWT"}\0{"no":1,"nextUpdate":"2026-07-01","entries":[{"aaguid":'
              b'"00000000-0000-0000-0000-000000000001","statusReports":[{"status":"REVOKED",'
              b'"effectiveDate":"2026-01-01"}],"metadataStatement":{"description":"x",'
              b'"attestationRootCertificates":["AA=="]}}]}\0sig')

    # CBOR items beyond what authenticators send (RFC 8949 Appendix A and edge cases).
    for hex_item in [
        "00", "17", "1818", "1903e8", "1a000f4240", "1b000000e8d4a51000", "20", "3903e7",
        "3bffffffffffffffff", "f90000", "f98000", "f97c00", "f97e00", "fa47c35000", "fb3ff199999999999a",
        "f4", "f5", "f6", "f7", "f0", "f8ff", "c11a514b67b0", "d74401020304", "d818456449455446",
        "4401020304", "6449455446", "62c3bc", "83010203", "8301820203820405", "a201020304",
        "a26161016162820203", "a1a1010201", "9f01ff", "5f42010243030405ff", "a20101a1010102",
    ]:
        seeds.add("cbor", "item-" + hex_item[:24], binascii.unhexlify(hex_item))
    nested = b"".join(cbor_head(4, 1) for _ in range(16)) + b"\x00"
    seeds.add("cbor", "nested-16", nested)

    def jwt(header, claims):
        return (b64url_encode(json.dumps(header).encode()) + "." + b64url_encode(json.dumps(claims).encode()) + ".AAAA").encode()

    # Sign in with Apple: an identity token's header and claims as Apple writes them (the
    # signature cannot verify), and a key set.
    seeds.add("apple-jws", "identity-token", jwt(
        {"kid": "W6WcOKB", "alg": "RS256"},
        {"iss": "https://appleid.apple.com", "aud": "com.example.app", "exp": 1800086400, "iat": 1800000000,
         "sub": "001234.abc.0987", "nonce": "n", "email": "a@privaterelay.appleid.com", "email_verified": "true",
         "is_private_email": "true", "auth_time": 1800000000, "nonce_supported": True}))
    seeds.add("apple-jws", "jwks", json.dumps({"keys": [{"kty": "RSA", "kid": "W6WcOKB", "use": "sig", "alg": "RS256",
              "n": "AQAB" * 86, "e": "AQAB"}]}))
    seeds.add("apple-jws", "cache-control", "public, max-age=86400, must-revalidate")

    # JOSE: Wycheproof's JWS tokens and key sets, the tokens above, RFC 7515's examples.
    jose_vectors = ROOT / "Tests" / "PasskeyJOSETests" / "Vectors"
    for name in ("wycheproof-json-web-signature", "wycheproof-json-web-key"):
        for group in json.loads((jose_vectors / f"{name}.json").read_text())["testGroups"]:
            for test in group["tests"][:3]:
                seeds.add("jose", f"{name}-{test['tcId']}", test["jws"])
            public = group.get("public")
            if public is not None:
                keys = public if "keys" in public else {"keys": [public]}
                seeds.add("jose", f"{name}-keys-{group['tests'][0]['tcId']}", json.dumps(keys))
    seeds.add("jose", "identity-token", jwt(
        {"kid": "k", "alg": "ES256", "crit": ["exp"], "exp": 1},
        {"iss": "https://appleid.apple.com", "aud": ["com.example.app"], "exp": 1800086400, "iat": 1800000000,
         "nbf": 1800000000, "sub": "001234.abc.0987"}))

    # Push authenticator: answer tokens (header and claims as the app writes them; the signature
    # cannot verify), a device key, an enrolment signature; QR text as enrolment writes it.
    seeds.add("push-answer", "approved", jwt(
        {"alg": "RS256", "deviceId": "5a1a3c1e-0000-4000-8000-000000000001"},
        {"pushAuthId": "p1", "challenge": "c1", "response": "APPROVED", "numberChallenge": "42", "exp": 1800000300}))
    seeds.add("push-answer", "denied-number", jwt(
        {"alg": "RS256", "deviceId": "d"}, {"pushAuthId": "p1", "challenge": "c1", "response": "DENIED", "numberChallenge": 7, "exp": 1.8e9}))
    seeds.add("push-answer", "alg-none", jwt({"alg": "none", "deviceId": "d"}, {"exp": 1}))
    for path in sorted(CRYPTO_FIXTURES.rglob("*.pem")):
        text = path.read_text()
        if "PUBLIC KEY" in text and "PRIVATE" not in text:
            body = "".join(line for line in text.splitlines() if not line.startswith("-----"))
            seeds.add("push-answer", f"key-{path.stem}", body)
    seeds.add("push-answer", "signature", b"AAAA\0token")
    wycheproof = ROOT / "Tests" / "PasskeyPushTests" / "Vectors" / "wycheproof-rsa-pkcs1-2048-sha256.json"
    for index, group in enumerate(json.loads(wycheproof.read_text())["testGroups"]):
        body = "\n".join(line for line in group["publicKeyPem"].splitlines() if not line.startswith("-----"))
        seeds.add("push-answer", f"wycheproof-key{index}", body)
    seeds.add("qr", "enrolment", json.dumps({"challenge": "3c9d1f0e-1111-4222-8333-444455556666", "deviceId":
              "5a1a3c1e-0000-4000-8000-000000000001", "host": "https://example.com", "tenantDomain": "example.com",
              "username": "alice"}, separators=(",", ":")))
    seeds.add("qr", "markup", "<title>&\"x\"</title>")

    # Messages for Business: the seed's token, and the Apple-made ciphertexts.
    mfb_vectors = ROOT / "Tests" / "PasskeyMfBTests" / "Vectors"
    seeds.add("mfb-token", "seed", base64.b64decode(json.loads((mfb_vectors / "mfb-seed.json").read_text())["token"]))
    for case in json.loads((mfb_vectors / "ecies-apple.json").read_text())["vectors"]:
        seeds.add("mfb-token", "apple-" + case["name"], base64.b64decode(case["ciphertext"]))

    # The device's replies as seed 000 shows them, both envelopes, and request keys.
    seed = json.loads((mfb_vectors / "mfb-seed.json").read_text())
    seeds.add("mfb-reply", "authenticated", json.dumps({"data": {"version": "1.0", "requestIdentifier":
              "4C5B9B10-BD43-4F2B-B0F7-AB5E3D1E1A42", "authenticate": {"status": "authenticated", "token": seed["token"]}}}))
    seeds.add("mfb-reply", "failed", json.dumps({"interactiveData": {"data": {"requestIdentifier": "r-1", "authenticate": {
              "status": "failed", "errors": [{"code": 2, "domain": "com.apple.icloud.messages.business.cryptor",
                                              "message": "Key is not UTF8"}]}}}}))
    seeds.add("mfb-reply", "key", seed["publicKey"])
    seeds.add("mfb-reply", "key-form-decoded", seed["publicKey"].replace("+", " "))

    # The store's list and details columns, as this version and older ones wrote them.
    for name, text in [("transports", '["hybrid","internal"]'), ("algorithms", "[-7,-257,-8]"), ("empty", "[]"),
                       ("ids", '["AAEC","3q2+7w=="]'), ("ids-escaped", '["3q2+7w\\/=="]'), ("details", '{"credential":"AAEC","method":"passkey"}'),
                       ("details-escaped", '{"a\\"b":"\\u0001"}'), ("spaced", '[ -7 , 1 ]')]:
        seeds.add("stored-json", name, text)

    # The HTTP layer's own parsers: form bodies and queries, headers, addresses, paths.
    for name, text in [("query", "user_name=jane+doe&display_name=Jane%20D%C3%B6e"), ("oauth", "grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fa.example%2Fcb"),
                       ("repeated", "a=1&a=2"), ("bad-escape", "a=%zz&b=%C3"), ("apple", "state=s&code=c&id_token=x.y.z&user=%7B%22name%22%3A%7B%7D%7D")]:
        seeds.add("form", name, text)
    for name, text in [("cookies", "session=abc; __Host-session=def;theme = dark"), ("bearer", "Bearer  token-123 "),
                       ("basic", "Basic Y2xpZW50OnNlY3JldA=="), ("two-headers", "a=1\nb=2; c"),
                       ("connection", "keep-alive, \tClOsE "), ("connection-like", "closed,clos e,,")]:
        seeds.add("http-headers", name, text)
    for name, text in [("v4", "192.168.1.7"), ("v6", "2001:db8::1"), ("mapped", "::ffff:10.1.2.3"), ("cidr", "10.0.0.0/8"),
                       ("cidr6", "2001:db8::/32"), ("chain", "203.0.113.9, 10.0.0.2\n[::1]:443"), ("port", "1.2.3.4:80")]:
        seeds.add("ip-address", name, text)
    for name, text in [("root", "/"), ("api", "/registration_finalize"), ("param", "/credentials/AAEC-_x"), ("trailing", "/logout/"),
                       ("double", "//logout"), ("dots", "/a/../logout"), ("encoded", "/siwa%2Ffinalize"), ("file", "/app.js")]:
        seeds.add("request-path", name, text)
    for name, text in [("same", "https://wiki.example/cb"), ("loopback", "http://127.0.0.1:8080/cb\0http://127.0.0.1:51234/cb"),
                       ("v6", "http://[::1]/cb?x=1\0http://[::1]:9/cb?x=1"), ("localhost", "http://localhost/cb\0http://LOCALHOST:1/cb"),
                       ("prefix", "https://wiki.example/cb\0https://wiki.example/cb/../evil"), ("userinfo", "http://127.0.0.1/cb\0http://a@127.0.0.1/cb"),
                       ("private", "com.example.app:/callback")]:
        seeds.add("redirect-uri", name, text)
    for name, text in [("nginx", "https://app.example.com/wiki?page=1"), ("port", "http://app.example.com:8080/%61dmin"),
                       ("caddy", "GET\nhttps\napp.example.com\n/admin/../x"), ("v6", "https://[2001:db8::1]:443/"),
                       ("dots", "https://a.example.com/a/%2e%2e/b")]:
        seeds.add("forward-auth", name, text)
    for name, text in [("https", "*.corp.example\0https://a.corp.example/jwks.json"), ("loopback", "127.0.0.1:9000\0http://127.0.0.1:9000/k"),
                       ("v6", "[::1]\0http://[::1]:8080/k"), ("credentials", "keys.example\0https://u:p@keys.example/k"),
                       ("port", "keys.example:8443\0https://keys.example:8443/k"), ("none", "\0ftp://keys.example/k")]:
        seeds.add("outbound-host", name, text)
    for name, document in [
        ("confidential", {"client_name": "Notes", "redirect_uris": ["https://notes.example/cb"], "grant_types": ["authorization_code", "refresh_token"],
                          "scope": "openid profile", "contacts": ["ops@notes.example"]}),
        ("public", {"token_endpoint_auth_method": "none", "redirect_uris": ["com.notes.app:/cb", "http://127.0.0.1/cb"]}),
        ("keys", {"token_endpoint_auth_method": "private_key_jwt", "redirect_uris": ["https://a.example/cb"],
                  "jwks": {"keys": [{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                                     "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}}),
        ("hostile", {"redirect_uris": ["javascript:alert(1)", "http://10.0.0.1/cb#x"], "grant_types": ["client_credentials"], "client_name": 7}),
    ]:
        seeds.add("client-metadata", name, json.dumps(document))
    for name, text in [("groups", "app.example.com/admin=admins, Staff team"), ("anyone", "app.example.com="),
                       ("assurance", "*.example.com/ops=ops max_age=300 acr=phrh"), ("only-acr", "a.example= acr=phr"),
                       ("twice", "a.example= max_age=60 max_age=70"), ("short", "a.example= max_age=9"), ("unknown", "a.example= ttl=5")]:
        seeds.add("forward-auth-rule", name, text)
    # The sealed fields of a sign-in: 16 random bytes, created and expires (8 bytes each), user
    # verification, the user handle and the session hash (a length, 0xFF for none), then
    # allowCredentials (a 2-byte count, each id a 2-byte length and its bytes).
    times = (1_765_000_000_000).to_bytes(8, "big") + (1_765_000_300_000).to_bytes(8, "big")
    for name, data in [
        ("discoverable", bytes(16) + times + b"\x01\xff\xff\x00\x00"),
        ("named", bytes(16) + times + b"\x00\x10" + bytes(range(16)) + b"\xff\x00\x02\x00\x03abc\x00\x14" + bytes(20)),
        ("step-up", bytes(16) + times + b"\x00\x04abcd\x20" + bytes(32) + b"\x00\x01\x00\x10" + bytes(16)),
        ("short-list", bytes(16) + times + b"\x02\xff\xff\x00\x05\x00\x01a"),
        ("trailing", bytes(16) + times + b"\x01\xff\xff\x00\x00\x00"),
    ]:
        seeds.add("sealed-ceremony", name, data)
    for name, text in [("shown", "BCDF-GHJK"), ("typed", "bcdf ghjk"), ("dashes", "-B-C-D-F-G-H-J-K-"), ("vowel", "BCDA-GHJK"),
                       ("short", "BCDF-GHJ"), ("wide", "\uff22CDF-GHJK")]:
        seeds.add("user-code", name, text)
    for name, text in [("shown", "ABCD-EFGH-IJKL-MNOP"), ("typed", "abcdefgh ijkl mnop"), ("digits", "0BCD-1FGH-8JKL-2345"),
                       ("long", "ABCD-EFGH-IJKL-MNOPQ"), ("bytes", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09")]:
        seeds.add("recovery-code", name, text)
    for name, text in [("name", "YWxpY2U"), ("event", "MTIz"), ("control", "AAE"), ("padded", "YWxpY2U="),
                       ("token", "pka_" + "A" * 43), ("short-token", "pka_AAAA")]:
        seeds.add("page-cursor", name, text)
    for name, text in [("plain", "alice"), ("case", "Zoë Ångström"), ("decomposed", "Zoe\u0308"), ("spaces", "  admins \n"),
                       ("zero-width", "al\u200bice"), ("override", "\u202egnp.exe"), ("dotted", "\u0130stanbul"),
                       ("long", "x" * 65), ("wide", "\U0001F511" * 64), ("control", "a\x00b"),
                       ("fullwidth", "\uff41\uff44\uff4d\uff49\uff4e"), ("halfwidth", "\uff76\uff80\uff76\uff85")]:
        seeds.add("name", name, text)
    line = ('{"at":"2026-11-28T10:00:00Z","event_id":12,"hash":"' + b64url_encode(bytes(range(32))) +
            '","id":3,"jws":"eyJhbGciOiJFUzI1NiJ9.eyJldmVudF9pZCI6MTJ9.c2ln"}')
    for name, text in [("lines", line + "\n" + line.replace('"id":3', '"id":4') + "\n\n"),
                       ("api", '{"checkpoints":[' + line + ']}'), ("minimal", '{"event_id":1,"hash":"AA","jws":"x"}'),
                       ("bad-hash", line.replace('"hash":"', '"hash":"=')), ("not-json", "checkpoint\n"), ("crlf", line + "\r\n")]:
        seeds.add("checkpoint-copies", name, text)
    clients = ('{\n  "clients": [\n    {"client_id": "app", "redirect_uris": ["https://app.example.com/cb"], '
               '"secret_file": "app.secret"},\n    {"client_id": "tv", "public": true, "device_flow": true}\n  ],\n'
               '  "forward_auth_rules": ["app.example.com=staff"]\n}\n')
    for name, text in [("clients-file", clients), ("empty", "{}"), ("escaped", '{"cl\\u0069ents": [1, [2], {"a": "]"}]}'),
                       ("array", "[1, 2]"), ("deep", "[" * 40 + "]" * 40), ("broken", '{"clients": [{"a": 1,}]}'),
                       ("crlf", clients.replace("\n", "\r\n"))]:
        seeds.add("json-offsets", name, text)
    header = '{"engine":"sqlite","exported_at":"2026-11-28T13:26:46Z","format":"passkey-server-export","schema":28,"version":1}'
    user = ('{"row":{"created_at":1795872375195,"disabled":false,"display_name":"ada","handle":{"bytes":"' + b64url_encode(bytes(32)) +
            '"},"name":"ada","name_key":"ada","updated_at":null},"table":"users"}')
    client = '{"row":{"id":"wiki","scopes":["openid","profile"],"is_public":0},"table":"oauth_clients"}'
    end = '{"end":true,"rows":{"oauth_clients":1,"users":1}}'
    for name, text in [("export", "\n".join([header, user, client, end]) + "\n"), ("cut", "\n".join([header, user])),
                       ("empty", header + '\n{"end":true,"rows":{}}\n'), ("crlf", "\r\n".join([header, user, client, end])),
                       ("bad-count", "\n".join([header, user, '{"end":true,"rows":{"users":2}}'])), ("not-export", "users\n")]:
        seeds.add("export-lines", name, text)

    counts = seeds.counts()
    print(" ".join(f"{target}={counts[target]}" for target in TARGETS))


if __name__ == "__main__":
    main()
