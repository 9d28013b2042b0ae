#!/usr/bin/env bash
# The arm64 release binary under emulation (`npm run test:arm64`, a step of its own in .ci/run):
# builds it, runs it alone under qemu-user and checks health, setup, a scan and a page of each
# format (tests/binary/release-targets.test.ts). Minutes, so not part of `npm test`.
#
# Needs Debian's qemu-user-static 8 or later: 7.2 (bookworm's own) fails mprotect calls of
# length zero, which Bun's allocator makes in worker threads, so the binary aborts there under
# emulation (not on real arm64 hardware). On bookworm it comes from bookworm-backports.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

qemu_major() { qemu-aarch64-static --version 2>/dev/null | grep -Eo 'version [0-9]+' | grep -Eo '[0-9]+' || echo 0; }
need_packages=()
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || need_packages+=(libc6-arm64-cross)
[ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || need_packages+=(libstdc++6-arm64-cross libgcc-s1-arm64-cross)
if [ "$(qemu_major)" -lt 8 ] || [ ${#need_packages[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "the arm64 test needs qemu-user-static >= 8 and ${need_packages[*]:-nothing else} (install them as root)" >&2
    exit 1
  fi
  release=""
  if [ "$(qemu_major)" -lt 8 ] && grep -q '^VERSION_CODENAME=bookworm' /etc/os-release; then
    # The mirror this machine already takes bookworm from (its apt sources, one-line or deb822,
    # as apt itself reads them): no mirror's name is written here.
    archive=$(apt-get indextargets --no-release-info --format '$(RELEASE) $(REPO_URI)' | awk '$1 == "bookworm" { print $2; exit }')
    if [ -z "$archive" ]; then
      echo "no apt source of this machine serves bookworm: add bookworm-backports to the apt sources, then run this again" >&2
      exit 1
    fi
    echo "deb ${archive} bookworm-backports main" > /etc/apt/sources.list.d/longbox-bookworm-backports.list
    release="-t bookworm-backports"
  fi
  echo "installing qemu-user-static ${need_packages[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086 # $release is empty or two words
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $release qemu-user-static >/dev/null
  if [ ${#need_packages[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_packages[@]}" >/dev/null
  fi
fi

LONGBOX_TEST_TARGETS=linux-arm64 bun test --timeout 1200000 tests/binary/release-targets.test.ts
