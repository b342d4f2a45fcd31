#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs, only those that are missing.
. "$(dirname "$0")/lib.sh"

PKGS=(build-essential bc bison flex libelf-dev libssl-dev dwarves cpio
      busybox-static qemu-system-x86 gcc-multilib python3 perl git patch
      rsync xz-utils util-linux binutils file
      libdw-dev zlib1g-dev liblzma-dev libzstd-dev libbz2-dev ccache
      trace-cmd python3-sphinx python3-sphinx-rtd-theme sparse linux-config-6.12
      clang libclang-rt-dev debootstrap dpkg-dev debhelper debian-archive-keyring kmod
      qemu-system-arm lld llvm libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
      binutils-aarch64-linux-gnu)
# The arm64 guest is built with clang (LLVM=1) and its programs are linked
# against the arm64 C library above: Debian's gcc-aarch64-linux-gnu
# conflicts with gcc-multilib, which the 32-bit x86 selftest needs. Its
# SFrame program is assembled and linked with GNU binutils for arm64
# (clang's assembler and lld write no SFrame).

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
# The base tree comes from linux-source-6.12; base.sh picks the version.
[ -f /usr/src/linux-source-6.12.tar.xz ] || missing+=("$BASE_PKG")

[ ${#missing[@]} -eq 0 ] && { info "all dependencies present"; exit 0; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null ||
		die "$E_DEPENDENCIES" "need root or sudo to install: ${missing[*]}"
	SUDO=sudo
fi

info "installing: ${missing[*]}"
log=$LOGS/apt.log
$SUDO apt-get update > "$log" 2>&1 ||
	die "$E_DEPENDENCIES" "apt-get update failed" "$log"

pkgs=()
for p in "${missing[@]}"; do
	if [ "$p" = "$BASE_PKG" ]; then
		# Read the whole list first: grep -q closing the pipe early would
		# make apt-cache fail, and pipefail would take that for "not offered".
		offered=$(apt-cache madison "$BASE_PKG" | awk -F' *[|] *' '{ print $2 }')
		if grep -qxF "$BASE_PIN" <<< "$offered"; then
			p="$BASE_PKG=$BASE_PIN"
		else
			newest=$(sed -n 1p <<< "$offered")
			[ -n "$newest" ] || die "$E_DEPENDENCIES" "apt offers no $BASE_PKG"
			warn "##############################################################"
			warn "# $BASE_PKG $BASE_PIN is no longer offered; using $newest."
			warn "# The series was tested on $BASE_PIN: diffs may not apply."
			warn "##############################################################"
		fi
	fi
	pkgs+=("$p")
done
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
	"${pkgs[@]}" >> "$log" 2>&1 ||
	die "$E_DEPENDENCIES" "apt-get install failed" "$log"
info "installed ${#pkgs[@]} packages"
