// `moac --man-page`: the manual page moac(1), in troff, made from the option
// parser itself — every subcommand and option with its value and help text, as
// --help lists them — around the exit statuses and pointers into docs/. The
// build writes it to moac.1 and `cmake --install` puts it in share/man/man1, so
// the page cannot drift from the options (tests/cli/manpage.sh checks it
// anyway).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace moac {

std::string manPage(const CLI::App &app, const std::string &version);

} // namespace moac
