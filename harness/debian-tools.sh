#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own perf and trace-cmd, as our users get them, for the guest:
#   - linux-perf from trixie-backports (mainline perf 7.3, with
#     --call-graph fp,defer), in a Debian 13 root with its own libraries;
#   - trace-cmd from sid (Debian's newest), in another Debian 13 root, with
#     the sid libtraceevent/libtracefs it needs.
# Each root is made by debootstrap (the trixie tarball is shared with make
# distro-deb, out/deb/trixie.tar) and apt-get; then each program is staged
# with the loader and the libraries ldd names, under out/debian-tools/guest/,
# which guest-run.sh packs as /debian/ with the wrappers /usr/bin/perf-debian
# and /usr/bin/trace-cmd-debian (the root's loader, the root's libraries).
# Made once; made again when a pin or the mirror changes.
#
# Usage: debian-tools.sh   (prints the staged versions)
#   DEB_MIRROR=URL  the archive (default: deb.debian.org)
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac
[ $# -eq 0 ] || die "$E_USAGE" "usage: debian-tools.sh (no arguments)"

# The tested versions. If the archive no longer offers one, the newest of the
# same upstream release is taken and the difference said, as for the base.
PERF_PIN=7.3.4-1~bpo13+1	# linux-perf, trixie-backports
TRACE_CMD_PIN=3.4-2		# trace-cmd, sid
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || die "$E_DEPENDENCIES" "debian-tools.sh: debootstrap and chroot need root"
for t in debootstrap chroot; do
	command -v "$t" > /dev/null || die "$E_DEPENDENCIES" "no $t (run: make deps)"
done

dt=$OUT/debian-tools
stage=$dt/guest
log=$LOGS/debian-tools.log
stamp="perf=$PERF_PIN trace-cmd=$TRACE_CMD_PIN mirror=$mirror"
if [ -f "$stage/debian/stamp" ] && [ "$(cat "$stage/debian/stamp")" = "$stamp" ]; then
	cat "$stage/debian/versions"
	exit 0
fi
mkdir -p "$dt"
: > "$log"

# debian_root DIR: a fresh trixie (minbase) in DIR, from the shared tarball.
debian_root() {
	local tarball=$OUT/deb/trixie.tar tmp
	mkdir -p "$OUT/deb"
	if [ ! -s "$tarball" ]; then
		info "debian-tools: debootstrap --variant=minbase trixie (once; kept as $tarball)"
		tmp=$(mktemp -d "$OUT/deb/debootstrap.XXXXXX")
		if debootstrap --variant=minbase trixie "$tmp" "$mirror" >> "$log" 2>&1 &&
		   tar -C "$tmp" -cf "$tarball.tmp" . ; then
			mv "$tarball.tmp" "$tarball"
		else
			rm -rf "$tarball.tmp" "$tmp"
			die "$E_DEPENDENCIES" "debootstrap trixie from $mirror failed" "$log"
		fi
		rm -rf "$tmp"
	fi
	rm -rf "$1"
	mkdir -p "$1"
	tar -C "$1" -xf "$tarball" || die "$E_DEPENDENCIES" "cannot unpack $tarball"
	cp /etc/resolv.conf "$1/etc/resolv.conf"
}

in_root() { chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "${@:2}"; }

# install ROOT SUITE PACKAGE PIN UPSTREAM: PACKAGE at PIN from SUITE (with
# the dependencies apt takes from SUITE where trixie's are too old), or the
# newest UPSTREAM.* there if the pin is gone. Prints the installed version.
install() {
	local root=$1 suite=$2 pkg=$3 pin=$4 up=$5 offered ver
	echo "deb $mirror $suite main" > "$root/etc/apt/sources.list.d/$suite.list"
	# The archive served here can be a snapshot older than its Release
	# files' Valid-Until (sid's is a week): their age is not under test.
	in_root "$root" apt-get -o Acquire::Check-Valid-Until=false update >> "$log" 2>&1 ||
		die "$E_DEPENDENCIES" "apt-get update with $suite failed" "$log"
	offered=$(in_root "$root" apt-cache madison "$pkg" | awk -F' *[|] *' '{ print $2 }')
	if grep -qxF "$pin" <<< "$offered"; then
		ver=$pin
	else
		ver=$(grep -E "^$up([.-]|$)" <<< "$offered" | sort -V | tail -n 1 || true)
		[ -n "$ver" ] || die "$E_DEPENDENCIES" "$suite offers no $pkg $up (pinned: $pin)"
		warn "# $pkg $pin is no longer offered; testing $ver instead."
	fi
	in_root "$root" apt-get install -y --no-install-recommends -t "$suite" "$pkg=$ver" \
		>> "$log" 2>&1 || die "$E_DEPENDENCIES" "apt-get install $pkg=$ver ($suite) failed" "$log"
	in_root "$root" dpkg-query -W -f='${Version}' "$pkg"
}

# stage ROOT PROGRAM NAME: PROGRAM of ROOT as debian/NAME/bin/NAME, with its
# loader and libraries in debian/NAME/lib, and the wrapper /usr/bin/NAME-debian.
stage() {
	local root=$1 prog=$2 name=$3 d=$stage/debian/$3 l
	mkdir -p "$d/bin" "$d/lib" "$stage/usr/bin"
	cp -L "$root$prog" "$d/bin/$name"
	in_root "$root" ldd "$prog" > "$dt/$name.ldd" 2>> "$log" ||
		die "$E_DEPENDENCIES" "ldd $prog in the $name root failed" "$log"
	grep -q 'not found' "$dt/$name.ldd" &&
		die "$E_DEPENDENCIES" "$prog misses libraries: $(grep 'not found' "$dt/$name.ldd" | tr -d '\t')"
	for l in $(awk '$2 == "=>" { print $3; next } /^\t\// { print $1 }' "$dt/$name.ldd"); do
		cp -L "$root$l" "$d/lib/$(basename "$l")"
	done
	[ -f "$d/lib/ld-linux-x86-64.so.2" ] || die "$E_DEPENDENCIES" "no loader for $prog"
	cat > "$stage/usr/bin/$name-debian" <<-EOF
	#!/bin/sh
	# Debian's $name, run by its own loader with its own libraries.
	exec /debian/$name/lib/ld-linux-x86-64.so.2 --library-path /debian/$name/lib /debian/$name/bin/$name "\$@"
	EOF
	chmod +x "$stage/usr/bin/$name-debian"
}

rm -rf "$stage"
mkdir -p "$stage/debian"

phase debian-tools-perf
debian_root "$dt/root-perf"
perf_ver=$(install "$dt/root-perf" trixie-backports linux-perf "$PERF_PIN" 7.3)
# In the backport, /usr/bin/perf is the binary itself; Debian's usual
# packaging has a wrapper choosing perf_<version> by the running kernel.
perf_bin=/usr/bin/perf
file -L "$dt/root-perf$perf_bin" | grep -q ELF ||
	perf_bin=$(cd "$dt/root-perf" && ls usr/bin/perf_[0-9]* 2> /dev/null | sed 's|^|/|' | sort -V | tail -n 1)
[ -n "$perf_bin" ] || die "$E_DEPENDENCIES" "no perf binary in linux-perf $perf_ver"
stage "$dt/root-perf" "$perf_bin" perf

phase debian-tools-trace-cmd
debian_root "$dt/root-trace-cmd"
tc_ver=$(install "$dt/root-trace-cmd" sid trace-cmd "$TRACE_CMD_PIN" 3.4)
stage "$dt/root-trace-cmd" /usr/bin/trace-cmd trace-cmd
phase_end

{
	echo "linux-perf $perf_ver (trixie-backports, pinned $PERF_PIN): $perf_bin"
	echo "trace-cmd $tc_ver (sid, pinned $TRACE_CMD_PIN)"
} > "$stage/debian/versions"
echo "$stamp" > "$stage/debian/stamp"
rm -rf "$dt/root-perf" "$dt/root-trace-cmd"
info "debian-tools: $(du -sh "$stage" | cut -f1) staged in $stage"
cat "$stage/debian/versions"
