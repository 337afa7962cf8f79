"""Sign a Python application's users in through Passkey Server, with Authlib.

Everything an application needs: the provider's discovery document, the authorization URL
(PKCE S256, state and nonce), the code redeemed at the token endpoint, the ID token checked
against the provider's keys, userinfo, and refreshing. The integration tests run this file
against a real server (Tests/Identity/authlib_test.py).

    client = PasskeyServerClient("https://id.example.com", CLIENT_ID, CLIENT_SECRET,
                                 "https://app.example.com/callback")
    url, pending = client.begin()         # keep `pending` in the user's session, redirect to url
    ...                                   # the browser comes back to the redirect URI
    signed_in = client.finish(callback_url, pending)
    signed_in.claims["sub"], signed_in.claims["preferred_username"], signed_in.claims["groups"]
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken


@dataclass
class SignedIn:
    token: dict    # access_token, refresh_token, id_token, expires_in, token_type
    claims: dict   # the ID token's claims, checked


class PasskeyServerClient:
    def __init__(self, issuer, client_id, client_secret, redirect_uri, scope="openid profile groups"):
        self.metadata = requests.get(issuer.rstrip("/") + "/.well-known/openid-configuration", timeout=10).json()
        if self.metadata["issuer"] != issuer.rstrip("/"):
            raise ValueError(f"the discovery document names the issuer {self.metadata['issuer']}")
        self.client_id = client_id
        self.session = OAuth2Session(client_id, client_secret, scope=scope, redirect_uri=redirect_uri,
                                     code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")

    def begin(self):
        """The URL to send the user's browser to, and what to keep until it comes back."""
        pending = {"verifier": secrets.token_urlsafe(48), "nonce": secrets.token_urlsafe(16)}
        url, pending["state"] = self.session.create_authorization_url(
            self.metadata["authorization_endpoint"], nonce=pending["nonce"], code_verifier=pending["verifier"])
        return url, pending

    def finish(self, callback_url, pending):
        """Redeems the code of the redirect (Authlib checks `state`) and checks the ID token:
        its signature against the provider's keys, iss, aud, exp, iat, nonce and at_hash."""
        token = self.session.fetch_token(self.metadata["token_endpoint"], authorization_response=callback_url,
                                         state=pending["state"], code_verifier=pending["verifier"])
        keys = JsonWebKey.import_key_set(requests.get(self.metadata["jwks_uri"], timeout=10).json())
        claims = JsonWebToken(["RS256", "ES256"]).decode(
            token["id_token"], key=keys, claims_cls=CodeIDToken,
            claims_options={"iss": {"essential": True, "value": self.metadata["issuer"]}},
            claims_params={"nonce": pending["nonce"], "client_id": self.client_id, "access_token": token["access_token"]})
        claims.validate(leeway=5)
        return SignedIn(token=token, claims=dict(claims))

    def userinfo(self):
        """The signed-in user's claims, asked with the access token."""
        return self.session.get(self.metadata["userinfo_endpoint"], timeout=10).json()

    def refresh(self, refresh_token):
        """New tokens; the refresh token given is retired (the provider rotates them)."""
        return self.session.refresh_token(self.metadata["token_endpoint"], refresh_token=refresh_token)
