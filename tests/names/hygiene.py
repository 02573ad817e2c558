#!/usr/bin/python3
"""The name-hygiene test: every name of NAMES in every role, through moac compile and moac check.

The roles are dim, in, out, inout, temp (a stored binding), function parameter and comprehension index.
The list is cut into blocks (QUICK, whose names meet one another — a binding `x_part` beside a split
reduction over `x`, a harness local `x_file` beside an input `x` — then blocks of --per-role names per
role); program p (0 … 6) of a block gives role r the names of the block's chunk (r + p) mod 7, so that
the seven programs put each name in each role. Each program
goes through `moac compile --verify-output` and `moac check` on c, openmp and openacc; none may fail.
`--quick` takes the short list QUICK instead, for the sanitizer build.
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

MOA_RESERVED = set("dim in out inout fn assume psi rho iota tran take drop cat reshape rav div mod max min neg exp log "
                   "sqrt abs not and or where inf tanh sin cos exp2 log2 sigmoid pow".split())

C_KEYWORDS = ("auto break case char const continue default do double else enum extern float for goto if inline "
              "int long register restrict return short signed sizeof static struct switch typedef union unsigned "
              "void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn "
              "_Static_assert _Thread_local alignas alignof bool constexpr false nullptr static_assert "
              "thread_local true typeof")
CXX_CUDA = ("and and_eq asm bitand bitor catch char16_t char32_t class compl const_cast decltype delete "
            "dynamic_cast explicit export friend mutable namespace new noexcept not not_eq operator or or_eq "
            "private protected public reinterpret_cast static_cast template this throw try typeid typename using "
            "virtual wchar_t xor xor_eq __global__ __device__ __host__ __shared__ __constant__ threadIdx blockIdx "
            "blockDim gridDim warpSize dim3 float4 int2 double2 half __syncthreads")
LIBRARY = ("printf fprintf snprintf sprintf puts strtoll strtol atoi malloc calloc free realloc memcpy memset "
           "strlen exit abort system qsort FILE size_t ptrdiff_t int64_t uint64_t int32_t uint8_t intptr_t "
           "fabs fabsf expf logf sqrtf pow powf sin cos tanf floor ceilf round fmax fminf fma hypot erf lgamma "
           "tgamma nan frexp ldexp modf y0 y1 j0 j1 time clock")
MACROS = ("NULL SIZE_MAX HUGE_VAL HUGE_VALF __LINE__ __FILE__ __func__ __cplusplus __STDC__ _OPENMP _OPENACC EOF "
          "stdin stdout stderr errno assert INFINITY NAN INT64_MAX INT64_MIN INT64_C UINT64_C INT_MAX CHAR_BIT "
          "FLT_MAX DBL_EPSILON M_PI I complex offsetof linux unix RAND_MAX EXIT_SUCCESS isnan signbit va_list")
RUNTIME = ("moart_chunks moart_floordiv moart_floormod moart_maxf moart_align64 moart_array moart_status "
           "moart_read_array moart_alloc_aligned MOART_OK MOART_ERR_SHAPE MOART_F32 moa_hyg0 moa_hyg0_workspace_bytes "
           "moa_kernel moa_x Moa_x MOA_X moart_ moa_")
# what the emitters and the harness print themselves, and forms derived from other names of the list
EMITTED = ("workspace offsets offset total overflow status st err path fail main argc argv workspace_bytes ws c c2 g acc "
           "acc2 i j l k t P_x Q_x P_x_2 x_part x_group x_part_2 x_file x_arg x_shape x_out x_ v_int v_x v_NULL "
           "v_LINE_ v_moa_x")
SIMILAR = ("x x1 x2 x10 X h h2 h10 H n N n2 null Null NULL_ Int INT For FOR Main Restrict f32 f64 o o1 _ _x x__y "
           "_1 a_ a__")
LONG = ["v" * 150, "long_" * 30 + "a", "long_" * 30 + "b", "L" + "0123456789" * 12]

QUICK = ("int for NULL __LINE__ _Bool class threadIdx printf fabsf SIZE_MAX M_PI I linux moart_chunks moa_x "
         "workspace offsets status x x_part x_file x1 h h2 c acc P_x X") .split() + LONG[:1]

ROLES = ["dim", "in", "out", "inout", "temp", "param", "index"]


def blocks(quick: bool, per_role: int) -> list:
    """The lists of names that share programs: QUICK first (its names meet one another: x beside x_part,
    x_file, x1, X), then the whole list in blocks of per_role names per role. moac's C formatting grows
    faster than linearly with a program's size, so small blocks are what keeps the test cheap."""
    words = " ".join([C_KEYWORDS, CXX_CUDA, LIBRARY, MACROS, RUNTIME, EMITTED, SIMILAR]).split() + LONG
    every = []
    for w in words:
        if w not in MOA_RESERVED and w not in every:
            every.append(w)
    size = per_role * len(ROLES)
    lists = [QUICK] + ([] if quick else [every[i:i + size] for i in range(0, len(every), size)])
    out = []
    for block in lists:
        block = list(block)
        while len(block) % len(ROLES):
            block.append(f"pad{len(block)}")
        out.append(block)
    return out


def program(p: int, chunks: list) -> tuple:
    """Program p and its --dims."""
    role = {r: chunks[(i + p) % len(ROLES)] for i, r in enumerate(ROLES)}
    dims = role["dim"]
    m = len(dims)
    lines = [f"# name hygiene, program {p}", "dim " + ", ".join(dims)]
    for j, name in enumerate(role["in"]):
        lines.append(f"in {name} : f32[{dims[j % m]}]")
    for j, name in enumerate(role["inout"]):
        lines.append(f"inout {name} : f32[{dims[(j + 1) % m]}]")
    for name in role["inout"]:
        lines.append(f"{name} = {name} * 2.0")
    ins = role["in"]
    for j, name in enumerate(role["temp"]):  # a split reduction, stored
        lines.append(f"{name} = +/ {ins[j % len(ins)]}")
    params = role["param"]
    lines.append(f"fn zzhyg_f({', '.join(params)}) {{ {' + '.join(params)} }}")
    temps = role["temp"]
    lines.append(f"zzhyg_s = zzhyg_f({', '.join(temps[j % len(temps)] for j in range(len(params)))})")
    for j, name in enumerate(role["out"]):
        ix, d, src = role["index"][j], dims[j % m], ins[j % len(ins)]
        lines.append(f"out {name} = ([{ix} < {d}] <{ix}> psi {src}) + {temps[j % len(temps)]} + zzhyg_s")
    values = ",".join(f"{d}={1 + j % 3}" for j, d in enumerate(dims))
    return "\n".join(lines) + "\n", values


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--moac", required=True)
    ap.add_argument("--program", type=int, help="only this program (0 … 6)")
    ap.add_argument("--targets", default="c,openmp,openacc")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--keep", help="write the programs into this folder and keep them")
    ap.add_argument("--per-role", type=int, default=6, help="names per role in one program")
    args = ap.parse_args()
    failures = runs = count = 0
    with tempfile.TemporaryDirectory(prefix="moac-names-") as tmp:
        folder = pathlib.Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for b, block in enumerate(blocks(args.quick, args.per_role)):
            count += len(block)
            m = len(block) // len(ROLES)
            chunks = [block[r * m:(r + 1) * m] for r in range(len(ROLES))]
            for p in range(len(ROLES)) if args.program is None else [args.program]:
                text, dims = program(p, chunks)
                # the kernel's name, moa_hyg0, comes from the file name (RUNTIME lists it)
                path = folder / "hyg0.moa"
                path.write_text(text)
                commands = [[args.moac, "compile", path, "--verify-output", "--color=never", "-o", folder / "hyg0.c"]]
                for target in args.targets.split(","):
                    commands.append([args.moac, "check", path, "--target=" + target, "--dims", dims, "--color=never"])
                for command in commands:
                    runs += 1
                    done = subprocess.run(command, text=True, capture_output=True)
                    if done.returncode != 0 or (command[1] == "check" and "PASS" not in done.stdout):
                        failures += 1
                        (folder / f"failed-block{b}-program{p}.moa").write_text(text)
                        print(f"FAILED (block {b}, program {p}): {' '.join(str(c) for c in command)}\n"
                              f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    print(f"names: {count} names × {len(ROLES)} roles; {runs} runs, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
