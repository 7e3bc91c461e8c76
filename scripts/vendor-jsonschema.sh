#!/usr/bin/env bash
# vendor/jsonschema is upstream `jsonschema` plus ONE patch, patches/jsonschema/selfheal.patch
# (what it changes and why: patches/jsonschema/README.md). Cargo.toml's [patch.crates-io] builds
# that copy instead of the registry's.
#
#   scripts/vendor-jsonschema.sh            re-create vendor/jsonschema from the pinned version
#                                           (patches/jsonschema/UPSTREAM) and the patch
#   scripts/vendor-jsonschema.sh 0.62.0     the same from another upstream version: the patch is
#                                           re-applied; a hunk that no longer applies stops the
#                                           script with patch's .rej files left in a scratch copy
#   scripts/vendor-jsonschema.sh diff       write the patch anew from vendor/jsonschema (after
#                                           editing the vendored copy by hand)
#
# CRATE=jsonschema-regex scripts/vendor-jsonschema.sh [diff | VERSION] does the same for upstream's
# ECMA-262 syntax check, vendored the same way (patches/jsonschema-regex/README.md), and
# CRATE=regex-lite for the linear pattern engine (patches/regex-lite/README.md).
#
# The pristine crate comes through cargo itself (`cargo fetch` of a throwaway manifest), so the
# registry's checksum is verified; its sha256 is recorded in UPSTREAM. Only what builds the library
# is kept (Cargo.toml without test/bench targets and dev-dependencies, LICENSE, README.md, src/):
# upstream's tests and benches are not shipped, and their dev-dependencies would otherwise be
# resolved into this repository's Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
CRATE=${CRATE:-jsonschema}
PATCHES=patches/$CRATE
VENDOR=vendor/$CRATE
export PATH="$HOME/.cargo/bin:$PATH"

pinned=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$PATCHES/UPSTREAM")
mode=apply
version=$pinned
case "${1:-}" in
  diff) mode=diff ;;
  "") ;;
  *) version=$1 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The pristine crate, trimmed to what builds the library, in $tmp/pristine.
fetch_pristine() {
  local v=$1
  mkdir -p "$tmp/probe/src"
  printf '[package]\nname = "probe"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = { version = "=%s", default-features = false }\n' "$CRATE" "$v" >"$tmp/probe/Cargo.toml"
  : >"$tmp/probe/src/lib.rs"
  cargo fetch --manifest-path "$tmp/probe/Cargo.toml" --quiet
  local crate
  crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$CRATE-$v.crate" | head -n 1)
  tar -xzf "$crate" -C "$tmp"
  mkdir -p "$tmp/pristine"
  cp -r "$tmp/$CRATE-$v/src" "$tmp/pristine/"
  for f in "$tmp/$CRATE-$v"/LICENSE* "$tmp/$CRATE-$v/README.md"; do [ ! -e "$f" ] || cp "$f" "$tmp/pristine/"; done
  # Drop [[test]], [[bench]], [[example]] and every *dev-dependencies* table of the manifest.
  awk '
    /^\[/ { skip = ($0 ~ /^\[\[(test|bench|example)\]\]/ || $0 ~ /dev-dependencies/) }
    !skip { print }
  ' "$tmp/$CRATE-$v/Cargo.toml" >"$tmp/pristine/Cargo.toml"
  sha256sum "$crate" | cut -d' ' -f1 >"$tmp/sha256"
}

fetch_pristine "$([ "$mode" = diff ] && echo "$pinned" || echo "$version")"

if [ "$mode" = diff ]; then
  cp -r "$VENDOR" "$tmp/patched"
  # diff exits 1 when the trees differ, which is the point. Plain a/… b/… labels, no timestamps,
  # so the patch file only changes when the code does.
  (cd "$tmp" && diff -ruN pristine patched || [ $? -eq 1 ]) |
    sed -E -e 's#^diff -ruN pristine/(.*) patched/.*#diff -ruN a/\1 b/\1#' \
      -e 's#^--- pristine/([^\t]*).*#--- a/\1#' -e 's#^\+\+\+ patched/([^\t]*).*#+++ b/\1#' >"$PATCHES/selfheal.patch"
  echo "wrote $PATCHES/selfheal.patch ($(grep -c '^@@' "$PATCHES/selfheal.patch") hunks)"
  exit 0
fi

cp -r "$tmp/pristine" "$tmp/patched"
if [ -s "$PATCHES/selfheal.patch" ] &&
  ! patch -d "$tmp/patched" -p1 --forward --no-backup-if-mismatch <"$PATCHES/selfheal.patch"; then
  keep=$(mktemp -d /tmp/$CRATE-$version-patched.XXXX)
  cp -r "$tmp/patched/." "$keep/"
  echo "vendor-jsonschema: the $CRATE patch does not apply to $version; the half-patched copy (with .rej files) is in $keep" >&2
  exit 1
fi
rm -rf "$VENDOR"
mkdir -p "$(dirname "$VENDOR")"
cp -r "$tmp/patched" "$VENDOR"
printf 'name = "%s"\nversion = "%s"\nsha256 = "%s"\n' "$CRATE" "$version" "$(cat "$tmp/sha256")" >"$PATCHES/UPSTREAM"
echo "vendored $CRATE $version + $PATCHES/selfheal.patch into $VENDOR"
[ "$version" = "$pinned" ] || echo "now: cargo update -p $CRATE, build, and run make test" >&2
