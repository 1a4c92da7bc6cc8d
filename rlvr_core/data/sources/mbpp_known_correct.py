"""Programs known to solve MBPP problems whose reference solution is wrong on inputs inside the task.

The hidden-test generator (`verifiers/code/hidden.py`) keeps a hidden test only if each program listed for
its problem passes it, so a reference's bug never becomes a test. Each program passes its problem's own
tests (checked when the hidden tests are generated, and by `tests/data/test_mbpp_hidden_tests.py`).
Keyed by MBPP `task_id` as a string. Written for this project; changing this table changes the dataset's
derivation version, so cached hidden tests are generated again.
"""

from __future__ import annotations

import hashlib
import json

KNOWN_CORRECT: dict[str, tuple[str, ...]] = {
    # is_not_prime: the reference answers False for 0 and 1.
    "3": ("def is_not_prime(n):\n    return n < 2 or any(n % k == 0 for k in range(2, n))\n",),
    # sum of common divisors: the reference's range(1, min(a, b)) leaves out min(a, b) when it divides both.
    "126": ("def sum(a, b):\n    total = 0\n    for d in range(1, min(a, b) + 1):\n        if a % d == 0 and b % d == 0:\n"
            "            total += d\n    return total\n",),
    # prime_num: the reference answers after trying 2 only (odd composites are "prime"), None below 5.
    "605": ("def prime_num(num):\n    if num < 2:\n        return False\n    k = 2\n    while k * k <= num:\n"
            "        if num % k == 0:\n            return False\n        k += 1\n    return True\n",),
    # are_Equal: the reference compares all but the last element after sorting.
    "650": ("def are_Equal(arr1, arr2, n, m):\n    if n != m:\n        return False\n"
            "    return all(x == y for x, y in zip(sorted(arr1), sorted(arr2)))\n",),
}


def known_correct_digest() -> str:
    """A short hash of the table: part of the hidden tests' derivation version."""
    return hashlib.sha256(json.dumps(KNOWN_CORRECT, sort_keys=True).encode()).hexdigest()[:12]
