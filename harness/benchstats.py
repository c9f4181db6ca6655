"""Statistics of make bench: the median and spread of a figure over a
kernel's runs, and the thread counts of a threads benchmark."""
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
