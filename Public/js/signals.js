// The WebAuthn Level 3 Signal API: keeps the password manager's passkeys in step with the
// server. Each call is feature-detected and never blocks or fails the page.

function call(name, argument) {
  const method = globalThis.PublicKeyCredential?.[name];
  if (typeof method !== "function") return;
  try {
    Promise.resolve(method.call(PublicKeyCredential, argument)).catch(() => {});
  } catch {
    // A browser that throws synchronously: nothing to do.
  }
}

// A sign-in or registration named a passkey the server does not hold.
export function signalUnknown(rpId, credentialId) {
  call("signalUnknownCredential", { rpId: rpId ?? location.hostname, credentialId });
}

// After a sign-in and after a deletion: every passkey the account still has (`account` is the
// /me body), so the password manager hides the others.
export function signalAccepted(account) {
  if (!account?.user_id || !account?.rp_id) return;
  call("signalAllAcceptedCredentials", {
    rpId: account.rp_id,
    userId: account.user_id,
    allAcceptedCredentialIds: (account.credentials ?? []).map((c) => c.credential_id),
  });
}

// After the user changed their display name.
export function signalUserDetails(account) {
  if (!account?.user_id || !account?.rp_id) return;
  call("signalCurrentUserDetails", {
    rpId: account.rp_id,
    userId: account.user_id,
    name: account.user_name,
    displayName: account.display_name,
  });
}
