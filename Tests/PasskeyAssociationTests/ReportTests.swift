import PasskeyJSON
import Foundation
import PasskeyAssociation
import Testing

@Suite struct ReportTests {
    let report = AssociationReport([
        .pass("JSON", "parses"),
        .fail("content type", "Content-Type is text/html", fix: "serve it with Content-Type: application/json."),
    ])

    @Test func textIsAChecklistWithFixesAndASummary() {
        #expect(report.text == """
            ✔ JSON: parses
            ✘ content type: Content-Type is text/html
                fix: serve it with Content-Type: application/json.
            1 passed, 1 failed.

            """)
        #expect(AssociationReport([.pass("JSON", "parses")]).summary == "1 passed, 0 failed: all good.")
        #expect(!AssociationReport([]).allPassed)
    }

    @Test func jsonHasChecksAndCounts() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json)) as? [String: Any])
        #expect(object["passed"] as? Int == 1)
        #expect(object["failed"] as? Int == 1)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == 2)
        #expect(checks[0]["name"] as? String == "JSON")
        #expect(checks[0]["ok"] as? Bool == true)
        #expect(checks[0]["fix"] is NSNull)
        #expect(checks[1]["ok"] as? Bool == false)
        #expect(checks[1]["fix"] as? String == "serve it with Content-Type: application/json.")
        #expect(Set(checks[1].keys) == ["name", "ok", "detail", "fix"])
    }

    /// `true` stays a boolean and numbers stay numbers through parse and encode.
    @Test func jsonValueKeepsKinds() throws {
        let text = ##"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/buy/*","exclude":true,"?":{"n":1}},{"#":"x","caseSensitive":false,"x":1.5,"y":null}]}]}}"##
        let value = try JSONValue(parsing: Array(text.utf8))
        #expect(String(decoding: value.encoded(), as: UTF8.self) == ##"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/buy/*","?":{"n":1},"exclude":true},{"#":"x","caseSensitive":false,"x":1.5,"y":null}]}]}}"##)
        #expect(try JSONValue(parsing: value.encoded()) == value)
        #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: Array("{".utf8)) }
    }
}
