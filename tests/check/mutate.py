#!/usr/bin/env python3
"""A C compiler wrapper for the checker's mutation tests: `moac check --cc "mutate.py MUTANT CC"`.

moac check runs `CC -std=c99 ... DIR/KERNEL.c DIR/harness.c libmoart.a -lm -o DIR/harness`; this script
breaks the kernel (or what the harness keeps of its outputs) the way MUTANT says, then runs CC with the
same arguments. Every mutant is a bug a lowering could make:
  zeros  every output element 0 (the harness overwrites the outputs after the kernel returns)
  one    one output element (the middle one) takes its neighbour's value: a wrong index for one element
  perm   every output element takes its successor's value: an off-by-one permutation
  sign   the last accumulation of an input or temporary subtracts its terms: a sign flip
  drop   the first (or, with MUTANT drop-last, the last) accumulation skips its loop's first term: a
         dropped term (sign and drop-last: in a tiled split pass, both copies of the sum, the whole tiles'
         and the cut tile's)
  stale  the last combine of partials (stale-first: the first) reads partial 0 where partial 1 belongs,
         with any factor its loop computes for that partial: a stale partial (needs a split reduction, P > 1)
A mutant that finds nothing to break is an error (exit 3): a test that cannot fail is no test.
"""
import os
import re
import subprocess
import sys

# `X = X + E;`, `X = (X + E);`, and the online softmax's rescaled `X = ((X * scale) + E);` (a line may break
# after the +)
ACCUMULATE = re.compile(r"(\w+(?:\[[^\]]*\])?) =\s*(\(*)\s*\1(?: \* \w+\))? \+\s", re.S)
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
    reduction's loop), with its first value's text; loops that closed before `start` do not count."""
    for m in reversed(list(FOR_VAR.finditer(text[:start]))):
        var = m.group(1)
        if block_end(text, text.index("{", m.end())) > start and not re.search(r"\b%s\b" % var, avoid):
            return var, text[m.end():text.index(";", m.end())]
    return None, None


def block_start(text, close):
    """The index of the '{' that the '}' at `close` closes."""
    depth = 0
    for k in range(close, -1, -1):
        depth += {"}": 1, "{": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return 0


def copies(text, acc, direct):
    """A tiled split pass (docs/schedule.md, tile) adds a sum in two places: in its whole tiles, and, in the
    `else` of their guard, in a tile cut by the terms' end; either may never run (n a multiple of the tile,
    or fewer terms than a tile). For an accumulation in such an `else`: the same sum's last accumulation in
    the guard's other branch, and `acc`; else `acc` alone."""
    start, target = acc[0], acc[2]
    for m in reversed(list(re.finditer(r"\} else \{", text[:start]))):
        if block_end(text, m.end() - 1) > start:
            opened = block_start(text, m.start())
            then = [a for a in direct if a[2] == target and opened < a[0] < m.start()]
            return then[-1:] + [acc]
    return [acc]


def first_term(text, at, target):
    """The condition that holds at the first term of the loop around `at` that does not index `target`: its
    variable at its first value, and, where that first value is an enclosing loop's variable (a tile's first
    row l0), that loop's at its own first value too, so that one term goes, not one a tile."""
    var, first = enclosing_var(text, at, target)
    if var is None:
        fail("no reduction loop around the accumulation")
    conditions = ["%s == %s" % (var, first)]
    while re.fullmatch(r"\s*\w+\s*", first):
        outer = [m for m in FOR_VAR.finditer(text[:at]) if m.group(1) == first.strip()
                 and block_end(text, text.index("{", m.end())) > at]
        if not outer:
            break
        m = outer[-1]
        first = text[m.end():text.index(";", m.end())]
        conditions.append("%s == %s" % (m.group(1), first))
    if len(conditions) == 1:
        return "%s != %s" % (var, first)
    return "!(%s)" % " && ".join(conditions)


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
    # The chains' merge after the loops, `acc = (((acc + acc_lane) + ...`, adds no term of its own.
    direct = [a for a in accs if "_part[" not in a[3] and "_group[" not in a[3]
              and not re.search(r"\+= \d+\)", innermost_loop(text, a[0]))
              and not re.match(r"\w*_lane\d*\b", a[3])]
    combines = [a for a in accs if "_part[" in a[3]]
    if mutant in ("drop", "drop-last", "sign"):
        if not direct:
            fail("no accumulation to break")
        # edits of the text as it is: (where, how many characters go, what comes), made from the last
        edits = []
        for start, end, target, _ in [direct[0]] if mutant == "drop" else copies(text, direct[-1], direct):
            if mutant == "sign": # the + after the target's read (not one inside an index of it)
                read = text.index(target, start + len(target))
                edits.append((re.compile(r" \+\s").search(text, read + len(target)).start(), 2, " -"))
                continue
            # Its chains' loop, if any, adds the sum's first terms (chain 0's at its first round): that term
            # goes too, so that a term is dropped whether the rounds or the remaining terms run.
            # (in both branches of a round that checks its terms once: `if (all in range) ... else ...`).
            def round_of(at):
                header = innermost_loop(text, at)
                return text.rindex(header, 0, at) if re.search(r"\+= \d+\)", header) else None
            chain = [a[0] for a in accs if a[2] == target and a[0] < start and round_of(a[0]) is not None]
            chain = [at for at in chain if round_of(at) == round_of(chain[-1])]
            for at in [start] + chain[::-1]:
                edits.append((at, 0, "if (%s) " % first_term(text, at, target)))
        for at, gone, new in sorted(edits, reverse=True):
            text = text[:at] + new + text[at + gone:]
        return text
    if mutant in ("stale", "stale-first"):
        if not combines:
            fail("no combine of partials to break")
        # A combine run as interleaved chains adds partial c + k in chain k of a loop stepping by the
        # lanes: partial 1 is chain 1's term at c = 0, so c reads as -1 there (c + 1 -> 0). Otherwise the
        # loop adds partial c, and c = 1 reads as 0.
        rounds = {}
        for a in combines:
            header = innermost_loop(text, a[0])
            if re.search(r"\+= \d+\)", header):
                rounds.setdefault(text.rindex(header, 0, a[0]), []).append(a)
        if rounds:
            chains = rounds[min(rounds) if mutant == "stale-first" else max(rounds)]
            if len(chains) < 2:
                fail("a combine's round has one chain")
            start, end, target, term = chains[1]
            pattern = "%s == 0 ? -1 : %s"
        else:
            start, end, target, term = combines[0] if mutant == "stale-first" else combines[-1]
            pattern = "%s == 1 ? 0 : %s"
        var = FOR_VAR.findall(text[:start])[-1]

        def staled(expr):
            return re.sub(r"\b%s\b" % var, "(%s)" % (pattern % (var, var)), expr)

        text = text[:end - len(term)] + staled(term) + text[end:]
        # A scalar the term reads that its loop's body declares (the factor exp(m_c - M) that the combine's
        # sums share, docs/schedule.md "Sibling reductions") is part of the term: it reads the stale
        # partial too. (It comes before the term, so the edit above moved nothing of it.)
        header = innermost_loop(text, start)
        body = text.rindex(header, 0, start) + len(header)
        for name in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", term))):
            decl = re.search(r"\b(?:float|double) %s = ([^;]*);" % name, text[body:start])
            if decl:
                at, to = body + decl.start(1), body + decl.end(1)
                text = text[:at] + staled(text[at:to]) + text[to:]
        return text
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
