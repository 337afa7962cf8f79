import PasskeyJSON

/// `json-offsets`: where `--clients-file`'s messages find a line (`JSONOffsets`). Any bytes:
/// no trap. For text the strict parser accepts: an object's members are found, each once, in
/// order, each value offset inside the text, and an array member's elements are as many as the
/// parser's array; the line of any offset is between 1 and the text's line count.
enum JSONOffsetsTarget {
    static func run(_ bytes: [UInt8]) {
        let members = JSONOffsets.members(in: bytes)
        let lines = 1 + bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        for offset in [-1, 0, bytes.count / 2, bytes.count, bytes.count + 1] {
            expect((1...lines).contains(JSONOffsets.line(ofOffset: offset, in: bytes)), "line(ofOffset: \(offset)) outside 1...\(lines)")
            _ = JSONOffsets.elements(ofArrayAt: offset, in: bytes)
        }
        guard let value = try? StrictJSON.parse(bytes) else { return }
        guard case .object(let object) = value else {
            expect(members == nil, "members found in a text that is not an object")
            return
        }
        guard let members else { return expect(false, "no members found in an object the strict parser accepts") }
        expect(members.count == object.count && Set(members.map(\.name)) == Set(object.keys), "members differ from the parser's")
        for (name, offset) in members {
            expect(offset >= 0 && offset < bytes.count, "the offset of \(name) is outside the text")
            if case .array(let items)? = object[name] {
                expect(JSONOffsets.elements(ofArrayAt: offset, in: bytes)?.count == items.count, "the elements of \(name) differ from the parser's")
            } else {
                expect(JSONOffsets.elements(ofArrayAt: offset, in: bytes) == nil, "elements found where \(name) is no array")
            }
        }
    }
}
