"""The report of make bench: JSON and the plot (matplotlib, when installed)
in bench/results/, Markdown beside the run's logs in
build/results/bench-<name>/report.md."""
import json
import os
import subprocess

from . import benchstats, proc
from .benchtable import BenchError, kernel_variant


def series_description(tree):
    def git(*a):
        return subprocess.run(['git', '-C', tree, *a], capture_output=True,
                              text=True).stdout.strip()
    n = git('rev-list', '--count', 'base..HEAD')
    return f'{git("rev-parse", "--short", "HEAD")} ({n} patches: {git("log", "-1", "--format=%s")})'



def _fmt(x):
    if x is None:
        return '-'
    if abs(x) >= 1000:
        return f'{x:,.0f}'
    if abs(x) >= 10:
        return f'{x:.1f}'
    return f'{x:.3g}'


class DescribedSeries(str):
    """The series as an earlier report described it (series_description()
    of the tree its run built from), for a report rewritten later."""


def make_report(root, bench, runs, cmdlines, base, series):
    """The markdown, JSON data and table of @bench's @runs. @series is the
    work tree the series kernels were built from, or a DescribedSeries."""
    if not isinstance(series, DescribedSeries):
        series = series_description(series)
    ref = bench.kernels[0].name
    table = {}
    for k in bench.kernels:
        for m in bench.metrics:
            vals = [r['metrics'][m] for r in runs[k.name]
                    if m in r['metrics'] and not r['problems']]
            table[(k.name, m)] = benchstats.summarise(vals)
    lines = [f'# Benchmark `{bench.name}`', '', bench.summary, '']
    if bench.notes:
        lines += [bench.notes, '']
    lines += [f'Each kernel booted {bench.runs} times, interleaved; median of the '
              f'runs, spread = min-max, ratio = median / median of `{ref}`. '
              f'Absolute values come from a TCG guest on a shared 2-core '
              f'machine: compare ratios, not seconds.', '']
    if bench.plot == 'threads':
        lines += _threads_table(bench, runs, ref)
    else:
        lines += _metrics_table(bench, runs, table, ref)
    failures = failure_table([k.name for k in bench.kernels], runs, ref)
    if failures:
        lines += ['', f'Boots that failed an allocation (every boot, the runs left out of '
                      f'the medians included; p: two-sided Fisher exact test against `{ref}`):',
                  ''] + failures
    lines += _report_tail(root, bench, runs, cmdlines, base, series)
    data = _report_data(root, bench, runs, cmdlines, base, series)
    return {'markdown': '\n'.join(lines) + '\n', 'data': data, 'table': table}


def _threads_table(bench, runs, ref):
    lines = ['| threads | kernel | allocations/s median (spread) | ratio | '
             'failed allocations (all runs) | busy retries per allocation |',
             '| --- | --- | --- | --- | --- | --- |']
    for t in benchstats.thread_counts(bench):
        r0 = benchstats.summarise(benchstats.values(runs, ref, f't{t}_allocs_per_s'))
        for k in bench.kernels:
            s = benchstats.summarise(benchstats.values(runs, k.name, f't{t}_allocs_per_s'))
            failed = sum(r['metrics'].get(f't{t}_failed', 0) for r in runs[k.name])
            retries = benchstats.summarise(benchstats.values(runs, k.name, f't{t}_retries'))
            lines.append(f'| {t} | `{k.name}` | ' +
                         (f'{_fmt(s[0])} ({_fmt(s[1])}-{_fmt(s[2])})' if s else '-') +
                         ' | ' + (f'{s[0] / r0[0]:.2f}' if s and r0 and r0[0] else '-') +
                         f' | {failed:.0f} | ' + (f'{retries[0]:.3f}' if retries else '-') +
                         ' |')
    return lines


def _metrics_table(bench, runs, table, ref):
    lines = []
    header = '| kernel | runs | ' + ' | '.join(
        f'{m} median (spread) | ratio' for m in bench.metrics) + ' |'
    lines += [header, '|' + ' --- |' * (2 + 2 * len(bench.metrics))]
    for k in bench.kernels:
        ok_runs = sum(1 for r in runs[k.name] if not r['problems'])
        cells = [f'`{k.name}`', f'{ok_runs}/{len(runs[k.name])}']
        for m in bench.metrics:
            s, r0 = table[(k.name, m)], table[(ref, m)]
            if s is None:
                cells += ['-', '-']
                continue
            cells.append(f'{_fmt(s[0])} ({_fmt(s[1])}-{_fmt(s[2])})')
            cells.append(f'{s[0] / r0[0]:.3f}' if r0 and r0[0] else '-')
        lines.append('| ' + ' | '.join(cells) + ' |')
    return lines


# Per-boot failures a report counts: (column title, test of one run).
FAILURE_KINDS = (
    ('boots with a failed kernel allocation reported', benchstats.failed_allocation),
    ('boots with a failed GFP_ATOMIC probe allocation', benchstats.failed_atomic),
)


def failure_table(names, runs, ref):
    """A markdown table counting, per kernel of @names, the boots that failed
    an allocation, with Fisher's exact p against @ref; [] when no boot did.

    Medians leave such boots out, and a count of boots is what compares
    kernels when failures are rare; the p value says whether counts this
    small separate the kernels at all."""
    counts = {n: [benchstats.boots_with(runs[n], test) for _, test in FAILURE_KINDS]
              for n in names}
    shown = [i for i in range(len(FAILURE_KINDS)) if any(counts[n][i][0] for n in names)]
    if not shown:
        return []
    lines = ['| kernel | ' + ' | '.join(f'{FAILURE_KINDS[i][0]} | p' for i in shown) + ' |',
             '|' + ' --- |' * (1 + 2 * len(shown))]
    for n in names:
        cells = [f'`{n}`']
        for i in shown:
            (a, total), (b, ref_total) = counts[n][i], counts[ref][i]
            cells.append(f'{a} of {total}')
            cells.append('-' if n == ref or not total or not ref_total
                         else f'{benchstats.fisher_two_sided(a, total, b, ref_total):.2f}')
        lines.append('| ' + ' | '.join(cells) + ' |')
    return lines


def _results_runs(root, spec):
    """The runs of one kernel in a results file: @spec is NAME:KERNEL or
    NAME@REV:KERNEL, NAME a bench/results/NAME.json (at git commit REV of
    the repository, for a run a later one overwrote)."""
    where, sep, kernel = spec.rpartition(':')
    name, _, rev = where.partition('@')
    if not sep or not name or not kernel:
        raise BenchError(f'{spec!r}: want RESULTS:KERNEL or RESULTS@REV:KERNEL')
    rel = f'bench/results/{name}.json'
    if rev.startswith('-'):
        raise BenchError(f'{spec!r}: {rev!r} is not a commit')
    if rev:
        out = subprocess.run(['git', '-C', root, 'show', f'{rev}:{rel}'],
                             capture_output=True, text=True)
        if out.returncode:
            raise BenchError(f'{spec!r}: {out.stderr.strip()}')
        text = out.stdout
    else:
        try:
            with open(os.path.join(root, rel)) as f:
                text = f.read()
        except OSError as e:
            raise BenchError(f'{spec!r}: {e}') from None
    try:
        kernels = json.loads(text)['kernels']
        runs = kernels[kernel]['runs'] if kernel in kernels else None
    except (ValueError, KeyError, TypeError):
        raise BenchError(f'{spec!r}: {rel} is not a results file of make bench') from None
    if runs is None:
        raise BenchError(f'{spec!r}: {rel} has no kernel {kernel!r} '
                         f'(it has {", ".join(kernels)})')
    return runs


def pooled_failures(root, groups):
    """The failure table of boots pooled over several runs: @groups are
    LABEL=SPEC,SPEC... (SPEC as _results_runs() takes it); the first
    group is the reference of the p values."""
    runs, kernels = {}, []
    for g in groups:
        label, sep, specs = g.partition('=')
        if not sep or not label or not specs:
            raise BenchError(f'{g!r}: want LABEL=RESULTS:KERNEL[,RESULTS:KERNEL...]')
        if label in runs:
            raise BenchError(f'{label!r} is named twice')
        runs[label] = [r for spec in specs.split(',') for r in _results_runs(root, spec)]
        kernels.append(label)
    lines = failure_table(kernels, runs, kernels[0])
    return '\n'.join(lines) if lines else 'no boot of these failed an allocation'


def _workload_source(root, bench):
    for ext in ('.c', '.sh'):
        if os.path.exists(os.path.join(root, 'bench', bench.workload[0] + ext)):
            return 'bench/' + bench.workload[0] + ext
    return 'bench/' + bench.workload[0]


def _left_out_figures(bench, runs):
    """What the runs left out of the medians measured before they went
    wrong: a failure can be the finding (an allocation failure warning on
    the pristine kernel), so its figures stay in the report."""
    lines = []
    for k, rs in runs.items():
        for i, r in enumerate(rs):
            if not r['problems']:
                continue
            shown = [f'{m} {_fmt(r["metrics"][m])}' for m in bench.metrics
                     if m in r['metrics']]
            if shown:
                lines.append(f'- `{k}` run {i + 1} reported: {", ".join(shown)}')
    return lines


def _report_tail(root, bench, runs, cmdlines, base, series):
    lines = []
    problems = [(k, i + 1, p) for k, rs in runs.items() for i, r in enumerate(rs)
                for p in r['problems']]
    if problems:
        lines += ['', 'Runs left out of the medians:', '']
        lines += [f'- `{k}` run {i}: {p}' for k, i, p in problems]
        lines += _left_out_figures(bench, runs)
    lines += ['', '## How it was run', '',
              f'- base: {base.commit_message} (tag `base` of `{base.tree}`)',
              f'- series: {series}',
              f'- workload: `{" ".join(bench.workload)}` ({_workload_source(root, bench)})' +
              (f', zram swap {bench.zram}' if bench.zram else ''),
              f'- reproduce: `{bench.reproduce or f"make bench B={bench.name}"}`', '']
    for k in bench.kernels:
        v = kernel_variant(bench, k)
        lines.append(f'- `{k.name}`: tree `{k.tree}`' +
                     (f' + {", ".join(k.patches)}' if k.patches else '') +
                     f', configs/ {" + ".join(v.fragments)} on tinyconfig')
        lines.append(f'  - `{proc.shell_line(cmdlines.get(k.name, []), root)}`')
    return lines


def _relative(argv, root):
    """@argv with the repository's paths relative to @root, for the JSON."""
    prefix = root.rstrip('/') + '/'
    return None if argv is None else [str(a).replace(prefix, '') for a in argv]


def _report_data(root, bench, runs, cmdlines, base, series):
    return {'benchmark': bench.name, 'workload': list(bench.workload),
            'zram': bench.zram, 'base': base.commit_message,
            'series': series,
            'kernels': {k.name: {'tree': k.tree,
                                 'fragments': list(kernel_variant(bench, k).fragments),
                                 'qemu': _relative(cmdlines.get(k.name), root),
                                 'runs': [{'metrics': r['metrics'],
                                           'problems': r['problems'],
                                           'samples': r['samples'],
                                           'wall_s': r['wall_s']}
                                          for r in runs[k.name]]}
                        for k in bench.kernels}}


def plot(bench, runs, path):
    """Write the benchmark's plot; return None, or why there is none."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return 'python3-matplotlib is not installed (make bench installs it)'
    names = [k.name for k in bench.kernels]
    if bench.plot == 'threads':
        return _plot_threads(plt, bench, runs, names, path)
    metrics = list(bench.metrics)
    memory = bench.plot == 'memory'
    ncols = len(metrics) + (1 if memory else 0)
    fig, axes = plt.subplots(1, ncols, figsize=(3.2 * ncols + 1, 3.8), squeeze=False)
    axes = axes[0]
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    if memory:
        ax = axes[0]
        for i, n in enumerate(names):
            good = [r for r in runs[n] if r['samples'] and not r['problems']]
            if not good:
                continue
            med = sorted(good, key=lambda r: r['metrics'].get(metrics[0], 0))[len(good) // 2]
            t = [s.get('t', 0) for s in med['samples']]
            ax.plot(t, [s.get('MemFree', 0) / 1024 for s in med['samples']],
                    color=colours[i % len(colours)], label=f'{n} free')
            if any(s.get('CmaTotal', 0) for s in med['samples']):
                ax.plot(t, [s.get('CmaFree', 0) / 1024 for s in med['samples']],
                        color=colours[i % len(colours)], linestyle='--',
                        label=f'{n} free CMA')
        ax.set_xlabel('seconds into the workload (median run)')
        ax.set_ylabel('MiB')
        ax.set_title('free memory')
        ax.legend(fontsize=7)
        axes = axes[1:]
    for ax, m in zip(axes, metrics):
        meds, lo, hi = [], [], []
        for n in names:
            vals = [r['metrics'][m] for r in runs[n] if m in r['metrics'] and not r['problems']]
            s = benchstats.summarise(vals) or (0, 0, 0)
            meds.append(s[0])
            lo.append(s[0] - s[1])
            hi.append(s[2] - s[0])
        ax.bar(range(len(names)), meds, yerr=[lo, hi], capsize=4,
               color=[colours[i % len(colours)] for i in range(len(names))])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20, ha='right', fontsize=8)
        better = 'lower' if m in bench.lower_is_better else 'higher'
        ax.set_title(f'{m} ({better} is better)', fontsize=9)
    fig.suptitle(f'{bench.name}: median of {bench.runs} runs, bars = min-max', fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return None


def _plot_threads(plt, bench, runs, names, path):
    counts = benchstats.thread_counts(bench)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    for i, n in enumerate(names):
        for ax, metric, label in ((axes[0], 'allocs_per_s', 'allocations per second'),
                                  (axes[1], 'failed', 'failed allocations per run'),
                                  (axes[2], 'retries', 'busy retries per allocation')):
            xs, med, lo, hi = [], [], [], []
            for t in counts:
                s = benchstats.summarise(benchstats.values(runs, n, f't{t}_{metric}'))
                if s:
                    xs.append(t)
                    med.append(s[0])
                    lo.append(s[0] - s[1])
                    hi.append(s[2] - s[0])
            if xs:
                ax.errorbar(xs, med, yerr=[lo, hi], marker='o', capsize=3, label=n,
                            color=colours[i % len(colours)])
            ax.set_xscale('log', base=2)
            ax.set_xticks(counts)
            ax.set_xticklabels([str(c) for c in counts])
            ax.set_xlabel('threads')
            ax.set_title(label, fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f'{bench.name}: median of {bench.runs} runs, bars = min-max', fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return None


def replot(bench, json_path, png_path):
    """Draw @bench's plot again from its results file (no boots)."""
    with open(json_path) as f:
        data = json.load(f)
    runs = {name: [dict(r, samples=r.get('samples', [])) for r in k['runs']]
            for name, k in data['kernels'].items()}
    missing = [k.name for k in bench.kernels if k.name not in runs]
    if missing:
        raise BenchError(f'{json_path} has no runs of {", ".join(missing)}')
    return plot(bench, runs, png_path)
