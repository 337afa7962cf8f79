import ArgumentParser
import Foundation
import PasskeyApp
import PasskeyCore
import PasskeyCrypto
import PasskeyStorage
import PasskeyTestSupport

@main
struct PasskeyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-bench",
        abstract: "Benchmarks that run without the HTTP server, the database filler for the ones that do, and the bare HTTP stacks they are measured against.",
        subcommands: [Speed.self, Populate.self, Floor.self],
        defaultSubcommand: Speed.self)
}

// Throughput of our verification next to raw OpenSSL (`openssl speed`) on the same machine, in
// the same run, reported as ratios: the numbers that matter are how much of OpenSSL's own
// verify rate a whole WebAuthn ceremony keeps. Run with `make bench` (a release build).
struct Speed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verifications per second of a §7.1 registration and a §7.2 assertion beside `openssl speed` (the default).")

    func run() async throws {
        let rp = try RelyingParty(id: "example.org", name: "bench", origins: ["https://example.org"])
        let challenge = SecureRandom.bytes(32)

        print("passkey-bench: verifications per second; ratio = ours / openssl speed (1.00 = no overhead)")
        print(pad("algorithm", 10) + pad("openssl verify/s", 18) + pad("signature only", 22) + pad("§7.2 assertion", 22) + "§7.1 registration")
        for c in cases {
            let credential = try TestCredential(algorithm: c.algorithm)
            let key = try COSEKey(bytes: credential.coseKey)
            let assertion = try AssertionBuilder(credential: credential, rpID: "example.org", origin: "https://example.org", challenge: challenge, signCount: 1).json()
            let parsed = try AuthenticationResponse(json: assertion)
            let signed = parsed.authenticatorData.bytes + Digest.sha256.hash(parsed.clientData.bytes)
            let state = CredentialState(id: credential.id, userHandle: credential.userHandle, publicKey: key, signCount: 0, backupEligible: false)
            let expectation = AuthenticationExpectation(challenge: challenge, userVerification: .preferred, allowCredentialIDs: [], identifiedUserHandle: nil)
            var registration = RegistrationBuilder(credential: credential, rpID: "example.org", origin: "https://example.org", challenge: challenge)
            registration.format = "packed"
            let registrationJSON = try registration.json()
            let registrationExpectation = RegistrationExpectation(challenge: challenge, userVerification: .preferred, algorithms: COSEAlgorithm.allCases.map(\.rawValue))

            let raw = opensslVerifyRate(c.openssl, row: c.row)
            let signatureOnly = rate { precondition(key.isValidSignature(parsed.signature, for: signed)) }
            let fullAssertion = try rate {
                let response = try AuthenticationResponse(json: assertion)
                _ = try AuthenticationVerifier(rp: rp).verify(response, expecting: expectation, credential: state)
            }
            // Packed self attestation: one signature verification, plus COSE key import and CBOR.
            let fullRegistration = try rate {
                let response = try RegistrationResponse(json: registrationJSON)
                _ = try RegistrationVerifier(rp: rp).verify(response, expecting: registrationExpectation, now: Date())
            }
            func cell(_ ours: Double) -> String {
                guard let raw else { return fmt(ours) + " (n/a)    " }
                return fmt(ours) + String(format: " (%.2f)    ", ours / raw)
            }
            print(pad(c.name, 10) + pad(raw.map(fmt) ?? "n/a", 18) + pad(cell(signatureOnly), 22) + pad(cell(fullAssertion), 22) + cell(fullRegistration))
        }
        try signing()
    }

    /// The signatures the server makes itself (ID tokens, access tokens, logout tokens): a
    /// JWS signing input of a typical ID token's size, signed with our key type, beside
    /// `openssl speed`'s signs per second.
    func signing() throws {
        print()
        print("passkey-bench: signatures per second (JWS signing input, 400 bytes); ratio = ours / openssl speed")
        print(pad("algorithm", 10) + pad("openssl sign/s", 18) + "ours")
        let input = SecureRandom.bytes(400)
        for (name, key, algorithm, openssl, row) in [
            ("ES256", try PrivateKey.generateEC(.p256), SignatureAlgorithm.ecdsa(.sha256), "ecdsap256", "nistp256"),
            ("RS256", try PrivateKey.generateRSA(bits: 2048), SignatureAlgorithm.rsaPKCS1v15(.sha256), "rsa2048", "rsa 2048"),
        ] {
            let raw = opensslRates(openssl, row: row)?.sign
            let ours = try rate { _ = try key.signature(for: input, algorithm: algorithm) }
            let ratio = raw.map { String(format: " (%.2f)", ours / $0) } ?? " (n/a)"
            print(pad(name, 10) + pad(raw.map(fmt) ?? "n/a", 18) + fmt(ours) + ratio)
        }
    }
}

/// `passkey-bench populate`: a database of N accounts for the scale benchmark (`make bench-scale`).
struct Populate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fill a database with accounts and passkeys in batched inserts, for benchmarks at scale.",
        discussion: """
            Writes the rows a registration writes (an account and its synced ES256 passkeys), \
            BATCH accounts per transaction, without audit events. An SQLite file is created with \
            the schema when missing; a postgres:// URL must name an existing database.
            """)

    @Option(help: "The server's database: an SQLite file or a postgres:// URL.")
    var database: String

    @Option(help: "How many accounts to add.")
    var users: Int

    @Option(help: "Passkeys per account on average, from 1 to 2 (1.2: every fifth account has two).")
    var passkeysPerUser: Double = 1.2

    @Option(help: "Accounts per transaction.")
    var batch: Int = 10_000

    @Option(help: "Account names are this prefix and a number.")
    var prefix = "populated-"

    @Option(help: "The first account's number (to add more accounts to a filled database).")
    var first = 0

    func run() async throws {
        let report: AccountPopulation.Report
        do {
            report = try await AccountPopulation.populate(
                database: database, users: users, passkeysPerUser: passkeysPerUser, batch: batch, prefix: prefix, first: first,
                progress: { written in
                    if written % 100_000 == 0 { FileHandle.standardError.write(Data("\(written) accounts\n".utf8)) }
                })
        } catch let failure as CommandFailure {
            throw ValidationError(failure.description)
        } catch let error as StoreError where error.code == .database {
            throw ValidationError("\(error.reason). Fix: names (--prefix, --first) or ids already stored make a batch fail; batches before it stay written.")
        }
        print("populated \(report.users) accounts and \(report.credentials) passkeys in \(String(format: "%.1f", report.seconds)) s")
    }
}

/// Calls `body` for about `seconds` and returns operations per second.
func rate(seconds: Double = 1.0, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var operations = 0
    let start = clock.now
    let end = start.advanced(by: .milliseconds(Int(seconds * 1000)))
    while clock.now < end {
        for _ in 0..<16 { try body() }
        operations += 16
    }
    let elapsed = start.duration(to: clock.now)
    return Double(operations) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

/// `openssl speed -seconds 1 ALG`, verifies per second from the row matching `row`.
func opensslVerifyRate(_ algorithm: String, row: String) -> Double? {
    opensslRates(algorithm, row: row)?.verify
}

/// `openssl speed -seconds 1 ALG`: signs and verifies per second from the row matching `row`
/// (its last two columns).
func opensslRates(_ algorithm: String, row: String) -> (sign: Double, verify: Double)? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "speed", "-seconds", "1", algorithm]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    // `openssl speed -seconds N` ends each test on SIGALRM, and a child starts with its parent
    // thread's signal mask: this runs on one of Swift Concurrency's threads, which block
    // signals, so the child would spin for ever. Spawn it with nothing blocked.
    var nothing = sigset_t()
    var previous = sigset_t()
    sigemptyset(&nothing)
    pthread_sigmask(SIG_SETMASK, &nothing, &previous)
    let started = (try? process.run()) != nil
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    guard started else { return nil }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = text.split(separator: "\n").last(where: { $0.contains(row) }) else { return nil }
    let columns = line.split(separator: " ")
    guard columns.count >= 2, let sign = Double(columns[columns.count - 2]), let verify = Double(columns[columns.count - 1]) else { return nil }
    return (sign, verify)
}

struct Case {
    let name: String
    let algorithm: COSEAlgorithm
    let openssl: String
    let row: String
}

let cases = [
    Case(name: "ES256", algorithm: .es256, openssl: "ecdsap256", row: "nistp256"),
    Case(name: "Ed25519", algorithm: .ed25519, openssl: "ed25519", row: "Ed25519"),
    Case(name: "RS256", algorithm: .rs256, openssl: "rsa2048", row: "rsa 2048"),
]

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
func fmt(_ x: Double) -> String { String(format: "%10.0f", x) }
