// The host reference decoder (platform/workload/llm/reference_decoder): its pieces
// against hand-computed values, the attention sets, the whole decode of the
// tiny model (deterministic, finite, sensitive to a weight, to exactly the
// history positions of its attention sets), the model variants, and the
// KV-codec mode against the exact cache.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>

#include "llm_test_util.h"
#include "platform/workload/llm/reference_decoder.h"

using namespace pccx::llm;

namespace {

// A history like workload::kv_history's: N(0, 1) keys, RMS-normalised
// values; one (layer, position) can be bumped to see whether it is read.
struct test_history {
  uint32_t head_dim = 32;
  uint64_t seed = 11;
  int64_t bump_layer = -1, bump_pos = -1;
  void operator()(uint32_t layer, uint32_t head, uint32_t pos, bool is_value, float* out) const {
    synthetic_rng rng(synthetic_key(seed, is_value ? "v" : "k", layer, head, pos));
    double sum = 0;
    std::vector<double> x(head_dim);
    for (double& v : x) {
      v = rng.normal();
      sum += v * v;
    }
    const double inv = is_value ? 1.0 / std::sqrt(sum / head_dim) : 1.0;
    for (uint32_t i = 0; i < head_dim; ++i) out[i] = float(x[i] * inv);
    if (int64_t(layer) == bump_layer && int64_t(pos) == bump_pos) out[0] += is_value ? 2.0f : 4.0f;
  }
};

const std::vector<uint32_t> kTokens = {5, 77, 300, 511};

std::vector<std::vector<double>> decode(const weight_image& w, const test_history& h,
                                        reference_options o,
                                        const std::vector<uint32_t>& tokens = kTokens) {
  reference_decoder r(w, h, o);
  return r.run(tokens);
}

reference_options context(uint32_t L, uint32_t sinks = 0) {
  reference_options o;
  o.context = L;
  o.sinks = sinks;
  return o;
}

double min_cosine(const std::vector<std::vector<double>>& a,
                  const std::vector<std::vector<double>>& b) {
  double c = 1;
  for (size_t t = 0; t < a.size(); ++t) c = std::min(c, cosine_similarity(a[t], b[t]));
  return c;
}

double stddev(const std::vector<double>& x) {
  double m = 0, s = 0;
  for (double v : x) m += v;
  m /= x.size();
  for (double v : x) s += (v - m) * (v - m);
  return std::sqrt(s / x.size());
}

ddr_plan plan_of(const model_config& m, uint32_t cap) {
  return plan_ddr(m, kv_fp16(m), cap, 0, llmtest::kKv260Ddr);
}

}  // namespace

TEST(ReferencePieces, RopeAgainstAHandComputedCase) {
  // d = 4, theta 100, position 1: pair (0, 2) turns by 1 rad, pair (1, 3)
  // by 100^(-1/2) = 0.1 rad.
  double x[4] = {1, 2, 3, 4};
  rope(x, 4, 1.0, 100.0);
  EXPECT_NEAR(x[0], std::cos(1.0) - 3 * std::sin(1.0), 1e-15);
  EXPECT_NEAR(x[2], 3 * std::cos(1.0) + std::sin(1.0), 1e-15);
  EXPECT_NEAR(x[1], 2 * std::cos(0.1) - 4 * std::sin(0.1), 1e-15);
  EXPECT_NEAR(x[3], 4 * std::cos(0.1) + 2 * std::sin(0.1), 1e-15);
  // Position 0 is the identity; a rotation keeps the norm.
  double y[4] = {1, 2, 3, 4};
  rope(y, 4, 0.0, 100.0);
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y[3], 4.0);
  EXPECT_NEAR(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3], 30.0, 1e-12);
}

TEST(ReferencePieces, RmsGeluSoftmaxCosine) {
  // mean(x^2) of (3, 4) is 12.5.
  const float g[2] = {2.0f, 0.5f};
  const auto n = rms_norm({3, 4}, g, 0.0);
  EXPECT_NEAR(n[0], 2 * 3 / std::sqrt(12.5), 1e-15);
  EXPECT_NEAR(n[1], 0.5 * 4 / std::sqrt(12.5), 1e-15);
  const auto n0 = rms_norm({3, 4}, nullptr, 0.5);
  EXPECT_NEAR(n0[1], 4 / std::sqrt(13.0), 1e-15);
  EXPECT_NEAR(magnitude({3, 4}, 0.5), std::sqrt(13.0), 1e-15);

  EXPECT_EQ(gelu_tanh(0.0), 0.0);
  EXPECT_NEAR(gelu_tanh(1.0), 0.8411919906, 1e-9);
  EXPECT_NEAR(gelu_tanh(-1.0), -0.1588080094, 1e-9);
  EXPECT_NEAR(gelu_tanh(10.0), 10.0, 1e-12);

  const auto p = softmax({0.0, std::log(2.0)});
  EXPECT_NEAR(p[0], 1.0 / 3, 1e-15);
  EXPECT_NEAR(p[1], 2.0 / 3, 1e-15);
  const auto big = softmax({1000.0, 1000.0, -1000.0});  // no overflow
  EXPECT_NEAR(big[0], 0.5, 1e-15);
  EXPECT_EQ(big[2], 0.0);

  EXPECT_NEAR(cosine_similarity({1, 0}, {1, 1}), std::sqrt(0.5), 1e-15);
  EXPECT_EQ(cosine_similarity({0, 0}, {1, 1}), 0.0);
  EXPECT_THROW(cosine_similarity({1}, {1, 1}), std::invalid_argument);
}

TEST(ReferenceAttentionSets, ValidPositionsOfTheRing) {
  using V = std::vector<uint32_t>;
  // docs/models/kv-driver.md's worked example: S = 4, C = 8, 11 tokens.
  EXPECT_EQ(ring_valid_positions(11, {8, 4}), (V{0, 1, 2, 3, 7, 8, 9, 10}));
  EXPECT_EQ(ring_valid_positions(3, {8, 4}), (V{0, 1, 2}));
  EXPECT_EQ(ring_valid_positions(6, {8, 4}), (V{0, 1, 2, 3, 4, 5}));
  // A sliding window: the newest min(n, window).
  EXPECT_EQ(ring_valid_positions(5, {8, 0}), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(ring_valid_positions(17, {8, 0}), (V{9, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(ring_valid_positions(0, {8, 2}), V{});
  // A ring of 11 records keeping a window of 8 (a prefill's chunks of 4).
  EXPECT_EQ(ring_valid_positions(17, {11, 0, 8}), (V{9, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(ring_valid_positions(6, {11, 0, 8}), (V{0, 1, 2, 3, 4, 5}));
  EXPECT_THROW(ring_valid_positions(5, {4, 4}), std::invalid_argument);

  // Tiny: local layers have a ring of 8 records without sinks while the
  // window is below the cap; global layers (4, 9) the cap and the sinks.
  const model_config m = llmtest::tiny();
  EXPECT_EQ(ring_of(m, 0, 20, 4).cap, 8u);
  EXPECT_EQ(ring_of(m, 0, 20, 4).sinks, 0u);
  EXPECT_EQ(ring_of(m, 4, 20, 4).cap, 20u);
  EXPECT_EQ(ring_of(m, 4, 20, 4).sinks, 4u);
  EXPECT_EQ(ring_of(m, 0, 8, 2).cap, 8u);  // window not below the cap: one ring
  EXPECT_EQ(ring_of(m, 0, 8, 2).sinks, 2u);
  // With 3 records beyond the window (a prefill's chunks of 4): rings of 11
  // keeping the window of 8, never beyond the ring cap; global rings as before.
  EXPECT_EQ(ring_of(m, 0, 64, 2).window, 0u);
  EXPECT_EQ(ring_of(m, 0, 64, 2, 3).cap, 11u);
  EXPECT_EQ(ring_of(m, 0, 64, 2, 3).window, 8u);
  EXPECT_EQ(ring_of(m, 0, 64, 2, 3).sinks, 0u);
  EXPECT_EQ(ring_of(m, 0, 10, 2, 3).cap, 10u);
  EXPECT_EQ(ring_of(m, 0, 10, 2, 3).window, 8u);
  EXPECT_EQ(ring_of(m, 4, 64, 2, 3).cap, 64u);
  EXPECT_EQ(ring_of(m, 4, 64, 2, 3).sinks, 2u);
  // The same caps as the plan's ring groups.
  for (uint32_t cap : {6u, 8u, 20u}) {
    const ddr_plan p = plan_of(m, cap);
    for (uint32_t l = 0; l < m.storing_layers(); ++l)
      EXPECT_EQ(ring_of(m, l, cap, 0).cap, p.kv_of(m, l).group->max_tokens) << cap << " " << l;
  }
}

TEST(ReferenceDecoder, TinyIsDeterministicFiniteAndOfOrderOne) {
  const model_config m = llmtest::tiny();
  const weight_image w(m, plan_of(m, 20), 1);
  const test_history h;
  const auto a = decode(w, h, context(16));
  const auto b = decode(w, h, context(16));
  ASSERT_EQ(a.size(), kTokens.size());
  EXPECT_EQ(a, b);
  for (size_t t = 0; t < a.size(); ++t) {
    ASSERT_EQ(a[t].size(), m.vocab);
    for (double v : a[t]) ASSERT_TRUE(std::isfinite(v));
    const double sd = stddev(a[t]);
    std::cout << "token " << t << ": logit std " << sd << "\n";
    EXPECT_GT(sd, 0.1);
    EXPECT_LT(sd, 10.0);
  }
  // Different tokens, different logits; another seed, other logits.
  EXPECT_LT(cosine_similarity(a[0], a[1]), 0.99);
  const weight_image w2(m, plan_of(m, 20), 2);
  EXPECT_LT(cosine_similarity(decode(w2, h, context(16))[0], a[0]), 0.99);
  // No history at all: a decode from position 0.
  reference_decoder empty(w, nullptr, context(0));
  EXPECT_EQ(empty.position(), 0u);
  const auto l0 = empty.step(5);
  EXPECT_EQ(empty.position(), 1u);
  for (double v : l0) ASSERT_TRUE(std::isfinite(v));
}

TEST(ReferenceDecoder, LogitsMoveWhenAWeightMoves) {
  const model_config m = llmtest::tiny();
  const weight_image w(m, plan_of(m, 20), 1);
  const test_history h;
  const auto base = decode(w, h, context(16), {5, 77});
  auto changed = [&](weight_image& v) { return decode(v, h, context(16), {5, 77}) != base; };

  {  // one INT4 value of a shared layer's W_down
    weight_image v = w;
    auto rec = v.record(7, "ffn_down", 10);
    rec[2 + 3] ^= 0x10;
    v.set_record(7, "ffn_down", 10, rec);
    EXPECT_TRUE(changed(v));
  }
  {  // one AltUp prediction coefficient
    weight_image v = w;
    auto c = v.vector_bf16(3, "altup_prediction_coefs");
    c[8 * 5] = 0x3E00;  // 0.125
    v.set_vector(3, "altup_prediction_coefs", c);
    EXPECT_TRUE(changed(v));
  }
  {  // a q_norm gamma
    weight_image v = w;
    auto g = v.vector_bf16(9, "q_norm");
    g[0] = 0x4000;
    v.set_vector(9, "q_norm", g);
    EXPECT_TRUE(changed(v));
  }
  {  // the padding of a record is not a weight
    weight_image v = w;
    auto rec = v.record(0, "attn_q", 0);
    rec.back() = 0xFF;
    v.set_record(0, "attn_q", 0, rec);
    EXPECT_FALSE(changed(v));
  }
}

TEST(ReferenceDecoder, ReadsExactlyTheAttentionSets) {
  const model_config m = llmtest::tiny();
  // Ring cap 12 with 4 sinks: the global ring (layer 4) wraps. The decoded
  // token is at position 16, so it attends to 0..3 and 9..16; local rings
  // (8 records, no sinks) to 9..16.
  const weight_image w(m, plan_of(m, 12), 1);
  const test_history h;
  const reference_options o = context(16, 4);
  const auto base = decode(w, h, o, {5});
  auto reads = [&](int64_t layer, int64_t pos) {
    test_history b = h;
    b.bump_layer = layer;
    b.bump_pos = pos;
    return decode(w, b, o, {5}) != base;
  };
  EXPECT_TRUE(reads(4, 0));
  EXPECT_TRUE(reads(4, 3));
  EXPECT_FALSE(reads(4, 4));
  EXPECT_FALSE(reads(4, 8));
  EXPECT_TRUE(reads(4, 9));
  EXPECT_TRUE(reads(4, 15));
  EXPECT_FALSE(reads(0, 3));
  EXPECT_FALSE(reads(0, 8));
  EXPECT_TRUE(reads(0, 9));
  // Layer 3 is the last local storing layer: layers 5..8 read it too.
  EXPECT_TRUE(reads(3, 12));
  // Layers beyond kv_shared_from have no cache of their own.
  EXPECT_FALSE(reads(6, 12));
}

TEST(ReferenceDecoder, SharedLayersReadTheirSourceLayersCache) {
  // With layer l's W_o zeroed its own attention adds nothing (rms of a zero
  // vector is zero), so a bumped history of layer l can only reach the
  // logits through the layers sharing its cache: 5..8 read layer 3 (the
  // last local storing layer), 9 reads layer 4; nothing reads layer 0's.
  const model_config m = llmtest::tiny();
  const test_history h;
  auto reads_after_silencing = [&](int32_t layer) {
    weight_image w(m, plan_of(m, 20), 1);
    const std::vector<int> zeros(64, 0);
    for (uint32_t r = 0; r < 64; ++r)
      w.set_record(layer, "attn_o", r, encode_weight_record(m.weights, zeros, {0x3F80}));
    const auto base = decode(w, h, context(16), {5});
    test_history b = h;
    b.bump_layer = layer;
    b.bump_pos = 12;
    return decode(w, b, context(16), {5}) != base;
  };
  EXPECT_TRUE(reads_after_silencing(3));
  EXPECT_TRUE(reads_after_silencing(4));
  EXPECT_FALSE(reads_after_silencing(0));
  EXPECT_FALSE(reads_after_silencing(2));
}

TEST(ReferenceDecoder, ModelVariantsRun) {
  const std::vector<std::vector<std::string>> variants = {
      {"altup.streams=1"},
      {"per_layer_input.dim=0"},
      {"laurel_rank=0"},
      {"altup.streams=1", "per_layer_input.dim=0", "laurel_rank=0"},
      {"attention.qk_norm=false", "attention.v_norm=false"},
      {"attention.kv_shared_from=0"},
      {"attention.sliding_window=0"},
      {"sparse_ffn_layers=0"},
      {"sparse_ffn_layers=10"},
      {"altup.active_stream=2"},
      {"attention.logit_softcap=20"},
      {"final_logit_softcap=0"},
      {"tie_embeddings=false"},
      {"weights.scale_group=32"},
      {"skip_masked_down_rows=true"},
      {"attention.kv_heads=2"},
      {"attention.scale=0.17677669529663687"},
  };
  const model_config tiny = llmtest::tiny();
  const auto base = decode(weight_image(tiny, plan_of(tiny, 20), 1), test_history{}, context(16));
  for (const auto& sets : variants) {
    std::string label;
    for (const auto& s : sets) label += s + " ";
    SCOPED_TRACE(label);
    const model_config m = load_model(llmtest::model_path("tiny"), sets);
    const weight_image w(m, plan_of(m, 20), 1);
    const auto a = decode(w, test_history{}, context(16));
    const auto b = decode(w, test_history{}, context(16));
    EXPECT_EQ(a, b);
    for (const auto& l : a)
      for (double v : l) ASSERT_TRUE(std::isfinite(v));
    EXPECT_NE(a, base);  // the variant computes something else
  }
}

TEST(ReferenceDecoder, WeightsStoredByUnitAreAppliedTransposed) {
  // Without scales a record holds plain integers, so W_down stored by
  // output row (hidden x ffn) and by unit (ffn x hidden) can hold the same
  // matrix exactly: the logits must agree.
  const model_config rows =
      load_model(llmtest::model_path("tiny"), {"weights.scales=false", "sparse_ffn_layers=2"});
  const model_config units =
      load_model(llmtest::model_path("tiny"),
                 {"weights.scales=false", "sparse_ffn_layers=2", "skip_masked_down_rows=true"});
  const weight_image wr(rows, plan_of(rows, 20), 4);
  weight_image wu(units, plan_of(units, 20), 4);
  for (int32_t l = 0; l < 2; ++l) {
    const auto down = wr.matrix(l, "ffn_down");  // 64 x 128
    for (uint32_t unit = 0; unit < 128; ++unit) {
      std::vector<int> col(64);
      for (uint32_t j = 0; j < 64; ++j) col[j] = int(down[size_t(j) * 128 + unit]);
      wu.set_record(l, "ffn_down", unit, encode_weight_record(units.weights, col, {}));
    }
  }
  const auto a = decode(wr, test_history{}, context(16));
  const auto b = decode(wu, test_history{}, context(16));
  for (size_t t = 0; t < a.size(); ++t)
    for (size_t i = 0; i < a[t].size(); ++i)
      ASSERT_NEAR(a[t][i], b[t][i], 1e-9 * (1 + std::fabs(a[t][i])));
}

TEST(ReferenceDecoder, KvCodecModeStaysCloseToTheExactCache) {
  const model_config m = llmtest::tiny();
  const weight_image w(m, plan_of(m, 20), 1);
  const test_history h;
  const auto exact = decode(w, h, context(16));
  struct fmt {
    const char* name;
    kv::kv_kind kind;
    uint32_t group, bits;
    double floor;  // asserted, below the measured value with a margin
  };
  // Measured on this image and history (seed 1, L = 16, 4 tokens):
  // fp16 0.9999997, int8/g32 0.99986, int4/g32 0.932, rot4 0.951, rot3 0.929.
  const fmt formats[] = {
      {"fp16", kv::kv_kind::fp16, 0, 4, 0.9999},    {"int8/g32", kv::kv_kind::int8, 32, 4, 0.9995},
      {"int4/g32", kv::kv_kind::int4, 32, 4, 0.85}, {"rot4", kv::kv_kind::rotated, 0, 4, 0.85},
      {"rot3", kv::kv_kind::rotated, 0, 3, 0.85},
  };
  double previous = 1.0;
  for (const auto& f : formats) {
    reference_options o = context(16);
    o.kv_codec = true;
    o.formats = kv_fp16(m);
    for (auto* k : {&o.formats.key, &o.formats.value}) {
      k->kind = f.kind;
      k->group = f.group;
      k->bits = f.bits;
    }
    const auto q = decode(w, h, o);
    const double c = min_cosine(q, exact);
    std::cout << f.name << ": min cosine to the exact cache over " << q.size() << " tokens "
              << std::setprecision(9) << c << "\n";
    EXPECT_GT(c, f.floor) << f.name;
    // Fewer bits, further away: fp16 > int8 > the 3- and 4-bit formats.
    EXPECT_LT(c, previous) << f.name;
    if (f.kind == kv::kv_kind::fp16 || f.kind == kv::kv_kind::int8) previous = c;
  }
}

TEST(ReferenceDecoder, Errors) {
  const model_config m = llmtest::tiny();
  const weight_image w(m, plan_of(m, 20), 1);
  reference_decoder r(w, test_history{}, context(16));
  try {
    r.step(512);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("token 512"), std::string::npos) << e.what();
  }
  EXPECT_EQ(r.position(), 16u);  // nothing decoded
  // Sinks must stay below the ring's cap.
  EXPECT_THROW(reference_decoder(w, test_history{}, context(16, 20)), std::invalid_argument);
  // A context needs a history.
  EXPECT_THROW(reference_decoder(w, nullptr, context(16)), std::invalid_argument);
  // Static INT formats (no stored scale) and formats of another head_dim.
  reference_options o = context(16);
  o.kv_codec = true;
  o.formats = kv_fp16(m);
  o.formats.key.kind = kv::kv_kind::int8;
  EXPECT_THROW(reference_decoder(w, test_history{}, o), std::invalid_argument);
  o.formats = kv_fp16(m);
  o.formats.value.head_dim = 64;
  EXPECT_THROW(reference_decoder(w, test_history{}, o), std::invalid_argument);
}
