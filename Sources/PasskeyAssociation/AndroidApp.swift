internal import PasskeyJSON
internal import Foundation

/// An Android app allowed to use the RP's passkeys: its package name and the SHA-256
/// fingerprint of its signing certificate, as `keytool -list -v` prints it
/// (`AB:CD:…`, 32 colon-separated hex bytes). Given as `--android-app PACKAGE:FINGERPRINT`.
public struct AndroidApp: Sendable, Hashable, CustomStringConvertible {
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public let packageName: String
    /// The 32 bytes of the certificate's SHA-256 fingerprint.
    public let fingerprint: [UInt8]

    public static let fingerprintFix = "give the SHA-256 certificate fingerprint as keytool prints it: 32 hex bytes separated by colons, e.g. 14:6D:E9:83:…:E5 (keytool -list -v -keystore KEYSTORE, or the Play Console's App signing page)."
    public static let packageFix = "give the applicationId from build.gradle, e.g. com.example.app (two or more dot-separated parts, each starting with a letter, letters/digits/_ only)."

    /// `PACKAGE:FINGERPRINT`, split at the first colon (package names have none).
    public init(argument: String) throws(Invalid) {
        let trimmed = argument.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw Invalid(message: "\"\(argument)\" is not PACKAGE:SHA256_FINGERPRINT. Fix: write it as com.example.app:14:6D:E9:…, the package name, a colon, then the fingerprint.")
        }
        try self.init(packageName: String(trimmed[..<colon]), fingerprint: String(trimmed[trimmed.index(after: colon)...]))
    }

    public init(packageName: String, fingerprint text: String) throws(Invalid) {
        if let problem = Self.packageNameProblem(packageName) {
            throw Invalid(message: "\(problem). Fix: \(Self.packageFix)")
        }
        guard let bytes = Self.parseFingerprint(text) else {
            throw Invalid(message: "\"\(text)\" is not a SHA-256 fingerprint. Fix: \(Self.fingerprintFix)")
        }
        self.packageName = packageName
        self.fingerprint = bytes
    }

    /// `AB:CD:…` in upper case, as keytool and assetlinks.json write it.
    public var fingerprintText: String { Self.format(fingerprint) }

    /// The origin Android's Credential Manager puts into clientDataJSON for this app:
    /// `android:apk-key-hash:` + base64url (no padding) of the fingerprint's bytes.
    public var origin: String {
        let base64 = Data(fingerprint).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "android:apk-key-hash:" + base64
    }

    public var description: String { "\(packageName):\(fingerprintText)" }

    /// nil for a valid Android package name: two or more dot-separated segments, each starting
    /// with an ASCII letter and made of ASCII letters, digits and underscores.
    public static func packageNameProblem(_ name: String) -> String? {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return "package name \"\(name)\" needs at least two dot-separated parts" }
        for segment in segments {
            guard let first = segment.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
                return "package name \"\(name)\" has a part \"\(segment)\" that does not start with a letter"
            }
            guard segment.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
            }) else { return "package name \"\(name)\" has a part \"\(segment)\" with characters other than letters, digits and _" }
        }
        return nil
    }

    /// 32 colon-separated pairs of hex digits (either case), or nil.
    public static func parseFingerprint(_ text: String) -> [UInt8]? {
        let pairs = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, pair.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }), let byte = UInt8(pair, radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }

    public static func format(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: ":")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
