// Every command of docs/guides/user-guide.md runs as written: the test reads
// the page, runs each `$ pccx-vp ...` command (continuation lines joined,
// single quotes honoured) in a scratch folder that sees the repository's
// configs/, and checks that each output line the page quotes under it is in
// what the command printed. Wall-clock times are the one thing allowed to
// differ; a quoted line with "..." is checked piece by piece.
#include <regex>

#include "e2e_util.h"

namespace e2e {
namespace {

using UserGuide = E2E;

struct guide_command {
  std::size_t line = 0;  // of the "$" in the page
  std::vector<std::string> argv;
  std::vector<std::string> quoted;  // the output lines the page shows
};

// Splits a shell command line on blanks, keeping 'quoted text' whole.
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool quoted = false, any = false;
  for (char c : text) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c == ' ' || c == '\t')) {
      if (any) out.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) out.push_back(word);
  return out;
}

std::vector<guide_command> commands_of(const std::string& page) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<guide_command> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("    $ ", 0) != 0) continue;
    guide_command c;
    c.line = i + 1;
    std::string text = lines[i].substr(6);
    while (!text.empty() && text.back() == '\\' && i + 1 < lines.size())
      text = text.substr(0, text.size() - 1) + " " + lines[++i];
    c.argv = words_of(text);
    for (std::size_t j = i + 1; j < lines.size(); ++j) {
      const std::string& l = lines[j];
      if (l.rfind("    ", 0) != 0 || l.rfind("    $ ", 0) == 0) break;
      c.quoted.push_back(l.substr(l.find_first_not_of(' ')));
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string without_wall_times(const std::string& s) {
  static const std::regex wall("wall [0-9.e+-]+ s");
  return std::regex_replace(s, wall, "wall W s");
}

TEST_F(UserGuide, EveryCommandRunsAsWritten) {
  const fs::path source = PCCX_SOURCE_DIR;
  for (const char* d : {"configs", "docs", "firmware", "tests"})
    fs::create_directory_symlink(source / d, dir() / d);
  const auto commands = commands_of(read_file(source / "docs/guides/user-guide.md"));
  ASSERT_GE(commands.size(), 8u);
  for (const auto& c : commands) {
    ASSERT_FALSE(c.argv.empty());
    ASSERT_EQ(c.argv[0], "pccx-vp") << "user-guide.md:" << c.line;
    // The page's what-if study is a 30-cell table: minutes on a loaded machine.
    std::vector<std::string> argv = c.argv;
    argv[0] = vp_exe();
    const auto r = run(argv, std::chrono::minutes(5));
    EXPECT_NE(r.exit_code, 2) << "user-guide.md:" << c.line << " is bad input\n" << describe(r);
    EXPECT_FALSE(r.signaled || r.timed_out) << "user-guide.md:" << c.line << "\n" << describe(r);
    const std::string printed = without_wall_times(r.out + r.err);
    for (const auto& q : c.quoted) {
      std::size_t from = 0;
      const std::string line = without_wall_times(q);
      while (from <= line.size()) {
        const std::size_t dots = std::min(line.find("...", from), line.size());
        std::string piece = line.substr(from, dots - from);
        piece.erase(0, piece.find_first_not_of(' '));
        piece.erase(piece.find_last_not_of(' ') + 1);
        EXPECT_TRUE(piece.empty() || contains(printed, piece))
            << "user-guide.md:" << c.line << " quotes\n  " << piece << "\nwhich the command did "
            << "not print:\n" << printed;
        from = dots + 3;
      }
    }
  }
}

}  // namespace
}  // namespace e2e
