#include "ManPage.h"

#include "Utf8.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace moac {

namespace {

// Text as troff reads it literally: backslashes and hyphens escaped, no line starting a request, and
// every non-ASCII character (ψ, ⟨⟩) as groff's \[uXXXX], which needs no input encoding.
std::string roff(const std::string &text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 0x80) {
      Utf8Char u = decodeUtf8(text, i);
      out += u.length ? fmt::format("\\[u{:04X}]", uint32_t(u.codePoint)) : "?";
      i += u.length ? u.length : 1;
      continue;
    }
    out += c == '\\' ? "\\e" : c == '-' ? "\\-" : std::string(1, char(c));
    if (c == '\n')
      out += "\\&";
    ++i;
  }
  return (out.empty() || (out[0] != '.' && out[0] != '\'')) ? out : "\\&" + out;
}

// One `.TP` entry per option: `-o, --output TEXT`, then its help.
std::string optionEntries(const CLI::App &app) {
  std::string out;
  for (const CLI::Option *opt : app.get_options()) {
    if (opt->get_group().empty() || !opt->nonpositional())
      continue;
    std::vector<std::string> names;
    for (const std::string &s : opt->get_snames())
      names.push_back("\\fB\\-" + roff(s) + "\\fR");
    for (const std::string &l : opt->get_lnames())
      names.push_back("\\fB\\-\\-" + roff(l) + "\\fR");
    std::string value = opt->get_option_text().empty() ? opt->get_type_name() : opt->get_option_text();
    out += fmt::format(".TP\n{}{}\n{}\n", fmt::join(names, ", "),
                       opt->get_type_size() != 0 && !value.empty() ? " \\fI" + roff(value) + "\\fR" : "",
                       roff(opt->get_description()));
  }
  return out;
}

constexpr const char *exitStatus = R"(.SH "EXIT STATUS"
.TP
0
success
.TP
1
an error in the program, its dims, its inputs or during evaluation (a diagnostic says which); a file that
cannot be read or written; for \fBmoac check\fR, an output out of tolerance or a kernel that does not build
or run
.TP
2
a usage error (\fBmoac: error: \fR...): an unknown subcommand or option, a missing argument, a bad option value
.TP
70
an internal error: a bug in moac (please report it with the input)
.SH "SEE ALSO"
The documentation in the source tree: docs/cli.md (the command line), docs/language.md (the .moa
language), docs/runtime.md (libmoart, .moarr and .npy files), docs/abi.md (calling a kernel from C),
docs/cmake.md (moac_add_kernel).
)";

} // namespace

std::string manPage(const CLI::App &app, const std::string &version) {
  std::vector<std::string> commands;
  for (const CLI::App *sub : app.get_subcommands([](const CLI::App *) { return true; }))
    commands.push_back("\\fB" + sub->get_name() + "\\fR");
  std::string out = fmt::format(".TH MOAC 1 \"\" \"{}\" \"User Commands\"\n.SH NAME\nmoac \\- {}\n", roff(version),
                                roff(app.get_description().substr(app.get_description().find(':') + 2)));
  out += fmt::format(".SH SYNOPSIS\n.B moac\n[\\fIOPTIONS\\fR] {} "
                     "\\fIFILE.moa\\fR [\\fIOPTIONS\\fR]\n",
                     fmt::join(commands, "|"));
  out += ".SH OPTIONS\nThese also follow any subcommand.\n" + optionEntries(app);
  out += ".SH COMMANDS\n";
  for (const CLI::App *sub : app.get_subcommands([](const CLI::App *) { return true; })) {
    out += fmt::format(".SS \"moac {} FILE.moa\"\n{}\n", sub->get_name(), roff(sub->get_description()));
    out += optionEntries(*sub);
  }
  return out + exitStatus;
}

} // namespace moac
