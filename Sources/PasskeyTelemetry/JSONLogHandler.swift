public import Logging
internal import Foundation

/// `--log-format json`: one JSON object per line, `ts` (ISO 8601 UTC, milliseconds), `level`,
/// `msg`, `request_id` when a request is being served, `logger`, then the line's fields. Every
/// string is JSON-escaped, so client text (a newline, an escape sequence) cannot forge a line.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: receives each line, newline included (standard error by default, as
    ///   the text format; standard output carries only the `listening on` line).
    public init(
        label: String, metadataProvider: Logger.MetadataProvider? = RequestID.metadataProvider,
        write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        var line = "{\"ts\":\(Self.quoted(Self.timestamp(Date()))),\"level\":\(Self.quoted(event.level.rawValue))"
        line += ",\"msg\":\(Self.quoted("\(event.message)"))"
        if let id = fields.removeValue(forKey: "request_id") { line += ",\"request_id\":\(Self.render(id))" }
        line += ",\"logger\":\(Self.quoted(label))"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += ",\(Self.quoted(key)):\(Self.render(value))"
        }
        line += "}\n"
        write(line)
    }

    /// One `write(2)` per line, so lines from concurrent requests never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in writeAll(line, to: 2) }

    /// Standard output: where `serve` announces `listening on http://HOST:PORT`, so that a
    /// supervisor waiting for that line finds it in the `msg` of a JSON line too.
    public static let standardOutput: @Sendable (String) -> Void = { line in writeAll(line, to: 1) }

    static func writeAll(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .stringConvertible(let convertible): return quoted(convertible.description)
        case .array(let items): return "[" + items.map(render).joined(separator: ",") + "]"
        case .dictionary(let entries):
            return "{" + entries.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\(render($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and every control character
    /// escaped, and U+2028/U+2029 too (JavaScript readers of the log).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}", "\u{2029}", "\u{00}"..."\u{1F}", "\u{7F}":
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds / 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds % 1000))
    }
}
