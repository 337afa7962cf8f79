public import Foundation
internal import CPasskeyOpenSSL

/// A parsed X.509 certificate. Owns an `X509 *`.
///
/// Everything readable is copied into Swift values at `init`; the `X509 *` is used afterwards
/// only by `CertificateChain.verify`. Refused at init: trailing bytes, an extension that occurs
/// twice (RFC 5280 §4.2), and a basicConstraints or extendedKeyUsage extension that does not
/// decode.
//
// @unchecked Sendable: the X509 is never mutated after init (its extension cache is filled in
// init, and OpenSSL guards that cache with the object's own lock); chain verification only
// reads it and takes its own references (X509_up_ref is atomic).
public final class Certificate: @unchecked Sendable {
    /// Owned; freed in deinit.
    let pointer: OpaquePointer
    /// The exact bytes given to `init(derEncoded:)`.
    public let derEncoded: [UInt8]
    /// 1, 2 or 3 (X.509 v3 → 3).
    public let version: Int
    public let subject: DistinguishedName
    public let issuer: DistinguishedName
    public let notBefore: Date
    public let notAfter: Date
    /// cA from basicConstraints; nil when the extension is absent.
    public let basicConstraintsIsCA: Bool?
    /// The KeyPurposeIds of extendedKeyUsage in order (empty when absent).
    public let extendedKeyUsageOIDs: [String]
    /// Subject equals issuer (RFC 5280 "self-issued"; says nothing about the signature).
    public let isSelfIssued: Bool
    private let extensions: [Extension]
    private let subjectPublicKeyInfo: [UInt8]

    private struct Extension {
        let oid: String
        let critical: Bool
        let value: [UInt8]
    }

    /// Parses one DER certificate; trailing bytes are refused.
    public init(derEncoded: [UInt8]) throws {
        guard !derEncoded.isEmpty else {
            throw CryptoError(.invalidCertificate, "empty certificate")
        }
        defer { OpenSSLErrorQueue.clear() }
        let (decoded, consumed) = derEncoded.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            return (certificate, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let decoded else {
            throw CryptoError.openSSL(.invalidCertificate, "certificate does not decode")
        }
        do {
            guard consumed == derEncoded.count else {
                throw CryptoError(.invalidCertificate, "\(derEncoded.count - consumed) trailing bytes after the certificate")
            }
            let contents = try Self.read(decoded)
            version = contents.version
            subject = contents.subject
            issuer = contents.issuer
            notBefore = contents.notBefore
            notAfter = contents.notAfter
            basicConstraintsIsCA = contents.basicConstraintsIsCA
            extendedKeyUsageOIDs = contents.extendedKeyUsageOIDs
            isSelfIssued = contents.isSelfIssued
            extensions = contents.extensions
            subjectPublicKeyInfo = contents.subjectPublicKeyInfo
        } catch {
            X509_free(decoded)
            throw error
        }
        pointer = decoded
        self.derEncoded = derEncoded
    }

    deinit {
        X509_free(pointer)
    }

    /// Every CERTIFICATE block of a PEM text, in order. Other blocks are skipped; text outside
    /// blocks is ignored. Throws if a block is malformed or there is no certificate at all.
    public static func certificates(pem: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        var base64: String?
        for rawLine in pem.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line == "-----BEGIN CERTIFICATE-----" {
                guard base64 == nil else {
                    throw CryptoError(.invalidCertificate, "PEM: BEGIN CERTIFICATE inside a block")
                }
                base64 = ""
            } else if line == "-----END CERTIFICATE-----" {
                guard let body = base64 else {
                    throw CryptoError(.invalidCertificate, "PEM: END CERTIFICATE without BEGIN")
                }
                guard let der = Data(base64Encoded: body) else {
                    throw CryptoError(.invalidCertificate, "PEM: CERTIFICATE block is not valid base64")
                }
                certificates.append(try Certificate(derEncoded: [UInt8](der)))
                base64 = nil
            } else if let body = base64 {
                base64 = body + line
            }
        }
        guard base64 == nil else {
            throw CryptoError(.invalidCertificate, "PEM: unterminated CERTIFICATE block")
        }
        guard !certificates.isEmpty else {
            throw CryptoError(.invalidCertificate, "PEM: no CERTIFICATE block")
        }
        return certificates
    }

    /// The subject public key. RSA keys below 2048 bits are refused like any other import.
    public var publicKey: PublicKey {
        get throws { try PublicKey(subjectPublicKeyInfo: subjectPublicKeyInfo) }
    }

    /// The extension with this dotted OID: its critical flag and the bytes inside extnValue's
    /// OCTET STRING; nil when absent.
    public func extensionValue(oid: String) -> (critical: Bool, value: [UInt8])? {
        extensions.first { $0.oid == oid }.map { ($0.critical, $0.value) }
    }

    // MARK: Reading

    private struct Contents {
        var version: Int
        var subject: DistinguishedName
        var issuer: DistinguishedName
        var notBefore: Date
        var notAfter: Date
        var basicConstraintsIsCA: Bool?
        var extendedKeyUsageOIDs: [String]
        var isSelfIssued: Bool
        var extensions: [Extension]
        var subjectPublicKeyInfo: [UInt8]
    }

    private static func read(_ certificate: OpaquePointer) throws -> Contents {
        // Fills OpenSSL's extension cache now, so later readers never write to the X509.
        _ = X509_get_extension_flags(certificate)

        let extensions = try readExtensions(certificate)
        var seen = Set<String>()
        for item in extensions where !seen.insert(item.oid).inserted {
            throw CryptoError(.invalidCertificate, "extension \(item.oid) occurs more than once")
        }

        let basicConstraints: Bool?
        switch passkey_x509_basic_constraints_ca(certificate) {
        case -1: basicConstraints = nil
        case 0: basicConstraints = false
        case 1: basicConstraints = true
        default: throw CryptoError.openSSL(.invalidCertificate, "basicConstraints does not decode")
        }

        let version = try checkVersion(X509_get_version(certificate))
        let subjectName = X509_get_subject_name(certificate)
        let issuerName = X509_get_issuer_name(certificate)
        guard let subjectPublicKeyInfo = encodeDER({ i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), $0) })
        else {
            throw CryptoError.openSSL(.invalidCertificate, "cannot encode the subject public key")
        }
        return Contents(
            version: version,
            subject: DistinguishedName(reading: subjectName),
            issuer: DistinguishedName(reading: issuerName),
            notBefore: try date(X509_get0_notBefore(certificate), "notBefore"),
            notAfter: try date(X509_get0_notAfter(certificate), "notAfter"),
            basicConstraintsIsCA: basicConstraints,
            extendedKeyUsageOIDs: try extendedKeyUsage(certificate),
            isSelfIssued: X509_NAME_cmp(subjectName, issuerName) == 0,
            extensions: extensions,
            subjectPublicKeyInfo: subjectPublicKeyInfo)
    }

    /// RFC 5280 §4.1.2.1: the version field is v1(0), v2(1) or v3(2). OpenSSL hands back any
    /// value the DER declares (2^63−1 parses), so it is range-checked before any arithmetic.
    static func checkVersion(_ raw: Int) throws -> Int {
        guard (0...2).contains(raw) else {
            throw CryptoError(.invalidCertificate, "certificate version field \(raw) is not v1, v2 or v3")
        }
        return raw + 1
    }

    private static func readExtensions(_ certificate: OpaquePointer) throws -> [Extension] {
        var result: [Extension] = []
        for index in 0..<max(0, X509_get_ext_count(certificate)) {
            guard let item = X509_get_ext(certificate, index),
                  let oid = oidText(X509_EXTENSION_get_object(item)),
                  let data = X509_EXTENSION_get_data(item)
            else {
                throw CryptoError.openSSL(.invalidCertificate, "unreadable extension #\(index)")
            }
            let count = Int(ASN1_STRING_length(data))
            let value = count > 0
                ? Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: count))
                : []
            result.append(Extension(oid: oid, critical: X509_EXTENSION_get_critical(item) != 0, value: value))
        }
        return result
    }

    private static func extendedKeyUsage(_ certificate: OpaquePointer) throws -> [String] {
        var critical: Int32 = -1
        guard let usage = passkey_x509_extended_key_usage(certificate, &critical) else {
            if critical == -1 { return [] }
            throw CryptoError.openSSL(.invalidCertificate, "extendedKeyUsage does not decode")
        }
        defer { passkey_eku_free(usage) }
        return try (0..<max(0, passkey_eku_count(usage))).map { index in
            guard let oid = oidText(passkey_eku_oid(usage, index)) else {
                throw CryptoError(.invalidCertificate, "unreadable extendedKeyUsage OID")
            }
            return oid
        }
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?, _ field: String) throws -> Date {
        var seconds: Int64 = 0
        guard passkey_asn1_time_to_posix(time, &seconds) == 1 else {
            throw CryptoError.openSSL(.invalidCertificate, "\(field) is not a valid time")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
