import Foundation
import NIOCore
import PasskeyStorage
import PostgresNIO

// Each record as PostgreSQL values (bytea as ByteBuffer, never [UInt8], which PostgresNIO
// would send as an array of "char"), its column list, and its decoder side by side, so their
// order is checked by eye in one place. Stored values are treated as untrusted on the way back:
// out-of-range numbers are errors, not traps.

private func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }

/// Reads the columns of one row in order.
struct Cursor {
    let row: PostgresRandomAccessRow
    var index = 0

    init(_ row: PostgresRandomAccessRow, from first: Int = 0) {
        self.row = row
        index = first
    }

    mutating func next<T: PostgresDecodable>(_: T.Type = T.self) throws -> T {
        defer { index += 1 }
        return try row[index].decode(T.self)
    }

    mutating func bytes() throws -> [UInt8] { PasskeyPostgres.bytes(try next(ByteBuffer.self)) }

    mutating func optionalBytes() throws -> [UInt8]? { try next(ByteBuffer?.self).map(PasskeyPostgres.bytes) }

    mutating func date() throws -> Date { Date(storeMilliseconds: try next(Int64.self)) }
}

struct UserRow {
    /// The columns an insert writes (a new account is never disabled: the column's default).
    static let columns = "handle, name, name_key, display_name, created_at"
    /// The columns a read takes.
    static let selectColumns = columns + ", disabled, updated_at"

    let handle: ByteBuffer
    let name: String
    let nameKey: String
    let displayName: String
    let createdAt: Int64

    init(_ user: UserRecord) throws {
        handle = ByteBuffer(bytes: user.handle)
        name = user.name
        nameKey = user.nameKey
        displayName = user.displayName
        createdAt = try user.createdAt.storeMilliseconds()
    }

    /// `selectColumns`, each qualified with a table alias (for a join).
    static func selectColumns(of alias: String) -> String { qualified(selectColumns, alias) }

    static func record(_ row: PostgresRandomAccessRow) throws -> UserRecord {
        try record(row, from: 0)
    }

    /// The account in a joined row whose user columns start at `first`.
    static func record(_ row: PostgresRandomAccessRow, from first: Int) throws -> UserRecord {
        var c = Cursor(row, from: first)
        return UserRecord(
            handle: try c.bytes(), name: try c.next(), nameKey: try c.next(), displayName: try c.next(), createdAt: try c.date(),
            disabled: try c.next(), updatedAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)))
    }
}

struct CredentialRow {
    static let columns = """
        id, user_handle, public_key, algorithm, sign_count, transports, backup_eligible, \
        backup_state, uv_initialized, aaguid, attestation_format, attestation_type, \
        attestation_trusted, authenticator_name, name, created_at, last_used_at, possibly_cloned, \
        discoverable, prf_enabled
        """

    let id: ByteBuffer
    let userHandle: ByteBuffer
    let publicKey: ByteBuffer
    let algorithm: Int64
    let signCount: Int64
    let transports: [String]
    let backupEligible: Bool
    let backupState: Bool
    let uvInitialized: Bool
    let aaguid: ByteBuffer
    let attestationFormat: String
    let attestationType: String
    let attestationTrusted: Bool
    let authenticatorName: String?
    let name: String
    let createdAt: Int64
    let lastUsedAt: Int64?
    let possiblyCloned: Bool
    let discoverable: Bool
    let prfEnabled: Bool

    init(_ c: CredentialRecord) throws {
        id = ByteBuffer(bytes: c.id)
        userHandle = ByteBuffer(bytes: c.userHandle)
        publicKey = ByteBuffer(bytes: c.publicKey)
        algorithm = Int64(c.algorithm)
        signCount = Int64(c.signCount)
        transports = c.transports
        backupEligible = c.backupEligible
        backupState = c.backupState
        uvInitialized = c.uvInitialized
        aaguid = ByteBuffer(bytes: c.aaguid)
        attestationFormat = c.attestationFormat
        attestationType = c.attestationType
        attestationTrusted = c.attestationTrusted
        authenticatorName = c.authenticatorName
        name = c.name
        createdAt = try c.createdAt.storeMilliseconds()
        lastUsedAt = try c.lastUsedAt?.storeMilliseconds()
        possiblyCloned = c.possiblyCloned
        discoverable = c.discoverable
        prfEnabled = c.prfEnabled
    }

    static let columnCount = columns.split(separator: ",").count
    static func columns(of alias: String) -> String { qualified(columns, alias) }

    static func record(_ row: PostgresRandomAccessRow) throws -> CredentialRecord {
        try record(row, from: 0)
    }

    /// The credential in a joined row whose credential columns start at `first`.
    static func record(_ row: PostgresRandomAccessRow, from first: Int) throws -> CredentialRecord {
        var c = Cursor(row, from: first)
        let id = try c.bytes()
        let userHandle = try c.bytes()
        let publicKey = try c.bytes()
        guard let algorithm = Int(exactly: try c.next(Int64.self)) else {
            throw StoreError.database("credentials.algorithm out of range")
        }
        guard let signCount = UInt32(exactly: try c.next(Int64.self)) else {
            throw StoreError.database("credentials.sign_count out of range")
        }
        return CredentialRecord(
            id: id, userHandle: userHandle, publicKey: publicKey, algorithm: algorithm, signCount: signCount,
            transports: try c.next([String].self), backupEligible: try c.next(), backupState: try c.next(),
            uvInitialized: try c.next(), aaguid: try c.bytes(), attestationFormat: try c.next(),
            attestationType: try c.next(), attestationTrusted: try c.next(), authenticatorName: try c.next(String?.self),
            name: try c.next(), createdAt: try c.date(),
            lastUsedAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)), possiblyCloned: try c.next(),
            discoverable: try c.next(), prfEnabled: try c.next())
    }
}

struct CeremonyRow {
    static let columns = """
        challenge, kind, user_handle, user_name, display_name, is_new_user, user_verification, \
        allow_credential_ids, algorithms, created_at, expires_at, conditional, resident_key, session_hash, invitation_hash
        """

    let challenge: ByteBuffer
    let kind: String
    let userHandle: ByteBuffer?
    let userName: String?
    let displayName: String?
    let isNewUser: Bool
    let userVerification: String
    let allowCredentialIDs: [ByteBuffer]
    let algorithms: [Int64]
    let createdAt: Int64
    let expiresAt: Int64
    let conditional: Bool
    let residentKey: String
    let sessionHash: ByteBuffer?
    let invitationHash: ByteBuffer?

    init(_ c: CeremonyRecord) throws {
        challenge = ByteBuffer(bytes: c.challenge)
        kind = c.kind.rawValue
        userHandle = c.userHandle.map { ByteBuffer(bytes: $0) }
        userName = c.userName
        displayName = c.displayName
        isNewUser = c.isNewUser
        userVerification = c.userVerification
        allowCredentialIDs = c.allowCredentialIDs.map { ByteBuffer(bytes: $0) }
        algorithms = c.algorithms.map(Int64.init)
        createdAt = try c.createdAt.storeMilliseconds()
        expiresAt = try c.expiresAt.storeMilliseconds()
        conditional = c.conditional
        residentKey = c.residentKey
        sessionHash = c.sessionHash.map { ByteBuffer(bytes: $0) }
        invitationHash = c.invitationHash.map { ByteBuffer(bytes: $0) }
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> CeremonyRecord {
        var c = Cursor(row, from: 0)
        let challenge = try c.bytes()
        guard let kind = CeremonyKind(rawValue: try c.next(String.self)) else {
            throw StoreError.database("ceremonies.kind holds an unknown kind")
        }
        let userHandle = try c.optionalBytes()
        let userName = try c.next(String?.self)
        let displayName = try c.next(String?.self)
        let isNewUser = try c.next(Bool.self)
        let userVerification = try c.next(String.self)
        let allowed = try c.next([ByteBuffer].self).map(bytes)
        let algorithms = try c.next([Int64].self).map { value -> Int in
            guard let algorithm = Int(exactly: value) else { throw StoreError.database("ceremonies.algorithms out of range") }
            return algorithm
        }
        let createdAt = try c.date()
        let expiresAt = try c.date()
        return CeremonyRecord(
            challenge: challenge, kind: kind, userHandle: userHandle, userName: userName, displayName: displayName,
            isNewUser: isNewUser, userVerification: userVerification, allowCredentialIDs: allowed, algorithms: algorithms,
            conditional: try c.next(), residentKey: try c.next(), createdAt: createdAt, expiresAt: expiresAt,
            sessionHash: try c.optionalBytes(), invitationHash: try c.optionalBytes())
    }
}

struct SessionRow {
    static let columns = "token_hash, user_handle, created_at, expires_at, credential_id, via, user_verified, ip, user_agent, last_seen_at, auth_time"
    static let columnCount = columns.split(separator: ",").count

    /// `columns`, each qualified with a table alias (for a join).
    static func columns(of alias: String) -> String { qualified(columns, alias) }

    let tokenHash: ByteBuffer
    let userHandle: ByteBuffer
    let createdAt: Int64
    let expiresAt: Int64
    let credentialID: ByteBuffer?
    let via: String?
    let userVerified: Bool?
    let ip: String?
    let userAgent: String?
    let lastSeenAt: Int64?
    let verifiedAt: Int64?

    init(_ s: SessionRecord) throws {
        tokenHash = ByteBuffer(bytes: s.tokenHash)
        userHandle = ByteBuffer(bytes: s.userHandle)
        createdAt = try s.createdAt.storeMilliseconds()
        expiresAt = try s.expiresAt.storeMilliseconds()
        credentialID = s.credentialID.map { ByteBuffer(bytes: $0) }
        via = s.via
        userVerified = s.userVerified
        ip = s.ip
        userAgent = s.userAgent
        lastSeenAt = try s.lastSeenAt.map { try $0.storeMilliseconds() }
        verifiedAt = try s.verifiedAt.map { try $0.storeMilliseconds() }
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> SessionRecord {
        var c = Cursor(row)
        return SessionRecord(
            tokenHash: try c.bytes(), userHandle: try c.bytes(), createdAt: try c.date(), expiresAt: try c.date(),
            credentialID: try c.optionalBytes(), via: try c.next(String?.self), userVerified: try c.next(Bool?.self),
            ip: try c.next(String?.self), userAgent: try c.next(String?.self), lastSeenAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)),
            verifiedAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)))
    }
}

struct EventRow {
    static let columns = "id, user_handle, type, at, ip, user_agent, details"

    let userHandle: ByteBuffer
    let type: String
    let at: Int64
    let ip: String?
    let userAgent: String?
    let details: String

    /// Stands in for an absent event in a statement that inserts it only when present.
    static func placeholder() throws -> EventRow {
        try EventRow(AuditEvent(userHandle: [], type: "", at: Date(timeIntervalSince1970: 0), ip: nil, userAgent: nil))
    }

    init(_ e: AuditEvent) throws {
        userHandle = ByteBuffer(bytes: e.userHandle)
        type = e.type
        at = try e.at.storeMilliseconds()
        ip = e.ip
        userAgent = e.userAgent
        details = try EventDetails.encode(e.details)
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> AuditEvent {
        var c = Cursor(row)
        return AuditEvent(
            id: try c.next(Int64.self), userHandle: try c.bytes(), type: try c.next(), at: try c.date(), ip: try c.next(String?.self),
            userAgent: try c.next(String?.self), details: try EventDetails.decode(try c.next(String.self)))
    }
}

/// `a, b` as `alias.a, alias.b`.
func qualified(_ columns: String, _ alias: String) -> String {
    columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
}
