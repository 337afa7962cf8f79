#!/usr/bin/env bash
# run_schemathesis.sh PASSKEY_SERVER_BINARY
#
# Fuzzes the HTTP API against its description, docs/openapi.yaml, with Schemathesis:
#   1. installs Schemathesis (pinned) into .build-schemathesis/venv when it is missing;
#   2. starts `passkey-server serve --port 0` on 127.0.0.1 with a throw-away SQLite file;
#   3. registers one account ("alice", the name the document's examples use) with two
#      passkeys, with the software authenticator in sign_up.py, to get a session token and
#      credential ids for /credentials/{id} (see schemathesis.toml);
#   4. pass "anonymous": every operation, with random (invalid) session tokens;
#      pass "signed-in": the operations that take a session, with alice's Bearer token
#      (/logout is left out there: it would end the session the pass relies on);
#      pass "business" (when Messages for Business is built in): the business's /mfb calls
#      with its api token;
#      pass "cross-origin": every POST, PATCH and DELETE with alice's session cookie and an
#      `Origin` the server does not allow (all of them must be 403 forbidden_origin), but
#      the form endpoints that other sites post to by design (Apple's callback, the OAuth
#      authorization endpoints as a navigation) or that never read the cookie (token,
#      revocation, userinfo, CIBA's request, the authorization challenge: client credentials,
#      a client id or a Bearer token only), and RP-initiated
#      logout, which other sites send the browser to by design and which asks the user first;
#   5. stops the server; exits non-zero on any failure.
#
# Checks: no 5xx (not_a_server_error); every status code documented for its operation;
# the documented Content-Type; the body matching the documented schema; the documented
# response headers (Set-Cookie, Retry-After); a body with another media type answered 415
# (json_body_required, in schemathesis_checks.py); in the anonymous pass, 405 with an
# `Allow` header for a method a path does not take (unsupported_method); in the
# cross-origin pass, 403 (foreign_origin_refused, in schemathesis_checks.py).
#
# The last line is `schemathesis: N passed, M failed`, counting operations per pass (an
# operation tested in several passes counts once in each; a pass that did not finish, or a
# server that stopped answering, counts as one failure).
#
# Environment: SCHEMATHESIS_MAX_EXAMPLES (default 100 per operation and phase),
# SCHEMATHESIS_SEED (to replay a run; each run prints its seed), SCHEMATHESIS_HAR_DIR (a
# folder that receives every request and response of each pass as NAME.har.json).
set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5
MAX_EXAMPLES=${SCHEMATHESIS_MAX_EXAMPLES:-100}
# A pass's time limit grows with the document: it is there to stop a server that hangs, and a
# fixed figure made every new operation eat into it until a busy machine ran past it.
PASS_SECONDS_BASE=40            # seconds for one pass, plus
PASS_SECONDS_PER_OPERATION=2    # this for each operation in the document (about 0.9 s used)
START_TIMEOUT=30       # seconds for the server to print its `listening on` line

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 PASSKEY_SERVER_BINARY" >&2
    exit 2
fi
BINARY=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SCHEMA="$ROOT/docs/openapi.yaml"
VENV="$ROOT/.build-schemathesis/venv"   # .build-*/ is git-ignored
started=$SECONDS

# --- Schemathesis --------------------------------------------------------------------------
install_schemathesis() {
    if [ -x "$VENV/bin/schemathesis" ] &&
        [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" = "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
        return
    fi
    echo "installing schemathesis $SCHEMATHESIS_VERSION into ${VENV#"$ROOT"/}"
    if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
        local sudo_cmd=""
        [ "$(id -u)" = 0 ] || sudo_cmd=sudo
        $sudo_cmd apt-get update -qq || return 1
        DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
            python3-venv </dev/null || return 1
    fi
    rm -rf "$VENV"
    python3 -m venv "$VENV" || return 1
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "schemathesis==$SCHEMATHESIS_VERSION" </dev/null || { rm -rf "$VENV"; return 1; }
}
if ! install_schemathesis; then
    echo "could not install schemathesis $SCHEMATHESIS_VERSION" >&2
    echo "schemathesis: 0 passed, 1 failed"
    exit 1
fi

operations=$("$VENV/bin/python" - "$SCHEMA" <<'EOF'
import sys
import yaml
methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
paths = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))["paths"]
print(sum(1 for item in paths.values() for method in item if method in methods))
EOF
)
PASS_TIMEOUT=$((PASS_SECONDS_BASE + PASS_SECONDS_PER_OPERATION * operations))
echo "$operations operations in ${SCHEMA#"$ROOT"/}; each pass may take ${PASS_TIMEOUT}s"

# --- The server ----------------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/passkey-schemathesis.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The run must not depend on the caller's PASSKEY_* settings.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^PASSKEY_' || true)

help=$("$BINARY" serve --help 2>&1 || true)
serve_args=(serve --host 127.0.0.1 --port 0 --database "$work/passkeys.sqlite" --public-dir Public)
# Rate limits would turn the fuzzing into 429s; newer servers let them be switched off.
if grep -q -- '--rate-limit-ip' <<<"$help"; then serve_args+=(--rate-limit-ip 0); fi
if grep -q -- '--rate-limit-user' <<<"$help"; then serve_args+=(--rate-limit-user 0); fi
# Configure the optional well-known documents too, so their 200 answers are checked.
if grep -q -- '--android-app' <<<"$help"; then
    serve_args+=(--android-app "com.example.passkeys:$(printf 'AB:%.0s' $(seq 31))AB")
fi
if grep -q -- '--related-origin' <<<"$help"; then serve_args+=(--related-origin https://passkeys.example.org); fi
# Clients may register themselves, so /oauth/register and its management answer.
if grep -q -- '--dynamic-registration' <<<"$help"; then serve_args+=(--dynamic-registration open); fi
# The FIDO conformance API on (a throw-away server: its test mode harms nothing here).
if grep -q -- '--fido-conformance' <<<"$help"; then serve_args+=(--fido-conformance); fi
# Sign in with Apple on, with an empty key set: every token is refused, every path answers.
if grep -q -- '--apple-client-id' <<<"$help"; then
    echo '{"keys":[]}' >"$work/apple-keys.json"
    serve_args+=(--apple-client-id com.example.app --apple-jwks-url "file://$work/apple-keys.json")
fi
# Messages for Business on, so its paths answer; the "business" pass uses the api token.
mfb_token=""
if grep -q -- '--mfb-client-id' <<<"$help"; then
    mfb_token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
    serve_args+=(--mfb-client-id schemathesis-client --mfb-client-secret schemathesis-secret
        --mfb-redirect-uri http://localhost/callback --mfb-api-token "$mfb_token")
fi

: >"$work/server.log"
"$BINARY" "${serve_args[@]}" >>"$work/server.log" 2>&1 </dev/null &
server_pid=$!
port=""
for _ in $(seq $((START_TIMEOUT * 10))); do
    port=$(sed -n 's|.*listening on http://[^ ]*:\([0-9][0-9]*\).*|\1|p' "$work/server.log" | head -n 1 || true)
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "passkey-server did not start:" >&2
    cat "$work/server.log" >&2
    echo "schemathesis: 0 passed, 1 failed"
    exit 1
fi
base_url="http://127.0.0.1:$port"
echo "passkey-server listening on $base_url"

token="" credential="" second=""
read -r token credential < <("$VENV/bin/python" "$ROOT/Tests/API/sign_up.py" "$base_url" alice </dev/null) || true
[ -n "$token" ] &&
    read -r _ second < <("$VENV/bin/python" "$ROOT/Tests/API/sign_up.py" "$base_url" alice "$token" </dev/null) || true
if [ -z "$credential" ] || [ -z "$second" ]; then
    echo "could not register the test account (Tests/API/sign_up.py failed)" >&2
    tail -n 20 "$work/server.log" >&2
    echo "schemathesis: 0 passed, 1 failed"
    exit 1
fi

# --- The passes ----------------------------------------------------------------------------
export PASSKEY_TEST_CREDENTIAL_ID=$credential PASSKEY_TEST_DELETE_ID=$second
common=(
    --url "$base_url"
    --phases examples,coverage,fuzzing
    --max-examples "$MAX_EXAMPLES"
    --continue-on-failure
    --workers 1
    --request-timeout 10
    --generation-database none
    --suppress-health-check too_slow
    --output-sanitize false
    --no-color
)
[ -n "${SCHEMATHESIS_SEED:-}" ] && common+=(--seed "$SCHEMATHESIS_SEED")
# json_body_required (schemathesis_checks.py): a body that is not application/json is 415.
export SCHEMATHESIS_HOOKS="$ROOT/Tests/API/schemathesis_checks.py" PYTHONDONTWRITEBYTECODE=1
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
checks+=,response_headers_conformance,json_body_required

passed=0
failed=0
status=0
run_pass() {  # NAME ARGS...
    local name=$1; shift
    local report="$work/$name.xml"
    echo
    echo "=== schemathesis: $name pass ==="
    local reports=(--report junit --report-junit-path "$report")
    if [ -n "${SCHEMATHESIS_HAR_DIR:-}" ]; then
        mkdir -p "$SCHEMATHESIS_HAR_DIR"
        reports=(--report junit,har --report-junit-path "$report"
            --report-har-path "$(cd "$SCHEMATHESIS_HAR_DIR" && pwd)/$name.har.json")
    fi
    local rc=0
    # Run from the scratch folder: Schemathesis keeps its caches in the working directory.
    (cd "$work" && timeout --kill-after=10 "$PASS_TIMEOUT" "$VENV/bin/schemathesis" \
        --config-file "$ROOT/Tests/API/schemathesis.toml" run "$SCHEMA" \
        "${common[@]}" "${reports[@]}" "$@" </dev/null) || rc=$?
    if [ ! -s "$report" ]; then
        [ "$rc" = 124 ] && echo "the $name pass did not finish within ${PASS_TIMEOUT}s" >&2
        failed=$((failed + 1))
        status=1
        return
    fi
    local counts
    counts=$("$VENV/bin/python" - "$report" <<'EOF'
import sys
import xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
bad = good = 0
for case in cases:
    if case.find("failure") is not None or case.find("error") is not None:
        bad += 1
    else:
        good += 1
print(good, bad)
EOF
)
    local good bad
    read -r good bad <<<"$counts"
    passed=$((passed + good))
    failed=$((failed + bad))
    if [ "$rc" != 0 ] || [ "$bad" != 0 ]; then status=1; fi
}

run_pass anonymous --checks "$checks,unsupported_method"
run_pass signed-in --checks "$checks" \
    --header "Authorization: Bearer $token" \
    --generation-with-security-parameters false \
    --include-path-regex '^/(me|me/applications/\{clientId\}|credentials/\{id\}|registration_initialize|siwa/initialize|siwa/link|push/devices/discovery|push/devices/\{deviceId\})$'
if [ -n "$mfb_token" ]; then
    run_pass business --checks "$checks" \
        --header "Authorization: Bearer $mfb_token" \
        --generation-with-security-parameters false \
        --include-path-regex '^/mfb/(requests|requests/\{requestIdentifier\}|responses)$'
fi
# Last, as it may end the session: a browser's cookie from a site that is not allowed.
export PASSKEY_TEST_FOREIGN_ORIGIN=https://attacker.example
run_pass cross-origin --checks "${checks%,json_body_required},foreign_origin_refused" \
    --header "Cookie: session=$token" \
    --header "Origin: $PASSKEY_TEST_FOREIGN_ORIGIN" \
    --generation-with-security-parameters false \
    --include-method-regex '^(POST|PATCH|DELETE)$' \
    --exclude-path /siwa/callback --exclude-path /mfb/authorize --exclude-path /mfb/token \
    --exclude-path /oauth/authorize --exclude-path /oauth/token --exclude-path /oauth/revoke \
    --exclude-path /oauth/userinfo --exclude-path /oauth/logout --exclude-path /oauth/introspect --exclude-path /oauth/par \
    --exclude-path /oauth/device --exclude-path /oauth/bc-authorize --exclude-path /oauth/authorize-challenge

if ! "$VENV/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' \
    "$base_url/healthz" 2>/dev/null; then
    echo "passkey-server stopped answering during the run:" >&2
    tail -n 20 "$work/server.log" >&2
    failed=$((failed + 1))
    status=1
fi

echo
echo "schemathesis $SCHEMATHESIS_VERSION against $base_url, ${MAX_EXAMPLES} examples per operation, $((SECONDS - started))s"
# Counted in operations, per pass.
echo "schemathesis: $passed passed, $failed failed"
exit "$status"
