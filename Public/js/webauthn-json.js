// WebAuthn's JSON forms (L3 §5.1): base64url, options from JSON and credentials to JSON, for
// browsers without parse*OptionsFromJSON and toJSON (and for `?json=manual`).

import { useBrowserJSON } from "./shared.js";

// ---------------------------------------------------------------- base64url

export function bufferToBase64url(value) {
  const bytes = value instanceof ArrayBuffer
    ? new Uint8Array(value)
    : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// Accepts base64url with or without padding, and plain base64.
export function base64urlToBuffer(text) {
  const b64 = String(text).replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

// ------------------------------------------------------- options from JSON

function descriptorsFromJSON(list) {
  return (list ?? []).map((d) => ({ ...d, id: base64urlToBuffer(d.id) }));
}

export function creationOptionsFromJSON(json) {
  if (useBrowserJSON && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: base64urlToBuffer(json.challenge),
    user: { ...json.user, id: base64urlToBuffer(json.user.id) },
    excludeCredentials: descriptorsFromJSON(json.excludeCredentials),
  };
}

export function requestOptionsFromJSON(json) {
  if (useBrowserJSON && typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  const options = { ...json, challenge: base64urlToBuffer(json.challenge) };
  if (json.allowCredentials !== undefined) {
    options.allowCredentials = descriptorsFromJSON(json.allowCredentials);
  }
  return options;
}

// ------------------------------------------------------ credential to JSON

function commonCredentialJSON(credential, response) {
  const json = {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults?.() ?? {},
  };
  if (credential.authenticatorAttachment) {
    json.authenticatorAttachment = credential.authenticatorAttachment;
  }
  return json;
}

// RegistrationResponseJSON (WebAuthn L3 §5.1).
export function registrationToJSON(credential) {
  if (useBrowserJSON && typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = {
    clientDataJSON: bufferToBase64url(r.clientDataJSON),
    attestationObject: bufferToBase64url(r.attestationObject),
    transports: typeof r.getTransports === "function" ? r.getTransports() : [],
  };
  if (typeof r.getAuthenticatorData === "function") {
    response.authenticatorData = bufferToBase64url(r.getAuthenticatorData());
  }
  if (typeof r.getPublicKeyAlgorithm === "function") {
    response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
  }
  const publicKey = typeof r.getPublicKey === "function" ? r.getPublicKey() : null;
  if (publicKey) response.publicKey = bufferToBase64url(publicKey);
  return commonCredentialJSON(credential, response);
}

// AuthenticationResponseJSON (WebAuthn L3 §5.1).
export function assertionToJSON(credential) {
  if (useBrowserJSON && typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = {
    clientDataJSON: bufferToBase64url(r.clientDataJSON),
    authenticatorData: bufferToBase64url(r.authenticatorData),
    signature: bufferToBase64url(r.signature),
  };
  if (r.userHandle) response.userHandle = bufferToBase64url(r.userHandle);
  return commonCredentialJSON(credential, response);
}
