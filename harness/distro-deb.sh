#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make distro-deb: the distro variant's kernel (Debian's own config with the
# series, as make distro builds it) packaged by the kernel's own bindeb-pkg,
# then checked the way a Debian user would meet it:
#   - the image package holds the kernel, its config (with the walker
#     selected), System.map, and the series' modules (signed, compressed as
#     the config says) with their modules.dep;
#   - dpkg -i installs the image and headers packages into a fresh Debian
#     chroot (debootstrap --variant=minbase), their maintainer scripts run,
#     and dpkg -r removes them again, files and all.
# Packages in out/deb/. Not part of make check (the build is make distro's).
# Ends with "N passed, N failed".
#
# Usage: distro-deb.sh [VARIANT]   (default: distro)
#   DEB_SUITE=trixie   the chroot's Debian release (Debian 13 ships 6.12);
#                      the chroot is made once and kept as out/deb/SUITE.tar
#   DEB_MIRROR=URL     debootstrap's mirror (default: deb.debian.org)
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) sed -n '2,17p' "$0"; exit 0 ;; esac
[ $# -le 1 ] || die "$E_USAGE" "usage: distro-deb.sh [VARIANT]"
v=${1:-distro}
[ "$(variant "$v" runs 2>/dev/null)" = distro ] || die "$E_USAGE" "distro-deb.sh: $v is not a distro variant (harness/variants)"
suite=${DEB_SUITE:-trixie}
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || die "$E_DEPENDENCIES" "distro-deb.sh: dpkg -i into a chroot needs root"
for t in debootstrap dpkg-buildpackage dpkg-deb chroot; do
	command -v "$t" > /dev/null || die "$E_DEPENDENCIES" "no $t (run: make deps)"
done
[ -f "/usr/share/debootstrap/scripts/$suite" ] || die "$E_USAGE" "debootstrap does not know the suite '$suite'"

"$H/tree.sh" || exit $?
b=$(build_dir "$v")
deb=$OUT/deb
log=$LOGS/distro-deb.log
mkdir -p "$deb"
: > "$log"
tests=()
rm -f "$LOGS/phases.tsv"
t_start=$(date +%s)

# pass NAME / fail NAME WHY: one result.
pass() { tests+=("distro.deb.$1=pass"); info "deb: $1"; }
fail() { tests+=("distro.deb.$1=fail"); warn "deb: $1: $2"; }
finish() {
	phase_end
	printf '\nPhase times (s):\n'
	awk -F'\t' '{ printf "  %-24s %5d\n", $1, $2 }' "$LOGS/phases.tsv"
	printf '  %-24s %5d\n\nResults (packages in %s, log %s):\n' total \
		$(( $(date +%s) - t_start )) "$deb" "$log"
	local json cls=0
	json=$(run_dir distro-deb)/result.json
	mkdir -p "$(dirname "$json")"
	[[ "${tests[*]}" != *=fail* ]] || cls=$E_TEST_FAILURE
	local args=()
	for t in "${tests[@]}"; do args+=(--test "$t"); done
	python3 "$H/report.py" record --name distro-deb --json "$json" --class "$cls" "${args[@]}"
	python3 "$H/report.py" summary "$json"
	exit $?
}

phase "config-$v"
"$H/config.sh" "$v" || { fail package "config.sh $v failed"; finish; }

# bindeb-pkg builds in the build folder and writes the packages next to it,
# in the source tree: they are moved to out/deb/ at once.
phase "bindeb-pkg-$v"
src_parent=$(dirname "$b")
rm -f "$deb"/*.deb "$deb"/*.buildinfo "$deb"/*.changes
info "deb: make bindeb-pkg (-j$JOBS, log: $log)"
if with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" bindeb-pkg >> "$log" 2>&1; then
	rc=0
else
	rc=$?
fi
shopt -s nullglob
for f in "$src_parent"/linux-*.deb "$src_parent"/linux-*.buildinfo "$src_parent"/linux-*.changes; do
	mv -f "$f" "$deb/"
done
shopt -u nullglob
rel=$(cat "$b/include/config/kernel.release" 2>/dev/null || true)
img="" hdr=""
for f in "$deb"/linux-image-"$rel"_*.deb; do
	[ ! -f "$f" ] || [[ $f == *-dbg_* ]] || img=$f
done
for f in "$deb"/linux-headers-"$rel"_*.deb; do
	[ ! -f "$f" ] || hdr=$f
done
if [ $rc -ne 0 ] || [ -z "$rel" ] || [ -z "$img" ] || [ -z "$hdr" ]; then
	show_tail "$log" 20
	fail package "bindeb-pkg exit $rc; image '${img:-none}', headers '${hdr:-none}'"
	finish
fi
pass package
info "deb: $(cd "$deb" && du -h ./*.deb | tr '\t\n' '  ')"

# What the image package holds.
phase contents
contents=$deb/contents.txt
dpkg-deb -c "$img" | awk '{ print $NF }' | sed 's|^\./||' > "$contents"
{
	echo "== dpkg-deb -f $(basename "$img")"
	dpkg-deb -f "$img" Package Version Architecture Maintainer Description
	echo "== contents"
	cat "$contents"
} >> "$log"
# The modules folder is /lib/modules, or /usr/lib/modules on a merged /usr
# (the release may hold regex characters: 6.12.117+).
moddir=""
for d in "lib/modules/$rel/" "usr/lib/modules/$rel/"; do
	grep -qxF "$d" "$contents" && moddir=$d && break
done
# modfile OBJ: the packaged module of OBJ (kernel/lib/x.o), compressed as
# the config says (.ko.xz with Debian's) or not.
modfile() {
	local k=${moddir}kernel/${1%.o}.ko z
	for z in "" .xz .zst .gz; do
		grep -qxF "$k$z" "$contents" && { echo "$k$z"; return 0; }
	done
	return 1
}
missing=()
for f in "boot/vmlinuz-$rel" "boot/config-$rel" "boot/System.map-$rel"; do
	grep -qxF "$f" "$contents" || missing+=("$f")
done
if [ -z "$moddir" ]; then
	missing+=("lib/modules/$rel/")
else
	for f in modules.dep modules.order modules.builtin; do
		grep -qxF "$moddir$f" "$contents" || missing+=("$moddir$f")
	done
	while read -r o; do
		modfile "$o" > /dev/null || missing+=("${moddir}kernel/${o%.o}.ko*")
	done < "$b/modules.order"
fi
if [ ${#missing[@]} -eq 0 ]; then
	pass contents
else
	fail contents "not in $(basename "$img"): ${missing[*]}"
fi
# The packaged config is the one built: the walker selected by the arch.
pkgcfg=$(dpkg-deb --fsys-tarfile "$img" | tar -xOf - "./boot/config-$rel" 2>> "$log" || true)
if grep -qx 'CONFIG_UNWIND_USER=y' <<< "$pkgcfg" && grep -qx 'CONFIG_PREEMPT_DYNAMIC=y' <<< "$pkgcfg"; then
	pass config
else
	fail config "boot/config-$rel lacks CONFIG_UNWIND_USER=y or Debian's CONFIG_PREEMPT_DYNAMIC=y"
fi

# A fresh Debian of the suite, once; then a clean copy for each run.
phase chroot
tarball=$deb/$suite.tar
if [ ! -s "$tarball" ]; then
	info "deb: debootstrap --variant=minbase $suite (once; kept as $tarball)"
	tmp=$(mktemp -d "$deb/debootstrap.XXXXXX")
	if debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >> "$log" 2>&1 &&
	   tar -C "$tmp" -cf "$tarball.tmp" . ; then
		mv "$tarball.tmp" "$tarball"
	else
		rm -f "$tarball.tmp"
	fi
	rm -rf "$tmp"
fi
root=$deb/root
rm -rf "$root"
mkdir -p "$root"
if [ ! -s "$tarball" ] || ! tar -C "$root" -xf "$tarball"; then
	show_tail "$log" 10
	fail install "no $suite chroot (debootstrap from $mirror failed)"
	finish
fi

phase install
cp "$img" "$hdr" "$root/tmp/"
pkg=$(dpkg-deb -f "$img" Package)
hpkg=$(dpkg-deb -f "$hdr" Package)
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# shellcheck disable=SC2016 # dpkg-query's own ${Status}
status() { in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true; }
echo "== dpkg -i in $suite" >> "$log"
if in_root dpkg -i "/tmp/$(basename "$img")" "/tmp/$(basename "$hdr")" >> "$log" 2>&1 &&
   [ "$(status "$pkg")" = "install ok installed" ] &&
   [ "$(status "$hpkg")" = "install ok installed" ]; then
	bad=()
	for f in "boot/vmlinuz-$rel" "boot/config-$rel" "${moddir}modules.dep" \
		 "usr/src/linux-headers-$rel/Makefile" "usr/src/linux-headers-$rel/Module.symvers"; do
		[ -e "$root/$f" ] || bad+=("$f")
	done
	# The modules are the build's: their vermagic names this kernel, they
	# are signed by the build's key, and the installed modules.dep lists
	# each of them.
	while read -r o; do
		k=$(modfile "$o") || { bad+=("$o"); continue; }
		[ -f "$root/$k" ] &&
			[ "$(modinfo -F vermagic "$root/$k" | cut -d' ' -f1)" = "$rel" ] &&
			[ -n "$(modinfo -F signer "$root/$k")" ] &&
			awk -F: -v k="${k#"$moddir"}" '$1 == k { f = 1 } END { exit !f }' \
				"$root/${moddir}modules.dep" || bad+=("$k")
	done < "$b/modules.order"
	if [ ${#bad[@]} -eq 0 ]; then
		pass install
	else
		fail install "installed, but wrong or missing: ${bad[*]}"
	fi
else
	show_tail "$log" 15
	fail install "dpkg -i failed or left $pkg '$(status "$pkg")', $hpkg '$(status "$hpkg")'"
fi

phase remove
echo "== dpkg -r in $suite" >> "$log"
if in_root dpkg -r "$hpkg" "$pkg" >> "$log" 2>&1 &&
   [ "$(status "$pkg")" != "install ok installed" ] &&
   [ ! -e "$root/boot/vmlinuz-$rel" ] && [ ! -e "$root/${moddir}kernel" ]; then
	pass remove
else
	fail remove "dpkg -r left $pkg '$(status "$pkg")' or its files"
fi
rm -rf "$root"
finish
