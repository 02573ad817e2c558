#!/usr/bin/python3
"""The C caller test: a kernel called from a hand-written C file by its header's parameter names.

Compiles PROGRAM with `moac compile`, reads the header's two prototypes, moa_STEM_workspace_bytes(...) and
moa_STEM(...), and writes call.h with the calls a user writes from them: each parameter passed as the C
variable of the same name, in the header's order (CALLER declares its dims and arrays under their .moa
names). `moac run --outputs` writes the inputs and the interpreter's outputs, which CALLER reads and
compares with the kernel's. So the test fails when the header names a parameter after a .moa name it
does not carry (the swap of `dim h2, h`), or names two parameters alike (`dim x1` beside `in x`).
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile


def parameters(header: str, function: str) -> list:
    """The parameter names of `function`'s prototype in the header, in order."""
    text = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    match = re.search(r"\b" + re.escape(function) + r"\s*\(([^)]*)\)\s*;", text)
    if not match:
        sys.exit(f"c_caller: no prototype of {function} in the header")
    params = [p.strip() for p in match.group(1).split(",")]
    if params == ["void"]:
        return []
    return [re.findall(r"[A-Za-z_][A-Za-z0-9_]*", p)[-1] for p in params]


def run(command: list, **kw) -> subprocess.CompletedProcess:
    print("$", " ".join(str(c) for c in command), flush=True)
    done = subprocess.run(command, text=True, capture_output=True, **kw)
    sys.stdout.write(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit(f"c_caller: exit status {done.returncode}")
    return done


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--moac", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--include", required=True, help="the runtime's include folder")
    ap.add_argument("--runtime", required=True, help="libmoart.a")
    ap.add_argument("program")
    ap.add_argument("caller")
    ap.add_argument("dims")
    args = ap.parse_args()
    program, caller = pathlib.Path(args.program), pathlib.Path(args.caller)
    stem = program.stem
    with tempfile.TemporaryDirectory(prefix="moac-c-caller-") as tmp:
        work = pathlib.Path(tmp)
        shutil.copy(program, work / program.name)
        run([args.moac, "compile", work / program.name, "--color=never", "-o", work / f"{stem}.c",
             "--header", work / f"{stem}.h"])
        header = (work / f"{stem}.h").read_text()
        kernel = f"moa_{stem}"
        size = parameters(header, f"{kernel}_workspace_bytes")
        call = parameters(header, kernel)
        (work / "call.h").write_text(
            f"/* the calls a user writes from {stem}.h */\n"
            f"#define MOA_WORKSPACE_BYTES {kernel}_workspace_bytes({', '.join(size)})\n"
            f"#define MOA_CALL {kernel}({', '.join(call)})\n")
        print((work / "call.h").read_text(), end="")
        (work / "data").mkdir()
        run([args.moac, "run", work / program.name, "--dims", args.dims, "--outputs", work / "data"])
        exe = work / "caller"
        run([args.cc, "-std=c99", "-Wall", "-Wextra", "-I", args.include, "-I", work, "-I", caller.parent,
             caller, work / f"{stem}.c", args.runtime, "-lm", "-o", exe])
        run([exe, work / "data"])
    print("PASS")


if __name__ == "__main__":
    main()
