public import Foundation
public import PasskeyStorage

/// `--clients-file` at start: the database made to match the file.
extension ClientRegistry {
    /// What a reconciliation changed, by client id.
    public struct Reconciled: Sendable, Equatable {
        public var added: [String] = []
        public var updated: [String] = []
        public var removed: [String] = []
        public var unchanged: [String] = []
    }

    /// Adds the file's clients that are missing, updates those that differ, and removes the
    /// clients an earlier run of a clients file added that the file no longer declares; each
    /// change is an audit event (`by: --clients-file`). A client of the same id that the command
    /// line, the admin API, the page or Messages for Business made is never taken over: the start
    /// stops instead. Safe to run by several instances at once.
    public func reconcile(_ file: ClientsFile, now: Date) async throws -> Reconciled {
        var result = Reconciled()
        func event(_ type: String, _ id: String) -> AuditEvent {
            AuditEvent(userHandle: [], type: type, at: now, ip: nil, userAgent: nil, details: ["client_id": id, "by": "--clients-file"])
        }
        for declared in file.clients {
            let id = declared.registration.id
            var wanted = Self.record(
                declared.registration, secretHash: declared.secret.map(Self.secretHash), createdAt: now)
            wanted.fromClientsFile = true
            // Twice at most: another instance starting at the same moment may add it first.
            var done = false
            for _ in 0..<2 where !done {
                guard let existing = try await store.client(id: id) else {
                    if try await store.insertClient(wanted, event: event("client_added", id)) {
                        result.added.append(id)
                        done = true
                    }
                    continue
                }
                guard existing.fromClientsFile else {
                    throw Failure(description: "\(file.path) line \(declared.line): a client with the id \(id) exists already, made by the command line, the admin API, the admin page or Messages for Business; the clients file does not take it over (remove it there, or give the file's client another id)")
                }
                wanted.createdAt = existing.createdAt
                if existing == wanted {
                    result.unchanged.append(id)
                    done = true
                } else if try await store.replaceClient(wanted, event: event("client_updated", id)) {
                    result.updated.append(id)
                    done = true
                }
            }
            guard done else { throw Failure(description: "client \(id) changed while the clients file was applied; start again") }
        }
        let declared = Set(file.clients.map(\.registration.id))
        for client in try await store.clients() where client.fromClientsFile && !declared.contains(client.id) {
            if try await store.deleteClient(id: client.id, event: event("client_removed", client.id)) {
                result.removed.append(client.id)
            }
        }
        return result
    }
}
