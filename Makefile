# The CMA patch series against mainline Linux (7.3-rc7) and the harness
# that proves it. configs/bases.ini lists the bases; each variant names
# its base (configs/variants.ini).
#
#   make run            build, boot and test the default variant (x86_64-zone-cma)
#   make test           every variant, the harness tests, checkpatch, ZONE_MOVABLE audit
#   make test-debug     the debug variants (KASAN, DEBUG_PAGEALLOC, kmemleak)
#
# Variables: V=<variant>  T=<kselftest, e.g. cma_debugfs>  KVM=1 (probe, then use)
#            TIMEOUT=<seconds per kselftest, overrides its settings file>
#            BASE=<base>    the kernel base (configs/bases.ini): make tree and
#                           checkpatch default to every base; export,
#                           check-export, tree-reset, check, checkpatch,
#                           bisect-check, bloat-zone-cma-off (default: mainline;
#                           checkpatch: every base)
# See `make help`.

# Debian's python3: the harness needs only the standard library, but the
# plots need python3-matplotlib and checkpatch's spdxcheck python3-ply.
PYTHON   ?= $(firstword $(wildcard /usr/bin/python3) python3)
export PYTHON
# The default variant: harness/variants.py's DEFAULT, first in configs/variants.ini.
V        ?= x86_64-zone-cma
# One name for the kernel base everywhere: BASE (SERIES was its old name
# in some targets, and is refused so that it does not silently do nothing).
ONE_BASE := $(or $(BASE),mainline)
ifneq ($(SERIES),)
$(error SERIES= is now BASE=: make $(MAKECMDGOALS) BASE=$(SERIES))
endif
HARNESS  := $(PYTHON) -m harness
KVMFLAG  := $(if $(filter 1 yes y,$(KVM)),--kvm,)
RUNFLAGS := $(KVMFLAG) $(if $(TIMEOUT),--timeout $(TIMEOUT),)

.PHONY: figures test-debug bad-input layouts mm-selftests soak fault-inject demo-defects check demo-check-failures bisect-check bloat-zone-cma-off bench bench-plot bench-report bench-failures bench-list demo-failures help deps tree tree-reset export check-export variants bases run test \
	shell kselftest harness-test checkpatch clean

help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

## make deps           install missing Debian packages (root)
deps:
	@scripts/install-deps.sh

## make tree [BASE=b]  each base's work tree (build/linux, build/linux-<name>):
##                     the pinned base (tag base) with its series applied
##                     (patches/, backports/<name>/); fetched when missing
tree: deps
	@for b in $(or $(BASE),$$($(HARNESS) bases --names)); do \
		scripts/series.sh tree "$$b" || exit 1; done

## make tree-reset [BASE=b]  rebuild a work tree from base + its patch folder
##                     (drops local commits; refused unless exported, or FORCE=1)
tree-reset:
	@scripts/series.sh reset $(ONE_BASE)

## make export [BASE=b]  sign off and write a work tree's base..HEAD to its
##                     patch folder (format-patch), as the git user.name and
##                     user.email of this repository
export:
	@scripts/series.sh export $(ONE_BASE)

## make check-export [BASE=b]  fail if a work tree and its patch folder differ
check-export:
	@scripts/series.sh check $(ONE_BASE)

## make bases          list the kernel bases
bases:
	@$(HARNESS) bases

## make variants       list the variants and their bases
variants:
	@$(HARNESS) variants

## make run [V=x]      build, boot and run the kselftests of one variant (its
##                     base's tree is fetched and patched when missing)
run: deps
	@$(HARNESS) run $(V) $(RUNFLAGS)

## make kselftest T=t  run one kselftest (cma:t) on V
kselftest: deps
	@[ -n "$(T)" ] || { echo "usage: make kselftest T=<test> [V=<variant>]" >&2; exit 2; }
	@$(HARNESS) run $(V) --test $(if $(findstring :,$(T)),$(T),cma:$(T)) $(RUNFLAGS)

## make shell [V=x]    boot a variant to an interactive shell
shell: deps
	@$(HARNESS) shell $(V) $(KVMFLAG)

## make figures       write README.md's headline table from bench/results
##                     (bench/figures.ini); FIGURES=check: fail when README.md,
##                     the cover letter or a commit message disagrees
figures:
	@$(HARNESS) figures $(if $(filter check,$(FIGURES)),--check,)

## make harness-test   the harness's own tests (no QEMU)
harness-test:
	@$(HARNESS) selftest

## make checkpatch [BASE=b]  scripts/checkpatch.pl --strict over patches/
##                     and backports/*/ (or one base's folder)
checkpatch: deps
	@$(HARNESS) checkpatch $(if $(BASE),--series $(BASE),)

## make check [BASE=b] [CHECKS=a,b] [MATRIX=x,y]  series quality gates:
##                     checkpatch, kerneldoc, docs, compiler (sparse, W=1), bisect,
##                     matrix, zone-movable, figures, kconfig (existing .configs kept)
check: deps
	@$(HARNESS) check --series $(ONE_BASE) $(if $(CHECKS),--only $(CHECKS),) $(if $(MATRIX),--matrix $(MATRIX),)

## make demo-check-failures [BASE=b]  show that make check catches a checkpatch
##                     warning, a commit that does not build, a sparse warning,
##                     an unreviewed use of ZONE_MOVABLE (mainline)
demo-check-failures: deps
	@BASE=$(ONE_BASE) scripts/demo-check-failures.sh

## make test           harness tests, checkpatch, the ZONE_MOVABLE audit and every
##                     variant, each on its base (each base's work tree is
##                     fetched and patched)
test: deps
	@$(HARNESS) test $(KVMFLAG)

## make test-debug     the debug variants (in_debug in configs/variants.ini):
##                     x86_64 and arm64 with ZONE_CMA on KASAN, DEBUG_PAGEALLOC
##                     and kmemleak kernels; any splat or leak fails
test-debug: deps
	@$(HARNESS) test --debug $(KVMFLAG)

## make bad-input [R=row]  every row of configs/bad-input.ini (or one): bad
##                     boot parameters on the default variant's kernel, bad
##                     Kconfig values and harness arguments; each must give
##                     its error or documented rounding and lose nothing
bad-input: deps
	@$(HARNESS) bad-input $(if $(R),"$(R)",)

## make layouts [R=row]  every row of configs/layouts.ini (or one): the default
##                     variant's kernel booted on other CMA layouts (several
##                     areas on a node, a node that is mostly CMA), every
##                     kselftest must hold
layouts: deps
	@$(HARNESS) layouts $(if $(R),"$(R)",)

## make mm-selftests   mainline's mm kselftests (migration, compaction, GUP,
##                     COW, HugeTLB, KSM, THP, hotplug) on 7.3-rc7 and on the
##                     series, same configuration: every test that passes on
##                     the base must pass on the series
mm-selftests: deps
	@scripts/install-deps.sh libnuma-dev python3-matplotlib
	@$(HARNESS) mm-selftests

## make soak [MINUTES=10]  concurrent cma_alloc() under memory churn on debug
##                     kernels (with and without ZONE_CMA), MINUTES each; then
##                     no failed allocation and nothing lost (configs/soak.ini)
soak: deps
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) soak $(if $(MINUTES),--minutes $(MINUTES),)

## make fault-inject [MINUTES=5]  as make soak, with fail_page_alloc and
##                     failslab failing 5% of the allocating threads' page and
##                     slab allocations: errors returned, nothing lost; then
##                     a boot where an area fails to activate against one
##                     where none does: refused whole, no memory lost
##                     (ONLY=population: that boot check alone)
fault-inject: deps
	@$(if $(filter-out population,$(ONLY)),echo "make fault-inject: unknown ONLY=$(ONLY) (only ONLY=population)" >&2; exit 2,true)
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) soak --faults $(if $(MINUTES),--minutes $(MINUTES),) $(if $(filter population,$(ONLY)),--population-only,)

## make bench [B=name] [RUNS=n]  pristine and series side by side: bench/results/
##                     (JSON, plot; the report in build/results/bench-<name>/report.md;
##                     each benchmark names its base in bench/benchmarks.ini)
bench: deps
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) bench $(B) $(if $(RUNS),--runs $(RUNS),)

## make bench-plot [B=name]  redraw the plots from bench/results/*.json
bench-plot:
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) bench --replot $(B)

## make bench-report B=name  rewrite bench/results/name.* from the last
##                     run's console logs (a new metric, a corrected note)
bench-report:
	@scripts/install-deps.sh python3-matplotlib
	@$(HARNESS) bench --report $(B) $(if $(RUNS),--runs $(RUNS),)

## make bench-failures F="LABEL=RESULTS[@REV]:KERNEL,... ..."  boots that
##                     failed an allocation, pooled over results files
##                     (bench/results/RESULTS.json, at git commit REV), with
##                     Fisher's exact p against the first LABEL
bench-failures:
	@$(if $(strip $(F)),true,echo 'make bench-failures: give F="LABEL=RESULTS:KERNEL,... ..."' >&2; exit 2)
	@$(HARNESS) bench --failures $(F)

## make bench-list     list the benchmarks
bench-list:
	@$(HARNESS) bench --list

## make bisect-check [BASE=b]  make check's bisect gate alone: every commit
##                     builds vmlinux, x86_64 and arm64, the series' options
##                     on and off
bisect-check: deps
	@$(HARNESS) check --series $(ONE_BASE) --only bisect

## make bloat-zone-cma-off [BASE=b] [ARCHES="x86_64 arm64 i386"] [FRAGMENTS=hotplug] [PRE=rev] [POST=rev]
##                     with CONFIG_ZONE_CMA=n the ZONE_CMA patches change nothing:
##                     bloat-o-meter on vmlinux and mm/*.o (default: the parent
##                     of the first ZONE_CMA patch vs HEAD of the work tree
##                     of BASE, default mainline);
##                     FRAGMENTS adds configs/ fragments to each build
bloat-zone-cma-off: deps
	@scripts/series.sh tree $(ONE_BASE)
	@scripts/bloat-zone-cma-off.sh $(if $(ARCHES),-a "$(ARCHES)",) $(if $(FRAGMENTS),-f "$(FRAGMENTS)",) \
		$$($(HARNESS) bases --shell $(ONE_BASE) | sed -n 's/^base_tree=//p') $(if $(PRE)$(POST),$(or $(PRE),-) $(POST),)

## make demo-defects  the kselftests for the review's defects fail on the kernels
##                     they guard against (7.3-rc7, or the series with the defect
##                     put back) and pass on the series (needs make run V=x86_64,
##                     and for its zone and deferred steps make run)
demo-defects:
	@scripts/demo-defects.sh

## make demo-failures [V=x] [DEMOS="a b"]  show that each kind of fault fails
##                     a run, naming it (on the base of V, default x86_64);
##                     DEMOS="leak kasan": a leak and an out-of-bounds read
##                     caught on the debug kernel (x86_64-debug)
demo-failures: deps
	@scripts/demo-failures.sh $(DEMOS)

## make clean          remove build outputs and results (keeps the work trees)
clean:
	rm -rf build/out build/results
