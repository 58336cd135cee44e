#!/bin/bash
# plan.sh - the planner: turn the sweep's options into its job list, one
# boot a line in lib.sh's KEY=VALUE format, on stdout. Boots nothing.
#
# A tier is a job generator below; each job carries its own expected
# values, from the formula and the kernel's .config (make_job in lib.sh).
set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/lib.sh
. "$HARNESS/lib.sh"

USAGE="Usage: harness/plan.sh --kernel FILE --config FILE --initrd FILE
                       [--label L] [--accel tcg|kvm] [--cpus LIST]
                       [--online LIST] [--scenarios yes|no]
                       [--series yes|auto|no] [--possible LIST]
                       [--wide-online LIST] [--wide-hotplug LIST]
                       [--wide-qemu FILE] [--selftests \"CPIO N\"]
                       [--holes LIST] [--selftests-unchanged \"CPIO N\"]
Print the job list of one kernel, a boot a line. The kernel's .config
names its architecture (harness/arches), and with it the machine its
boots run on and how that machine describes its CPUs (FIRMWARE):
  hotplug    N possible CPUs, one online, for each N of --cpus (default:
             all, 1 to the architecture's MAXCPUS). acpi (x86-64):
             -smp 1,maxcpus=N, QEMU's not-present CPUs; under TCG a
             kernel since 6.3 boots it on the machine vmware
             (harness/machines: boot names end in -vmware), needing
             DMI and HYPERVISOR_GUEST, else the tier is a skip. dt
             (arm64, which QEMU cannot hotplug): -smp N and the
             kernel's maxcpus=1
  online     -smp N for each N of --online (default: $DEFAULT_ONLINE)
  possible   -smp 1 and possible_cpus=N on the kernel command line for
             each N of --possible (default: none; up to $MAX_NR_CPUS): N CPU
             ids that no firmware describes, one online; needs a kernel
             with NR_CPUS >= N (harness/kernels: the 6.1 kernels). dt
             (arm64): -smp 1, maxcpus=1 and a device tree describing N
             CPUs (the arm64 kernels full-nr4096: up to 4096)
  wide-online   -smp N on QEMU 10's q35 with x2APIC and interrupt
             remapping (--wide-qemu) for each N of --wide-online
             (default: none): N firmware-described CPUs, all online
  wide-hotplug  -smp 256,maxcpus=N and maxcpus=1 on the kernel command
             line, for each N of --wide-hotplug (default: none; 257 to
             $MAX_Q35_CPUS): N possible CPUs the firmware describes, one
             online; both need a kernel with X86_X2APIC, IRQ_REMAP and
             NR_CPUS >= N (harness/kernels: the 6.1 kernels), and
             are skips without --wide-qemu
  scenario   (--scenarios yes, the default) six boots: the extended
             guest checks on 64 CPUs (with pid_max in a child pid
             namespace), sysctl.kernel.pid_max= in and out
             of range, nr_cpus=40, possible_cpus=40 and maxcpus=2
  selftests  (--selftests \"CPIO N\", with the scenarios) one boot, one
             CPU: the kernel's own N pid_namespace selftests of CPIO
             (build-selftests.sh), each a KTAP line that must pass
  holes      (dt only) for each N of --holes (at least 4): -smp N,
             maxcpus=1 and a device tree without the enable method of
             cpu@1 to cpu@N/4 (holes-NNN-h1-Q: N - N/4 possible CPUs,
             nr_cpu_ids N), and a control with the holes at the top
             (holes-NNN-hA-B: nr_cpu_ids N - N/4); with --selftests,
             the machine of the first N above 32 (else the last) also
             runs them (-selftests), and with
             --selftests-unchanged those of CPIO, recorded, not judged
             (-selftests-unchanged: the tree's own, on a patched
             kernel)
LIST is like 1,2,32-34,255 or all; \"\" plans no boot of that tier.
--initrd is the guests' initramfs, unless the kernel carries its own
(CONFIG_INITRAMFS_SOURCE): then every job has initrd=builtin.
A tier that cannot run on this kernel and accelerator is one job with
a skip field and the reason; a --cpus LIST given for it is an error.
--label names the kernel in every boot name (default: the kernel's
file name); --accel is the accelerator the boots will use (tcg).
--series yes (the default) says the kernel carries the series, and auto
that it may (any --kernel FILE): both are held to the formula's series
model (nr_cpu_ids). no says it does not (Debian's own kernels): the
formula's stock model (the possible count, the minimum unclamped; the
job's model=stock field)."

main() {
	local kernel="" config="" initrd="" label="" accel=tcg
	local cpus_list=all cpus_given=0 online_list=$DEFAULT_ONLINE
	local scenarios=yes series=yes possible_list="" wide_online="" wide_hotplug="" wide_qemu="" selftests=""
	local holes_list="" unchanged=""
	parse_options "$USAGE" "kernel:,config:,initrd:,label:,accel:,cpus:,online:,scenarios:,series:,possible:,wide-online:,wide-hotplug:,wide-qemu:,selftests:,holes:,selftests-unchanged:" "$@"
	set -- "${OPTS[@]}"
	while (($#)); do
		case $1 in
		--kernel) kernel=$2 ;;
		--config) config=$2 ;;
		--initrd) initrd=$2 ;;
		--label) label=$2 ;;
		--accel) accel=$2 ;;
		--cpus) cpus_list=$2 cpus_given=1 ;;
		--online) online_list=$2 ;;
		--scenarios) scenarios=$2 ;;
		--series) series=$2 ;;
		--possible) possible_list=$2 ;;
		--wide-online) wide_online=$2 ;;
		--wide-hotplug) wide_hotplug=$2 ;;
		--wide-qemu) wide_qemu=$2 ;;
		--selftests) selftests=$2 ;;
		--holes) holes_list=$2 ;;
		--selftests-unchanged) unchanged=$2 ;;
		--) shift; break ;;
		esac
		shift 2
	done
	(($# == 0)) || usage_error "unexpected operand '$1'"
	[[ -n $kernel && -n $config && -n $initrd ]] ||
		usage_error "--kernel, --config and --initrd are required"
	[[ -r $config ]] || die "$config is not readable"
	local arch hotplug online possible holes
	arch=$(kconfig_arch "$config") || die "cannot plan for $config"
	arch_row "$arch" || die "cannot plan for $config"
	hotplug=$(parse_cpu_list "$cpus_list" "$ARCH_MAXCPUS") || usage_error "--cpus: see above"
	possible=$(parse_cpu_list "$possible_list" "$MAX_NR_CPUS") || usage_error "--possible: see above"
	online=$(parse_cpu_list "$online_list" "$ARCH_MAXCPUS") || usage_error "--online: see above"
	holes=$(parse_cpu_list "$holes_list" "$ARCH_MAXCPUS" 4) || usage_error "--holes: see above"
	wide_online=$(parse_cpu_list "$wide_online" "$MAX_Q35_CPUS") || usage_error "--wide-online: see above"
	wide_hotplug=$(parse_cpu_list "$wide_hotplug" "$MAX_Q35_CPUS" "$MIN_WIDE_HOTPLUG") ||
		usage_error "--wide-hotplug: see above (N above the 256 CPUs QEMU is given)"
	case $accel in
	tcg | kvm) ;;
	*) usage_error "--accel wants tcg or kvm, not '$accel'" ;;
	esac
	case $scenarios in
	yes | no) ;;
	*) usage_error "--scenarios wants yes or no, not '$scenarios'" ;;
	esac
	case $series in
	yes | auto | no) ;;
	*) usage_error "--series wants yes, auto or no, not '$series'" ;;
	esac
	local st
	for st in selftests:"$selftests" selftests-unchanged:"$unchanged"; do
		[[ ${st#*:} == "" || ${st#*:} =~ ^/[^\ ]+\ [1-9][0-9]*$ ]] ||
			usage_error "--${st%%:*} wants \"CPIO N\" (an absolute path and a count), not '${st#*:}'"
	done
	[[ -n $label ]] || label=$(basename "$kernel")
	[[ $label =~ ^[A-Za-z0-9._+-]+$ ]] ||
		usage_error "--label '$label': use letters, digits and . _ + - only"
	# KVM runs the host's own architecture only.
	[[ $arch == "$(uname -m)" ]] || accel=tcg
	# A kernel with its initramfs inside boots without -initrd.
	job_kernel "$kernel" "$config" "$(kernel_initrd "$config" "$initrd")" "$label" "$accel" "$series" ||
		die "cannot plan for $config"

	# A device tree machine (arm64): its own tiers.
	if [[ $ARCH_FIRMWARE == dt ]]; then
		dt_tiers "$hotplug" "$online" "$holes" "$selftests" "$unchanged"
		dt_possible_tier "$possible" "$config"
		local t
		for t in "wide-online:$wide_online" "wide-hotplug:$wide_hotplug" \
			"scenario:$([[ $scenarios == no ]] || echo yes)"; do
			[[ -z ${t#*:} ]] ||
				make_skip "${t%%:*}" "${t%%:*}" "$arch boots a device tree: the ${t%%:*} tier is x86-64's (the MADT, possible_cpus=, q35)"
		done
		return 0
	fi
	[[ -z $holes ]] ||
		make_skip holes holes "$arch describes its CPUs in ACPI's MADT: the holes tier needs a device tree (FIRMWARE dt in harness/arches)"
	# Under TCG a kernel since 6.3 sees only QEMU's present CPUs (see
	# tcg_counts_hotplug_cpus in lib.sh) on the PC: its hotplug tier
	# boots on the machine vmware (harness/machines) when the kernel can
	# detect VMware, else it is a skip; the scenario boots bring their
	# CPUs online instead, and possible_cpus= only lowers the count.
	local version slots=yes why hot_machine=pc suffix=""
	version=$(kconfig_version "$config")
	if [[ $accel == tcg ]] && ! tcg_counts_hotplug_cpus "$version"; then
		slots=no
		why="Linux ${version:-?} under TCG ignores QEMU's hotpluggable CPUs (-smp 1,maxcpus=N gives 1 possible CPU)"
		if kernel_detects_vmware "$config"; then
			hot_machine=vmware suffix=-vmware
		elif [[ -n $hotplug ]]; then
			why+=" unless it detects a hypervisor: this kernel lacks DMI or HYPERVISOR_GUEST for the machine vmware"
			((cpus_given == 0)) ||
				usage_error "$why: use --cpus '' and --online LIST for this kernel"
			make_skip hotplug hotplug "$why"
			hotplug=""
		fi
	fi

	local n
	for n in $hotplug; do
		make_job "$(printf 'hotplug-%03d%s' "$n" "$suffix")" hotplug "$n" 1 "1,maxcpus=$n" \
			"machine=$hot_machine"
	done
	online_tier "$online"
	possible_tier "$possible" "$config" "$slots"
	wide_tiers "$wide_online" "$wide_hotplug" "$config" "$wide_qemu" "$slots"
	[[ $scenarios == yes ]] || return 0
	# 64 possible CPUs, one online; all 64 online where slots=no.
	local s64=1,maxcpus=64 on=1 on40=1
	[[ $slots == yes ]] || s64=64 on=64 on40=40
	# A 64-CPU guest (pid_max above 32768 when full-sized) runs the slow
	# checks: bad writes, PIDs above 32768 and the wrap, exhaustion.
	# It also checks pid_max in a child pid namespace, by the tree's
	# semantics (pidns_scope in lib.sh).
	make_job extended-064 scenario 64 "$on" "$s64" append=pidmax_harness=extended \
		"pidns_scope=$(pidns_scope "$version")"
	# The command line override still works on top of the heuristic
	# (30000 is in range for both variants) and is refused out of range.
	make_job sysctl-override scenario 64 "$on" "$s64" \
		append=sysctl.kernel.pid_max=30000 pid_max=30000
	make_job sysctl-too-low scenario 64 "$on" "$s64" \
		append=sysctl.kernel.pid_max=100 sysctl_refused=1
	# nr_cpus= and possible_cpus= lower nr_cpu_ids, so pid_max follows;
	# maxcpus= only limits the CPUs brought up, so pid_max does not.
	make_job nr_cpus-40 scenario 40 "$on40" "$s64" append=nr_cpus=40
	make_job possible_cpus-40 scenario 40 "$on40" "$s64" append=possible_cpus=40
	make_job maxcpus-2 scenario 40 2 40 append=maxcpus=2
	# The kernel's own pid_namespace selftests, one CPU.
	[[ -z $selftests ]] ||
		make_job selftests scenario 1 1 1 "initrd_extra=${selftests% *}" "selftests=${selftests#* }"
}

# online_tier COUNTS: -smp N, all N online, on every architecture's
# default machine.
online_tier() {
	local n
	for n in $1; do
		make_job "$(printf 'online-%03d' "$n")" online "$n" "$n" "$n"
	done
}

# dt_tiers HOTPLUG ONLINE HOLES SELFTESTS UNCHANGED: the jobs of a
# device tree machine (arm64's virt), where QEMU has no not-present CPUs
# and the kernel's maxcpus=1 keeps all but one of -smp N offline. A hole
# is a cpu node without an enable method (holes-dtb.sh): arm64 leaves
# its id out of the possible map, so num_possible_cpus() counts N - Q
# while nr_cpu_ids stays N, the highest possible id + 1. Each N of HOLES
# gets Q = N/4 holes at cpu@1..cpu@Q, and a control with the same count
# at the top (cpu@N-Q..cpu@N-1), where nr_cpu_ids is N - Q as well. The
# selftests (SELFTESTS, UNCHANGED: "CPIO N" each) run on the machine
# with holes below the top of the first N above 32 (where pid_max scales
# and the holes change it), else of the last N.
dt_tiers() {
	local n q st=""
	for n in $3; do
		[[ -n $st ]] && ((st > 32)) || st=$n
	done
	for n in $1; do
		make_job "$(printf 'hotplug-%03d' "$n")" hotplug "$n" 1 "$n" append=maxcpus=1
	done
	online_tier "$2"
	local name
	for n in $3; do
		q=$((n / 4))
		name=$(printf 'holes-%03d-h1-%d' "$n" "$q")
		make_job "$name" holes $((n - q)) 1 "$n" append=maxcpus=1 "holes=1-$q" "cpu_ids=$n"
		make_job "$(printf 'holes-%03d-h%d-%d' "$n" $((n - q)) $((n - 1)))" holes $((n - q)) 1 "$n" \
			append=maxcpus=1 "holes=$((n - q))-$((n - 1))" "cpu_ids=$((n - q))"
		((n == st)) || continue
		# On the stock kernels of the baseline the tree's own selftests
		# are judged, and the series' recorded (selftests_stock).
		[[ -z $4 ]] ||
			make_job "$name-selftests" holes $((n - q)) 1 "$n" append=maxcpus=1 "holes=1-$q" \
				"cpu_ids=$n" "initrd_extra=${4% *}" "selftests=${4#* }" \
				"selftests_stock=$([[ -n $5 ]] && echo no || echo yes)"
		[[ -z $5 ]] ||
			make_job "$name-selftests-unchanged" holes $((n - q)) 1 "$n" append=maxcpus=1 \
				"holes=1-$q" "cpu_ids=$n" "initrd_extra=${5% *}" "selftests=${5#* }" \
				selftests_judged=no selftests_stock=yes
	done
}

# dt_possible_tier COUNTS CONFIG: the possible tier of a device tree
# machine: -smp 1 and a device tree describing N CPUs (dt_cpus), the
# ones past QEMU's never run, and maxcpus=1; N past the 512 CPUs virt
# runs, up to the kernel's NR_CPUS (arm64's largest is 4096: the
# kernels full-nr4096 of harness/kernels), else a skip. Memory grows
# with N (4096 ids ran out of 2 GiB), the timeout too.
dt_possible_tier() {
	local n nr_cpus
	[[ -n $1 ]] || return 0
	nr_cpus=$(kconfig_get "$2" NR_CPUS)
	[[ $nr_cpus =~ ^[0-9]+$ ]] || nr_cpus=1
	for n in $1; do
		if ((n > nr_cpus)); then
			make_skip "$(printf 'possible-%04d' "$n")" possible \
				"NR_CPUS is $nr_cpus: $n CPUs need a kernel built with more (the full-nr4096 kernels of harness/kernels)"
		else
			make_job "$(printf 'possible-%04d' "$n")" possible "$n" 1 1 append=maxcpus=1 \
				"dt_cpus=$n" "mem=$((512 + n * 7 / 8))M" "timeout=$((60 + n / 16))"
		fi
	done
}

# possible_tier COUNTS CONFIG SLOTS: the jobs of the possible tier. Each
# guest has one CPU (-smp 1) and N CPU ids from possible_cpus=N; memory
# grows with N (a 256 KiB per-CPU unit per id under MAXSMP, of which
# 160 KiB stay, and the log buffer; Debian's own kernel needs more:
# it ran out at 4097 ids with 2 GiB), the timeout too. Past 3.5 GiB the
# pc machine puts RAM above 4 GiB, and 6.1 then sets up SWIOTLB with an
# area per possible CPU, its bounce buffer rounded up to 2 GiB at 8192
# ids and zeroed under TCG: swiotlb=noforce (no bounce buffer; the guest
# has no DMA device) cut that boot from 44 s to 26 s (docs/speed.md).
# A count above the kernel's NR_CPUS, or a kernel where possible_cpus=
# can only lower the count (SLOTS=no: since 6.3 under TCG), is a skip
# with the reason.
possible_tier() {
	local n nr_cpus mem append
	[[ -n $1 ]] || return 0
	nr_cpus=$(kconfig_get "$2" NR_CPUS)
	[[ $nr_cpus =~ ^[0-9]+$ ]] || nr_cpus=1
	for n in $1; do
		if [[ $3 == no ]]; then
			make_skip "$(printf 'possible-%04d' "$n")" possible \
				"possible_cpus= only lowers the CPU count of this kernel under TCG"
		elif ((n > nr_cpus)); then
			make_skip "$(printf 'possible-%04d' "$n")" possible \
				"NR_CPUS is $nr_cpus: possible_cpus=$n needs a kernel built with more (the 6.1 kernels of harness/kernels)"
		else
			mem=$((512 + n * 5 / 8)) append="possible_cpus=$n"
			((mem < 3584)) || append+=" swiotlb=noforce"
			make_job "$(printf 'possible-%04d' "$n")" possible "$n" 1 1 \
				"append=$append" "mem=${mem}M" \
				"timeout=$((60 + n / 16))"
		fi
	done
}

# wide_tiers ONLINE HOTPLUG CONFIG QEMU SLOTS: the jobs of the two wide
# tiers, booted by QEMU (QEMU 10 from fetch-qemu.sh) on q35 with x2APIC
# and the Intel IOMMU's interrupt remapping (the machine "wide"). Where
# the kernel counts not-present CPUs only on a detected hypervisor
# (SLOTS=no), wide-hotplug boots on "wide-vmware" when the kernel can
# detect VMware, else it is a skip.
# Skips, with the reason: no such QEMU, a kernel without x2APIC or
# interrupt remapping (it ignores APIC IDs of 255 and up), or a count
# above its NR_CPUS. Memory and timeout grow with N (measured here: 288
# online 63 s, 1024 possible 57 s, 4096 possible 478 s).
wide_tiers() {
	local n nr_cpus why="" tier hot=wide hot_why=""
	[[ -n $1$2 ]] || return 0
	if [[ $5 == no ]]; then
		hot=wide-vmware
		kernel_detects_vmware "$3" ||
			hot_why="this kernel counts firmware-described hotplug CPUs only on a detected hypervisor and lacks DMI or HYPERVISOR_GUEST for the machine wide-vmware"
	fi
	nr_cpus=$(kconfig_get "$3" NR_CPUS)
	[[ $nr_cpus =~ ^[0-9]+$ ]] || nr_cpus=1
	if ! kernel_boots_wide "$3"; then
		why="the kernel lacks X86_X2APIC or IRQ_REMAP: it ignores APIC IDs of 255 and up (the 6.1 kernels of harness/kernels have them)"
	elif [[ -z $4 ]]; then
		why="no QEMU for more than 255 CPUs: QEMU 10 from bookworm-backports is unavailable (harness/fetch-qemu.sh)"
	fi
	for tier in wide-online wide-hotplug; do
		for n in $([[ $tier == wide-online ]] && echo "$1" || echo "$2"); do
			local case
			case=$(printf '%s-%04d' "${tier#wide-}" "$n")
			if [[ -n $why ]]; then
				make_skip "$case" "$tier" "$why"
			elif [[ $tier == wide-hotplug && -n $hot_why ]]; then
				make_skip "$case" "$tier" "$hot_why"
			elif ((n > nr_cpus)); then
				make_skip "$case" "$tier" "NR_CPUS is $nr_cpus: $n CPUs need a kernel built with more"
			elif [[ $tier == wide-online ]]; then
				make_job "$case" "$tier" "$n" "$n" "$n" machine=wide "qemu=$4" \
					"mem=$((512 + n))M" "timeout=$((60 + n * n / 400))"
			else
				[[ $hot == wide ]] || case+=-vmware
				make_job "$case" "$tier" "$n" 1 "256,maxcpus=$n" "machine=$hot" "qemu=$4" \
					append=maxcpus=1 "mem=$((512 + n / 2))M" "timeout=$((60 + n / 4))"
			fi
		done
	done
}

main "$@"
