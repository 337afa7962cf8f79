public import PasskeyCore

/// A refused push-authenticator request, with the contract's error code (push.md):
/// `invalid_request`, `weak_key`, `invalid_signature`, `unknown_challenge`, `invalid_token`,
/// `token_expired`, `number_mismatch` (400), `too_many_devices`, `already_answered` (409),
/// `not_found` (404).
public typealias PushError = CodedError
