#!/usr/bin/python3
"""Writes py_sets.txt: CPython set iteration orders the C++ PyIntSet must reproduce.

Each line:  <op> <inputs> = <iteration order of the result>
  add a b c ...        = s = set(); s.add(a); s.add(b); ...; list(s)
  union A / B / C      = r = set(); r |= set(A); r |= set(B); r |= set(C); list(r)
where A, B, C are insertion orders (each set built by add).
"""
import random

rng = random.Random(2024)
lines = []
for _ in range(400):
    n = rng.choice([1, 2, 3, 4, 5, 6, 8, 12, 20, 40, 70])
    hi = rng.choice([16, 64, 512, 4096, 100000])
    xs = [rng.randrange(hi) for _ in range(n)]
    if rng.random() < 0.3:
        xs.sort()
    s = set()
    for x in xs:
        s.add(x)
    lines.append("add %s = %s" % (" ".join(map(str, xs)), " ".join(map(str, s))))
for _ in range(200):
    parts = []
    for _ in range(rng.choice([2, 3])):
        hi = rng.choice([16, 64, 512, 4096])
        xs = [rng.randrange(hi) for _ in range(rng.choice([1, 2, 4, 7, 16, 33]))]
        parts.append(xs)
    r = set()
    for xs in parts:
        s = set()
        for x in xs:
            s.add(x)
        r |= s
    lines.append("union %s = %s" % (" / ".join(" ".join(map(str, p)) for p in parts),
                                     " ".join(map(str, r))))
with open("py_sets.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
