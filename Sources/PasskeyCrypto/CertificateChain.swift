public import Foundation
internal import CPasskeyOpenSSL

/// The outcome of a chain verification, as data.
public enum ChainVerdict: Sendable, Equatable {
    /// Verified up to an anchor; `chainLength` counts the leaf and the anchor.
    case trusted(chainLength: Int)
    case untrusted(reason: String)
}

public enum CertificateChain {
    /// OpenSSL X509_STORE verification at `time` (X509_VERIFY_PARAM_set_time) with
    /// X509_V_FLAG_PARTIAL_CHAIN so an anchor may be an intermediate. Only `anchors` are trusted:
    /// a self-signed root carried in `intermediates` is NEVER an anchor (GHSA-6hxq-p678-4hr2).
    /// Empty anchors => .untrusted. Validity of every certificate is checked at `time`.
    /// A leaf that is itself one of the anchors is trusted (chain length 1).
    public static func verify(leaf: Certificate, intermediates: [Certificate], anchors: [Certificate],
                              at time: Date) -> ChainVerdict {
        guard !anchors.isEmpty else { return .untrusted(reason: "no trust anchors") }
        let seconds = time.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, let posixTime = Int(exactly: seconds) else {
            return .untrusted(reason: "verification time out of range")
        }
        // All certificates stay alive (and so do their X509 pointers) until the store and the
        // untrusted stack are freed below.
        return withExtendedLifetime((leaf, intermediates, anchors)) {
            OpenSSLErrorQueue.clear()
            defer { OpenSSLErrorQueue.clear() }
            return run(leaf: leaf, intermediates: intermediates, anchors: anchors, time: posixTime)
        }
    }

    private static func run(leaf: Certificate, intermediates: [Certificate], anchors: [Certificate],
                            time: Int) -> ChainVerdict {
        guard let store = X509_STORE_new() else {
            return .untrusted(reason: "X509_STORE_new failed" + OpenSSLErrorQueue.drainedSuffix())
        }
        defer { X509_STORE_free(store) }
        for anchor in anchors {
            // X509_STORE_add_cert takes its own reference.
            guard X509_STORE_add_cert(store, anchor.pointer) == 1 else {
                return .untrusted(reason: "cannot add an anchor" + OpenSSLErrorQueue.drainedSuffix())
            }
        }

        guard let untrusted = passkey_x509_stack_new() else {
            return .untrusted(reason: "cannot allocate the intermediate stack")
        }
        defer { passkey_x509_stack_free(untrusted) }  // frees the stack only, not the X509s
        for intermediate in intermediates {
            guard passkey_x509_stack_push(untrusted, intermediate.pointer) > 0 else {
                return .untrusted(reason: "cannot collect intermediates")
            }
        }

        guard let context = X509_STORE_CTX_new() else {
            return .untrusted(reason: "X509_STORE_CTX_new failed")
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1,
              let parameters = X509_STORE_CTX_get0_param(context)
        else {
            return .untrusted(reason: "X509_STORE_CTX_init failed" + OpenSSLErrorQueue.drainedSuffix())
        }
        X509_VERIFY_PARAM_set_time(parameters, time)
        guard X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) == 1 else {
            return .untrusted(reason: "cannot set verification flags")
        }

        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let text = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            return .untrusted(reason: "\(text) (at depth \(depth))")
        }
        let chain = X509_STORE_CTX_get0_chain(context)
        return .trusted(chainLength: Int(passkey_x509_stack_count(chain)))
    }
}
