// A note only the user's passkey opens: the WebAuthn `prf` extension gives, for the server's
// per-credential salt, a secret that never leaves the browser; HKDF turns it into an AES-GCM
// key that encrypts the note, kept in this browser's localStorage only. The sign-in that
// yields the secret is finished on the server like any other, without the PRF output.

import { runCeremony } from "./ceremonies.js";
import { api, el, setStatus, state } from "./shared.js";
import { assertionToJSON, base64urlToBuffer, bufferToBase64url, requestOptionsFromJSON } from "./webauthn-json.js";

const info = new TextEncoder().encode("passkey-server note v1");

function storageKey() {
  return `passkey-prf-note:${state.account?.user_id ?? ""}`;
}

// A passkey ceremony with PRF salts; `onlyCredential` limits it to the passkey that encrypted
// the note. Returns the AES key and the credential that made it.
async function noteKey(onlyCredential) {
  const { publicKey } = await api("POST", "/authentication_initialize", { user_name: state.account.user_name, prf: true });
  const { extensions, ...plain } = publicKey;
  const salts = extensions?.prf?.evalByCredential ?? {};
  if (onlyCredential) plain.allowCredentials = (plain.allowCredentials ?? []).filter((d) => d.id === onlyCredential);
  const options = requestOptionsFromJSON(plain);
  const evalByCredential = {};
  for (const descriptor of plain.allowCredentials ?? []) {
    const salt = salts[descriptor.id]?.first;
    if (salt) evalByCredential[descriptor.id] = { first: base64urlToBuffer(salt) };
  }
  options.extensions = { prf: { evalByCredential } };
  const credential = await navigator.credentials.get({ publicKey: options });
  const secret = credential.getClientExtensionResults()?.prf?.results?.first;
  const response = assertionToJSON(credential);
  if (response.clientExtensionResults) delete response.clientExtensionResults.prf;
  await api("POST", "/authentication_finalize", response);
  if (!secret) throw new Error("This passkey cannot derive keys (its authenticator has no PRF support).");
  const material = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info },
    material, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  return { key, credentialId: credential.id };
}

el.prfEncrypt.addEventListener("click", () => {
  const text = el.prfText.value;
  runCeremony("Encrypting the note with your passkey…", async () => {
    const { key, credentialId } = await noteKey(null);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(text));
    localStorage.setItem(storageKey(), JSON.stringify({
      credential: credentialId, iv: bufferToBase64url(iv), data: bufferToBase64url(sealed),
    }));
    el.prfText.value = "";
    setStatus("ok", "Note encrypted and kept in this browser");
  });
});

el.prfDecrypt.addEventListener("click", () => {
  runCeremony("Opening the note with your passkey…", async () => {
    const stored = JSON.parse(localStorage.getItem(storageKey()) ?? "null");
    if (!stored) throw new Error("There is no note in this browser yet.");
    const { key } = await noteKey(stored.credential);
    let plain;
    try {
      plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: base64urlToBuffer(stored.iv) }, key, base64urlToBuffer(stored.data));
    } catch {
      throw new Error("The note does not open with this passkey.");
    }
    el.prfText.value = new TextDecoder().decode(plain);
    setStatus("ok", "Note decrypted");
  });
});
