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
# For the acceptance test on a Debian 13 user space (guest/debian13-test.sh),
# the perf root also gets trixie's python3-minimal, xz-utils and sqlite3;
# perf and the programs it profiles (python3.13, xz, gzip, sort, bash,
# sqlite3) are staged with their libraries at their own paths, and
# python3.13's standard library, under out/debian-tools/guest/debian/root,
# a root the guest chroots into: there they run as on Debian 13, loaded by
# the kernel and Debian's own loader.
# Made once; made again when a pin, the program list or the mirror changes.
#
# Usage: debian-tools.sh   (prints the staged versions)
#   DEB_MIRROR=URL  the archive (default: deb.debian.org)
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac
[ $# -eq 0 ] || die "$E_USAGE" "usage: debian-tools.sh (no arguments)"

# The tested versions (harness/lib.sh).
PERF_PIN=$DEBIAN_PERF_PIN
TRACE_CMD_PIN=$DEBIAN_TRACE_CMD_PIN
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || die "$E_DEPENDENCIES" "debian-tools.sh: debootstrap and chroot need root"
for t in debootstrap chroot; do
	command -v "$t" > /dev/null || die "$E_DEPENDENCIES" "no $t (run: make deps)"
done

dt=$OUT/debian-tools
stage=$dt/guest
log=$LOGS/debian-tools.log
# The acceptance test's programs: trixie packages, and the paths staged.
ROOT_PACKAGES="python3-minimal xz-utils sqlite3"
ROOT_PROGRAMS="/usr/bin/dash /usr/bin/python3.13 /usr/bin/xz /usr/bin/gzip /usr/bin/sort /usr/bin/bash /usr/bin/sqlite3"
stamp="perf=$PERF_PIN layout=2 trace-cmd=$TRACE_CMD_PIN root=$ROOT_PACKAGES:$ROOT_PROGRAMS mirror=$mirror"
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
	local root=$1 suite=$2 pkg=$3 pin=$4 up=$5 ver
	echo "deb $mirror $suite main" > "$root/etc/apt/sources.list.d/$suite.list"
	# The archive served here can be a snapshot older than its Release
	# files' Valid-Until (sid's is a week): their age is not under test.
	in_root "$root" apt-get -o Acquire::Check-Valid-Until=false update >> "$log" 2>&1 ||
		die "$E_DEPENDENCIES" "apt-get update with $suite failed" "$log"
	ver=$(in_root "$root" apt-cache madison "$pkg" | awk -F' *[|] *' '{ print $2 }' |
		pick_version "$pin" "$up" "$pkg ($suite)") || exit
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

# stage_root ROOT PROGRAM...: each PROGRAM of ROOT and the libraries ldd
# names, at their own paths under debian/root, with Debian's merged /usr.
stage_root() {
	local root=$1 sr=$stage/debian/root p l
	shift
	mkdir -p "$sr/usr/bin" "$sr/usr/lib" "$sr/usr/lib64" "$sr/etc" "$sr/proc" "$sr/sys" "$sr/dev" "$sr/tmp"
	for l in bin lib lib64; do [ -e "$sr/$l" ] || ln -s "usr/$l" "$sr/$l"; done
	for p in "$@"; do
		mkdir -p "$sr$(dirname "$p")"
		cp -L "$root$p" "$sr$p" || die "$E_DEPENDENCIES" "no $p in the root"
		in_root "$root" ldd "$p" > "$dt/root.ldd" 2>> "$log" ||
			die "$E_DEPENDENCIES" "ldd $p in the root failed" "$log"
		grep -q 'not found' "$dt/root.ldd" &&
			die "$E_DEPENDENCIES" "$p misses libraries: $(grep 'not found' "$dt/root.ldd" | tr -d '\t')"
		for l in $(awk '$2 == "=>" { print $3; next } /^\t\// { print $1 }' "$dt/root.ldd"); do
			[ -e "$sr$l" ] || { mkdir -p "$sr$(dirname "$l")" && cp -L "$root$l" "$sr$l"; }
		done
	done
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

phase debian-tools-root
# shellcheck disable=SC2086 # one word per package
in_root "$dt/root-perf" apt-get install -y --no-install-recommends $ROOT_PACKAGES >> "$log" 2>&1 ||
	die "$E_DEPENDENCIES" "apt-get install $ROOT_PACKAGES (trixie) failed" "$log"
# shellcheck disable=SC2086 # one word per program
stage_root "$dt/root-perf" "$perf_bin" $ROOT_PROGRAMS
# perf-debian outside the root: the root's perf, loader and libraries.
in_root "$dt/root-perf" ldd "$perf_bin" > "$dt/perf.ldd" 2>> "$log"
libdirs=$(awk '$2 == "=>" { print $3 }' "$dt/perf.ldd" | xargs -n 1 dirname | sort -u |
	sed 's|^|/debian/root|' | paste -sd:)
mkdir -p "$stage/usr/bin"
cat > "$stage/usr/bin/perf-debian" <<EOF
#!/bin/sh
# Debian's perf, run by its own loader with its own libraries.
exec /debian/root/lib64/ld-linux-x86-64.so.2 --library-path $libdirs /debian/root$perf_bin "\$@"
EOF
chmod +x "$stage/usr/bin/perf-debian"
[ "$perf_bin" = /usr/bin/perf ] || ln -s "$(basename "$perf_bin")" "$stage/debian/root/usr/bin/perf"
ln -s python3.13 "$stage/debian/root/usr/bin/python3"
ln -s dash "$stage/debian/root/usr/bin/sh"
cp -a "$dt/root-perf/usr/lib/python3.13" "$stage/debian/root/usr/lib/"
root_vers=$(in_root "$dt/root-perf" dpkg-query -W -f='${Package} ${Version}\n' \
	python3.13-minimal xz-utils gzip coreutils bash sqlite3 libc6 | paste -sd, | sed 's/,/, /g')

phase debian-tools-trace-cmd
debian_root "$dt/root-trace-cmd"
tc_ver=$(install "$dt/root-trace-cmd" sid trace-cmd "$TRACE_CMD_PIN" 3.4)
stage "$dt/root-trace-cmd" /usr/bin/trace-cmd trace-cmd
phase_end

{
	echo "linux-perf $perf_ver (trixie-backports, pinned $PERF_PIN): $perf_bin"
	echo "trace-cmd $tc_ver (sid, pinned $TRACE_CMD_PIN)"
	echo "acceptance root (trixie): $root_vers"
} > "$stage/debian/versions"
echo "$stamp" > "$stage/debian/stamp"
rm -rf "$dt/root-perf" "$dt/root-trace-cmd"
info "debian-tools: $(du -sh "$stage" | cut -f1) staged in $stage"
cat "$stage/debian/versions"
