#!/usr/bin/env bash
# Node Version Manager helpers.

NVM_SCRIPT_SOURCE="$_"

nvm_echo() {
  command printf %s\\n "$*" 2>/dev/null
}

function nvm_has() {
  type "${1-}" >/dev/null 2>&1
}

nvm_is_version_installed() { if [ -z "${1-}" ]; then
    return 1
  fi
  nvm_has node
}

function nvm_cd {
  \cd "$@"
}

nvm_grep() (
  GREP_OPTIONS='' command grep "$@"
)

nvm_download() {
  if nvm_has "curl"; then
    curl --fail --compressed -q "$@"
  elif nvm_has "wget"; then
    wget "$@"
  fi
}

nvm_require() { command -v "$1" >/dev/null 2>&1 || {
    nvm_echo "$1 is required" >&2
    return 1
  }
}

nvm_noop() { :; }
