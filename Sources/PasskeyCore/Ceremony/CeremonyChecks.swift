internal import PasskeyJSON
public import PasskeyCrypto

/// The checks that registration (§7.1) and authentication (§7.2) share. Each is one function
/// named after what it checks; the step numbers of both sections are in its comment.
public enum CeremonyChecks {
    /// §7.1 step 7 / §7.2 step 10: C.type is `webauthn.create` / `webauthn.get`.
    public static func checkType(_ clientData: CollectedClientData, expected: String) throws {
        guard clientData.type == expected else {
            throw WebAuthnError(.typeMismatch, "clientDataJSON.type is \"\(clientData.type)\", expected \"\(expected)\"")
        }
    }

    /// §7.1 step 8 / §7.2 step 11: C.challenge is the challenge the server issued. The decoded
    /// bytes are compared (in constant time), not the text: some native clients write the
    /// challenge in standard base64, padded or not, and the bytes are what was issued.
    /// An issued challenge shorter than `minimumLength` (16 bytes, §13.4.3) is refused; the
    /// offline verifier lowers it to check what other servers issued.
    public static func checkChallenge(_ clientData: CollectedClientData, expected: [UInt8], minimumLength: Int = 16) throws {
        guard !expected.isEmpty, expected.count >= minimumLength else {
            throw WebAuthnError(.unknownChallenge, "the issued challenge is shorter than \(max(minimumLength, 1)) bytes")
        }
        guard let received = Base64URL.decode(clientData.challenge),
              constantTimeEquals(received, expected)
        else {
            throw WebAuthnError(.unknownChallenge, "clientDataJSON.challenge is not the challenge issued for this ceremony")
        }
    }

    /// §7.1 step 9 / §7.2 step 12: C.origin is one of the RP's origins — an exact string match,
    /// no prefix, suffix or subdomain matching.
    public static func checkOrigin(_ clientData: CollectedClientData, rp: RelyingParty) throws {
        guard rp.origins.contains(clientData.origin) else {
            throw WebAuthnError(.originMismatch, "origin \(clientData.origin) is not an allowed origin")
        }
    }

    /// §7.1 steps 10–11 / §7.2 steps 13–14: crossOrigin true and topOrigin are accepted only when
    /// the RP expects to be embedded, and topOrigin must then be an allowed top origin.
    public static func checkCrossOrigin(_ clientData: CollectedClientData, rp: RelyingParty) throws {
        if clientData.crossOrigin == true, !rp.allowCrossOrigin {
            throw WebAuthnError(.originMismatch, "the ceremony ran in a cross-origin iframe, which this RP does not allow")
        }
        if let topOrigin = clientData.topOrigin {
            guard rp.allowCrossOrigin else {
                throw WebAuthnError(.originMismatch, "topOrigin \(topOrigin) given but this RP is not embeddable")
            }
            guard rp.topOrigins.contains(topOrigin) else {
                throw WebAuthnError(.originMismatch, "topOrigin \(topOrigin) is not an allowed top origin")
            }
        }
    }

    /// §7.1 step 14 / §7.2 step 15: rpIdHash is SHA-256 of the RP ID.
    public static func checkRPIDHash(_ authData: AuthenticatorData, rp: RelyingParty) throws {
        guard constantTimeEquals(authData.rpIDHash, rp.rpIDHash) else {
            throw WebAuthnError(.rpIdMismatch, "rpIdHash is not SHA-256 of \(rp.id)")
        }
    }

    /// §7.1 step 15 / §7.2 step 16: the UP flag is set.
    public static func checkUserPresent(_ authData: AuthenticatorData) throws {
        guard authData.userPresent else {
            throw WebAuthnError(.userPresenceRequired, "the authenticator did not report user presence (UP)")
        }
    }

    /// §7.1 step 16 / §7.2 step 17: UV is set when the ceremony requires user verification.
    public static func checkUserVerified(_ authData: AuthenticatorData, requirement: UserVerificationRequirement) throws {
        if requirement == .required, !authData.userVerified {
            throw WebAuthnError(.userVerificationRequired, "user verification is required but UV is not set")
        }
    }

    /// §7.1 step 17 / §7.2 step 18: BS is never set without BE.
    public static func checkBackupFlags(_ authData: AuthenticatorData) throws {
        if authData.backupState, !authData.backupEligible {
            throw WebAuthnError.invalidRequest("backup state (BS) is set but backup eligibility (BE) is not")
        }
    }
}
