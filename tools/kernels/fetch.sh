#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetches a Debian kernel package from the Debian archive (apt-get
# download, cached) and unpacks what a 9p-rooted guest needs: vmlinuz, the
# config, and the modules for virtio-9p and virtio-blk, decompressed, in an
# order that loads (dependencies first, read from each module's .modinfo:
# the package has no modules.dep and the host need not have depmod).
#
# usage: tools/kernels/fetch.sh PACKAGE-FLAVOUR [ABI]
#   FLAVOUR: amd64 | rt-amd64 (Debian's names); ABI: 6.1.0-N, default the
#   newest the archive offers.
# prints the kernel directory on the last line:
#   $LATBPF_KCACHE/<ABI>-<FLAVOUR>/{vmlinuz,config,mods/*.ko,mods/order}
set -euo pipefail
flavour=${1:?usage: fetch.sh amd64|rt-amd64 [ABI]}
cache=${LATBPF_KCACHE:-/var/cache/latbpf/kernels}
abi=${2:-}
if [ -z "$abi" ]; then
	abi=$(apt-cache search --names-only "^linux-image-6\.1\.0-[0-9]+-$flavour-unsigned\$" |
		sed -n "s/^linux-image-\(6\.1\.0-[0-9]*\)-$flavour-unsigned .*/\1/p" | sort -V | tail -1)
	[ -n "$abi" ] || { echo "fetch.sh: no linux-image-6.1.0-*-$flavour-unsigned in apt's lists (apt-get update?)" >&2; exit 3; }
fi
kd=$cache/$abi-$flavour
if [ -s "$kd/vmlinuz" ] && grep -qx tcp_diag "$kd/mods/order" 2>/dev/null; then
	echo "$kd"
	exit 0
fi
mkdir -p "$cache"
pkg=linux-image-$abi-$flavour-unsigned
deb=$(ls "$cache"/"$pkg"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
	(cd "$cache" && timeout 600 apt-get download -q "$pkg" >&2)
	deb=$(ls "$cache"/"$pkg"_*.deb | head -1)
fi
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
rm -rf "$kd.new"
mkdir -p "$kd.new/mods"
cp "$x/boot/vmlinuz-$abi-$flavour" "$kd.new/vmlinuz"
cp "$x/boot/config-$abi-$flavour" "$kd.new/config"
# what the guest loads: the 9p root, a virtio disk with ext4, loop devices, veth
# pairs and sock_diag for ss
# pairs for the tests
MODULES="9p 9pnet_virtio virtio_pci virtio_blk crc32c_generic ext4 loop veth tcp_diag"
md=$x/lib/modules/$abi-$flavour/kernel
declare -A path seen
while IFS= read -r p; do
	b=${p##*/}
	b=${b%%.ko*}
	path[${b//-/_}]=$p
done < <(find "$md" -name '*.ko*')
unpack() { # module name -> $kd.new/mods/NAME.ko
	local src=${path[$1]:-}
	[ -n "$src" ] || { echo "fetch.sh: module $1 is not in $pkg" >&2; exit 3; }
	case $src in
	*.ko.xz) xz -dc "$src" ;;
	*.ko.zst) zstd -qdc "$src" ;;
	*.ko.gz) gzip -dc "$src" ;;
	*) cat "$src" ;;
	esac >"$kd.new/mods/$1.ko"
}
order=()
visit() { # dependencies first
	local m=${1//-/_} d
	[ -z "${seen[$m]:-}" ] || return 0
	seen[$m]=1
	unpack "$m"
	for d in $(objcopy -O binary --only-section=.modinfo "$kd.new/mods/$m.ko" /dev/stdout |
		tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
		visit "$d"
	done
	order+=("$m")
}
for m in $MODULES; do visit "$m"; done
printf '%s\n' "${order[@]}" >"$kd.new/mods/order"
rm -rf "$kd"
mv "$kd.new" "$kd"
echo "$kd"
