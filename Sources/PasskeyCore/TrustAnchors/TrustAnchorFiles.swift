internal import Foundation
public import PasskeyCrypto

/// A trust anchor file that cannot be used; the message names the file.
public struct TrustAnchorLoadError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Certificates an operator adds as trust anchors (`--trust-anchors DIR`, `--mds-root FILE`).
public enum TrustAnchorFiles {
    /// The file name extensions read from a trust anchor folder.
    public static let extensions: Set<String> = ["pem", "crt", "der"]

    /// Every `*.pem`, `*.crt` and `*.der` file directly inside `directory`, in name order; other
    /// files and sub-folders are ignored. A folder that cannot be read, holds no such file, or
    /// holds one that is not a certificate is refused, naming the file.
    public static func loadDirectory(_ directory: String) throws -> [Certificate] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw TrustAnchorLoadError(path: directory, reason: "cannot read the folder")
        }
        let files = names.filter { name in
            var isDirectory: ObjCBool = false
            let path = (directory as NSString).appendingPathComponent(name)
            return extensions.contains((name as NSString).pathExtension.lowercased())
                && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
        guard !files.isEmpty else {
            throw TrustAnchorLoadError(path: directory, reason: "holds no *.pem, *.crt or *.der file")
        }
        return try files.flatMap { try loadFile((directory as NSString).appendingPathComponent($0)) }
    }

    /// The certificates of one file: PEM (one or more CERTIFICATE blocks) or a single DER
    /// certificate. `.crt` files may be either.
    public static func loadFile(_ path: String) throws -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrustAnchorLoadError(path: path, reason: "cannot be read")
        }
        return try certificates(in: [UInt8](data), path: path)
    }

    /// Parses file contents: PEM when they contain a BEGIN line, DER otherwise.
    static func certificates(in bytes: [UInt8], path: String) throws -> [Certificate] {
        do {
            if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN ") {
                return try Certificate.certificates(pem: text)
            }
            return [try Certificate(derEncoded: bytes)]
        } catch {
            throw TrustAnchorLoadError(path: path, reason: "is not a PEM or DER certificate (\(error))")
        }
    }
}
