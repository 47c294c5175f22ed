#include "infra/io/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace pccx::io {

namespace fs = std::filesystem;

output_file::output_file(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  std::error_code ec;
  const bool in_place = fs::exists(path_, ec) && !fs::is_regular_file(path_, ec);
  if (!in_place) temp_ = path_ + ".part-" + std::to_string(::getpid());
  errno = 0;
  out_.open(in_place ? path_ : temp_, std::ios::binary | std::ios::trunc);
  if (!out_) fail(errno ? std::strerror(errno) : "cannot open it");
}

output_file::~output_file() {
  if (committed_ || temp_.empty()) return;
  out_.close();
  std::error_code ec;
  fs::remove(temp_, ec);
}

void output_file::fail(const std::string& reason) const {
  throw output_error("cannot write " + what_ + " " + path_ + ": " + reason);
}

void output_file::commit() {
  if (committed_) return;
  errno = 0;
  out_.flush();
  const bool written = static_cast<bool>(out_);
  const int flush_errno = errno;
  out_.close();
  if (!written || out_.fail())
    fail(flush_errno ? std::strerror(flush_errno) : "a write failed (is the disk full?)");
  if (!temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) fail(std::strerror(errno));
  committed_ = true;
}

void write_output(const std::string& path, const std::string& text, const std::string& what) {
  output_file f(path, what);
  f.stream() << text;
  f.commit();
}

}  // namespace pccx::io
