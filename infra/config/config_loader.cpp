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
      "| Key | Type | Default | Constraint | Description |\n"
      "|-----|------|---------|------------|-------------|\n";
  for (const auto& k : keys) {
    out += "| " + cell(k.pointer, true) + " | " + cell(k.type, false) + " | " +
           cell(k.default_value, true) + " | " + cell(k.constraint, false) + " | " +
           cell(k.doc, false) + " |\n";
  }
  return out;
}

}  // namespace pccx::config
