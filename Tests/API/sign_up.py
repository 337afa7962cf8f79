#!/usr/bin/env python3
"""Registers one account on a running Passkey Server and prints its session token.

A minimal software authenticator for the API fuzz run: "none" attestation, an ES256
credential whose public key is the P-256 base point (registration verifies no signature, so no
private key is needed). Standard library only.

    sign_up.py BASE_URL USER_NAME [SESSION]  ->  prints "<session token> <credential id>"

With SESSION (a token of that user), the passkey is added to the existing account.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import urllib.request

# The P-256 generator: a valid curve point, so the COSE key passes every key check.
P256_GX = bytes.fromhex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
P256_GY = bytes.fromhex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value) -> bytes:
    """Canonical-enough CBOR for ints, byte strings, text and maps (keys in the given order)."""
    def head(major: int, n: int) -> bytes:
        if n < 24:
            return bytes([major << 5 | n])
        for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | info]) + n.to_bytes(size, "big")
        raise ValueError("integer too large")

    if isinstance(value, bool):
        return bytes([0xF5 if value else 0xF4])
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        encoded = value.encode()
        return head(3, len(encoded)) + encoded
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


def post(url: str, body: dict, session: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if session:
        headers["Authorization"] = f"Bearer {session}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def main() -> None:
    base_url, user_name = sys.argv[1].rstrip("/"), sys.argv[2]
    session = sys.argv[3] if len(sys.argv) > 3 else None
    options = post(base_url + "/registration_initialize", {"user_name": user_name}, session)["publicKey"]
    port = base_url.rsplit(":", 1)[1]
    client_data = json.dumps({
        "type": "webauthn.create",
        "challenge": options["challenge"],
        "origin": f"http://localhost:{port}",
        "crossOrigin": False,
    }).encode()
    credential_id = os.urandom(16)
    cose_key = cbor({1: 2, 3: -7, -1: 1, -2: P256_GX, -3: P256_GY})
    flags = 0x01 | 0x04 | 0x40  # UP, UV, AT
    auth_data = (hashlib.sha256(options["rp"]["id"].encode()).digest() + bytes([flags]) + (0).to_bytes(4, "big")
                 + bytes(16) + len(credential_id).to_bytes(2, "big") + credential_id + cose_key)
    attestation = cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
    result = post(base_url + "/registration_finalize", {
        "id": b64url(credential_id),
        "rawId": b64url(credential_id),
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(client_data),
            "attestationObject": b64url(attestation),
            "transports": ["internal"],
        },
        "authenticatorAttachment": "platform",
        "clientExtensionResults": {"credProps": {"rk": True}},
    })
    assert b64url_decode(result["credential_id"]) == credential_id, result
    print(result["session"], result["credential_id"])


if __name__ == "__main__":
    main()
