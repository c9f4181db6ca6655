# The CMA patch series against Linux 6.12.117 and the harness that proves it.
#
#   make run            build, boot and test the default variant (x86_64)
#   make test           every variant, the harness tests and checkpatch
#
# Variables: V=<variant>  T=<kselftest, e.g. cma_debugfs>  KVM=1 (probe, then use)
#            TIMEOUT=<seconds per kselftest, overrides its settings file>
# See `make help`.

# Debian's python3: the harness needs only the standard library, but the
# plots need python3-matplotlib and checkpatch's spdxcheck python3-ply.
PYTHON   ?= $(firstword $(wildcard /usr/bin/python3) python3)
TREE     := build/linux
PATCHES  := patches
V        ?= x86_64
HARNESS  := $(PYTHON) -m harness
KVMFLAG  := $(if $(filter 1 yes y,$(KVM)),--kvm,)
RUNFLAGS := $(KVMFLAG) $(if $(TIMEOUT),--timeout $(TIMEOUT),)

.PHONY: check demo-check-failures bisect-check bloat-zone-cma-off bench bench-plot bench-list demo-failures help deps tree tree-reset export check-export variants run test \
	shell kselftest harness-test checkpatch clean

help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

## make deps           install missing Debian packages (root)
deps:
	@scripts/install-deps.sh

## make tree           pinned base in build/linux, series from patches/ applied
tree: deps
	@[ -d $(TREE)/.git ] || scripts/fetch-base.sh $(TREE)
	@scripts/series.sh apply $(TREE) $(PATCHES)

## make tree-reset     rebuild build/linux from base + patches/ (drops local commits)
tree-reset:
	@if ! scripts/series.sh check $(TREE) $(PATCHES) 2>/dev/null; then \
		echo "tree-reset: build/linux has commits not in patches/; run 'make export' first or FORCE=1" >&2; \
		[ "$(FORCE)" = 1 ] || exit 1; fi
	git -C $(TREE) checkout -q -B series base
	@scripts/series.sh apply $(TREE) $(PATCHES)

## make export         write build/linux base..HEAD to patches/ (format-patch)
export:
	@scripts/series.sh export $(TREE) $(PATCHES)

## make check-export   fail if build/linux and patches/ differ
check-export:
	@scripts/series.sh check $(TREE) $(PATCHES)

## make variants       list the variants
variants:
	@$(HARNESS) variants

## make run [V=x]      build, boot and run the kselftests of one variant
run: tree
	@$(HARNESS) run $(V) $(RUNFLAGS)

## make kselftest T=t  run one kselftest (cma:t) on V
kselftest: tree
	@[ -n "$(T)" ] || { echo "usage: make kselftest T=<test> [V=<variant>]" >&2; exit 2; }
	@$(HARNESS) run $(V) --test $(if $(findstring :,$(T)),$(T),cma:$(T)) $(RUNFLAGS)

## make shell [V=x]    boot a variant to an interactive shell
shell: tree
	@$(HARNESS) shell $(V) $(KVMFLAG)

## make harness-test   the harness's own tests (no QEMU)
harness-test:
	@$(HARNESS) selftest

## make checkpatch     scripts/checkpatch.pl --strict over patches/
checkpatch: tree
	@$(HARNESS) checkpatch

## make check [CHECKS=a,b] [MATRIX=x,y]  series quality gates: checkpatch,
##                     kerneldoc, compiler (sparse, W=1), bisect, matrix
check: tree
	@$(HARNESS) check $(if $(CHECKS),--only $(CHECKS),) $(if $(MATRIX),--matrix $(MATRIX),)

## make demo-check-failures  show that make check catches a checkpatch
##                     warning, a commit that does not build, a sparse warning
demo-check-failures: tree
	@scripts/demo-check-failures.sh

## make test           harness tests, checkpatch and every variant
test: tree
	@$(HARNESS) test $(KVMFLAG)

## make bench [B=name] [RUNS=n]  base and series side by side: bench/results/
bench: tree
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) bench $(B) $(if $(RUNS),--runs $(RUNS),)

## make bench-plot [B=name]  redraw the plots from bench/results/*.json
bench-plot:
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) bench --replot $(B)

## make bench-list     list the benchmarks
bench-list:
	@$(HARNESS) bench --list

## make bisect-check  every patch's CMA objects build (W=1), option on and off
bisect-check: tree
	@scripts/bisect-objects.sh

## make bloat-zone-cma-off [ARCHES="x86_64 arm64 i386"] [FRAGMENTS=hotplug] [PRE=rev] [POST=rev]
##                     with CONFIG_ZONE_CMA=n the ZONE_CMA patches change nothing:
##                     bloat-o-meter on vmlinux and mm/*.o (default: the parent
##                     of the first ZONE_CMA patch vs HEAD of build/linux);
##                     FRAGMENTS adds configs/ fragments to each build
bloat-zone-cma-off: tree
	@scripts/bloat-zone-cma-off.sh $(if $(ARCHES),-a "$(ARCHES)",) $(if $(FRAGMENTS),-f "$(FRAGMENTS)",) $(TREE) $(if $(PRE)$(POST),$(or $(PRE),-) $(POST),)

## make demo-failures  show that each kind of fault fails a run, naming it
demo-failures: tree
	@scripts/demo-failures.sh

## make clean          remove build outputs and results (keeps build/linux)
clean:
	rm -rf build/out build/results
