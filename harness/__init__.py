"""Build, boot and test harness for the CMA patch series.

One job per module, in the spirit of tools/testing/kunit:
  cli          the commands' arguments and a table from name to handler
  paths        where things are: the repository, configs/, build/
  ini          the one reader of the INI tables
  bases        the kernel bases (configs/bases.ini)
  arches       the arch table: toolchain, image, QEMU facts, base fragments;
               compose() builds every kernel's fragment list
  variants     the variant table (configs/variants.ini)
  acpi         an ACPI SRAT for a variant's guest, handed over in the initramfs
  matrix       make check's Kconfig matrix (configs/matrix.ini)
  kconfig      read Kconfig fragments and verify a .config honours them
  build        the one configure path; kernel, kselftests, initramfs
  proc         a logged subprocess, a scratch git worktree, reproduce lines
  qemu         QEMU command line and a boot with a wall-clock limit
  boot         the one boot of a kernel to test or measure it: QEMU, the
               console log, console.judge()'s judgement (make run, make test,
               make bench and the commands built on it, make bad-input)
  console      split a guest's console (KTAP, bench lines, kernel lines);
               judge a boot (every command's one judgement); a test boot's
               results
  ktap         parse KTAP/TAP output of run_kselftest.sh
  splat        find kernel splats in a console log
  results      a variant's Summary and its JSON file
  printer      every progress and result line the harness prints
  pipeline     the per-variant pipeline of make run and make test
  checks       the harness's own tests and checkpatch
  diagnostics  make check's parsers: warnings, diffs, C definitions
  zoneaudit    every use of ZONE_MOVABLE in a series' tree is a reviewed one
  gates        make check's gates (runners)
  bench        make bench: the command (list, replot, report, failures, runs);
               run_logs() for the commands built on it (soak, mm-selftests)
  benchtable   make bench: the benchmark table (bench/benchmarks.ini), like =,
               the kernels and their trees (pristine or series)
  benchbuild   make bench: worktrees, kernels, initramfs, disk image, plugin
  benchrun     make bench: boot the kernels interleaved, collect the figures
  benchstats   make bench: median and spread of the runs
  benchreport  make bench: Markdown, JSON and plot
  figures      the figures the README, cover letter and commit messages quote,
               computed from bench/results (bench/figures.ini); gate figures
  badinput     make bad-input: the rows of configs/bad-input.ini
  mmcompare    make mm-selftests: mainline's mm kselftests, 7.3-rc7 vs series
  soak         make soak and make fault-inject: churn, stress, nothing lost
"""
