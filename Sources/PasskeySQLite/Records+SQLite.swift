internal import PasskeyStorage
import Foundation

// Column lists, bound arguments and row decoders for each record. A column list and its decoder
// sit side by side so their order is checked by eye in one place.

extension UserRecord {
    /// The columns an insert writes (a new account is never disabled: the column's default).
    static let columns = "handle, name, name_key, display_name, created_at"
    /// The columns a read takes.
    static let selectColumns = columns + ", disabled, updated_at"
    static let insert = "INSERT INTO users (\(columns)) VALUES (?, ?, ?, ?, ?)"

    /// `selectColumns`, each qualified with a table alias (for a join).
    static func selectColumns(of alias: String) -> String { qualified(selectColumns, alias) }

    init(row: SQLiteRow) {
        self.init(
            handle: row.blob(0),
            name: row.text(1),
            nameKey: row.text(2),
            displayName: row.text(3),
            createdAt: Date(storeMilliseconds: row.int64(4)),
            disabled: row.bool(5),
            updatedAt: row.optionalInt64(6).map(Date.init(storeMilliseconds:)))
    }

    func arguments() throws -> [SQLiteValue] {
        [.blob(handle), .text(name), .text(nameKey), .text(displayName), try .time(createdAt)]
    }
}

extension CredentialRecord {
    static let columns = """
        id, user_handle, public_key, algorithm, sign_count, transports, backup_eligible, \
        backup_state, uv_initialized, aaguid, attestation_format, attestation_type, \
        attestation_trusted, authenticator_name, name, created_at, last_used_at, possibly_cloned, \
        discoverable, prf_enabled
        """
    static let insert = "INSERT INTO credentials (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let columnCount = Int32(columns.split(separator: ",").count)
    static func columns(of alias: String) -> String { qualified(columns, alias) }

    init(row: SQLiteRow) throws {
        let storedCount = row.int64(4)
        guard let signCount = UInt32(exactly: storedCount) else {
            throw StoreError.database("credentials.sign_count out of range")
        }
        guard let algorithm = Int(exactly: row.int64(3)) else {
            throw StoreError.database("credentials.algorithm out of range")
        }
        self.init(
            id: row.blob(0),
            userHandle: row.blob(1),
            publicKey: row.blob(2),
            algorithm: algorithm,
            signCount: signCount,
            transports: try ListCoding.strings(row.text(5), column: "credentials.transports"),
            backupEligible: row.bool(6),
            backupState: row.bool(7),
            uvInitialized: row.bool(8),
            aaguid: row.blob(9),
            attestationFormat: row.text(10),
            attestationType: row.text(11),
            attestationTrusted: row.bool(12),
            authenticatorName: row.optionalText(13),
            name: row.text(14),
            createdAt: Date(storeMilliseconds: row.int64(15)),
            lastUsedAt: row.isNull(16) ? nil : Date(storeMilliseconds: row.int64(16)),
            possiblyCloned: row.bool(17),
            discoverable: row.bool(18),
            prfEnabled: row.bool(19))
    }

    func arguments() throws -> [SQLiteValue] {
        [
            .blob(id), .blob(userHandle), .blob(publicKey), .int(algorithm),
            .integer(Int64(signCount)), try ListCoding.encode(strings: transports),
            .bool(backupEligible), .bool(backupState), .bool(uvInitialized), .blob(aaguid),
            .text(attestationFormat), .text(attestationType), .bool(attestationTrusted),
            .optionalText(authenticatorName), .text(name), try .time(createdAt),
            try .optionalTime(lastUsedAt), .bool(possiblyCloned), .bool(discoverable), .bool(prfEnabled),
        ]
    }
}

extension CeremonyRecord {
    static let columns = """
        challenge, kind, user_handle, user_name, display_name, is_new_user, user_verification, \
        allow_credential_ids, algorithms, created_at, expires_at, conditional, resident_key, session_hash, invitation_hash
        """

    init(row: SQLiteRow) throws {
        guard let kind = CeremonyKind(rawValue: row.text(1)) else {
            throw StoreError.database("ceremonies.kind holds an unknown kind")
        }
        self.init(
            challenge: row.blob(0),
            kind: kind,
            userHandle: row.optionalBlob(2),
            userName: row.optionalText(3),
            displayName: row.optionalText(4),
            isNewUser: row.bool(5),
            userVerification: row.text(6),
            allowCredentialIDs: try ListCoding.byteStrings(
                row.text(7), column: "ceremonies.allow_credential_ids"),
            algorithms: try ListCoding.integers(row.text(8), column: "ceremonies.algorithms"),
            conditional: row.bool(11),
            residentKey: row.text(12),
            createdAt: Date(storeMilliseconds: row.int64(9)),
            expiresAt: Date(storeMilliseconds: row.int64(10)),
            sessionHash: row.optionalBlob(13),
            invitationHash: row.optionalBlob(14))
    }

    func arguments() throws -> [SQLiteValue] {
        [
            .blob(challenge), .text(kind.rawValue), .optionalBlob(userHandle),
            .optionalText(userName), .optionalText(displayName), .bool(isNewUser),
            .text(userVerification), try ListCoding.encode(byteStrings: allowCredentialIDs),
            try ListCoding.encode(integers: algorithms), try .time(createdAt), try .time(expiresAt),
            .bool(conditional), .text(residentKey), .optionalBlob(sessionHash), .optionalBlob(invitationHash),
        ]
    }
}

extension SessionRecord {
    static let columns = "token_hash, user_handle, created_at, expires_at, credential_id, via, user_verified, ip, user_agent, last_seen_at, auth_time"
    static let columnCount = Int32(columns.split(separator: ",").count)

    /// `columns`, each qualified with a table alias (for a join).
    static func columns(of alias: String) -> String { qualified(columns, alias) }
    static let insert = "INSERT INTO sessions (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    init(row: SQLiteRow) {
        self.init(
            tokenHash: row.blob(0),
            userHandle: row.blob(1),
            createdAt: Date(storeMilliseconds: row.int64(2)),
            expiresAt: Date(storeMilliseconds: row.int64(3)),
            credentialID: row.optionalBlob(4),
            via: row.optionalText(5),
            userVerified: row.optionalInt64(6).map { $0 != 0 },
            ip: row.optionalText(7),
            userAgent: row.optionalText(8),
            lastSeenAt: row.optionalInt64(9).map(Date.init(storeMilliseconds:)),
            verifiedAt: row.optionalInt64(10).map(Date.init(storeMilliseconds:)))
    }

    func arguments() throws -> [SQLiteValue] {
        [.blob(tokenHash), .blob(userHandle), try .time(createdAt), try .time(expiresAt), .optionalBlob(credentialID), .optionalText(via),
         userVerified.map(SQLiteValue.bool) ?? .null, .optionalText(ip), .optionalText(userAgent), try .optionalTime(lastSeenAt),
         try .optionalTime(verifiedAt)]
    }
}

extension AuditEvent {
    static let columns = "id, user_handle, type, at, ip, user_agent, details"

    init(row: SQLiteRow) throws {
        self.init(
            id: row.int64(0), userHandle: row.blob(1), type: row.text(2), at: Date(storeMilliseconds: row.int64(3)),
            ip: row.optionalText(4), userAgent: row.optionalText(5), details: try EventDetails.decode(row.text(6)))
    }

    /// Everything but the id, which SQLite assigns, and the chain's hashes, which the write
    /// links; with the canonical JSON they are computed over.
    func insertArguments() throws -> PendingEvent {
        let milliseconds = try at.storeMilliseconds()
        return PendingEvent(
            arguments: [
                .blob(userHandle), .text(type), .integer(milliseconds), .optionalText(ip), .optionalText(userAgent), .text(try EventDetails.encode(details)),
            ],
            canonical: AuditChain.canonical(
                userHandle: userHandle, type: type, atMilliseconds: milliseconds, ip: ip, userAgent: userAgent, details: details))
    }
}

/// An event ready to be linked into the chain and inserted in a write.
struct PendingEvent: Sendable {
    let arguments: [SQLiteValue]
    let canonical: [UInt8]
}

/// `a, b` as `alias.a, alias.b`.
func qualified(_ columns: String, _ alias: String) -> String {
    columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
}
