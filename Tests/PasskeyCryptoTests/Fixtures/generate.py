#!/usr/bin/env python3
"""Generates the PasskeyCryptoTests fixtures with pyca/cryptography (an independent
implementation from the Swift wrapper under test, even if both sit on OpenSSL).

    python3 Tests/PasskeyCryptoTests/Fixtures/generate.py

Writes, next to this script:
  signatures.json            one key + signature per algorithm (ES256 ... RS1), with the SPKI,
                             raw key components and, for ECDSA, edge-case variants of (r, s)
  certificates/*.der         root -> intermediate -> leaf, a look-alike root (same name,
                             other key), and a certificate wrongly issued by the non-CA leaf
  certificates/chain.pem     leaf, intermediate, root as PEM (with text around the blocks)
  certificates/certificates.json   what each certificate contains, for the Swift assertions

Keys are random on every run; validity dates are fixed (2025-01-01 .. 2035-01-01, leaf
2025-06-01 .. 2034-06-01) so the tests can pin their verification time.
"""
import base64
import datetime
import json
import os
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

HERE = os.path.dirname(os.path.abspath(__file__))

# Group orders n from FIPS 186-4 appendix D.1.2 (checked below: (r, n - s) must verify).
ORDERS = {
    "P-256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "P-384": 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973,
    "P-521": 0x01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409,
}
CURVES = {"P-256": ec.SECP256R1(), "P-384": ec.SECP384R1(), "P-521": ec.SECP521R1()}
HASHES = {"sha1": hashes.SHA1, "sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def int_bytes(value: int, length: int = 0) -> bytes:
    length = length or max(1, (value.bit_length() + 7) // 8)
    return value.to_bytes(length, "big")


def spki(public_key) -> bytes:
    return public_key.public_bytes(serialization.Encoding.DER,
                                   serialization.PublicFormat.SubjectPublicKeyInfo)


def ecdsa_vector(name, curve_name, digest, wrong_digest, message):
    key = ec.generate_private_key(CURVES[curve_name])
    algorithm = ec.ECDSA(HASHES[digest]())
    signature = key.sign(message, algorithm)
    public = key.public_key()
    public.verify(signature, message, algorithm)
    numbers = public.public_numbers()
    size = (key.curve.key_size + 7) // 8
    n = ORDERS[curve_name]
    r, s = decode_dss_signature(signature)
    negated_s = encode_dss_signature(r, n - s)
    public.verify(negated_s, message, algorithm)  # also proves ORDERS[curve_name] is right
    return {
        "name": name, "algorithm": "ecdsa", "digest": digest, "wrongDigest": wrong_digest,
        "keyType": "ec", "curve": curve_name,
        "spki": b64(spki(public)),
        "x": b64(int_bytes(numbers.x, size)), "y": b64(int_bytes(numbers.y, size)),
        "signature": b64(signature),
        "order": b64(int_bytes(n)),
        "ecdsaVariants": {
            "negatedS": b64(negated_s),                          # valid (high/low S swapped)
            "rEqualsN": b64(encode_dss_signature(n, s)),         # invalid: r out of range
            "sEqualsN": b64(encode_dss_signature(r, n)),         # invalid: s out of range
            "rPlusN": b64(encode_dss_signature(r + n, s)),       # invalid unless r is reduced mod n
            "sPlusN": b64(encode_dss_signature(r, s + n)),       # invalid unless s is reduced mod n
        },
    }


def eddsa_vector(name, curve_name, message):
    key = (ed25519.Ed25519PrivateKey if curve_name == "Ed25519" else ed448.Ed448PrivateKey).generate()
    signature = key.sign(message)
    public = key.public_key()
    public.verify(signature, message)
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {
        "name": name, "algorithm": "eddsa", "keyType": "edwards", "curve": curve_name,
        "spki": b64(spki(public)), "raw": b64(raw), "signature": b64(signature),
    }


def rsa_vector(name, scheme, digest, wrong_digest, bits, message):
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    hash_algorithm = HASHES[digest]()
    if scheme == "rsaPSS":
        pad = padding.PSS(mgf=padding.MGF1(HASHES[digest]()), salt_length=hash_algorithm.digest_size)
    else:
        pad = padding.PKCS1v15()
    signature = key.sign(message, pad, hash_algorithm)
    public = key.public_key()
    public.verify(signature, message, pad, hash_algorithm)
    numbers = public.public_numbers()
    return {
        "name": name, "algorithm": scheme, "digest": digest, "wrongDigest": wrong_digest,
        "keyType": "rsa", "bits": bits,
        "spki": b64(spki(public)),
        "n": b64(int_bytes(numbers.n)), "e": b64(int_bytes(numbers.e)),
        "signature": b64(signature),
    }


def write_signatures():
    message = b"PasskeyCrypto cross-implementation fixture " + os.urandom(37)
    vectors = [
        ecdsa_vector("ES256", "P-256", "sha256", "sha384", message),
        ecdsa_vector("ES384", "P-384", "sha384", "sha256", message),
        ecdsa_vector("ES512", "P-521", "sha512", "sha256", message),
        eddsa_vector("EdDSA-Ed25519", "Ed25519", message),
        eddsa_vector("EdDSA-Ed448", "Ed448", message),
        rsa_vector("RS256", "rsaPKCS1v15", "sha256", "sha384", 2048, message),
        rsa_vector("RS384", "rsaPKCS1v15", "sha384", "sha256", 3072, message),
        rsa_vector("RS512", "rsaPKCS1v15", "sha512", "sha256", 4096, message),
        rsa_vector("PS256", "rsaPSS", "sha256", "sha384", 2048, message),
        rsa_vector("PS384", "rsaPSS", "sha384", "sha512", 3072, message),
        rsa_vector("PS512", "rsaPSS", "sha512", "sha256", 4096, message),
        rsa_vector("RS1", "rsaPKCS1v15", "sha1", "sha256", 2048, message),
    ]
    document = {
        "generator": "Tests/PasskeyCryptoTests/Fixtures/generate.py (pyca/cryptography)",
        "message": b64(message),
        "vectors": vectors,
    }
    with open(os.path.join(HERE, "signatures.json"), "w") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")


def utc(year, month, day):
    return datetime.datetime(year, month, day, tzinfo=datetime.timezone.utc)


def name(*attributes):
    return x509.Name([x509.NameAttribute(oid, value) for oid, value in attributes])


AAGUID_OID = ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")
TCG_KP_AIK_CERTIFICATE = ObjectIdentifier("2.23.133.8.3")


def build(subject, issuer, public_key, signing_key, digest, not_before, not_after, extensions):
    builder = (x509.CertificateBuilder()
               .subject_name(subject).issuer_name(issuer)
               .public_key(public_key)
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after))
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(signing_key, digest)


def ca_extensions(public_key, issuer_public_key, path_length):
    return [
        (x509.BasicConstraints(ca=True, path_length=path_length), True),
        (x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                       crl_sign=True, encipher_only=False, decipher_only=False), True),
        (x509.SubjectKeyIdentifier.from_public_key(public_key), False),
        (x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public_key), False),
    ]


def describe(certificate, file_name):
    def attributes(dn):
        return [{"oid": a.oid.dotted_string, "value": a.value} for a in dn]
    try:
        is_ca = certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        is_ca = None
    try:
        ekus = [oid.dotted_string for oid in
                certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value]
    except x509.ExtensionNotFound:
        ekus = []
    return {
        "file": file_name,
        "version": certificate.version.value + 1,
        "subject": attributes(certificate.subject),
        "issuer": attributes(certificate.issuer),
        "notBefore": int(certificate.not_valid_before_utc.timestamp()),
        "notAfter": int(certificate.not_valid_after_utc.timestamp()),
        "isCA": is_ca,
        "extendedKeyUsage": ekus,
        "spki": b64(spki(certificate.public_key())),
        "extensions": [{"oid": e.oid.dotted_string, "critical": e.critical,
                        "value": b64(e.value.public_bytes())} for e in certificate.extensions],
    }


def write_certificates():
    directory = os.path.join(HERE, "certificates")
    os.makedirs(directory, exist_ok=True)
    start, end = utc(2025, 1, 1), utc(2035, 1, 1)

    root_key = ec.generate_private_key(ec.SECP384R1())
    root_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Passkey Test Vendor"),
                     (NameOID.COMMON_NAME, "Passkey Test Root CA"))
    root = build(root_name, root_name, root_key.public_key(), root_key, hashes.SHA384(), start, end,
                 ca_extensions(root_key.public_key(), root_key.public_key(), None))

    # Same subject name as the real root, different key: a look-alike root.
    other_root_key = ec.generate_private_key(ec.SECP384R1())
    other_root = build(root_name, root_name, other_root_key.public_key(), other_root_key, hashes.SHA384(),
                       start, end, ca_extensions(other_root_key.public_key(), other_root_key.public_key(), None))

    intermediate_key = ec.generate_private_key(ec.SECP256R1())
    intermediate_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Passkey Test Vendor"),
                             (NameOID.COMMON_NAME, "Passkey Test Attestation CA"))
    intermediate = build(intermediate_name, root_name, intermediate_key.public_key(), root_key, hashes.SHA384(),
                         start, end, ca_extensions(intermediate_key.public_key(), root_key.public_key(), 0))

    leaf_key = ec.generate_private_key(ec.SECP256R1())
    aaguid = uuid.uuid4().bytes
    leaf_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Passkey Test Vendor"),
                     (NameOID.ORGANIZATIONAL_UNIT_NAME, "Authenticator Attestation"),
                     (NameOID.COMMON_NAME, "Passkey Test Authenticator"))
    leaf = build(leaf_name, intermediate_name, leaf_key.public_key(), intermediate_key, hashes.SHA256(),
                 utc(2025, 6, 1), utc(2034, 6, 1), [
                     (x509.BasicConstraints(ca=False, path_length=None), True),
                     (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH, TCG_KP_AIK_CERTIFICATE]), False),
                     (x509.UnrecognizedExtension(AAGUID_OID, b"\x04\x10" + aaguid), False),
                     (x509.AuthorityKeyIdentifier.from_issuer_public_key(intermediate_key.public_key()), False),
                 ])

    # A certificate "issued" by the leaf, whose basicConstraints say cA = FALSE: the leaf must
    # not be usable as an intermediate.
    issued_by_leaf_key = ec.generate_private_key(ec.SECP256R1())
    issued_by_leaf = build(name((NameOID.COMMON_NAME, "Issued By A Non-CA Leaf"),), leaf_name,
                           issued_by_leaf_key.public_key(), leaf_key, hashes.SHA256(),
                           utc(2025, 6, 1), utc(2034, 6, 1),
                           [(x509.BasicConstraints(ca=False, path_length=None), True)])

    described = []
    for file_name, certificate in [("root.der", root), ("intermediate.der", intermediate),
                                   ("leaf.der", leaf), ("other-root.der", other_root),
                                   ("issued-by-leaf.der", issued_by_leaf)]:
        with open(os.path.join(directory, file_name), "wb") as handle:
            handle.write(certificate.public_bytes(serialization.Encoding.DER))
        described.append(describe(certificate, file_name))

    with open(os.path.join(directory, "chain.pem"), "w") as handle:
        handle.write("Attestation chain for PasskeyCryptoTests: leaf, intermediate, root.\n")
        for certificate in (leaf, intermediate, root):
            handle.write(certificate.public_bytes(serialization.Encoding.PEM).decode("ascii"))
        handle.write("(end of chain)\n")

    with open(os.path.join(directory, "certificates.json"), "w") as handle:
        json.dump({
            "generator": "Tests/PasskeyCryptoTests/Fixtures/generate.py (pyca/cryptography)",
            "aaguid": b64(aaguid),
            "certificates": described,
        }, handle, indent=2)
        handle.write("\n")


if __name__ == "__main__":
    write_signatures()
    write_certificates()
