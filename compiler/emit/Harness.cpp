#include "Harness.h"

#include "CNames.h"
#include "CPrinter.h"

#include <fmt/format.h>

namespace moac {

static const char *dtype(ElemType t) {
  switch (t) {
  case ElemType::F32: return "MOART_F32";
  case ElemType::F64: return "MOART_F64";
  case ElemType::BF16: return "MOART_BF16";
  case ElemType::F16: return "MOART_F16";
  case ElemType::I32: return "MOART_I32";
  case ElemType::Int: break;
  }
  return "MOART_I64";
}

namespace {

// CUDA: every array copied to a device buffer (`moa_dev_N`, names no .moa name can take), the kernel
// called with those and stream 0, the outputs and inouts copied back. Without a device the harness exits
// with 77, which `moac check` reports as "built, not run" (docs/cli.md).
struct DeviceArray {
  std::string host, count, type;
  bool copyBack;
};

std::string deviceCall(const Kernel &k, const std::vector<DeviceArray> &arrays, const std::string &args) {
  std::string out = "  int moa_devices = 0;\n"
                    "  if (cudaGetDeviceCount(&moa_devices) != cudaSuccess || moa_devices < 1) {\n"
                    "    fprintf(stderr, \"harness: no CUDA device\\n\");\n    return 77;\n  }\n";
  auto check = [](const std::string &call, const std::string &what) {
    return fmt::format("  if ({} != cudaSuccess)\n    return fail(\"{}\", cudaGetErrorString(cudaGetLastError()));\n", call,
                       what);
  };
  std::string pointers;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const DeviceArray &a = arrays[i];
    std::string bytes = fmt::format("(size_t)({}) * sizeof({})", a.count, a.type);
    out += fmt::format("  {} *moa_dev_{} = NULL;\n", a.type, i);
    out += check(fmt::format("cudaMalloc((void **)&moa_dev_{}, {} > 0 ? {} : 64)", i, bytes, bytes), "cudaMalloc");
    out += check(fmt::format("cudaMemcpy(moa_dev_{}, {}, {}, cudaMemcpyHostToDevice)", i, a.host, bytes), "cudaMemcpy");
    pointers += fmt::format("moa_dev_{}, ", i);
  }
  out += "  void *moa_dev_workspace = NULL;\n";
  out += check("cudaMalloc(&moa_dev_workspace, workspace_bytes > 0 ? workspace_bytes : 64)", "cudaMalloc");
  out += fmt::format("  status = {}({}{}moa_dev_workspace, 0);\n", k.name, args, pointers);
  out += "  if (status == 0 && cudaDeviceSynchronize() != cudaSuccess)\n"
         "    return fail(\"kernel\", cudaGetErrorString(cudaGetLastError()));\n";
  for (size_t i = 0; i < arrays.size(); ++i)
    if (arrays[i].copyBack)
      out += check(fmt::format("cudaMemcpy({}, moa_dev_{}, (size_t)({}) * sizeof({}), cudaMemcpyDeviceToHost)",
                               arrays[i].host, i, arrays[i].count, arrays[i].type),
                   "cudaMemcpy");
  return out;
}

// The arrays the kernel is called with, as the harness passes them: the OpenACC data region's clauses,
// CUDA's device copies, and the pointer arguments in the kernel's order.
struct CallArrays {
  std::vector<DataClause> data;
  std::vector<DeviceArray> device;
  std::string pointers;
};

// Each input read from its file (lifted into its layout where the kernel reads it lifted) and pointed at.
std::string readInputs(const Kernel &k, const CNames &cn, const std::string &arrayExtension, CallArrays &call) {
  std::string out;
  // Files are named after the .moa names (moac check writes and reads them); every C name is cn's.
  for (size_t b : k.inputs()) {
    const Buffer &buf = k.buffers[b];
    const std::string &c = cn.buffer(b), &file = cn.local(b, CNames::File), &arg = cn.local(b, CNames::Arg);
    out += fmt::format("  moart_array {0};\n  snprintf(path, sizeof path, \"%s/{1}{2}\", argv[1]);\n"
                       "  if (moart_read_array(path, &{0}, err, sizeof err) != MOART_OK)\n    return fail(\"input\", err);\n",
                       file, buf.name, arrayExtension);
    if (buf.layout.kind == Layout::Lifted) {
      out += fmt::format("  moart_array {0};\n  st = moart_array_create_lifted_axis(&{0}, {2}, {1}.rank, {1}.shape, {3}, {4});\n"
                         "  if (st == MOART_OK)\n    st = moart_array_relayout(&{1}, &{0});\n"
                         "  if (st != MOART_OK)\n    return fail(\"lifting {5}\", moart_status_string(st));\n",
                         arg, file, dtype(buf.elem), buf.layout.axis, buf.layout.block, buf.name);
    } else {
      out += fmt::format("  moart_array {} = {};\n", arg, file);
    }
    const char *qualifier = buf.inout ? "" : "const ";
    out += fmt::format("  {0}{1} *{2} = ({0}{1} *){3}.data;\n", qualifier, cType(buf.elem), c, arg);
    call.data.push_back({buf.inout ? DataClause::Copy : DataClause::CopyIn,
                         fmt::format("{}[0:moart_array_storage_count(&{})]", c, arg)});
    call.device.push_back({c, fmt::format("moart_array_storage_count(&{})", arg), cType(buf.elem), buf.inout});
    call.pointers += c + ", ";
  }
  return out;
}

// Each output created in its shape and poisoned: an element the kernel does not write reads back as NaN
// (INT64_MIN for integers) and fails the comparison. `copy`, not `copyout`, so that an offloaded kernel
// starts from the poison too.
std::string createOutputs(const Kernel &k, const CNames &cn, CallArrays &call) {
  std::string out;
  for (size_t b : k.outputs()) {
    const Buffer &buf = k.buffers[b];
    const std::string &c = cn.buffer(b), &shapeName = cn.local(b, CNames::Shape), &result = cn.local(b, CNames::Out);
    std::string shape;
    for (const SymExpr &e : buf.shape)
      shape += (shape.empty() ? "" : ", ") + cInteger(e, [&](Symbol s) { return cn.dim(s); });
    out += fmt::format("  int64_t {}[{}] = {{{}}};\n", shapeName, std::max<size_t>(buf.shape.size(), 1),
                       shape.empty() ? "1" : shape);
    out += fmt::format("  moart_array {0};\n  st = moart_array_create(&{0}, {1}, {2}, {3});\n"
                       "  if (st != MOART_OK)\n    return fail(\"output {4}\", moart_status_string(st));\n"
                       "  {5} *{6} = ({5} *){0}.data;\n",
                       result, dtype(buf.elem), buf.shape.size(), shapeName, buf.name, cType(buf.elem), c);
    out += fmt::format("  moart_fill_poison(&{});\n", result);
    call.data.push_back({DataClause::Copy, fmt::format("{}[0:{}.count]", c, result)});
    call.device.push_back({c, result + ".count", cType(buf.elem), true});
    call.pointers += c + ", ";
  }
  return out;
}

// Every output written to out_NAME, every inout's storage after the run to inout_NAME.
std::string writeResults(const Kernel &k, const CNames &cn, const std::string &arrayExtension) {
  std::string out;
  for (size_t b : k.outputs()) {
    const Buffer &buf = k.buffers[b];
    out += fmt::format("  snprintf(path, sizeof path, \"%s/out_{}{}\", argv[1]);\n"
                       "  if ((st = moart_write_array(path, &{})) != MOART_OK)\n    return fail(path, moart_status_string(st));\n",
                       buf.name, arrayExtension, cn.local(b, CNames::Out));
  }
  for (size_t b : k.inputs()) {
    const Buffer &buf = k.buffers[b];
    if (!buf.inout)
      continue;
    out += fmt::format("  snprintf(path, sizeof path, \"%s/inout_{}{}\", argv[1]);\n"
                       "  if ((st = moart_write_array(path, &{})) != MOART_OK)\n    return fail(path, moart_status_string(st));\n",
                       buf.name, arrayExtension, cn.local(b, CNames::Arg));
  }
  return out;
}

} // namespace

// 1. The dims from the command line, in the kernel's parameter names.
// 2. The inputs read, the outputs created (readInputs, createOutputs).
// 3. The workspace allocated and the kernel called: on the device for CUDA (deviceCall), else inside the
//    target's data region (PragmaPolicy::dataRegion: OpenACC's copies, nothing for C and OpenMP).
// 4. The results written (writeResults).
std::string emitHarness(const Kernel &k, Target target, const std::string &headerName,
                        const std::string &arrayExtension) {
  const CNames cn(k); // the kernel's names, and the locals below, which none of them can take
  std::string out = fmt::format(
      "/* Test harness for {} (generated by moac check). */\n"
      "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n{}\n#include \"moart/moart.h\"\n#include \"{}\"\n\n",
      k.name, target == Target::Cuda ? "\n#include <cuda_runtime_api.h>\n" : "", headerName);
  out += "static int fail(const char *what, const char *detail) {\n"
         "  fprintf(stderr, \"harness: %s: %s\\n\", what, detail);\n  return 1;\n}\n\n";
  out += "int main(int argc, char **argv) {\n  char path[4096];\n  char err[512];\n  moart_status st;\n  (void)err; /* unused when the program has no inputs */\n";
  std::vector<const TDim *> dims;
  for (const TDim &d : k.dims)
    if (!d.value)
      dims.push_back(&d);
  out += fmt::format("  if (argc != {})\n    return fail(\"usage\", \"harness DIR dims...\");\n", 2 + dims.size());
  std::string args;
  for (size_t i = 0; i < dims.size(); ++i) {
    out += fmt::format("  const int64_t {} = strtoll(argv[{}], NULL, 10);\n", cn.dim(dims[i]->sym), i + 2);
    args += cn.dim(dims[i]->sym) + ", ";
  }
  CallArrays call;
  out += readInputs(k, cn, arrayExtension, call);
  out += createOutputs(k, cn, call);
  out += fmt::format("  size_t workspace_bytes = {}_workspace_bytes({});\n", k.name,
                     args.empty() ? "" : args.substr(0, args.size() - 2));
  out += "  int status;\n";
  if (target == Target::Cuda) {
    out += deviceCall(k, call.device, args);
  } else {
    out += "  char *workspace = moart_alloc_aligned(workspace_bytes > 0 ? workspace_bytes : 64);\n"
           "  if (!workspace)\n    return fail(\"workspace\", \"out of memory\");\n";
    call.data.push_back({DataClause::Create, "workspace[0:workspace_bytes > 0 ? workspace_bytes : 64]"});
    if (std::string pragma = policyFor(target).dataRegion(call.data); !pragma.empty())
      out += pragma + "\n";
    out += fmt::format("  {{\n    status = {}({}{}workspace);\n  }}\n", k.name, args, call.pointers);
  }
  out += "  if (status != 0)\n    return fail(\"kernel\", moart_status_string((moart_status)status));\n";
  out += writeResults(k, cn, arrayExtension);
  out += target == Target::Cuda ? "  return 0;\n}\n" : "  moart_free_aligned(workspace);\n  return 0;\n}\n";
  return out;
}

} // namespace moac
