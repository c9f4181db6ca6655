"""Statistics of make bench: the median and spread of a figure over a
kernel's runs, the thread counts of a threads benchmark, and how many
boots failed an allocation, with Fisher's exact test between kernels."""
import math
import re
import statistics


def summarise(values):
    """(median, min, max) of @values, or None when empty."""
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def thread_counts(bench):
    """Thread counts of a 'threads' benchmark: its t<N>_allocs_per_s metrics."""
    return sorted(int(m[1:].split('_')[0]) for m in bench.metrics
                  if re.fullmatch(r't\d+_allocs_per_s', m))


def values(runs, kernel, metric):
    return [r['metrics'][metric] for r in runs[kernel]
            if metric in r['metrics'] and not r['problems']]


# What a boot's problems say when the kernel failed an allocation: the
# warn_alloc() report ("page allocation failure") or the OOM killer.
ALLOC_FAILURE_MARKS = ('page allocation failure', 'invoked oom-killer')


def failed_allocation(run):
    """Whether @run's console reported a failed kernel allocation."""
    return any(m in p for p in run['problems'] for m in ALLOC_FAILURE_MARKS)


def failed_atomic(run):
    """Whether @run's GFP_ATOMIC probe counted a failure; None when the
    run has no probe figure (left-out runs keep theirs)."""
    if 'atomic_failed' not in run['metrics']:
        return None
    return run['metrics']['atomic_failed'] > 0


def boots_with(runs, test):
    """(boots where @test holds, boots where @test could tell) over @runs."""
    told = [t for t in (test(r) for r in runs) if t is not None]
    return sum(told), len(told)


def fisher_two_sided(a, n, b, m):
    """Two-sided p of Fisher's exact test: @a of @n boots against @b of @m.

    The probability, with both kernels equally likely to fail, of a split
    of the a+b failures between the two samples at most as likely as the
    one observed (the usual two-sided rule; ties within 1e-9 count)."""
    k, total = a + b, n + m
    if not 0 <= a <= n or not 0 <= b <= m:
        raise ValueError(f'{a} of {n} against {b} of {m}')
    denom = math.comb(total, k)

    def prob(x):
        return math.comb(n, x) * math.comb(m, k - x) / denom
    observed = prob(a)
    lo, hi = max(0, k - m), min(k, n)
    return min(1.0, sum(prob(x) for x in range(lo, hi + 1)
                        if prob(x) <= observed * (1 + 1e-9)))
