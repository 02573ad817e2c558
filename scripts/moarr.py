"""moarr - read and write moac's .moarr array files, and reproduce libmoart's
seeded fill bit for bit (numpy only; run with /usr/bin/python3 on Debian).

The format and the fill formula are specified in docs/runtime.md:
  file  = b"MOARR\\x01\\0\\0" | u32 dtype | u32 rank | rank x u64 extents | elements
  little-endian throughout, elements in logical row-major order;
  dtype 1 = float32, 2 = float64, 3 = int64, 4 = bf16 (its bit patterns, read and
  written as uint16: numpy has no bfloat16), 5 = float16, 6 = int32.

    import moarr
    a = moarr.read("k.moarr")
    moarr.write("out.moarr", a)
    x = moarr.fill((4, 3), "f32", seed=1, stream=0)   # == moart_fill_uniform
"""

import numpy as np

MAGIC = b"MOARR\x01\x00\x00"
MAX_RANK = 8
DTYPES = {1: np.dtype("<f4"), 2: np.dtype("<f8"), 3: np.dtype("<i8"), 4: np.dtype("<u2"), 5: np.dtype("<f2"),
          6: np.dtype("<i4")}
CODES = {np.dtype("float32"): 1, np.dtype("float64"): 2, np.dtype("int64"): 3, np.dtype("uint16"): 4,
         np.dtype("float16"): 5, np.dtype("int32"): 6}
NAMES = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "bf16": np.uint16, "f16": np.float16, "i32": np.int32}

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_INT64_MAX = (1 << 63) - 1


class MoarrError(ValueError):
    """A file that is not a valid .moarr file (the message says why)."""


def read(path):
    """The array stored at path, with its shape (a 0-d array for rank 0)."""
    with open(path, "rb") as f:
        blob = f.read()
    head = blob[:16]
    if head[:5] != MAGIC[:5][: len(head)]:
        raise MoarrError(f"{path}: not a .moarr file (bad magic)")
    if head[5:8] != MAGIC[5 : min(len(head), 8)]:
        raise MoarrError(f"{path}: unsupported .moarr version")
    if len(blob) < 16:
        raise MoarrError(f"{path}: truncated header: {len(blob)} of 16 bytes")
    code, rank = np.frombuffer(blob, "<u4", 2, 8)
    code, rank = int(code), int(rank)
    if code not in DTYPES:
        raise MoarrError(f"{path}: unknown dtype code {code}")
    if rank > MAX_RANK:
        raise MoarrError(f"{path}: rank {rank} exceeds the maximum of {MAX_RANK}")
    if len(blob) < 16 + 8 * rank:
        raise MoarrError(f"{path}: truncated header: extents missing")
    shape = [int(e) for e in np.frombuffer(blob, "<u8", rank, 16)]
    dtype = DTYPES[code]
    count = 1
    for e in shape:
        count *= e
    if any(e > _INT64_MAX for e in shape) or count * dtype.itemsize > _INT64_MAX:
        raise MoarrError(f"{path}: extents overflow")
    start, size = 16 + 8 * rank, count * dtype.itemsize
    if len(blob) - start < size:
        raise MoarrError(f"{path}: truncated data: {size} bytes expected, "
                         f"{len(blob) - start} present")
    if len(blob) - start > size:
        raise MoarrError(f"{path}: {len(blob) - start - size} trailing bytes after the data")
    data = np.frombuffer(blob, dtype, count, start)
    return data.reshape(shape).astype(dtype.newbyteorder("="))


def write(path, array):
    """Write a float32, float64, int64, int32, float16 or uint16 (bf16 bits) array (any rank up to 8) to path."""
    a = np.asarray(array)
    native = a.dtype.newbyteorder("=")
    if native not in CODES:
        raise TypeError(f"moarr: dtype {a.dtype} is not float32, float64, int64, int32, float16 or uint16 (bf16)")
    if a.ndim > MAX_RANK:
        raise ValueError(f"moarr: rank {a.ndim} exceeds the maximum of {MAX_RANK}")
    header = MAGIC + np.array([CODES[native], a.ndim], "<u4").tobytes()
    header += np.array(a.shape, "<u8").tobytes()
    body = np.ascontiguousarray(a, a.dtype.newbyteorder("<")).tobytes()
    with open(path, "wb") as f:
        f.write(header + body)


def splitmix64(x):
    """One SplitMix64 step from state x (numpy uint64 array or Python int)."""
    if isinstance(x, int):
        z = (x + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps mod 2^64, as in C
        z = np.asarray(x, np.uint64) + np.uint64(_GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def fill_bits(count, seed, stream):
    """The 64 random bits of elements 0..count-1 (uint64 array)."""
    key = splitmix64(splitmix64(seed & _MASK) ^ (stream & _MASK))
    i = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return splitmix64(np.uint64(key) + i * np.uint64(_GAMMA))


def fill(shape, dtype, seed, stream=0):
    """The array moart_fill_uniform gives for this shape, dtype, seed, stream."""
    shape = tuple(int(e) for e in shape)
    dtype = np.dtype(NAMES.get(dtype, dtype))
    count = 1
    for e in shape:
        count *= e
    bits = fill_bits(count, seed, stream)
    if dtype == np.float64:
        values = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-52 - 1.0
    elif dtype == np.float32:
        values = ((bits >> np.uint64(40)).astype(np.float64) * 2.0**-23 - 1.0).astype(np.float32)
    elif dtype == np.int64:
        values = (bits >> np.uint64(43)).astype(np.int64) - (1 << 20)
    elif dtype == np.int32:  # the same integers as i64, stored in 32 bits
        values = ((bits >> np.uint64(43)).astype(np.int64) - (1 << 20)).astype(np.int32)
    elif dtype == np.uint16:  # bf16: multiples of 2^-7, exact; their bits are the float32's top half
        f32 = ((bits >> np.uint64(56)).astype(np.float64) * 2.0**-7 - 1.0).astype(np.float32)
        values = (f32.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    elif dtype == np.float16:
        values = ((bits >> np.uint64(53)).astype(np.float64) * 2.0**-10 - 1.0).astype(np.float16)
    else:
        raise TypeError(f"moarr: dtype {dtype} is not float32, float64, int64, int32, bf16 or float16")
    return values.reshape(shape)
