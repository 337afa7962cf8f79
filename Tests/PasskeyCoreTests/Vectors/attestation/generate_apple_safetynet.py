#!/usr/bin/env python3
"""Registration vectors for the `apple`, `android-safetynet` and `compound` attestation formats.

Writes, next to this file:
  apple.json              Apple Anonymous attestation (WebAuthn L3 §8.8)
  android-safetynet.json  Android SafetyNet attestation (WebAuthn L3 §8.5)
  compound.json           Compound attestation (WebAuthn L3 §8.9)

Every vector has the schema of ../registration.json (made by ../generate.py, whose deterministic
keys, Reg ceremony builder and JSON helpers are reused here) plus "violates": the one requirement
a negative vector breaks ([] for accepted ones). A small reference verifier in this file checks
each vector before it is written: accepted vectors pass every check, and each negative vector
fails exactly the requirement it names and nothing else.

The PKI is made here: one test root, and under it a CA per format (Apple WebAuthn CA, a Google
Trust Services-like CA for SafetyNet, a packed attestation CA); a second, unanchored root serves
the "one chain does not reach an anchor" compound vector. Fixed validity 2025-01-01..2035-01-01;
vectors are checked at "now" = 2026-06-01T00:00:00Z (SafetyNet timestamps are relative to it).

Run:  python3 Tests/PasskeyCoreTests/Vectors/attestation/generate_apple_safetynet.py
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True            # keep __pycache__ out of the test resources
sys.path.insert(0, str(HERE.parent))
import generate as g                       # noqa: E402  (../generate.py)

import cbor2                               # noqa: E402
from cryptography import x509              # noqa: E402
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

GENERATOR = "Tests/PasskeyCoreTests/Vectors/attestation/generate_apple_safetynet.py"
UTC = dt.timezone.utc
NOW = dt.datetime.fromisoformat(g.NOW.replace("Z", "+00:00"))
NOW_MS = int(NOW.timestamp()) * 1000
ES256, RS256 = g.ES256, g.RS256

# Apple anonymous attestation nonce extension (§8.8 step 4).
OID_APPLE_NONCE = x509.ObjectIdentifier("1.2.840.113635.100.8.2")
SAFETYNET_HOST = "attest.android.com"

AAGUID_APPLE = g.det("aaguid/apple", 16)
AAGUID_SAFETYNET = g.det("aaguid/android-safetynet", 16)
AAGUID_COMPOUND = g.det("aaguid/compound", 16)


def sha256(data: bytes) -> bytes:
    return g.sha256(data)


def dn(**attrs: str) -> x509.Name:
    oids = {"C": NameOID.COUNTRY_NAME, "ST": NameOID.STATE_OR_PROVINCE_NAME, "L": NameOID.LOCALITY_NAME,
            "O": NameOID.ORGANIZATION_NAME, "OU": NameOID.ORGANIZATIONAL_UNIT_NAME, "CN": NameOID.COMMON_NAME}
    return x509.Name([x509.NameAttribute(oids[k], v) for k, v in attrs.items()])


# --------------------------------------------------------------------------------------------
# Test PKI
# --------------------------------------------------------------------------------------------

class PKI:
    def __init__(self) -> None:
        self.root_key = g.det_ec_key("attestation/root", 1)
        self.root_name = dn(C="US", O="Passkey Server Tests", CN="Passkey Server Attestation Test Root")
        self.root = g.make_cert("attestation/root", self.root_name, self.root_key.public_key(), self.root_name,
                                self.root_key, ca=True)
        other_key = g.det_ec_key("attestation/other-root", 1)
        self.other_root_key = other_key
        self.other_root_name = dn(C="US", O="Somebody Else", CN="Unanchored Test Root")
        self.other_root = g.make_cert("attestation/other-root", self.other_root_name, other_key.public_key(),
                                      self.other_root_name, other_key, ca=True)
        self.cas: dict[str, tuple[x509.Certificate, Any]] = {}
        for label, name, (issuer, issuer_name, issuer_key) in [
            ("apple", dn(O="Apple Inc.", ST="California", CN="Test Apple WebAuthn CA 1"),
             (self.root, self.root_name, self.root_key)),
            ("apple-other", dn(O="Apple Inc.", ST="California", CN="Test Apple WebAuthn CA 1 (unanchored)"),
             (self.other_root, self.other_root_name, self.other_root_key)),
            ("safetynet", dn(C="US", O="Test Trust Services LLC", CN="Test GTS CA 1D4"),
             (self.root, self.root_name, self.root_key)),
            ("packed", dn(C="US", O="Passkey Server Tests", CN="Passkey Server Packed Attestation CA"),
             (self.root, self.root_name, self.root_key)),
        ]:
            key = g.det_ec_key(f"attestation/ca/{label}", 1)
            cert = g.make_cert(f"attestation/ca/{label}", name, key.public_key(), issuer_name, issuer_key,
                               ca=True, path_length=0, issuer_public_key=issuer_key.public_key())
            self.cas[label] = (cert, key)

    def leaf(self, label: str, ca: str, subject: x509.Name, public_key: Any,
             extensions: list[tuple[x509.ExtensionType, bool]], *,
             valid_until: dt.datetime = g.VALID_UNTIL) -> x509.Certificate:
        ca_cert, ca_key = self.cas[ca]
        b = (x509.CertificateBuilder()
             .subject_name(subject).issuer_name(ca_cert.subject).public_key(public_key)
             .serial_number(g.serial(f"attestation/leaf/{label}"))
             .not_valid_before(g.VALID_FROM).not_valid_after(valid_until)
             .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
             .add_extension(g.key_usage(signer=False), critical=True)
             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False))
        for extension, critical in extensions:
            b = b.add_extension(extension, critical=critical)
        return b.sign(ca_key, hashes.SHA256(), ecdsa_deterministic=True)


# --------------------------------------------------------------------------------------------
# apple (§8.8)
# --------------------------------------------------------------------------------------------

def apple_nonce_extension_value(nonce: bytes) -> bytes:
    """SEQUENCE { [1] EXPLICIT OCTET STRING nonce } (32-byte nonce: every length is short form)."""
    octets = b"\x04" + bytes([len(nonce)]) + nonce
    tagged = b"\xa1" + bytes([len(octets)]) + octets
    return b"\x30" + bytes([len(tagged)]) + tagged


def apple_statement(pki: PKI, label: str, ad: bytes, cdj: bytes, cred_public_key: Any, *,
                    extension_value: bytes | None | str = "correct", ca: str = "apple") -> dict[str, Any]:
    if extension_value == "correct":
        extension_value = apple_nonce_extension_value(sha256(ad + sha256(cdj)))
    extensions = [] if extension_value is None else [
        (x509.UnrecognizedExtension(OID_APPLE_NONCE, extension_value), False)]
    subject = dn(CN=sha256(label.encode()).hex(), OU="AAA Certification", O="Apple Inc.", ST="California")
    leaf = pki.leaf(f"apple/{label}", ca, subject, cred_public_key, extensions)
    return {"x5c": [g.der(leaf), g.der(pki.cas[ca][0])]}


# --------------------------------------------------------------------------------------------
# android-safetynet (§8.5)
# --------------------------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return g.b64url(data)


def jws_signature(key: Any, alg: str, signing_input: bytes) -> bytes:
    if alg == "RS256":
        return key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    if alg == "ES256":      # JWS ES256: r ‖ s, 32 bytes each (RFC 7518 §3.4)
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")
    raise ValueError(alg)


class SafetyNetLeaf:
    def __init__(self, pki: PKI, label: str, alg: str, *, san: list[str] | None = (SAFETYNET_HOST,),
                 cn: str = SAFETYNET_HOST) -> None:
        self.alg = alg
        self.key = g.det_rsa_key(f"safetynet/{label}") if alg == "RS256" else g.det_ec_key(f"safetynet/{label}", 1)
        extensions = [] if san is None else [
            (x509.SubjectAlternativeName([x509.DNSName(n) for n in san]), False)]
        subject = dn(C="US", ST="California", L="Mountain View", O="Google LLC", CN=cn)
        self.cert = pki.leaf(f"safetynet/{label}", "safetynet", subject, self.key.public_key(), extensions)
        self.chain = [self.cert, pki.cas["safetynet"][0]]


def safetynet_payload(ad: bytes, cdj: bytes, *, nonce_over: bytes | None = None, cts: bool = True,
                      timestamp_ms: int = NOW_MS - 5_000) -> dict[str, Any]:
    nonce = sha256(nonce_over if nonce_over is not None else ad + sha256(cdj))
    return {
        "nonce": base64.b64encode(nonce).decode("ascii"),
        "timestampMs": timestamp_ms,
        "apkPackageName": "com.google.android.gms",
        "apkDigestSha256": base64.b64encode(sha256(b"test apk")).decode("ascii"),
        "ctsProfileMatch": cts,
        "apkCertificateDigestSha256": [base64.b64encode(sha256(b"test apk certificate")).decode("ascii")],
        "basicIntegrity": True,
        "evaluationType": "BASIC,HARDWARE_BACKED",
    }


def compact_json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def safetynet_jws(leaf: SafetyNetLeaf, payload: dict[str, Any], *, header: dict[str, Any] | None = None,
                  corrupt_signature: bool = False, der_signature: bool = False) -> str:
    if header is None:
        header = {"alg": leaf.alg, "x5c": [base64.b64encode(g.der(c)).decode("ascii") for c in leaf.chain]}
    signing_input = (b64url(compact_json(header)) + "." + b64url(compact_json(payload))).encode("ascii")
    if der_signature:
        signature = leaf.key.sign(signing_input, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    else:
        # A corrupted signature is made over other bytes, so it is well-formed but wrong.
        signature = jws_signature(leaf.key, leaf.alg, signing_input + (b"!" if corrupt_signature else b""))
    return signing_input.decode("ascii") + "." + b64url(signature)


def safetynet_statement(jws: str, ver: str = "231013044") -> dict[str, Any]:
    return {"ver": ver, "response": jws.encode("utf-8")}


# --------------------------------------------------------------------------------------------
# packed with x5c (§8.2), as a compound sub-statement
# --------------------------------------------------------------------------------------------

def packed_statement(pki: PKI, label: str, ad: bytes, cdj: bytes, aaguid: bytes, *,
                     valid_until: dt.datetime = g.VALID_UNTIL) -> dict[str, Any]:
    key = g.det_ec_key(f"attestation/packed/{label}", 1)
    extensions = [(x509.UnrecognizedExtension(g.OID_FIDO_AAGUID, b"\x04\x10" + aaguid), False)]
    leaf = pki.leaf(f"packed/{label}", "packed", g.name(), key.public_key(), extensions, valid_until=valid_until)
    sig = key.sign(ad + sha256(cdj), ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    return {"alg": ES256, "sig": sig, "x5c": [g.der(leaf), g.der(pki.cas["packed"][0])]}


# --------------------------------------------------------------------------------------------
# Reference verifier: which requirements a statement breaks (used only to check the vectors)
# --------------------------------------------------------------------------------------------

def load(der: bytes) -> x509.Certificate:
    return x509.load_der_x509_certificate(der)


def spki(public_key: Any) -> bytes:
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def ref_apple(st: Any, ad: bytes, cdh: bytes, cred_spki: bytes) -> list[str]:
    if not isinstance(st, dict) or set(st) != {"x5c"} or not st["x5c"]:
        return ["apple-syntax"]
    leaf = load(st["x5c"][0])
    failures = []
    try:
        value = leaf.extensions.get_extension_for_oid(OID_APPLE_NONCE).value.value
    except x509.ExtensionNotFound:
        failures.append("apple-nonce-extension-missing")
    else:
        prefix = b"\x30\x24\xa1\x22\x04\x20"
        if len(value) != 38 or value[:6] != prefix:
            failures.append("apple-nonce-extension-malformed")
        elif value[6:] != sha256(ad + cdh):
            failures.append("apple-nonce-mismatch")
    if spki(leaf.public_key()) != cred_spki:
        failures.append("apple-credential-key-mismatch")
    return failures


def strict_b64url(part: str) -> bytes | None:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", part):
        return None
    try:
        data = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except ValueError:
        return None
    return data if b64url(data) == part else None


def ref_safetynet(st: Any, ad: bytes, cdh: bytes) -> list[str]:
    if not isinstance(st, dict) or set(st) != {"ver", "response"}:
        return ["safetynet-syntax"]
    failures = []
    if not isinstance(st["ver"], str) or not st["ver"]:
        failures.append("safetynet-ver")
    parts = st["response"].decode("utf-8").split(".")
    decoded = [strict_b64url(p) for p in parts]
    if len(parts) != 3 or any(d is None for d in decoded):
        return failures + ["safetynet-jws-syntax"]
    header, payload = json.loads(decoded[0]), json.loads(decoded[1])
    if header.get("alg") not in ("RS256", "ES256") or not header.get("x5c"):
        return failures + ["safetynet-jws-syntax"]
    chain = [load(base64.b64decode(c, validate=True)) for c in header["x5c"]]
    leaf = chain[0]
    signing_input = (parts[0] + "." + parts[1]).encode("ascii")
    try:
        if header["alg"] == "RS256":
            leaf.public_key().verify(decoded[2], signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            if len(decoded[2]) != 64:
                raise InvalidSignature()
            r, s = int.from_bytes(decoded[2][:32], "big"), int.from_bytes(decoded[2][32:], "big")
            leaf.public_key().verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, TypeError):
        failures.append("safetynet-jws-signature")
    try:
        names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
            x509.DNSName)
    except x509.ExtensionNotFound:
        names = [a.value for a in leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    if SAFETYNET_HOST not in [n.lower() for n in names]:
        failures.append("safetynet-hostname")
    if payload["nonce"] != base64.b64encode(sha256(ad + cdh)).decode("ascii"):
        failures.append("safetynet-nonce")
    if payload["ctsProfileMatch"] is not True:
        failures.append("safetynet-cts-profile-match")
    if payload["timestampMs"] > NOW_MS + 60_000:
        failures.append("safetynet-timestamp-future")
    if payload["timestampMs"] < NOW_MS - 60_000:
        failures.append("safetynet-timestamp-too-old")
    return failures


def ref_packed(st: Any, ad: bytes, cdh: bytes, cred_spki: bytes) -> list[str]:
    signer = (load(st["x5c"][0]).public_key() if "x5c" in st
              else serialization.load_der_public_key(cred_spki))
    try:
        signer.verify(st["sig"], ad + cdh, ec.ECDSA(hashes.SHA256()))
        return []
    except InvalidSignature:
        return ["packed-signature"]


def ref_statement(fmt: str, st: Any, ad: bytes, cdh: bytes, cred_spki: bytes) -> list[str]:
    if fmt == "apple":
        return ref_apple(st, ad, cdh, cred_spki)
    if fmt == "android-safetynet":
        return ref_safetynet(st, ad, cdh)
    if fmt == "packed":
        return ref_packed(st, ad, cdh, cred_spki)
    if fmt == "compound":
        if not isinstance(st, list) or len(st) < 2:
            return ["compound-syntax"]
        failures = []
        for sub in st:
            if sub["fmt"] == "compound":
                failures.append("compound-nested")
            elif sub["fmt"] not in ("apple", "android-safetynet", "packed"):
                failures.append("compound-unknown-format")
            else:
                failures += ref_statement(sub["fmt"], sub["attStmt"], ad, cdh, cred_spki)
        return failures
    raise ValueError(fmt)


def trust_paths(fmt: str, st: Any) -> list[list[x509.Certificate]]:
    if fmt == "compound":
        return [p for sub in st for p in trust_paths(sub["fmt"], sub["attStmt"])]
    if fmt == "android-safetynet":
        header = json.loads(strict_b64url(st["response"].decode().split(".")[0]))
        return [[load(base64.b64decode(c)) for c in header["x5c"]]]
    return [[load(c) for c in st["x5c"]]] if "x5c" in st else []


def issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except (ValueError, TypeError, InvalidSignature):
        return False


def ref_trust(fmt: str, st: Any, anchors: list[x509.Certificate]) -> tuple[list[str], bool]:
    """Steps 23–24: (["certificate-not-valid-now"] or [], whether every path reaches an anchor)."""
    paths = trust_paths(fmt, st)
    for path in paths:
        for cert in path:
            if not cert.not_valid_before_utc <= NOW <= cert.not_valid_after_utc:
                return ["certificate-not-valid-now"], False
    trusted = bool(paths) and all(
        all(issued_by(c, p) for c, p in zip(path, path[1:])) and any(issued_by(path[-1], a) for a in anchors)
        for path in paths)
    return [], trusted


def check(vector: dict[str, Any]) -> None:
    resp = vector["response"]["response"]
    att = g.b64any(resp["attestationObject"])
    obj = cbor2.loads(att)
    assert g.cbor(obj) == att, vector["name"]
    ad, cdh = obj["authData"], sha256(g.b64any(resp["clientDataJSON"]))
    _, _, cose_bytes = g.parse_credential(ad)
    cred_spki = g.spki_from_cose(cbor2.loads(cose_bytes))
    failures = ref_statement(obj["fmt"], obj["attStmt"], ad, cdh, cred_spki)
    trusted = False
    if not failures:
        anchors = [x509.load_pem_x509_certificate(a.encode()) for a in vector["trust_anchors"]]
        failures, trusted = ref_trust(obj["fmt"], obj["attStmt"], anchors)
    assert failures == vector["violates"], f"{vector['name']}: breaks {failures}, expected {vector['violates']}"
    expect = vector["expect"]
    if expect["result"] == "accept":
        assert expect["attestation_trusted"] == trusted, f"{vector['name']}: trusted is {trusted}"
    else:
        assert failures, vector["name"]


# --------------------------------------------------------------------------------------------
# Vectors
# --------------------------------------------------------------------------------------------

def vector(r: g.Reg, description: str, fmt: str, att_stmt: Any, ad: bytes, cdj: bytes, *,
           violates: list[str], att_type: str = "", trusted: bool = False,
           anchors: list[x509.Certificate] | None = None, error: str = "invalid_attestation") -> dict[str, Any]:
    expect = (g.accept_reg(fmt, att_type, trusted, r.alg, r.cred_id, r.aaguid, r.flags, r.cose)
              if not violates else g.reject(error))
    v = g.reg_vector(r, description, g.attestation_object(fmt, att_stmt, ad), cdj, expect,
                     trust_anchors=anchors if anchors is not None else [])
    v["violates"] = violates
    check(v)
    return v


def apple_vectors(pki: PKI) -> list[dict[str, Any]]:
    out = []

    def case(name: str, description: str, violates: list[str], *, anchors: list[x509.Certificate] | None = None,
             trusted: bool = False, leaf_key: Any = None, extension: Any = None, **kw: Any) -> None:
        r = g.Reg(name, alg=ES256, fmt="apple", aaguid=AAGUID_APPLE)
        cdj, ad = r.client_data(), r.auth_data()
        key = leaf_key if leaf_key is not None else r.key.private.public_key()
        if extension is not None:
            kw["extension_value"] = extension(ad, cdj)
        st = apple_statement(pki, name, ad, cdj, key, **kw)
        out.append(vector(r, description, "apple", st, ad, cdj, violates=violates, att_type="anonca",
                          trusted=trusted, anchors=[pki.root] if anchors is None else anchors))

    case("apple-es256-trusted", "x5c = [credCert, Test Apple WebAuthn CA 1]; the test root is the anchor.", [],
         trusted=True)
    case("apple-es256-no-anchors", "A valid apple statement with no trust anchors: accepted, untrusted.", [],
         anchors=[])
    case("apple-es256-other-root", "A valid apple statement whose CA chains to a root that is not an anchor.", [],
         ca="apple-other")
    case("apple-nonce-mismatch", "The nonce extension holds SHA-256(authData ‖ a different clientDataHash).",
         ["apple-nonce-mismatch"],
         extension=lambda ad, cdj: apple_nonce_extension_value(sha256(ad + sha256(cdj + b" "))))
    case("apple-nonce-extension-missing", "credCert has no 1.2.840.113635.100.8.2 extension.",
         ["apple-nonce-extension-missing"], extension_value=None)
    # The right nonce, but tagged [1] IMPLICIT (0x81) instead of [1] EXPLICIT around an OCTET STRING.
    case("apple-nonce-extension-malformed",
         "The extension holds SEQUENCE { [1] IMPLICIT nonce } instead of SEQUENCE { [1] EXPLICIT OCTET STRING }.",
         ["apple-nonce-extension-malformed"],
         extension=lambda ad, cdj: b"\x30\x22\x81\x20" + sha256(ad + sha256(cdj)))
    case("apple-credential-key-mismatch", "credCert certifies a P-256 key other than the credential key.",
         ["apple-credential-key-mismatch"], leaf_key=g.det_ec_key("apple/unrelated-key", 1).public_key())
    return out


def safetynet_vectors(pki: PKI) -> list[dict[str, Any]]:
    out = []
    rs_leaf = SafetyNetLeaf(pki, "rs256", "RS256")
    es_leaf = SafetyNetLeaf(pki, "es256", "ES256")

    def case(name: str, description: str, violates: list[str], *, leaf: SafetyNetLeaf = rs_leaf,
             anchors: list[x509.Certificate] | None = None, trusted: bool = False, ver: str = "231013044",
             jws: Any = None, **payload_kw: Any) -> None:
        r = g.Reg(name, alg=ES256, fmt="android-safetynet", aaguid=AAGUID_SAFETYNET)
        cdj, ad = r.client_data(), r.auth_data()
        token = jws(leaf, ad, cdj) if jws is not None else safetynet_jws(leaf, safetynet_payload(ad, cdj, **payload_kw))
        out.append(vector(r, description, "android-safetynet", safetynet_statement(token, ver), ad, cdj,
                          violates=violates, att_type="basic", trusted=trusted,
                          anchors=[pki.root] if anchors is None else anchors))

    case("safetynet-rs256-trusted", "RS256 JWS by an attest.android.com leaf (SAN and CN); the test root is "
         "the anchor; timestampMs 5 s before now.", [], trusted=True)
    case("safetynet-es256-trusted", "ES256 JWS (r ‖ s signature) by a P-256 attest.android.com leaf.", [],
         leaf=es_leaf, trusted=True)
    case("safetynet-rs256-no-anchors", "A valid SafetyNet statement with no trust anchors: accepted, untrusted.",
         [], anchors=[])
    case("safetynet-cn-only-trusted", "Leaf without subjectAltName: the subject CN attest.android.com is used.",
         [], leaf=SafetyNetLeaf(pki, "cn-only", "RS256", san=None), trusted=True)
    case("safetynet-timestamp-55s-old", "timestampMs 55 s before now: inside the default 60 s window.", [],
         trusted=True, timestamp_ms=NOW_MS - 55_000)
    case("safetynet-timestamp-55s-ahead", "timestampMs 55 s after now: inside the default 60 s skew.", [],
         trusted=True, timestamp_ms=NOW_MS + 55_000)

    case("safetynet-bad-signature", "The JWS signature is over other bytes than header.payload.",
         ["safetynet-jws-signature"],
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj), corrupt_signature=True))
    case("safetynet-es256-der-signature", "ES256 JWS whose signature is DER instead of r ‖ s (RFC 7518 §3.4).",
         ["safetynet-jws-signature"], leaf=es_leaf,
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj), der_signature=True))
    case("safetynet-nonce-mismatch", "nonce is base64(SHA-256(authData ‖ a different clientDataHash)).",
         ["safetynet-nonce"],
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj, nonce_over=ad + sha256(cdj + b" "))))
    case("safetynet-nonce-base64url", "nonce is the right digest written in base64url without padding.",
         ["safetynet-nonce"],
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj) | {
             "nonce": b64url(sha256(ad + sha256(cdj)))}))
    case("safetynet-cts-profile-mismatch", "ctsProfileMatch is false.", ["safetynet-cts-profile-match"], cts=False)
    case("safetynet-timestamp-too-old", "timestampMs 120 s before now (default window: 60 s).",
         ["safetynet-timestamp-too-old"], timestamp_ms=NOW_MS - 120_000)
    case("safetynet-timestamp-in-future", "timestampMs 120 s after now (default skew: 60 s).",
         ["safetynet-timestamp-future"], timestamp_ms=NOW_MS + 120_000)
    case("safetynet-hostname-wrong", "Leaf issued to attest.android.com.evil.example (SAN and CN).",
         ["safetynet-hostname"], leaf=SafetyNetLeaf(pki, "wrong-host", "RS256", san=["attest.android.com.evil.example"],
                                                    cn="attest.android.com.evil.example"))
    case("safetynet-hostname-san-wins-over-cn", "Leaf CN is attest.android.com but its SAN names only "
         "evil.example: with a SAN present the CN is not consulted.", ["safetynet-hostname"],
         leaf=SafetyNetLeaf(pki, "san-other", "RS256", san=["evil.example"]))
    case("safetynet-jws-two-parts", "response is 'header.payload' (no signature part).", ["safetynet-jws-syntax"],
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj)).rsplit(".", 1)[0])
    case("safetynet-jws-bad-base64", "The JWS header part contains '*', which is not base64url.",
         ["safetynet-jws-syntax"],
         jws=lambda leaf, ad, cdj: "*" + safetynet_jws(leaf, safetynet_payload(ad, cdj))[1:])
    case("safetynet-jws-padded-base64", "The JWS payload part carries '=' padding (JWS base64url has none).",
         ["safetynet-jws-syntax"],
         jws=lambda leaf, ad, cdj: _padded_payload(safetynet_jws(leaf, safetynet_payload(ad, cdj, timestamp_ms=NOW_MS - 4_000))))
    case("safetynet-jws-header-without-x5c", "The JWS header is {alg: RS256} without x5c (correctly signed).",
         ["safetynet-jws-syntax"],
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj), header={"alg": "RS256"}))
    case("safetynet-jws-empty-x5c", "The JWS header's x5c is an empty array (correctly signed).",
         ["safetynet-jws-syntax"],
         jws=lambda leaf, ad, cdj: safetynet_jws(leaf, safetynet_payload(ad, cdj), header={"alg": "RS256", "x5c": []}))
    case("safetynet-jws-alg-none", "The JWS header says alg none.", ["safetynet-jws-syntax"],
         jws=lambda leaf, ad, cdj: _alg_none(leaf, safetynet_payload(ad, cdj)))
    case("safetynet-ver-empty", "attStmt.ver is the empty string.", ["safetynet-ver"], ver="")
    return out


def _padded_payload(token: str) -> str:
    header, payload, signature = token.split(".")
    assert len(payload) % 4 != 0, "choose a payload whose base64url needs padding"
    return ".".join([header, payload + "=" * (-len(payload) % 4), signature])


def _alg_none(leaf: SafetyNetLeaf, payload: dict[str, Any]) -> str:
    header = {"alg": "none", "x5c": [base64.b64encode(g.der(c)).decode("ascii") for c in leaf.chain]}
    return b64url(compact_json(header)) + "." + b64url(compact_json(payload)) + "."


def compound_vectors(pki: PKI) -> list[dict[str, Any]]:
    out = []

    def case(name: str, description: str, violates: list[str], subs: Any, *, trusted: bool = False,
             anchors: list[x509.Certificate] | None = None, att_type: str = "basic") -> None:
        r = g.Reg(name, alg=ES256, fmt="compound", aaguid=AAGUID_COMPOUND)
        cdj, ad = r.client_data(), r.auth_data()
        key = r.key.private.public_key()
        parts = subs(r, ad, cdj, key)
        out.append(vector(r, description, "compound", parts, ad, cdj, violates=violates, att_type=att_type,
                          trusted=trusted, anchors=[pki.root] if anchors is None else anchors))

    def packed(r: g.Reg, ad: bytes, cdj: bytes, **kw: Any) -> dict[str, Any]:
        return {"fmt": "packed", "attStmt": packed_statement(pki, r.name, ad, cdj, r.aaguid, **kw)}

    def apple(r: g.Reg, ad: bytes, cdj: bytes, key: Any, **kw: Any) -> dict[str, Any]:
        return {"fmt": "apple", "attStmt": apple_statement(pki, r.name, ad, cdj, key, **kw)}

    case("compound-packed-apple-trusted", "[packed with x5c, apple]: both chains reach the test root; the "
         "outcome's type is the first sub-statement's (basic).", [],
         lambda r, ad, cdj, key: [packed(r, ad, cdj), apple(r, ad, cdj, key)], trusted=True)
    case("compound-packed-apple-no-anchors", "[packed with x5c, apple] and no anchors: accepted, untrusted.", [],
         lambda r, ad, cdj, key: [packed(r, ad, cdj), apple(r, ad, cdj, key)], anchors=[])
    case("compound-apple-packed-trusted", "[apple, packed with x5c]: type anonca, both chains anchored.", [],
         lambda r, ad, cdj, key: [apple(r, ad, cdj, key), packed(r, ad, cdj)], trusted=True, att_type="anonca")
    case("compound-packed-self-apple-trusted", "[packed self attestation, apple]: the self attestation has no "
         "trust path, so only the apple path is assessed; it reaches the anchor. Type: self (the first).", [],
         lambda r, ad, cdj, key: [{"fmt": "packed", "attStmt": {"alg": ES256, "sig": r.key.sign(ad + sha256(cdj))}},
                                  apple(r, ad, cdj, key)], trusted=True, att_type="self")
    case("compound-packed-self-twice-untrusted", "[packed self, packed self]: valid, but with no trust path at "
         "all it is not trusted, anchors or not.", [],
         lambda r, ad, cdj, key: [{"fmt": "packed", "attStmt": {"alg": ES256, "sig": r.key.sign(ad + sha256(cdj))}}] * 2,
         att_type="self")
    case("compound-one-chain-unanchored", "[packed, apple] where only the packed chain reaches an anchor: "
         "every trust path must, so untrusted.", [],
         lambda r, ad, cdj, key: [packed(r, ad, cdj), apple(r, ad, cdj, key, ca="apple-other")])
    case("compound-sub-certificate-expired", "[apple, packed] whose packed leaf expired 2026-01-01: every "
         "sub-statement's trust path must be valid now.", ["certificate-not-valid-now"],
         lambda r, ad, cdj, key: [apple(r, ad, cdj, key),
                                  packed(r, ad, cdj, valid_until=dt.datetime(2026, 1, 1, tzinfo=UTC))])
    case("compound-bad-sub-statement", "[packed, apple] whose apple credCert certifies another key.",
         ["apple-credential-key-mismatch"],
         lambda r, ad, cdj, key: [packed(r, ad, cdj),
                                  apple(r, ad, cdj, g.det_ec_key("compound/unrelated-key", 1).public_key())])
    case("compound-single-sub-statement", "A compound statement with only one sub-statement (apple).",
         ["compound-syntax"], lambda r, ad, cdj, key: [apple(r, ad, cdj, key)])
    case("compound-nested", "[packed, compound[packed, apple]]: compound may not nest.", ["compound-nested"],
         lambda r, ad, cdj, key: [packed(r, ad, cdj),
                                  {"fmt": "compound", "attStmt": [packed(r, ad, cdj), apple(r, ad, cdj, key)]}])
    case("compound-unknown-sub-format", "[packed, {fmt: 'x-unknown', attStmt: {}}].", ["compound-unknown-format"],
         lambda r, ad, cdj, key: [packed(r, ad, cdj), {"fmt": "x-unknown", "attStmt": {}}])
    case("compound-not-an-array", "fmt compound with a map attStmt (the packed statement itself).",
         ["compound-syntax"], lambda r, ad, cdj, key: packed(r, ad, cdj)["attStmt"])
    return out


def main() -> int:
    pki = PKI()
    files = {"apple.json": apple_vectors(pki), "android-safetynet.json": safetynet_vectors(pki),
             "compound.json": compound_vectors(pki)}
    for file_name, vectors in files.items():
        names = [v["name"] for v in vectors]
        assert len(names) == len(set(names)), file_name
        g.write_json(HERE / file_name, {"generator": GENERATOR, "vectors": vectors})
        print(f"{file_name}: {len(vectors)} vectors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
