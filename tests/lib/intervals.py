"""intervals.py: interval arithmetic shared by the tests' Python reference
scripts (tests/golden/*_check.py, time_reference.py, tests/e2e/diff_explain.py,
tools/crossrank_check.py). Plain lists of [start, end] pairs in whatever unit
the caller reads; none of perfstudy's code or output.

A script imports it with its own folder's path:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
    from intervals import union, measure, covered
"""


def union(iv):
    """The union of the intervals iv: sorted, disjoint [start, end] lists,
    touching intervals merged, empty ones (end <= start) left out."""
    out = []
    for s, e in sorted(tuple(x) for x in iv):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def measure(iv):
    """The summed length of the intervals iv (a union: disjoint)."""
    return sum(e - s for s, e in iv)


def covered(u, lo, hi):
    """Time of [lo, hi] inside the union u."""
    return sum(max(0, min(e, hi) - max(s, lo)) for s, e in u)
