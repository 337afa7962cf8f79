/// A group and how many accounts belong to it.
public struct GroupSize: Sendable, Equatable {
    public var name: String
    public var members: Int

    public init(name: String, members: Int) {
        self.name = name
        self.members = members
    }
}

/// A group an account is in: its name as given and its key (the name compared without case).
public struct GroupName: Sendable, Equatable {
    public var name: String
    public var key: String

    public init(name: String, key: String) {
        self.name = name
        self.key = key
    }
}

/// What forward authentication tells an application about an account besides its name, read
/// together: the account's groups (by key) and the email of its linked Apple ID.
public struct RemoteUserFacts: Sendable, Equatable {
    public var groups: [GroupName]
    public var email: String?

    public init(groups: [GroupName], email: String?) {
        self.groups = groups
        self.email = email
    }
}
