#!/usr/bin/env bash
# Install what the project needs, skipping whatever is already there at the right version.
#   scripts/setup.sh demo   # Rust wasm target, wasm-bindgen, wasm-pack, npm dev tools
#   scripts/setup.sh test   # the same, plus Chromium + ChromeDriver and Firefox ESR + geckodriver
#                           # for browser tests
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-test}"
export PATH="$HOME/.cargo/bin:$PATH"
log() { echo "setup: $*" >&2; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { $SUDO apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# Rust (the machine's toolchain comes from rustup).
if ! command -v cargo >/dev/null; then
  apt_install curl ca-certificates build-essential
  log "installing rustup"; curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
fi
rustup target list --installed | grep -qx wasm32-unknown-unknown || { log "adding wasm32 target"; rustup target add wasm32-unknown-unknown; }
# make lint runs clippy and rustfmt, which rustup's minimal profile leaves out.
for c in clippy rustfmt; do
  rustup component list --installed | grep -q "^$c" || { log "adding $c"; rustup component add "$c"; }
done

# Node and npm.
command -v node >/dev/null && command -v npm >/dev/null || { log "installing node"; apt_install nodejs npm; }

# wasm-bindgen-cli must match the wasm-bindgen in Cargo.lock exactly.
want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  log "installing wasm-bindgen-cli $want (a few minutes)"
  # --locked first; the registry mirror here lacks one pinned transitive version, so fall back.
  cargo install -q wasm-bindgen-cli --version "$want" --locked 2>/dev/null \
    || cargo install -q wasm-bindgen-cli --version "$want" --force
fi
command -v wasm-pack >/dev/null || { log "installing wasm-pack (a few minutes)"; cargo install -q wasm-pack --locked || cargo install -q wasm-pack; }

# npm dev tools, only when the lock file changed: binaryen (wasm-opt), typescript, esbuild, vite,
# playwright-core (drives /usr/bin/chromium), workerd (the real Workers runtime binary), the LLM SDKs.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.selfheal-lock; then
  log "npm ci"; npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.selfheal-lock
fi

if [ "$what" = test ]; then
  # `make lint` checks the fuzz targets, whose libfuzzer-sys builds libFuzzer (C++).
  command -v g++ >/dev/null || { log "installing g++"; apt_install g++; }
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    log "installing chromium + chromium-driver"; apt_install chromium chromium-driver
  fi
  # Firefox: Debian's firefox-esr, and geckodriver built from crates.io (its release binaries
  # cannot be downloaded here; wasm-pack test --firefox and tests/packaging/firefox.mjs use it).
  if [ ! -x /usr/bin/firefox-esr ]; then
    log "installing firefox-esr"; apt_install firefox-esr
  fi
  gecko_want=0.37.1
  gecko_have=$(geckodriver --version 2>/dev/null | awk 'NR==1{print $2}' || true)
  if [ "$gecko_have" != "$gecko_want" ]; then
    log "installing geckodriver $gecko_want (a few minutes)"
    cargo install -q geckodriver --version "$gecko_want" --locked 2>/dev/null \
      || cargo install -q geckodriver --version "$gecko_want" --force
  fi
  # CJK fonts, so the ja/zh prompts in the playground screenshots render as text, not boxes.
  if ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then
    log "installing fonts-noto-cjk"; apt_install fonts-noto-cjk
  fi
fi
log "ok ($what)"
