// Reference outputs (traces/reference/): small runs whose every output file
// is checked in and compared byte for byte, as a regression of the whole
// platform. PCCX_UPDATE_REFERENCE=1 rewrites the references from this build
// instead (traces/reference/README.md).
#include <cstdlib>

#include "e2e_util.h"

using namespace e2e;

namespace {

const fs::path kReference = fs::path(PCCX_SOURCE_DIR) / "traces/reference";

bool updating() {
  const char* v = std::getenv("PCCX_UPDATE_REFERENCE");
  return v && std::string(v) == "1";
}

// "" when the two files hold the same bytes; otherwise where they part.
std::string first_difference(const fs::path& produced, const fs::path& reference) {
  if (!fs::exists(reference)) return reference.string() + " does not exist";
  if (!fs::exists(produced)) return produced.string() + " was not written";
  const std::string a = read_file(produced), b = read_file(reference);
  if (a == b) return "";
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const size_t line = 1 + std::count(b.begin(), b.begin() + i, '\n');
  const size_t bol = b.rfind('\n', i == 0 ? 0 : i - 1);
  const size_t start = bol == std::string::npos ? 0 : bol + 1;
  auto line_of = [&](const std::string& s) {
    const size_t eol = s.find('\n', start);
    return s.substr(
        start, std::min<size_t>(eol == std::string::npos ? s.size() : eol, start + 160) - start);
  };
  return reference.filename().string() + " differs at byte " + std::to_string(i) + " (line " +
         std::to_string(line) + "; " + std::to_string(a.size()) + " bytes produced, " +
         std::to_string(b.size()) + " in the reference)\n  reference: " + line_of(b) +
         "\n  produced:  " + line_of(a);
}

class ReferenceOutputs : public E2E {
 protected:
  // Runs pccx-vp from the repository root (so outputs name the inputs by
  // their repository paths) with its outputs in the scratch folder, then
  // compares (or, updating, copies) each of `files`.
  void check(const std::string& name, std::vector<std::string> args,
             const std::vector<std::string>& files) {
    args.insert(args.begin(), vp_exe());
    args.push_back("--out");
    args.push_back(path(name));
    const proc_result r = run_process(args, PCCX_SOURCE_DIR, dir(), std::chrono::seconds(120));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    const fs::path ref = kReference / name;
    for (const std::string& f : files) {
      const fs::path produced = dir() / name / f;
      if (updating()) {
        fs::create_directories(ref);
        fs::copy_file(produced, ref / f, fs::copy_options::overwrite_existing);
        continue;
      }
      EXPECT_EQ(first_difference(produced, ref / f), "")
          << "traces/reference/" << name << "/" << f
          << " no longer matches: if the change is intended, regenerate the references with "
             "PCCX_UPDATE_REFERENCE=1 and explain the difference";
    }
  }
};

}  // namespace

// The decode table of the tiny model: 10 cells (2 contexts x 5 KV strategies).
TEST_F(ReferenceOutputs, TinyDecodeTable) {
  check("tiny_decode_table", {"decode-table", "--sweep", "configs/sweeps/decode-table-tiny.json"},
        {"decode_table.md", "decode_table.csv", "decode_table.json"});
}

// Two tokens of the tiny model in timing mode, with every trace on.
TEST_F(ReferenceOutputs, TinyDecodeTraces) {
  check("tiny_decode",
        {"decode", "--model", "configs/models/tiny.json", "--context", "16", "--tokens", "2",
         "--set", "simulation.mode=timing", "--set", "output.perfetto=true", "--set",
         "output.vcd=true", "--set", "output.pccx=true"},
        {"trace.perfetto.json", "signals.vcd", "session.pccx", "ddr_bandwidth.csv",
         "ddr_totals.csv"});
}

// The comparison itself: one changed byte is found and located.
TEST_F(ReferenceOutputs, AChangedByteFails) {
  const fs::path ref = kReference / "tiny_decode" / "ddr_totals.csv";
  ASSERT_TRUE(fs::exists(ref));
  std::string text = read_file(ref);
  ASSERT_GT(text.size(), 10u);
  EXPECT_EQ(first_difference(ref, ref), "");
  const size_t at = text.size() / 2;
  text[at] = text[at] == '7' ? '8' : '7';
  write_file(path("changed.csv"), text);
  const std::string diff = first_difference(path("changed.csv"), ref);
  EXPECT_TRUE(contains(diff, "ddr_totals.csv differs at byte " + std::to_string(at))) << diff;
}
