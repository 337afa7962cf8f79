import Foundation
import PasskeyStorage
import Testing

/// The audit checkpoints an operator kept elsewhere, read back (`events verify --checkpoints`).
@Suite struct CheckpointCopiesTests {
    static func line(at: String) -> [UInt8] {
        Array(#"{"at":"\#(at)","event_id":12,"hash":"AAECAwQFBgcICQ","id":3,"jws":"a.b.c"}"#.utf8)
    }

    @Test func aTimeAsTheServerWritesItIsRead() throws {
        let copies = try AuditCheckpoint.copies(Self.line(at: "2026-11-28T10:00:00Z"))
        #expect(copies.first?.at == ISO8601DateFormatter().date(from: "2026-11-28T10:00:00Z"))
    }

    /// Found by the `checkpoint-copies` fuzz target: a year before 1 was read as a time that is
    /// written back as another.
    @Test func aTimeThatWouldNotBeWrittenBackTheSameIsNone() throws {
        for text in ["-026-11-28T10:00:00Z", "2026-11-28T11:00:00+01:00"] {
            let copies = try AuditCheckpoint.copies(Self.line(at: text))
            #expect(copies.first?.at == .distantPast, "\(text)")
            #expect(copies.first?.eventID == 12)
        }
    }
}
