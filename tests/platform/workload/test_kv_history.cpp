// The KV history of a functional decode (platform/workload/kv_history): its
// records land at the slots the firmware's KV driver reads after the
// decode's ring set-up and decode back to the history vectors within each
// format's bound; its valid sets are the driver's stream positions; its
// sinks are those the decode runner hands the firmware; and the reference
// decoder runs on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>

#include "models/kv/kv_codec.h"
#include "pccx_gemma_decode.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/kv_history.h"
#include "platform/workload/llm/reference_decoder.h"
#include "platform/workload/llm/weight_image.h"

using namespace pccx;

namespace {

llm::model_config tiny(const std::vector<std::string>& sets = {}) {
  return llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json", sets);
}

llm::kv_formats formats(const llm::model_config& m, kv::kv_kind kind, uint32_t group = 0,
                        uint32_t bits = 4) {
  llm::kv_formats f = llm::kv_fp16(m);
  for (auto* x : {&f.key, &f.value}) {
    x->kind = kind;
    x->group = group;
    x->bits = bits;
  }
  return f;
}

llm::ddr_plan plan_of(const llm::model_config& m, const llm::kv_formats& f, uint32_t cap) {
  return llm::plan_ddr(m, f, cap, 0, 0x100000000ull);
}

// The bytes at [addr, addr + n) from the blobs (empty if not covered).
std::vector<uint8_t> bytes_at(const std::vector<llm::blob>& blobs, uint64_t addr, size_t n) {
  for (const auto& b : blobs)
    if (addr >= b.addr && addr + n <= b.addr + b.bytes.size())
      return std::vector<uint8_t>(b.bytes.begin() + (addr - b.addr),
                                  b.bytes.begin() + (addr - b.addr) + n);
  return {};
}

// The driver's valid set, sorted: the stream positions of its order.
std::vector<uint32_t> driver_positions(const pccx_kv_handle& h) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < pccx_kv_valid_tokens(&h); ++i) {
    uint32_t pos = 0;
    EXPECT_EQ(pccx_kv_stream_position(&h, i, &pos), PCCX_KV_OK);
    out.push_back(pos);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Largest error allowed between a vector and its decoded record, per
// element (docs/reference/kv-formats.md, error bounds); rotated formats are checked
// by their mean squared error instead.
double element_bound(const kv::kv_format& f, const std::vector<float>& x, uint32_t i) {
  switch (f.kind) {
    case kv::kv_kind::fp16: return std::ldexp(std::fabs(x[i]), -11) + std::ldexp(1.0, -25);
    case kv::kv_kind::int8:
    case kv::kv_kind::int4: {
      const double qmax = f.kind == kv::kv_kind::int8 ? 127 : 7;
      const uint32_t g0 = i / f.group * f.group;
      double mx = 0;
      for (uint32_t k = g0; k < g0 + f.group; ++k) mx = std::max(mx, double(std::fabs(x[k])));
      return mx / qmax * (1 + std::ldexp(1.0, -8)) / 2;
    }
    default: return INFINITY;
  }
}

}  // namespace

TEST(KvHistory, BlobsLandAtTheDriverSlotsAndDecodeToTheHistory) {
  // Ring cap 12 with 4 sinks after L = 20: the global ring (layer 4) has
  // wrapped and holds 0..3 and 12..19; the local ring (8 records, no
  // sinks) 12..19.
  const auto m = tiny();
  struct fmt {
    const char* name;
    llm::kv_formats f;
    double mse;  // rotated: mean relative squared error below this
  };
  llm::kv_formats mixed = formats(m, kv::kv_kind::int8, 32);
  mixed.value = llm::kv_fp16(m).value;
  const fmt cases[] = {
      {"fp16", llm::kv_fp16(m), 0},
      {"int8/g32", formats(m, kv::kv_kind::int8, 32), 0},
      {"int4/g8", formats(m, kv::kv_kind::int4, 8), 0},
      {"int8/g32 keys, fp16 values", mixed, 0},
      {"rot3", formats(m, kv::kv_kind::rotated, 0, 3), 0.045},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const llm::ddr_plan plan = plan_of(m, c.f, 12);
    ASSERT_EQ(plan.kv_rings.size(), 2u);
    const workload::kv_history hist(m, plan, c.f, 20, 4, 9);
    const auto blobs = hist.blobs();
    const kv::kv_codec kc(c.f.key), vc(c.f.value);
    uint64_t expected_bytes = 0;
    double err2 = 0, norm2 = 0;
    for (size_t g = 0; g < plan.kv_rings.size(); ++g) {
      const auto& grp = plan.kv_rings[g];
      SCOPED_TRACE(grp.name);
      const pccx_kv_handle h = hist.handle(g);
      EXPECT_EQ(pccx_kv_tokens(&h), 20u);
      const auto valid = hist.valid_positions(g, 20);
      EXPECT_EQ(valid, driver_positions(h));
      EXPECT_EQ(valid.size(), grp.name == "kv.local" ? 8u : 12u);
      expected_bytes += valid.size() * grp.layers.size() * grp.kv_heads *
                        (grp.k_record_bytes + grp.v_record_bytes);
      for (uint32_t pos : valid)
        for (uint32_t index = 0; index < grp.layers.size(); ++index)
          for (int is_value = 0; is_value < 2; ++is_value) {
            uint64_t addr = 0;
            ASSERT_EQ(pccx_kv_slot_addr(&h, index, 0, is_value, pos, &addr), PCCX_KV_OK);
            const kv::kv_codec& codec = is_value ? vc : kc;
            const auto rec = bytes_at(blobs, addr, codec.format().record_bytes());
            ASSERT_FALSE(rec.empty()) << "position " << pos << " layer " << grp.layers[index];
            std::vector<float> back(m.attention.head_dim);
            codec.decode(rec.data(), back.data());
            const auto x = hist.vector(grp.layers[index], 0, pos, is_value != 0);
            for (uint32_t i = 0; i < x.size(); ++i) {
              ASSERT_LE(std::fabs(double(back[i]) - x[i]), element_bound(codec.format(), x, i))
                  << "element " << i;
              err2 += (double(back[i]) - x[i]) * (double(back[i]) - x[i]);
              norm2 += double(x[i]) * x[i];
            }
          }
    }
    if (c.mse > 0) {
      std::cout << c.name << ": relative squared error " << err2 / norm2 << "\n";
      EXPECT_LT(err2 / norm2, c.mse);
    }
    // Exactly those records: nothing else, nothing twice, each blob inside
    // one ring region, in address order.
    uint64_t total = 0, last_end = 0;
    for (const auto& b : blobs) {
      total += b.bytes.size();
      EXPECT_GE(b.addr, last_end);
      last_end = b.addr + b.bytes.size();
      const bool inside = std::any_of(plan.kv_rings.begin(), plan.kv_rings.end(), [&](auto& grp) {
        return b.addr >= grp.base && last_end <= grp.base + grp.bytes;
      });
      EXPECT_TRUE(inside) << b.addr;
    }
    EXPECT_EQ(total, expected_bytes);
  }
}

TEST(KvHistory, ValidSetsOfAWrappedRingWithSinksAreTheDriversStreamPositions) {
  const auto m = tiny();
  const auto f = llm::kv_fp16(m);
  const llm::ddr_plan plan = plan_of(m, f, 12);
  const workload::kv_history hist(m, plan, f, 20, 4, 1);
  for (size_t g = 0; g < plan.kv_rings.size(); ++g) {
    SCOPED_TRACE(plan.kv_rings[g].name);
    pccx_kv_handle h = hist.handle(g);
    for (uint32_t n = 21; n < 40; ++n) {
      ASSERT_EQ(pccx_kv_append_token(&h, nullptr), PCCX_KV_OK);
      EXPECT_EQ(hist.valid_positions(g, n), driver_positions(h)) << n;
    }
  }
  // Every small ring against the driver, over three laps.
  for (uint32_t cap = 1; cap <= 9; ++cap)
    for (uint32_t sinks = 0; sinks < cap; ++sinks) {
      pccx_kv_handle h;
      pccx_kv_configure(&h, 1, 1, 16, 16, 0, 1 << 20);
      ASSERT_EQ(pccx_kv_set_sinks(&h, sinks), PCCX_KV_OK);
      ASSERT_EQ(pccx_kv_init(&h, cap), PCCX_KV_OK);
      for (uint32_t n = 0; n <= 3 * cap; ++n) {
        EXPECT_EQ(llm::ring_valid_positions(n, {cap, sinks}), driver_positions(h))
            << cap << " " << sinks << " " << n;
        ASSERT_EQ(pccx_kv_append_token(&h, nullptr), PCCX_KV_OK);
      }
    }
}

TEST(KvHistory, SinksAreThoseTheDecodeRunnerHandsTheFirmware) {
  for (const char* window : {"attention.sliding_window=8", "attention.sliding_window=0"}) {
    SCOPED_TRACE(window);
    const auto m = tiny({window});
    const auto f = llm::kv_fp16(m);
    const llm::ddr_plan plan = plan_of(m, f, 12);
    const workload::kv_history hist(m, plan, f, 20, 3, 1);
    workload::decode_options o;
    o.context = 20;
    o.tokens = 1;
    o.ring_cap = 12;
    o.sinks = 3;
    workload::block_addresses at;
    at.weight_channels = {2, 3};
    const auto block = workload::decode_param_block(m, plan, o, at, f);
    gd_block_header h;
    ASSERT_GE(block.size(), sizeof h);
    std::memcpy(&h, block.data(), sizeof h);
    for (size_t g = 0; g < plan.kv_rings.size(); ++g) {
      const uint32_t sinks = h.ring[g].sinks;
      EXPECT_EQ(hist.sinks_of(g), sinks) << plan.kv_rings[g].name;
      EXPECT_EQ(pccx_kv_sinks(&(const pccx_kv_handle&)hist.handle(g)), sinks);
    }
  }
}

TEST(KvHistory, VectorsAreDeterministicKeysGaussianValuesNormalised) {
  const auto m = tiny();
  const auto f = llm::kv_fp16(m);
  const llm::ddr_plan plan = plan_of(m, f, 24);
  const workload::kv_history a(m, plan, f, 16, 0, 5), b(m, plan, f, 16, 0, 5),
      c(m, plan, f, 16, 0, 6);
  EXPECT_EQ(a.vector(2, 0, 7, false), b.vector(2, 0, 7, false));
  EXPECT_NE(a.vector(2, 0, 7, false), c.vector(2, 0, 7, false));
  EXPECT_NE(a.vector(2, 0, 7, false), a.vector(2, 0, 7, true));
  EXPECT_NE(a.vector(2, 0, 7, false), a.vector(2, 0, 8, false));
  EXPECT_NE(a.vector(2, 0, 7, false), a.vector(3, 0, 7, false));
  double sum = 0, sq = 0;
  uint32_t count = 0;
  for (uint32_t pos = 0; pos < 16; ++pos)
    for (uint32_t l = 0; l < 5; ++l) {
      for (float v : a.vector(l, 0, pos, false)) sum += v, sq += double(v) * v, ++count;
      double vs = 0;
      for (float v : a.vector(l, 0, pos, true)) vs += double(v) * v;
      EXPECT_NEAR(vs / m.attention.head_dim, 1.0, 1e-5);
    }
  EXPECT_NEAR(sum / count, 0.0, 0.1);
  EXPECT_NEAR(sq / count, 1.0, 0.1);
  EXPECT_EQ(a.blobs().size(), b.blobs().size());
  for (size_t i = 0; i < a.blobs().size(); ++i) EXPECT_EQ(a.blobs()[i].bytes, b.blobs()[i].bytes);
}

TEST(KvHistory, Errors) {
  const auto m = tiny();
  const auto f = llm::kv_fp16(m);
  const llm::ddr_plan plan = plan_of(m, f, 12);
  // Formats whose records differ from the plan's.
  EXPECT_THROW(workload::kv_history(m, plan, formats(m, kv::kv_kind::int8, 32), 20, 0, 1),
               std::invalid_argument);
  // Static INT formats: the driver's scales are not modelled.
  const auto st = formats(m, kv::kv_kind::int4, 0);
  EXPECT_THROW(workload::kv_history(m, plan_of(m, st, 12), st, 20, 0, 1), std::invalid_argument);
  // Sinks the driver refuses (not below the global ring's 12 records).
  try {
    workload::kv_history(m, plan, f, 20, 12, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("PCCX_KV_E_SINKS"), std::string::npos) << e.what();
  }
}

TEST(KvHistory, TheReferenceDecodesFromIt) {
  // The lead's use: one plan, the image, the history; the reference with
  // the platform's FP16 records close to the exact one.
  const auto m = tiny();
  const auto f = llm::kv_fp16(m);
  const llm::ddr_plan plan = plan_of(m, f, 12);
  const llm::weight_image w(m, plan, 1);
  const workload::kv_history hist(m, plan, f, 20, 4, 2);
  llm::reference_options o;
  o.context = 20;
  o.sinks = 4;
  const std::vector<uint32_t> tokens = {3, 1, 4, 1, 5};
  const auto exact = llm::reference_decoder(w, hist.history(), o).run(tokens);
  o.kv_codec = true;
  o.formats = f;
  const auto fp16 = llm::reference_decoder(w, hist.history(), o).run(tokens);
  for (size_t t = 0; t < tokens.size(); ++t) {
    const double c = llm::cosine_similarity(exact[t], fp16[t]);
    std::cout << "token " << t << ": cosine fp16 records / exact " << std::setprecision(9) << c
              << "\n";
    EXPECT_GT(c, 0.9999);
  }
}
