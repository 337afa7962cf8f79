public import PasskeyStorage
extension SQLitePasskeyStore {
    /// The server secret stored under `name`: the first call stores `candidate` (fresh random
    /// bytes from the caller), every later call — also after a restart — returns what was
    /// stored. Keeps values derived from it (decoy credential ids) stable across restarts.
    public func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8] {
        try await database.write { db in
            try db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", [.text(name), .blob(candidate)])
            guard let value = try db.row("SELECT value FROM secrets WHERE name = ?", [.text(name)], { $0.blob(0) }) else {
                throw StoreError.database("secret \(name) vanished inside its transaction")
            }
            return value
        }
    }
}

extension SQLitePasskeyStore {
    /// Records that the metadata BLOB numbered `number` is being loaded, unless a BLOB with a
    /// higher number was loaded before: then nothing changes and the higher number is returned
    /// (FIDO MDS3 §3.1.6: `no` grows with each BLOB, so a lower one is a replayed old BLOB).
    /// Returns nil when `number` is accepted.
    public func acceptMetadataNumber(_ number: Int) async throws -> Int? {
        let name = MetadataNumber.secretName
        return try await database.write { db in
            let stored = try db.row("SELECT value FROM secrets WHERE name = ?", [.text(name)]) { $0.blob(0) }
            if let previous = stored.flatMap(MetadataNumber.decode), number < previous { return previous }
            try db.execute(
                "INSERT OR REPLACE INTO secrets (name, value) VALUES (?, ?)", [.text(name), .blob(MetadataNumber.encode(number))])
            return nil
        }
    }
}
