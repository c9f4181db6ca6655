"""Where things are: the repository, configs/, build/.

HARNESS_VARIANTS names another variant table; HARNESS_TREE and HARNESS_OUT
point one run at another work tree (a git worktree of one of the bases',
say) and its own build directories.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, 'configs')
VARIANTS_INI = os.environ.get('HARNESS_VARIANTS') or os.path.join(CONFIGS, 'variants.ini')
BASES_INI = os.path.join(CONFIGS, 'bases.ini')
MATRIX_INI = os.path.join(CONFIGS, 'matrix.ini')
BENCH_INI = os.path.join(ROOT, 'bench', 'benchmarks.ini')
BENCH_RESULTS = os.path.join(ROOT, 'bench', 'results')
FIGURES_INI = os.path.join(ROOT, 'bench', 'figures.ini')
TREE_OVERRIDE = os.environ.get('HARNESS_TREE')
OUT = os.environ.get('HARNESS_OUT') or os.path.join(ROOT, 'build', 'out')
RESULTS = os.path.join(ROOT, 'build', 'results')
CACHE = os.path.join(ROOT, 'build', 'cache')
SERIES_SH = os.path.join(ROOT, 'scripts', 'series.sh')
CHECKPATCH_ALLOW = os.path.join(ROOT, 'series', 'checkpatch-allowlist')


def bench_logs(name, root=ROOT):
    """build/results/bench-<name>/ under @root: the last run of benchmark
    @name (make bench, soak, fault-inject, mm-selftests): its build.log,
    console logs and Markdown report (BENCH_REPORT). bench/results/ keeps
    only what the run measured (<name>.json) and its plot."""
    return os.path.join(root, 'build', 'results', 'bench-' + name)


BENCH_REPORT = 'report.md'
