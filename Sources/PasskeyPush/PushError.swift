public import PasskeyCore

/// The push authenticator, as an error domain.
public enum PushAuthenticatorDomain: ErrorDomain {}

/// A refused push-authenticator request, with the contract's error code (docs/contracts/push.md):
/// `invalid_request`, `weak_key`, `invalid_signature`, `unknown_challenge`, `invalid_token`,
/// `token_expired`, `number_mismatch`, `too_many_devices`, `already_answered`, `not_found`.
public typealias PushError = CodedError<PushAuthenticatorDomain>
