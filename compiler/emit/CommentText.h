// Text that moac copies into a C comment of a generated file (the .moa source, the command line, file
// names, the DNF) made inert: whatever the text holds, the comment ends where the emitter ends it and the
// C around it is the C the emitter wrote. docs/abi.md lists the spellings.
#pragma once

#include <string>
#include <string_view>

namespace moac {

// One line of `text` for the inside of a /* */ comment:
//   - `*/` and `/*` get a space between their characters (nothing closes the comment or nests in it,
//     which -Wcomment reports);
//   - `??` before a trigraph's third character gets a space too (C99 compilers read `??/` as a backslash);
//   - a backslash, a control character (C0 but tab, DEL, C1), a bidirectional control (U+202A–U+202E,
//     U+2066–U+2069, U+200E, U+200F, U+061C), a line or paragraph separator (U+2028, U+2029) and the
//     byte-order mark are written <U+XXXX>, so no line splices and no text reads in another order than
//     it compiles; a byte that starts no valid UTF-8 character is written <0xNN>.
// A newline in `text` is a control character: callers split multi-line text first.
std::string commentText(std::string_view text);

} // namespace moac
