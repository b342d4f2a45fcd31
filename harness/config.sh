#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure a build folder: tinyconfig + the variant's fragments from configs/,
# then check that every requested option really landed in .config.
# Usage: config.sh VARIANT
. "$(dirname "$0")/lib.sh"

v=${1:?usage: config.sh VARIANT}
arch=$(variant_arch "$v")
src=$(variant_src "$v")
frags=()
for f in $(variant_fragments "$v"); do
	frags+=("$TOP/configs/$f.config")
done
# What the selftests say they need, for the kernels that run them.
st=$src/tools/testing/selftests/unwind/config
[ "$arch" = x86_64 ] && [ -f "$st" ] && frags+=("$st")
b=$(build_dir "$v")
mkdir -p "$b"
log=$LOGS/config-$v.log
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
		grep -qxF "$line" "$b/.config" || bad+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$b/.config" || echo unset))")
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -qE "^$opt=" "$b/.config" && bad+=("$line (got: $(grep -E "^$opt=" "$b/.config"))")
		;;
	esac
done < "$want"
if [ ${#bad[@]} -gt 0 ]; then
	printf '    requested but not in .config: %s\n' "${bad[@]}" >&2
	die "$E_CONFIG" "$v: ${#bad[@]} requested options did not land" "$log"
fi
info "$v: configured ($arch; $(wc -l < "$want") requested lines, all present)"
