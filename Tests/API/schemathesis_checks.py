"""Schemathesis checks for contract rules that the OpenAPI document cannot express.

Loaded by Tests/API/run_schemathesis.sh through SCHEMATHESIS_HOOKS.
"""
from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

import schemathesis

# Answers that may come before the media type is looked at: no session, a foreign origin, an
# unknown id, a body over the limit, a rate limit. None of them reads the body.
_EARLIER_REFUSALS = {401, 403, 404, 413, 429}

# Apple's web flow posts a form there (docs/contracts/siwa.md), the device's OAuth calls to the next two
# (docs/contracts/mfb.md), OpenID relying parties and browsers to the OAuth endpoints (docs/contracts/identity.md); their
# bodies are form-encoded by contract.
_FORM_PATHS = {
    "/siwa/callback", "/mfb/authorize", "/mfb/token",
    "/oauth/authorize", "/oauth/token", "/oauth/revoke", "/oauth/userinfo", "/oauth/logout", "/oauth/introspect", "/oauth/par",
    "/oauth/device", "/oauth/consent", "/oauth/bc-authorize", "/oauth/authorize-challenge",
}


def _media_type(value: str | bytes | None) -> str:
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return (value or "").split(";", 1)[0].strip().lower()


@schemathesis.check
def json_body_required(ctx, response, case):
    """A body sent with a Content-Type other than application/json is 415 and changes nothing.

    docs/contracts/http-api.md, Requests: "A JSON body must come with Content-Type: application/json ...;
    anything else is 415 unsupported_media_type and changes nothing."
    """
    request = response.request
    # Only the operation's own method: a probe with a method the path does not take is 405's business.
    if request.method != case.operation.method.upper() or not case.operation.body or not request.body:
        return None
    if case.operation.path in _FORM_PATHS:
        return None
    media_type = _media_type(request.headers.get("Content-Type"))
    if media_type == "application/json":
        return None
    status = response.status_code
    if status == 415 or status in _EARLIER_REFUSALS:
        return None
    raise AssertionError(
        f"A body with `Content-Type: {media_type or '(none)'}` was answered {status}; "
        "expected 415 unsupported_media_type (the body must not be read)"
    )


def _canonical_path(path):
    """The server's RequestPath rule: no empty, "." or ".." segment, no backslash, no encoded
    "/", "\\", "." or "%"."""
    if path == "/":
        return True
    if "\\" in path or re.search(r"%(2[fFeE5]|5[cC])", path):
        return False
    return all(segment not in ("", ".", "..") for segment in path[1:].split("/"))


@schemathesis.check
def foreign_origin_refused(ctx, response, case):
    """A cookie-authenticated state change from an origin that is not allowed is 403.

    docs/contracts/http-api.md, Requests: "A request that carries a session cookie and changes state (POST,
    PATCH, DELETE) and has an Origin header must come from an allowed origin; otherwise 403
    forbidden_origin." The runner sends the origin in PASSKEY_TEST_FOREIGN_ORIGIN, which the
    server does not allow.
    """
    foreign = os.environ.get("PASSKEY_TEST_FOREIGN_ORIGIN")
    request = response.request
    if not foreign or request.method not in ("POST", "PATCH", "DELETE"):
        return None
    # Only the operation's own method: a probe with a method the path does not take is 405's business.
    if request.method != case.operation.method.upper():
        return None
    if request.headers.get("Origin") != foreign:
        return None
    cookies = [part.strip().split("=", 1)[0] for part in request.headers.get("Cookie", "").split(";")]
    if "session" not in cookies:
        return None
    # 413 and 429 come before any handler and change nothing either; so does 415 for a body
    # that is not JSON, whichever of the two refusals the server checks first.
    if response.status_code in (403, 413, 429):
        return None
    # A path parameter that makes the path another spelling (".", "..", an encoded "/") is 404
    # before any policy or handler: nothing changes either.
    if response.status_code == 404 and not _canonical_path(urlsplit(request.url).path):
        return None
    if response.status_code == 415 and request.body and _media_type(request.headers.get("Content-Type")) != "application/json":
        return None
    raise AssertionError(
        f"{request.method} with the session cookie and `Origin: {foreign}` was answered "
        f"{response.status_code}; expected 403 forbidden_origin"
    )
