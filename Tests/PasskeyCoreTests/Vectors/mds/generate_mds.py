#!/usr/bin/env python3
"""Test FIDO Metadata Service (MDS3) BLOBs and a packed attestation chain they anchor.

    python3 Tests/PasskeyCoreTests/Vectors/mds/generate_mds.py      (or: make vectors)

Writes, next to this script (keys are random on every run; dates are fixed):

  mds-root.pem             test "FIDO MDS root" (P-256, self-signed), given to the verifier as
                           the Metadata Service root (the server's --mds-root)
  mds-signer.pem, mds-signer-key.pem
                           an ES256 BLOB signing certificate issued by mds-root, and its key, so
                           tests can sign payloads of their own (refusals of malformed payloads)
  other-root.pem           an unrelated root with the same subject name (a look-alike)
  attestation-root.pem     root of the test authenticator's attestation chain; listed in the
                           BLOB as attestationRootCertificates of the GOOD and REVOKED models
  attestation-intermediate.pem, attestation-leaf.pem
                           x5c of a packed statement: leaf (§8.2.1 requirements, AAGUID
                           extension of the GOOD model) and its intermediate
  attestation-leaf-key.pem the leaf's private key (PKCS#8), so tests sign packed statements
                           for challenges the server issues
  revoked-leaf.pem, revoked-leaf-key.pem
                           a leaf under the same intermediate for the REVOKED model
  good.jwt                 RS256, x5c [signer, intermediate] -> mds-root; nextUpdate 2034-12-01
  good-es256.jwt           ES256, x5c [signer] -> mds-root; the same payload
  root-signed.jwt          ES256 signed by mds-root itself, no x5c (MDS3 §3.3 step 4 fallback)
  bad-signature.jwt        good.jwt with one signature byte changed
  other-root.jwt           RS256 by a signer whose chain ends at other-root (same names)
  stale.jwt                like good.jwt but nextUpdate 2025-06-01 (in the past)
  alg-none.jwt             header alg "none", empty signature
  alg-mismatch.jwt         header alg ES256 over an RSA signing certificate
  mds.json                 what the tests expect: AAGUIDs, descriptions, counts, dates

Payload entries (good.jwt): GOOD (FIDO_CERTIFIED_L1; roots: attestation-root), REVOKED
(FIDO_CERTIFIED_L1 then REVOKED; roots: attestation-root), PLAIN (no roots, a name only),
a U2F entry without aaguid (must be skipped), and BROKEN-ROOT (one attestation root that is not
a certificate: a warning, the entry is kept).

Certificates are valid 2025-01-01 .. 2035-01-01; tests pin their verification time inside.
Needs python3 with `cryptography`.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import uuid
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

HERE = Path(__file__).resolve().parent
UTC = dt.timezone.utc
VALID_FROM = dt.datetime(2025, 1, 1, tzinfo=UTC)
VALID_UNTIL = dt.datetime(2035, 1, 1, tzinfo=UTC)
OID_FIDO_AAGUID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")

GOOD = uuid.UUID("8c1b7a6e-2f4d-4a8b-9c3e-5d6f7a8b9c0d")
REVOKED = uuid.UUID("d3e4f5a6-b7c8-4d9e-8f0a-1b2c3d4e5f60")
PLAIN = uuid.UUID("0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
BROKEN_ROOT = uuid.UUID("5a5a5a5a-1111-4222-8333-444455556666")
DESCRIPTIONS = {
    GOOD: "Passkey Server Test Key",
    REVOKED: "Passkey Server Revoked Key",
    PLAIN: "Passkey Server Plain Key",
    BROKEN_ROOT: "Passkey Server Broken Root Key",
}
NEXT_UPDATE = "2034-12-01"
STALE_NEXT_UPDATE = "2025-06-01"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def der(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


def name(cn: str, *, ou: str | None = None, o: str = "Passkey Server Tests") -> x509.Name:
    attributes = [x509.NameAttribute(NameOID.COUNTRY_NAME, "US"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, o)]
    if ou:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attributes)


def certificate(subject: x509.Name, public_key, issuer: x509.Name, issuer_key, *, ca: bool,
                aaguid: uuid.UUID | None = None) -> x509.Certificate:
    builder = (x509.CertificateBuilder()
               .subject_name(subject).issuer_name(issuer).public_key(public_key)
               .serial_number(x509.random_serial_number())
               .not_valid_before(VALID_FROM).not_valid_after(VALID_UNTIL)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(
                   digital_signature=not ca, content_commitment=False, key_encipherment=False,
                   data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                   encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False))
    if issuer_key.public_key() != public_key:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if aaguid is not None:
        # extnValue holds an OCTET STRING with the 16-byte AAGUID (WebAuthn L3 §8.2.1).
        builder = builder.add_extension(x509.UnrecognizedExtension(OID_FIDO_AAGUID, b"\x04\x10" + aaguid.bytes),
                                        critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def root(cn: str, key) -> x509.Certificate:
    return certificate(name(cn), key.public_key(), name(cn), key, ca=True)


def write_pem(file: str, cert: x509.Certificate, note: str) -> None:
    (HERE / file).write_text(f"{note}\n" + cert.public_bytes(serialization.Encoding.PEM).decode("ascii"))


def write_key(file: str, key) -> None:
    (HERE / file).write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))


def jws(header: dict, payload: dict, key) -> str:
    """JWS compact serialisation (RFC 7515 §7.1); ES256 signatures as r‖s (RFC 7518 §3.4)."""
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")).encode())
    alg = header["alg"]
    if alg == "RS256":
        signature = key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
    elif alg == "ES256":
        r, s = decode_dss_signature(key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    elif alg == "none":
        signature = b""
    else:
        raise ValueError(alg)
    return signing_input + "." + b64url(signature)


def entry(aaguid: uuid.UUID, roots: list[str], reports: list[tuple[str, str]]) -> dict:
    return {
        "aaguid": str(aaguid),
        "metadataStatement": {
            "legalHeader": "Test data for Passkey Server; not FIDO Alliance metadata.",
            "aaguid": str(aaguid),
            "description": DESCRIPTIONS[aaguid],
            "authenticatorVersion": 1,
            "protocolFamily": "fido2",
            "schema": 3,
            "attestationTypes": ["basic_full"],
            "attestationRootCertificates": roots,
        },
        "statusReports": [{"status": status, "effectiveDate": date} for status, date in reports],
        "timeOfLastStatusChange": reports[-1][1],
    }


def payload(next_update: str, attestation_root: x509.Certificate) -> dict:
    anchor = b64(der(attestation_root))
    return {
        "legalHeader": "Test data for Passkey Server; not FIDO Alliance metadata.",
        "no": 42,
        "nextUpdate": next_update,
        "entries": [
            entry(GOOD, [anchor], [("FIDO_CERTIFIED_L1", "2025-02-01")]),
            entry(REVOKED, [anchor], [("FIDO_CERTIFIED_L1", "2025-02-01"), ("REVOKED", "2025-06-01")]),
            entry(PLAIN, [], [("NOT_FIDO_CERTIFIED", "2025-02-01")]),
            {   # A U2F authenticator: no aaguid, skipped.
                "attestationCertificateKeyIdentifiers": ["bf7bcaa0d0c6187a8c6abbdd16a15640e7c7bde2"],
                "statusReports": [{"status": "FIDO_CERTIFIED", "effectiveDate": "2025-02-01"}],
                "timeOfLastStatusChange": "2025-02-01",
            },
            entry(BROKEN_ROOT, ["bm90IGEgY2VydGlmaWNhdGU="], [("FIDO_CERTIFIED_L1", "2025-02-01")]),
        ],
    }


def main() -> None:
    # The Metadata Service side.
    mds_root_key = ec.generate_private_key(ec.SECP256R1())
    mds_root = root("Passkey Server Test MDS Root", mds_root_key)
    intermediate_key = ec.generate_private_key(ec.SECP256R1())
    intermediate = certificate(name("Passkey Server Test MDS CA"), intermediate_key.public_key(),
                               mds_root.subject, mds_root_key, ca=True)
    rsa_signer_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    rsa_signer = certificate(name("mds.test.invalid"), rsa_signer_key.public_key(),
                             intermediate.subject, intermediate_key, ca=False)
    ec_signer_key = ec.generate_private_key(ec.SECP256R1())
    ec_signer = certificate(name("mds-es256.test.invalid"), ec_signer_key.public_key(),
                            mds_root.subject, mds_root_key, ca=False)
    # A look-alike: same subject names, other keys.
    other_root_key = ec.generate_private_key(ec.SECP256R1())
    other_root = root("Passkey Server Test MDS Root", other_root_key)
    other_intermediate_key = ec.generate_private_key(ec.SECP256R1())
    other_intermediate = certificate(name("Passkey Server Test MDS CA"), other_intermediate_key.public_key(),
                                     other_root.subject, other_root_key, ca=True)
    other_signer_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other_signer = certificate(name("mds.test.invalid"), other_signer_key.public_key(),
                               other_intermediate.subject, other_intermediate_key, ca=False)

    # The authenticator side: root (listed in the BLOB) -> intermediate -> leaf per model.
    attestation_root_key = ec.generate_private_key(ec.SECP256R1())
    attestation_root = root("Passkey Server Test Attestation Root", attestation_root_key)
    attestation_intermediate_key = ec.generate_private_key(ec.SECP256R1())
    attestation_intermediate = certificate(name("Passkey Server Test Attestation CA"),
                                           attestation_intermediate_key.public_key(),
                                           attestation_root.subject, attestation_root_key, ca=True)
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = certificate(name("Passkey Server Test Key", ou="Authenticator Attestation"), leaf_key.public_key(),
                       attestation_intermediate.subject, attestation_intermediate_key, ca=False, aaguid=GOOD)
    revoked_leaf_key = ec.generate_private_key(ec.SECP256R1())
    revoked_leaf = certificate(name("Passkey Server Revoked Key", ou="Authenticator Attestation"),
                               revoked_leaf_key.public_key(), attestation_intermediate.subject,
                               attestation_intermediate_key, ca=False, aaguid=REVOKED)

    write_pem("mds-root.pem", mds_root, "Test Metadata Service root (generate_mds.py).")
    write_pem("mds-signer.pem", ec_signer, "ES256 BLOB signer issued by mds-root (generate_mds.py).")
    write_key("mds-signer-key.pem", ec_signer_key)
    write_pem("other-root.pem", other_root, "An unrelated root with the MDS root's name (generate_mds.py).")
    write_pem("attestation-root.pem", attestation_root, "Test attestation root, listed in the BLOB (generate_mds.py).")
    write_pem("attestation-intermediate.pem", attestation_intermediate, "Test attestation intermediate (generate_mds.py).")
    write_pem("attestation-leaf.pem", leaf, f"Packed attestation leaf for AAGUID {GOOD} (generate_mds.py).")
    write_key("attestation-leaf-key.pem", leaf_key)
    write_pem("revoked-leaf.pem", revoked_leaf, f"Packed attestation leaf for AAGUID {REVOKED} (generate_mds.py).")
    write_key("revoked-leaf-key.pem", revoked_leaf_key)

    good_payload = payload(NEXT_UPDATE, attestation_root)
    rs256_header = {"alg": "RS256", "typ": "JWT", "x5c": [b64(der(rsa_signer)), b64(der(intermediate))]}
    good = jws(rs256_header, good_payload, rsa_signer_key)
    blobs = {
        "good.jwt": good,
        "good-es256.jwt": jws({"alg": "ES256", "typ": "JWT", "x5c": [b64(der(ec_signer))]}, good_payload, ec_signer_key),
        "root-signed.jwt": jws({"alg": "ES256", "typ": "JWT"}, good_payload, mds_root_key),
        "other-root.jwt": jws({"alg": "RS256", "typ": "JWT",
                               "x5c": [b64(der(other_signer)), b64(der(other_intermediate))]},
                              good_payload, other_signer_key),
        "stale.jwt": jws(rs256_header, payload(STALE_NEXT_UPDATE, attestation_root), rsa_signer_key),
        "alg-none.jwt": jws({"alg": "none", "typ": "JWT", "x5c": rs256_header["x5c"]}, good_payload, None),
        "alg-mismatch.jwt": jws({"alg": "ES256", "typ": "JWT", "x5c": rs256_header["x5c"]}, good_payload,
                                ec_signer_key),
    }
    head, body, signature = good.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[len(raw) // 2] ^= 0x01
    blobs["bad-signature.jwt"] = f"{head}.{body}.{b64url(bytes(raw))}"
    for file, text in blobs.items():
        (HERE / file).write_text(text + "\n")

    expected = {
        "number": 42,
        "nextUpdate": NEXT_UPDATE,
        "staleNextUpdate": STALE_NEXT_UPDATE,
        "entryCount": 4,   # the U2F entry has no AAGUID
        "aaguids": {"good": str(GOOD), "revoked": str(REVOKED), "plain": str(PLAIN), "brokenRoot": str(BROKEN_ROOT)},
        "descriptions": {str(k): v for k, v in DESCRIPTIONS.items()},
        "revokedSince": "2025-06-01",
    }
    (HERE / "mds.json").write_text(json.dumps(expected, indent=2) + "\n")


if __name__ == "__main__":
    main()
