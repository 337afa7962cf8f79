/// Which accounts' keys a new key rule moves, and which stay: each store engine reads its
/// accounts (oldest first), lets this decide, and writes the moves in its own transaction.
package enum NameKeyMove {
    /// `accounts` as (handle, name, stored key), oldest first. An account whose new key another
    /// account holds (or took earlier in this walk) keeps its old key and is named in `kept`.
    package static func plan(
        _ accounts: [(handle: [UInt8], name: String, key: String)], _ key: (String) -> String
    ) -> (moves: [(handle: [UInt8], old: String, new: String)], kept: [String]) {
        var taken = Set(accounts.map(\.key))
        var moves: [(handle: [UInt8], old: String, new: String)] = []
        var kept: [String] = []
        for account in accounts {
            let new = key(account.name)
            guard new != account.key else { continue }
            guard !taken.contains(new) else {
                kept.append(account.name)
                continue
            }
            moves.append((account.handle, account.key, new))
            taken.remove(account.key)
            taken.insert(new)
        }
        return (moves, kept)
    }
}
