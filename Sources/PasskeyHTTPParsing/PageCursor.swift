internal import PasskeyJSON

/// The opaque `cursor` of a paged admin list (docs/contracts/accounts.md, "Administration"): the position after
/// the last row of the previous page, base64url-encoded so that clients treat it as opaque. What
/// it holds is a short line of printable text (a name key, an event id); anything else is not a
/// cursor.
public struct PageCursor: Sendable, Equatable {
    /// The longest position a cursor carries, in bytes.
    public static let maximumLength = 256

    public let position: String

    /// nil for a position that is empty, too long, or holds control characters.
    public init?(position: String) {
        guard !position.isEmpty, position.utf8.count <= Self.maximumLength,
              !position.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else { return nil }
        self.position = position
    }

    /// A cursor as a client sends it back; nil unless it decodes to a position.
    public init?(text: String) {
        guard text.utf8.count <= (Self.maximumLength * 4 + 2) / 3 + 1,
              let bytes = Base64URL.decodeStrict(text),
              let position = String(validating: bytes, as: UTF8.self)
        else { return nil }
        self.init(position: position)
    }

    /// The text a client is given.
    public var text: String { Base64URL.encode(Array(position.utf8)) }
}
