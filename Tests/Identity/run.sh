#!/usr/bin/env bash
# run.sh PASSKEY_SERVER_BINARY   (or run.sh --venv-only: make the venv and stop)
#
# The OpenID provider with real relying parties, each started here on loopback: an Authlib
# application (authlib_test.py; the pinned Authlib and requests are installed into
# .build-identity/venv when missing) and Apache httpd with mod_auth_openidc driven by headless
# Chromium (apache_test.py), and nginx and Caddy asking the server's forward-authentication
# endpoints in front of an application (proxy_test.py); Debian's packages, installed by
# `make identity-deps`. Then the device authorization grant (RFC 8628): a device polling the
# token endpoint while headless Chromium approves and denies its requests with a passkey
# (device_test.py). Runs all four and fails when any fails.
set -euo pipefail

AUTHLIB_VERSION=1.9.10
REQUESTS_VERSION=2.32.3

if [ $# -lt 1 ] || { [ "$1" != --venv-only ] && [ ! -x "$1" ]; }; then
    echo "usage: $0 PASSKEY_SERVER_BINARY | --venv-only" >&2
    exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VENV="$ROOT/.build-identity/venv"   # .build-*/ is git-ignored

if ! "$VENV/bin/python" -c "import authlib, requests, sys; sys.exit(authlib.__version__ != '$AUTHLIB_VERSION')" 2>/dev/null; then
    echo "installing Authlib $AUTHLIB_VERSION into ${VENV#"$ROOT"/}"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "authlib==$AUTHLIB_VERSION" "requests==$REQUESTS_VERSION"
fi
# `--venv-only`: only the venv, for scripts/bench-machine.py.
[ "$1" = --venv-only ] && exit 0
BINARY=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

status=0
echo "=== Authlib relying party ==="
"$VENV/bin/python" "$ROOT/Tests/Identity/authlib_test.py" "$BINARY" || status=1
echo "=== Apache httpd with mod_auth_openidc ==="
python3 "$ROOT/Tests/Identity/apache_test.py" --server-binary "$BINARY" || status=1
echo "=== nginx (auth_request) and Caddy (forward_auth) ==="
python3 "$ROOT/Tests/Identity/proxy_test.py" --server-binary "$BINARY" || status=1
echo "=== Device flow (RFC 8628) in Chromium ==="
python3 "$ROOT/Tests/Identity/device_test.py" --server-binary "$BINARY" || status=1
exit $status
