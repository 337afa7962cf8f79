import Foundation
import NIOCore
import PasskeyStorage
import PostgresNIO

// The rows of the other ways of signing in: Sign in with Apple, the push authenticator,
// Messages for Business, and the cached documents they fetch.

struct AppleLinkRow {
    static let columns =
        "issuer, subject, user_handle, email, email_verified, is_private_email, email_enabled, refresh_token, created_at"

    let issuer: String
    let subject: String
    let userHandle: ByteBuffer
    let email: String?
    let emailVerified: Bool
    let isPrivateEmail: Bool
    let emailEnabled: Bool
    let refreshToken: String?
    let createdAt: Int64

    init(_ link: AppleLinkRecord) throws {
        issuer = link.issuer
        subject = link.subject
        userHandle = ByteBuffer(bytes: link.userHandle)
        email = link.email
        emailVerified = link.emailVerified
        isPrivateEmail = link.isPrivateEmail
        emailEnabled = link.emailEnabled
        refreshToken = link.refreshToken
        createdAt = try link.createdAt.storeMilliseconds()
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> AppleLinkRecord {
        var c = Cursor(row)
        return AppleLinkRecord(
            issuer: try c.next(), subject: try c.next(), userHandle: try c.bytes(), email: try c.next(String?.self),
            emailVerified: try c.next(), isPrivateEmail: try c.next(), emailEnabled: try c.next(),
            refreshToken: try c.next(String?.self), createdAt: try c.date())
    }
}

struct CachedDocumentRow {
    static func record(_ row: PostgresRandomAccessRow) throws -> CachedDocument {
        var c = Cursor(row)
        let name: String = try c.next()
        let body = try c.bytes()
        let fetchedAt = try c.date()
        let maxAge: Int64 = try c.next()
        guard let seconds = Int(exactly: maxAge) else { throw StoreError.database("cached_documents.max_age out of range") }
        return CachedDocument(name: name, body: body, fetchedAt: fetchedAt, maxAge: seconds)
    }
}

struct PushDeviceRow {
    static let columns = "id, user_handle, name, model, device_token, public_key, created_at, last_used_at, disabled, apns_environment"

    let id: String
    let userHandle: ByteBuffer
    let name: String
    let model: String
    let deviceToken: String
    let publicKey: ByteBuffer
    let createdAt: Int64
    let lastUsedAt: Int64?
    let disabled: Bool
    let apnsEnvironment: String?

    init(_ d: PushDeviceRecord) throws {
        id = d.id
        userHandle = ByteBuffer(bytes: d.userHandle)
        name = d.name
        model = d.model
        deviceToken = d.deviceToken
        publicKey = ByteBuffer(bytes: d.publicKey)
        createdAt = try d.createdAt.storeMilliseconds()
        lastUsedAt = try d.lastUsedAt?.storeMilliseconds()
        disabled = d.disabled
        apnsEnvironment = d.apnsEnvironment
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> PushDeviceRecord {
        var c = Cursor(row)
        return PushDeviceRecord(
            id: try c.next(), userHandle: try c.bytes(), name: try c.next(), model: try c.next(), deviceToken: try c.next(),
            publicKey: try c.bytes(), createdAt: try c.date(), lastUsedAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)),
            disabled: try c.next(), apnsEnvironment: try c.next(String?.self))
    }
}

struct PushRequestRow {
    static let columns = "id, user_handle, watch_hash, challenge, number, status, device_id, created_at, expires_at, session_issued, purpose"

    let id: String
    let userHandle: ByteBuffer?
    let watchHash: ByteBuffer
    let challenge: String
    let number: Int64?
    let status: String
    let deviceID: String?
    let createdAt: Int64
    let expiresAt: Int64
    let sessionIssued: Bool
    let purpose: String

    init(_ r: PushRequestRecord) throws {
        purpose = r.purpose
        id = r.id
        userHandle = r.userHandle.map { ByteBuffer(bytes: $0) }
        watchHash = ByteBuffer(bytes: r.watchHash)
        challenge = r.challenge
        number = r.number.map(Int64.init)
        status = r.status
        deviceID = r.deviceID
        createdAt = try r.createdAt.storeMilliseconds()
        expiresAt = try r.expiresAt.storeMilliseconds()
        sessionIssued = r.sessionIssued
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> PushRequestRecord {
        var c = Cursor(row)
        let id: String = try c.next()
        let userHandle = try c.optionalBytes()
        let watchHash = try c.bytes()
        let challenge: String = try c.next()
        let number = try c.next(Int64?.self)
        guard number.map({ Int(exactly: $0) != nil }) ?? true else { throw StoreError.database("push_requests.number out of range") }
        return PushRequestRecord(
            id: id, userHandle: userHandle, watchHash: watchHash, challenge: challenge, number: number.flatMap { Int(exactly: $0) },
            status: try c.next(), deviceID: try c.next(String?.self), createdAt: try c.date(), expiresAt: try c.date(),
            sessionIssued: try c.next(), purpose: try c.next())
    }
}

enum PushDiscoveryRow {
    static func record(_ row: PostgresRandomAccessRow) throws -> PushDiscoveryRecord {
        var c = Cursor(row)
        return PushDiscoveryRecord(deviceID: try c.next(), userHandle: try c.bytes(), challenge: try c.next(), expiresAt: try c.date())
    }
}

struct MfBRequestRow {
    static let columns =
        "id, private_key, public_point, point_hash, device_user_handle, status, user_handle, errors, created_at, expires_at, "
        + "gateway_message_id, gateway_status"

    let id: String
    let privateKey: ByteBuffer?
    let publicPoint: ByteBuffer
    let pointHash: ByteBuffer
    let deviceUserHandle: String?
    let status: String
    let userHandle: ByteBuffer?
    let errors: String?
    let createdAt: Int64
    let expiresAt: Int64
    let gatewayMessageID: String?
    let gatewayStatus: Int64?

    init(_ r: MfBRequestRecord) throws {
        id = r.id
        privateKey = r.privateKey.map { ByteBuffer(bytes: $0) }
        publicPoint = ByteBuffer(bytes: r.publicPoint)
        pointHash = ByteBuffer(bytes: r.pointHash)
        deviceUserHandle = r.deviceUserHandle
        status = r.status
        userHandle = r.userHandle.map { ByteBuffer(bytes: $0) }
        errors = r.errors
        createdAt = try r.createdAt.storeMilliseconds()
        expiresAt = try r.expiresAt.storeMilliseconds()
        gatewayMessageID = r.gatewayMessageID
        gatewayStatus = r.gatewayStatus.map(Int64.init)
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> MfBRequestRecord {
        var c = Cursor(row)
        return MfBRequestRecord(
            id: try c.next(), privateKey: try c.optionalBytes(), publicPoint: try c.bytes(), pointHash: try c.bytes(),
            deviceUserHandle: try c.next(String?.self), status: try c.next(), userHandle: try c.optionalBytes(),
            errors: try c.next(String?.self), createdAt: try c.date(), expiresAt: try c.date(),
            gatewayMessageID: try c.next(String?.self), gatewayStatus: try c.next(Int64?.self).flatMap { Int(exactly: $0) })
    }
}

struct MfBGrantRow {
    static let columns = "hash, kind, request_id, user_handle, client_id, redirect_uri, expires_at"

    let hash: ByteBuffer
    let kind: String
    let requestID: String
    let userHandle: ByteBuffer
    let clientID: String
    let redirectURI: String
    let expiresAt: Int64

    init(_ g: MfBGrantRecord) throws {
        hash = ByteBuffer(bytes: g.hash)
        kind = g.kind.rawValue
        requestID = g.requestID
        userHandle = ByteBuffer(bytes: g.userHandle)
        clientID = g.clientID
        redirectURI = g.redirectURI
        expiresAt = try g.expiresAt.storeMilliseconds()
    }
}
