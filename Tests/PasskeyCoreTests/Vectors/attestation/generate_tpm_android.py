#!/usr/bin/env python3
"""Generator of `tpm` and `android-key` attestation vectors for the Passkey Server verifier.

Writes, next to this file:
  tpm.json          registrations with fmt "tpm" (WebAuthn L3 §8.3, §8.3.1)
  android-key.json  registrations with fmt "android-key" (WebAuthn L3 §8.4)

The TPM structures (TPMT_PUBLIC, TPMS_ATTEST; TPM 2.0 Library Part 2) and the Android
KeyDescription extension (OID 1.3.6.1.4.1.11129.2.1.17, as documented at
developer.android.com/privacy-and-security/security-key-attestation) are encoded here byte by
byte; certificates are made with pyca/cryptography (the KeyDescription through
x509.UnrecognizedExtension). One test PKI: root CA <- intermediate CA <- AIK / Android leaf.

Every vector is a complete RegistrationResponseJSON. An accepted vector is verified here with
cryptography (signatures, chain) before it is written. Each rejected vector breaks exactly one
requirement of the format and is otherwise re-signed and consistent, so a verifier that skips
that one check accepts it.

Deterministic: keys come from HKDF-SHA-256 over a fixed seed (RSA primes searched from seeded
candidates), ECDSA uses RFC 6979 nonces, RSA signatures are PKCS#1 v1.5. Running the script twice
gives the same bytes.

Needs Python 3.11+, cryptography >= 44 (deterministic ECDSA) and cbor2.
Run:  python3 Tests/PasskeyCoreTests/Vectors/attestation/generate_tpm_android.py
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import itertools
import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HERE = Path(__file__).resolve().parent
GENERATOR = "Tests/PasskeyCoreTests/Vectors/attestation/generate_tpm_android.py"

RP_ID = "example.org"
ORIGIN = "https://example.org"
NOW = "2026-06-01T00:00:00Z"
UTC = dt.timezone.utc
VALID_FROM = dt.datetime(2025, 1, 1, tzinfo=UTC)
VALID_UNTIL = dt.datetime(2035, 1, 1, tzinfo=UTC)

UP, UV, AT = 0x01, 0x04, 0x40
ES256, RS256, RS1 = -7, -257, -65535
OFFERED = [ES256, RS256]

OID_FIDO_AAGUID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")
OID_TPM_MANUFACTURER = x509.ObjectIdentifier("2.23.133.2.1")
OID_TPM_MODEL = x509.ObjectIdentifier("2.23.133.2.2")
OID_TPM_VERSION = x509.ObjectIdentifier("2.23.133.2.3")
OID_TCG_KP_AIK_CERTIFICATE = x509.ObjectIdentifier("2.23.133.8.3")
OID_ANDROID_KEY_DESCRIPTION = x509.ObjectIdentifier("1.3.6.1.4.1.11129.2.1.17")


# --------------------------------------------------------------------------------------------
# Encoding helpers
# --------------------------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def cbor(value: Any) -> bytes:
    return cbor2.dumps(value, canonical=True)


def der(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


def pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


# DER (X.690), enough for the KeyDescription and for re-encoding a TBSCertificate.

def der_length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    octets = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(octets)]) + octets


def identifier(tag_class: int, constructed: bool, number: int) -> bytes:
    """Identifier octets; numbers >= 31 use the high-tag-number form (X.690 §8.1.2.4)."""
    first = (tag_class << 6) | (0x20 if constructed else 0)
    if number < 31:
        return bytes([first | number])
    groups = []
    while True:
        groups.insert(0, number & 0x7F)
        number >>= 7
        if number == 0:
            break
    return bytes([first | 0x1F]) + bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])


def tlv(ident: bytes, content: bytes) -> bytes:
    return ident + der_length(len(content)) + content


def der_integer(value: int, tag: int = 0x02) -> bytes:
    length = max(1, (value.bit_length() + 8) // 8)      # room for the sign bit
    return tlv(bytes([tag]), value.to_bytes(length, "big", signed=True))


def der_enumerated(value: int) -> bytes:
    return der_integer(value, tag=0x0A)


def der_octets(data: bytes) -> bytes:
    return tlv(b"\x04", data)


def der_null() -> bytes:
    return b"\x05\x00"


def der_boolean(value: bool) -> bytes:
    return b"\x01\x01" + (b"\xff" if value else b"\x00")


def der_sequence(*items: bytes) -> bytes:
    return tlv(b"\x30", b"".join(items))


def der_set_of(items: list[bytes]) -> bytes:
    return tlv(b"\x31", b"".join(sorted(items)))      # DER: SET OF sorted by encoding


def explicit(number: int, inner: bytes) -> bytes:
    """[number] EXPLICIT, context-specific."""
    return tlv(identifier(2, True, number), inner)


def der_read(data: bytes, offset: int = 0) -> tuple[int, int, int]:
    """(identifier octet, content start, content end) of the single-octet-tag TLV at offset."""
    tag = data[offset]
    first = data[offset + 1]
    if first < 0x80:
        return tag, offset + 2, offset + 2 + first
    count = first & 0x7F
    length = int.from_bytes(data[offset + 2: offset + 2 + count], "big")
    start = offset + 2 + count
    return tag, start, start + length


def der_children(data: bytes) -> list[bytes]:
    """The encoded elements inside the constructed TLV that is all of data."""
    _, start, end = der_read(data)
    out, offset = [], start
    while offset < end:
        _, s, e = der_read(data, offset)
        out.append(data[offset:e])
        offset = e
    return out


# --------------------------------------------------------------------------------------------
# Deterministic keys
# --------------------------------------------------------------------------------------------

SEED = b"Passkey Server tpm/android-key attestation vectors v1"


def det(label: str, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=label.encode()).derive(SEED)


def det_ec_key(label: str) -> ec.EllipticCurvePrivateKey:
    for i in itertools.count():
        scalar = int.from_bytes(det(f"{label}/{i}", 32), "big")
        try:
            return ec.derive_private_key(scalar, ec.SECP256R1())
        except ValueError:
            continue
    raise AssertionError("unreachable")


_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


def _is_probable_prime(n: int) -> bool:
    for p in _SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _SMALL_PRIMES[:40]:                    # fixed bases: deterministic, error < 4^-40
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def det_prime(label: str, bits: int, e: int = 65537) -> int:
    for i in itertools.count():
        c = int.from_bytes(det(f"{label}/{i}", bits // 8), "big") | (3 << (bits - 2)) | 1
        if (c - 1) % e != 0 and _is_probable_prime(c):
            return c
    raise AssertionError("unreachable")


def det_rsa_key(label: str, bits: int = 2048) -> rsa.RSAPrivateKey:
    e = 65537
    p, q = det_prime(f"{label}/p", bits // 2), det_prime(f"{label}/q", bits // 2)
    d = rsa.rsa_recover_private_exponent(e, p, q)
    return rsa.RSAPrivateNumbers(
        p=p, q=q, d=d, dmp1=rsa.rsa_crt_dmp1(d, p), dmq1=rsa.rsa_crt_dmq1(d, q),
        iqmp=rsa.rsa_crt_iqmp(p, q), public_numbers=rsa.RSAPublicNumbers(e, p * q)).private_key()


def sign(key: Any, alg: int, data: bytes) -> bytes:
    """A COSE-algorithm signature (WebAuthn L3 §6.5.5: ECDSA as DER Ecdsa-Sig-Value)."""
    if alg == ES256:
        return key.sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    if alg == RS256:
        return key.sign(data, padding.PKCS1v15(), hashes.SHA256())
    if alg == RS1:
        return key.sign(data, padding.PKCS1v15(), hashes.SHA1())
    raise ValueError(alg)


def verify(public_key: Any, alg: int, sig: bytes, data: bytes) -> None:
    if alg == ES256:
        public_key.verify(sig, data, ec.ECDSA(hashes.SHA256()))
    elif alg == RS256:
        public_key.verify(sig, data, padding.PKCS1v15(), hashes.SHA256())
    elif alg == RS1:
        public_key.verify(sig, data, padding.PKCS1v15(), hashes.SHA1())
    else:
        raise ValueError(alg)


def alg_hash(alg: int) -> Any:
    return {ES256: hashlib.sha256, RS256: hashlib.sha256, RS1: hashlib.sha1}[alg]


def cose_key(public_key: Any, alg: int) -> bytes:
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        nums = public_key.public_numbers()
        return cbor({1: 2, 3: alg, -1: 1, -2: nums.x.to_bytes(32, "big"), -3: nums.y.to_bytes(32, "big")})
    nums = public_key.public_numbers()
    return cbor({1: 3, 3: alg, -1: nums.n.to_bytes((nums.n.bit_length() + 7) // 8, "big"),
                 -2: nums.e.to_bytes((nums.e.bit_length() + 7) // 8, "big")})


# --------------------------------------------------------------------------------------------
# Test PKI
# --------------------------------------------------------------------------------------------

def serial(label: str) -> int:
    return (int.from_bytes(det(f"{label}/serial", 16), "big") >> 1) | 1


def ca_name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Passkey Server Tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def key_usage(*, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(digital_signature=not ca, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                         encipher_only=False, decipher_only=False)


class PKI:
    """Root CA <- intermediate CA, both P-256 / ECDSA-SHA256; leaves are issued by the intermediate."""

    def __init__(self) -> None:
        self.root_key = det_ec_key("pki/root")
        self.root_name = ca_name("Passkey Server Test Attestation Root")
        self.root = (x509.CertificateBuilder()
                     .subject_name(self.root_name).issuer_name(self.root_name)
                     .public_key(self.root_key.public_key()).serial_number(serial("pki/root"))
                     .not_valid_before(VALID_FROM).not_valid_after(VALID_UNTIL)
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(key_usage(ca=True), critical=True)
                     .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.root_key.public_key()), False)
                     .sign(self.root_key, hashes.SHA256(), ecdsa_deterministic=True))
        self.int_key = det_ec_key("pki/intermediate")
        self.int_name = ca_name("Passkey Server Test TPM and Android Attestation CA")
        self.intermediate = (x509.CertificateBuilder()
                             .subject_name(self.int_name).issuer_name(self.root_name)
                             .public_key(self.int_key.public_key()).serial_number(serial("pki/intermediate"))
                             .not_valid_before(VALID_FROM).not_valid_after(VALID_UNTIL)
                             .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                             .add_extension(key_usage(ca=True), critical=True)
                             .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.int_key.public_key()), False)
                             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                                 self.root_key.public_key()), False)
                             .sign(self.root_key, hashes.SHA256(), ecdsa_deterministic=True))

    def issue(self, builder: x509.CertificateBuilder, label: str, public_key: Any) -> x509.Certificate:
        return (builder.issuer_name(self.int_name).public_key(public_key).serial_number(serial(label))
                .not_valid_before(VALID_FROM).not_valid_after(VALID_UNTIL)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.int_key.public_key()), False)
                .sign(self.int_key, hashes.SHA256(), ecdsa_deterministic=True))

    def resign_as_v1(self, cert: x509.Certificate) -> x509.Certificate:
        """The same certificate with the TBSCertificate's [0] version field removed (X.509 v1),
        re-signed by the intermediate. cryptography only writes v3, so the TBS is re-encoded here;
        the extensions stay, so the certificate differs from a valid AIK only in its version."""
        tbs = cert.tbs_certificate_bytes
        fields = der_children(tbs)
        assert fields[0][0] == 0xA0, "expected an explicit [0] version"
        tbs_v1 = der_sequence(*fields[1:])
        signature = self.int_key.sign(tbs_v1, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
        algorithm = der_children(der(cert))[1]
        v1 = x509.load_der_x509_certificate(der_sequence(tbs_v1, algorithm, tlv(b"\x03", b"\x00" + signature)))
        assert v1.version == x509.Version.v1
        v1.verify_directly_issued_by(self.intermediate)
        return v1


def check_chain(chain: list[x509.Certificate], root: x509.Certificate) -> None:
    for child, parent in zip(chain, chain[1:] + [root]):
        child.verify_directly_issued_by(parent)


# --------------------------------------------------------------------------------------------
# WebAuthn pieces
# --------------------------------------------------------------------------------------------

def client_data(challenge: bytes) -> bytes:
    return json.dumps({"type": "webauthn.create", "challenge": b64url(challenge), "origin": ORIGIN,
                       "crossOrigin": False}, separators=(",", ":")).encode()


def authenticator_data(aaguid: bytes, credential_id: bytes, cose: bytes) -> bytes:
    """rpIdHash ‖ flags (UP UV AT) ‖ signCount 0 ‖ aaguid ‖ L ‖ credentialId ‖ credentialPublicKey."""
    return (sha256(RP_ID.encode()) + struct.pack(">BI", UP | UV | AT, 0) + aaguid
            + struct.pack(">H", len(credential_id)) + credential_id + cose)


def registration_json(credential_id: bytes, cdj: bytes, att_obj: bytes) -> dict[str, Any]:
    return {"id": b64url(credential_id), "rawId": b64url(credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64url(cdj), "attestationObject": b64url(att_obj),
                         "transports": ["internal"]},
            "authenticatorAttachment": "platform", "clientExtensionResults": {}}


def accept(fmt: str, att_type: str) -> dict[str, Any]:
    # Trusted: every vector is checked against the test root as the one anchor.
    return {"result": "accept", "fmt": fmt, "attestation_type": att_type, "attestation_trusted": True}


def reject(error: str = "invalid_attestation") -> dict[str, Any]:
    return {"result": "reject", "error": error}


def vector(name: str, description: str, challenge: bytes, credential_id: bytes, cdj: bytes,
           att_obj: bytes, expect: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "challenge": b64url(challenge), "algorithms": OFFERED,
            "response": registration_json(credential_id, cdj, att_obj), "expect": expect, **extra}


# --------------------------------------------------------------------------------------------
# TPM 2.0 structures (TPM 2.0 Library Part 2)
# --------------------------------------------------------------------------------------------

TPM_GENERATED_VALUE = 0xFF544347
TPM_ST_ATTEST_CERTIFY = 0x8017
TPM_ST_ATTEST_QUOTE = 0x8018
TPM_ALG_RSA, TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_NULL, TPM_ALG_ECDSA, TPM_ALG_ECC = (
    0x0001, 0x0004, 0x000B, 0x0010, 0x0018, 0x0023)
TPM_ALG_SM3_256 = 0x0012
TPM_ECC_NIST_P256 = 0x0003
NAME_HASH = {TPM_ALG_SHA1: hashlib.sha1, TPM_ALG_SHA256: hashlib.sha256, TPM_ALG_SM3_256: hashlib.sha256}

# TPMA_OBJECT: fixedTPM | fixedParent | sensitiveDataOrigin | userWithAuth | noDA | sign,
# as Windows creates WebAuthn keys.
OBJECT_ATTRIBUTES = 0x00060472


def tpm2b(data: bytes) -> bytes:
    return struct.pack(">H", len(data)) + data


def pub_area_rsa(public_key: rsa.RSAPublicKey, *, name_alg: int = TPM_ALG_SHA256, exponent_field: int | None = None,
                 key_bits: int | None = None) -> bytes:
    """TPMT_PUBLIC for an RSA signing key: symmetric and scheme TPM_ALG_NULL, exponent 0 for 2^16+1."""
    nums = public_key.public_numbers()
    n = nums.n.to_bytes((nums.n.bit_length() + 7) // 8, "big")
    exponent = exponent_field if exponent_field is not None else (0 if nums.e == 65537 else nums.e)
    return (struct.pack(">HHI", TPM_ALG_RSA, name_alg, OBJECT_ATTRIBUTES) + tpm2b(b"")
            + struct.pack(">HHHI", TPM_ALG_NULL, TPM_ALG_NULL, key_bits or len(n) * 8, exponent) + tpm2b(n))


def pub_area_ecc(public_key: ec.EllipticCurvePublicKey, *, name_alg: int = TPM_ALG_SHA256) -> bytes:
    """TPMT_PUBLIC for a P-256 signing key: symmetric NULL, scheme ECDSA/SHA-256, kdf NULL."""
    nums = public_key.public_numbers()
    return (struct.pack(">HHI", TPM_ALG_ECC, name_alg, OBJECT_ATTRIBUTES) + tpm2b(b"")
            + struct.pack(">HHHHH", TPM_ALG_NULL, TPM_ALG_ECDSA, TPM_ALG_SHA256, TPM_ECC_NIST_P256, TPM_ALG_NULL)
            + tpm2b(nums.x.to_bytes(32, "big")) + tpm2b(nums.y.to_bytes(32, "big")))


def tpm_name(pub_area: bytes, name_alg: int) -> bytes:
    """TPM 2.0 Part 1 §16: Name = nameAlg ‖ H_nameAlg(TPMT_PUBLIC)."""
    return struct.pack(">H", name_alg) + NAME_HASH[name_alg](pub_area).digest()


def cert_info(extra_data: bytes, name: bytes, *, magic: int = TPM_GENERATED_VALUE,
              st_type: int = TPM_ST_ATTEST_CERTIFY, label: str) -> bytes:
    """TPMS_ATTEST with a TPMS_CERTIFY_INFO: magic, type, qualifiedSigner, extraData, clockInfo,
    firmwareVersion, attested {name, qualifiedName}."""
    qualified_signer = struct.pack(">H", TPM_ALG_SHA256) + det(f"{label}/qualified-signer", 32)
    qualified_name = struct.pack(">H", TPM_ALG_SHA256) + det(f"{label}/qualified-name", 32)
    clock, reset_count, restart_count = 1_234_567, 17, 3
    return (struct.pack(">IH", magic, st_type) + tpm2b(qualified_signer) + tpm2b(extra_data)
            + struct.pack(">QIIB", clock, reset_count, restart_count, 1)
            + struct.pack(">Q", 0x0007_0002_0000_0000)
            + tpm2b(name) + tpm2b(qualified_name))


# --------------------------------------------------------------------------------------------
# tpm vectors
# --------------------------------------------------------------------------------------------

AAGUID_TPM = det("aaguid/tpm", 16)


@dataclass
class AIK:
    """How an AIK certificate is made (§8.3.1); each field a requirement a negative vector breaks."""
    subject: x509.Name = field(default_factory=lambda: x509.Name([]))
    san: str = "full"               # full | none | not-critical | no-manufacturer | no-model | no-version
    eku: bool = True
    ca: bool = False
    aaguid: bytes | None = AAGUID_TPM
    version1: bool = False


def san_extension(kind: str) -> x509.SubjectAlternativeName:
    attributes = {OID_TPM_MANUFACTURER: "id:FFFFF1D0",      # the FIDO conformance test manufacturer
                  OID_TPM_MODEL: "Passkey Server Test TPM", OID_TPM_VERSION: "id:00020008"}
    drop = {"no-manufacturer": OID_TPM_MANUFACTURER, "no-model": OID_TPM_MODEL,
            "no-version": OID_TPM_VERSION}.get(kind)
    rdn = x509.RelativeDistinguishedName([x509.NameAttribute(oid, value) for oid, value in attributes.items()
                                          if oid != drop])
    return x509.SubjectAlternativeName([x509.DirectoryName(x509.Name([rdn]))])


def aik_certificate(pki: PKI, label: str, public_key: Any, spec: AIK) -> x509.Certificate:
    b = (x509.CertificateBuilder().subject_name(spec.subject)
         .add_extension(x509.BasicConstraints(ca=spec.ca, path_length=None), critical=True)
         .add_extension(key_usage(ca=False), critical=True))
    if spec.san != "none":
        # RFC 5280 §4.2.1.6: with an empty subject the SAN is critical.
        b = b.add_extension(san_extension(spec.san), critical=spec.san != "not-critical")
    if spec.eku:
        b = b.add_extension(x509.ExtendedKeyUsage([OID_TCG_KP_AIK_CERTIFICATE]), critical=False)
    else:
        b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    if spec.aaguid is not None:
        b = b.add_extension(x509.UnrecognizedExtension(OID_FIDO_AAGUID, der_octets(spec.aaguid)), critical=False)
    cert = pki.issue(b, f"tpm/aik/{label}", public_key)
    return pki.resign_as_v1(cert) if spec.version1 else cert


@dataclass
class TPMCase:
    name: str
    description: str
    credential: str = "rsa"             # rsa (RS256 credential) | ecc (ES256 credential)
    alg: int = RS256                    # attStmt.alg, the AIK's signature algorithm
    aik: AIK = field(default_factory=AIK)
    ver: str = "2.0"
    magic: int = TPM_GENERATED_VALUE
    st_type: int = TPM_ST_ATTEST_CERTIFY
    extra_data_of: str = "attToBeSigned"    # attToBeSigned | other (a hash of something else)
    name_alg: int = TPM_ALG_SHA256
    name_of: str = "pubArea"                # pubArea | other
    pub_area_key: str = "credential"        # credential | other
    pub_area_trailing: bytes = b""
    cert_info_trailing: bytes = b""
    signer: str = "aik"                     # aik | other
    with_x5c: bool = True
    ecdaa_key_id: bool = False
    accepted: bool = False


class TPMKeys:
    def __init__(self) -> None:
        self.credential_rsa = det_rsa_key("tpm/credential/rsa")
        self.other_rsa = det_rsa_key("tpm/credential/other-rsa")
        self.credential_ecc = det_ec_key("tpm/credential/ecc")
        self.aik_rsa = det_rsa_key("tpm/aik/rsa")
        self.aik_ecc = det_ec_key("tpm/aik/ecc")
        self.unrelated_rsa = det_rsa_key("tpm/unrelated-signer")
        self.unrelated_ecc = det_ec_key("tpm/unrelated-signer/ecc")


def tpm_vector(pki: PKI, keys: TPMKeys, c: TPMCase) -> dict[str, Any]:
    challenge = det(f"tpm/{c.name}/challenge", 32)
    credential_id = det(f"tpm/{c.name}/credential-id", 32)
    if c.credential == "rsa":
        credential_key, credential_alg = keys.credential_rsa.public_key(), RS256
        pub_key = keys.other_rsa.public_key() if c.pub_area_key == "other" else credential_key
        pub_area = pub_area_rsa(pub_key, name_alg=c.name_alg)
    else:
        credential_key, credential_alg = keys.credential_ecc.public_key(), ES256
        assert c.pub_area_key == "credential"
        pub_area = pub_area_ecc(credential_key, name_alg=c.name_alg)
    pub_area += c.pub_area_trailing

    cdj = client_data(challenge)
    ad = authenticator_data(AAGUID_TPM, credential_id, cose_key(credential_key, credential_alg))
    att_to_be_signed = ad + sha256(cdj)
    hashed = att_to_be_signed if c.extra_data_of == "attToBeSigned" else att_to_be_signed + b"\x00"
    extra_data = alg_hash(c.alg)(hashed).digest()
    name = tpm_name(pub_area if c.name_of == "pubArea" else pub_area + b"\x00", c.name_alg)
    info = cert_info(extra_data, name, magic=c.magic, st_type=c.st_type, label=f"tpm/{c.name}") + c.cert_info_trailing

    aik_private = keys.aik_ecc if c.alg == ES256 else keys.aik_rsa
    aik = aik_certificate(pki, c.name, aik_private.public_key(), c.aik)
    signer = aik_private if c.signer == "aik" else (keys.unrelated_ecc if c.alg == ES256 else keys.unrelated_rsa)
    sig = sign(signer, c.alg, info)

    att_stmt: dict[str, Any] = {"ver": c.ver, "alg": c.alg, "sig": sig, "certInfo": info, "pubArea": pub_area}
    if c.with_x5c:
        att_stmt["x5c"] = [der(aik), der(pki.intermediate)]
    if c.ecdaa_key_id:
        att_stmt["ecdaaKeyId"] = det(f"tpm/{c.name}/ecdaa-key-id", 32)
    att_obj = cbor({"fmt": "tpm", "attStmt": att_stmt, "authData": ad})

    if c.accepted:
        # Cross-check with cryptography: signature, chain, extraData and Name as §8.3 computes them.
        verify(aik.public_key(), c.alg, sig, info)
        check_chain([aik, pki.intermediate], pki.root)
        assert tpm2b(alg_hash(c.alg)(att_to_be_signed).digest()) in info
        assert name == tpm_name(pub_area, c.name_alg)
    return vector(c.name, c.description, challenge, credential_id, cdj, att_obj,
                  accept("tpm", "attca") if c.accepted else reject())


def tpm_cases() -> list[TPMCase]:
    T = TPMCase
    return [
        # ---- accepted ----
        T("tpm-rsa-rs256", "RSA 2048 credential key (exponent field 0 = 65537), RSA AIK signing certInfo "
          "with RS256; x5c = [AIK, intermediate].", accepted=True),
        T("tpm-ecc-es256", "P-256 credential key (scheme ECDSA/SHA-256), P-256 AIK signing certInfo with ES256.",
          credential="ecc", alg=ES256, accepted=True),
        T("tpm-rsa-rs1", "RSA credential key, AIK signing certInfo with RS1 (RSASSA-PKCS1-v1_5/SHA-1), so "
          "extraData is the SHA-1 of attToBeSigned.", alg=RS1, accepted=True),
        T("tpm-rsa-name-sha1", "pubArea.nameAlg is TPM_ALG_SHA1: the Name is 0x0004 ‖ SHA-1(pubArea).",
          name_alg=TPM_ALG_SHA1, accepted=True),
        T("tpm-rsa-no-aaguid-extension", "AIK certificate without the id-fido-gen-ce-aaguid extension "
          "(it is optional).", aik=AIK(aaguid=None), accepted=True),
        # ---- statement syntax ----
        T("tpm-ver-1.0", "attStmt.ver is \"1.0\" (must be \"2.0\").", ver="1.0"),
        T("tpm-ecdaa-key-id", "attStmt carries ecdaaKeyId: ECDAA is not supported.", ecdaa_key_id=True),
        T("tpm-x5c-missing", "attStmt has no x5c.", with_x5c=False),
        # ---- pubArea ----
        T("tpm-pubarea-other-key", "pubArea holds a different RSA key than the credential public key "
          "(certInfo's Name is that pubArea's, and it is signed).", pub_area_key="other"),
        T("tpm-pubarea-trailing-byte", "One byte after TPMT_PUBLIC.unique (the Name covers it, so only the "
          "strict parse refuses it).", pub_area_trailing=b"\x00"),
        T("tpm-pubarea-namealg-sm3", "pubArea.nameAlg is TPM_ALG_SM3_256, not SHA-1/256/384/512 (the Name "
          "carries a SHA-256 digest as a stand-in: the verifier must refuse the nameAlg itself).",
          name_alg=TPM_ALG_SM3_256),
        # ---- certInfo ----
        T("tpm-certinfo-wrong-magic", "certInfo.magic is 0xff544348, not TPM_GENERATED_VALUE.",
          magic=TPM_GENERATED_VALUE + 1),
        T("tpm-certinfo-wrong-type", "certInfo.type is TPM_ST_ATTEST_QUOTE (0x8018), not "
          "TPM_ST_ATTEST_CERTIFY; the rest is a valid TPMS_CERTIFY_INFO.", st_type=TPM_ST_ATTEST_QUOTE),
        T("tpm-certinfo-extradata-mismatch", "certInfo.extraData is the hash of attToBeSigned ‖ 0x00.",
          extra_data_of="other"),
        T("tpm-certinfo-name-mismatch", "certInfo.attested.name is nameAlg ‖ H(pubArea ‖ 0x00).", name_of="other"),
        T("tpm-certinfo-trailing-byte", "One byte after TPMS_CERTIFY_INFO.qualifiedName (signed with it).",
          cert_info_trailing=b"\x00"),
        # ---- signature ----
        T("tpm-signature-wrong-key", "sig over certInfo made by an RSA key other than the AIK's.", signer="other"),
        # ---- aikCert (§8.3.1) ----
        T("tpm-aik-version-1", "AIK certificate is X.509 v1 (the TBS version field removed, extensions kept, "
          "re-signed).", aik=AIK(version1=True)),
        T("tpm-aik-subject-not-empty", "AIK certificate subject is CN=Passkey Server Test AIK.",
          aik=AIK(subject=x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Passkey Server Test AIK")]))),
        T("tpm-aik-san-missing", "AIK certificate has no Subject Alternative Name extension.", aik=AIK(san="none")),
        T("tpm-aik-san-not-critical", "AIK certificate's SAN (empty subject) is not marked critical.",
          aik=AIK(san="not-critical")),
        T("tpm-aik-san-no-manufacturer", "AIK SAN directoryName lacks tcg-at-tpmManufacturer (2.23.133.2.1).",
          aik=AIK(san="no-manufacturer")),
        T("tpm-aik-san-no-model", "AIK SAN directoryName lacks tcg-at-tpmModel (2.23.133.2.2).",
          aik=AIK(san="no-model")),
        T("tpm-aik-san-no-version", "AIK SAN directoryName lacks tcg-at-tpmVersion (2.23.133.2.3).",
          aik=AIK(san="no-version")),
        T("tpm-aik-eku-missing", "AIK certificate's Extended Key Usage is clientAuth only, without "
          "tcg-kp-AIKCertificate (2.23.133.8.3).", aik=AIK(eku=False)),
        T("tpm-aik-ca", "AIK certificate has basicConstraints CA=true.", aik=AIK(ca=True)),
        T("tpm-aik-aaguid-mismatch", "AIK certificate's id-fido-gen-ce-aaguid differs from authData's AAGUID.",
          aik=AIK(aaguid=det("aaguid/other-model", 16))),
    ]


# --------------------------------------------------------------------------------------------
# android-key vectors
# --------------------------------------------------------------------------------------------

AAGUID_ANDROID = det("aaguid/android", 16)
KM_ORIGIN_GENERATED, KM_ORIGIN_IMPORTED = 0, 2
KM_PURPOSE_SIGN, KM_PURPOSE_VERIFY = 2, 3


def authorization_list(fields: dict[int, bytes]) -> bytes:
    """AuthorizationList: [n] EXPLICIT fields in ascending tag order."""
    return der_sequence(*(explicit(n, fields[n]) for n in sorted(fields)))


def typical_hardware_fields(purposes: list[int] | None = (KM_PURPOSE_SIGN,), origin: int | None = KM_ORIGIN_GENERATED
                            ) -> dict[int, bytes]:
    """teeEnforced of a P-256 signing key as Keymaster 4 reports it (AOSP tag numbers)."""
    fields = {
        2: der_integer(3),                                  # algorithm: KM_ALGORITHM_EC
        3: der_integer(256),                                # keySize
        5: der_set_of([der_integer(4)]),                    # digest: SHA-2-256
        10: der_integer(1),                                 # ecCurve: P-256
        503: der_null(),                                    # noAuthRequired
        704: der_sequence(der_octets(det("android/verified-boot-key", 32)), der_boolean(True),
                          der_enumerated(0), der_octets(det("android/verified-boot-hash", 32))),  # rootOfTrust
        705: der_integer(140000),                           # osVersion
        706: der_integer(202605),                           # osPatchLevel
    }
    if purposes is not None:
        fields[1] = der_set_of([der_integer(p) for p in purposes])
    if origin is not None:
        fields[702] = der_integer(origin)
    return fields


def typical_software_fields() -> dict[int, bytes]:
    return {
        701: der_integer(1_780_000_000_000),                # creationDateTime (ms)
        709: der_octets(der_sequence(der_set_of([der_sequence(der_octets(b"org.example.passkeys"),
                                                              der_integer(1))]),
                                     der_set_of([der_octets(det("android/signing-cert", 32))]))),
    }


def key_description(challenge: bytes, software: dict[int, bytes], hardware: dict[int, bytes], *,
                    order: str = "ascending") -> bytes:
    """KeyDescription (attestation version 4 / Keymaster 4.1, TEE)."""
    if order == "ascending":
        hw = authorization_list(hardware)
    else:  # fields out of order: rootOfTrust [704] before origin [702]
        hw = der_sequence(*(explicit(n, hardware[n]) for n in sorted(hardware, key=lambda n: (n == 702, n))))
    return der_sequence(der_integer(4), der_enumerated(1), der_integer(41), der_enumerated(1),
                        der_octets(challenge), der_octets(b""), authorization_list(software), hw)


@dataclass
class AndroidCase:
    name: str
    description: str
    challenge_of: str = "clientDataHash"        # clientDataHash | other
    software: dict[int, bytes] = field(default_factory=typical_software_fields)
    hardware: dict[int, bytes] = field(default_factory=typical_hardware_fields)
    order: str = "ascending"
    trailing: bytes = b""
    with_extension: bool = True
    leaf_key: str = "credential"                # credential | other
    signer: str = "leaf"                        # leaf | other
    accepted: bool = False
    accepted_when_software_allowed: bool | None = None   # None: same as accepted


class AndroidKeys:
    def __init__(self) -> None:
        self.credential = det_ec_key("android/credential")
        self.other = det_ec_key("android/other-key")
        self.unrelated = det_ec_key("android/unrelated-signer")


def android_vector(pki: PKI, keys: AndroidKeys, c: AndroidCase) -> dict[str, Any]:
    challenge = det(f"android/{c.name}/challenge", 32)
    credential_id = det(f"android/{c.name}/credential-id", 32)
    credential_key = keys.credential.public_key()
    cdj = client_data(challenge)
    ad = authenticator_data(AAGUID_ANDROID, credential_id, cose_key(credential_key, ES256))
    client_data_hash = sha256(cdj)
    attestation_challenge = client_data_hash if c.challenge_of == "clientDataHash" else sha256(cdj + b" ")

    leaf_private = keys.credential if c.leaf_key == "credential" else keys.other
    b = x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                                             "Android Keystore Key")]))
    b = b.add_extension(key_usage(ca=False), critical=True)
    if c.with_extension:
        value = key_description(attestation_challenge, c.software, c.hardware, order=c.order) + c.trailing
        b = b.add_extension(x509.UnrecognizedExtension(OID_ANDROID_KEY_DESCRIPTION, value), critical=False)
    leaf = pki.issue(b, f"android/leaf/{c.name}", leaf_private.public_key())

    signer = leaf_private if c.signer == "leaf" else keys.unrelated
    sig = sign(signer, ES256, ad + client_data_hash)
    att_obj = cbor({"fmt": "android-key", "attStmt": {"alg": ES256, "sig": sig,
                                                       "x5c": [der(leaf), der(pki.intermediate)]}, "authData": ad})
    if c.accepted or c.accepted_when_software_allowed:
        verify(leaf.public_key(), ES256, sig, ad + client_data_hash)
        check_chain([leaf, pki.intermediate], pki.root)
    lenient = c.accepted if c.accepted_when_software_allowed is None else c.accepted_when_software_allowed
    return vector(c.name, c.description, challenge, credential_id, cdj, att_obj,
                  accept("android-key", "basic") if c.accepted else reject(),
                  expect_software_enforced_allowed=accept("android-key", "basic") if lenient else reject())


def android_cases() -> list[AndroidCase]:
    A = AndroidCase
    software_with = typical_software_fields() | {1: der_set_of([der_integer(KM_PURPOSE_SIGN)]),
                                                  702: der_integer(KM_ORIGIN_GENERATED)}
    return [
        A("android-key-es256", "P-256 credential key in the leaf; teeEnforced: purpose {SIGN}, origin GENERATED; "
          "x5c = [leaf, intermediate].", accepted=True),
        A("android-key-purpose-sign-and-verify", "teeEnforced purpose {SIGN, VERIFY}: contains SIGN.",
          hardware=typical_hardware_fields(purposes=[KM_PURPOSE_SIGN, KM_PURPOSE_VERIFY]), accepted=True),
        A("android-key-software-enforced-only", "purpose and origin only in softwareEnforced: refused when "
          "hardware enforcement is required (the default), accepted when software enforcement is allowed.",
          software=software_with, hardware=typical_hardware_fields(purposes=None, origin=None),
          accepted_when_software_allowed=True),
        A("android-key-challenge-mismatch", "attestationChallenge is SHA-256(clientDataJSON ‖ ' '), not "
          "clientDataHash.", challenge_of="other"),
        A("android-key-all-applications-tee", "teeEnforced has allApplications [600].",
          hardware=typical_hardware_fields() | {600: der_null()}),
        A("android-key-all-applications-software", "softwareEnforced has allApplications [600].",
          software=typical_software_fields() | {600: der_null()}),
        A("android-key-origin-imported", "teeEnforced origin is KM_ORIGIN_IMPORTED (2).",
          hardware=typical_hardware_fields(origin=KM_ORIGIN_IMPORTED)),
        A("android-key-origin-missing", "teeEnforced has no origin [702].",
          hardware=typical_hardware_fields(origin=None)),
        A("android-key-purpose-verify-only", "teeEnforced purpose is {VERIFY}: no KM_PURPOSE_SIGN.",
          hardware=typical_hardware_fields(purposes=[KM_PURPOSE_VERIFY])),
        A("android-key-leaf-key-not-credential", "The leaf certifies (and sig is made by) a P-256 key other "
          "than the credential public key.", leaf_key="other"),
        A("android-key-signature-wrong-key", "sig made by a key other than the leaf's.", signer="other"),
        A("android-key-extension-missing", "The leaf has no KeyDescription extension.", with_extension=False),
        A("android-key-extension-trailing-byte", "One byte after the KeyDescription SEQUENCE.", trailing=b"\x00"),
        A("android-key-authorization-list-out-of-order", "teeEnforced has rootOfTrust [704] before origin [702] "
          "(DER keeps SEQUENCE fields in definition order).", order="702-last"),
    ]


# --------------------------------------------------------------------------------------------

def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def fixture(pki: PKI, vectors: list[dict[str, Any]]) -> dict[str, Any]:
    return {"generator": GENERATOR, "rp_id": RP_ID, "origin": ORIGIN, "now": NOW,
            "trust_anchors": [pem(pki.root)], "vectors": vectors}


def main() -> int:
    pki = PKI()
    tpm_keys = TPMKeys()
    tpm = [tpm_vector(pki, tpm_keys, c) for c in tpm_cases()]
    android_keys = AndroidKeys()
    android = [android_vector(pki, android_keys, c) for c in android_cases()]
    for vectors in (tpm, android):
        names = [v["name"] for v in vectors]
        assert len(names) == len(set(names)), "vector names must be unique"
    write_json(HERE / "tpm.json", fixture(pki, tpm))
    write_json(HERE / "android-key.json", fixture(pki, android))
    print(f"tpm.json: {len(tpm)} vectors; android-key.json: {len(android)} vectors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
