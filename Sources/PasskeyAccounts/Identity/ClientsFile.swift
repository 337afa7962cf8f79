public import Foundation
public import PasskeyJSON

/// `--clients-file`: OpenID clients and forward-auth rules declared as code, in JSON:
///
///     {"clients": [{"client_id": "app", "redirect_uris": ["https://app.example.com/cb"],
///                   "secret_file": "/run/secrets/app"}],
///      "forward_auth_rules": ["app.example.com=staff"]}
///
/// Each client has the members `clients list` prints (the admin API's), a confidential one its
/// secret as `secret_file` (a path, relative to the file's folder; a trailing newline dropped).
/// Read and checked whole at start: the first problem stops the start with its line.
public struct ClientsFile: Sendable {
    public struct Declared: Sendable {
        /// The line the client's object starts on.
        public let line: Int
        public let registration: ClientRegistry.Registration
        /// A confidential client's secret, read from its `secret_file`.
        public let secret: String?
    }

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    public let clients: [Declared]
    public let forwardAuthRules: [ForwardAuthRule]

    /// At most this many bytes in the file and in a secret file.
    static let maximumBytes = 1 << 20
    /// A secret shorter than this is refused (the generated ones are 43 characters).
    static let minimumSecretLength = 32
    /// The members a client's object may have: the admin API's, the secret's file, and what
    /// `clients list` prints besides (ignored).
    static let ignoredMembers: Set<String> = ["created_at", "clients_file", "token_endpoint_auth_method"]

    public static func load(path: String) throws(Invalid) -> ClientsFile {
        let bytes = try read(path, what: "the clients file")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(bytes, path: path) { file throws(Invalid) in
            let resolved = file.hasPrefix("/") ? file : folder + "/" + file
            var text = String(decoding: try read(resolved, what: "secret_file \(file)"), as: UTF8.self)
            if text.hasSuffix("\r\n") { text.removeLast(1) } else if text.hasSuffix("\n") { text.removeLast() }
            return text
        }
    }

    static func read(_ path: String, what: String) throws(Invalid) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Invalid(description: "\(what) \(path) cannot be read") }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumBytes + 1) else { throw Invalid(description: "\(what) \(path) cannot be read") }
        guard data.count <= maximumBytes else { throw Invalid(description: "\(what) \(path) is over \(maximumBytes) bytes") }
        return [UInt8](data)
    }

    /// The file's clients and rules, each checked as `clients add` and `--forward-auth-rule`
    /// check theirs; `readSecret` reads a `secret_file`.
    static func parse(_ bytes: [UInt8], path: String, readSecret: (String) throws(Invalid) -> String) throws(Invalid) -> ClientsFile {
        func fail(_ line: Int, _ reason: String) -> Invalid { Invalid(description: "\(path) line \(line): \(reason)") }
        let value: JSONValue
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw fail(JSONOffsets.line(ofOffset: error.offset ?? 0, in: bytes), "not JSON: \(error.reason)")
        }
        guard case .object(let top) = value, let members = JSONOffsets.members(in: bytes) else {
            throw fail(1, "the file is a JSON object with \"clients\" and \"forward_auth_rules\"")
        }
        func line(_ offset: Int) -> Int { JSONOffsets.line(ofOffset: offset, in: bytes) }
        var offsets: [String: Int] = [:]
        for (name, offset) in members {
            guard name == "clients" || name == "forward_auth_rules" else {
                throw fail(line(offset), "\(name.prefix(32)) is not a member of the file (clients, forward_auth_rules)")
            }
            offsets[name] = offset
        }

        var clients: [Declared] = []
        if let offset = offsets["clients"] {
            guard case .array(let items)? = top["clients"], let starts = JSONOffsets.elements(ofArrayAt: offset, in: bytes),
                  starts.count == items.count
            else { throw fail(line(offset), "clients is an array of objects") }
            var seen = Set<String>()
            for (item, start) in zip(items, starts) {
                let at = line(start)
                let declared = try client(item, line: at, fail: fail, readSecret: readSecret)
                guard seen.insert(declared.registration.id).inserted else {
                    throw fail(at, "a second client with the id \(declared.registration.id)")
                }
                clients.append(declared)
            }
        }

        var rules: [ForwardAuthRule] = []
        if let offset = offsets["forward_auth_rules"] {
            guard case .array(let items)? = top["forward_auth_rules"], let starts = JSONOffsets.elements(ofArrayAt: offset, in: bytes),
                  starts.count == items.count
            else { throw fail(line(offset), "forward_auth_rules is an array of strings") }
            for (item, start) in zip(items, starts) {
                guard case .string(let text) = item else { throw fail(line(start), "a forward-auth rule is a string") }
                do { rules.append(try ForwardAuthRule(text)) } catch { throw fail(line(start), "\(error)") }
            }
            do { try ForwardAuth.checkRules(rules) } catch { throw fail(line(offset), "\(error)") }
        }
        return ClientsFile(path: path, clients: clients, forwardAuthRules: rules)
    }

    /// One client's object: the admin API's members (checked as `clients add` checks them),
    /// `secret_file` for a confidential client and never for a public one or one with keys.
    static func client(
        _ item: JSONValue, line: Int, fail: (Int, String) -> Invalid, readSecret: (String) throws(Invalid) -> String
    ) throws(Invalid) -> Declared {
        guard case .object(var object) = item else { throw fail(line, "a client is a JSON object") }
        if object["client_secret"] != nil {
            throw fail(line, "client_secret does not belong in the file: give the secret as secret_file, the path of a file holding it")
        }
        var secretFile: String?
        if let value = object.removeValue(forKey: "secret_file") {
            guard case .string(let path) = value, !path.isEmpty else { throw fail(line, "secret_file must be a path") }
            secretFile = path
        }
        for name in ignoredMembers { object.removeValue(forKey: name) }
        let registration: ClientRegistry.Registration
        do {
            registration = try ClientRegistry.check(try ClientRegistry.registration(json: object))
        } catch let error as APIError {
            throw fail(line, error.message)
        } catch let error as ClientRegistry.Failure {
            throw fail(line, "\(object["client_id"].flatMap { if case .string(let id) = $0 { id } else { nil } }.map { "client \($0.prefix(64)): " } ?? "")\(error.description)")
        } catch {
            throw fail(line, "\(error)")
        }
        let who = "client \(registration.id)"
        var secret: String?
        let keyed = registration.usesKeys
        switch (registration.isPublic || keyed, secretFile) {
        case (true, .some):
            throw fail(line, "\(who) \(keyed ? "signs with its keys (jwks or jwks_uri)" : "is public"): it has no secret, so no secret_file")
        case (false, nil):
            throw fail(line, "\(who) is confidential: give its secret as secret_file (or make it \"public\": true)")
        case (false, .some(let file)):
            let text: String
            do { text = try readSecret(file) } catch { throw fail(line, "\(who): \(error.description)") }
            guard text.count >= minimumSecretLength, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw fail(line, "\(who): the secret in \(file) must be at least \(minimumSecretLength) characters without control characters")
            }
            secret = text
        case (true, nil):
            break
        }
        return Declared(line: line, registration: registration, secret: secret)
    }
}
