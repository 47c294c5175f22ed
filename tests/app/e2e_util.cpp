#include "e2e_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace e2e {

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

proc_result run_process(const std::vector<std::string>& argv, const fs::path& cwd,
                        const fs::path& capture_dir, std::chrono::milliseconds timeout) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
  static unsigned counter = 0;
  const unsigned n = ++counter;
  const std::string out_path = (capture_dir / ("run" + std::to_string(n) + ".out")).string();
  const std::string err_path = (capture_dir / ("run" + std::to_string(n) + ".err")).string();
  const std::string exe = find_in_path(argv[0]);
  if (exe.empty()) throw std::runtime_error("run_process: " + argv[0] + " not found in PATH");

  // Everything the child needs is prepared before fork: after it, the child
  // only makes system calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string cwd_s = cwd.string();

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0)
      ::_exit(126);
    ::close(out);
    ::close(err);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::close(devnull);
    }
    if (::chdir(cwd_s.c_str()) != 0) ::_exit(126);
    ::execv(exe.c_str(), args.data());
    static const char msg[] = "run_process: exec failed\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }

  proc_result r;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR)
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.exit_code = 128 + WTERMSIG(status);
  }
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<json> read_jsonl(const fs::path& path) {
  std::vector<json> records;
  size_t n = 0;
  for (const auto& line : read_lines(path)) {
    ++n;
    try {
      records.push_back(json::parse(line));
    } catch (const json::exception& e) {
      ADD_FAILURE() << path << ":" << n << ": not JSON (" << e.what() << "): " << line;
    }
  }
  return records;
}

std::vector<json> without_markers(const std::vector<json>& records) {
  std::vector<json> out;
  for (const auto& r : records)
    if (!is_marker(r)) out.push_back(r);
  return out;
}

std::vector<json> only_markers(const std::vector<json>& records) {
  std::vector<json> out;
  for (const auto& r : records)
    if (is_marker(r)) out.push_back(r);
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string describe(const proc_result& r) {
  std::ostringstream s;
  s << "exit code " << r.exit_code << (r.signaled ? " (signal)" : "")
    << (r.timed_out ? " (timed out)" : "") << "\n--- stdout ---\n"
    << r.out << "--- stderr ---\n"
    << r.err;
  return s.str();
}

void E2E::SetUp() {
  // mkdtemp replaces the six trailing X with a unique suffix.
  std::string tmpl = (fs::temp_directory_path() / "pccx-e2e-").string() + std::string(6, 'X');
  if (!::mkdtemp(tmpl.data())) FAIL() << "mkdtemp: " << std::strerror(errno);
  dir_ = tmpl;
  // Captured streams live apart from the run's own outputs.
  capture_dir_ = dir_ / ".capture";
  fs::create_directories(capture_dir_);
}

void E2E::TearDown() {
  if (dir_.empty()) return;
  if (HasFailure()) {
    std::cerr << "[   KEPT   ] scratch folder of the failed test: " << dir_ << '\n';
    return;
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

proc_result E2E::vp(const std::vector<std::string>& args) {
  std::vector<std::string> argv{vp_exe()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, dir_, capture_dir_, std::chrono::seconds(30));
}

proc_result E2E::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  return run_process(argv, dir_, capture_dir_, timeout);
}

}  // namespace e2e
