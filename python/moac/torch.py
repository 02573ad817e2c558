"""moac.torch - .moa programs as PyTorch operators, compiled and loaded in one call (docs/pytorch.md).

    import torch, moac.torch
    ops = moac.torch.load(["decode.moa", "gqa.moa"])     # torch.ops.moac, with decode and gqa in it
    o = ops.decode(q, K, V)                                # = softmax(q @ K.T / sqrt(dk)) @ V

load() runs, for each program, `moac compile P --target=T -o P.c --header P.h --torch P_torch.cpp` in the
build folder (P.cu for cuda), compiles each kernel with the C compiler (cc, or $CC; nvcc for cuda), and builds one extension with
torch.utils.cpp_extension.load from a single C++ file that includes every operator's source (the torch
headers are parsed once, however many programs). A second load() of the same programs rebuilds nothing
unless a program, a kernel or moac's output changed.
"""

import hashlib
import os
import re
import shutil
import subprocess

import torch
import torch.utils.cpp_extension

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_moac(moac):
    """The moac executable: the argument, $MOAC, the moac installed with this file, or moac on PATH."""
    if moac:
        return moac
    if os.environ.get("MOAC"):
        return os.environ["MOAC"]
    # installed as PREFIX/share/moac/python/moac/torch.py, beside PREFIX/bin/moac
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))))
    installed = os.path.join(prefix, "bin", "moac")
    if os.access(installed, os.X_OK):
        return installed
    found = shutil.which("moac")
    if not found:
        raise FileNotFoundError("moac.torch: no moac executable (pass moac=PATH or set MOAC)")
    return found


def _find_include(moac, include_dir):
    """The folder holding moart/kernel.h: the argument, or PREFIX/include beside PREFIX/bin/moac."""
    candidates = [include_dir] if include_dir else [
        os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(moac))), "include")]
    for folder in candidates:
        if os.path.isfile(os.path.join(folder, "moart", "kernel.h")):
            return folder
    raise FileNotFoundError(f"moac.torch: no moart/kernel.h in {candidates[0]} (pass include_dir=)")


def _run(cmd):
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"moac.torch: {' '.join(cmd)} failed (exit {done.returncode}):\n{done.stdout}")


def _kernel_compiler(target, include, cc):
    """The command that compiles one generated kernel file to a position-independent object."""
    if target != "cuda":
        openmp = ["-fopenmp"] if target == "openmp" else []
        return [cc, "-std=c99", "-O2", "-fPIC", *openmp, "-I", include]
    nvcc = os.environ.get("MOAC_NVCC") or os.path.join(torch.utils.cpp_extension.CUDA_HOME or "/usr/local/cuda",
                                                       "bin", "nvcc")
    major, minor = torch.cuda.get_device_capability()  # the current device's architecture
    arch = f"{major}{minor}"
    return [nvcc, "-O3", "-std=c++17", "-Xcompiler", "-fPIC", "-gencode", f"arch=compute_{arch},code=sm_{arch}",
            "-I", include]


def _compile_program(moac, include, source, target, name, folder, compiler):
    """Runs moac on one program and compiles its kernel; returns (operator source, kernel object)."""
    stem = name or os.path.splitext(os.path.basename(source))[0]
    kernel = ".cu" if target == "cuda" else ".c"
    c, h, cpp, obj = (os.path.join(folder, stem + ext) for ext in (kernel, ".h", "_torch.cpp", ".o"))
    cmd = [moac, "compile", source, f"--target={target}", "-o", c, "--header", h, "--torch", cpp]
    _run(cmd + ([f"--name={name}"] if name else []))
    # moac leaves an unchanged output untouched, so an up-to-date object stays
    if not os.path.exists(obj) or os.path.getmtime(obj) < os.path.getmtime(c):
        _run([*compiler, "-c", c, "-o", obj])
    return cpp, obj


def load(sources, target="openmp", names=None, moac=None, include_dir=None, build_directory=None,
         extension_name=None, verbose=False):
    """Builds the programs `sources` (a path or a list of paths) as operators of torch.ops.moac and
    returns torch.ops.moac. target: "openmp" or "c" (CPU tensors), or "cuda" (CUDA tensors: the kernel is
    compiled with nvcc for the current device's architecture and runs on the current stream). names: the kernels' names (`moac compile --name`),
    one per source, or None for each file's stem; the operator is the name without a leading `moa_`.
    moac, include_dir: the compiler and the folder with moart/kernel.h (found when moac is installed).
    build_directory: where the generated files and the extension go (default ~/.cache/moac/torch/NAME)."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    sources = [os.fspath(s) for s in sources]
    names = list(names) if names else [None] * len(sources)
    if len(names) != len(sources):
        raise ValueError("moac.torch.load: give one name per source")
    moac = _find_moac(moac)
    include = _find_include(moac, include_dir)
    stems = [n or os.path.splitext(os.path.basename(s))[0] for s, n in zip(sources, names)]
    if not extension_name:
        extension_name = re.sub(r"[^A-Za-z0-9_]", "_", "moac_" + "_".join(stems) + "_" + target)
        if len(extension_name) > 64:  # many programs: a name of their list
            extension_name = "moac_" + hashlib.sha256(extension_name.encode()).hexdigest()[:16] + "_" + target
    # absolute: cpp_extension links in its build folder, where a relative object path would not be found
    folder = os.path.abspath(build_directory or
                             os.path.join(os.path.expanduser("~"), ".cache", "moac", "torch", extension_name))
    os.makedirs(folder, exist_ok=True)
    if target not in ("openmp", "c", "cuda"):
        raise ValueError(f"moac.torch.load: target must be openmp, c or cuda, not {target!r}")
    compiler = _kernel_compiler(target, include, os.environ.get("CC", "cc"))
    built = [_compile_program(moac, include, s, target, n, folder, compiler) for s, n in zip(sources, names)]
    # One translation unit for every operator. It names the kernels' objects by content, so that
    # cpp_extension, which versions an extension by its sources, relinks when only a kernel changed.
    digest = hashlib.sha256()
    for _, obj in built:
        with open(obj, "rb") as f:
            digest.update(f.read())
    unity = "".join(f'#include "{os.path.basename(cpp)}"\n' for cpp, _ in built)
    unity = f"// moac.torch.load: {', '.join(stems)}; kernel objects sha256 {digest.hexdigest()}\n" + unity
    unity_path = os.path.join(folder, extension_name + ".cpp")
    old = open(unity_path).read() if os.path.exists(unity_path) else None
    if old != unity:
        with open(unity_path, "w") as f:
            f.write(unity)
    openmp = ["-fopenmp"] if target == "openmp" else []
    torch.utils.cpp_extension.load(
        name=extension_name, sources=[unity_path], extra_include_paths=[folder, include],
        extra_cflags=["-O2"], extra_ldflags=[obj for _, obj in built] + openmp,
        build_directory=folder, is_python_module=False, with_cuda=target == "cuda", verbose=verbose)
    return torch.ops.moac
