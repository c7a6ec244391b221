#!/usr/bin/env bash
# Installs the Debian packages radarblock needs, only those that are missing.
#   scripts/install-deps.sh build   C libraries the Swift package links (libpsl, libidn2, libcrypto, libxml2, ICU;
#                                   libcurl for FoundationNetworking, which the static-stdlib release build links)
#   scripts/install-deps.sh test    build + node (surrogate tests) + WebKitGTK, GObject bindings and Xvfb (real-WebKit tests)
set -euo pipefail
kind=${1:-build}
packages=(pkg-config libpsl-dev publicsuffix libidn2-dev libssl-dev libxml2-dev libicu-dev libcurl4-openssl-dev)
# JavaScriptCore (run time, dlopen): surrogate bodies are checked with its parser.
packages+=(libjavascriptcoregtk-6.0-1)
if [ "$kind" = test ] || [ "$kind" = bench ]; then
  packages+=(nodejs libwebkitgtk-6.0-dev gir1.2-webkit-6.0 python3-gi xvfb xauth openssl)
  # EasyPrivacy and EasyList (the filter-list tests read them from here: Tests/TestSupport/FilterListFiles.swift).
  packages+=(webext-ublock-origin-firefox)
fi
# /usr/bin/time: the fuzz runner (make test) and the benchmarks read CPU seconds from it.
packages+=(time)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
