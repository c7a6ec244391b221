#!/usr/bin/env bash
# Installs what radarblock needs, only what is missing.
#   scripts/install-deps.sh build   C libraries the Swift package links (libpsl, libidn2, libcrypto, libxml2, ICU;
#                                   libcurl for FoundationNetworking, which the static-stdlib release build links)
#   scripts/install-deps.sh test    build + node (surrogate tests) + WebKitGTK, GObject bindings and Xvfb (real-WebKit tests)
#   scripts/install-deps.sh bench   as test
#   scripts/install-deps.sh lint    shellcheck (Debian) and ruff (PyPI, pinned, in a venv at .build/lint-venv: Debian
#                                   has no ruff); make lint runs them from there
set -euo pipefail
kind=${1:-build}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ruff_version=0.17.5
lint_venv=$root/.build/lint-venv

packages=(pkg-config libpsl-dev publicsuffix libidn2-dev libssl-dev libxml2-dev libicu-dev libcurl4-openssl-dev)
# JavaScriptCore (run time, dlopen): surrogate bodies are checked with its parser.
packages+=(libjavascriptcoregtk-6.0-1)
if [ "$kind" = test ] || [ "$kind" = bench ]; then
  packages+=(nodejs libwebkitgtk-6.0-dev gir1.2-webkit-6.0 python3-gi xvfb xauth openssl)
  # EasyPrivacy and EasyList (the filter-list tests read them from here: Tests/TestSupport/FilterListFiles.swift).
  packages+=(webext-ublock-origin-firefox)
fi
if [ "$kind" = lint ]; then
  packages=(shellcheck python3 python3-venv)
fi
# /usr/bin/time: the fuzz runner (make test) and the benchmarks read CPU seconds from it.
packages+=(time)

install_debian_packages() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Debian's python3 (not whichever python3 is first on PATH): python3-venv is installed for that one.
install_ruff() {
  local have
  have=$("$lint_venv/bin/ruff" --version 2>/dev/null || true)
  [ "$have" = "ruff $ruff_version" ] && return 0
  echo "installing: ruff $ruff_version into $lint_venv" >&2
  rm -rf "$lint_venv"
  /usr/bin/python3 -m venv "$lint_venv"
  "$lint_venv/bin/pip" install --quiet --disable-pip-version-check "ruff==$ruff_version"
}

install_debian_packages
if [ "$kind" = lint ]; then install_ruff; fi
