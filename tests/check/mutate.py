#!/usr/bin/env python3
"""A C compiler wrapper for the checker's mutation tests: `moac check --cc "mutate.py MUTANT CC"`.

moac check runs `CC -std=c99 ... DIR/KERNEL.c DIR/harness.c libmoart.a -lm -o DIR/harness`; this script
breaks the kernel (or what the harness keeps of its outputs) the way MUTANT says, then runs CC with the
same arguments. Every mutant is a bug a lowering could make:
  zeros  every output element 0 (the harness overwrites the outputs after the kernel returns)
  one    one output element (the middle one) takes its neighbour's value: a wrong index for one element
  perm   every output element takes its successor's value: an off-by-one permutation
  sign   the last accumulation of an input or temporary subtracts its terms: a sign flip
  drop   the first (or, with MUTANT drop-last, the last) accumulation skips its term 0: a dropped term
  stale  the last combine of partials (stale-first: the first) reads partial 0 where partial 1 belongs: a
         stale partial (needs a split reduction, P > 1)
A mutant that finds nothing to break is an error (exit 3): a test that cannot fail is no test.
"""
import os
import re
import subprocess
import sys

# `X = X + E;`, `X = (X + E);`, and the online softmax's rescaled `X = ((X * scale) + E);`
ACCUMULATE = re.compile(r"(\w+(?:\[[^\]]*\])?) =\s*(\(*)\s*\1(?: \* \w+\))? \+ ", re.S)
FOR_VAR = re.compile(r"for \(int64_t (\w+) = ")


def fail(message):
    sys.stderr.write("mutate.py: %s\n" % message)
    sys.exit(3)


def statements(text):
    """Accumulations `X = X + E;` / `X = (X + E);` / `X = ((X * s) + E);`: (start, end of statement,
    target, term text)."""
    for m in ACCUMULATE.finditer(text):
        end = text.index(";", m.end())
        yield m.start(), end, m.group(1), text[m.end():end]


def block_end(text, brace):
    """The index of the '}' that closes the '{' at `brace`."""
    depth = 0
    for k in range(brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return len(text)


def enclosing_var(text, start, avoid):
    """The nearest loop variable whose loop body holds `start` and that does not index `avoid` (the
    reduction's loop); loops that closed before `start` do not count."""
    for m in reversed(list(FOR_VAR.finditer(text[:start]))):
        var = m.group(1)
        if block_end(text, text.index("{", m.end())) > start and not re.search(r"\b%s\b" % var, avoid):
            return var
    return None


def innermost_loop(text, start):
    """The header `for (...)` of the innermost loop whose body holds `start`, or ""."""
    for m in reversed(list(FOR_VAR.finditer(text[:start]))):
        brace = text.index("{", m.end())
        if block_end(text, brace) > start:
            return text[m.start():brace]
    return ""


def mutate_kernel(text, mutant):
    accs = list(statements(text))
    # A sum run as interleaved accumulators (docs/schedule.md, lanes) adds its whole rounds of terms in a
    # loop stepping by the constant lanes, which runs no round for an extent below them, and its remaining
    # terms in a loop stepping by 1: the term to drop is one that no loop stepping by a constant adds.
    direct = [a for a in accs if "_part[" not in a[3] and "_group[" not in a[3]
              and not re.search(r"\+= \d+\)", innermost_loop(text, a[0]))]
    combines = [a for a in accs if "_part[" in a[3]]
    if mutant in ("drop", "drop-last", "sign"):
        if not direct:
            fail("no accumulation to break")
        start, end, target, _ = direct[0] if mutant == "drop" else direct[-1]
        if mutant == "sign":
            plus = text.index(" + ", text.index(target, start) + len(target) + 1)
            return text[:plus] + " - " + text[plus + 3:]
        var = enclosing_var(text, start, target)
        if var is None:
            fail("no reduction loop around the accumulation")
        return text[:start] + "if (%s != 0) " % var + text[start:]
    if mutant in ("stale", "stale-first"):
        if not combines:
            fail("no combine of partials to break")
        start, end, target, term = combines[0] if mutant == "stale-first" else combines[-1]
        var = FOR_VAR.findall(text[:start])[-1]
        stale = re.sub(r"\b%s\b" % var, "(%s == 1 ? 0 : %s)" % (var, var), term)
        return text[:end - len(term)] + stale + text[end:]
    fail("unknown kernel mutant '%s'" % mutant)


def mutate_harness(text, mutant):
    outputs = re.findall(r"moart_array (\w+)_out;", text)
    # the kernel call, in its block (the OpenACC data region's): `{ status = K(...); }` on one line or three
    call = re.search(r"\{\s*status =\s[^;]*;\s*\}\n", text)
    if not outputs or not call:
        fail("no outputs or no kernel call in the harness")
    code = ""
    for name in outputs:
        a = "%s_out" % name
        if mutant == "zeros":
            code += "  memset(%s.data, 0, (size_t)%s.count * moart_dtype_size(%s.dtype));\n" % (a, a, a)
        else:
            size = "moart_dtype_size(%s.dtype)" % a
            first = "(size_t)(%s.count / 2)" % a if mutant == "one" else "0"
            last = "(size_t)(%s.count / 2 + 2)" % a if mutant == "one" else "(size_t)%s.count" % a
            code += ("  for (size_t i = %s; i + 1 < %s; ++i)\n"
                     "    memcpy((char *)%s.data + i * %s, (char *)%s.data + (i + 1) * %s, %s);\n"
                     % (first, last, a, size, a, size, size))
    return text[:call.end()] + code + text[call.end():]


def main():
    if len(sys.argv) < 3:
        fail("usage: mutate.py MUTANT CC ARGS...")
    mutant, cc, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    sources = [a for a in args if a.endswith(".c")]
    harness = [a for a in sources if os.path.basename(a) == "harness.c"]
    kernel = [a for a in sources if os.path.basename(a) != "harness.c"]
    if len(harness) != 1 or len(kernel) != 1:
        fail("expected one kernel and harness.c among %s" % sources)
    path = harness[0] if mutant in ("zeros", "one", "perm") else kernel[0]
    with open(path) as f:
        text = f.read()
    text = mutate_harness(text, mutant) if path == harness[0] else mutate_kernel(text, mutant)
    with open(path, "w") as f:
        f.write(text)
    sys.exit(subprocess.call([cc] + args))


if __name__ == "__main__":
    main()
