// docs/reference/kv-formats.md: the size table and the codebook table are generated
// from kv_format and normal_lloyd_max(), so the documentation cannot drift.
// To regenerate both after a change:
//   PCCX_UPDATE_DOCS=1 ctest --test-dir <build> -R KvDocs
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "doc_block.h"
#include "kv_test_util.h"

using namespace kvtest;
using pccx::kv::normal_lloyd_max;

namespace {

std::string source_path(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Gemma 3n E4B: 2 KV heads, K and V, 20 KV-storing layers.
constexpr uint32_t kRecordsPerTokenLayer = 2 * 2;
constexpr uint32_t kLayers = 20;
constexpr uint32_t kContext = 32768;

std::string size_table() {
  const kv_format formats[] = {fp16(),       int8(0),      int8(256),   int8(32), int4(0),
                               int4(128),    int4(32),     rot(2),      rot(3),   rot(4),
                               rot(2, true), rot(3, true), rot(4, true)};
  std::string t =
      "| name() | payload B | metadata B | record B | bits/element | B/token/layer | "
      "B/token (20 layers) | MiB at 32 K tokens |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const kv_format& f : formats) {
    const uint64_t per_layer = uint64_t(kRecordsPerTokenLayer) * f.record_bytes();
    t += "| `" + f.name() + "` | " + std::to_string(f.payload_bytes()) + " | " +
         std::to_string(f.metadata_bytes()) + " | " + std::to_string(f.record_bytes()) + " | " +
         fmt("%.3f", f.bits_per_element()) + " | " + std::to_string(per_layer) + " | " +
         std::to_string(per_layer * kLayers) + " | " +
         fmt("%.0f", double(per_layer) * kLayers * kContext / (1024.0 * 1024.0)) + " |\n";
  }
  return t;
}

std::string codebook_table() {
  std::string t =
      "| bits | positive centroids (the negative half mirrors them) | D_b | "
      "sqrt(3) pi / 2 * 4^-b |\n"
      "|---:|---|---:|---:|\n";
  for (uint32_t b = 1; b <= 4; ++b) {
    const std::vector<float> c = normal_lloyd_max(b);
    std::string cs;
    for (size_t k = c.size() / 2; k < c.size(); ++k) {
      cs += (cs.empty() ? "" : ", ") + fmt("%.9g", c[k]);
    }
    const double bound = std::sqrt(3.0) * 3.14159265358979323846 / 2 * std::pow(4.0, -double(b));
    t += "| " + std::to_string(b) + " | " + cs + " | " + fmt("%.6f", codebook_mse(c)) + " | " +
         fmt("%.6f", bound) + " |\n";
  }
  return t;
}

void check_block(const std::string& name, const std::string& want) {
  pccx::test::check_doc_block(source_path("docs/reference/kv-formats.md"), name,
                              "tests/models/kv/test_kv_format_docs.cpp", "KvDocs", want);
}

}  // namespace

TEST(KvDocs, SizeTable) {
  check_block("kv-sizes", size_table());
}

TEST(KvDocs, CodebookTable) {
  check_block("kv-codebooks", codebook_table());
}
