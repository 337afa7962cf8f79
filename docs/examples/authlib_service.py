"""A service or an agent getting a token of its own from Passkey Server, with Authlib.

The client credentials grant (no user): the client authenticates with its secret, or, with no
secret at all, with a short-lived assertion signed by its own key (private_key_jwt, the key set
registered with `clients add --jwks FILE` or `--jwks-uri URL`). The token is an RFC 9068 JWT for
the resource named (one of the client's `--audience` values), which the resource server checks
offline against the provider's keys. The integration tests run this file against a real
server (Tests/Identity/authlib_test.py).

    service = ServiceClient("https://id.example.com", "reports", secret=SECRET)
    service = ServiceClient("https://id.example.com", "agent", key=ECKey.import_key(PEM))
    token = service.token(scope="reports:read", resource="https://api.example.com/")
    claims = check_token(token["access_token"], "https://id.example.com", "https://api.example.com/")
"""
from __future__ import annotations

import time

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc import jwt
from joserfc.jwk import KeySet


class ShortLivedPrivateKeyJWT(PrivateKeyJWT):
    """Authlib's private_key_jwt, with assertions that expire after two minutes: Passkey Server
    takes none that lives longer than five (Authlib's default is an hour). Each assertion gets
    its own `jti`; the server refuses one it has seen."""

    def sign(self, auth, token_endpoint):
        self.claims = {"exp": int(time.time()) + 120}
        return super().sign(auth, token_endpoint)


class ServiceClient:
    def __init__(self, issuer, client_id, secret=None, key=None, alg="ES256"):
        self.metadata = requests.get(issuer.rstrip("/") + "/.well-known/oauth-authorization-server", timeout=10).json()
        if self.metadata["issuer"] != issuer.rstrip("/"):
            raise ValueError(f"the metadata names the issuer {self.metadata['issuer']}")
        token_endpoint = self.metadata["token_endpoint"]
        if key is not None:
            self.session = OAuth2Session(client_id, key, token_endpoint_auth_method="private_key_jwt")
            self.session.register_client_auth_method(ShortLivedPrivateKeyJWT(token_endpoint, alg=alg))
        else:
            self.session = OAuth2Session(client_id, secret, token_endpoint_auth_method="client_secret_basic")

    def token(self, scope=None, resource=None):
        """A new access token for the client itself (grant_type=client_credentials)."""
        extra = {}
        if scope:
            extra["scope"] = scope
        if resource:
            extra["resource"] = resource
        return self.session.fetch_token(self.metadata["token_endpoint"], grant_type="client_credentials", **extra)


def check_token(access_token, issuer, audience):
    """What a resource server does with the token: the signature against the provider's keys,
    `typ: at+jwt`, the issuer, its own name in `aud`, and the expiry. Returns the claims."""
    metadata = requests.get(issuer.rstrip("/") + "/.well-known/oauth-authorization-server", timeout=10).json()
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
    token = jwt.decode(access_token, keys, algorithms=["RS256", "ES256"])
    if token.header.get("typ") != "at+jwt":
        raise ValueError(f"typ is {token.header.get('typ')}, not at+jwt")
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": metadata["issuer"]},
        aud={"essential": True, "value": audience},
        exp={"essential": True}, sub={"essential": True}, client_id={"essential": True},
    ).validate(token.claims)
    return token.claims
