import Foundation
import PasskeyJSON
import PasskeyStorage

/// `checkpoint-copies`: the audit checkpoints an operator kept elsewhere, read back by
/// `events verify --checkpoints FILE` (JSON lines, or the admin API's object). Consistency:
/// what was read writes back as JSON lines that read back as the same checkpoints (times to
/// the second, as they are written).
enum CheckpointCopiesTarget {
    static func run(_ bytes: [UInt8]) {
        guard let copies = try? AuditCheckpoint.copies(bytes) else { return }
        let lines = copies.map { String(decoding: $0.object.encoded(), as: UTF8.self) }.joined(separator: "\n")
        guard let again = attempt("copies again", { try AuditCheckpoint.copies(Array(lines.utf8)) }) else {
            expect(false, "checkpoints written back do not read back")
            return
        }
        expect(again.count == copies.count, "a different number of checkpoints read back")
        for (first, second) in zip(copies, again) {
            expect(first.id == second.id && first.eventID == second.eventID && first.hash == second.hash && first.jws == second.jws,
                   "a checkpoint read back differs")
            expect(first.at == .distantPast || abs(first.at.timeIntervalSince(second.at)) < 1, "a checkpoint's time moved")
        }
    }
}
