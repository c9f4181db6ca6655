"""Build, boot and test harness for the CMA patch series.

One module per job, in the spirit of tools/testing/kunit:
  variants  - the variant table (configs/variants.ini)
  kconfig   - merge Kconfig fragments and verify the result
  build     - kernel, kselftests and initramfs for one variant
  qemu      - QEMU command line and a boot with a wall-clock limit
  ktap      - parse KTAP/TAP output of run_kselftest.sh
  splat     - find kernel splats in a console log
  results   - per-variant summary and the final "N passed" line
  cli       - the commands the Makefile calls
"""
