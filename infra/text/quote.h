// Input quoted in a message, safely: a user's text (a file name, a key, an
// option's value) may hold control characters that would rewrite the
// terminal, bytes that are not UTF-8, or megabytes on one line. Messages
// show it escaped and cut to a readable length.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pccx::text {

// Control characters as \n, \t, \r, \e or \xNN, a backslash as \\, bytes
// that are not UTF-8 as \xNN; text past `max_bytes` of the input is cut
// and counted ("... (N more bytes)").
std::string escaped(std::string_view input, std::size_t max_bytes = 120);

// escaped() between double quotes (a quote inside as \").
std::string quoted(std::string_view input, std::size_t max_bytes = 120);

// A whole message for the terminal: as escaped(), but newlines stay, and
// each line is cut at `max_line_bytes`.
std::string printable_message(std::string_view message, std::size_t max_line_bytes = 2000);

// Text for XML or HTML content and attributes: & < > " ' as entities,
// control characters (not allowed in XML 1.0) as spaces, except tabs and,
// when `keep_newlines`, line feeds.
std::string markup_escaped(std::string_view text, bool keep_newlines = false);

}  // namespace pccx::text
