extension PasskeyStore {
    /// The server secret stored under `name`: the first call stores `candidate` (fresh random
    /// bytes from the caller), every later call — also after a restart — returns what was
    /// stored. Keeps values derived from it (decoy credential ids) stable across restarts.
    public func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8] {
        try await database.perform { db in
            try db.transaction {
                try db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", [.text(name), .blob(candidate)])
                guard let value = try db.row("SELECT value FROM secrets WHERE name = ?", [.text(name)], { $0.blob(0) }) else {
                    throw StoreError.database("secret \(name) vanished inside its transaction")
                }
                return value
            }
        }
    }
}
