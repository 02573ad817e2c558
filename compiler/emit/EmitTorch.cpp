// The PyTorch operator around a generated kernel (EmitTorch.h). The text is C++17 over ATen and
// torch/library.h only (not torch/extension.h: no Python headers, a third of the build time), registered
// with TORCH_LIBRARY_FRAGMENT so that several kernels' operators share the `moac` namespace in one process.
// Every helper is qualified by a namespace named after the kernel, so a .moa name (a parameter or local
// here) can never hide one, and several operators can be compiled in one translation unit.
#include "EmitTorch.h"

#include "CNames.h"
#include "CommentText.h"
#include "Emit.h"

#include <fmt/format.h>

#include <map>

namespace moac {

namespace {

const char *scalarType(ElemType t) {
  switch (t) {
  case ElemType::F32: return "at::kFloat";
  case ElemType::F64: return "at::kDouble";
  case ElemType::BF16: return "at::kBFloat16";
  case ElemType::F16: return "at::kHalf";
  case ElemType::I32: return "at::kInt";
  case ElemType::Int: break;
  }
  return "at::kLong";
}

// The kernel's pointer to a tensor's elements: a bf16 or f16 tensor's are passed as their uint16_t bit
// patterns (docs/abi.md), which data_ptr<T>() cannot name.
std::string dataPointer(const std::string &tensor, ElemType t) {
  if (isHalf(t))
    return fmt::format("static_cast<uint16_t *>({}.data_ptr())", tensor);
  return fmt::format("{}.data_ptr<{}>()", tensor, cType(t));
}

// Where a run-time dim is read from: the first input axis whose extent is exactly that dim.
struct Axis {
  size_t buffer, axis;
};

class TorchPrinter {
public:
  TorchPrinter(const Kernel &k, Target target) : k(k), target(target), cn(k), op(torchOperatorName(k)) {
    ns = k.name + "_torch";
    for (size_t b : k.inputs())
      for (size_t a = 0; a < k.buffers[b].shape.size(); ++a)
        if (auto s = k.buffers[b].shape[a].asSymbol(); s && !from.count(*s))
          from[*s] = {b, a};
  }
  std::string print(const EmitInputs &in);

private:
  std::string helpers() const;
  std::string deviceCheck() const;
  std::string deviceChoice() const;
  std::string body() const;
  std::string schema() const;
  std::string returnType() const;
  std::vector<const TDim *> argumentDims() const; // the run-time dims no input axis gives
  std::string shapeList(const SymVec &shape) const {
    std::vector<std::string> extents;
    for (const SymExpr &e : shape)
      extents.push_back(cInteger(e, [&](Symbol s) { return cn.dim(s); }));
    return fmt::format("{{{}}}", fmt::join(extents, ", "));
  }

  const Kernel &k;
  Target target;
  CNames cn;
  std::string op, ns;
  std::map<Symbol, Axis> from;
};

std::vector<const TDim *> TorchPrinter::argumentDims() const {
  std::vector<const TDim *> dims;
  for (const TDim &d : k.dims)
    if (!d.value && !from.count(d.sym))
      dims.push_back(&d);
  return dims;
}

// The checks, one function each, with the messages docs/pytorch.md shows. Each message is built as one
// std::string (std::to_string, Device::str, c10::toString) and handed to TORCH_CHECK whole, which then
// formats nothing: the operator instantiates no std::ostream code of its own. (Built on the GPU machine
// against torch 2.11, c10::str's `<< int64_t` inlined here crashed in the stream's locale facets.)
std::string TorchPrinter::helpers() const {
  return fmt::format(
      "// [1, 2, 3]\n"
      "inline std::string sizesText(at::IntArrayRef sizes) {{\n"
      "  std::string text = \"[\";\n"
      "  for (size_t i = 0; i < sizes.size(); ++i)\n"
      "    text += (i ? \", \" : \"\") + std::to_string(sizes[i]);\n"
      "  return text + \"]\";\n"
      "}}\n\n"
      "// Device, dtype, rank and contiguity, checked before any size is read.\n"
      "inline void checkTensor(const at::Tensor &t, const char *name, at::ScalarType dtype, int64_t rank, "
      "const char *declared, at::Device device) {{\n"
      "  const std::string what = std::string(\"moac.{0}: \") + name;\n"
      "{1}"
      "  TORCH_CHECK(t.scalar_type() == dtype, what + \" must be \" + c10::toString(dtype) + \" (\" + declared + "
      "\"), not \" + c10::toString(t.scalar_type()));\n"
      "  TORCH_CHECK(t.dim() == rank, what + \" must have \" + std::to_string(rank) + \" dimensions (\" + declared + "
      "\"), not \" + std::to_string(t.dim()));\n"
      "  TORCH_CHECK(t.is_contiguous(), what + \" must be contiguous (row-major): call .contiguous()\");\n"
      "}}\n\n"
      "// The shape the program gives the array for these dims.\n"
      "inline void checkShape(const at::Tensor &t, const char *name, at::IntArrayRef want, const char *declared, "
      "const std::string &dims) {{\n"
      "  TORCH_CHECK(t.sizes() == want, std::string(\"moac.{0}: \") + name + \" has shape \" + sizesText(t.sizes()) + "
      "\" where \" + declared + \" is \" + sizesText(want) + \" for \" + dims);\n"
      "}}\n\n",
      op, deviceCheck());
}

// The device check comes first: a CPU kernel takes CPU tensors; a CUDA kernel takes tensors on one CUDA
// device (the first input's, or the current one when there is no input) and runs on its current stream.
std::string TorchPrinter::deviceCheck() const {
  if (target == Target::Cuda)
    return "  TORCH_CHECK(t.device() == device, what + \" is on \" + t.device().str() + \": this operator runs the "
           "kernel compiled for target cuda on one CUDA device, here \" + device.str());\n";
  return fmt::format("  TORCH_CHECK(t.device().is_cpu(), what + \" is on \" + t.device().str() + \": this operator "
                     "runs the kernel compiled for target {} on the CPU (compile it with --target=cuda for CUDA "
                     "tensors)\");\n",
                     targetName(target));
}

// The device the kernel runs on: the CPU, or for CUDA the first input's device when it is a CUDA one (the
// checks then hold every other tensor to it), else the current CUDA device.
std::string TorchPrinter::deviceChoice() const {
  if (target != Target::Cuda)
    return "at::Device(at::kCPU)";
  std::vector<size_t> ins = k.inputs();
  std::string current = "at::Device(at::kCUDA, c10::cuda::current_device())";
  if (ins.empty())
    return current;
  const std::string &first = cn.buffer(ins[0]);
  return fmt::format("{0}.device().is_cuda() ? {0}.device() : {1}", first, current);
}

std::string TorchPrinter::returnType() const {
  std::vector<size_t> outs = k.outputs();
  if (outs.empty())
    return "void";
  if (outs.size() == 1)
    return "at::Tensor";
  return fmt::format("std::tuple<{}>", fmt::join(std::vector<std::string>(outs.size(), "at::Tensor"), ", "));
}

// `decode(Tensor q, Tensor K, Tensor V) -> Tensor`; an inout is `Tensor(a!) K` (written in place), a dim no
// input axis gives is `int t` after the tensors.
std::string TorchPrinter::schema() const {
  std::vector<std::string> args;
  int alias = 0;
  for (size_t b : k.inputs())
    args.push_back(k.buffers[b].inout ? fmt::format("Tensor(a{}!) {}", alias++, cn.buffer(b))
                                      : "Tensor " + cn.buffer(b));
  for (const TDim *d : argumentDims())
    args.push_back("int " + cn.dim(d->sym));
  size_t outs = k.outputs().size();
  std::string result = outs == 1 ? "Tensor" : fmt::format("({})", fmt::join(std::vector<std::string>(outs, "Tensor"), ", "));
  return fmt::format("{}({}) -> {}", op, fmt::join(args, ", "), result);
}

std::string TorchPrinter::body() const {
  std::vector<std::string> params, dimNames, dimText, kernelArgs;
  for (size_t b : k.inputs())
    params.push_back("const at::Tensor &" + cn.buffer(b));
  for (const TDim *d : argumentDims())
    params.push_back("int64_t " + cn.dim(d->sym));
  std::string out = fmt::format("{} run({}) {{\n", returnType(), fmt::join(params, ", "));
  out += "  const at::Device device = " + deviceChoice() + ";\n";
  for (size_t b : k.inputs()) {
    const Buffer &buf = k.buffers[b];
    out += fmt::format("  {}::checkTensor({}, \"{}\", {}, {}, \"{} : {}{}\", device);\n", ns, cn.buffer(b), cn.buffer(b),
                       scalarType(buf.elem), buf.shape.size(), buf.inout ? "inout" : "in", spell(buf.elem),
                       commentText(strShapeAscii(buf.shape)));
  }
  for (const TDim &d : k.dims) {
    if (d.value)
      continue;
    const std::string &c = cn.dim(d.sym);
    if (auto it = from.find(d.sym); it != from.end())
      out += fmt::format("  const int64_t {} = {}.size({});\n", c, cn.buffer(it->second.buffer), it->second.axis);
    dimText.push_back(fmt::format("\"{}{} = \" + std::to_string({})", dimText.empty() ? "" : ", ", c, c));
    kernelArgs.push_back(c);
  }
  out += fmt::format("  const std::string err = std::string() + {}; // the dims, for the messages\n",
                     dimText.empty() ? "\"no dims\"" : fmt::format("{}", fmt::join(dimText, " + ")));
  for (size_t b : k.inputs())
    out += fmt::format("  {}::checkShape({}, \"{}\", {}, \"{}\", err);\n", ns, cn.buffer(b), cn.buffer(b),
                       shapeList(k.buffers[b].shape), commentText(strShapeAscii(k.buffers[b].shape)));
  std::string dimArgs = fmt::format("{}", fmt::join(kernelArgs, ", "));
  out += fmt::format("  const size_t workspace_bytes = {}_workspace_bytes({});\n", k.name, dimArgs);
  out += fmt::format("  TORCH_CHECK(workspace_bytes != SIZE_MAX, \"moac.{}: the kernel does not take \" + err + \" (a "
                     "dim below its range, an extent past int64, or a failed shape guard: docs/abi.md)\");\n",
                     op);
  if (target == Target::Cuda)
    out += "  const c10::cuda::CUDAGuard guard(device); // the outputs, the workspace and the stream are this device's\n";
  for (size_t b : k.outputs())
    out += fmt::format("  at::Tensor {} = at::empty({}, at::TensorOptions().dtype({}).device(device));\n", cn.buffer(b),
                       shapeList(k.buffers[b].shape), scalarType(k.buffers[b].elem));
  // at::empty's CPU memory is 64-byte aligned (c10's alignment) and CUDA's caching allocator's 512-byte, as
  // the ABI asks of the workspace.
  out += "  at::Tensor workspace = at::empty({int64_t(workspace_bytes)}, "
         "at::TensorOptions().dtype(at::kByte).device(device));\n";
  for (size_t b : k.inputs())
    kernelArgs.push_back(dataPointer(cn.buffer(b), k.buffers[b].elem));
  for (size_t b : k.outputs())
    kernelArgs.push_back(dataPointer(cn.buffer(b), k.buffers[b].elem));
  kernelArgs.push_back("workspace_bytes > 0 ? workspace.data_ptr() : nullptr");
  if (target == Target::Cuda)
    kernelArgs.push_back("at::cuda::getCurrentCUDAStream(device.index()).stream()");
  out += fmt::format("  const int status = {}({});\n", k.name, fmt::join(kernelArgs, ", "));
  out += fmt::format("  TORCH_CHECK(status == 0, \"moac.{}: the kernel returned status \" + std::to_string(status) + "
                     "\" for \" + err);\n",
                     op);
  std::vector<std::string> results;
  for (size_t b : k.outputs())
    results.push_back(cn.buffer(b));
  if (results.size() == 1)
    out += fmt::format("  return {};\n", results[0]);
  else if (results.size() > 1)
    out += fmt::format("  return {{{}}};\n", fmt::join(results, ", "));
  return out + "}\n";
}

std::string TorchPrinter::print(const EmitInputs &in) {
  std::string fileStem = commentText(k.fileName.substr(k.fileName.find_last_of('/') + 1));
  std::string out = fmt::format(
      "/* torch.ops.moac.{}: the PyTorch operator around {}, the kernel compiled by moac from {} for target {}.\n"
      " * Generated by `{}`; do not edit. docs/pytorch.md. */\n"
      "#include <ATen/ATen.h>\n#include <torch/library.h>\n\n#include <cstdint>\n#include <string>\n#include "
      "<tuple>\n\n{}#include \"moart/kernel.h\"\n#include \"{}\"\n\nnamespace {} {{\n\n",
      op, k.name, fileStem, targetName(target), commentText(in.command),
      target == Target::Cuda ? "#include <ATen/cuda/CUDAContext.h>\n#include <c10/cuda/CUDAGuard.h>\n\n" : "",
      in.headerName, ns);
  out += helpers() + body();
  out += fmt::format("\n}} // namespace {}\n\nTORCH_LIBRARY_FRAGMENT(moac, m) {{ m.def(\"{}\", &{}::run); }}\n", ns,
                     schema(), ns);
  return out;
}

} // namespace

std::string torchOperatorName(const Kernel &kernel) {
  return kernel.name.rfind("moa_", 0) == 0 && kernel.name.size() > 4 ? kernel.name.substr(4) : kernel.name;
}

std::string emitTorch(const Kernel &kernel, Target target, const EmitInputs &inputs) {
  return TorchPrinter(kernel, target).print(inputs);
}

} // namespace moac
