#include "platform/workload/json_input.h"

#include "infra/config/layered_json.h"

namespace pccx::workload {

std::string pointer(const std::string& base, const std::string& key) {
  return config::append_pointer(base, key);
}

std::string index_pointer(const std::string& base, std::size_t i) {
  return config::append_pointer(base, std::to_string(i));
}

void require(const nlohmann::json& obj, const std::string& ptr,
             std::initializer_list<const char*> keys, const std::string& file,
             config::diagnostics& diag) {
  if (!obj.is_object()) return;  // the binder reports the type
  for (const char* k : keys)
    if (!obj.contains(k)) diag.report(file, pointer(ptr, k), "missing (a required key)");
}

nlohmann::json read_object_file(const std::string& path) {
  config::diagnostics diag([&](const std::string&) { return config::source_ref{path, 1}; });
  auto parsed = config::read_json_file(path, diag);
  diag.throw_if_any();
  if (!parsed->is_object()) {
    diag.report(
        path, "",
        "expected a JSON object at the top level, found " + config::detail::json_text(*parsed));
    diag.throw_if_any();
  }
  return *parsed;
}

std::string set_key_problem(const std::string& key) {
  const bool ok = !key.empty() && key.front() != '.' && key.back() != '.' &&
                  key.find("..") == std::string::npos && key.find('=') == std::string::npos;
  return ok ? ""
            : "expected a configuration key a.b.c (dot-separated, no '='), e.g. npu.kv.key.kind";
}

std::string set_arg(const std::string& key, const nlohmann::json& value) {
  return key + "=" + value.dump();
}

std::optional<config::platform_config> load_blaming(const config::config_layers& layers,
                                                    const std::vector<set_origin>& origins,
                                                    const std::string& source,
                                                    const std::string& ptr,
                                                    config::diagnostics& diag) {
  try {
    return config::load(layers);
  } catch (const config::config_error& e) {
    for (const auto& m : e.messages()) {
      std::string where_source = source, where = ptr, what = m;
      for (const auto& o : origins) {
        const std::string prefix = "--set " + o.arg + ": ";
        if (m.rfind(prefix, 0) == 0) {
          where_source = o.source;
          where = o.pointer;
          what = o.prefix + m.substr(prefix.size());
        }
      }
      diag.report(where_source, where, what);
    }
  }
  return std::nullopt;
}

}  // namespace pccx::workload
