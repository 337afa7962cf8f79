#!/usr/bin/env python3
"""Independent generator of WebAuthn test vectors for the Passkey Server verifier.

Writes, next to this file:
  registration.json    registration ceremonies (accept / reject with a contract error code)
  authentication.json  authentication ceremonies against a stored credential
  spec.json            WebAuthn Level 3 §16 "Test Vectors", transcribed, re-derived and checked

Only Python 3.11, `cryptography` (48 tested; deterministic ECDSA needed) and `cbor2` are used.

Everything is deterministic: every "random" value comes from HKDF-SHA-256 over a fixed seed
and a label unique to its use, ECDSA uses RFC 6979 nonces, RSA primes are searched from
seeded candidates and the PSS salt is seeded too. Running the script twice gives the same
bytes, so `git diff` after a run shows exactly what a change to this file changed.

Run:  python3 Tests/PasskeyCoreTests/Vectors/generate.py
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import itertools
import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import cbor2
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.x509.oid import NameOID

HERE = Path(__file__).resolve().parent
GENERATOR = "Tests/PasskeyCoreTests/Vectors/generate.py"

RP_ID = "example.org"
ORIGIN = "https://example.org"
NOW = "2026-06-01T00:00:00Z"
UTC = dt.timezone.utc
VALID_FROM = dt.datetime(2025, 1, 1, tzinfo=UTC)
VALID_UNTIL = dt.datetime(2035, 1, 1, tzinfo=UTC)

# Authenticator data flags (WebAuthn L3 §6.1).
UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80

# COSE algorithm identifiers (IANA COSE registry; -19 is RFC 9864 fully-specified Ed25519).
ES256, ES384, ES512, EDDSA, ED25519, RS256, PS256 = -7, -35, -36, -8, -19, -257, -37
ALL_ALGORITHMS = [ES256, ES384, ES512, EDDSA, ED25519, RS256, PS256]
ALG_NAMES = {ES256: "es256", ES384: "es384", ES512: "es512", EDDSA: "eddsa",
             ED25519: "ed25519", RS256: "rs256", PS256: "ps256"}

# id-fido-gen-ce-aaguid (WebAuthn L3 §8.2.1).
OID_FIDO_AAGUID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")


# --------------------------------------------------------------------------------------------
# Encoding helpers
# --------------------------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64std(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def cbor(value: Any) -> bytes:
    # CTAP2 canonical form: definite lengths, map keys sorted length-first then bytewise.
    return cbor2.dumps(value, canonical=True)


def first_cbor_item(data: bytes) -> tuple[Any, int]:
    """The first CBOR data item in data and its encoded length (what follows is left alone)."""
    fp = io.BytesIO(data)
    value = cbor2.CBORDecoder(fp).decode()
    return value, fp.tell()


def uuid_string(aaguid: bytes) -> str:
    h = aaguid.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


def der(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


# --------------------------------------------------------------------------------------------
# Deterministic randomness
# --------------------------------------------------------------------------------------------

SEED = b"Passkey Server test vectors v1"


def det(label: str, length: int) -> bytes:
    """length pseudo-random bytes bound to label (HKDF-SHA-256, empty salt, info=label)."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None,
                info=label.encode("utf-8")).derive(SEED)


_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


def _probable_prime(n: int, label: str) -> bool:
    for p in _SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for i in range(40):
        a = 2 + int.from_bytes(det(f"{label}/mr/{i}", 64), "big") % (n - 3)
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
        c = int.from_bytes(det(f"{label}/{i}", bits // 8), "big")
        c |= (3 << (bits - 2)) | 1            # top two bits set: p*q has exactly 2*bits bits
        if (c - 1) % e != 0 and _probable_prime(c, f"{label}/{i}"):
            return c
    raise AssertionError("unreachable")


def rsa_key_from_primes(p: int, q: int, e: int = 65537) -> rsa.RSAPrivateKey:
    d = rsa.rsa_recover_private_exponent(e, p, q)
    return rsa.RSAPrivateNumbers(
        p=p, q=q, d=d, dmp1=rsa.rsa_crt_dmp1(d, p), dmq1=rsa.rsa_crt_dmq1(d, q),
        iqmp=rsa.rsa_crt_iqmp(p, q), public_numbers=rsa.RSAPublicNumbers(e, p * q),
    ).private_key()


def det_rsa_key(label: str, bits: int = 2048) -> rsa.RSAPrivateKey:
    return rsa_key_from_primes(det_prime(f"{label}/p", bits // 2), det_prime(f"{label}/q", bits // 2))


CURVES = {  # COSE crv -> (curve, coordinate length, bit length)
    1: (ec.SECP256R1(), 32, 256),
    2: (ec.SECP384R1(), 48, 384),
    3: (ec.SECP521R1(), 66, 521),
}


def det_ec_key(label: str, crv: int) -> ec.EllipticCurvePrivateKey:
    curve, size, bits = CURVES[crv]
    for i in itertools.count():
        scalar = int.from_bytes(det(f"{label}/{i}", size), "big") >> (8 * size - bits)
        try:
            return ec.derive_private_key(scalar, curve)
        except ValueError:          # zero or not below the group order: try the next candidate
            continue
    raise AssertionError("unreachable")


def mgf1_sha256(seed: bytes, length: int) -> bytes:
    out = b""
    for counter in itertools.count():
        if len(out) >= length:
            return out[:length]
        out += sha256(seed + struct.pack(">I", counter))
    raise AssertionError("unreachable")


def rsa_pss_sign_det(key: rsa.RSAPrivateKey, message: bytes, salt: bytes) -> bytes:
    """RSASSA-PSS (RFC 8017 §8.1.1, §9.1.1) with SHA-256, MGF1-SHA-256 and the given salt.

    cryptography always draws a random salt; this does the same encoding with a seeded one so the
    output is reproducible. The result is checked with cryptography's PSS verifier by the caller.
    """
    numbers = key.private_numbers()
    n, d = numbers.public_numbers.n, numbers.d
    mod_bits = n.bit_length()
    em_bits = mod_bits - 1
    em_len = (em_bits + 7) // 8
    m_hash = sha256(message)
    h = sha256(b"\x00" * 8 + m_hash + salt)
    db = b"\x00" * (em_len - len(salt) - len(h) - 2) + b"\x01" + salt
    masked = bytes(a ^ b for a, b in zip(db, mgf1_sha256(h, em_len - len(h) - 1)))
    masked = bytes([masked[0] & (0xFF >> (8 * em_len - em_bits))]) + masked[1:]
    em = masked + h + b"\xbc"
    k = (mod_bits + 7) // 8
    return pow(int.from_bytes(em, "big"), d, n).to_bytes(k, "big")


# --------------------------------------------------------------------------------------------
# Credential keys and COSE_Key encodings (RFC 9052/9053, RFC 8230, RFC 9864)
# --------------------------------------------------------------------------------------------

EC_ALGS = {ES256: (1, hashes.SHA256()), ES384: (2, hashes.SHA384()), ES512: (3, hashes.SHA512())}


def cose_ec2(pub: ec.EllipticCurvePublicKey, alg: int, crv: int) -> bytes:
    _, size, _ = CURVES[crv]
    nums = pub.public_numbers()
    return cbor({1: 2, 3: alg, -1: crv, -2: nums.x.to_bytes(size, "big"), -3: nums.y.to_bytes(size, "big")})


def cose_okp(raw: bytes, alg: int, crv: int) -> bytes:
    return cbor({1: 1, 3: alg, -1: crv, -2: raw})


def cose_rsa(pub: rsa.RSAPublicKey, alg: int) -> bytes:
    nums = pub.public_numbers()
    n = nums.n.to_bytes((nums.n.bit_length() + 7) // 8, "big")
    e = nums.e.to_bytes((nums.e.bit_length() + 7) // 8, "big")
    return cbor({1: 3, 3: alg, -1: n, -2: e})


@dataclass
class CredentialKey:
    """A credential (or attestation) key pair that signs the way WebAuthn requires for its alg."""
    alg: int
    label: str
    private: Any = field(init=False)
    cose: bytes = field(init=False)

    def __post_init__(self) -> None:
        if self.alg in EC_ALGS:
            crv, _ = EC_ALGS[self.alg]
            self.private = det_ec_key(self.label, crv)
            self.cose = cose_ec2(self.private.public_key(), self.alg, crv)
        elif self.alg in (EDDSA, ED25519):
            self.private = ed25519.Ed25519PrivateKey.from_private_bytes(det(self.label, 32))
            raw = self.private.public_key().public_bytes(serialization.Encoding.Raw,
                                                         serialization.PublicFormat.Raw)
            self.cose = cose_okp(raw, self.alg, 6)
        elif self.alg in (RS256, PS256):
            self.private = det_rsa_key(self.label)
            self.cose = cose_rsa(self.private.public_key(), self.alg)
        else:
            raise ValueError(self.alg)

    def sign(self, data: bytes) -> bytes:
        if self.alg in EC_ALGS:    # ASN.1 DER Ecdsa-Sig-Value (WebAuthn L3 §6.5.5)
            return self.private.sign(data, ec.ECDSA(EC_ALGS[self.alg][1], deterministic_signing=True))
        if self.alg in (EDDSA, ED25519):
            return self.private.sign(data)
        if self.alg == RS256:      # RSASSA-PKCS1-v1_5 with SHA-256
            return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())
        if self.alg == PS256:      # RSASSA-PSS, SHA-256, MGF1-SHA-256, salt length 32
            sig = rsa_pss_sign_det(self.private, data, det(f"{self.label}/pss-salt/{sha256(data).hex()}", 32))
            self.private.public_key().verify(
                sig, data, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
            return sig
        raise ValueError(self.alg)

    def spki(self) -> bytes:
        return self.private.public_key().public_bytes(serialization.Encoding.DER,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)


# --------------------------------------------------------------------------------------------
# Authenticator: authenticator data, client data, attestation statements
# --------------------------------------------------------------------------------------------

def auth_data(flags: int, sign_count: int, *, rp_id: str = RP_ID, attested: bytes = b"",
              extensions: bytes = b"") -> bytes:
    """rpIdHash ‖ flags ‖ signCount ‖ attestedCredentialData ‖ extensions (WebAuthn L3 §6.1)."""
    return sha256(rp_id.encode("utf-8")) + struct.pack(">BI", flags, sign_count) + attested + extensions


def attested_credential_data(aaguid: bytes, credential_id: bytes, cose_key: bytes) -> bytes:
    """aaguid ‖ credentialIdLength (2 bytes, big-endian) ‖ credentialId ‖ credentialPublicKey (§6.5.2)."""
    return aaguid + struct.pack(">H", len(credential_id)) + credential_id + cose_key


def client_data(ctype: str, challenge: bytes, *, origin: str = ORIGIN, cross_origin: bool = False,
                top_origin: str | None = None, challenge_text: str | None = None) -> bytes:
    """CollectedClientData as a browser serialises it (§5.8.1.1): no spaces, this key order."""
    d: dict[str, Any] = {"type": ctype,
                         "challenge": challenge_text if challenge_text is not None else b64url(challenge),
                         "origin": origin, "crossOrigin": cross_origin}
    if top_origin is not None:
        d["topOrigin"] = top_origin
    return json.dumps(d, separators=(",", ":")).encode("utf-8")


def attestation_object(fmt: str, att_stmt: dict[str, Any], authenticator_data: bytes) -> bytes:
    return cbor({"fmt": fmt, "attStmt": att_stmt, "authData": authenticator_data})


def u2f_public_key(cose_key: bytes) -> bytes:
    """0x04 ‖ x ‖ y from an EC2 COSE_Key (§8.6 verification step 4)."""
    key = cbor2.loads(cose_key)
    return b"\x04" + key[-2] + key[-3]


# --------------------------------------------------------------------------------------------
# Test PKI
# --------------------------------------------------------------------------------------------

def name(*, c: str | None = "US", o: str | None = "Passkey Server Tests",
         ou: str | None = "Authenticator Attestation", cn: str | None = "Passkey Server Test Authenticator"
         ) -> x509.Name:
    attrs = []
    if c is not None:
        attrs.append(x509.NameAttribute(NameOID.COUNTRY_NAME, c))
    if o is not None:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, o))
    if ou is not None:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    if cn is not None:
        attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


def key_usage(*, signer: bool) -> x509.KeyUsage:
    return x509.KeyUsage(digital_signature=not signer, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=signer,
                         crl_sign=signer, encipher_only=False, decipher_only=False)


def serial(label: str) -> int:
    return (int.from_bytes(det(f"{label}/serial", 16), "big") >> 1) | 1


def make_cert(label: str, subject: x509.Name, public_key: Any, issuer: x509.Name, issuer_key: Any, *,
              ca: bool, path_length: int | None = None, aaguid: bytes | None = None,
              aaguid_critical: bool = False, valid_from: dt.datetime = VALID_FROM,
              valid_until: dt.datetime = VALID_UNTIL, issuer_public_key: Any = None) -> x509.Certificate:
    b = (x509.CertificateBuilder()
         .subject_name(subject).issuer_name(issuer).public_key(public_key)
         .serial_number(serial(label)).not_valid_before(valid_from).not_valid_after(valid_until)
         .add_extension(x509.BasicConstraints(ca=ca, path_length=path_length), critical=True)
         .add_extension(key_usage(signer=ca), critical=True)
         .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False))
    if issuer_public_key is not None:
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public_key),
                            critical=False)
    if aaguid is not None:
        # extnValue is the DER OCTET STRING holding the 16-byte AAGUID (§8.2.1).
        b = b.add_extension(x509.UnrecognizedExtension(OID_FIDO_AAGUID, b"\x04\x10" + aaguid),
                            critical=aaguid_critical)
    return b.sign(issuer_key, hashes.SHA256(), ecdsa_deterministic=True)


class PKI:
    """root CA ← intermediate CA ← attestation leaves (all P-256, ECDSA-SHA256)."""

    def __init__(self) -> None:
        self.root_key = det_ec_key("pki/root", 1)
        self.root_name = name(ou=None, cn="Passkey Server Test Root CA")
        self.root = make_cert("pki/root", self.root_name, self.root_key.public_key(), self.root_name,
                              self.root_key, ca=True)
        self.int_key = det_ec_key("pki/intermediate", 1)
        self.int_name = name(ou=None, cn="Passkey Server Test Attestation CA")
        self.intermediate = make_cert("pki/intermediate", self.int_name, self.int_key.public_key(),
                                      self.root_name, self.root_key, ca=True, path_length=0,
                                      issuer_public_key=self.root_key.public_key())

    def leaf(self, label: str, *, subject: x509.Name | None = None, aaguid: bytes | None = None,
             aaguid_critical: bool = False, ca: bool = False, valid_from: dt.datetime = VALID_FROM,
             valid_until: dt.datetime = VALID_UNTIL, issued_by_root: bool = False,
             self_signed: bool = False) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        key = det_ec_key(f"pki/leaf/{label}", 1)
        subject = subject if subject is not None else name()
        if self_signed:
            issuer_name, issuer_key, issuer_pub = subject, key, None
        elif issued_by_root:
            issuer_name, issuer_key, issuer_pub = self.root_name, self.root_key, self.root_key.public_key()
        else:
            issuer_name, issuer_key, issuer_pub = self.int_name, self.int_key, self.int_key.public_key()
        cert = make_cert(f"pki/leaf/{label}", subject, key.public_key(), issuer_name, issuer_key, ca=ca,
                         aaguid=aaguid, aaguid_critical=aaguid_critical, valid_from=valid_from,
                         valid_until=valid_until, issuer_public_key=issuer_pub)
        return cert, key


# --------------------------------------------------------------------------------------------
# Response JSON (PublicKeyCredential.toJSON(), WebAuthn L3 §5.1)
# --------------------------------------------------------------------------------------------

def registration_json(credential_id: bytes, cdj: bytes, att_obj: bytes, *, enc: Callable[[bytes], str] = b64url,
                      extra: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"clientDataJSON": enc(cdj), "attestationObject": enc(att_obj)}
    response.update(extra or {})
    response["transports"] = ["internal"]
    return {"id": enc(credential_id), "rawId": enc(credential_id), "type": "public-key",
            "response": response, "authenticatorAttachment": "platform", "clientExtensionResults": {}}


def to_json_extras(att_obj: bytes, enc: Callable[[bytes], str] = b64url) -> dict[str, Any]:
    """authenticatorData / publicKey / publicKeyAlgorithm as a browser's toJSON() adds them.

    They are convenience copies that a relying party must not trust; they are derived from the
    attestation object actually sent so that they are always consistent with it.
    """
    out: dict[str, Any] = {}
    try:
        obj = cbor2.loads(att_obj)
        ad = obj["authData"]
    except Exception:
        return out
    out["authenticatorData"] = enc(ad)
    if len(ad) < 55 or not ad[32] & AT:
        return out
    cid_len = struct.unpack(">H", ad[53:55])[0]
    try:
        key, _ = first_cbor_item(ad[55 + cid_len:])
    except Exception:
        return out
    try:
        spki = spki_from_cose(key)
    except Exception:
        spki = None
    if isinstance(key, dict) and isinstance(key.get(3), int):
        if spki is not None:
            out["publicKey"] = enc(spki)
        out["publicKeyAlgorithm"] = key[3]
    return out


def spki_from_cose(key: dict[int, Any]) -> bytes | None:
    kty, alg = key.get(1), key.get(3)
    if kty == 2 and alg in EC_ALGS and key.get(-1) == EC_ALGS[alg][0]:
        curve = CURVES[key[-1]][0]
        pub = ec.EllipticCurvePublicKey.from_encoded_point(curve, b"\x04" + key[-2] + key[-3])
    elif kty == 1 and key.get(-1) == 6 and alg in (EDDSA, ED25519):
        pub = ed25519.Ed25519PublicKey.from_public_bytes(key[-2])
    elif kty == 3 and alg in (RS256, PS256):
        pub = rsa.RSAPublicNumbers(int.from_bytes(key[-2], "big"), int.from_bytes(key[-1], "big")).public_key()
    else:
        return None
    return pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def assertion_json(credential_id: bytes, cdj: bytes, ad: bytes, sig: bytes, user_handle: bytes | None, *,
                   enc: Callable[[bytes], str] = b64url) -> dict[str, Any]:
    response: dict[str, Any] = {"clientDataJSON": enc(cdj), "authenticatorData": enc(ad), "signature": enc(sig)}
    if user_handle is not None:
        response["userHandle"] = enc(user_handle)
    return {"id": enc(credential_id), "rawId": enc(credential_id), "type": "public-key",
            "response": response, "authenticatorAttachment": "platform", "clientExtensionResults": {}}


# --------------------------------------------------------------------------------------------
# Registration vectors
# --------------------------------------------------------------------------------------------

AAGUID_PACKED = det("aaguid/packed", 16)
AAGUID_NONE = det("aaguid/platform", 16)
AAGUID_ZERO = b"\x00" * 16


def accept_reg(fmt: str, att_type: str, trusted: bool, alg: int, cred_id: bytes, aaguid: bytes,
               flags: int, cose_key: bytes, sign_count: int = 0) -> dict[str, Any]:
    return {"result": "accept", "fmt": fmt, "attestation_type": att_type, "attestation_trusted": trusted,
            "algorithm": alg, "credential_id": b64url(cred_id), "sign_count": sign_count,
            "aaguid": uuid_string(aaguid), "user_verified": bool(flags & UV),
            "backup_eligible": bool(flags & BE), "backup_state": bool(flags & BS),
            "public_key": b64url(cose_key)}


def reject(error: str) -> dict[str, Any]:
    return {"result": "reject", "error": error}


@dataclass
class Reg:
    """One registration ceremony, built step by step so a vector can change exactly one thing."""
    name: str
    alg: int = ES256
    fmt: str = "none"
    flags: int = UP | UV | AT
    sign_count: int = 0
    aaguid: bytes | None = None
    cred_id: bytes | None = None
    cred_id_len: int = 32
    ctype: str = "webauthn.create"
    origin: str = ORIGIN
    cross_origin: bool = False
    top_origin: str | None = None
    extensions: bytes = b""
    rp_id_for_hash: str = RP_ID
    key: CredentialKey | None = None
    cose_override: bytes | None = None

    def __post_init__(self) -> None:
        self.challenge = det(f"reg/{self.name}/challenge", 32)
        if self.key is None:
            self.key = CredentialKey(self.alg, f"reg/{self.name}/credential-key")
        if self.cred_id is None:
            self.cred_id = det(f"reg/{self.name}/credential-id", self.cred_id_len)
        if self.aaguid is None:
            self.aaguid = AAGUID_ZERO if self.fmt == "fido-u2f" else (
                AAGUID_PACKED if self.fmt == "packed" else AAGUID_NONE)

    @property
    def cose(self) -> bytes:
        return self.cose_override if self.cose_override is not None else self.key.cose

    def client_data(self, **kw: Any) -> bytes:
        return client_data(self.ctype, self.challenge, origin=self.origin, cross_origin=self.cross_origin,
                           top_origin=self.top_origin, **kw)

    def auth_data(self) -> bytes:
        attested = attested_credential_data(self.aaguid, self.cred_id, self.cose) if self.flags & AT else b""
        return auth_data(self.flags, self.sign_count, rp_id=self.rp_id_for_hash, attested=attested,
                         extensions=self.extensions)


def reg_vector(r: Reg, description: str, att_obj: bytes, cdj: bytes, expect: dict[str, Any], *,
               user_verification: str = "preferred", algorithms: list[int] | None = None,
               trust_anchors: list[x509.Certificate] | None = None, allow_cross_origin: bool = False,
               top_origins: list[str] | None = None, response_id: bytes | None = None,
               enc: Callable[[bytes], str] = b64url) -> dict[str, Any]:
    rid = response_id if response_id is not None else r.cred_id
    return {
        "name": r.name, "description": description, "ceremony": "registration",
        "rp_id": RP_ID, "origins": [ORIGIN], "allow_cross_origin": allow_cross_origin,
        "top_origins": top_origins or [], "challenge": b64url(r.challenge),
        "user_verification": user_verification,
        "algorithms": algorithms if algorithms is not None else ALL_ALGORITHMS,
        "trust_anchors": [pem(c) for c in (trust_anchors or [])], "now": NOW,
        "response": registration_json(rid, cdj, att_obj, enc=enc, extra=to_json_extras(att_obj, enc)),
        "expect": expect,
    }


def packed_self(r: Reg, cdj: bytes, ad: bytes, *, alg: int | None = None, signed: bytes | None = None
                ) -> bytes:
    sig = r.key.sign(signed if signed is not None else ad + sha256(cdj))
    return attestation_object("packed", {"alg": alg if alg is not None else r.alg, "sig": sig}, ad)


def packed_x5c(cdj: bytes, ad: bytes, chain: list[x509.Certificate], signer: Any, alg: int = ES256) -> bytes:
    sig = signer.sign(ad + sha256(cdj), ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    return attestation_object("packed", {"alg": alg, "sig": sig, "x5c": [der(c) for c in chain]}, ad)


def fido_u2f(r: Reg, cdj: bytes, ad: bytes, chain: list[x509.Certificate], signer: Any, *,
             corrupt: bool = False) -> bytes:
    # verificationData = 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ publicKeyU2F (§8.6)
    data = b"\x00" + sha256(RP_ID.encode()) + sha256(cdj) + r.cred_id + u2f_public_key(r.cose)
    if corrupt:
        data = b"\x00" + sha256(RP_ID.encode()) + sha256(cdj + b" ") + r.cred_id + u2f_public_key(r.cose)
    sig = signer.sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    return attestation_object("fido-u2f", {"sig": sig, "x5c": [der(c) for c in chain]}, ad)


def registration_vectors(pki: PKI) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def simple_none(r: Reg, description: str, expect: dict[str, Any] | None = None, **kw: Any) -> None:
        cdj = r.client_data()
        ad = r.auth_data()
        exp = expect or accept_reg("none", "none", False, r.alg, r.cred_id, r.aaguid, r.flags, r.cose)
        out.append(reg_vector(r, description, attestation_object("none", {}, ad), cdj, exp, **kw))

    # ---- fmt "none", every algorithm ------------------------------------------------------
    for alg in ALL_ALGORITHMS:
        simple_none(Reg(f"none-{ALG_NAMES[alg]}", alg=alg),
                    f"'none' attestation with a {ALG_NAMES[alg].upper()} ({alg}) credential key.")
    simple_none(Reg("none-es256-synced", flags=UP | UV | BE | BS | AT),
                "Synced passkey: BE and BS set, so the credential is backup eligible and backed up.")
    simple_none(Reg("none-es256-backup-eligible-not-backed-up", flags=UP | UV | BE | AT),
                "BE set without BS: backup eligible but not yet backed up.")
    simple_none(Reg("none-es256-with-extensions", flags=UP | UV | AT | ED, extensions=cbor({"credProtect": 2})),
                "ED set and an authenticator extension output map {credProtect: 2} after the credential key.")
    r = Reg("none-nonempty-attstmt")
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "fmt 'none' whose attStmt is not the empty map.",
                          attestation_object("none", {"sig": r.key.sign(ad + sha256(cdj))}, ad), cdj,
                          reject("invalid_attestation")))

    # ---- packed self attestation ------------------------------------------------------------
    for alg in ALL_ALGORITHMS:
        r = Reg(f"packed-self-{ALG_NAMES[alg]}", alg=alg, fmt="packed")
        cdj, ad = r.client_data(), r.auth_data()
        out.append(reg_vector(r, f"'packed' self attestation signed by the {ALG_NAMES[alg].upper()} credential key.",
                              packed_self(r, cdj, ad), cdj,
                              accept_reg("packed", "self", False, alg, r.cred_id, r.aaguid, r.flags, r.cose)))
    r = Reg("packed-self-alg-mismatch", fmt="packed")
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "Self attestation whose attStmt alg (-35) differs from the credential key's alg (-7).",
                          packed_self(r, cdj, ad, alg=ES384), cdj, reject("invalid_attestation")))
    r = Reg("packed-self-bad-signature", fmt="packed")
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "Self attestation signature computed over a different clientDataHash.",
                          packed_self(r, cdj, ad, signed=ad + sha256(cdj + b" ")), cdj, reject("invalid_attestation")))

    # ---- packed with x5c (§8.2, §8.2.1) ----------------------------------------------------
    def x5c_case(label: str, description: str, expect_fn: Callable[[Reg], dict[str, Any]], *,
                 anchors: list[x509.Certificate], chain: Callable[[x509.Certificate], list[x509.Certificate]]
                 = lambda leaf: [leaf, pki.intermediate], leaf_kw: dict[str, Any] | None = None,
                 signer_override: Any = None, alg: int = ES256) -> None:
        r = Reg(label, fmt="packed")
        leaf, leaf_key = pki.leaf(label, **({"aaguid": r.aaguid} | (leaf_kw or {})))
        cdj, ad = r.client_data(), r.auth_data()
        att = packed_x5c(cdj, ad, chain(leaf), signer_override or leaf_key, alg)
        out.append(reg_vector(r, description, att, cdj, expect_fn(r), trust_anchors=anchors))

    def basic(trusted: bool) -> Callable[[Reg], dict[str, Any]]:
        return lambda r: accept_reg("packed", "basic", trusted, r.alg, r.cred_id, r.aaguid, r.flags, r.cose)

    bad = lambda r: reject("invalid_attestation")  # noqa: E731

    x5c_case("packed-x5c-es256-trusted-root", "x5c = [leaf, intermediate]; the root is the trust anchor.",
             basic(True), anchors=[pki.root])
    x5c_case("packed-x5c-es256-trusted-intermediate",
             "x5c = [leaf, intermediate]; the intermediate itself is the trust anchor.",
             basic(True), anchors=[pki.intermediate])
    x5c_case("packed-x5c-es256-no-anchors", "x5c = [leaf, intermediate] and no trust anchors: valid but untrusted.",
             basic(False), anchors=[])
    x5c_case("packed-x5c-es256-root-in-chain-not-anchor",
             "x5c = [leaf, intermediate, root] with no anchors: a root inside x5c is never a trust anchor "
             "(GHSA-6hxq-p678-4hr2).", basic(False), anchors=[],
             chain=lambda leaf: [leaf, pki.intermediate, pki.root])
    x5c_case("packed-x5c-es256-no-aaguid-extension",
             "Leaf without the id-fido-gen-ce-aaguid extension (it is optional); root anchor.",
             basic(True), anchors=[pki.root], leaf_kw={"aaguid": None})

    # Self-signed leaf: valid statement, no anchors, so untrusted.
    r = Reg("packed-x5c-self-signed-leaf", fmt="packed")
    leaf, leaf_key = pki.leaf("packed-x5c-self-signed-leaf", aaguid=r.aaguid, self_signed=True)
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "x5c = [self-signed leaf] and no trust anchors: valid but untrusted.",
                          packed_x5c(cdj, ad, [leaf], leaf_key), cdj, basic(False)(r), trust_anchors=[]))

    x5c_case("packed-x5c-leaf-missing-ou", "Leaf subject has no OU (must be 'Authenticator Attestation').",
             bad, anchors=[pki.root], leaf_kw={"subject": name(ou=None)})
    x5c_case("packed-x5c-leaf-wrong-ou", "Leaf subject OU is 'Authenticator' instead of 'Authenticator Attestation'.",
             bad, anchors=[pki.root], leaf_kw={"subject": name(ou="Authenticator")})
    x5c_case("packed-x5c-leaf-missing-c", "Leaf subject has no C (country).",
             bad, anchors=[pki.root], leaf_kw={"subject": name(c=None)})
    x5c_case("packed-x5c-leaf-missing-o", "Leaf subject has no O (organisation).",
             bad, anchors=[pki.root], leaf_kw={"subject": name(o=None)})
    x5c_case("packed-x5c-leaf-missing-cn", "Leaf subject has no CN (common name).",
             bad, anchors=[pki.root], leaf_kw={"subject": name(cn=None)})
    x5c_case("packed-x5c-leaf-is-ca", "Leaf has basicConstraints CA=true.",
             bad, anchors=[pki.root], leaf_kw={"ca": True})
    x5c_case("packed-x5c-aaguid-extension-mismatch",
             "Leaf's id-fido-gen-ce-aaguid extension differs from the AAGUID in authenticator data.",
             bad, anchors=[pki.root], leaf_kw={"aaguid": det("aaguid/other-model", 16)})
    x5c_case("packed-x5c-aaguid-extension-critical", "Leaf's id-fido-gen-ce-aaguid extension is marked critical.",
             bad, anchors=[pki.root], leaf_kw={"aaguid_critical": True})
    x5c_case("packed-x5c-signature-wrong-key", "attStmt sig made by a key other than the leaf's.",
             bad, anchors=[pki.root], signer_override=det_ec_key("pki/unrelated-signer", 1))
    x5c_case("packed-x5c-alg-not-leaf-key", "attStmt alg is RS256 (-257) but the leaf key is P-256.",
             bad, anchors=[pki.root], alg=RS256)
    x5c_case("packed-x5c-leaf-expired",
             "Leaf valid 2020-01-01..2025-01-01, checked at 2026-06-01 against an anchor that would chain.",
             bad, anchors=[pki.root], leaf_kw={"valid_from": dt.datetime(2020, 1, 1, tzinfo=UTC),
                                               "valid_until": dt.datetime(2025, 1, 1, tzinfo=UTC)})
    x5c_case("packed-x5c-leaf-not-yet-valid",
             "Leaf valid from 2027-01-01, checked at 2026-06-01 against an anchor that would chain.",
             bad, anchors=[pki.root], leaf_kw={"valid_from": dt.datetime(2027, 1, 1, tzinfo=UTC)})

    # ---- fido-u2f (§8.6) ---------------------------------------------------------------------
    u2f_leaf, u2f_key = pki.leaf("fido-u2f", subject=name(ou=None, cn="Passkey Server Test U2F Token"),
                                 issued_by_root=True)
    r = Reg("fido-u2f-es256", fmt="fido-u2f", flags=UP | AT)
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "'fido-u2f' attestation, P-256 credential, all-zero AAGUID, leaf issued by the root.",
                          fido_u2f(r, cdj, ad, [u2f_leaf], u2f_key), cdj,
                          accept_reg("fido-u2f", "basic", True, ES256, r.cred_id, r.aaguid, r.flags, r.cose),
                          trust_anchors=[pki.root]))
    r = Reg("fido-u2f-es384-credential", alg=ES384, fmt="fido-u2f", flags=UP | AT)
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "'fido-u2f' with a P-384 (ES384) credential key: U2F keys must be P-256.",
                          fido_u2f(r, cdj, ad, [u2f_leaf], u2f_key), cdj, reject("invalid_attestation"),
                          trust_anchors=[pki.root]))
    r = Reg("fido-u2f-two-certificates", fmt="fido-u2f", flags=UP | AT)
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "'fido-u2f' whose x5c holds two certificates (exactly one is allowed).",
                          fido_u2f(r, cdj, ad, [u2f_leaf, pki.root], u2f_key), cdj, reject("invalid_attestation"),
                          trust_anchors=[pki.root]))
    r = Reg("fido-u2f-bad-signature", fmt="fido-u2f", flags=UP | AT)
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "'fido-u2f' signature over a different clientDataHash.",
                          fido_u2f(r, cdj, ad, [u2f_leaf], u2f_key, corrupt=True), cdj,
                          reject("invalid_attestation"), trust_anchors=[pki.root]))

    # ---- unknown format ----------------------------------------------------------------------
    r = Reg("unknown-fmt-foo")
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "Attestation statement format 'foo' is not known.",
                          attestation_object("foo", {}, ad), cdj, reject("invalid_attestation")))

    # ---- ceremony checks (fmt none) ----------------------------------------------------------
    simple_none(Reg("reg-type-get", ctype="webauthn.get"), "clientDataJSON.type is 'webauthn.get'.",
                reject("type_mismatch"))
    for label, origin in [("subdomain", "https://evil.example.org"), ("suffix", "https://example.org.evil.com"),
                          ("http-scheme", "http://example.org"), ("other-port", "https://example.org:8443")]:
        simple_none(Reg(f"reg-origin-{label}", origin=origin), f"clientDataJSON.origin is {origin}.",
                    reject("origin_mismatch"))
    simple_none(Reg("reg-cross-origin-not-allowed", cross_origin=True),
                "crossOrigin true while cross-origin ceremonies are not allowed.", reject("origin_mismatch"))
    simple_none(Reg("reg-top-origin-not-allowed", cross_origin=True, top_origin="https://example.com"),
                "crossOrigin true with topOrigin https://example.com while cross-origin is not allowed.",
                reject("origin_mismatch"))
    simple_none(Reg("reg-top-origin-without-cross-origin", top_origin="https://example.com"),
                "topOrigin present (crossOrigin false) while no top origins are configured.",
                reject("origin_mismatch"))
    r = Reg("reg-cross-origin-allowed", cross_origin=True)
    simple_none(r, "crossOrigin true, no topOrigin, and cross-origin ceremonies allowed.",
                allow_cross_origin=True, top_origins=["https://example.com"])
    r = Reg("reg-top-origin-allowed", cross_origin=True, top_origin="https://example.com")
    simple_none(r, "crossOrigin true and topOrigin https://example.com, which is an allowed top origin.",
                allow_cross_origin=True, top_origins=["https://example.com"])
    simple_none(Reg("reg-top-origin-not-in-list", cross_origin=True, top_origin="https://evil.example.com"),
                "Cross-origin allowed, but topOrigin https://evil.example.com is not an allowed top origin.",
                reject("origin_mismatch"), allow_cross_origin=True, top_origins=["https://example.com"])
    simple_none(Reg("reg-rp-id-hash-mismatch", rp_id_for_hash="evil.org"),
                "rpIdHash is SHA-256('evil.org').", reject("rp_id_mismatch"))
    simple_none(Reg("reg-user-not-present", flags=UV | AT), "UP flag clear.", reject("user_presence_required"))
    simple_none(Reg("reg-uv-required-not-verified", flags=UP | AT),
                "UV flag clear while user verification is required.", reject("user_verification_required"),
                user_verification="required")
    simple_none(Reg("reg-uv-preferred-not-verified", flags=UP | AT),
                "UV flag clear with user verification 'preferred': accepted, user_verified false.")
    simple_none(Reg("reg-uv-discouraged-verified", flags=UP | UV | AT),
                "UV set with user verification 'discouraged': accepted.", user_verification="discouraged")
    simple_none(Reg("reg-backup-state-without-eligible", flags=UP | UV | BS | AT),
                "BS set while BE is clear.", reject("invalid_request"))
    simple_none(Reg("reg-algorithm-not-offered", alg=RS256), "RS256 credential while only ES256 (-7) was offered.",
                reject("unsupported_algorithm"), algorithms=[ES256])
    simple_none(Reg("reg-credential-id-1024-bytes", cred_id_len=1024), "Credential ID of 1024 bytes (limit 1023).",
                reject("invalid_request"))
    simple_none(Reg("reg-credential-id-1023-bytes", cred_id_len=1023), "Credential ID of exactly 1023 bytes.")
    r = Reg("reg-raw-id-mismatch")
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "id/rawId differ from the credential ID in the attested credential data.",
                          attestation_object("none", {}, ad), cdj, reject("invalid_request"),
                          response_id=det("reg/reg-raw-id-mismatch/other-id", 32)))
    r = Reg("reg-at-flag-clear-with-data")
    cdj = r.client_data()
    ad = auth_data(UP | UV, 0, attested=attested_credential_data(r.aaguid, r.cred_id, r.cose))
    out.append(reg_vector(r, "AT flag clear although attested credential data follows.",
                          attestation_object("none", {}, ad), cdj, reject("invalid_request")))
    r = Reg("reg-at-flag-clear-no-data", flags=UP | UV)
    simple_none(r, "AT flag clear and no attested credential data.", reject("invalid_request"))
    r = Reg("reg-challenge-mismatch")
    cdj = r.client_data(challenge_text=b64url(det("reg/reg-challenge-mismatch/other-challenge", 32)))
    out.append(reg_vector(r, "clientDataJSON.challenge is not the challenge issued for this ceremony.",
                          attestation_object("none", {}, r.auth_data()), cdj, reject("unknown_challenge")))
    r = Reg("reg-client-data-not-json")
    cdj = b"this is not JSON {"
    out.append(reg_vector(r, "clientDataJSON bytes are not JSON.",
                          attestation_object("none", {}, r.auth_data()), cdj, reject("invalid_request")))
    p384 = det_ec_key("reg/reg-cose-es256-on-p384/key", 2)
    r = Reg("reg-cose-es256-on-p384", cose_override=cose_ec2(p384.public_key(), ES256, 2))
    simple_none(r, "COSE key says alg ES256 (-7) but crv P-384 (2) with 48-byte coordinates.",
                reject("invalid_request"))
    r = Reg("reg-cose-point-not-on-curve")
    k = cbor2.loads(r.key.cose)
    y = (int.from_bytes(k[-3], "big") + 1).to_bytes(32, "big")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b"\x04" + k[-2] + y)
        raise AssertionError("modified point is still on the curve")
    except ValueError:
        pass
    r.cose_override = cbor({1: 2, 3: ES256, -1: 1, -2: k[-2], -3: y})
    simple_none(r, "EC2 P-256 COSE key whose point (x, y+1) is not on the curve.", reject("invalid_request"))
    r = Reg("reg-trailing-bytes-after-attestation-object")
    cdj, ad = r.client_data(), r.auth_data()
    out.append(reg_vector(r, "One 0x00 byte after the attestationObject CBOR map.",
                          attestation_object("none", {}, ad) + b"\x00", cdj, reject("invalid_request")))

    # Standard base64 (padded, '+' '/') in every binary response field, as some native clients send.
    for i in itertools.count():
        r = Reg(f"reg-standard-base64-{i}")
        cdj, ad = r.client_data(), r.auth_data()
        att = attestation_object("none", {}, ad)
        # First candidate whose credential ID and attestation object show '+' or '/' in standard
        # base64 (the 32-byte ID always shows '=' padding; clientDataJSON is ASCII JSON and never
        # produces '+' or '/', but it is still sent in the standard alphabet with padding).
        if all(("+" in f or "/" in f) for f in (b64std(r.cred_id), b64std(att))):
            break
    r.name = "reg-standard-base64"
    out.append(reg_vector(r, "Same response with standard base64 (padded, '+' and '/') in every binary field.",
                          att, cdj, accept_reg("none", "none", False, ES256, r.cred_id, r.aaguid, r.flags, r.cose),
                          enc=b64std))
    return out


# --------------------------------------------------------------------------------------------
# Authentication vectors
# --------------------------------------------------------------------------------------------

USER_ALICE = det("user/alice", 16)
USER_BOB = det("user/bob", 16)


@dataclass
class Auth:
    name: str
    alg: int = ES256
    stored_count: int = 1
    count: int = 2
    flags: int = UP | UV
    stored_be: bool = False
    ctype: str = "webauthn.get"
    origin: str = ORIGIN
    rp_id_for_hash: str = RP_ID
    user_handle: bytes | None = USER_ALICE
    allow: str = "named"           # "named" | "usernameless" | "other"
    extensions: bytes = b""
    trailing: bytes = b""

    def __post_init__(self) -> None:
        self.challenge = det(f"auth/{self.name}/challenge", 32)
        self.key = CredentialKey(self.alg, f"auth/{self.name}/credential-key")
        self.cred_id = det(f"auth/{self.name}/credential-id", 32)

    def client_data(self, **kw: Any) -> bytes:
        kw.setdefault("origin", self.origin)
        return client_data(self.ctype, self.challenge, **kw)

    def auth_data(self) -> bytes:
        return auth_data(self.flags, self.count, rp_id=self.rp_id_for_hash, extensions=self.extensions) \
            + self.trailing


def auth_vector(a: Auth, description: str, cdj: bytes, ad: bytes, sig: bytes, expect: dict[str, Any], *,
                user_verification: str = "preferred", enc: Callable[[bytes], str] = b64url) -> dict[str, Any]:
    if a.allow == "named":
        allow = [b64url(a.cred_id)]
    elif a.allow == "usernameless":
        allow = None
    else:
        allow = [b64url(det(f"auth/{a.name}/other-credential-{i}", 32)) for i in range(2)]
    return {
        "name": a.name, "description": description, "ceremony": "authentication",
        "rp_id": RP_ID, "origins": [ORIGIN], "allow_cross_origin": False, "top_origins": [],
        "challenge": b64url(a.challenge), "user_verification": user_verification,
        "algorithms": ALL_ALGORITHMS, "trust_anchors": [], "now": NOW,
        "credential": {"id": b64url(a.cred_id), "public_key": b64url(a.key.cose), "algorithm": a.alg,
                       "sign_count": a.stored_count, "user_handle": b64url(USER_ALICE),
                       "backup_eligible": a.stored_be},
        "allow_credentials": allow,
        "response": assertion_json(a.cred_id, cdj, ad, sig, a.user_handle, enc=enc),
        "expect": expect,
    }


def accept_auth(a: Auth) -> dict[str, Any]:
    return {"result": "accept", "credential_id": b64url(a.cred_id), "sign_count": a.count,
            "user_verified": bool(a.flags & UV), "backup_state": bool(a.flags & BS)}


def authentication_vectors() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def signed(a: Auth, description: str, expect: dict[str, Any] | None = None, **kw: Any) -> None:
        cdj, ad = a.client_data(), a.auth_data()
        sig = a.key.sign(ad + sha256(cdj))
        out.append(auth_vector(a, description, cdj, ad, sig, expect or accept_auth(a), **kw))

    for alg in ALL_ALGORITHMS:
        signed(Auth(f"auth-{ALG_NAMES[alg]}", alg=alg),
               f"Valid assertion by a {ALG_NAMES[alg].upper()} ({alg}) credential, counter 1 -> 2.")
    signed(Auth("auth-counter-increments", stored_count=5, count=6), "Counter 6 after stored 5.")
    signed(Auth("auth-counter-zero-after-five", stored_count=5, count=0), "Counter 0 after stored 5.",
           reject("counter_regression"))
    signed(Auth("auth-counter-equal", stored_count=5, count=5), "Counter 5 after stored 5.",
           reject("counter_regression"))
    signed(Auth("auth-counter-both-zero", stored_count=0, count=0),
           "Stored counter 0 and new counter 0 (authenticator without a counter, e.g. a synced passkey).")
    signed(Auth("auth-synced", stored_count=0, count=0, flags=UP | UV | BE | BS, stored_be=True),
           "Backup-eligible credential, assertion with BE and BS set.")
    signed(Auth("auth-with-extensions", flags=UP | UV | ED, extensions=cbor({"example": True})),
           "ED set with an authenticator extension output map after the fixed 37 bytes.")

    a = Auth("auth-bad-signature")
    cdj, ad = a.client_data(), a.auth_data()
    other = CredentialKey(ES256, "auth/auth-bad-signature/other-key")
    out.append(auth_vector(a, "Signature by a different P-256 key.", cdj, ad, other.sign(ad + sha256(cdj)),
                           reject("invalid_signature")))
    for alg in (ES384, ES512, EDDSA, ED25519, RS256, PS256):
        a = Auth(f"auth-{ALG_NAMES[alg]}-bad-signature", alg=alg)
        cdj, ad = a.client_data(), a.auth_data()
        other = CredentialKey(alg, f"auth/{a.name}/other-key")
        out.append(auth_vector(a, f"{ALG_NAMES[alg].upper()} signature by a different key of the same type.",
                               cdj, ad, other.sign(ad + sha256(cdj)), reject("invalid_signature")))
    a = Auth("auth-ecdsa-r0-s0")
    cdj, ad = a.client_data(), a.auth_data()
    out.append(auth_vector(a, "ECDSA signature r=0, s=0 (DER 3006020100020100).", cdj, ad,
                           bytes.fromhex("3006020100020100"), reject("invalid_signature")))
    a = Auth("auth-ecdsa-raw-signature")
    cdj, ad = a.client_data(), a.auth_data()
    der_sig = a.key.sign(ad + sha256(cdj))
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
    r_, s_ = decode_dss_signature(der_sig)
    out.append(auth_vector(a, "Correct ES256 signature sent as raw r||s (64 bytes) instead of DER.", cdj, ad,
                           r_.to_bytes(32, "big") + s_.to_bytes(32, "big"), reject("invalid_signature")))
    a = Auth("auth-ecdsa-high-s")
    cdj, ad = a.client_data(), a.auth_data()
    r_, s_ = decode_dss_signature(a.key.sign(ad + sha256(cdj)))
    n_p256 = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    high = encode_dss_signature(r_, s_ if s_ > n_p256 // 2 else n_p256 - s_)
    out.append(auth_vector(a, "Valid ES256 signature in its high-S form (s > n/2): ECDSA verification accepts either form.",
                           cdj, ad, high, accept_auth(a)))
    a = Auth("auth-ps256-key-rs256-signature", alg=PS256)
    cdj, ad = a.client_data(), a.auth_data()
    out.append(auth_vector(a, "PS256 credential, signature made with PKCS#1 v1.5 padding.", cdj, ad,
                           a.key.private.sign(ad + sha256(cdj), padding.PKCS1v15(), hashes.SHA256()),
                           reject("invalid_signature")))
    a = Auth("auth-rs256-key-ps256-signature", alg=RS256)
    cdj, ad = a.client_data(), a.auth_data()
    out.append(auth_vector(a, "RS256 credential, signature made with PSS padding.", cdj, ad,
                           rsa_pss_sign_det(a.key.private, ad + sha256(cdj), det(f"auth/{a.name}/salt", 32)),
                           reject("invalid_signature")))
    a = Auth("auth-signature-over-other-client-data")
    cdj, ad = a.client_data(), a.auth_data()
    out.append(auth_vector(a, "Signature over authData ‖ SHA-256 of a different clientDataJSON.", cdj, ad,
                           a.key.sign(ad + sha256(a.client_data(origin="https://evil.example.org"))),
                           reject("invalid_signature")))

    signed(Auth("auth-type-create", ctype="webauthn.create"), "clientDataJSON.type is 'webauthn.create'.",
           reject("type_mismatch"))
    signed(Auth("auth-origin-mismatch", origin="https://evil.example.org"),
           "clientDataJSON.origin is https://evil.example.org.", reject("origin_mismatch"))
    a = Auth("auth-cross-origin-not-allowed")
    cdj = a.client_data(cross_origin=True)
    ad = a.auth_data()
    out.append(auth_vector(a, "crossOrigin true while cross-origin ceremonies are not allowed.", cdj, ad,
                           a.key.sign(ad + sha256(cdj)), reject("origin_mismatch")))
    signed(Auth("auth-rp-id-hash-mismatch", rp_id_for_hash="evil.org"), "rpIdHash is SHA-256('evil.org').",
           reject("rp_id_mismatch"))
    signed(Auth("auth-user-not-present", flags=UV), "UP flag clear.", reject("user_presence_required"))
    signed(Auth("auth-uv-required-not-verified", flags=UP), "UV clear while user verification is required.",
           reject("user_verification_required"), user_verification="required")
    signed(Auth("auth-uv-preferred-not-verified", flags=UP), "UV clear with 'preferred': accepted.")
    signed(Auth("auth-backup-state-without-eligible", flags=UP | UV | BS), "BS set while BE is clear.",
           reject("invalid_request"))
    signed(Auth("auth-backup-eligible-changed-on", flags=UP | UV | BE),
           "BE set although the stored credential is not backup eligible.", reject("invalid_request"))
    signed(Auth("auth-backup-eligible-changed-off", flags=UP | UV, stored_be=True),
           "BE clear although the stored credential is backup eligible.", reject("invalid_request"))
    signed(Auth("auth-usernameless", allow="usernameless"),
           "Usernameless (discoverable) ceremony with the credential's own userHandle.")
    signed(Auth("auth-usernameless-without-user-handle", allow="usernameless", user_handle=None),
           "Usernameless ceremony without userHandle.", reject("user_handle_mismatch"))
    signed(Auth("auth-usernameless-other-user-handle", allow="usernameless", user_handle=USER_BOB),
           "Usernameless ceremony whose userHandle belongs to another user.", reject("user_handle_mismatch"))
    signed(Auth("auth-named-other-user-handle", user_handle=USER_BOB),
           "Named ceremony whose userHandle is not the credential's user.", reject("user_handle_mismatch"))
    signed(Auth("auth-named-without-user-handle", user_handle=None),
           "Named ceremony without userHandle (it is optional when allowCredentials was sent).")
    signed(Auth("auth-credential-not-allowed", allow="other"),
           "The credential is not in allowCredentials (e.g. another user's).", reject("unknown_credential"))
    a = Auth("auth-challenge-mismatch")
    cdj = a.client_data(challenge_text=b64url(det("auth/auth-challenge-mismatch/other", 32)))
    ad = a.auth_data()
    out.append(auth_vector(a, "clientDataJSON.challenge is not the challenge issued for this ceremony.", cdj, ad,
                           a.key.sign(ad + sha256(cdj)), reject("unknown_challenge")))
    a = Auth("auth-client-data-not-json")
    cdj, ad = b"not JSON at all", a.auth_data()
    out.append(auth_vector(a, "clientDataJSON bytes are not JSON.", cdj, ad, a.key.sign(ad + sha256(cdj)),
                           reject("invalid_request")))
    signed(Auth("auth-trailing-byte-without-ed", trailing=b"\x00"),
           "One extra byte after the 37-byte authenticator data while ED is clear.", reject("invalid_request"))
    a = Auth("auth-authenticator-data-truncated")
    cdj = a.client_data()
    ad = a.auth_data()[:36]
    out.append(auth_vector(a, "Authenticator data of 36 bytes (minimum is 37).", cdj, ad,
                           a.key.sign(ad + sha256(cdj)), reject("invalid_request")))
    a = Auth("auth-standard-base64")
    for i in itertools.count():
        a = Auth(f"auth-standard-base64-{i}")
        cdj, ad = a.client_data(), a.auth_data()
        sig = a.key.sign(ad + sha256(cdj))
        if all(("+" in f or "/" in f) for f in (b64std(a.cred_id), b64std(sig))):
            break
    a.name = "auth-standard-base64"
    out.append(auth_vector(a, "Same response with standard base64 (padded, '+' and '/') in every binary field.",
                           cdj, ad, sig, accept_auth(a), enc=b64std))
    return out


# --------------------------------------------------------------------------------------------
# WebAuthn Level 3 §16 "Test Vectors": transcription, re-derivation, checks
# --------------------------------------------------------------------------------------------
#
# The values below are copied from the W3C WebAuthn Level 3 specification, §16
# (https://www.w3.org/TR/webauthn-3/#sctn-test-vectors, rendered at
# https://w3c.github.io/webauthn/#sctn-test-vectors), as hex exactly as the spec prints them.
# They were taken from public test suites that quote the spec's CDDL blocks verbatim, and every
# one is confirmed here by re-deriving it with the procedure §16 describes (HKDF-SHA-256 from
# 'WebAuthn test vectors', RFC 6979 ECDSA, the Mersenne-prime RSA key); the script stops if a
# single byte differs. Sections 16.8 (ES384), 16.9 (ES512), 16.12 (Ed448), 16.13 (TPM),
# 16.14 (Android Key) and 16.15 (Apple) are not included: no verbatim copy was available.

SPEC_SOURCE = "W3C Web Authentication Level 3, §16 Test Vectors (https://www.w3.org/TR/webauthn-3/#sctn-test-vectors)"
SPEC_NOW = NOW

SPEC_ATTESTATION_CA_CERT = (
    "30820207308201ada003020102021100ed7f905d8bd0b414d1784913170a90b6300a06082a8648ce3d0403023062311e301c"
    "06035504030c15576562417574686e207465737420766563746f7273310c300a060355040a0c0357334331253023060355040b"
    "0c1c41757468656e74696361746f72204174746573746174696f6e204341310b30090603550406130241413020170d3234303130"
    "313030303030305a180f33303234303130313030303030305a3062311e301c06035504030c15576562417574686e2074657374"
    "20766563746f7273310c300a060355040a0c0357334331253023060355040b0c1c41757468656e74696361746f722041747465"
    "73746174696f6e204341310b30090603550406130241413059301306072a8648ce3d020106082a8648ce3d030107034200043269"
    "300e5ff7b699015f70cf80a8763bf705bc2e2af0c1b39cff718b7c35880ca30f319078d91b03389a006fdfc8a1dcd84edfa07d30"
    "aa13474a248a0dab5baaa3423040300f0603551d130101ff040530030101ff300e0603551d0f0101ff040403020106301d060355"
    "1d0e0416041445aff715b0dd786741fee996ebc16547a3931b1e300a06082a8648ce3d04030203480030450220483063b6bb08dc"
    "c83da33a02c11d2f42203176893554d138c614a36908724cc8022100f5ef2c912d4500b3e2f5b591d0622491e9f220dfd1f9734e"
    "c484bb7e90887663")

_CDJ_CREATE = "7b2274797065223a22776562617574686e2e637265617465222c226368616c6c656e6765223a22"
_CDJ_GET = "7b2274797065223a22776562617574686e2e676574222c226368616c6c656e6765223a22"
_ORIGIN_FALSE = "222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73734f726967696e223a66616c7365"
_ORIGIN_TRUE = "222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73734f726967696e223a74727565"
_EXTRA = ("2c22657874726144617461223a22636c69656e74446174614a534f4e206d617920626520657874656e64656420776974682061"
          "64646974696f6e616c206669656c647320696e20746865206675747572652c207375636820617320746869733a20")
_RPH = "bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b5"

# The spec's test-vector attestation leaves share everything but key, serial and signature.
_SPEC_LEAF_HEAD = ("3062311e301c06035504030c15576562417574686e207465737420766563746f7273310c300a060355040a0c03573343312530"
                   "23060355040b0c1c41757468656e74696361746f72204174746573746174696f6e204341310b3009060355040613024141"
                   "3020170d3234303130313030303030305a180f33303234303130313030303030305a305f311e301c06035504030c1557"
                   "6562417574686e207465737420766563746f7273310c300a060355040a0c0357334331223020060355040b0c1941757468"
                   "656e74696361746f72204174746573746174696f6e310b30090603550406130241413059301306072a8648ce3d020106"
                   "082a8648ce3d03010703420004")
_SPEC_LEAF_EXT = ("a360305e300c0603551d130101ff04023000300e0603551d0f0101ff040403020780301d0603551d0e04160414")
_SPEC_LEAF_AKI = "301f0603551d2304183016801445aff715b0dd786741fee996ebc16547a3931b1e300a06082a8648ce3d040302"

SPEC_LONG_CREDENTIAL_ID = (
    "3a761a4e1674ad6c4305869435c0eee9c286172c229bb91b48b4ada140c0863417031305cce5b4a27a88d7fe728a5f5a627de771b"
    "4b40e77f187980c124f9fe832d7136010436a056cce716680587d23187cf1fc2c62ae86fc3e508ee9617ffc74fbc10488ec16ec5e"
    "9096328669a898709b655e549738c666c1ae6281dc3b5f733c251d3eefb76ee70a3805ca91bcc18e49c8dc7f63ebcb486ba8c3d6a"
    "b52b88ff72c6a5bb47c32f3ee8683a3ddc8abf60870448ec8a21b5bdcb183c7dead870255575a6df96eb1b6a2a1019780cba9e488"
    "7b17ff1164bbbcc10eb0d86ed75984cd3fa3419103024507dfd9ce8f92c56af7914cb0bb50b87ba82a312bb7dcd93028dbdcd6adb"
    "266979667158335171e3682d37755701edbf9d872846a291d49e57ef09da1ec637f5052ed2aa7407f7e61827468e94b461844f4c6"
    "7be5fa9c6055a566f8fdfc29d4bf78a9ff275f552cc68ba543fa3962eea36fd1ea8453764577d021d0a181efc1f6100ab2e411003"
    "9e21ee16970bda7432b6134492155afc126295b3a2eccd12c66a68e340969e995e3e8c9c476e395cfc21203414110779474f1c979"
    "7406637dbe414f132519d3bf0ce4f01734ef0e1a12c3ad604ff15d766b1624db6a5a7ccbff7bc35c9908df94aba277e0af48f04ff"
    "3d16381c47e5a37ed3988a67a3b1ecaa926336b33391fff04128f869991c9fabd905b6fe3ceef5f8b630ec1c5d2636d5b1961ad5c"
    "a5004170f6f5e482792aad989b0287fe91e5c479403397152f1fa56aa79b156eb47e6c8ea3eb175c34cfb38ad8e772874639b1023"
    "d4d01395c94e55831671cc022aa6fa1e02a02c2e4abc776f6960e51f83b71a8c0f207b6a347573977812c9aa5480b0011aa739bd4"
    "b76c18c000cc4757cceccb920f007c40c00e37e5ab21476cd9f6054a8fffb55a108f5c706e2cea2049d81fd321ff47d2a5761b080"
    "0955ab1d4f4889f55a84e2601c684f17a4ade7453ea49591d0b59c8d9a765052f62219cf6ef4a5dd9539f0617d6ebbebce7c00045"
    "5475d18449e25c49ef9a1e3efe18c09082ebe2058d7c347defaa92f0664553b805c7d76bbfce5f330aca220ac90a789380fc479ea"
    "0d8793205813cca590a912f699ad52f991a1bc0a503c3ec4b2a696719e3c26591a87127f7305cc7e72f4c8e39355ebb06a5b10429"
    "90f38710ee7aa612ee4374bb82e878585a70a96c2a6b47f101a4ff154be4fd76a3167577a5cc54d9167c154c69ac35485e44cc898"
    "b719e1be3cc9c0fb5624b8f8a0dae10947a41bf848b6c1bb33d1006ec077d7e286e3f2a7b4843716390119449fe2721e81a5ed233"
    "3d331c7120765da58fadae73c19d9a8c4509cf8ac1e9d98b799a5274509069739b5823f3fb496663820033426988eefca53e580e0"
    "f9e0dfe0992fc2e53a97e053639f98577058f995bdbd41cefdb")

SPEC_SECTIONS: list[dict[str, Any]] = [
    {
        "section": "16.2", "anchor": "sctn-test-vectors-none-es256", "title": "ES256 Credential with No Attestation",
        "info": "none.ES256", "kind": "none", "alg": ES256,
        "registration": {
            "challenge": "00c30fb78531c464d2b6771dab8d7b603c01162f2fa486bea70f283ae556e130",
            "credential_private_key": "6e68e7a58484a3264f66b77f5d6dc5bc36a47085b615c9727ab334e8c369c2ee",
            "aaguid": "8446ccb9ab1db374750b2367ff6f3a1f",
            "credential_id": "f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4",
            "clientDataJSON": _CDJ_CREATE + "414d4d507434557878475453746e63647134313759447742466938767049612d7077386f4f755657345441"
                              + _ORIGIN_FALSE + _EXTRA + "426b5165446a646354427258426941774a544c453551227d",
            "attestationObject": "a363666d74646e6f6e656761747453746d74a068617574684461746158a4" + _RPH
                                 + "59000000008446ccb9ab1db374750b2367ff6f3a1f0020f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61225820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220",
        },
        "authentication": {
            "challenge": "39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408",
            "authenticatorData": _RPH + "1900000000",
            "clientDataJSON": _CDJ_GET + "4f63446e55685158756c5455506f334a5558543049393770767a7a59425039745a63685879617630314167" + _ORIGIN_FALSE + "7d",
            "signature": "3046022100f50a4e2e4409249c4a853ba361282f09841df4dd4547a13a87780218deffcd380221008480ac0f0b93538174f575bf11a1dd5d78c6e486013f937295ea13653e331e87",
        },
    },
    {
        "section": "16.3", "anchor": "sctn-test-vectors-packed-self-es256", "title": "ES256 Credential with Self Attestation",
        "info": "packed-self.ES256", "kind": "self", "alg": ES256,
        "registration": {
            "challenge": "7869c2b772d4b58eba9378cf8f29e26cf935aa77df0da89fa99c0bdc0a76f7e5",
            "credential_private_key": "b4bbfa5d68e1693b6ef5a19a0e60ef7ee2cbcac81f7fec7006ac3a21e0c5116a",
            "aaguid": "df850e09db6afbdfab51697791506cfc",
            "credential_id": "455ef34e2043a87db3d4afeb39bbcb6cc32df9347c789a865ecdca129cbef58c",
            "clientDataJSON": _CDJ_CREATE + "65476e4374334c55745936366b336a506a796e6962506b31716e666644616966715a774c33417032392d55"
                              + _ORIGIN_FALSE + _EXTRA + "5539685458764b453255526b4d6e625f307859485667227d",
            "attestationObject": "a363666d74667061636b65646761747453746d74a263616c672663736967584630440220067a20754ab925005dbf378097c92120031581c73228d1fb4f5b881bcd7da98302207fc7b147558c7c0eba3af18bd9d121fa3d3a26d17fe3f220272178f473b6006d68617574684461746158a4" + _RPH
                                 + "5d00000000df850e09db6afbdfab51697791506cfc0020455ef34e2043a87db3d4afeb39bbcb6cc32df9347c789a865ecdca129cbef58ca5010203262001215820eb151c8176b225cc651559fecf07af450fd85802046656b34c18f6cf193843c5225820927b8aa427a2be1b8834d233a2d34f61f13bfd44119c325d5896e183fee484f2",
        },
        "authentication": {
            "challenge": "4478a10b1352348dd160c1353b0d469b5db19eb91c27f7dfa6fed39fe26af20b",
            "authenticatorData": _RPH + "0900000000",
            "clientDataJSON": _CDJ_GET + "5248696843784e534e493352594d45314f7731476d3132786e726b634a5f6666707637546e2d4a71386773"
                              + _ORIGIN_FALSE + _EXTRA + "6754623533727a36456853576f6d58477a696d433151227d",
            "signature": "304402203310b9431903c401f1be2bdc8d23a4007682dbbddcf846994947b7f465daf84002204e94dd00047b316061b3b99772b7efd95994a83ef584b3b6b825ea3550251b66",
        },
    },
    {
        "section": "16.4", "anchor": "sctn-test-vectors-none-es256-crossOrigin",
        "title": "ES256 Credential with \"crossOrigin\": true in clientDataJSON",
        "info": "none.ES256.crossOrigin", "kind": "none", "alg": ES256, "cross_origin": True,
        "registration": {
            "challenge": "3be5aacd03537142472340ab5969f240f1d87716e20b6807ac230655fa4b3b49",
            "credential_private_key": "96c940e769bd9f1237c119f144fa61a4d56af0b3289685ae2bef7fb89620623d",
            "aaguid": "883f4f6014f19c09d87aa38123be48d0",
            "credential_id": "6e1050c0d2ca2f07c755cb2c66a74c64fa43065c18f938354d9915db2bd5ce57",
            "clientDataJSON": _CDJ_CREATE + "4f2d57717a514e5463554a484930437257576e7951504859647862694332674872434d475666704c4f306b"
                              + _ORIGIN_TRUE + _EXTRA + "7a5a7175457444523944577170573574425754467567227d",
            "attestationObject": "a363666d74646e6f6e656761747453746d74a068617574684461746158a4" + _RPH
                                 + "4500000000883f4f6014f19c09d87aa38123be48d000206e1050c0d2ca2f07c755cb2c66a74c64fa43065c18f938354d9915db2bd5ce57a501020326200121582022200a473f90b11078851550d03b4e44a2279f8c4eca27b3153dedfe03e4e97d225820cbd0be95e746ad6f5a8191be11756e4c0420e72f65b466d39bc56b8b123a9c6e",
        },
        "authentication": {
            "challenge": "876aa517ba83fdee65fcffdbca4c84eeae5d54f8041a1fc85c991e5bbb273137",
            "authenticatorData": _RPH + "0500000000",
            "clientDataJSON": _CDJ_GET + "6832716c463771445f65356c5f505f62796b7945377135645650674547685f49584a6b655737736e4d5463"
                              + _ORIGIN_TRUE + _EXTRA + "39327063545644304162792d713464746d6a36656667227d",
            "signature": "3046022100eb12fcf23b12764c0f122e22371fab92e283879fd798f38ee1841c951b6e40e7022100c76237ff9db77b3c56f30837cda6a09acfa2e915544e609c0733b1184036d1cf",
        },
    },
    {
        "section": "16.5", "anchor": "sctn-test-vectors-none-es256-topOrigin",
        "title": "ES256 Credential with \"topOrigin\" in clientDataJSON",
        "info": "none.ES256.topOrigin", "kind": "none", "alg": ES256, "cross_origin": True,
        "top_origin": "https://example.com",
        "registration": {
            "challenge": "4e1f4c6198699e33c14f192153f49d7e0e8e3577d5ac416c5f3adc92a41f27e5",
            "credential_private_key": "a2d6de40ab974b80d8c1ef78c6d4300097754f7e016afe7f8ea0ad9798b0d420",
            "aaguid": "97586fd09799a76401c200455099ef2a",
            "credential_id": "b8ad59b996047ab18e2ceb57206c362da57458793481f4a8ebf101c7ca7cc0f1",
            "clientDataJSON": _CDJ_CREATE + "5468394d595a68706e6a504254786b68555f53646667364f4e58665672454673587a72636b7151664a2d55"
                              + _ORIGIN_TRUE + "2c22746f704f726967696e223a2268747470733a2f2f6578616d706c652e636f6d227d",
            "attestationObject": "a363666d74646e6f6e656761747453746d74a068617574684461746158a4" + _RPH
                                 + "410000000097586fd09799a76401c200455099ef2a0020b8ad59b996047ab18e2ceb57206c362da57458793481f4a8ebf101c7ca7cc0f1a5010203262001215820a1c47c1d82da4ebe82cd72207102b380670701993bc35398ae2e5726427fe01d22582086c1080d82987028c7f54ecb1b01185de243b359294a0ed210cd47480f0adc88",
        },
        "authentication": {
            "challenge": "d54a5c8ca4b62a8e3bb321e3b2bc73856f85a10150db2939ac195739eb1ea066",
            "authenticatorData": _RPH + "0500000000",
            "clientDataJSON": _CDJ_GET + "315570636a4b53324b6f34377379486a7372787a68572d466f51465132796b3572426c584f6573656f4759"
                              + _ORIGIN_TRUE + "2c22746f704f726967696e223a2268747470733a2f2f6578616d706c652e636f6d22" + _EXTRA
                              + "5569466f4a4d56525148444146574669347678557051227d",
            "signature": "3045022100b5a70c81780d5fcc9a4f2ae9caae99058f8accaf58b91fb59329646c28ac6ffc022012e101c165db3c8e9957f0c54dd6ca9b56bc3bd2f280bd2faa6c1d02c6e5c171",
        },
    },
    {
        "section": "16.6", "anchor": "sctn-test-vectors-none-es256-long-credential-id",
        "title": "ES256 Credential with very long credential ID",
        "info": "none.ES256.long-credential-id", "kind": "none", "alg": ES256, "credential_id_length": 1023,
        "registration": {
            "challenge": "1113c7265ccf5e65124282fa1d7819a7a14cb8539aa4cdbec7487e5f35d8ec6c",
            "credential_private_key": "6fd2149bb5f1597fe549b138794bde61893b2dc32ca316de65f04808dac211dc",
            "aaguid": "8f3360c2cd1b0ac14ffe0795c5d2638e",
            "credential_id": SPEC_LONG_CREDENTIAL_ID,
            "clientDataJSON": _CDJ_CREATE + "455250484a6c7a50586d5553516f4c364858675a7036464d75464f61704d322d7830682d587a5859374777"
                              + _ORIGIN_FALSE + "7d",
            "attestationObject": "a363666d74646e6f6e656761747453746d74a0686175746844617461590483" + _RPH
                                 + "49000000008f3360c2cd1b0ac14ffe0795c5d2638e03ff" + SPEC_LONG_CREDENTIAL_ID
                                 + "a50102032620012158203b8176b7504489cc593046d7988abb7905a742de6ac2cdc748a873c663e90cb12258201436d5edc9a75f23999eef9d5950a5c2455514ee1014084720f841a06b828a11",
        },
        "authentication": {
            "challenge": "ef1deba56dce48f674a447ccf63b9599258ce87648e5c396f2ef0ca1da460e3b",
            "authenticatorData": _RPH + "0d00000000",
            "clientDataJSON": _CDJ_GET + "377833727057334f53505a307045664d396a75566d53574d36485a4935634f573875384d6f647047446a73"
                              + _ORIGIN_FALSE + "7d",
            "signature": "304502203ecef83fb12a0cae7841055f9f87103a99fd14b424194bbf06c4623d3ee6e3fd022100d2ace346db262b1374a6b70faa51f518a42ddca13a4125ce6f5052a75bac9fb6",
        },
    },
    {
        "section": "16.7", "anchor": "sctn-test-vectors-packed-es256", "title": "Packed Attestation with ES256 Credential",
        "info": "packed.ES256", "kind": "x5c", "alg": ES256,
        "registration": {
            "challenge": "c1184a5fddf8045e13dc47f54b61f5a656b666b59018f16d870e9256e9952012",
            "credential_private_key": "36ed7bea2357cefa8c4ec7e134f3312d2e6ca3058519d0bcb4c1424272010432",
            "aaguid": "876ca4f52071c3e9b25509ef2cdf7ed6",
            "credential_id": "c9a6f5b3462d02873fea0c56862234f99f081728084e511bb7760201a89054a5",
            "attestation_private_key": "ec2804b222552b4b277d1f58f8c4343c0b0b0db5474eb55365c89d66a2bc96be",
            "attestation_cert_serial_number": "88c220f83c8ef1feafe94deae45faad0",
            "clientDataJSON": _CDJ_CREATE + "7752684b58393334424634543345663153324831706c61325a725751475046746877365356756d56494249"
                              + _ORIGIN_FALSE + _EXTRA + "396138624e596a4b436757724258552d66436c316167227d",
            "attestationObject": "a363666d74667061636b65646761747453746d74a363616c6726637369675847304502203f19ec4b229f46ab8c45eff29b904ff10c0390dc40bf1216f04a78f4ceba3425022100fe7041a32759aff05a0f9f26c70a999c7a284451ba89234a1d3483c25e21925b637835638159022530820221308201c8a00302010202110088c220f83c8ef1feafe94deae45faad0300a06082a8648ce3d040302"
                                 + _SPEC_LEAF_HEAD + "a91ba4389409dd38a428141940ca8feb1ac0d7b4350558104a3777a49322f3798440f378b3398ab2d3bb7bf91322c92eb23556f59ad0a836fec4c7663b0e4dc3"
                                 + _SPEC_LEAF_EXT + "a589ba72d060842ab11f74fb246bdedab16f9b9b" + _SPEC_LEAF_AKI
                                 + "034700304402201726b9d85ecd8a5ed51163722ca3a20886fd9b242a0aa0453d442116075defd502207ef471e530ac87961a88a7f0d0c17b091ffc6b9238d30f79f635b417be5910e768617574684461746158a4" + _RPH
                                 + "4d00000000876ca4f52071c3e9b25509ef2cdf7ed60020c9a6f5b3462d02873fea0c56862234f99f081728084e511bb7760201a89054a5a50102032620012158201cf27f25da591208a4239c2e324f104f585525479a29edeedd830f48e77aeae522582059e4b7da6c0106e206ce390c93ab98a15a5ec3887e57f0cc2bece803b920c423",
        },
        "authentication": {
            "challenge": "b1106fa46a57bef1781511c0557dc898a03413d5f0f17d244630c194c7e1adb5",
            "authenticatorData": _RPH + "0d00000000",
            "clientDataJSON": _CDJ_GET + "73524276704770587676463446524841565833496d4b4130453958773858306b526a44426c4d6668726255"
                              + _ORIGIN_FALSE + _EXTRA + "415a4d77794d78496244382d756775464e7036723851227d",
            "signature": "30450220694969d3ee928de6f02ef23a9c644d7d779916451734a94b432542f498a1ebe90221008b0819c824218a97152cd099c55bfb1477b29d900a49a64018314f9bfccda163",
        },
    },
    {
        "section": "16.10", "anchor": "sctn-test-vectors-packed-rs256", "title": "Packed Attestation with RS256 Credential",
        "info": "packed.RS256", "kind": "x5c", "alg": RS256,
        "registration": {
            "challenge": "bea8f0770009bd57f2c0df6fea9f743a27e4b61bbe923c862c7aad7a9fc8e4a6",
            "private_key_p": "2^1279 - 1",
            "private_key_q": "2^2203 - 1",
            "aaguid": "428f8878298b9862a36ad8c7527bfef2",
            "credential_id": "992a18acc83f67533600c1138a4b4c4bd236de13629cf025ed17cb00b00b74df",
            "attestation_private_key": "08a1322d5aa5b5b40cd67c2cc30b038e7921d7888c84c342d50d79f0c5fc3464",
            "attestation_cert_serial_number": "1f6fb7a5ece81b45896b983a995da5f3",
            "clientDataJSON": _CDJ_CREATE + "76716a776477414a76566679774e3976367039304f69666b7468752d6b6a79474c48717465705f49354b59"
                              + _ORIGIN_FALSE + "7d",
            "attestationObject": "a363666d74667061636b65646761747453746d74a363616c672663736967584730450221008b8c5c6ea8c142c032e0be69e1353d44461c5c9109941cdda951b976eb95b6b302204d52f406c19e254b3ff9589bd18070fb055ac8db12fdd0a6734bea9d7168e900637835638159022630820222308201c7a00302010202101f6fb7a5ece81b45896b983a995da5f3300a06082a8648ce3d040302"
                                 + _SPEC_LEAF_HEAD + "b7b36b7542a11120b443c794d0c99fdc25a06b76586413d81e086163ef6fe147a557afc34e2861d9057d6d465d4705a0310550bdeeb5f35ee35b9425ab859981"
                                 + _SPEC_LEAF_EXT + "fb37b647bccfb9e54d989eaaacc1633868703fb3" + _SPEC_LEAF_AKI
                                 + "0349003046022100b86bc129d92afca7d9869a39f70f139a305b4073a39eb654d81424bed5757d91022100cf9f7c60cab7c4a7d3e7f0020f281a93d4fd0a9f95121b989f56932a68885fba68617574684461746159021b" + _RPH
                                 + "5d00000000428f8878298b9862a36ad8c7527bfef20020992a18acc83f67533600c1138a4b4c4bd236de13629cf025ed17cb00b00b74dfa4010303390100205901b4"
                                 # n = (2^1279 - 1)(2^2203 - 1), printed in the spec as 436 bytes: 03, 159 x ff, f7, 115 x ff,
                                 # 80, 158 x 00, 01; then -2 (e) = 010001.
                                 + "03" + "ff" * 159 + "f7" + "ff" * 115 + "80" + "00" * 158 + "01" + "2143010001",
        },
        "authentication": {
            "challenge": "295f59f5fa8fe62c5aca9e27626c78c8da376ae6d8cd2dd29aebad601e1bc4c5",
            "authenticatorData": _RPH + "1900000000",
            "clientDataJSON": _CDJ_GET + "4b56395a39667150356978617970346e596d7834794e6f33617562597a5333536d75757459423462784d55"
                              + _ORIGIN_FALSE + "7d",
            "signature": "01063d52d7c39b4d432fc7063c5d93e582bdcb16889cd71f888d67d880ea730a428498d3bc8e1ee11f2b1ecbe6c292b118c55ffaaddefa8cad0a54dd137c51f1eec673f1bb6c4d1789d6826a222b22d0f585fc901fdc933212e579d199b89d672aa44891333e6a1355536025e82b25590256c3538229b55737083b2f6b9377e49e2472f11952f79fdd0da180b5ffd901b4049a8f081bb40711bef76c62aed943571f2d0575304cb549d68d8892f95086a30f93716aee818f8dc06e96c0d5e0ed4cfa9fd8773d90464b68cf140f7986666ff9c9e3302acd0535d60d769f465e2ab57ef8aabc89fccfef7ba32a64154a8b3d26be2298f470b8cc5377dbe3dfd4b0b45f8f01e63bde6cfc76b62771f9b70aa27cf40152cad93aa5acd784fd4b90f676e2ea828d0bf2400aebbaae4153e5838f537f88b6228346782a93a899be66ec77de45b3efcf311da6321c92e6b0cd11bfe653bf3e98cee8e341f02d67dbb6f9c98d9e8178090cfb5b70fbc6d541599ac794ae2f1d4de1286ec8de8c2daf7b1d15c8438e90d924df5c19045220a4c8438c1b979bbe016cf3d0eeec23c3999d4882cc645b776de930756612cdc6dd398160ff02a6",
        },
    },
    {
        "section": "16.11", "anchor": "sctn-test-vectors-packed-eddsa", "title": "Packed Attestation with Ed25519 Credential",
        "info": "packed.EdDSA", "kind": "x5c", "alg": EDDSA,
        "registration": {
            "challenge": "a8abf9dabdc6b0df63466b39bda9e8a34a34e185337a59f1c579990676d3b3bd",
            "private_key": "971f38c0f73aaf0c5a614eb5e26430ae1ea0ed13e4f425d96e9662349340b0b3",
            "aaguid": "d5aa33581e8ca478e20fe713f5d32ff2",
            "credential_id": "ce9f840ed96599580cd140fbc7bb3230633f50f61041aff73308ae71caa8a2bd",
            "attestation_private_key": "fbe7f950684f23afd045072a8b287ad29528707c662672850ac69733ffe0db85",
            "attestation_cert_serial_number": "b2cfc9ea33c8643b0e1a760463eaf164",
            "clientDataJSON": _CDJ_CREATE + "714b763532723347734e396a526d733576616e6f6f306f303459557a656c6e7878586d5a426e6254733730"
                              + _ORIGIN_FALSE + _EXTRA + "425f44543567375a445f2d394f544c59583549764551227d",
            "attestationObject": "a363666d74667061636b65646761747453746d74a363616c67266373696758483046022100d83f60bd80269537583218858aefb03ac57d45fa06e42feaae332d187f62da9f022100a02bd3cb6f7e1d283c93bad1f3f4b5a4c0494463da7fdbf256949116754d1f17637835638159022730820223308201c8a003020102021100b2cfc9ea33c8643b0e1a760463eaf164300a06082a8648ce3d040302"
                                 + _SPEC_LEAF_HEAD + "dd2b7a564b73b8c0b81c4c62e521925c4d1198ec9f583dbf1eebe364b65cd9c29a9bdf346aaa81fb6b9507e5249a52fdaf8e39e26b0b7dc45992a7e233b70f70"
                                 + _SPEC_LEAF_EXT + "0ae27546bc7eccb1b4b597bd354f0c0b1f1f8f8e" + _SPEC_LEAF_AKI
                                 + "0349003046022100a0d434ecb5fc3bfd7da5f41904517ad2836249f561bd834ba7a438a8ab7a4ce8022100fac845bb7a02513b58e9f319654dbe49b0f02b95835bac568c71f8a18cdde9ab6861757468446174615881" + _RPH
                                 + "4100000000d5aa33581e8ca478e20fe713f5d32ff20020ce9f840ed96599580cd140fbc7bb3230633f50f61041aff73308ae71caa8a2bda401010327200621582044e06ddd331c36a8dc667bab52bcae63486c916aa5e339e6acebaa84934bf832",
        },
        "authentication": {
            "challenge": "895957e01c633a698348a2d8a31a54b7db27e8c1c43b2080d79ae2190267bfd2",
            "authenticatorData": _RPH + "0100000000",
            "clientDataJSON": _CDJ_GET + "69566c583442786a4f6d6d44534b4c596f7870557439736e364d48454f7943413135726947514a6e763949"
                              + _ORIGIN_FALSE + "7d",
            "signature": "f5c59c7e46c34f6f8cc197101ddf9934fa2595f68eb1913a637e8419eb9ba4cfdfc48f85393bc0d40b011f0d6fecb097d6607525713223a0dc0d453993dae00b",
        },
    },
    {
        "section": "16.16", "anchor": "sctn-test-vectors-fido-u2f-es256", "title": "FIDO U2F Attestation with ES256 Credential",
        "info": "fido-u2f.ES256", "kind": "u2f", "alg": ES256,
        "registration": {
            "challenge": "e074372990b9caa507a227dfc67b003780c45325380d1a90c20f81ed7d080c06",
            "credential_id": "a4ba6e2d2cfec43648d7d25c5ed5659bc18f2b781538527ebd492de03256bdf4",
            "aaguid": "afb3c2efc054df425013d5c88e79c3c1",
            "clientDataJSON": _CDJ_CREATE + "344851334b5a4335797155486f696666786e73414e344445557955344452715177672d4237583049444159"
                              + _ORIGIN_FALSE + "7d",
            "attestationObject": "a363666d74686669646f2d7532666761747453746d74a26373696758473045022100f41887a20063bb26867cb9751978accea5b81791a68f4f4dd6ea1fb6a5c086c302204e5e00aa3895777e6608f1f375f95450045da3da57a0e4fd451df35a31d2d98a637835638159022530820221308201c7a003020102021004f66dc6542ea7719dea416d325a2401300a06082a8648ce3d040302"
                                 + _SPEC_LEAF_HEAD + "56fffa7093dede46aefeefb6e520c7ccc78967636e2f92582ba71455f64e93932dff3be4e0d4ef68e3e3b73aa087e26a0a0a30b02dc2aa2309db4c3a2fc936de"
                                 + _SPEC_LEAF_EXT + "420822eb1908b5cd3911017fbcad4641c05e05a3" + _SPEC_LEAF_AKI
                                 + "034800304502200d0b777f0a0b181ad2830275acc3150fd6092430bcd034fd77beb7bdf8c2d546022100d4864edd95daa3927080855df199f1717299b24a5eecefbd017455a9b934d8f668617574684461746158a4" + _RPH
                                 + "4100000000afb3c2efc054df425013d5c88e79c3c10020a4ba6e2d2cfec43648d7d25c5ed5659bc18f2b781538527ebd492de03256bdf4a5010203262001215820b0d62de6b30f86f0bac7a9016951391c2e31849e2e64661cbd2b13cd7d5508ad225820503b0bda2a357a9a4b34475a28e65b660b4898a9e3e9bbf0820d43494297edd0",
        },
        "authentication": {
            "challenge": "f90c612981d84f599438de1a500f76926e92cc84bef8e02c6e23553f00485435",
            "authenticatorData": _RPH + "0100000000",
            "clientDataJSON": _CDJ_GET + "2d5178684b59485954316d554f4e3461554139326b6d36537a49532d2d4f417362694e5650774249564455"
                              + _ORIGIN_FALSE + "7d",
            "signature": "304402206172459958fea907b7292b92f555034bfd884895f287a76200c1ba287239137002204727b166147e26a21bbc2921d192ebfed569b79438538e5c128b5e28e6926dd7",
        },
    },
]


class SpecRand:
    """§16: value i of a vector is HKDF-SHA-256(IKM='WebAuthn test vectors', salt=[i], info=<vector info>)."""

    def __init__(self, info: str) -> None:
        self.info, self.i = info, 0

    def __call__(self, length: int) -> bytes:
        out = HKDF(algorithm=hashes.SHA256(), length=length, salt=bytes([self.i]),
                   info=self.info.encode("utf-8")).derive(b"WebAuthn test vectors")
        self.i += 1
        return out


def _spec_name(ou: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "WebAuthn test vectors"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "W3C"),
                      x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou),
                      x509.NameAttribute(NameOID.COUNTRY_NAME, "AA")])


def _spec_cert(subject: x509.Name, pub: Any, serial_number: int, issuer: x509.Name, issuer_key: Any,
               ca: bool, aki_from: x509.Certificate | None) -> x509.Certificate:
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(pub)
         .serial_number(serial_number)
         .not_valid_before(dt.datetime(2024, 1, 1, tzinfo=UTC)).not_valid_after(dt.datetime(3024, 1, 1, tzinfo=UTC))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
         .add_extension(key_usage(signer=ca), critical=True)
         .add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False))
    if aki_from is not None:
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
            aki_from.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value), critical=False)
    return b.sign(issuer_key, hashes.SHA256(), ecdsa_deterministic=True)


def derive_spec_section(sec: dict[str, Any], ca_cert: x509.Certificate, ca_key: Any) -> dict[str, dict[str, str]]:
    """Re-derive one §16 vector with the procedure the spec states, independently of the transcription."""
    r = SpecRand(sec["info"])
    alg, kind = sec["alg"], sec["kind"]
    cross, top = sec.get("cross_origin", False), sec.get("top_origin")

    def cdata(ctype: str, challenge: bytes) -> bytes:
        flags = r(1)[0]                           # client_data_gen_flags
        d: dict[str, Any] = {"type": ctype, "challenge": b64url(challenge), "origin": ORIGIN, "crossOrigin": cross}
        if top is not None:
            d["topOrigin"] = top
        if flags & 0x01:
            d["extraData"] = ("clientDataJSON may be extended with additional fields in the future, such as this: "
                              + b64url(r(16)))
        return json.dumps(d, separators=(",", ":")).encode()

    challenge = r(32)
    if alg == RS256:
        key = rsa_key_from_primes(2 ** 1279 - 1, 2 ** 2203 - 1)
        cose_key = cose_rsa(key.public_key(), RS256)
        signer = lambda m: key.sign(m, padding.PKCS1v15(), hashes.SHA256())  # noqa: E731
    elif alg == EDDSA:
        key = ed25519.Ed25519PrivateKey.from_private_bytes(r(32))
        cose_key = cose_okp(key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw),
                            EDDSA, 6)
        signer = key.sign
    else:
        key = ec.derive_private_key(int.from_bytes(r(32), "big"), ec.SECP256R1())
        cose_key = cose_ec2(key.public_key(), ES256, 1)
        signer = lambda m: key.sign(m, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))  # noqa: E731
    cdj = cdata("webauthn.create", challenge)
    aaguid = r(16)
    cred_id = r(sec.get("credential_id_length", 32))
    acd = attested_credential_data(aaguid, cred_id, cose_key)
    if kind == "u2f":
        flags = UP | AT
    else:
        f = r(1)[0] & (UV | BE | BS)              # auth_data_UV_BE_BS; BS only if BE
        flags = (f if f & BE else f & ~(BE | BS)) | UP | AT
    ad = auth_data(flags, 0, attested=acd)

    def att_cert() -> tuple[x509.Certificate, Any]:
        k = ec.derive_private_key(int.from_bytes(r(32), "big"), ec.SECP256R1())
        sn = int.from_bytes(r(16), "big")
        return _spec_cert(_spec_name("Authenticator Attestation"), k.public_key(), sn, ca_cert.subject, ca_key,
                          False, ca_cert), k

    ecdsa = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
    if kind == "none":
        att = attestation_object("none", {}, ad)
    elif kind == "self":
        att = attestation_object("packed", {"alg": ES256, "sig": signer(ad + sha256(cdj))}, ad)
    elif kind == "x5c":
        cert, k = att_cert()
        att = attestation_object("packed", {"alg": ES256, "sig": k.sign(ad + sha256(cdj), ecdsa),
                                            "x5c": [der(cert)]}, ad)
    else:
        cert, k = att_cert()
        data = b"\x00" + sha256(RP_ID.encode()) + sha256(cdj) + cred_id + u2f_public_key(cose_key)
        att = attestation_object("fido-u2f", {"sig": k.sign(data, ecdsa), "x5c": [der(cert)]}, ad)

    challenge2 = r(32)
    cdj2 = cdata("webauthn.get", challenge2)
    be = flags & BE
    f2 = r(1)[0] & (UV | BS)                      # auth_data_UV_BS; BS only if BE was set at registration
    flags2 = (f2 if be else f2 & ~(BE | BS)) | be | UP
    ad2 = auth_data(flags2, 0)
    return {
        "registration": {"challenge": challenge.hex(), "aaguid": aaguid.hex(), "credential_id": cred_id.hex(),
                         "clientDataJSON": cdj.hex(), "attestationObject": att.hex()},
        "authentication": {"challenge": challenge2.hex(), "authenticatorData": ad2.hex(),
                           "clientDataJSON": cdj2.hex(), "signature": signer(ad2 + sha256(cdj2)).hex()},
    }


def verify_signature(cose_key: dict[int, Any], signature: bytes, data: bytes) -> bool:
    """Independent check of an assertion signature against a COSE_Key (used for sanity checks)."""
    kty, alg = cose_key[1], cose_key[3]
    try:
        if kty == 2:
            curve, size, _ = CURVES[cose_key[-1]]
            pub = ec.EllipticCurvePublicKey.from_encoded_point(curve, b"\x04" + cose_key[-2] + cose_key[-3])
            pub.verify(signature, data, ec.ECDSA(EC_ALGS[alg][1]))
        elif kty == 1:
            ed25519.Ed25519PublicKey.from_public_bytes(cose_key[-2]).verify(signature, data)
        elif kty == 3:
            pub = rsa.RSAPublicNumbers(int.from_bytes(cose_key[-2], "big"),
                                       int.from_bytes(cose_key[-1], "big")).public_key()
            if alg == PS256:
                pub.verify(signature, data, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32),
                           hashes.SHA256())
            else:
                pub.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
        else:
            return False
        return True
    except (InvalidSignature, ValueError):
        return False


def parse_credential(ad: bytes) -> tuple[bytes, bytes, bytes]:
    """(aaguid, credentialId, COSE_Key bytes) from authenticator data with AT set and no extensions."""
    assert ad[32] & AT
    cid_len = struct.unpack(">H", ad[53:55])[0]
    cid = ad[55:55 + cid_len]
    cose_bytes = ad[55 + cid_len:]
    assert cbor(cbor2.loads(cose_bytes)) == cose_bytes
    return ad[37:53], cid, cose_bytes


def spec_vectors() -> dict[str, Any]:
    ca_cert = x509.load_der_x509_certificate(bytes.fromhex(SPEC_ATTESTATION_CA_CERT))
    ca_key = ec.derive_private_key(int.from_bytes(SpecRand("Attestation CA")(32), "big"), ec.SECP256R1())
    rebuilt_ca = _spec_cert(_spec_name("Authenticator Attestation CA"), ca_key.public_key(),
                            int.from_bytes(HKDF(algorithm=hashes.SHA256(), length=16, salt=b"\x01",
                                                info=b"Attestation CA").derive(b"WebAuthn test vectors"), "big"),
                            _spec_name("Authenticator Attestation CA"), ca_key, True, None)
    assert der(rebuilt_ca).hex() == SPEC_ATTESTATION_CA_CERT, "§16.1 CA certificate does not re-derive"

    transcription: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    for sec in SPEC_SECTIONS:
        derived = derive_spec_section(sec, ca_cert, ca_key)
        for part in ("registration", "authentication"):
            for k, v in derived[part].items():
                assert sec[part][k] == v, f"§{sec['section']} {part}.{k}: transcription differs from re-derivation"

        reg, auth = sec["registration"], sec["authentication"]
        att_obj = bytes.fromhex(reg["attestationObject"])
        obj = cbor2.loads(att_obj)
        assert cbor(obj) == att_obj
        ad = obj["authData"]
        aaguid, cid, cose_bytes = parse_credential(ad)
        assert cid.hex() == reg["credential_id"] and aaguid.hex() == reg["aaguid"]
        cose_key = cbor2.loads(cose_bytes)
        cdj = bytes.fromhex(reg["clientDataJSON"])
        # Attestation signature checks.
        if obj["fmt"] == "packed":
            st = obj["attStmt"]
            if "x5c" in st:
                leaf = x509.load_der_x509_certificate(st["x5c"][0])
                leaf.verify_directly_issued_by(ca_cert)
                leaf.public_key().verify(st["sig"], ad + sha256(cdj), ec.ECDSA(hashes.SHA256()))
            else:
                assert verify_signature(cose_key, st["sig"], ad + sha256(cdj))
        elif obj["fmt"] == "fido-u2f":
            st = obj["attStmt"]
            leaf = x509.load_der_x509_certificate(st["x5c"][0])
            leaf.verify_directly_issued_by(ca_cert)
            leaf.public_key().verify(st["sig"], b"\x00" + ad[:32] + sha256(cdj) + cid + u2f_public_key(cose_bytes),
                                     ec.ECDSA(hashes.SHA256()))
        ad2 = bytes.fromhex(auth["authenticatorData"])
        cdj2 = bytes.fromhex(auth["clientDataJSON"])
        assert verify_signature(cose_key, bytes.fromhex(auth["signature"]), ad2 + sha256(cdj2))

        entry = {"section": sec["section"], "anchor": sec["anchor"], "title": sec["title"],
                 "url": f"https://www.w3.org/TR/webauthn-3/#{sec['anchor']}",
                 "registration": dict(reg), "authentication": dict(auth),
                 "credential_public_key": cose_bytes.hex()}
        transcription.append(entry)

        # The same vector in the schema of registration.json / authentication.json.
        slug = sec["anchor"].removeprefix("sctn-test-vectors-").lower()
        x5c = obj["fmt"] != "none" and "x5c" in obj["attStmt"]
        flags = ad[32]
        cross = sec.get("cross_origin", False)
        tops = [sec["top_origin"]] if sec.get("top_origin") else []
        att_type = "none" if obj["fmt"] == "none" else ("basic" if x5c else "self")
        cases.append({
            "name": f"w3c-{sec['section'].replace('.', '-')}-{slug}-registration",
            "description": f"WebAuthn L3 §{sec['section']} {sec['title']}: registration, as published.",
            "ceremony": "registration", "rp_id": RP_ID, "origins": [ORIGIN], "allow_cross_origin": cross,
            "top_origins": tops, "challenge": b64url(bytes.fromhex(reg["challenge"])),
            "user_verification": "preferred", "algorithms": ALL_ALGORITHMS,
            "trust_anchors": [pem(ca_cert)] if x5c else [], "now": SPEC_NOW,
            "response": registration_json(cid, cdj, att_obj, extra=to_json_extras(att_obj)),
            # §16.16 gives its fido-u2f credential a random AAGUID, which U2F does not sign: this
            # server refuses any AAGUID but zeros in a fido-u2f statement.
            "expect": {"result": "reject", "error": "invalid_attestation"} if obj["fmt"] == "fido-u2f" and any(aaguid) else
                      {"result": "accept", "fmt": obj["fmt"], "attestation_type": att_type,
                       "attestation_trusted": x5c, "algorithm": cose_key[3], "credential_id": b64url(cid),
                       "sign_count": struct.unpack(">I", ad[33:37])[0], "aaguid": uuid_string(aaguid),
                       "user_verified": bool(flags & UV), "backup_eligible": bool(flags & BE),
                       "backup_state": bool(flags & BS), "public_key": b64url(cose_bytes)},
        })
        flags2 = ad2[32]
        cases.append({
            "name": f"w3c-{sec['section'].replace('.', '-')}-{slug}-authentication",
            "description": f"WebAuthn L3 §{sec['section']} {sec['title']}: authentication, as published.",
            "ceremony": "authentication", "rp_id": RP_ID, "origins": [ORIGIN], "allow_cross_origin": cross,
            "top_origins": tops, "challenge": b64url(bytes.fromhex(auth["challenge"])),
            "user_verification": "preferred", "algorithms": ALL_ALGORITHMS, "trust_anchors": [], "now": SPEC_NOW,
            "credential": {"id": b64url(cid), "public_key": b64url(cose_bytes), "algorithm": cose_key[3],
                           "sign_count": 0, "user_handle": b64url(b"w3c-test-vector-user"),
                           "backup_eligible": bool(flags & BE)},
            "allow_credentials": [b64url(cid)],
            "response": assertion_json(cid, cdj2, ad2, bytes.fromhex(auth["signature"]), None),
            "expect": {"result": "accept", "credential_id": b64url(cid),
                       "sign_count": struct.unpack(">I", ad2[33:37])[0], "user_verified": bool(flags2 & UV),
                       "backup_state": bool(flags2 & BS)},
        })

    return {
        "generator": GENERATOR,
        "source": SPEC_SOURCE,
        "note": ("Hex values exactly as printed in WebAuthn L3 §16 (RP ID example.org, origin https://example.org). "
                 "generate.py re-derives every value with the §16 procedure and refuses to write this file if a "
                 "byte differs. 'vectors' repeats each section in the schema of registration.json and "
                 "authentication.json; the user handle there is made up because §16 has none. Sections 16.8, "
                 "16.9, 16.12-16.15 are not transcribed."),
        "attestation_ca_cert": {"section": "16.1", "anchor": "sctn-test-vectors-attestation-root-cert",
                                "der": SPEC_ATTESTATION_CA_CERT, "pem": pem(ca_cert)},
        "sections": transcription,
        "vectors": cases,
    }


# --------------------------------------------------------------------------------------------
# Sanity checks on the generated vectors
# --------------------------------------------------------------------------------------------

def b64any(s: str) -> bytes:
    s = s.replace("-", "+").replace("_", "/")
    return base64.b64decode(s + "=" * (-len(s) % 4))


def check_vectors(vectors: list[dict[str, Any]]) -> None:
    names = set()
    for v in vectors:
        assert v["name"] not in names, v["name"]
        names.add(v["name"])
        resp = v["response"]["response"]
        exp = v["expect"]
        if v["ceremony"] == "authentication":
            cose_key = cbor2.loads(b64any(v["credential"]["public_key"]))
            ok = verify_signature(cose_key, b64any(resp["signature"]),
                                  b64any(resp["authenticatorData"]) + sha256(b64any(resp["clientDataJSON"])))
            bad_sig = exp["result"] == "reject" and exp["error"] == "invalid_signature"
            assert ok != bad_sig, f"{v['name']}: signature validity does not match the expectation"
            continue
        if exp["result"] != "accept":
            continue
        att = b64any(resp["attestationObject"])
        obj = cbor2.loads(att)
        assert cbor(obj) == att, v["name"]
        cdj = b64any(resp["clientDataJSON"])
        json.loads(cdj)
        ad = obj["authData"]
        ext = b""
        if ad[32] & ED:
            # Split the credential key from the extensions map.
            cid_len = struct.unpack(">H", ad[53:55])[0]
            rest = ad[55 + cid_len:]
            _, key_len = first_cbor_item(rest)
            ext = rest[key_len:]
            assert first_cbor_item(ext)[1] == len(ext), v["name"]
            ad_key = ad[:len(ad) - len(ext)]
        else:
            ad_key = ad
        aaguid, cid, cose_bytes = parse_credential(ad_key)
        assert b64url(cid) == exp["credential_id"] and b64url(cose_bytes) == exp["public_key"], v["name"]
        assert uuid_string(aaguid) == exp["aaguid"], v["name"]
        cose_key = cbor2.loads(cose_bytes)
        st = obj["attStmt"]
        if obj["fmt"] == "packed" and "x5c" not in st:
            assert verify_signature(cose_key, st["sig"], ad + sha256(cdj)), v["name"]
        elif obj["fmt"] == "packed":
            leaf = x509.load_der_x509_certificate(st["x5c"][0])
            leaf.public_key().verify(st["sig"], ad + sha256(cdj), ec.ECDSA(hashes.SHA256()))
            anchors = [x509.load_pem_x509_certificate(a.encode()) for a in v["trust_anchors"]]
            if exp["attestation_trusted"]:
                chain = [x509.load_der_x509_certificate(c) for c in st["x5c"]]
                for child, parent in zip(chain, chain[1:]):
                    child.verify_directly_issued_by(parent)
                assert any(_issued_by(chain[-1], a) or chain[-1] == a for a in anchors), v["name"]
        elif obj["fmt"] == "fido-u2f":
            leaf = x509.load_der_x509_certificate(st["x5c"][0])
            leaf.public_key().verify(st["sig"], b"\x00" + ad[:32] + sha256(cdj) + cid + u2f_public_key(cose_bytes),
                                     ec.ECDSA(hashes.SHA256()))


def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except (ValueError, TypeError, InvalidSignature):
        return False


# --------------------------------------------------------------------------------------------

def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    pki = PKI()
    registration = registration_vectors(pki)
    authentication = authentication_vectors()
    spec = spec_vectors()
    check_vectors(registration)
    check_vectors(authentication)
    check_vectors(spec["vectors"])
    write_json(HERE / "registration.json", {"generator": GENERATOR, "vectors": registration})
    write_json(HERE / "authentication.json", {"generator": GENERATOR, "vectors": authentication})
    write_json(HERE / "spec.json", spec)
    print(f"registration.json: {len(registration)} vectors")
    print(f"authentication.json: {len(authentication)} vectors")
    print(f"spec.json: {len(spec['sections'])} sections, {len(spec['vectors'])} vectors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
