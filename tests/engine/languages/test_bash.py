from .helpers import records_of, symbols_of

SOURCE = r'''
#!/usr/bin/env bash
set -euo pipefail

source ./lib/common.sh
readonly BUILD_DIR="${BUILD_DIR:-build}"
VERSION=1.4.2

# Prints a message to stderr.
log() {
  printf '%s\n' "$*" >&2
}

function compile {
  local target=$1
  mkdir -p "$BUILD_DIR"
  gcc -o "$BUILD_DIR/$target" \
    "src/$target.c"
}

package_release() (
  cd "$BUILD_DIR"
  tar czf "app-$VERSION.tgz" .
)

clean() { rm -rf "$BUILD_DIR"; }

main()
{
  local cmd=${1:-all}
  case "$cmd" in
    clean) clean ;;
    *) compile app && package_release ;;
  esac
  log "done"
}

# Older releases shipped a different log.
function log() {
  echo "$*"
}

main "$@"
'''


def test_bash_symbols():
    assert symbols_of(SOURCE, "bash") == [
        ("BUILD_DIR", "constant", (5, 5), None),
        ("VERSION", "constant", (6, 6), None),
        ("log", "function", (8, 11), (10, 10)),
        ("compile", "function", (13, 18), (14, 17)),
        ("package_release", "function", (20, 23), (21, 22)),
        ("clean", "function", (25, 25), None),
        ("main", "function", (27, 35), (29, 34)),
        ("log#2", "function", (37, 40), (39, 39)),
    ]


def test_bash_signatures_and_references():
    records, refs = records_of(SOURCE, "bash")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["log"] == "log()"
    assert sigs["compile"] == "function compile"
    assert sigs["main"] == "main()"
    assert sigs["log#2"] == "function log()"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("gcc", 16, "call") in found
    assert ("compile", 32, "call") in found
    assert ("package_release", 32, "call") in found
    assert ("log", 34, "call") in found
    assert ("./lib/common.sh", 4, "import") in found
