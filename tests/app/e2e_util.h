// Helpers for the end-to-end tests: run a program as a subprocess (no
// shell: arguments go straight to execv) with stdout and stderr captured,
// a per-test scratch folder, and file/JSON Lines readers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace e2e {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct proc_result {
  int exit_code = -1;  // the exit status, or 128 + signal number
  bool signaled = false;
  bool timed_out = false;  // killed after the timeout
  std::string out;         // everything written to stdout
  std::string err;         // everything written to stderr
};

// Runs argv[0] (a path, or a name looked up in PATH) with the given
// arguments in folder `cwd`; stdout and stderr are captured through files
// in `capture_dir`. A run still going after `timeout` is killed.
proc_result run_process(const std::vector<std::string>& argv, const fs::path& cwd,
                        const fs::path& capture_dir,
                        std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Full path of `name` found in PATH, or "" when it is not there.
std::string find_in_path(const std::string& name);

std::string read_file(const fs::path& path);
void write_file(const fs::path& path, const std::string& text);
// Lines of a text file, without their '\n'.
std::vector<std::string> read_lines(const fs::path& path);
// One JSON value per line; a line that does not parse fails the test.
std::vector<json> read_jsonl(const fs::path& path);
inline bool is_marker(const json& record) {
  return record.contains("marker");
}
std::vector<json> without_markers(const std::vector<json>& records);
std::vector<json> only_markers(const std::vector<json>& records);

bool contains(const std::string& haystack, const std::string& needle);

// Paths of what the tests run.
inline std::string vp_exe() {
  return PCCX_VP_EXE;
}
inline std::string project_firmware(const std::string& name) {
  return std::string(PCCX_FW_DIR) + "/" + name + ".so";
}
inline std::string test_firmware(const std::string& name) {
  return std::string(PCCX_E2E_FW_DIR) + "/" + name + ".so";
}
inline std::string data_file(const std::string& name) {
  return std::string(PCCX_E2E_DATA_DIR) + "/" + name;
}

// Fixture: a fresh scratch folder per test (removed afterwards unless the
// test failed, so a failure can be inspected), and pccx-vp run inside it.
class E2E : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // pccx-vp ARGS, run in the scratch folder.
  proc_result vp(const std::vector<std::string>& args);
  // Any program, run in the scratch folder.
  proc_result run(const std::vector<std::string>& argv,
                  std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // A path inside the scratch folder.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  fs::path capture_dir_;
};

// gtest assertion text for a run: its exit code and both streams.
std::string describe(const proc_result& r);

}  // namespace e2e
