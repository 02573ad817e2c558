// moac_difftest: differential testing of the whole compiler. Random well-shaped programs (the
// generator of tests/support) go through `moac check` for every CPU target — ψ-reduction, lowering,
// the C/OpenMP/OpenACC emitters, the system C compiler, a run on seeded inputs — and the kernel's
// outputs are compared with the reference interpreter's, which never sees the DNF or the loop IR.
//
//   moac_difftest --moac build/bin/moac --seed 1 --count 1000 --targets c,openmp,openacc --jobs 2
//   moac_difftest --moac build/bin/moac tests/difftest/regressions/*.moa
//
// Every failing program × target is kept in --out (seed-N.moa with its dims, schedule and the moac check
// log); with --reduce, the program is first cut down line by line while the same kind of failure remains.
// A generated case also draws from its seed a schedule small enough that its split reductions have
// partials and a two-level combine (chunk = 1–3 terms, 2–64 work items, each layout), and names from the
// C-hostile list of tests/names/hygiene.py in place of the generator's own (half the cases each).
#include "ElemType.h"
#include "ProgramGenerator.h"
#include "ReduceLines.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <sys/wait.h>

namespace fs = std::filesystem;
using namespace moac;

namespace {

struct Options {
  std::string moac;
  std::vector<std::string> targets{"c", "openmp", "openacc"};
  uint64_t seed = 1, count = 100;
  unsigned jobs = 2;
  std::string out = "difftest-failures";
  std::string cc;
  bool reduce = false, keepPassing = false;
  bool schedules = true, hostile = true; // draw schedules and hostile names for generated cases
  testgen::GeneratorOptions gen;
  std::vector<std::string> files;
};

// One program and the dims it runs at.
struct Case {
  std::string name; // seed-17 or the regression file's stem
  std::string text;
  std::string dims;     // n=3,m=2 (may be empty)
  std::string schedule; // moac check --schedule (empty: the default)
  uint64_t seed = 1;
};

// Names the generated C must survive in every role (a part of tests/names/hygiene.py's list: C keywords
// and library names, macros, the runtime's and the emitters' own names, digit-suffixed and case variants).
const char *const hostileNames[] = {
    "int", "for", "NULL", "__LINE__", "_Bool", "class", "threadIdx", "printf", "fabsf", "SIZE_MAX", "M_PI",
    "I", "linux", "moart_chunks", "moa_x", "workspace", "offsets", "status", "st", "x_part", "x_group",
    "x_file", "acc", "c", "c2", "g", "main", "argc", "P_x", "Q_x", "total", "fail", "err", "i", "j", "l", "k",
    "t", "h", "h2", "X", "x", "N", "INFINITY", "errno", "stdout", "restrict", "inline", "double", "float",
    "return", "static", "signed", "_", "v_int", "x__y"};

// The words of the language that a rename must leave alone (front/Lexer.cpp's keywords, the element types).
bool isMoaWord(const std::string &w) {
  static const std::set<std::string> words = {
      "dim", "in", "out", "inout", "fn", "assume", "psi", "rho", "iota", "tran", "take", "drop", "cat", "reshape", "rav",
      "div", "mod", "max", "min", "neg", "exp", "log", "sqrt", "abs", "not", "and", "or", "where", "inf", "tanh",
      "sin", "cos", "exp2", "log2", "sigmoid", "pow"};
  return words.count(w) != 0 || parseElemType(w).has_value();
}

// Calls `visit(begin, length)` on each name of a program's text outside its comments (numbers such as
// 1e-5 are skipped whole, so their exponent is not a name, and the `o` of an outer product `o.*` too).
template <typename Visit> void forEachName(const std::string &text, Visit visit) {
  for (size_t at = 0; at < text.size();) {
    unsigned char ch = (unsigned char)text[at];
    if (ch == '#') {
      at = text.find('\n', at);
      at = at == std::string::npos ? text.size() : at;
    } else if (std::isdigit(ch)) {
      for (++at; at < text.size(); ++at) {
        char c = text[at];
        bool exponentSign = (c == '+' || c == '-') && (text[at - 1] == 'e' || text[at - 1] == 'E');
        if (!std::isalnum((unsigned char)c) && c != '.' && c != '_' && !exponentSign)
          break;
      }
    } else if (std::isalpha(ch) || ch == '_') {
      size_t begin = at;
      while (at < text.size() && (std::isalnum((unsigned char)text[at]) || text[at] == '_'))
        ++at;
      bool outerProduct = at - begin == 1 && text[begin] == 'o' && at < text.size() && text[at] == '.'; // o.×
      if (!outerProduct)
        visit(begin, at - begin);
    } else {
      ++at;
    }
  }
}

// Renames every name of the program (and of its dims) to one from hostileNames, drawn from `seed`; names
// the program already has are not given to another.
void renameHostile(Case &c, uint64_t seed) {
  std::set<std::string> present;
  std::vector<std::string> order;
  forEachName(c.text, [&](size_t at, size_t length) {
    std::string w = c.text.substr(at, length);
    if (!isMoaWord(w) && present.insert(w).second)
      order.push_back(w);
  });
  std::vector<std::string> pool;
  for (const char *name : hostileNames)
    if (!present.count(name) && !isMoaWord(name))
      pool.push_back(name);
  std::mt19937_64 random(seed);
  std::shuffle(pool.begin(), pool.end(), random);
  std::map<std::string, std::string> to;
  for (size_t k = 0; k < order.size() && k < pool.size(); ++k)
    to[order[k]] = pool[k];
  auto rename = [&](const std::string &text) {
    std::string out;
    size_t copied = 0;
    forEachName(text, [&](size_t at, size_t length) {
      auto it = to.find(text.substr(at, length));
      if (it == to.end())
        return;
      out += text.substr(copied, at - copied) + it->second;
      copied = at + length;
    });
    return out + text.substr(copied);
  };
  c.text = rename(c.text);
  std::string dims;
  for (std::string_view rest = c.dims; !rest.empty();) { // n=3,m=2: the names before each '='
    size_t comma = rest.find(','), eq = rest.find('=');
    std::string item(rest.substr(0, comma));
    auto it = to.find(std::string(rest.substr(0, eq)));
    dims += (dims.empty() ? "" : ",") + (it == to.end() ? item : it->second + item.substr(eq));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  c.dims = dims;
}

// A schedule whose split reductions reach partials and a two-level combine at the generator's sizes (a
// reduction of 5 terms with chunk = 1 and 64 work items has P = 5 partials in Q = 5 groups), or the default.
std::string drawSchedule(uint64_t seed) {
  std::mt19937_64 random(seed * 0x9E3779B97F4A7C15ull + 7);
  if (random() % 2 == 0)
    return "";
  static const char *const layouts[] = {"auto", "rowmajor", "lifted"};
  static const int threads[] = {2, 8, 64};
  return fmt::format("chunk={},threads={},layout={}", 1 + random() % 3, threads[random() % 3], layouts[random() % 3]);
}

std::string readText(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What went wrong, from moac check's exit status and output: "" for a pass.
std::string kindOf(int status, const std::string &log) {
  if (status == 0)
    return "";
  if (log.find("building the kernel failed") != std::string::npos)
    return "the generated C does not compile";
  if (log.find("running the kernel failed") != std::string::npos)
    return "the kernel failed at run time";
  if (log.find("internal error") != std::string::npos)
    return "internal compiler error";
  if (log.find("\nFAIL") != std::string::npos)
    return "outputs differ from the interpreter";
  if (log.find("error:") != std::string::npos)
    return "moac rejected the program";
  return fmt::format("moac check exited with {}", status);
}

class Runner {
public:
  explicit Runner(const Options &o) : opt(o) { fs::create_directories(opt.out); }

  // Runs moac check on the text for one target; returns the failure kind ("" = pass) and the log.
  std::pair<std::string, std::string> check(const Case &c, const std::string &target, const std::string &tag) {
    fs::path dir = fs::path(opt.out) / "work";
    fs::create_directories(dir);
    fs::path file = dir / fmt::format("{}-{}.moa", c.name, tag), log = dir / fmt::format("{}-{}.log", c.name, tag);
    std::ofstream(file) << c.text;
    std::string cmd = fmt::format("'{}' check '{}' --target={} --seed {}", opt.moac, file.string(), target, c.seed);
    if (!c.dims.empty())
      cmd += " --dims '" + c.dims + "'";
    if (!c.schedule.empty())
      cmd += " --schedule " + c.schedule;
    if (!opt.cc.empty())
      cmd += " --cc '" + opt.cc + "'";
    cmd += fmt::format(" > '{}' 2>&1", log.string());
    int raw = std::system(cmd.c_str());
    int status = raw == -1 ? -1 : WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    std::string text = readText(log);
    fs::remove(file);
    fs::remove(log);
    return {kindOf(status, text), fmt::format("$ {}\n{}", cmd.substr(0, cmd.find(" > ")), text)};
  }

  // Cuts the program down line by line while the failure stays the same kind.
  std::string reduce(const Case &c, const std::string &target, const std::string &kind) {
    return testgen::reduceLines(c.text, [&](const std::string &text) {
      Case smaller = c;
      smaller.text = text;
      return check(smaller, target, "reduce").first == kind;
    });
  }

  void keep(const Case &c, const std::string &target, const std::string &kind, const std::string &log) {
    std::string text = c.text;
    if (opt.reduce)
      text = reduce(c, target, kind);
    fs::path base = fs::path(opt.out) / fmt::format("{}.{}", c.name, target);
    std::ofstream(base.string() + ".moa") << fmt::format("# {}: {} (target {})\n# dims: {}\n# seed: {}\n{}{}",
                                                         c.name, kind, target, c.dims, c.seed,
                                                         c.schedule.empty() ? "" : "# schedule: " + c.schedule + "\n",
                                                         text);
    std::ofstream(base.string() + ".log") << log;
  }

  const Options &opt;
};

std::vector<std::string> commentValues(const std::string &text, const std::string &key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# " + key + ":", 0) == 0) {
      std::string v = line.substr(key.size() + 3);
      v.erase(0, v.find_first_not_of(' '));
      v.erase(v.find_last_not_of(" \r") + 1);
      out.push_back(v);
    }
  return out;
}

// The cases to run: the files given (each once per `# dims:` line), or `count` generated programs.
std::vector<Case> cases(const Options &o) {
  std::vector<Case> out;
  for (const auto &f : o.files) {
    std::string text = readText(f);
    std::vector<std::string> dims = commentValues(text, "dims"), seeds = commentValues(text, "seed"),
                             schedules = commentValues(text, "schedule");
    if (dims.empty())
      dims.push_back("");
    for (const auto &d : dims)
      out.push_back({fs::path(f).stem().string(), text, d, schedules.empty() ? "" : schedules[0],
                     seeds.empty() ? 1 : std::stoull(seeds[0])});
  }
  for (uint64_t s = o.seed; o.files.empty() && s < o.seed + o.count; ++s) {
    testgen::GeneratedProgram p = testgen::generateProgram(s, o.gen);
    Case c{fmt::format("seed-{}", s), p.text, testgen::formatDims(testgen::chooseDims(p, s, o.gen)),
           o.schedules ? drawSchedule(s) : "", s};
    if (o.hostile && s % 2 == 1)
      renameHostile(c, s);
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  CLI::App app{"moac_difftest: random programs through moac check on every CPU target, against the interpreter"};
  app.add_option("--moac", o.moac, "the moac driver to test")->required()->check(CLI::ExistingFile);
  app.add_option("--targets", o.targets, "targets to compile for")->delimiter(',')->check(CLI::IsMember({"c", "openmp", "openacc"}));
  app.add_option("--seed", o.seed, "first generator seed");
  app.add_option("--count", o.count, "number of generated programs");
  app.add_option("--jobs,-j", o.jobs, "moac check runs at a time")->check(CLI::Range(1u, 256u));
  app.add_option("--out", o.out, "where failing programs and logs are kept");
  app.add_option("--cc", o.cc, "C compiler for moac check (default: its own)");
  app.add_flag("--reduce", o.reduce, "cut failing programs down line by line before keeping them");
  app.add_option("--depth", o.gen.maxDepth, "generator: expression depth");
  app.add_option("--maxdim", o.gen.maxDim, "generator: largest run-time dim");
  app.add_flag("!--no-schedules", o.schedules, "generated cases use the default schedule only");
  app.add_flag("!--no-hostile-names", o.hostile, "generated cases keep the generator's names");
  app.add_option("files", o.files, "programs to check instead of generated ones (with # dims: and # seed: lines)")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  o.moac = fs::absolute(o.moac).string();

  std::vector<Case> all = cases(o);
  Runner runner(o);
  std::atomic<size_t> next{0}, runs{0}, failures{0};
  std::mutex printing;
  auto begin = std::chrono::steady_clock::now();
  auto work = [&] {
    for (size_t i; (i = next++) < all.size() * o.targets.size();) {
      const Case &c = all[i / o.targets.size()];
      const std::string &target = o.targets[i % o.targets.size()];
      auto [kind, log] = runner.check(c, target, target);
      ++runs;
      if (kind.empty())
        continue;
      ++failures;
      {
        std::lock_guard<std::mutex> lock(printing);
        std::fprintf(stderr, "FAIL %s --target=%s --dims %s --schedule %s: %s\n%s\n", c.name.c_str(), target.c_str(),
                     c.dims.c_str(), c.schedule.empty() ? "(default)" : c.schedule.c_str(),
                     kind.c_str(), log.c_str());
      }
      runner.keep(c, target, kind, log);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < o.jobs; ++j)
    pool.emplace_back(work);
  for (auto &t : pool)
    t.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::string what = o.files.empty() ? fmt::format("seeds {} … {}", o.seed, o.seed + o.count - 1)
                                     : fmt::format("{} files", o.files.size());
  std::printf("difftest: %zu programs (%s) × %zu targets (%s) = %zu runs, %zu mismatches, %.1f s\n", all.size(),
              what.c_str(), o.targets.size(), fmt::format("{}", fmt::join(o.targets, ",")).c_str(), runs.load(),
              failures.load(), seconds);
  if (failures)
    std::printf("failing programs and logs are in %s\n", fs::absolute(o.out).c_str());
  fs::remove_all(fs::path(o.out) / "work");
  if (!failures) {
    std::error_code ignored;
    fs::remove(o.out, ignored); // empty when nothing failed
  }
  return failures ? 1 : 0;
}
