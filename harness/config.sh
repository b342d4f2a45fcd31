#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure a build folder: tinyconfig + the variant's fragments from configs/
# (and the selftests' own config fragment, for variants that run tests), then
# check that every requested option really landed in .config.
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
for f in $(variant "$v" configs | tr ',' ' '); do
	[ -f "$TOP/configs/$f.config" ] || die "$E_CONFIG" "$v: configs/$f.config does not exist"
	frags+=("$TOP/configs/$f.config")
done
# What the selftests say they need, for the kernels that run them.
st=$src/tools/testing/selftests/unwind/config
[ "$(variant "$v" runs)" = tests ] && [ -f "$st" ] && frags+=("$st")
mkdir -p "$b"
log=$LOGS/config-$(basename "$b").log
want=$b/.config.want
cat "${frags[@]}" > "$want"
# Make the config in a side folder and copy it only when it differs, so an
# unchanged config leaves the build folder's timestamps alone.
k=$b.kconfig
mkdir -p "$k"
{
	make -C "$src" O="$k" ARCH="$arch" tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$k" "$k/.config" "${frags[@]}" &&
	make -C "$src" O="$k" ARCH="$arch" olddefconfig
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
