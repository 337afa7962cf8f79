#!/usr/bin/env python3
"""Certificates for Certificate.subjectAlternativeDNSNames (PasskeyCryptoTests).

Writes, next to this file, one DER certificate per case and subject-alt-names.json saying
what each one's subjectAltName dNSNames are ("dns_names"), or that reading them must fail
("dns_names": null). Well-formed extensions are built with pyca/cryptography's GeneralName
classes; malformed ones are written byte by byte through x509.UnrecognizedExtension.

Deterministic: fixed keys and serials, RFC 6979 ECDSA, so a rerun rewrites identical bytes.
Run:  python3 Tests/PasskeyCryptoTests/Fixtures/subject-alt-names/generate.py
"""

import datetime
import ipaddress
import json
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier

HERE = Path(__file__).resolve().parent
SAN = ObjectIdentifier("2.5.29.17")
UTC = datetime.timezone.utc

ISSUER_KEY = ec.derive_private_key(0x5A4E_0001, ec.SECP256R1())
SUBJECT_KEY = ec.derive_private_key(0x5A4E_0002, ec.SECP256R1())
ISSUER = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Passkey SAN Test CA")])


def certificate(serial: int, common_name: str, extension: x509.ExtensionType | None) -> x509.Certificate:
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
               .issuer_name(ISSUER).public_key(SUBJECT_KEY.public_key()).serial_number(serial)
               .not_valid_before(datetime.datetime(2025, 1, 1, tzinfo=UTC))
               .not_valid_after(datetime.datetime(2035, 1, 1, tzinfo=UTC))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True))
    if extension is not None:
        builder = builder.add_extension(extension, critical=False)
    return builder.sign(ISSUER_KEY, hashes.SHA256(), ecdsa_deterministic=True)


def raw_san(value: bytes) -> x509.UnrecognizedExtension:
    return x509.UnrecognizedExtension(SAN, value)


def tlv(tag: int, content: bytes) -> bytes:
    assert len(content) < 128
    return bytes([tag, len(content)]) + content


CASES = [
    # (file, subject CN, extension, expected dNSNames or None when reading must fail)
    ("mixed.der", "attest.android.com", x509.SubjectAlternativeName([
        x509.DNSName("attest.android.com"),
        x509.RFC822Name("security@example.org"),
        x509.UniformResourceIdentifier("https://example.org/attest"),
        x509.IPAddress(ipaddress.ip_address("192.0.2.7")),
        x509.DirectoryName(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Directory")])),
        x509.OtherName(ObjectIdentifier("1.3.6.1.4.1.311.20.2.3"), b"\x0c\x05alice"),
        x509.RegisteredID(ObjectIdentifier("1.2.3.4")),
        x509.DNSName("*.Example.ORG"),
    ]), ["attest.android.com", "*.Example.ORG"]),
    ("no-extension.der", "attest.android.com", None, []),
    ("no-dns-name.der", "attest.android.com", x509.SubjectAlternativeName([
        x509.RFC822Name("security@example.org"),
        x509.IPAddress(ipaddress.ip_address("2001:db8::1")),
    ]), []),
    ("dns-name-not-ia5.der", "not-ia5", raw_san(tlv(0x30, tlv(0x82, "exämple.org".encode("utf-8")))), None),
    ("empty-general-names.der", "empty", raw_san(b"\x30\x00"), None),
    ("unknown-general-name-tag.der", "bad-tag", raw_san(tlv(0x30, tlv(0x89, b"x"))), None),
    ("primitive-directory-name.der", "bad-form", raw_san(tlv(0x30, tlv(0x84, b"x"))), None),
    ("trailing-bytes.der", "trailing", raw_san(tlv(0x30, tlv(0x82, b"a.example")) + b"\x00"), None),
    ("not-a-sequence.der", "octets", raw_san(tlv(0x04, tlv(0x82, b"a.example"))), None),
    ("truncated.der", "truncated", raw_san(b"\x30\x0b\x82\x09a.exam"), None),
]


def main() -> None:
    described = []
    for serial, (file_name, common_name, extension, dns_names) in enumerate(CASES, start=1):
        cert = certificate(serial, common_name, extension)
        (HERE / file_name).write_bytes(cert.public_bytes(serialization.Encoding.DER))
        described.append({"file": file_name, "dns_names": dns_names})
    document = {"generator": "Tests/PasskeyCryptoTests/Fixtures/subject-alt-names/generate.py",
                "certificates": described}
    (HERE / "subject-alt-names.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(described)} certificates")


if __name__ == "__main__":
    main()
