// The bad-input corpus (tests/corpus/README.md): every NAME.case.json under
// tests/corpus/<folder>/ names pccx-vp arguments, the exit code and the
// whole stderr the run must produce. One test per folder; each runs every
// case found there at test time, in a scratch folder, and compares the exit
// code and stderr exactly (after the path and wall-time substitutions
// below), printing a line diff on a mismatch.
//
// PCCX_UPDATE_CORPUS=1 rewrites each case's expected stderr (and stdout,
// when the case has one) from the actual output; a case that changed still
// fails that run, so the new expectations are reviewed before they pass.
#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "e2e_util.h"

namespace e2e {
namespace {

using ojson = nlohmann::ordered_json;

const fs::path kCorpus = PCCX_CORPUS_DIR;
const char* const kCaseSuffix = ".case.json";

bool update_mode() {
  const char* v = std::getenv("PCCX_UPDATE_CORPUS");
  return v != nullptr && std::string(v) == "1";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Expected text: a string as it is, or a list of lines, each ending in '\n'.
std::string expected_text(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  std::string text;
  for (const auto& line : v) text += line.get<std::string>() + "\n";
  return text;
}

// The form the case file stores: lines when the text is whole lines.
ojson stored_text(const std::string& text) {
  if (!text.empty() && text.back() != '\n') return text;
  ojson lines = ojson::array();
  for (const auto& line : split_lines(text)) lines.push_back(line);
  return lines;
}

// A line diff (longest common subsequence; the texts are short): "-" lines
// expected only, "+" lines actual only, " " common.
std::string line_diff(const std::string& expected, const std::string& actual) {
  const auto a = split_lines(expected), b = split_lines(actual);
  std::vector<std::vector<std::size_t>> lcs(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::ostringstream out;
  out << "--- expected\n+++ actual\n";
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      out << "  " << a[i++] << '\n';
      ++j;
    } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out << "- " << a[i++] << '\n';
    } else {
      out << "+ " << b[j++] << '\n';
    }
  }
  if (!expected.empty() && !actual.empty() && (expected.back() == '\n') != (actual.back() == '\n'))
    out << "(the texts differ in their final newline)\n";
  return out.str();
}

// The case's own input: the one NAME.* beside NAME.case.json ("" if none).
std::string case_input(const fs::path& case_file) {
  const std::string name = case_file.filename().string();
  const std::string stem = name.substr(0, name.size() - std::string(kCaseSuffix).size());
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(case_file.parent_path())) {
    const std::string f = e.path().filename().string();
    if (f != name && f.rfind(stem + ".", 0) == 0 && !ends_with(f, kCaseSuffix))
      found.push_back(e.path());
  }
  if (found.size() != 1) return "";
  return found[0].string();
}

std::vector<fs::path> cases_in(const fs::path& folder) {
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.is_regular_file() && ends_with(e.path().filename().string(), kCaseSuffix))
      cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::vector<std::string> case_folders() {
  std::vector<std::string> folders;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.is_directory()) folders.push_back(e.path().filename().string());
  std::sort(folders.begin(), folders.end());
  return folders;
}

class Corpus : public E2E, public ::testing::WithParamInterface<std::string> {
 protected:
  // Machine-dependent text made neutral: the folder paths, and the wall
  // time of the run summary line.
  std::string neutral(std::string text, const fs::path& folder) const {
    replace_all(text, folder.string(), "@DIR");
    replace_all(text, kCorpus.string(), "@CORPUS");
    replace_all(text, dir().string(), "@SCRATCH");
    static const std::regex wall("wall [0-9.e+-]+ s");
    return std::regex_replace(text, wall, "wall @WALL s");
  }

  // Runs one case; returns false when it did not match.
  bool run_case(const fs::path& case_file) {
    const fs::path folder = case_file.parent_path();
    const std::string input = case_input(case_file);
    ojson c;
    try {
      c = ojson::parse(read_file(case_file));
    } catch (const std::exception& e) {
      ADD_FAILURE() << case_file << ": not JSON: " << e.what();
      return false;
    }
    if (!c.is_object() || !c.contains("args") || !c.contains("exit_code")) {
      ADD_FAILURE() << case_file << ": needs \"args\", \"exit_code\" and \"stderr\"";
      return false;
    }
    std::vector<std::string> args;
    for (const auto& a : c["args"]) {
      std::string arg = a.get<std::string>();
      if (arg.find("@FILE") != std::string::npos && input.empty()) {
        ADD_FAILURE() << case_file << ": @FILE, but no single input file beside the case";
        return false;
      }
      replace_all(arg, "@FILE", input);
      replace_all(arg, "@DIR", folder.string());
      replace_all(arg, "@CORPUS", kCorpus.string());
      args.push_back(arg);
    }
    // Each case in a fresh subfolder of the scratch folder.
    const fs::path cwd = dir() / case_file.filename().string();
    fs::create_directories(cwd);
    fs::create_directories(cwd / ".capture");
    std::vector<std::string> argv{vp_exe()};
    argv.insert(argv.end(), args.begin(), args.end());
    const proc_result r = run_process(argv, cwd, cwd / ".capture", std::chrono::seconds(30));

    const std::string err = neutral(r.err, folder), out = neutral(r.out, folder);
    const std::string want_err = c.contains("stderr") ? expected_text(c["stderr"]) : "";
    const bool check_out = c.contains("stdout");
    const std::string want_out = check_out ? expected_text(c["stdout"]) : "";
    const int want_code = c["exit_code"].get<int>();

    bool ok = true;
    std::ostringstream why;
    if (r.exit_code != want_code || r.signaled || r.timed_out) {
      ok = false;
      why << "exit code " << r.exit_code << (r.signaled ? " (signal)" : "")
          << (r.timed_out ? " (timed out)" : "") << ", expected " << want_code << "\n";
    }
    if (err != want_err) {
      ok = false;
      why << "stderr differs:\n" << line_diff(want_err, err);
    }
    if (check_out && out != want_out) {
      ok = false;
      why << "stdout differs:\n" << line_diff(want_out, out);
    }
    if (!ok) {
      ADD_FAILURE() << case_file.filename().string() << " (pccx-vp" << [&] {
        std::string s;
        for (const auto& a : args) s += " " + a;
        return s;
      }() << "):\n" << why.str();
      if (update_mode() && (err != want_err || (check_out && out != want_out))) {
        c["stderr"] = stored_text(err);
        if (check_out) c["stdout"] = stored_text(out);
        write_file(case_file, c.dump(2) + "\n");
        std::cerr << "[ UPDATED  ] " << case_file << '\n';
      }
    }
    return ok;
  }
};

TEST_P(Corpus, EveryCaseGivesItsExitCodeAndStderr) {
  const auto cases = cases_in(kCorpus / GetParam());
  ASSERT_FALSE(cases.empty()) << "no *" << kCaseSuffix << " in " << kCorpus / GetParam();
  std::size_t failed = 0;
  for (const auto& c : cases) failed += !run_case(c);
  EXPECT_EQ(failed, 0u) << failed << " of " << cases.size() << " cases in " << GetParam()
                        << " failed"
                        << (update_mode() ? "; their expectations were rewritten" : "");
}

INSTANTIATE_TEST_SUITE_P(Folders, Corpus, ::testing::ValuesIn(case_folders()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace e2e
