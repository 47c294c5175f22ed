#include "infra/config/config_error.h"

#include "infra/text/quote.h"

namespace pccx::config {

namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

}  // namespace

config_error::config_error(std::vector<std::string> messages)
    : std::runtime_error(join_lines(messages)), messages_(std::move(messages)) {}

std::string append_pointer(const std::string& base, const std::string& token) {
  std::string out = base;
  out += '/';
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

void diagnostics::report(const std::string& source, const std::string& pointer,
                         const std::string& what) {
  std::string line = source + ": ";
  if (!pointer.empty()) line += text::escaped(pointer, 200) + ": ";  // keys are input too
  messages_.push_back(line + what);
}

void diagnostics::report(const std::string& pointer, const std::string& what) {
  report(locate(pointer).name, pointer, what);
}

void diagnostics::report_any(const std::vector<std::string>& pointers, const std::string& what) {
  if (pointers.empty()) {
    report(locate("").name, "", what);
    return;
  }
  std::size_t best = 0;
  source_ref best_src = locate(pointers[0]);
  for (std::size_t i = 1; i < pointers.size(); ++i) {
    source_ref src = locate(pointers[i]);
    if (src.layer > best_src.layer) {
      best = i;
      best_src = src;
    }
  }
  report(best_src.name, pointers[best], what);
}

void diagnostics::throw_if_any() const {
  if (!messages_.empty()) throw config_error(messages_);
}

source_ref diagnostics::locate(const std::string& pointer) const {
  if (locate_) return locate_(pointer);
  return {"config", 0};
}

void validator::fail(const std::string& field, const std::string& what) {
  diag_.report(pointer(field), what);
}

void validator::fail(std::initializer_list<std::string> fields, const std::string& what) {
  std::vector<std::string> pointers;
  for (const auto& f : fields) pointers.push_back(pointer(f));
  diag_.report_any(pointers, what);
}

std::string validator::pointer(const std::string& field) const {
  // Fields are written by the struct author, not the user, so '/' inside
  // them is a path separator rather than something to escape.
  return base_ + "/" + field;
}

}  // namespace pccx::config
