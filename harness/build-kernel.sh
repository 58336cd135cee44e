#!/bin/bash
# build-kernel.sh - unpack Debian's kernel tree, apply the series with
# quilt, configure tinyconfig + harness/config fragments, build the
# image QEMU boots (vmlinux on x86-64, Image on arm64: harness/arches).
#
# Usage: harness/build-kernel.sh [--stock] [--arch A] [FACTS] BUILD_DIR TREE BUILD [MUTANT_PATCH]
#   TREE, BUILD  a row of the kernel table (harness/kernels): BUILD's
#            name gives its fragments, the row where its initramfs goes
#   --arch A  the row's architecture (default x86_64), cross-compiled
#            with harness/arches' compiler; its folders are named
#            TREE-A-BUILD (--name)
#   FACTS    what the build reads of the tables (--help lists them),
#            all seven options or none: then the tables are asked once,
#            pidmax.sh table build TREE BUILD A, which prints them (both
#            are pidmax/tables.py's build_facts)
#   MUTANT_PATCH  a patch pushed on top of the series (harness/mutants.sh);
#            its vmlinux goes to kernel-TREE-BUILD-mutant/
#   --stock  the same configuration without the series (the baseline),
#            in kernel-TREE-BUILD-stock/
#   --bzimage  also a bzImage beside vmlinux (bench.sh's reference boot)
#   --fragments  build nothing: print the folder the image would go to,
#            builtin or external (the row's INITRD), and the fragments
#            in the order they are merged (the sweep's --list plans
#            from them)
# The tree's source and series come from its suite and series folder
# (harness/trees: --suite, --series); a tree fetched from an
# unreachable suite exits 3.
# Prints the directory holding the image and its .config (and, for a
# kernel with CONFIG_MODULES=y, modules.cpio: its modules, which go on
# top of its initramfs, inside the kernel too when its row says
# builtin). Each step runs
# again only when its inputs (tarball, series, fragments) have changed;
# the kernel's own make keeps the rebuild incremental. With FACTS given
# (the sweep gives them) it asks the tables nothing.
set -euo pipefail

# All of it in functions: bash reads the whole script before running
# any of it, so editing a script during a long run cannot derail the
# run. main reads the options and the facts (build_facts), then runs
# the four steps; the steps share main's settings (build, tree, variant,
# arch, stock, bzimage, mutant, the facts: name, initrd_mode, suite,
# series_dir, make_arch, cross, image_path; src, obj, out,
# log, frags, tarball, SERIES_DIR) and
# each sets the id the next ones key on (tar_id, series_id, config_id;
# configure also own_cpio, a built-in initramfs with modules).
main() {

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/build-kernel.sh [--stock] [--arch A] [FACTS] BUILD_DIR TREE BUILD [MUTANT_PATCH]
Build the image of TREE's BUILD (a row of harness/kernels, such as
6.1 full-maxsmp-wide) with the series, under BUILD_DIR; print the directory
of the image (vmlinux, or arm64's Image) and .config.
  --arch A  a row of harness/arches (default x86_64)
  --stock  build it from the pristine tree instead (no series): the
           baseline's kernel, in kernel-TREE-BUILD-stock
  --bzimage  also build a bzImage, beside vmlinux
  --fragments  build and write nothing: print the image's folder, the
           row's INITRD (builtin or external) and the fragments, in order
FACTS, what the build reads of the tables: all seven or none (the
tables are then asked, once: pidmax.sh table build TREE BUILD A prints them)
  --name N  the name of its folders (TREE-BUILD, or TREE-A-BUILD)
  --initrd builtin|external  the row's INITRD
  --suite S  the tree's suite (harness/trees)
  --series DIR  the tree's series folder
  --make M  the architecture's make ARCH (harness/arches)
  --cross P  its cross-compiler prefix (may be empty)
  --image F  its image, a path inside the object folder"
local stock=0 bzimage=0 arch=x86_64 fragments_only=0
# The facts given as options, by name (--name: fact[name]).
local -A fact=()
local longopts
longopts=$(IFS=,; echo "stock,bzimage,arch:,fragments,${FACTS[*]/%/:}")
parse_options "$USAGE" "$longopts" "$@"
set -- "${OPTS[@]}"
while [[ $1 != -- ]]; do
	case $1 in
	--stock) stock=1 ;;
	--bzimage) bzimage=1 ;;
	--fragments) fragments_only=1 ;;
	--arch) arch=$2; shift ;;
	*) fact[${1#--}]=$2; shift ;;
	esac
	shift
done
shift
((bzimage == 0)) || [[ $arch == x86_64 ]] || usage_error "--bzimage is x86's"
(($# == 3 || $# == 4)) || usage_error "expects BUILD_DIR TREE BUILD [MUTANT_PATCH]"
((stock == 0 || $# == 3)) || usage_error "--stock builds no mutant"
build=$1 tree=$2 variant=$3 mutant=${4:-}
build_facts
((fragments_only == 0)) || {
	print_fragments
	return 0
}
mkdir -p "$build"
build=$(cd "$build" && pwd)
# Each make and merge_config.sh builds for the row's architecture.
export ARCH=$make_arch CROSS_COMPILE=$cross
[[ -z $cross ]] || command -v "${cross}gcc" >/dev/null ||
	die "${cross}gcc not found: harness/deps.sh build $arch installs it"
config_fragments
# From here on the build writes its folder (a fetched tree too): one
# build at a time in it.
build_lock "$build"
source_and_series
folders
unpack_tree
apply_series
configure
build_image
echo "$out"
}

# The facts of a build that the tables hold, by their options' names
# (--name N ...), in the order pidmax/tables.py's BuildFacts gives them.
FACTS=(name initrd suite series make cross image)

# build_facts: the facts of the build (tree, variant, arch), from
# main's fact: all given, or none, and then asked of the tables once
# (pidmax.sh table build, which prints them as options). A fact
# missing, or a bad INITRD, is a usage error; a build the tables lack
# dies naming it (a bad --arch is a usage error).
build_facts() {
	told_facts build "$tree" "$variant" "$arch" || no_such_build
	[[ ${fact[initrd]} == builtin || ${fact[initrd]} == external ]] ||
		usage_error "--initrd wants builtin or external, not '${fact[initrd]}'"
	name=${fact[name]} initrd_mode=${fact[initrd]} suite=${fact[suite]}
	series_dir=${fact[series]} make_arch=${fact[make]} cross=${fact[cross]}
	image_path=${fact[image]}
}

# no_such_build: the tables refused the build's facts (their message
# says why): a bad --arch is a usage error, a build or tree they lack
# an error.
no_such_build() {
	arch_row "$arch" 2>/dev/null || usage_error "--arch: see above"
	die "no build '$variant' of tree '$tree' for $arch in the tables (see above;" \
		"the trees of $KERNEL_TABLE for $arch: $(kernel_trees "$arch" 2>/dev/null))"
}

# print_fragments: --fragments' answer, written nowhere: the image's
# folder, the row's INITRD and the fragments in order.
print_fragments() {
config_fragments
build=$(realpath -m "$build")
folders --dry
printf '%s\n' "$out" "$initrd_mode" "${frags[@]}"
}

# config_fragments: frags, the build's fragments in order: the common
# options, the architecture's, the variant's, the tree's, each -EXTRA's,
# and stock.config for --stock.
config_fragments() {
local common="$HARNESS/config/pidmax.config" base frag f extra
# A tree may need its own spelling of a variant: 6.12 has no BASE_FULL.
# Each -EXTRA of the build's name (VARIANT-EXTRA-...) adds
# config/EXTRA.config.
base=${variant%%-*}
frag="$HARNESS/config/variant-$base-$tree.config"
[[ -r $frag ]] || frag="$HARNESS/config/variant-$base.config"
[[ -r $frag ]] || die "build '$variant' of $KERNEL_TABLE: no $frag"
# The architecture's own options (config/arch-ARCH.config) follow the
# common ones.
frags=("$common" "$HARNESS/config/arch-$arch.config" "$frag")
[[ -r ${frags[1]} ]] || die "no ${frags[1]} for $arch"
# A tree may spell the common fragment differently: config/tree-TREE.config
# comes after it (a later line wins), then config/tree-TREE-ARCH.config.
for f in "tree-$tree" "tree-$tree-$arch"; do
	[[ ! -r $HARNESS/config/$f.config ]] || frags+=("$HARNESS/config/$f.config")
done
local -a extras=()
IFS=- read -r -a extras <<<"${variant#"$base"}"
for extra in "${extras[@]}"; do
	[[ -n $extra ]] || continue
	[[ -r $HARNESS/config/$extra.config ]] ||
		die "build '$variant' of $KERNEL_TABLE: no config/$extra.config"
	frags+=("$HARNESS/config/$extra.config")
done
((stock == 0)) || frags+=("$HARNESS/config/stock.config")
}

# source_and_series: tarball and SERIES_DIR, the tree's (its suite and
# series folder): the host's package, or a tree of another suite
# fetched first (lib.sh's suite_tarball), and an unreachable suite is
# exit 3. $PIDMAX_TARBALL overrides the tarball (the self-tests use a
# fake one), $PIDMAX_SERIES_DIR the series folder.
source_and_series() {
local rc=0
tarball=${PIDMAX_TARBALL:-$(suite_tarball "$build" "$tree" "$suite")} || rc=$?
((rc != 3)) || exit 3
((rc == 0)) || die "no source for tree $tree (see above)"
[[ -r $tarball ]] ||
	die "$tarball is missing: apt-get install linux-source-$tree"
SERIES_DIR=${PIDMAX_SERIES_DIR:-$series_dir}
}

# folders: the build's log, the tree (src), the objects (obj) and the
# image's folder (out; a mutant's and the stock build's their own).
folders() {
[[ ${1:-} == --dry ]] || mkdir -p "$build/logs"
log="$build/logs/build-$name.log"
src="$build/src/linux-source-$tree"
obj="$build/obj-$name"
out="$build/kernel-$name"
if [[ -n $mutant ]]; then
	[[ -r $mutant ]] || die "mutant patch $mutant is not readable"
	out="$out-mutant"
fi
if ((stock)); then
	# The stock build shares the tree (the series is popped) and the
	# object folder with the patched one, like a mutant: only what the
	# series touches is compiled again. (A copy of the objects would not
	# do: objtool is rebuilt in a new folder, and with it everything.)
	out="$out-stock" log="${log%.log}-stock.log"
fi
}

# run LOG_TAG CMD...: run a step with its output in the build log; on
# failure show the log's tail and stop.
run() {
	local what=$1
	shift
	if ! "$@" >>"$log" 2>&1; then
		tail -n 25 "$log" >&2
		die "$what failed (full log: $log)"
	fi
}

hash_of() {
	cat "$@" | sha256sum | cut -d' ' -f1
}

# 1. unpack_tree: the pristine tree, unpacked once per tarball.
unpack_tree() {
tar_id=$(stat -c '%s %Y' "$tarball")
if [[ ! -d $src || $(cat "$src/.harness-tarball" 2>/dev/null) != "$tar_id" ]]; then
	info "unpacking $tarball"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1 ||
		die "could not unpack $tarball (disk full?)"
	echo "$tar_id" >"$src.tmp/.harness-tarball"
	mv "$src.tmp" "$src"
fi
}

# 2. apply_series: the series, pushed with quilt and no fuzz. A changed
#    series is popped and pushed again, which touches only the patched
#    files; --stock pops it.
apply_series() {
local p
local -a patches series_files
[[ -r $SERIES_DIR/series ]] || die "$SERIES_DIR/series is missing"
mapfile -t patches < <(grep -v -E '^[[:space:]]*(#|$)' "$SERIES_DIR/series")
((${#patches[@]} > 0)) || die "$SERIES_DIR/series lists no patches"
series_files=("$SERIES_DIR/series")
for p in "${patches[@]}"; do
	[[ -r $SERIES_DIR/$p ]] || die "series names $p, which does not exist"
	series_files+=("$SERIES_DIR/$p")
done
series_id=$(hash_of "${series_files[@]}" ${mutant:+"$mutant"})
export QUILT_PATCHES=patches QUILT_PC=.pc
if ((stock)); then
	series_id=stock
	if [[ $(cat "$src/.harness-series" 2>/dev/null) != stock ]]; then
		info "popping the series off linux-source-$tree (stock build)"
		pop_series
		echo stock >"$src/.harness-series"
	fi
elif [[ $(cat "$src/.harness-series" 2>/dev/null) != "$series_id" ]]; then
	info "applying the series to linux-source-$tree"
	pop_series
	mkdir "$src/patches"
	cp "${series_files[@]}" "$src/patches/"
	if [[ -n $mutant ]]; then
		cp "$mutant" "$src/patches/zz-mutant.patch"
		echo zz-mutant.patch >>"$src/patches/series"
	fi
	if ! (cd "$src" && quilt push -a -q --fuzz=0) >>"$log" 2>&1; then
		tail -n 15 "$log" >&2
		(cd "$src" && quilt pop -a -f -q) >/dev/null 2>&1 || true
		# Nothing applied any more: drop quilt's state with the series.
		(cd "$src" && quilt applied) >/dev/null 2>&1 ||
			rm -rf "$src/.pc" "$src/patches"
		die "the series does not apply to linux-source-$tree with --fuzz=0; refresh the patches (log: $log)"
	fi
	echo "$series_id" >"$src/.harness-series"
fi
}

# pop_series: take off whatever quilt applied to the tree, and its state.
pop_series() {
	rm -f "$src/.harness-series"
	if [[ -d $src/.pc ]]; then
		(cd "$src" && quilt pop -a -f -q >>"$log" 2>&1) ||
			die "quilt pop failed in $src; remove $build/src and retry"
	fi
	rm -rf "$src/patches" "$src/.pc"
}

# 3. configure: tinyconfig + fragments, every option checked, again only
#    when the fragments or the tarball changed.
configure() {
# The kernel's own pid_namespace selftests (build-selftests.sh) name what
# they need in their config fragment (USER_NS, PID_NS): merged too, as
# kselftest asks, so the guests can run them.
selftest_config="$src/tools/testing/selftests/pid_namespace/config"
[[ ! -r $selftest_config ]] || frags+=("$selftest_config")

# A kernel whose row says builtin carries the initramfs inside: QEMU
# puts an -initrd just below 4 GiB minus 160 KiB, and from about 1000
# CPUs on SeaBIOS's ACPI tables grow past that and are overwritten (the
# guest then checksums a 4 GiB "DSDT" byte by byte). build-initramfs.sh
# runs first. A kernel whose fragments set CONFIG_MODULES=y carries its
# own copy, OBJ/initramfs.cpio, which build_image fills with the
# initramfs and the kernel's modules.
cpio_id="" own_cpio=""
if [[ $initrd_mode == builtin ]]; then
	local base
	base=$(base_cpio)
	[[ -r $base ]] ||
		die "$base is missing: harness/build-initramfs.sh --arch $arch $build first"
	mkdir -p "$obj"
	local source=$base
	if grep -qsx 'CONFIG_MODULES=y' "${frags[@]}"; then
		own_cpio="$obj/initramfs.cpio" source="$obj/initramfs.cpio"
		# The first link takes what is there; build_image adds the modules.
		[[ -r $own_cpio ]] || cp "$base" "$own_cpio"
	fi
	# Uncompressed: the guest need not gunzip it under TCG at each boot.
	printf 'CONFIG_INITRAMFS_SOURCE="%s"\nCONFIG_INITRAMFS_COMPRESSION_NONE=y\n' \
		"$source" >"$obj/initramfs.config.tmp"
	mv "$obj/initramfs.config.tmp" "$obj/initramfs.config"
	frags+=("$obj/initramfs.config")
	cpio_id=-$(hash_of "$base")
fi
config_id=$(hash_of "${frags[@]}")-$tar_id
if [[ ! -f $obj/.config || $(cat "$obj/.harness-config" 2>/dev/null) != "$config_id" ]]; then
	info "configuring $tree/$variant ($arch)"
	mkdir -p "$obj"
	rm -f "$obj/.harness-config"
	run "make tinyconfig" make -C "$src" O="$obj" tinyconfig
	run "merge_config.sh" "$src/scripts/kconfig/merge_config.sh" -m \
		-O "$obj" "$obj/.config" "${frags[@]}"
	run "make olddefconfig" make -C "$src" O="$obj" olddefconfig
	"$HARNESS/check-config.sh" "$obj/.config" "${frags[@]}"
	echo "$config_id" >"$obj/.harness-config"
fi
}

# base_cpio: the initramfs of every guest of the architecture
# (build-initramfs.sh's).
base_cpio() {
	if [[ $arch == x86_64 ]]; then
		echo "$build/initramfs.cpio"
	else
		echo "$build/initramfs-$arch.cpio"
	fi
}

# 4. build_image: the kernel itself, the architecture's image by its file
#    name (and a bzImage with --bzimage), again only when its series,
#    configuration or built-in initramfs changed. A kernel with
#    CONFIG_MODULES=y gets its modules beside it (with_modules).
build_image() {
build_id=$series_id-$config_id$cpio_id
local image=${image_path##*/} modular=0
local -a targets=("$image")
((bzimage == 0)) || targets+=(bzImage)
! grep -qx 'CONFIG_MODULES=y' "$obj/.config" || { modular=1; targets+=(modules); }
local stale=0
[[ -f $out/$image && $(cat "$out/.harness-build" 2>/dev/null) == "$build_id" ]] || stale=1
((bzimage == 0)) || [[ -f $out/bzImage ]] || stale=1
if ((stale)); then
	info "building $tree/$variant for $arch (log: $log)"
	run "kernel build" make -C "$src" O="$obj" -j"$(nproc)" "${targets[@]}"
	mkdir -p "$out"
	rm -f "$out/.harness-build" "$out/bzImage" "$out/modules.cpio"
	((modular == 0)) || with_modules "${targets[@]}"
	cp "$obj/$image_path" "$out/$image.tmp"
	mv "$out/$image.tmp" "$out/$image"
	((bzimage == 0)) || cp "$obj/arch/x86/boot/bzImage" "$out/bzImage"
	cp "$obj/.config" "$out/.config"
	echo "$build_id" >"$out/.harness-build"
fi
}

# with_modules TARGET...: the kernel's modules (modules.order: the KUnit
# suite when it is =m) packed by build-initramfs.sh --modules, into
# OUT/modules.cpio, which boot-guest.sh puts on top of an external
# initramfs; a kernel with its own built-in copy of the initramfs gets
# them inside as well (the initramfs, then the modules: the kernel
# unpacks concatenated archives in turn), linked again when that
# changed its copy.
with_modules() {
	local mods
	mods=$("$HARNESS/build-initramfs.sh" --modules "$obj" "$build") ||
		die "could not pack the modules of $obj (see above)"
	[[ -z $mods ]] || cp "$mods" "$out/modules.cpio"
	[[ -n $own_cpio ]] || return 0
	cat "$(base_cpio)" ${mods:+"$mods"} >"$own_cpio.tmp" ||
		die "could not write $own_cpio (disk full?)"
	if cmp -s "$own_cpio.tmp" "$own_cpio"; then
		rm -f "$own_cpio.tmp"
		return 0
	fi
	mv "$own_cpio.tmp" "$own_cpio"
	# (A stock twin builds no module: its copy is the initramfs alone.)
	info "linking $tree/$variant again with ${mods:+its modules}${mods:-no module} inside"
	run "kernel build with the modules inside" make -C "$src" O="$obj" -j"$(nproc)" "$@"
}

main "$@"
