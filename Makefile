# Passkey Server — the two commands: `make run` and `make test`.
# Both install the C libraries from Debian when missing (apt-get; sudo when not root).

SWIFT ?= swift
PORT ?= 8080
DATABASE ?= ./passkeys.sqlite
# More flags for `make run`, after `serve`: make run ARGS="--ios-app-id ABCDE12345.com.example.app"
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
LIB_PACKAGES := libssl-dev libcbor-dev libsqlite3-dev libqrencode-dev
BROWSER_PACKAGES := chromium chromium-driver openssl
# The throwaway cluster of the tests (scripts/postgres-cluster runs it; nothing is configured
# system-wide).
POSTGRES_PACKAGES := postgresql openssl
# Apache httpd with mod_auth_openidc, the OpenID relying party of the identity test, and nginx
# and Caddy, the reverse proxies of its forward-authentication test. The tests start their own
# on free loopback ports with their own configurations (Caddy's admin endpoint off), so the
# services the packages may start on a machine with systemd (port 80; nginx only when it is
# free, Caddy's admin on 2019) are neither used nor in the way.
IDENTITY_PACKAGES := apache2 libapache2-mod-auth-openidc nginx caddy
# The container image and the Debian package: mmdebstrap makes the image's Debian root and
# buildah packs it (no base image is pulled), podman and runc run it; debhelper and lintian make
# and check the package, systemd's systemd-analyze checks its unit (and its systemd-sysusers
# makes the package's user; no systemd runs here).
DEPLOY_PACKAGES := mmdebstrap buildah podman runc uidmap debhelper lintian systemd fakeroot
BINARY = $(shell $(SWIFT) build --show-bin-path)/passkey-server
# The release binary of the image and the package, the Swift standard library linked statically;
# built once by `make release` and reused by both.
RELEASE_FLAGS := -c release --static-swift-stdlib
RELEASE_BINARY = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/passkey-server

.PHONY: run test build release image deb docs reference docs-test screenshots deps browser-deps postgres-deps identity-deps deploy-deps unit-tests browser-test identity-test api-test deploy-test fuzz fuzz-check vectors bench bench-http bench-machine bench-admin bench-scale trust-anchors clean

run: deps build
	$(BINARY) serve --port $(PORT) --database $(DATABASE) $(ARGS)

test: deps browser-deps postgres-deps identity-deps deploy-deps
	$(SWIFT) build --build-tests
	$(MAKE) unit-tests browser-test identity-test api-test docs-test fuzz-check deploy-test

# Every test with a throwaway PostgreSQL cluster: the store suite runs against SQLite and
# PostgreSQL, the two-instance tests run; then the HTTP tests once more with each in-process
# server on PostgreSQL instead of an SQLite file.
unit-tests:
	./scripts/with-postgres $(SWIFT) test --skip-build
	PASSKEY_TEST_SERVER_DATABASE=postgres ./scripts/with-postgres $(SWIFT) test --skip-build --filter 'PasskeyServerTests|PasskeyCommandTests'

browser-test:
	python3 Tests/Browser/browser_test.py --server-binary $(BINARY)
	python3 Tests/Browser/admin_test.py --server-binary $(BINARY)
	python3 Tests/Browser/recovery_delay_test.py --server-binary $(BINARY)

# Real OpenID relying parties against the server: an Authlib application (PyPI, pinned, in
# .build-identity) and Apache with mod_auth_openidc (docs/examples/apache-mod-auth-openidc.conf,
# as docs/guides/apache.md includes it) signing headless Chromium in with a virtual authenticator's passkey;
# then nginx (auth_request) and Caddy (forward_auth) in front of an application, with
# docs/examples/nginx-forward-auth.conf and docs/examples/Caddyfile-forward-auth as the guides
# include them;
# then the device flow (RFC 8628), a polling device approved and denied in headless Chromium.
identity-test:
	Tests/Identity/run.sh $(BINARY)

# The documentation site (mkdocs.yml, docs/): MkDocs with Material, pinned in .build-docs/venv
# (scripts/docs-venv). `make docs` builds it into .build/site; --strict fails on any warning, so
# every link, anchor and included file resolves. `make reference` rewrites the generated
# reference pages (every flag and command from the binary, every operation of
# docs/openapi.yaml); `make docs-test` fails when they differ from the binary, runs the
# getting-started guide's commands as written and the documentation's own checks
# (Tests/Docs), then builds the site. `make screenshots` copies the browser tests' pictures
# of the sign-in and admin pages (taken on every run) into docs/images.
DOCS_VENV = $(shell ./scripts/docs-venv)

docs:
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict

reference: build
	$(DOCS_VENV)/bin/python scripts/reference $(BINARY)

docs-test:
	$(DOCS_VENV)/bin/python scripts/reference --check $(BINARY)
	$(DOCS_VENV)/bin/python Tests/Docs/docs_test.py --server-binary $(BINARY)
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict

screenshots:
	cp .build/screenshots/sign-in.png .build/screenshots/admin.png docs/images/

# The HTTP API against docs/openapi.yaml with Schemathesis (installed into .build-schemathesis).
api-test:
	Tests/API/run_schemathesis.sh $(BINARY)

# The image and the package, each installed and run as an operator would, a passkey registered
# and signed in through it in headless Chromium (Tests/Deploy). Needs root (sudo otherwise).
deploy-test: image deb
	python3 Tests/Deploy/image_test.py --server-binary $(RELEASE_BINARY)
	python3 Tests/Deploy/package_test.py --server-binary $(RELEASE_BINARY)

# Coverage-guided fuzzing of the parsers (Fuzz/, libFuzzer + AddressSanitizer, built in
# .build-fuzz): `make fuzz` runs each target FUZZ_SECONDS; `make fuzz-check` (part of make test)
# replays the committed regression inputs and runs each target briefly.
FUZZ_SECONDS ?= 600
fuzz: deps
	SWIFT=$(SWIFT) ./scripts/fuzz run --seconds $(FUZZ_SECONDS)

fuzz-check: deps
	SWIFT=$(SWIFT) ./scripts/fuzz check

build:
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product passkey-server

# The container image localhost/passkey-server:<version> (and :latest), also written to
# .build/passkey-server-image.tar for `podman load`; prints its size (scripts/make-image).
image: deps deploy-deps release
	$(SUDO) ./scripts/make-image $(RELEASE_BINARY)

# The Debian package .build/passkey-server_<version>_amd64.deb, checked with lintian and
# systemd-analyze security (scripts/make-deb).
deb: deps deploy-deps release
	./scripts/make-deb $(RELEASE_BINARY)

# Installs the -dev packages that are not installed yet (dpkg -s asks without the network).
deps:
	@./scripts/install-packages $(SUDO) $(LIB_PACKAGES)

browser-deps:
	@./scripts/install-packages $(SUDO) $(BROWSER_PACKAGES)

postgres-deps:
	@./scripts/install-packages $(SUDO) $(POSTGRES_PACKAGES)

identity-deps:
	@./scripts/install-packages $(SUDO) $(IDENTITY_PACKAGES)

deploy-deps:
	@./scripts/install-packages $(SUDO) $(DEPLOY_PACKAGES)

# Verification throughput as ratios against `openssl speed`, in one run (release build).
bench: deps
	@./scripts/install-packages $(SUDO) openssl
	$(SWIFT) build -c release --product passkey-bench
	$$($(SWIFT) build -c release --show-bin-path)/passkey-bench

# HTTP throughput, latency, CPU and memory against the Python and Go peers in ../shared/bench,
# in one run (release build; installs wrk, the Go peer's Debian packages and the load
# generator's Python packages when missing). Prints one line per goal: met or not met.
bench-http: deps
	./scripts/bench-http

# What services and agents cost (release build): server CPU per client_credentials token (by
# secret, by private_key_jwt, with DPoP) and per userinfo call with a Bearer and a DPoP-bound
# token. Needs the identity tests' venv (requests, joserfc): make identity-deps.
bench-machine: deps
	$(SWIFT) build -c release --product passkey-server
	./Tests/Identity/run.sh --venv-only
	.build-identity/venv/bin/python scripts/bench-machine.py $$($(SWIFT) build -c release --show-bin-path)/passkey-server

# The admin list at a million accounts, on SQLite and on a throwaway PostgreSQL (release build):
# p50/p99 of GET /admin/api/users searches and cursor pages. BENCH_ADMIN_USERS=N for another size.
bench-admin: deps postgres-deps
	$(SWIFT) build -c release --product passkey-server
	./scripts/with-postgres python3 scripts/bench-admin.py $$($(SWIFT) build -c release --show-bin-path)/passkey-server

# A sign-in's cost from a thousand accounts to a million (passkey-bench populate), on SQLite and
# on a throwaway PostgreSQL (release build): throughput, CPU, start-up, memory, bytes per account,
# and memory after 100 000 sign-ins. BENCH_SCALE_ARGS="--sizes 1000,100000 --rounds 1" for less.
bench-scale: deps postgres-deps
	./scripts/with-postgres ./scripts/bench-scale $(BENCH_SCALE_ARGS)

# Regenerates the committed test vectors (needs python3 with cryptography and cbor2).
vectors:
	python3 Tests/PasskeyCoreTests/Vectors/generate.py
	python3 Tests/PasskeyCoreTests/Vectors/mds/generate_mds.py

# Recompiles the bundled vendor roots (Sources/PasskeyCore/TrustAnchors/PEM) into Swift source.
trust-anchors:
	python3 scripts/generate-trust-anchors.py

clean:
	rm -rf .build .build-fuzz
