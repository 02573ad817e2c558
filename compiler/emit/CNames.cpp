#include "CNames.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

namespace moac {

namespace {

// Words a C name must not be, as space-separated lists (read-only data; split when a CNames is made).
// Headers are included from C, C++ and CUDA translation units, after whatever the caller included, so
// a macro of any standard header (`I` of complex.h, `linux` of GCC's gnu modes) would break them too.
constexpr std::string_view keywords[] = {
    // C99, C11 (the _Upper ones are also caught by the leading-underscore rule), C23
    "auto break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void "
    "volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert "
    "_Thread_local alignas alignof bool constexpr false nullptr static_assert thread_local true typeof "
    "typeof_unqual",
    // C++17 and C++20 (the generated header is included from C++)
    "and and_eq asm bitand bitor catch char8_t char16_t char32_t class compl concept consteval constinit "
    "const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export friend mutable "
    "namespace new noexcept not not_eq operator or or_eq private protected public reinterpret_cast requires "
    "static_cast template this throw try typeid typename using virtual wchar_t xor xor_eq",
    // CUDA (the header is included from .cu files): built-in variables and vector types
    "threadIdx blockIdx blockDim gridDim warpSize dim3 half",
    // macros of the standard headers and of GCC's gnu modes
    "NULL EOF BUFSIZ FILENAME_MAX FOPEN_MAX L_tmpnam SEEK_CUR SEEK_END SEEK_SET TMP_MAX stdin stdout stderr "
    "EXIT_FAILURE EXIT_SUCCESS MB_CUR_MAX RAND_MAX errno EDOM ERANGE EILSEQ assert offsetof "
    "HUGE_VAL HUGE_VALF HUGE_VALL INFINITY NAN FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO FP_FAST_FMA "
    "FP_FAST_FMAF FP_FAST_FMAL FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT math_errhandling fpclassify "
    "isfinite isinf isnan isnormal signbit isgreater isgreaterequal isless islessequal islessgreater "
    "isunordered M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI M_SQRT2 "
    "M_SQRT1_2 PTRDIFF_MIN PTRDIFF_MAX SIZE_MAX SIG_ATOMIC_MIN SIG_ATOMIC_MAX WCHAR_MIN WCHAR_MAX WINT_MIN "
    "WINT_MAX INTMAX_MIN INTMAX_MAX UINTMAX_MAX INTPTR_MIN INTPTR_MAX UINTPTR_MAX INTMAX_C UINTMAX_C "
    "CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX SCHAR_MIN UCHAR_MAX SHRT_MAX SHRT_MIN USHRT_MAX INT_MAX INT_MIN "
    "UINT_MAX LONG_MAX LONG_MIN ULONG_MAX LLONG_MAX LLONG_MIN ULLONG_MAX MB_LEN_MAX FLT_MAX FLT_MIN "
    "FLT_EPSILON FLT_DIG FLT_MANT_DIG FLT_RADIX FLT_ROUNDS FLT_EVAL_METHOD DBL_MAX DBL_MIN DBL_EPSILON DBL_DIG "
    "DBL_MANT_DIG LDBL_MAX LDBL_MIN LDBL_EPSILON DECIMAL_DIG CLOCKS_PER_SEC TIME_UTC CLOCK_MONOTONIC "
    "CLOCK_REALTIME complex imaginary I noreturn va_arg va_copy va_end va_start setjmp linux unix i386",
    // types of the standard headers
    "size_t ptrdiff_t max_align_t wchar_t wint_t intmax_t uintmax_t intptr_t uintptr_t float_t double_t "
    "FILE fpos_t div_t ldiv_t lldiv_t va_list jmp_buf clock_t time_t timespec tm",
    // functions of stdio.h, stdlib.h, string.h and time.h (math.h below)
    "remove rename tmpfile tmpnam fclose fflush fopen freopen setbuf setvbuf fprintf fscanf printf scanf "
    "snprintf sprintf sscanf vfprintf vfscanf vprintf vscanf vsnprintf vsprintf vsscanf fgetc fgets fputc "
    "fputs getc getchar gets putc putchar puts ungetc fread fwrite fgetpos fseek fsetpos ftell rewind "
    "clearerr feof ferror perror atof atoi atol atoll strtod strtof strtold strtol strtoll strtoul strtoull "
    "rand srand aligned_alloc calloc free malloc realloc abort atexit at_quick_exit exit _Exit getenv "
    "quick_exit system bsearch qsort abs labs llabs div ldiv lldiv mblen mbtowc wctomb mbstowcs wcstombs "
    "memcpy memmove strcpy strncpy strcat strncat memcmp strcmp strcoll strncmp strxfrm memchr strchr "
    "strcspn strpbrk strrchr strspn strstr strtok memset strerror strlen clock time difftime mktime "
    "asctime ctime gmtime localtime strftime timespec_get clock_gettime",
    // what the kernel and the harness print themselves
    "main argc argv fail path err st status workspace workspace_bytes ws offset offsets",
};

// Names the workspace-layout function declares beside the dims, its only parameters: taken from dims
// only, so that an array may still be called `total` or `overflow`.
constexpr std::string_view dimOnly = "total overflow";

// math.h's functions, each also with its f (float) and l (long double) variant.
constexpr std::string_view mathFunctions =
    "acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 frexp ilogb ldexp log "
    "log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow sqrt erf erfc lgamma tgamma ceil floor "
    "nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo copysign nan nextafter "
    "nexttoward fdim fmax fmin fma";

template <class F> void eachWord(std::string_view list, F f) {
  size_t at = 0;
  while (at < list.size()) {
    size_t end = list.find(' ', at);
    if (end == std::string_view::npos)
      end = list.size();
    if (end > at)
      f(std::string(list.substr(at, end - at)));
    at = end + 1;
  }
}

// Every reserved word, the generated ones included (stdint.h's intN_t family and its macros, CUDA's
// vector types char1 … double4).
void addReserved(std::set<std::string> &into) {
  for (std::string_view list : keywords)
    eachWord(list, [&](std::string w) { into.insert(std::move(w)); });
  eachWord(mathFunctions, [&](const std::string &w) {
    into.insert(w);
    into.insert(w + "f");
    into.insert(w + "l");
  });
  for (int bits : {8, 16, 32, 64}) {
    for (const char *kind : {"", "_least", "_fast"}) {
      into.insert(fmt::format("int{}{}_t", kind, bits));
      into.insert(fmt::format("uint{}{}_t", kind, bits));
      into.insert(fmt::format("INT{}{}_MIN", kind, bits));
      into.insert(fmt::format("INT{}{}_MAX", kind, bits));
      into.insert(fmt::format("UINT{}{}_MAX", kind, bits));
    }
    into.insert(fmt::format("INT{}_C", bits));
    into.insert(fmt::format("UINT{}_C", bits));
  }
  for (const char *v : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
                        "ulonglong", "float", "double"})
    for (int n = 1; n <= 4; ++n)
      into.insert(fmt::format("{}{}", v, n));
}

bool startsWithNoCase(const std::string &s, std::string_view prefix) {
  if (s.size() < prefix.size())
    return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower((unsigned char)s[i]) != prefix[i])
      return false;
  return true;
}

// `v_` + name with every run of `_` shortened to one: `int` → `v_int`, `__LINE__` → `v_LINE_`.
std::string renamed(const std::string &name) {
  std::string out = "v";
  for (char c : "_" + name)
    if (c != '_' || out.back() != '_')
      out += c;
  return out;
}

// Joins a name and a suffix that starts with `_` without making `__`.
std::string join(const std::string &base, const char *suffix) {
  return !base.empty() && base.back() == '_' ? base + (suffix + 1) : base + suffix;
}

} // namespace

std::string kernelNameProblem(const std::string &name) {
  auto identifierChar = [](char c) { return std::isalnum((unsigned char)c) || c == '_'; };
  if (name.empty() || std::isdigit((unsigned char)name[0]) ||
      !std::all_of(name.begin(), name.end(), identifierChar))
    return "not a C identifier (letters, digits and _, not starting with a digit)";
  if (name[0] == '_' || name.find("__") != std::string::npos)
    return "C reserves names that start with _ or contain __";
  if (startsWithNoCase(name, "moart_"))
    return "names starting with moart_ are the runtime's";
  // A parameter C cannot have becomes v_<name> (CNames below), and no parameter may start with the
  // kernel's own prefix NAME_: a kernel called v or v_… would leave such a parameter no name.
  if (name == "v" || name.rfind("v_", 0) == 0)
    return "v and names starting with v_ are those of renamed parameters";
  std::set<std::string> reserved;
  addReserved(reserved);
  if (reserved.count(name))
    return "a keyword or a name of the C library, which the kernel's callers may include";
  return "";
}

bool CNames::fits(const std::string &name) const {
  return !name.empty() && name[0] != '_' && name.find("__") == std::string::npos && !startsWithNoCase(name, "moa_") &&
         !startsWithNoCase(name, "moart_") && !reserved.count(name) && !ownName(name);
}

bool CNames::ownName(const std::string &name) const {
  return name == kernelName || name.compare(0, kernelName.size() + 1, kernelName + "_") == 0;
}

std::string CNames::fresh(const std::string &base, bool counterWithUnderscore) {
  std::string candidate = base;
  for (int n = 2; taken.count(candidate); ++n)
    candidate = counterWithUnderscore ? join(base, "_") + std::to_string(n) : base + std::to_string(n);
  // Every base is one that fits, a renamed v_… (kernelNameProblem keeps the kernel's name off v_) or one
  // of those with a suffix, so no candidate can start with the kernel's prefix.
  if (ownName(candidate))
    throw std::logic_error(fmt::format("names: {} is in the kernel's own namespace", candidate));
  taken.insert(candidate);
  return candidate;
}

std::string CNames::derived(const std::string &base, const char *suffix) { return fresh(join(base, suffix), true); }

CNames::CNames(const Kernel &k) : kernelName(k.name), buffers(k.buffers.size()) {
  // The reserved words are the same for every kernel; one set per CNames rather than one for the
  // process keeps compiler/ free of mutable static state, for microseconds next to formatting the C.
  // The kernel's own names are NAME and NAME_… (NAME_workspace_bytes, the header's guard NAME_H and
  // macros NAME_<input>_LIFTED_BLOCK, CUDA's NAME_stage0, NAME_wider_P_online, …), NAME being moa_<stem>
  // or --name's: ownName (in fits) keeps every parameter and local off them.
  addReserved(reserved);
  taken = reserved;
  // The program's names: first every one C may have as written, so that no renamed name can take it.
  struct Pending {
    const std::string *moa;
    std::string *c;
    bool dim;
  };
  std::vector<Pending> pending;
  for (const TDim &d : k.dims)
    pending.push_back({&d.name, &symbols[d.sym], true});
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.buffers[b].origin == Buffer::Array)
      pending.push_back({&k.buffers[b].name, &buffers[b], false});
  std::set<std::string> dimReserved;
  eachWord(dimOnly, [&](std::string w) { dimReserved.insert(std::move(w)); });
  for (auto &[moa, c, dim] : pending)
    if (fits(*moa) && !taken.count(*moa) && !(dim && dimReserved.count(*moa)))
      *c = fresh(*moa, true);
  for (auto &[moa, c, dim] : pending)
    if (c->empty())
      *c = fresh(renamed(*moa), true);
  // names derived from the program's: a split reduction's partials and group results, chunk counts,
  // the harness's locals
  // A fused group's partials are named after the group and the member (online_o_part); the member's
  // array may have no buffer of its own (m and sum_e are no longer stored).
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const Buffer &buf = k.buffers[b];
    if (buf.origin == Buffer::FusedPartials || buf.origin == Buffer::FusedWeights ||
        buf.origin == Buffer::FusedMaximum || buf.origin == Buffer::FusedFactors || buf.origin == Buffer::FusedTile) {
      std::string base = buf.group + "_" + buf.name;
      buffers[b] = buf.origin == Buffer::FusedPartials ? derived(fits(base) ? base : renamed(base), "_part")
                                                       : fresh(fits(base) ? base : renamed(base), true);
    } else if (buf.origin != Buffer::Array) {
      buffers[b] = derived(buffers.at(*buf.aliasOf), buf.origin == Buffer::Partials ? "_part" : "_group");
    }
  }
  for (const ChunkCount &c : k.chunkCounts)
    symbol(c.sym);
  for (size_t b : k.inputs()) {
    locals[{b, File}] = derived(buffers[b], "_file");
    locals[{b, Arg}] = derived(buffers[b], "_arg");
  }
  for (size_t b : k.outputs()) {
    locals[{b, Shape}] = derived(buffers[b], "_shape");
    locals[{b, Out}] = derived(buffers[b], "_out");
  }
}

const std::string &CNames::symbol(Symbol s) {
  auto it = symbols.find(s);
  if (it != symbols.end())
    return it->second;
  // The hint, not the name: the name's counter made it unique among the compilation's symbols (or its
  // scope's), which says nothing here, while the hint is the spelling the program or the pass chose.
  std::string base = fits(s.hint()) ? s.hint() : renamed(s.hint());
  // The counter as the symbol table adds one: l2 after l, x1_2 after a hint that ends in a digit.
  return symbols[s] = fresh(base, std::isdigit((unsigned char)base.back()));
}

} // namespace moac
