import PasskeyJSON
import Foundation

/// One fuzz target: the name scripts/fuzz passes in PASSKEY_FUZZ_TARGET and what one input runs.
///
/// A target throws nothing: every Swift error a parser or verifier throws is an expected
/// refusal and is dropped (`try?`, or `attempt` where the step is worth naming). What counts as
/// a finding is a trap (precondition, overflow, out-of-range index, force unwrap), a crash, an
/// AddressSanitizer or LeakSanitizer report, a timeout, or one of the few consistency checks a
/// target states with `expect(_:_:)`.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void
}

enum FuzzTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "cbor", run: CBORTarget.run),
        FuzzTarget(name: "attestation-object", run: AttestationObjectTarget.run),
        FuzzTarget(name: "cose-key", run: COSEKeyTarget.run),
        FuzzTarget(name: "der-x509", run: DERX509Target.run),
        FuzzTarget(name: "attestation-formats", run: AttestationFormatsTarget.run),
        FuzzTarget(name: "jws", run: JWSTarget.run),
        FuzzTarget(name: "jose", run: JOSETarget.run),
        FuzzTarget(name: "registration", run: RegistrationTarget.run),
        FuzzTarget(name: "authentication", run: AuthenticationTarget.run),
        FuzzTarget(name: "strict-json", run: StrictJSONTarget.run),
        FuzzTarget(name: "postgres-url", run: PostgresURLTarget.run),
        FuzzTarget(name: "apple-jws", run: AppleJWSTarget.run),
        FuzzTarget(name: "push-answer", run: PushAnswerTarget.run),
        FuzzTarget(name: "qr", run: QRTarget.run),
        FuzzTarget(name: "mfb-token", run: MfBTokenTarget.run),
        FuzzTarget(name: "mfb-reply", run: MfBReplyTarget.run),
        FuzzTarget(name: "stored-json", run: StoredJSONTarget.run),
        FuzzTarget(name: "form", run: FormTarget.run),
        FuzzTarget(name: "http-headers", run: HTTPHeadersTarget.run),
        FuzzTarget(name: "ip-address", run: IPAddressTarget.run),
        FuzzTarget(name: "request-path", run: RequestPathTarget.run),
        FuzzTarget(name: "redirect-uri", run: RedirectURITarget.run),
        FuzzTarget(name: "forward-auth", run: ForwardAuthTarget.run),
        FuzzTarget(name: "outbound-host", run: OutboundHostTarget.run),
        FuzzTarget(name: "user-code", run: UserCodeTarget.run),
        FuzzTarget(name: "recovery-code", run: RecoveryCodeTarget.run),
        FuzzTarget(name: "page-cursor", run: PageCursorTarget.run),
        FuzzTarget(name: "name", run: NameTarget.run),
        FuzzTarget(name: "checkpoint-copies", run: CheckpointCopiesTarget.run),
        FuzzTarget(name: "json-offsets", run: JSONOffsetsTarget.run),
        FuzzTarget(name: "export-lines", run: ExportLinesTarget.run),
        FuzzTarget(name: "client-metadata", run: ClientMetadataTarget.run),
        FuzzTarget(name: "forward-auth-rule", run: ForwardAuthRuleTarget.run),
        FuzzTarget(name: "sealed-ceremony", run: SealedCeremonyTarget.run),
    ]
}

/// Set once by LLVMFuzzerInitialize, before the first input; only read afterwards.
nonisolated(unsafe) private var selectedTarget: FuzzTarget?

/// PASSKEY_FUZZ_VERBOSE=1: `attempt` prints each step's outcome (to see how far an input gets,
/// e.g. that a seed passes: `PASSKEY_FUZZ_VERBOSE=1 PASSKEY_FUZZ_TARGET=registration passkey-fuzz FILE`).
nonisolated(unsafe) private var verbose = false

/// Runs one step of a target: its value, or nil for an error (an expected refusal).
func attempt<T>(_ step: @autoclosure () -> String, _ body: () throws -> T) -> T? {
    do {
        let value = try body()
        if verbose { say("\(step()): ok") }
        return value
    } catch {
        if verbose { say("\(step()): \(error)") }
        return nil
    }
}

/// Prints `message` in verbose mode only.
func note(_ message: @autoclosure () -> String) {
    if verbose { say(message()) }
}

/// To standard error, unbuffered, so it interleaves with libFuzzer's own lines.
private func say(_ message: String) {
    FileHandle.standardError.write(Data("passkey-fuzz: \(message)\n".utf8))
}

/// A consistency check of a target: a violation stops the run like any other crash.
func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        fatalError("fuzz invariant violated: \(message())")
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
    guard let name = ProcessInfo.processInfo.environment["PASSKEY_FUZZ_TARGET"], !name.isEmpty else {
        FileHandle.standardError.write(Data("passkey-fuzz: set PASSKEY_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    guard let target = FuzzTargets.all.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("passkey-fuzz: unknown target \(name); targets: \(names)\n".utf8))
        exit(2)
    }
    selectedTarget = target
    verbose = ProcessInfo.processInfo.environment["PASSKEY_FUZZ_VERBOSE"] == "1"
    // Load the fixed relying party, anchors and keys now, not inside the first input's time.
    Fixtures.load()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    selectedTarget!.run(bytes)
    return 0
}
