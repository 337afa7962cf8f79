internal import CPasskeyQRencode

/// A QR code (libqrencode): its module matrix, and the matrix drawn as SVG.
public struct QRCode: Sendable, Equatable {
    public enum Failure: Error, Equatable {
        /// The text does not fit in any QR code version at this error-correction level, or
        /// libqrencode refused it.
        case cannotEncode
    }

    /// Error-correction level: L, M, Q or H (about 7, 15, 25, 30 % of the code recoverable).
    public enum Level: Sendable {
        case low, medium, quartile, high

        var c: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// Modules per side.
    public let width: Int
    /// Row-major, `width * width` entries; true is dark.
    public let modules: [Bool]

    /// The largest input accepted: a version-40 code holds at most 2953 bytes.
    public static let maximumBytes = 2953

    /// Encodes `text` as 8-bit data (UTF-8; any byte, NUL included), in the smallest version
    /// that holds it.
    public init(_ text: String, level: Level = .medium) throws(Failure) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes else { throw .cannotEncode }
        let matrix: (width: Int, modules: [Bool])? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let code = QRcode_encodeData(Int32(buffer.count), base, 0, level.c) else {
                return nil
            }
            defer { QRcode_free(code) }
            // libqrencode's own output, still checked before it is read: 21…177 modules a side.
            let width = Int(code.pointee.width)
            guard (21...177).contains(width), let data = code.pointee.data else { return nil }
            let cells = UnsafeBufferPointer(start: data, count: width * width)
            return (width, cells.map { $0 & 1 == 1 })
        }
        guard let matrix else { throw .cannotEncode }
        width = matrix.width
        modules = matrix.modules
    }

    /// Whether the module at column `x`, row `y` is dark; false outside the code.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<width).contains(x), (0..<width).contains(y) else { return false }
        return modules[y * width + x]
    }

    /// The code as an SVG image: one path of dark runs on white, `quietZone` light modules
    /// around (the standard asks for 4), scaled by the viewer (`viewBox` in modules).
    public func svg(quietZone: Int = 4, title: String? = nil) -> String {
        let margin = max(0, min(quietZone, 16))
        let side = width + 2 * margin
        var path = ""
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < width, isDark(x: x, y: y) { x += 1 }
                path += "M\(start + margin) \(y + margin)h\(x - start)v1h-\(x - start)z"
            }
        }
        let label = title.map { "<title>\(Self.escaped($0))</title>" } ?? ""
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges" role="img">\
            \(label)<rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }

    /// The code as text for a terminal: two rows of modules per line with the half-block
    /// characters, dark modules drawn as spaces on a light quiet zone (so that it reads on a dark
    /// terminal background, which most are), `quietZone` light modules around.
    public func text(quietZone: Int = 2) -> String {
        let margin = max(0, min(quietZone, 16))
        let range = -margin..<(width + margin)
        var lines: [String] = []
        var y = -margin
        while y < width + margin {
            var line = ""
            for x in range {
                // Light is drawn (the terminal's foreground), dark left as background.
                switch (!isDark(x: x, y: y), y + 1 < width + margin ? !isDark(x: x, y: y + 1) : false) {
                case (true, true): line += "\u{2588}"
                case (true, false): line += "\u{2580}"
                case (false, true): line += "\u{2584}"
                case (false, false): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text for XML character data.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default:
                // XML 1.0 allows no control characters but tab, newline and return.
                if scalar.value < 0x20, scalar != "\t", scalar != "\n", scalar != "\r" { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
