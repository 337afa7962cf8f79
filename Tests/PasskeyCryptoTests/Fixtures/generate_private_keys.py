#!/usr/bin/env python3
"""Private-key import fixtures for PasskeyCryptoTests (pyca/cryptography).

    python3 Tests/PasskeyCryptoTests/Fixtures/generate_private_keys.py

Writes, next to this script, under private-keys/:
  <name>.pem           an unencrypted PKCS#8 PRIVATE KEY block (P-256, P-384, RSA-2048, Ed25519)
  encrypted.pem        a P-256 key in an ENCRYPTED PRIVATE KEY block (must be refused)
  private-keys.json    per key: its SubjectPublicKeyInfo, and a signature over `message` made
                       here; for the ECDSA keys also the signature as JWS r‖s (RFC 7518 §3.4)

Keys are random on every run.
"""
import base64
import json
import os

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "private-keys")
MESSAGE = b"header.payload as a JWS signs it"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def main():
    os.makedirs(HERE, exist_ok=True)
    keys = {
        "p256": (ec.generate_private_key(ec.SECP256R1()), "ES256"),
        "p384": (ec.generate_private_key(ec.SECP384R1()), "ES384"),
        "rsa2048": (rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256"),
        "ed25519": (ed25519.Ed25519PrivateKey.generate(), "EdDSA"),
    }
    document = {"message": b64(MESSAGE), "keys": []}
    for name, (key, algorithm) in keys.items():
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        with open(os.path.join(HERE, f"{name}.pem"), "wb") as handle:
            handle.write(b"A PKCS#8 test key made by generate_private_keys.py.\n" + pem)
        entry = {
            "name": name,
            "algorithm": algorithm,
            "spki": b64(key.public_key().public_bytes(serialization.Encoding.DER,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)),
        }
        if isinstance(key, ec.EllipticCurvePrivateKey):
            digest = hashes.SHA256() if algorithm == "ES256" else hashes.SHA384()
            signature = key.sign(MESSAGE, ec.ECDSA(digest))
            size = (key.curve.key_size + 7) // 8
            r, s = decode_dss_signature(signature)
            entry["signature"] = b64(signature)
            entry["jws"] = b64(r.to_bytes(size, "big") + s.to_bytes(size, "big"))
        elif isinstance(key, rsa.RSAPrivateKey):
            entry["signature"] = b64(key.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256()))
        else:
            entry["signature"] = b64(key.sign(MESSAGE))
        document["keys"].append(entry)

    encrypted = keys["p256"][0].private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"password"))
    with open(os.path.join(HERE, "encrypted.pem"), "wb") as handle:
        handle.write(encrypted)
    with open(os.path.join(HERE, "private-keys.json"), "w") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")


if __name__ == "__main__":
    main()
