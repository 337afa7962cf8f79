internal import PasskeyAccounts
internal import PasskeyJSON

/// Writes the answers of the hot endpoints (the options of both initializes, the result of both
/// finalizes) as compact JSON, straight into bytes. Foundation's JSONEncoder built a tree of
/// boxed values for each one: 4.7 % of an initialize's CPU. The output is what JSONEncoder
/// wrote with `.withoutEscapingSlashes` (the same members in the order of the Swift types,
/// nil members left out); the tests compare the two for each type.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// One flag per open object or array: whether the next member needs a comma before it.
    private var needsComma: [Bool] = []
    /// A key was just written: its value follows without a comma.
    private var afterKey = false

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    mutating func key(_ name: String) {
        separate()
        JSONText.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func string(_ value: String) {
        separate()
        JSONText.appendQuoted(value, to: &bytes)
    }

    mutating func integer(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func boolean(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// The comma before a member or item, unless it directly follows its key or opens its
    /// container.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = needsComma.indices.last else { return }
        if needsComma[last] { bytes.append(UInt8(ascii: ",")) }
        needsComma[last] = true
    }
}

/// A transfer object the JSONWriter can write.
protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

extension JSONWritable {
    var jsonBytes: [UInt8] {
        var json = JSONWriter()
        write(to: &json)
        return json.bytes
    }
}

extension CreationOptionsResponse: JSONWritable {
    func write(to json: inout JSONWriter) {
        let o = publicKey
        json.beginObject()
        json.key("publicKey")
        json.beginObject()
        json.key("rp")
        json.beginObject()
        json.key("id"); json.string(o.rp.id)
        json.key("name"); json.string(o.rp.name)
        json.endObject()
        json.key("user")
        json.beginObject()
        json.key("id"); json.string(o.user.id)
        json.key("name"); json.string(o.user.name)
        json.key("displayName"); json.string(o.user.displayName)
        json.endObject()
        json.key("challenge"); json.string(o.challenge)
        json.key("pubKeyCredParams")
        json.beginArray()
        for parameters in o.pubKeyCredParams {
            json.beginObject()
            json.key("type"); json.string(parameters.type)
            json.key("alg"); json.integer(parameters.alg)
            json.endObject()
        }
        json.endArray()
        json.key("timeout"); json.integer(o.timeout)
        json.key("excludeCredentials")
        json.beginArray()
        for descriptor in o.excludeCredentials { descriptor.write(to: &json) }
        json.endArray()
        json.key("authenticatorSelection")
        json.beginObject()
        json.key("residentKey"); json.string(o.authenticatorSelection.residentKey)
        json.key("requireResidentKey"); json.boolean(o.authenticatorSelection.requireResidentKey)
        json.key("userVerification"); json.string(o.authenticatorSelection.userVerification)
        if let attachment = o.authenticatorSelection.authenticatorAttachment {
            json.key("authenticatorAttachment"); json.string(attachment)
        }
        json.endObject()
        if let hints = o.hints {
            json.key("hints"); json.strings(hints)
        }
        json.key("attestation"); json.string(o.attestation)
        json.key("extensions")
        json.beginObject()
        json.key("credProps"); json.boolean(o.extensions.credProps)
        if let prf = o.extensions.prf {
            json.key("prf"); prf.write(to: &json)
        }
        json.endObject()
        json.endObject()
        json.endObject()
    }
}

extension PRFInputs: JSONWritable {
    /// `evalByCredential` in the order of its keys, so one value is always written alike.
    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let evalByCredential {
            json.key("evalByCredential")
            json.beginObject()
            for (id, values) in evalByCredential.sorted(by: { $0.key < $1.key }) {
                json.key(id)
                json.beginObject()
                json.key("first"); json.string(values.first)
                json.endObject()
            }
            json.endObject()
        }
        json.endObject()
    }
}

extension CreationOptionsResponse.Options.Descriptor: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("type"); json.string(type)
        json.key("id"); json.string(id)
        if let transports {
            json.key("transports"); json.strings(transports)
        }
        json.endObject()
    }
}

extension RequestOptionsResponse: JSONWritable {
    func write(to json: inout JSONWriter) {
        let o = publicKey
        json.beginObject()
        json.key("publicKey")
        json.beginObject()
        json.key("challenge"); json.string(o.challenge)
        json.key("rpId"); json.string(o.rpId)
        json.key("timeout"); json.integer(o.timeout)
        json.key("userVerification"); json.string(o.userVerification)
        if let allowCredentials = o.allowCredentials {
            json.key("allowCredentials")
            json.beginArray()
            for descriptor in allowCredentials { descriptor.write(to: &json) }
            json.endArray()
        }
        if let hints = o.hints {
            json.key("hints"); json.strings(hints)
        }
        if let extensions = o.extensions {
            json.key("extensions")
            json.beginObject()
            if let prf = extensions.prf {
                json.key("prf"); prf.write(to: &json)
            }
            json.endObject()
        }
        json.endObject()
        json.endObject()
    }
}

extension CeremonyResult: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("status"); json.string(status)
        json.key("user_name"); json.string(userName)
        json.key("credential_id"); json.string(credentialId)
        if renewed {
            json.key("reauthenticated"); json.boolean(true)
        } else {
            json.key("session"); json.string(session)
        }
        json.endObject()
    }
}
