// The files of a kernel around its printed regions (CPrinter.h): the header (layout macros, the
// workspace-size function, the prototype with a comment per parameter), and the source's preamble, its
// workspace-layout function (every dim, extent, bound and guard checked: KernelChecks.h) and the kernel
// function, which checks its dims and pointers before it runs the regions.
#include "CPrinter.h"

#include "CommentText.h"
#include "KernelChecks.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace moac {

namespace {

// The header spells `restrict` through MOART_RESTRICT, so that C++ can include it: C++ has no `restrict`,
// its compilers (GCC, Clang, MSVC) take `__restrict`. Every generated C header defines it the same way.
constexpr const char *restrictMacro = "/* C99's restrict, or what C++ compilers call it. */\n#ifndef MOART_RESTRICT\n"
                                      "#ifdef __cplusplus\n#define MOART_RESTRICT __restrict\n#else\n"
                                      "#define MOART_RESTRICT restrict\n#endif\n#endif\n\n";

} // namespace

std::string CPrinter::dimParams() const {
  std::string out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out += fmt::format("{}int64_t {}", out.empty() ? "" : ", ", cn.dim(d.sym));
  return out;
}

std::string CPrinter::dimArgs() const {
  std::string out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out += fmt::format("{}{}", out.empty() ? "" : ", ", cn.dim(d.sym));
  return out;
}

// One comment line per parameter of the kernel, saying which .moa name it carries (a name C cannot
// have is renamed: docs/abi.md).
std::string CPrinter::parameterComment() const {
  std::string out = "/* Parameters, in order:\n";
  for (const TDim &d : k.dims)
    if (!d.value)
      out += fmt::format(" *   {}: dim {}\n", cn.dim(d.sym), commentText(d.name));
  auto array = [&](size_t b, const char *role) {
    const Buffer &buf = k.buffers[b];
    out += fmt::format(" *   {}: {} {} : {}{}\n", cn.buffer(b), role, commentText(buf.name), spell(buf.elem),
                       commentText(strShapeAscii(buf.shape)));
  };
  for (size_t b : k.inputs())
    array(b, k.buffers[b].inout ? "inout" : "in");
  for (size_t b : k.outputs())
    array(b, "out");
  std::string dims = dimArgs();
  return out + fmt::format(" *   workspace: {}_workspace_bytes({}) bytes, 64-byte aligned\n */\n", k.name, dims);
}

// restrictWord: `restrict` in the kernel (C99), MOART_RESTRICT in the header (which C++ includes too), none
// for CUDA's launcher, which takes device pointers and a stream (its kernels promise no aliasing).
std::string CPrinter::signature(const char *restrictWord) const {
  const bool cuda = target == Target::Cuda;
  const std::string qualifier = *restrictWord ? std::string(restrictWord) + " " : "";
  std::string params = dimParams();
  for (size_t b : k.inputs()) // an inout is written in place: not const
    params += fmt::format("{}{}{} *{}{}", params.empty() ? "" : ", ", k.buffers[b].inout ? "" : "const ",
                          cType(k.buffers[b].elem), qualifier, cn.buffer(b));
  for (size_t b : k.outputs())
    params += fmt::format("{}{} *{}", params.empty() ? "" : ", ", cType(k.buffers[b].elem), cn.buffer(b));
  params += fmt::format("{}void *workspace{}", params.empty() ? "" : ", ", cuda ? ", cudaStream_t stream" : "");
  return fmt::format("int {}({})", k.name, params);
}

// P = moart_chunks(items, terms, threads, chunk); threads 0 is the device's (CUDA: moart_cuda_splits, the
// splits that fit in one wave of 32 warps on each of the current device's SMs).
// A wider kernel's splits (ChunkCount::Wider) count its frames where its test passes: `widerItems`.
std::string CPrinter::chunkCount(const ChunkCount &c, const std::string &items, const std::string &terms,
                                 const std::string &widerItems) {
  const std::string counted = c.wider ? fmt::format("{} ? {} : {}", widerName(c), widerItems, items) : items;
  if (c.threads == 0)
    return fmt::format("moart_cuda_splits({}, {}, INT64_C({}), INT64_C({}))", counted, terms, c.chunk, c.pack);
  return fmt::format("moart_chunks({}, {}, INT64_C({}), INT64_C({}))", counted, terms, c.threads, c.chunk);
}

// The local that holds a wider kernel's test (a `moa_` name: no dim or index of the program has one).
std::string CPrinter::widerName(const ChunkCount &c) { return "moa_wider_" + name(c.sym); }

// `X_wider_P(dims)`, for each chunk count with a wider kernel (ChunkCount::Wider): 1 where every `packing`
// adjacent values of its frame index agree on each floor division its loads take of it — a loop over the
// index's values, each division against its value at the pack's first, checked (an overflow is 0: the
// four-head kernel). The layout function and the launcher each call it before P, so both count P alike.
std::string CPrinter::widerTests(const std::string &voidDims) {
  const std::string flag = "moa_overflow";
  auto checked = [&](const SymExpr &e) { return checkedInteger(e, [&](Symbol s) { return name(s); }, flag); };
  std::string out;
  for (const ChunkCount &c : k.chunkCounts) {
    if (!c.wider)
      continue;
    const ChunkCount::Wider &w = *c.wider;
    const SymExpr first = SymExpr(w.packing) * SymExpr::floorDiv(SymExpr::symbol(w.var), SymExpr(w.packing));
    std::vector<std::string> same;
    for (const SymExpr &d : w.divisions)
      same.push_back(fmt::format("{} == {}", checked(d), checked(d.substitute({{w.var, first}}))));
    const std::string var = name(w.var);
    out += fmt::format("/* whether every {} adjacent values of {} read the same rows: the split pass's kernel of {} "
                       "values a warp then runs, and {} counts its frames */\n",
                       w.packing, var, w.packing, name(c.sym));
    out += fmt::format("static int {}_wider_{}({}) {{\n  int {} = 0;\n  int moa_wider = 1;\n{}", k.name, name(c.sym),
                       dimParams().empty() ? "void" : dimParams(), flag, voidDims);
    out += fmt::format("  for (int64_t {} = 0; moa_wider && !{} && {} < {}; ++{})\n", var, flag, var, checked(w.end),
                       var);
    out += fmt::format("    moa_wider = {};\n  return moa_wider && !{};\n}}\n\n", fmt::join(same, " && "), flag);
  }
  return out;
}

// The locals of the wider kernels' tests (widerTests), before the chunk counts that read them.
std::string CPrinter::widerDecls() {
  std::string out;
  for (const ChunkCount &c : k.chunkCounts)
    if (c.wider)
      out += fmt::format("  const int {} = {}_wider_{}({});\n", widerName(c), k.name, name(c.sym), dimArgs());
  return out;
}

// `X_workspace_layout(dims, offsets)`: 1, with each workspace slot's offset and (last) the total in bytes,
// when the kernel takes these dims; 0 when a dim is out of range (below 1, or below 0 where
// dimsAllowedZero allows 0), an extent is negative, an element count, byte size or bound leaves int64, the
// loops' index arithmetic could leave int64 (checkedLoopMagnitudes), or a run-time shape guard fails. Every operation is checked (KernelChecks.h), so none of this overflows,
// and the kernel and `X_workspace_bytes` share the one decision (docs/abi.md, "Checked extents").
std::string CPrinter::workspaceLayout(const std::string &voidDims) {
  const std::string flag = "overflow"; // reserved for the layout function by CNames (dims only)
  auto checked = [&](const SymExpr &e) { return checkedInteger(e, [&](Symbol s) { return name(s); }, flag); };
  std::set<Symbol> zero = dimsAllowedZero(k);
  std::string out = fmt::format("static int {}_workspace_layout({}{}size_t offsets[{}]) {{\n  int {} = 0;\n"
                                "  int64_t total = 0;\n{}",
                                k.name, dimParams(), dimParams().empty() ? "" : ", ", k.buffers.size() + 1, flag,
                                voidDims);
  std::vector<std::string> ranges, zeroNames;
  for (const TDim &d : k.dims)
    if (!d.value)
      ranges.push_back(fmt::format("{} < {}", cn.dim(d.sym), zero.count(d.sym) ? 0 : 1));
  for (Symbol z : zero)
    zeroNames.push_back(cn.dim(z));
  if (!ranges.empty())
    out += fmt::format("  if ({}) /* dims are at least 1{} */\n    return 0;\n", fmt::join(ranges, " || "),
                       zero.empty() ? "" : fmt::format("; {}, declared >= 0, at least 0",
                                                       fmt::join(zeroNames, ", ")));
  out += widerDecls();
  for (const ChunkCount &c : k.chunkCounts)
    out += fmt::format("  const int64_t {} = {};\n", name(c.sym),
                       chunkCount(c, checked(c.items), checked(c.terms), c.wider ? checked(c.wider->items) : ""));
  // every array's extents are not negative and its bytes fit; workspace arrays take slots in buffer order
  // (a partials buffer with one chunk takes none: it is the result itself)
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const Buffer &buf = k.buffers[b];
    std::string count;
    for (const SymExpr &e : buf.shape) {
      std::string extent = fmt::format("moart_extent_checked({}, &{})", checked(e), flag);
      count = count.empty() ? extent : fmt::format("moart_mul_checked({}, {}, &{})", count, extent, flag);
    }
    if (count.empty())
      count = "1";
    std::string bytes = fmt::format("moart_bytes_checked({}, sizeof({}), &{})", count, cType(buf.elem), flag);
    if (buf.layout.kind == Layout::Lifted)
      out += fmt::format("  (void){};\n", bytes);
    if (buf.layout.kind == Layout::Lifted || buf.role == Buffer::Workspace)
      bytes = fmt::format("moart_bytes_checked({}, sizeof({}), &{})", checked(buf.storageElements()),
                          cType(buf.elem), flag);
    if (buf.role != Buffer::Workspace) {
      out += fmt::format("  (void){}; /* {} */\n", bytes, cn.buffer(b));
      continue;
    }
    if (buf.aliasOf)
      bytes = fmt::format("({} > 1 ? {} : 0)", name(buf.aliasChunks), bytes);
    out += fmt::format("  offsets[{}] = (size_t)total;\n  total = moart_add_checked(total, {}, &{});\n", b, bytes, flag);
  }
  for (const SymExpr &e : dimExpressions(k))
    out += fmt::format("  (void){};\n", checked(e));
  out += checkedLoopMagnitudes(k, [&](Symbol s) { return name(s); }, flag);
  for (const Guard &g : k.guards) {
    const char *op = g.cmp == Guard::Eq ? "==" : g.cmp == Guard::Le ? "<=" : "<";
    out += fmt::format("  if (!({} {} {}) || {}) /* {}: {} */\n    return 0;\n", checked(g.lhs), op, checked(g.rhs), flag,
                       commentText(g.reason), commentText(g.str()));
  }
  return out + fmt::format("  offsets[{}] = moart_size_checked(total, &{});\n  return !{};\n}}\n\n", k.buffers.size(),
                           flag, flag);
}

// A NULL array or workspace where the kernel needs memory is MOART_ERR_ARG (after the dims were checked,
// so these counts are exact).
std::string CPrinter::pointerChecks(size_t totalSlot) {
  std::set<Symbol> zero = dimsAllowedZero(k);
  std::vector<std::string> missing{fmt::format("(offsets[{}] > 0 && !workspace)", totalSlot)};
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const Buffer &buf = k.buffers[b];
    SymExpr count = buf.storageElements();
    std::optional<int64_t> constant = count.constant();
    if (buf.role == Buffer::Workspace || (constant && *constant <= 0))
      continue;
    std::vector<Symbol> symbols = count.symbols();
    bool positive = signOf(count) == Sign::Positive &&
                    std::none_of(symbols.begin(), symbols.end(), [&](Symbol s) { return zero.count(s) > 0; });
    missing.push_back(positive ? "!" + cn.buffer(b) : fmt::format("(!{} && {} > 0)", cn.buffer(b), integer(count)));
  }
  return fmt::format("  if ({}) /* an array or the workspace is NULL */\n    return MOART_ERR_ARG;\n",
                     fmt::join(missing, " || "));
}

// Each gather's index array, before any stage reads or writes (docs/abi.md): an element outside [0, bound)
// of an axis it indexes makes the kernel return MOART_ERR_SHAPE with nothing written. CUDA's arrays are
// device memory: the launcher copies each array to the host in chunks on `stream` and checks them there.
std::string CPrinter::indexChecks() {
  std::map<size_t, std::vector<SymExpr>> bounds; // an index array → the extents of the axes it indexes
  for (const IndexCheck &c : k.indexChecks)
    bounds[c.buffer].push_back(c.bound);
  std::string out;
  for (const auto &[b, list] : bounds) {
    const std::string &array = cn.buffer(b), count = integer(k.buffers[b].storageElements());
    const char *type = cType(k.buffers[b].elem);
    std::string element = target == Target::Cuda ? "moa_chunk[moa_at % 1024]" : array + "[moa_at]";
    std::string outside = fmt::format("{} < 0", element), range;
    for (const SymExpr &bound : list) {
      outside += fmt::format(" || {} >= {}", element, integer(bound));
      range += (range.empty() ? "" : ", ") + bound.str();
    }
    out += fmt::format("  {{ /* {}: every element is a gather's index, in [0, {}) */\n    int moa_outside = 0;\n",
                       commentText(k.buffers[b].name), range);
    if (target == Target::Cuda) {
      out += fmt::format("    {} moa_chunk[1024];\n    for (int64_t moa_at = 0; moa_at < {}; ++moa_at) {{\n"
                         "      if (moa_at % 1024 == 0) {{\n"
                         "        size_t moa_bytes = (size_t)({} - moa_at < 1024 ? {} - moa_at : 1024) * sizeof({});\n"
                         "        if (cudaMemcpyAsync(moa_chunk, {} + moa_at, moa_bytes, cudaMemcpyDeviceToHost, stream) "
                         "!= cudaSuccess ||\n            cudaStreamSynchronize(stream) != cudaSuccess)\n"
                         "          return MOART_ERR_DEVICE;\n      }}\n      moa_outside |= {};\n    }}\n",
                         type, count, count, count, type, array, outside);
    } else {
      std::string pragma = policy.indexCheckLoop(fmt::format("{}[0:{}]", array, count), "moa_outside");
      out += (pragma.empty() ? "" : "    " + pragma + "\n") +
             fmt::format("    for (int64_t moa_at = 0; moa_at < {}; ++moa_at)\n      moa_outside |= {};\n", count,
                         outside);
    }
    out += "    if (moa_outside)\n      return MOART_ERR_SHAPE;\n  }\n";
  }
  return out;
}

// Buffers some stage loads or stores; a partials buffer also needs the result it may alias. Others
// (inputs the outputs do not depend on, arrays with an empty index space) are declared but unused.
std::set<size_t> CPrinter::usedBuffers() const {
  std::set<size_t> used;
  for (const Region &r : k.stages)
    forEachAccess(r.body, [&](size_t b, const SymExpr &, bool) { used.insert(b); });
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (used.count(b) && k.buffers[b].aliasOf)
      used.insert(*k.buffers[b].aliasOf);
  return used;
}

// The used workspace buffers' pointers into the workspace (a partials buffer with one chunk: its result).
std::string CPrinter::workspacePointers(const std::set<size_t> &used) {
  std::string ws;
  for (size_t b : k.workspace()) {
    if (!used.count(b))
      continue;
    const Buffer &buf = k.buffers[b];
    std::string pointer = fmt::format("({} *)((char *)workspace + offsets[{}])", cType(buf.elem), b);
    if (buf.aliasOf)
      pointer = fmt::format("{} > 1 ? {} : {}", name(buf.aliasChunks), pointer, cn.buffer(*buf.aliasOf));
    ws += fmt::format("  {} *{} = {};\n", cType(buf.elem), cn.buffer(b), pointer);
  }
  return ws;
}

// The header: each input's layout macros, the workspace-size function and the kernel's prototype.
std::string CPrinter::headerText(const std::string &command) const {
  const bool cuda = target == Target::Cuda;
  std::string header = fmt::format(
      "/* {}: the kernel compiled by moac from {} for target {}.\n"
      " * Generated by `{}`; do not edit. ABI: docs/abi.md. */\n"
      "#ifndef {}_H\n#define {}_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n{}"
      "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n",
      k.name, fileStem, targetName(target), command, k.name, k.name,
      cuda ? "#include <cuda_runtime_api.h> /* cudaStream_t */\n\n" : restrictMacro);
  header += "/* Array layouts: */\n";
  for (size_t b : k.inputs()) {
    const Layout &l = k.buffers[b].layout;
    const std::string &c = cn.buffer(b);
    if (l.kind == Layout::Lifted && l.axis == 0)
      header += fmt::format("#define {}_{}_LIFTED_BLOCK {} /* {} is stored lifted: T([x, y]) = [x / {}, y, x % {}] */\n",
                            k.name, c, l.block, c, l.block, l.block);
    else if (l.kind == Layout::Lifted)
      header += fmt::format("/* {} is stored lifted on axis {}: T([p, x, y]) = [p, x / {}, y, x % {}] */\n"
                            "#define {}_{}_LIFTED_BLOCK {}\n",
                            c, l.axis, l.block, l.block, k.name, c, l.block);
    else
      header += fmt::format("#define {}_{}_LIFTED_BLOCK 0 /* {} is row-major */\n", k.name, c, c);
    header += fmt::format("#define {}_{}_LIFTED_AXIS {}\n", k.name, c, l.kind == Layout::Lifted ? l.axis : 0);
  }
  std::string dims = dimParams();
  header += fmt::format("\n/* Bytes of workspace the kernel needs for these dims (SIZE_MAX for dims it does not take). "
                        "*/\nsize_t {}_workspace_bytes({});\n\n",
                        k.name, dims.empty() ? "void" : dims);
  header += fmt::format("/* Returns 0; MOART_ERR_SHAPE, writing nothing, for dims it does not take (a dim out of "
                        "range, an\n * overflowing extent, a failed shape guard); MOART_ERR_ARG for a NULL array or "
                        "workspace{}. */\n{}{};\n\n#ifdef __cplusplus\n}}\n#endif\n\n#endif\n",
                        cuda ? ";\n * MOART_ERR_DEVICE when a launch fails. The arrays and the workspace are device "
                               "memory; the kernels\n * run on `stream` after the call returns"
                             : "",
                        parameterComment(), signature(cuda ? "" : "MOART_RESTRICT"));
  return header;
}

// The source's opening comment (the program, its DNF and its traffic model, each line sealed for a
// comment) and its includes.
std::string CPrinter::sourcePreamble(const EmitInputs &in, const std::string &command) const {
  std::string src = fmt::format("/* Generated by moac from {} for target {}; do not edit.\n * {}\n *\n", fileStem,
                                targetName(target), command);
  auto block = [&](const char *title, const std::string &text) {
    src += fmt::format(" * {}\n", title);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos)
        end = text.size();
      std::string l = text.substr(start, end - start);
      if (!l.empty() && l.back() == '\r') // a CRLF line ends at its newline too
        l.pop_back();
      src += l.empty() ? " *\n" : " *   " + commentText(l) + "\n";
      start = end + 1;
    }
    src += " *\n";
  };
  block("Source:", in.sourceText);
  block("DNF:", in.dnf);
  block("Traffic model:", in.traffic);
  src += " */\n";
  src += fmt::format("#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n{}\n#include \"moart/kernel.h\"\n",
                     target == Target::Cuda ? "\n#include <cuda_runtime.h>\n" : policy.extraIncludes());
  if (!in.headerName.empty())
    src += fmt::format("#include \"{}\"\n", in.headerName);
  return src;
}

// 1. The chunk counts' declarations, the workspace pointers and every region's statements (which mint
//    the loop indices' and scalars' names, read by the layout function's loop checks).
// 2. The header.
// 3. The source: its preamble, CUDA's kernels, the workspace layout and size functions, then the kernel
//    function: the dims and pointers checked, the chunk counts and workspace pointers, the regions.
EmittedKernel CPrinter::print(const EmitInputs &in) {
  const bool cuda = target == Target::Cuda;
  const std::string command = commentText(in.command);
  std::string chunkDecls = widerDecls();
  for (const ChunkCount &c : k.chunkCounts)
    chunkDecls += fmt::format("  const int64_t {} = {};\n", name(c.sym),
                              chunkCount(c, integer(c.items), integer(c.terms), c.wider ? integer(c.wider->items) : ""));
  const std::set<size_t> used = usedBuffers();
  const std::string ws = workspacePointers(used);
  for (const Region &r : k.stages)
    region(r);
  std::string regions = std::move(body);

  std::string header = headerText(command);
  std::string src = sourcePreamble(in, command);
  // Every dim is "used" explicitly: a kernel need not read every dim, and -Wextra would say so.
  std::string voidDims;
  for (const TDim &d : k.dims)
    if (!d.value)
      voidDims += fmt::format("  (void){};\n", cn.dim(d.sym));
  const size_t slots = k.buffers.size() + 1; // offsets[buffer], then the total
  src += kernels; // CUDA's __global__ functions (and the launch helpers they need)
  src += widerTests(voidDims);
  src += workspaceLayout(voidDims);
  const std::string dims = dimParams();
  const char *linkage = cuda ? "extern \"C\" " : ""; // C callers link the launcher
  src += fmt::format("{}size_t {}_workspace_bytes({}) {{\n  size_t offsets[{}];\n  return {}_workspace_layout({}{}offsets) ? "
                     "offsets[{}] : SIZE_MAX;\n}}\n\n",
                     linkage, k.name, dims.empty() ? "void" : dims, slots, k.name, dimArgs(), dimArgs().empty() ? "" : ", ",
                     slots - 1);
  // Unused arguments are still parameters of the ABI; -Wextra would call them unused.
  std::string voidInputs;
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.buffers[b].role != Buffer::Workspace && !used.count(b))
      voidInputs += fmt::format("  (void){};\n", cn.buffer(b));
  // A CPU kernel is cloned per ISA where the C compiler and loader can (moart/kernel.h, MOART_CPU_CLONES);
  // OpenACC's regions are offloaded, and CUDA's launcher is host code around device kernels.
  const bool clones = target == Target::C || target == Target::OpenMP;
  src += std::string(clones ? "MOART_CPU_CLONES\n" : "") + linkage + signature(cuda ? "" : "restrict") + " {\n";
  src += voidDims;
  src += voidInputs;
  src += fmt::format("  size_t offsets[{}];\n  if (!{}_workspace_layout({}{}offsets))\n    return MOART_ERR_SHAPE;\n",
                     slots, k.name, dimArgs(), dimArgs().empty() ? "" : ", ");
  src += pointerChecks(slots - 1);
  src += indexChecks();
  src += chunkDecls;
  src += ws;
  src += regions;
  // CUDA: a launch that failed (no device, a bad configuration) is MOART_ERR_DEVICE; the kernels run on
  // `stream` after the launcher returns
  src += cuda ? "  return cudaGetLastError() == cudaSuccess ? 0 : MOART_ERR_DEVICE;\n}\n" : "  return 0;\n}\n";
  return EmittedKernel{src, header};
}

} // namespace moac
