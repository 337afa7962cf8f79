import Foundation
import PasskeyQR
import Testing

@Suite struct QRCodeTests {
    /// The three finder patterns: 7×7 squares, dark border, light ring, dark 3×3 centre.
    static func hasFinder(_ code: QRCode, x: Int, y: Int) -> Bool {
        for dy in 0..<7 {
            for dx in 0..<7 {
                let ring = dx == 0 || dy == 0 || dx == 6 || dy == 6
                let centre = (2...4).contains(dx) && (2...4).contains(dy)
                if code.isDark(x: x + dx, y: y + dy) != (ring || centre) { return false }
            }
        }
        return true
    }

    @Test func encodesTheSmallestVersionWithFinderPatterns() throws {
        let small = try QRCode("hello")
        #expect(small.width == 21)  // version 1
        #expect(small.modules.count == 21 * 21)
        #expect(Self.hasFinder(small, x: 0, y: 0))
        #expect(Self.hasFinder(small, x: 14, y: 0))
        #expect(Self.hasFinder(small, x: 0, y: 14))
        // No finder in the fourth corner.
        #expect(!Self.hasFinder(small, x: 14, y: 14))
        // Longer text needs a larger version: width = 17 + 4 × version.
        let json = String(repeating: "{\"deviceId\":\"0\"}", count: 12)
        let large = try QRCode(json)
        #expect(large.width > 21 && (large.width - 17) % 4 == 0)
        // The same text, the same code.
        #expect(try QRCode("hello") == small)
    }

    @Test func refusesWhatNoCodeHolds() {
        #expect(throws: QRCode.Failure.cannotEncode) { try QRCode("") }
        #expect(throws: QRCode.Failure.cannotEncode) { try QRCode(String(repeating: "x", count: 3000)) }
        // Any bytes, NUL included, are data.
        #expect((try? QRCode("a\u{0}b")) != nil)
    }

    @Test func drawsEveryDarkModuleInTheSVG() throws {
        let code = try QRCode("https://example.com/push")
        let svg = code.svg(title: "Scan <me> & \"enrol\"\u{1}")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(code.width + 8) \(code.width + 8)\""))
        #expect(svg.contains("<title>Scan &lt;me&gt; &amp; &quot;enrol&quot;</title>"))
        // Count the dark modules the path draws (h runs) and compare with the matrix.
        let pattern = try NSRegularExpression(pattern: #"M(\d+) (\d+)h(\d+)v1h-\d+z"#)
        let range = NSRange(svg.startIndex..., in: svg)
        var drawn = Set<Int>()
        for match in pattern.matches(in: svg, range: range) {
            let number = { (i: Int) in Int((svg as NSString).substring(with: match.range(at: i)))! }
            let (x, y, run) = (number(1) - 4, number(2) - 4, number(3))
            for dx in 0..<run { drawn.insert(y * code.width + x + dx) }
        }
        let dark = Set(code.modules.indices.filter { code.modules[$0] })
        #expect(drawn == dark)
        #expect(!dark.isEmpty)
    }
}
