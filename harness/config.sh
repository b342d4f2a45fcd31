#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure a build folder: tinyconfig + the selftests' own config fragment
# (for variants that run tests) + the variant's fragments from configs/, then
# check that every requested option really landed in .config (a later line
# for an option overrides an earlier one).
#
# A configs entry @debian-FLAVOUR (first in the list) starts from Debian's
# own config of that flavour (linux-config-6.12: amd64_none_amd64,
# amd64_rt_amd64) instead of tinyconfig, with every module turned off: what
# the guest needs then comes from the fragments.
#
# Usage: config.sh VARIANT [--src DIR] [--build DIR] [--partial]
#   --src, --build  another source tree and build folder (make bisect)
#   --partial       options this tree's Kconfig lacks or cannot set are
#                   listed, not fatal (earlier commits of the series)
. "$(dirname "$0")/lib.sh"

usage="usage: config.sh VARIANT [--src DIR] [--build DIR] [--partial]"
v=${1:-}
[ -n "$v" ] || die "$E_USAGE" "$usage"
shift
arch=$(variant "$v" arch)
read -ra kargs <<< "$(kbuild_args "$v")"
src=$(variant_src "$v")
b=$(build_dir "$v")
partial=""
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=${2:?--src needs a folder}; shift 2 ;;
	--build) b=${2:?--build needs a folder}; shift 2 ;;
	--partial) partial=1; shift ;;
	*) die "$E_USAGE" "$usage" ;;
	esac
done
[ "$src" != "$BASE_TREE" ] || ensure_base_tree
[ -f "$src/Makefile" ] || die "$E_CONFIG" "$v: no kernel source in $src (run: make tree)"

frags=()
debian=""
# What the selftests say they need, for the kernels that run them; the
# variant's fragments may override it (distro: the test module as =m).
st=$src/tools/testing/selftests/unwind/config
# A cross variant's fragments say all it needs: the selftests' fragment
# names x86 options.
case $(variant "$v" runs) in
tests|distro) [ -f "$st" ] && frags+=("$st") ;;
esac
for f in $(variant "$v" configs | tr ',' ' '); do
	if [[ $f == @debian-* ]]; then
		debian=/usr/src/linux-config-6.12/config.${f#@debian-}.xz
		[ -f "$debian" ] || die "$E_DEPENDENCIES" "$v: no $debian (make deps: linux-config-6.12)"
		continue
	fi
	[ -f "$TOP/configs/$f.config" ] || die "$E_CONFIG" "$v: configs/$f.config does not exist"
	frags+=("$TOP/configs/$f.config")
done
mkdir -p "$b"
log=$LOGS/config-$(basename "$b").log
want=$b/.config.want
# One line per option, the last one asked for.
cat "${frags[@]}" | awk '{ o = $0 }
	/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { o = $2 }
	{ if (!(o in seen)) order[n++] = o; seen[o] = $0 }
	END { for (i = 0; i < n; i++) print seen[order[i]] }' > "$want"
# Make the config in a side folder and copy it only when it differs, so an
# unchanged config leaves the build folder's timestamps alone.
k=$b.kconfig
mkdir -p "$k"
base_config() {
	if [ -z "$debian" ]; then
		make -C "$src" O="$k" "${kargs[@]}" tinyconfig
		return
	fi
	xzcat "$debian" | sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' > "$k/.config"
}
{
	base_config &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$k" "$k/.config" "${frags[@]}" &&
	make -C "$src" O="$k" "${kargs[@]}" olddefconfig
} > "$log" 2>&1 || die "$E_CONFIG" "$v: kconfig failed" "$log"
cmp -s "$k/.config" "$b/.config" || cp "$k/.config" "$b/.config"

# Every requested option must be in .config as asked.
bad=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$b/.config" ||
			bad+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$b/.config" || echo unset))")
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -qE "^$opt=" "$b/.config" && bad+=("$line (got: $(grep -E "^$opt=" "$b/.config"))")
		;;
	esac
done < "$want"
if [ ${#bad[@]} -gt 0 ] && [ -n "$partial" ]; then
	info "$v: ${#bad[@]} requested options are not in this tree's .config:"
	printf '        %s\n' "${bad[@]}"
elif [ ${#bad[@]} -gt 0 ]; then
	printf '    requested but not in .config: %s\n' "${bad[@]}" >&2
	die "$E_CONFIG" "$v: ${#bad[@]} requested options did not land" "$log"
else
	info "$v: configured ($arch; $(grep -c '^[#C]' "$want") requested lines, all present)"
fi
