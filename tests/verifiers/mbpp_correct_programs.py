"""Correct programs for the MBPP problems shipped in `tests/data/mbpp_rows.jsonl`, written for these tests
independently of MBPP's reference solutions, several styles per problem (a loop, a comprehension, the
standard library, recursion...).

They are the false-negative measure of the hidden tests: every one must pass its problem's official,
challenge and hidden tests. They are never shown to the generator (the generator's own known-correct
programs are `rlvr_core/data/sources/mbpp_known_correct.py`, written apart from these), so a hidden test
that pins a reference's bug fails here.
"""

PROGRAMS: dict[int, tuple[str, ...]] = {
    2: (
        "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b)))\n",
        "def similar_elements(a, b):\n    common = []\n    for x in a:\n        if x in b and x not in common:\n"
        "            common.append(x)\n    common.sort()\n    return tuple(common)\n",
    ),
    3: (
        "def is_not_prime(n):\n    if n < 2:\n        return True\n"
        "    return any(n % d == 0 for d in range(2, int(n ** 0.5) + 1))\n",
        "def is_not_prime(n):\n    if n < 2:\n        return True\n    d = 2\n    while d * d <= n:\n"
        "        if n % d == 0:\n            return True\n        d += 1\n    return False\n",
        "def is_not_prime(n, d=2):\n    if n < 2:\n        return True\n    if d * d > n:\n        return False\n"
        "    return n % d == 0 or is_not_prime(n, d + 1)\n",
    ),
    4: (
        "def heap_queue_largest(nums, n):\n    return sorted(nums, reverse=True)[:n]\n",
        "def heap_queue_largest(nums, n):\n    rest = list(nums)\n    out = []\n    for _ in range(min(n, len(rest))):\n"
        "        big = max(rest)\n        rest.remove(big)\n        out.append(big)\n    return out\n",
    ),
    7: (
        "import re\ndef find_char_long(text):\n    return [w for w in re.findall(r'\\w+', text) if len(w) >= 4]\n",
        "def find_char_long(text):\n    words, word = [], ''\n    for c in text + ' ':\n        if c.isalnum() or c == '_':\n"
        "            word += c\n        else:\n            if len(word) >= 4:\n                words.append(word)\n"
        "            word = ''\n    return words\n",
    ),
    9: (
        "def find_Rotations(s):\n    for i in range(1, len(s) + 1):\n        if s[i:] + s[:i] == s:\n            return i\n"
        "    return len(s)\n",
        "def find_Rotations(s):\n    return (s + s).find(s, 1)\n",
    ),
    11: (
        "def remove_Occ(s, ch):\n    i = s.find(ch)\n    if i < 0:\n        return s\n    s = s[:i] + s[i + 1:]\n"
        "    j = s.rfind(ch)\n    return s if j < 0 else s[:j] + s[j + 1:]\n",
        "def remove_Occ(s, ch):\n    where = [k for k, c in enumerate(s) if c == ch]\n"
        "    drop = {where[0], where[-1]} if where else set()\n"
        "    return ''.join(c for k, c in enumerate(s) if k not in drop)\n",
    ),
    12: (
        "def sort_matrix(M):\n    return sorted(M, key=lambda row: sum(row))\n",
        "def sort_matrix(M):\n    out = []\n    for row in M:\n        k = len(out)\n"
        "        while k > 0 and sum(out[k - 1]) > sum(row):\n            k -= 1\n        out.insert(k, row)\n    return out\n",
    ),
    14: (
        "def find_Volume(l, b, h):\n    return l * b * h / 2\n",
        "def find_Volume(l, b, h):\n    base = l * b / 2\n    return base * h\n",
    ),
    16: (
        "import re\ndef text_lowercase_underscore(text):\n"
        "    return 'Found a match!' if re.fullmatch('[a-z]+_[a-z]+', text) else 'Not matched!'\n",
        "def text_lowercase_underscore(text):\n    parts = text.split('_')\n"
        "    ok = len(parts) == 2 and all(p and all('a' <= c <= 'z' for c in p) for p in parts)\n"
        "    return 'Found a match!' if ok else 'Not matched!'\n",
    ),
    18: (
        "def remove_dirty_chars(string, second_string):\n    return ''.join(c for c in string if c not in second_string)\n",
        "def remove_dirty_chars(string, second_string):\n    bad = set(second_string)\n    out = ''\n    for c in string:\n"
        "        if c not in bad:\n            out += c\n    return out\n",
    ),
    20: (
        "def is_woodall(x):\n    n = 1\n    while n * 2 ** n - 1 < x:\n        n += 1\n    return n * 2 ** n - 1 == x\n",
        "def is_woodall(x):\n    return any(k * 2 ** k - 1 == x for k in range(1, x.bit_length() + 2))\n",
    ),
    22: (
        "def find_first_duplicate(nums):\n    for i, x in enumerate(nums):\n        if x in nums[:i]:\n            return x\n"
        "    return -1\n",
        "def find_first_duplicate(nums):\n    seen = {}\n    for x in nums:\n        if seen.get(x):\n            return x\n"
        "        seen[x] = True\n    return -1\n",
    ),
    23: (
        "def maximum_Sum(list1):\n    return max(sum(x) for x in list1)\n",
        "def maximum_Sum(list1):\n    best = None\n    for row in list1:\n        total = 0\n        for v in row:\n"
        "            total += v\n        if best is None or total > best:\n            best = total\n    return best\n",
    ),
    24: (
        "def binary_to_decimal(binary):\n    return int(str(binary), 2)\n",
        "def binary_to_decimal(binary):\n    value = 0\n    for digit in str(binary):\n        value = value * 2 + int(digit)\n"
        "    return value\n",
    ),
    40: (
        "from collections import Counter\ndef freq_element(nums):\n    return Counter(x for row in nums for x in row)\n",
        "def freq_element(nums):\n    counts = {}\n    for row in nums:\n        for x in row:\n"
        "            counts[x] = counts.get(x, 0) + 1\n    return counts\n",
    ),
    45: (
        "import math\nfrom functools import reduce\ndef get_gcd(l):\n    return reduce(math.gcd, l)\n",
        "def get_gcd(l):\n    g = l[0]\n    for x in l[1:]:\n        a, b = g, x\n        while b:\n            a, b = b, a % b\n"
        "        g = a\n    return g\n",
    ),
    50: (
        "def min_length_list(input_list):\n    shortest = min(input_list, key=len)\n    return (len(shortest), shortest)\n",
        "def min_length_list(input_list):\n    best = input_list[0]\n    for x in input_list[1:]:\n        if len(x) < len(best):\n"
        "            best = x\n    return len(best), best\n",
    ),
    53: (
        "def check_Equality(s):\n    return 'Equal' if s[0] == s[-1] else 'Not Equal'\n",
        "def check_Equality(s):\n    if s[:1] == s[-1:]:\n        return 'Equal'\n    return 'Not Equal'\n",
    ),
    126: (
        "import math\ndef sum(a, b):\n    g = math.gcd(a, b)\n    total = 0\n    for d in range(1, g + 1):\n        if g % d == 0:\n"
        "            total += d\n    return total\n",
        "def sum(a, b, d=1):\n    if d > min(a, b):\n        return 0\n"
        "    return (d if a % d == 0 and b % d == 0 else 0) + sum(a, b, d + 1)\n",
    ),
    132: (
        "def tup_string(tup1):\n    return ''.join(tup1)\n",
        "def tup_string(tup1):\n    out = ''\n    for c in tup1:\n        out += c\n    return out\n",
    ),
    140: (
        "def extract_singly(test_list):\n    return list(dict.fromkeys(x for t in test_list for x in t))\n",
        "def extract_singly(test_list):\n    out = []\n    for t in test_list:\n        for x in t:\n            if x not in out:\n"
        "                out.append(x)\n    return out\n",
    ),
    145: (
        "def max_Abs_Diff(arr, n):\n    return max(arr) - min(arr)\n",
        "def max_Abs_Diff(arr, n):\n    return max(abs(a - b) for a in arr for b in arr)\n",
    ),
    529: (
        "def jacobsthal_lucas(n):\n    a, b = 2, 1\n    for _ in range(n):\n        a, b = b, b + 2 * a\n    return a\n",
        "def jacobsthal_lucas(n):\n    return 2 ** n + (-1) ** n\n",
    ),
    533: (
        "def remove_datatype(test_tuple, data_type):\n    return [x for x in test_tuple if not isinstance(x, data_type)]\n",
        "def remove_datatype(test_tuple, data_type):\n    return list(filter(lambda x: not isinstance(x, data_type), test_tuple))\n",
    ),
    537: (
        "def first_repeated_word(str1):\n    words = str1.split()\n    for i, w in enumerate(words):\n        if w in words[:i]:\n"
        "            return w\n    return 'None'\n",
        "def first_repeated_word(str1):\n    seen = set()\n    for w in str1.split():\n        if w in seen:\n            return w\n"
        "        seen.add(w)\n    return 'None'\n",
    ),
    558: (
        "def digit_distance_nums(n1, n2):\n    return sum(int(d) for d in str(abs(n1 - n2)))\n",
        "def digit_distance_nums(n1, n2):\n    n, total = abs(n1 - n2), 0\n    while n:\n        total += n % 10\n        n //= 10\n"
        "    return total\n",
    ),
    597: (
        "def find_kth(arr1, arr2, m, n, k):\n    return sorted(arr1 + arr2)[k - 1]\n",
        "import heapq\nfrom itertools import islice\ndef find_kth(arr1, arr2, m, n, k):\n"
        "    return next(islice(heapq.merge(arr1, arr2), k - 1, None))\n",
    ),
    602: (
        "def first_repeated_char(str1):\n    seen = set()\n    for c in str1:\n        if c in seen:\n            return c\n"
        "        seen.add(c)\n    return 'None'\n",
        "def first_repeated_char(str1):\n    for i, c in enumerate(str1):\n        if c in str1[:i]:\n            return c\n"
        "    return 'None'\n",
    ),
    604: (
        "def reverse_words(s):\n    return ' '.join(s.split()[::-1])\n",
        "def reverse_words(s):\n    out = []\n    for word in s.split():\n        out.insert(0, word)\n    return ' '.join(out)\n",
    ),
    605: (
        "def prime_num(num):\n    if num < 2:\n        return False\n    for d in range(2, int(num ** 0.5) + 1):\n"
        "        if num % d == 0:\n            return False\n    return True\n",
        "def prime_num(num):\n    return num > 1 and all(num % d for d in range(2, num))\n",
    ),
    608: (
        "def bell_Number(n):\n    row = [1]\n    for _ in range(n):\n        new = [row[-1]]\n        for x in row:\n"
        "            new.append(new[-1] + x)\n        row = new\n    return row[0]\n",
        "from math import comb\ndef bell_Number(n):\n    bell = [1]\n    for m in range(n):\n"
        "        bell.append(sum(comb(m, k) * bell[k] for k in range(m + 1)))\n    return bell[n]\n",
    ),
    611: (
        "def max_of_nth(test_list, N):\n    return max(t[N] for t in test_list)\n",
        "def max_of_nth(test_list, N):\n    best = test_list[0][N]\n    for t in test_list:\n        if t[N] > best:\n"
        "            best = t[N]\n    return best\n",
    ),
    616: (
        "def tuple_modulo(test_tup1, test_tup2):\n    return tuple(a % b for a, b in zip(test_tup1, test_tup2))\n",
        "def tuple_modulo(test_tup1, test_tup2):\n    out = []\n    for i in range(len(test_tup1)):\n"
        "        out.append(test_tup1[i] % test_tup2[i])\n    return tuple(out)\n",
    ),
    619: (
        "def move_num(test_str):\n    return ''.join(c for c in test_str if not c.isdigit()) + "
        "''.join(c for c in test_str if c.isdigit())\n",
        "import re\ndef move_num(test_str):\n    return re.sub(r'\\d', '', test_str) + ''.join(re.findall(r'\\d', test_str))\n",
    ),
    632: (
        "def move_zero(num_list):\n    return [x for x in num_list if x != 0] + [0] * num_list.count(0)\n",
        "def move_zero(num_list):\n    return sorted(num_list, key=lambda x: x == 0)\n",
    ),
    644: (
        "def reverse_Array_Upto_K(input, k):\n    return input[:k][::-1] + input[k:]\n",
        "def reverse_Array_Upto_K(input, k):\n    return list(reversed(input[:k])) + list(input[k:])\n",
    ),
    646: (
        "def No_of_cubes(N, K):\n    return (N - K + 1) ** 3\n",
        "def No_of_cubes(N, K):\n    per_side = max(N - K + 1, 0)\n    return per_side * per_side * per_side\n",
    ),
    648: (
        "def exchange_elements(lst):\n    return [lst[i ^ 1] for i in range(len(lst))]\n",
        "def exchange_elements(lst):\n    out = list(lst)\n    for i in range(0, len(out) - 1, 2):\n"
        "        out[i], out[i + 1] = out[i + 1], out[i]\n    return out\n",
    ),
    650: (
        "def are_Equal(arr1, arr2, n, m):\n    return n == m and sorted(arr1) == sorted(arr2)\n",
        "from collections import Counter\ndef are_Equal(arr1, arr2, n, m):\n"
        "    return n == m and Counter(arr1[:n]) == Counter(arr2[:m])\n",
    ),
    651: (
        "def check_subset(test_tup1, test_tup2):\n    return all(x in test_tup1 for x in test_tup2)\n",
        "def check_subset(test_tup1, test_tup2):\n    return set(test_tup2) <= set(test_tup1)\n",
    ),
    653: (
        "def grouping_dictionary(l):\n    out = {}\n    for k, v in l:\n        out.setdefault(k, []).append(v)\n    return out\n",
        "def grouping_dictionary(l):\n    out = {}\n    for k, v in l:\n        if k in out:\n            out[k] = out[k] + [v]\n"
        "        else:\n            out[k] = [v]\n    return out\n",
    ),
    662: (
        "def sorted_dict(dict1):\n    return {k: sorted(v) for k, v in dict1.items()}\n",
        "def sorted_dict(dict1):\n    out = dict()\n    for key in dict1:\n        values = list(dict1[key])\n        values.sort()\n"
        "        out[key] = values\n    return out\n",
    ),
    666: (
        "def count_char(string, char):\n    return string.count(char)\n",
        "def count_char(string, char):\n    return sum(1 for c in string if c == char)\n",
    ),
    667: (
        "def Check_Vow(string, vowels):\n    return sum(c in vowels for c in string)\n",
        "def Check_Vow(string, vowels):\n    count = 0\n    for c in string:\n        if vowels.find(c) >= 0:\n            count += 1\n"
        "    return count\n",
    ),
    670: (
        "def decreasing_trend(nums):\n    return all(a <= b for a, b in zip(nums, nums[1:]))\n",
        "def decreasing_trend(nums):\n    return list(nums) == sorted(nums)\n",
    ),
}
