/// A group and how many accounts belong to it.
public struct GroupSize: Sendable, Equatable {
    public var name: String
    public var members: Int

    public init(name: String, members: Int) {
        self.name = name
        self.members = members
    }
}
