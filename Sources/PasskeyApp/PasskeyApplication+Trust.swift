internal import Foundation
internal import PasskeyTelemetry
internal import PasskeyServer
internal import PasskeyAccounts
internal import Logging
internal import PasskeyCore
internal import PasskeyCrypto

extension PasskeyApplication {
    /// What attestation is checked against, loaded once at start-up: the bundled vendor roots,
    /// `--trust-anchors`, and the `--mds-blob` metadata verified against the FIDO MDS root (or
    /// `--mds-root`). Anything unreadable or invalid stops start-up with a message naming it.
    struct Trust {
        let anchors: MetadataTrustAnchors
        let metadata: MetadataBLOB?
    }

    static func loadTrust(_ configuration: ServerConfiguration, logger: Logger, now: Date) throws -> Trust {
        let bundled: BundledTrustAnchors
        do { bundled = try BundledTrustAnchors() } catch {
            throw StartupError(message: "the bundled trust anchors do not parse: \(error)")
        }
        var additional: [Certificate] = []
        if let directory = configuration.trustAnchorsDirectory {
            do { additional = try TrustAnchorFiles.loadDirectory(directory) } catch {
                throw StartupError(message: "--trust-anchors: \(error). Fix: give a folder of PEM or DER certificates.")
            }
            logger.info("trust anchors loaded", metadata: ["folder": "\(directory)", "certificates": "\(additional.count)"])
        }
        let metadata = try loadMetadata(configuration, bundled: bundled, logger: logger, now: now)
        return Trust(anchors: MetadataTrustAnchors(base: bundled, additional: additional, metadata: metadata), metadata: metadata)
    }

    static func loadMetadata(_ configuration: ServerConfiguration, bundled: BundledTrustAnchors, logger: Logger, now: Date) throws -> MetadataBLOB? {
        guard let path = configuration.metadataBLOBPath else { return nil }
        var roots = bundled.metadataServiceRoots
        if let rootPath = configuration.metadataRootPath {
            do { roots = try TrustAnchorFiles.loadFile(rootPath) } catch {
                throw StartupError(message: "--mds-root: \(error). Fix: give a PEM file with the BLOB's root certificate.")
            }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StartupError(message: "--mds-blob: \(path) cannot be read. Fix: download the BLOB from https://mds3.fidoalliance.org/ or leave the flag out.")
        }
        let blob: MetadataBLOB
        do { blob = try MetadataBLOB(jws: [UInt8](data), roots: roots, signerNames: configuration.metadataSignerNames, now: now) } catch {
            throw StartupError(message: "--mds-blob: \(path) is refused: \(error)")
        }
        for warning in blob.warnings {
            logger.warning("metadata BLOB: \(LogText.escaped(warning))")
        }
        logger.info("metadata BLOB loaded", metadata: [
            "file": "\(path)", "no": "\(blob.number)", "entries": "\(blob.entries.count)", "next_update": "\(blob.nextUpdateText)",
        ])
        if blob.isStale(at: now) {
            logger.warning("metadata BLOB is stale: its nextUpdate \(blob.nextUpdateText) has passed; fetch a new one so status changes (e.g. revocations) are seen", metadata: ["file": "\(path)"])
        }
        return blob
    }

    /// Settings that make every registration fail are worth a warning, not a refusal: a native
    /// client may still send attestation.
    static func warnAboutPolicy(_ configuration: ServerConfiguration, logger: Logger) {
        if configuration.attestationTrust == .trusted, configuration.attestationConveyance == .none {
            logger.warning("--attestation-policy trusted with --attestation none: browsers will send no attestation and registrations will be refused; ask for direct or enterprise attestation")
        }
        if configuration.attestationTrust == .any, !configuration.allowedAAGUIDs.isEmpty || !configuration.deniedAAGUIDs.isEmpty {
            logger.notice("AAGUID allow list: only models whose attestation chains to their own metadata roots (--mds-blob) are admitted; a claimed AAGUID is not enough")
        }
    }
}
