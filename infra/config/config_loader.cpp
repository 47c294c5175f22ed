#include "infra/config/config_loader.h"

namespace pccx::config {

namespace {

std::string cell(const std::string& text, bool code) {
  if (text.empty()) return "";
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return code ? "`" + out + "`" : out;
}

}  // namespace

std::string key_table_markdown(const std::vector<key_info>& keys) {
  std::string out =
      "| Key | Type | Default | Constraint | Description | Why this range |\n"
      "|-----|------|---------|------------|-------------|----------------|\n";
  for (const auto& k : keys) {
    out += "| " + cell(k.pointer, true) + " | " + cell(k.type, false) + " | " +
           cell(k.default_value, true) + " | " + cell(k.constraint, false) + " | " +
           cell(k.doc, false) + " | " + cell(k.range_reason, false) + " |\n";
  }
  return out;
}

std::vector<std::string> unexplained_ranges(const std::vector<key_info>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys) {
    std::string leaf = k.type.rfind("array of ", 0) == 0 ? k.type.substr(9) : k.type;
    bool numeric = leaf == "number" || leaf.rfind("uint", 0) == 0 || leaf.rfind("int", 0) == 0;
    if (!numeric) continue;
    if (k.constraint.empty() || k.constraint[0] != '[')
      out.push_back(k.pointer + ": no [min, max] (constraint \"" + k.constraint + "\")");
    else if (k.range_reason.empty())
      out.push_back(k.pointer + ": no reason for " + k.constraint.substr(0, k.constraint.find(']') + 1));
  }
  return out;
}

}  // namespace pccx::config
