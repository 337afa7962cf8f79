#!/usr/bin/env python3
"""The documentation's own checks (make docs-test), against the real binary.

    python3 Tests/Docs/docs_test.py [--server-binary PATH]

1. The getting-started guide's commands, as written: every ```sh block of
   docs/getting-started.md, in order, in one bash session in an empty directory, with the
   binary on PATH; each must succeed, and the outputs the guide promises must be there.
2. README.md is the entry page: under 250 lines, with the two pictures of the browser tests.
3. Words: "seed" only in docs/seeds.md (not in the README, the site or any command's help); no
   history of how the project was made; no file outside the repository.
4. Citations: every `docs/contracts/NAME.md, "Section"` in the code names a page and a section
   that exist; no citation is left in the older form (a bare `NAME.md`).
5. The configuration of nginx, Caddy, Apache and the Python application is included from the
   files the integration tests use, never copied.
6. The audit events and the metrics pages list exactly what the code records.

Prints one "ok - NAME" / "not ok - NAME: WHY" line per check and ends with "N passed, N failed".
"""

import argparse
import functools
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTRACTS = ["http-api", "identity", "accounts", "deploy", "siwa", "push", "mfb", "operations"]


class Failed(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise Failed(why)


def read(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        return f.read()


def site_pages():
    """Every Markdown page a reader of the site or the repository sees."""
    pages = ["README.md"] + sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))
    return [p for p in pages if not p.startswith("docs/examples/")]


# ---------------------------------------------------------------------------- 1. getting started

def sh_blocks(text):
    return [m.group(1) for m in re.finditer(r"^```sh\n(.*?)^```$", text, re.S | re.M)]


def port_is_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def getting_started(binary):
    blocks = sh_blocks(read("docs/getting-started.md"))
    expect(len(blocks) >= 5, f"docs/getting-started.md has {len(blocks)} sh blocks")
    expect(port_is_free(8080), "port 8080 is in use: the guide serves on it; free it and run again")
    workdir = tempfile.mkdtemp(prefix="passkey-getting-started-")
    script = ["set -euo pipefail"]
    for number, block in enumerate(blocks, 1):
        script += [f"echo '>>> block {number}'", block.rstrip()]
    script += ["wait", "echo '>>> done'"]
    environment = dict(os.environ, PATH=os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ["PATH"])
    for name in list(environment):
        if name.startswith("PASSKEY_"):
            del environment[name]  # the guide's commands alone, as a reader runs them
    process = subprocess.Popen(["bash", "-c", "\n".join(script)], cwd=workdir, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        raise Failed("the guide's commands did not finish in 120 s:\n" + output[-2000:])
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # a server the guide left running
        except ProcessLookupError:
            pass
    expect(process.returncode == 0, f"the guide's commands exited {process.returncode}:\n{output[-3000:]}")
    expect(">>> done" in output, output[-2000:])
    expect('"status":"ok"' in output, "/healthz did not answer status ok:\n" + output[-2000:])
    expect(re.search(r"^http://localhost:8080/setup\?token=[A-Za-z0-9_-]{20,}$", output, re.M), "no first-admin link was found in the log:\n" + output[-2000:])
    expect('"client_secret"' in output and '"client_id":"my-app"' in output.replace(" ", ""), "clients add printed no client:\n" + output[-2000:])
    expect('"issuer":"http://localhost:8080"' in output.replace(" ", ""), "the discovery document is not there:\n" + output[-2000:])
    database = os.path.join(workdir, "passkey-demo", "passkeys.sqlite")
    expect(os.path.exists(database), "no passkeys.sqlite in the directory the guide made")
    subprocess.run(["rm", "-rf", workdir])


# ---------------------------------------------------------------------------- 2. README

def readme():
    text = read("README.md")
    lines = text.count("\n")
    expect(lines < 250, f"README.md has {lines} lines")
    for picture in ("docs/images/sign-in.png", "docs/images/admin.png"):
        expect(f"]({picture})" in text, f"README.md does not show {picture}")
        with open(os.path.join(REPO, picture), "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{picture} is not a PNG")
    for needed in ("https", "podman run", "apt install", "make run", "/setup", "clients add", "docs/"):
        expect(needed in text, f"README.md says nothing of {needed!r}")


# ---------------------------------------------------------------------------- 3. words

def help_texts(binary):
    tree = json.loads(subprocess.run([binary, "--experimental-dump-help"], capture_output=True, text=True, check=True).stdout)["command"]
    texts = []

    def walk(command, path):
        texts.append((" ".join(path), command.get("abstract", "") + " " + command.get("discussion", "")))
        for argument in command.get("arguments") or []:
            texts.append((" ".join(path) + " " + str(argument.get("preferredName", {}).get("name")),
                          argument.get("abstract", "") + " " + argument.get("discussion", "") + " " + " ".join(argument.get("allValues") or [])))
        for sub in command.get("subcommands") or []:
            walk(sub, path + [sub["commandName"]])
    walk(tree, ["passkey-server"])
    return texts


def no_stubs():
    unwritten = [page for page in site_pages() if "To be written." in read(page)]
    expect(not unwritten, f"pages still to be written: {unwritten}")


def seed_only_in_seeds(binary):
    found = []
    for page in site_pages() + ["mkdocs.yml"]:
        if page == "docs/seeds.md":
            continue
        for number, line in enumerate(read(page).splitlines(), 1):
            if re.search(r"seed(?!s\.md)", line, re.I):
                found.append(f"{page}:{number}: {line.strip()[:100]}")
    for where, text in help_texts(binary):
        if re.search(r"seed", text, re.I):
            found.append(f"`{where} --help`: {text.strip()[:100]}")
    expect(not found, "the word is used outside docs/seeds.md:\n  " + "\n  ".join(found[:30]))


HISTORY = re.compile(r"\bthe issue\b|\bissue #?\d+|a (hostile )?review (found|asked)|\.\./shared|shared/spec|/work/", re.I)


def no_history(binary):
    found = []
    for page in site_pages() + ["mkdocs.yml"]:
        for number, line in enumerate(read(page).splitlines(), 1):
            if HISTORY.search(line):
                found.append(f"{page}:{number}: {line.strip()[:100]}")
    for where, text in help_texts(binary):
        if HISTORY.search(text):
            found.append(f"`{where} --help`: {text.strip()[:100]}")
    expect(not found, "history or outside files:\n  " + "\n  ".join(found[:30]))


# ---------------------------------------------------------------------------- 4. citations

def tracked_files():
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    texts = (".swift", ".js", ".py", ".sh", ".md", ".yaml", ".html", ".css", ".toml")
    return [n for n in names if not n.startswith(("docs/contracts/", "Tests/PasskeyMfBTests/Vectors/"))
            and (n.endswith(texts) or n == "Makefile" or n.startswith("scripts/"))]


@functools.lru_cache(maxsize=None)
def headings(page):
    return [re.sub(r"\s*\{[^}]*\}\s*$", "", m.group(1)).strip() for m in re.finditer(r"^#{1,6} (.+)$", read(page), re.M)]


def citations():
    cited = re.compile(r'docs/contracts/([a-z-]+)\.md(?:,\s*(?:\n\s*(?:///?|#|\*)\s*)?"([^"]+)")?')
    older = re.compile(r"(?<![\w/.-])(" + "|".join(CONTRACTS) + r")\.md\b")
    problems, count = [], 0
    for name in tracked_files():
        if name == "Tests/Docs/docs_test.py" or not os.path.isfile(os.path.join(REPO, name)):
            continue
        try:
            text = read(name)
        except UnicodeDecodeError:
            continue
        for m in cited.finditer(text):
            count += 1
            page = f"docs/contracts/{m.group(1)}.md"
            if not os.path.exists(os.path.join(REPO, page)):
                problems.append(f"{name}: {page} does not exist")
            elif m.group(2):
                title = " ".join(re.sub(r"\n\s*(?:///?|#|\*)\s*", " ", m.group(2)).split())
                if not any(h.lower().startswith(title.lower()) for h in headings(page)):
                    problems.append(f"{name}: {page} has no section {title!r}")
        if not name.startswith("docs/") and name != "README.md":
            for m in older.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{name}:{line}: {m.group(0)} (cite docs/contracts/{m.group(0)})")
    expect(count > 100, f"only {count} citations found: is the pattern still right?")
    expect(not problems, "\n  ".join(problems[:30]))


# ---------------------------------------------------------------------------- 5. snippets

def included_not_copied():
    included = {
        "docs/guides/nginx.md": "nginx-forward-auth.conf",
        "docs/guides/caddy.md": "Caddyfile-forward-auth",
        "docs/guides/apache.md": "apache-mod-auth-openidc.conf",
        "docs/guides/python.md": "authlib_client.py",
    }
    for page, example in included.items():
        expect(f'--8<-- "{example}"' in read(page), f"{page} does not include docs/examples/{example}")
    # The tests use those very files.
    for test, example in (("Tests/Identity/proxy_test.py", "nginx-forward-auth.conf"), ("Tests/Identity/proxy_test.py", "Caddyfile-forward-auth"),
                          ("Tests/Identity/apache_test.py", "apache-mod-auth-openidc.conf"), ("Tests/Identity/authlib_test.py", "authlib_client")):
        expect(example in read(test), f"{test} does not use docs/examples/{example}")
    # No page carries a copy: a long line of an example appears only where it is included.
    for example in included.values():
        distinctive = [line.strip() for line in read("docs/examples/" + example).splitlines() if len(line.strip()) > 50][:5]
        for page in site_pages():
            text = read(page)
            copied = [line[:80] for line in distinctive if line in text]
            expect(not copied, f"{page} copies docs/examples/{example}: {copied[:1]!r}")


# ---------------------------------------------------------------------------- 6. events, metrics

def recorded_event_types():
    call = re.compile(r'\b(?:event|Event|adminEvent)\(\s*(?:\[\]|[^()"\[\]]|\([^()]*\))*?"([a-z]+(?:_[a-z]+)*)"')
    typed = re.compile(r'\btype: "([a-z]+(?:_[a-z]+)*)"')
    found = set()
    for path in glob.glob(os.path.join(REPO, "Sources", "**", "*.swift"), recursive=True):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found |= {m.group(1) for m in call.finditer(text)} | {m.group(1) for m in typed.finditer(text)}
    # The account page names each type it can show.
    found |= set(re.findall(r'case "([a-z_]+)":', read("Public/js/activity.js").split("function describeEvent", 1)[1].split("\n}\n", 1)[0]))
    return found


def documented(page, pattern):
    return set(re.findall(pattern, read(page), re.M))


def audit_events():
    code = recorded_event_types()
    expect(len(code) > 40, f"only {len(code)} event types found in the code: is the scan still right?")
    page = documented("docs/reference/audit-events.md", r"^### `([a-z_]+)`")
    expect(code - page == set(), f"recorded but not in docs/reference/audit-events.md: {sorted(code - page)}")
    expect(page - code == set(), f"in docs/reference/audit-events.md but never recorded: {sorted(page - code)}")


def metrics():
    code = set()
    for path in glob.glob(os.path.join(REPO, "Sources", "**", "*.swift"), recursive=True):
        with open(path, encoding="utf-8") as f:
            code |= set(re.findall(r'\b(?:Counter|Timer|Gauge|Recorder|Meter)\(\s*label: "([a-z_]+)"', f.read()))
    expect(len(code) >= 8, f"only {len(code)} metrics found in the code")
    page = documented("docs/reference/metrics.md", r"^### `([a-z_]+)`")
    expect(code - page == set(), f"recorded but not in docs/reference/metrics.md: {sorted(code - page)}")
    expect(page - code == set(), f"in docs/reference/metrics.md but never recorded: {sorted(page - code)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-binary", default=os.path.join(REPO, ".build", "debug", "passkey-server"))
    args = parser.parse_args()
    binary = os.path.abspath(args.server_binary)
    checks = [
        ("the getting-started guide's commands run as written", lambda: getting_started(binary)),
        ("README.md is under 250 lines with both pictures", readme),
        ("no page of the site is a stub", no_stubs),
        ("'seed' only in docs/seeds.md, also in every --help", lambda: seed_only_in_seeds(binary)),
        ("no history and no outside files in the README, the site and --help", lambda: no_history(binary)),
        ("every docs/contracts citation names a page and a section that exist", citations),
        ("nginx, Caddy, Apache and Authlib configuration included from the tests' files", included_not_copied),
        ("the audit events page lists exactly the recorded event types", audit_events),
        ("the metrics page lists exactly the recorded metrics", metrics),
    ]
    passed = failed = 0
    for name, check in checks:
        try:
            check()
            print(f"ok - {name}", flush=True)
            passed += 1
        except Exception as error:
            print(f"not ok - {name}: {error}", flush=True)
            failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
