// The synthetic weight image (platform/workload/llm/weight_image): determinism, the
// DDR layout of its blobs against the plan, the GEMV row-record format
// decoded here by hand, the parameter vectors' storage transforms, the
// per-layer embedding rows, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "llm_test_util.h"
#include "models/npu/units/bf16.h"
#include "platform/workload/llm/weight_image.h"

using namespace pccx::llm;
namespace bf16 = pccx::npu::bf16;

namespace {

ddr_plan plan_of(const model_config& m, uint32_t cap = 32) {
  return plan_ddr(m, kv_fp16(m), cap, 0, llmtest::kKv260Ddr);
}

// The bytes of `b` at [addr, addr + n), or an empty vector when the blob
// does not cover them.
std::vector<uint8_t> bytes_at(const std::vector<blob>& blobs, uint64_t addr, size_t n) {
  for (const auto& b : blobs)
    if (addr >= b.addr && addr + n <= b.addr + b.bytes.size())
      return std::vector<uint8_t>(b.bytes.begin() + (addr - b.addr),
                                  b.bytes.begin() + (addr - b.addr) + n);
  return {};
}

// docs/models/gemv.md written out again: S BF16 scales, then nibbles (k even low).
std::vector<float> by_hand(const uint8_t* rec, uint32_t cols, uint32_t scales, uint32_t group) {
  std::vector<float> out(cols);
  for (uint32_t k = 0; k < cols; ++k) {
    const uint8_t byte = rec[2 * scales + k / 2];
    int v = (k % 2 == 0) ? (byte & 0xF) : (byte >> 4);
    if (v > 7) v -= 16;
    const uint16_t s =
        scales == 0 ? 0x3F80 : uint16_t(rec[2 * (k / group)] | rec[2 * (k / group) + 1] << 8);
    out[k] = float(v) * bf16::to_float(s);
  }
  return out;
}

}  // namespace

TEST(WeightImage, SameSeedSameBytesOtherSeedOtherBytes) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  const auto a = weight_image(m, p, 7).blobs();
  const auto b = weight_image(m, p, 7).blobs();
  const auto c = weight_image(m, p, 8).blobs();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].addr, b[i].addr);
    EXPECT_EQ(a[i].bytes, b[i].bytes) << i;
    EXPECT_EQ(a[i].addr, c[i].addr);
    EXPECT_NE(a[i].bytes, c[i].bytes) << i;  // every matrix and the parameters change
  }
  EXPECT_EQ(weight_image(m, p, 7).ple_record(3), weight_image(m, p, 7).ple_record(3));
  EXPECT_NE(weight_image(m, p, 7).ple_record(3), weight_image(m, p, 8).ple_record(3));
  EXPECT_NE(weight_image(m, p, 7).ple_record(3), weight_image(m, p, 7).ple_record(4));
}

TEST(WeightImage, BlobsCoverEveryMatrixAndTheParametersAtThePlannedAddresses) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 1);
  const auto blobs = w.blobs();
  ASSERT_EQ(blobs.size(), p.matrices.size() + 1);
  for (size_t i = 0; i < p.matrices.size(); ++i) {
    const auto& pm = p.matrices[i];
    SCOPED_TRACE(pm.shape.name + " of layer " + std::to_string(pm.shape.layer));
    EXPECT_EQ(blobs[i].addr, pm.base);
    ASSERT_EQ(blobs[i].bytes.size(), pm.bytes);
    // Part 0 holds the even rows, part 1 the odd ones, in row order.
    ASSERT_EQ(pm.parts.size(), 2u);
    for (uint32_t r = 0; r < pm.shape.rows; ++r) {
      const uint64_t addr = pm.parts[r % 2].addr + uint64_t(r / 2) * pm.record_bytes;
      EXPECT_EQ(bytes_at(blobs, addr, pm.record_bytes), w.record(pm.shape.layer, pm.shape.name, r));
    }
  }
  const region& params = p.find("parameters");
  EXPECT_EQ(blobs.back().addr, params.base);
  EXPECT_EQ(blobs.back().bytes.size(), params.bytes);
  for (const auto& pv : p.vectors) {
    const auto v = w.vector_bf16(pv.param.layer, pv.param.name);
    const auto stored = bytes_at(blobs, pv.addr, 2 * v.size());
    ASSERT_EQ(stored.size(), 2 * v.size());
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(bf16::load(stored.data(), i), v[i]);
  }
}

TEST(WeightImage, RecordsAreGemvRowsOfInt4WithOneScaleAndRowRmsNearOneOverSqrtCols) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 3);
  for (const auto& pm : p.matrices) {
    SCOPED_TRACE(pm.shape.name + " of layer " + std::to_string(pm.shape.layer));
    const auto values = w.matrix(pm.shape.layer, pm.shape.name);
    ASSERT_EQ(values.size(), size_t(pm.shape.rows) * pm.shape.cols);
    double sum = 0;
    for (uint32_t r = 0; r < pm.shape.rows; ++r) {
      const auto rec = w.record(pm.shape.layer, pm.shape.name, r);
      const auto hand = by_hand(rec.data(), pm.shape.cols, 1, pm.shape.cols);
      for (uint32_t k = 0; k < pm.shape.cols; ++k) {
        ASSERT_EQ(values[size_t(r) * pm.shape.cols + k], hand[k]);
        sum += double(hand[k]) * hand[k];
        // No -8 nibble: the values are in [-7, 7].
        const uint8_t byte = rec[2 + k / 2];
        EXPECT_NE((k % 2 == 0) ? (byte & 0xF) : (byte >> 4), 8);
      }
      for (size_t i = 2 + (pm.shape.cols + 1) / 2; i < rec.size(); ++i) EXPECT_EQ(rec[i], 0);
      EXPECT_EQ(w.matrix_row(pm.shape.layer, pm.shape.name, r),
                std::vector<float>(values.begin() + size_t(r) * pm.shape.cols,
                                   values.begin() + size_t(r + 1) * pm.shape.cols));
    }
    // Each row's scale spreads by +-25 %: few rows, a wider margin.
    const double rms = std::sqrt(sum / values.size()) * std::sqrt(double(pm.shape.cols));
    EXPECT_NEAR(rms, 1.0, 0.05 + 0.5 / std::sqrt(double(pm.shape.rows)));
  }
}

TEST(WeightImage, ScaleGroupsGiveOneScalePerGroup) {
  const model_config m = load_model(llmtest::model_path("tiny"), {"weights.scale_group=32"});
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 3);
  const auto& pm = p.matrix(2, "ffn_down");  // 128 inputs: 4 scales, 64 bytes -> 80
  EXPECT_EQ(pm.record_bytes, 80u);
  const auto values = w.matrix(2, "ffn_down");
  std::set<uint16_t> scales;
  for (uint32_t r = 0; r < pm.shape.rows; ++r) {
    const auto rec = w.record(2, "ffn_down", r);
    const auto hand = by_hand(rec.data(), 128, 4, 32);
    for (uint32_t k = 0; k < 128; ++k) ASSERT_EQ(values[size_t(r) * 128 + k], hand[k]);
    for (int g = 0; g < 4; ++g) scales.insert(bf16::load(rec.data(), g));
    EXPECT_EQ(decode_weight_record(m.weights, rec.data(), 128), hand);
  }
  EXPECT_GT(scales.size(), 30u);  // the groups' scales differ
}

TEST(WeightImage, WithoutScalesTheValuesAreTheIntegers) {
  const model_config m = load_model(llmtest::model_path("tiny"), {"weights.scales=false"});
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 3);
  const auto rec = w.record(0, "attn_q", 5);
  EXPECT_EQ(rec.size(), 32u);
  EXPECT_EQ(w.matrix_row(0, "attn_q", 5), by_hand(rec.data(), 64, 0, 64));
  for (float v : w.matrix_row(0, "attn_q", 5)) EXPECT_EQ(v, std::round(v));
}

TEST(WeightImage, VectorsAreStoredAsSpecified) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 5);
  const uint32_t S = m.altup.streams;
  for (const auto& pv : p.vectors) {
    const auto& v = pv.param;
    SCOPED_TRACE(v.name + " of layer " + std::to_string(v.layer));
    const auto x = w.vector(v.layer, v.name);
    ASSERT_EQ(x.size(), v.elements);
    if (v.name == "altup_prediction_coefs" || v.name == "altup_correction_coefs") {
      EXPECT_EQ(x.size(), 8u * (v.name == "altup_prediction_coefs" ? S * S * S : S * S));
      std::set<float> distinct;
      for (size_t i = 0; i < x.size(); ++i) {
        if (i % 8 != 0) {
          EXPECT_EQ(x[i], 0.0f) << i;  // elements 1..7 of each word
        } else {
          EXPECT_LE(std::fabs(x[i]), 0.1005f);  // 0.1 u rounded to BF16
          distinct.insert(x[i]);
        }
      }
      EXPECT_GT(distinct.size(), x.size() / 8 / 2);
    } else if (v.name == "q_norm") {
      // Queries of RMS 3 / sqrt(head_dim): scores of standard deviation 3.
      for (float e : x) EXPECT_NEAR(e / (3 / std::sqrt(32.0)), 1.0, 0.21);
    } else if (v.name == "altup_router_norm") {
      // g / hidden: the stored values times hidden are gammas around 1.
      for (float e : x) EXPECT_NEAR(double(e) * m.hidden, 1.0, 0.21);
    } else {
      for (float e : x) EXPECT_NEAR(e, 1.0, 0.21);
    }
  }
  EXPECT_THROW(w.vector(0, "no_such_norm"), std::invalid_argument);
  EXPECT_THROW(w.vector(-1, "input_norm"), std::invalid_argument);
}

TEST(WeightImage, QueriesGiveScoresOfTheChosenSpread) {
  // With qk_norm through the q_norm gammas; without it through W_q's rows;
  // attention.scale is taken into account; 0 keeps gammas around 1.
  auto rms = [](const std::vector<float>& x) {
    double s = 0;
    for (float v : x) s += double(v) * v;
    return std::sqrt(s / x.size());
  };
  const model_config m = llmtest::tiny();
  EXPECT_NEAR(rms(weight_image(m, plan_of(m), 1).vector(2, "q_norm")), 3 / std::sqrt(32.0), 0.03);
  weight_image_options o;
  o.query_logit_std = 0;
  EXPECT_NEAR(rms(weight_image(m, plan_of(m), 1, o).vector(2, "q_norm")), 1.0, 0.05);
  const model_config s = load_model(llmtest::model_path("tiny"), {"attention.scale=0.5"});
  EXPECT_NEAR(rms(weight_image(s, plan_of(s), 1).vector(2, "q_norm")), 6 / std::sqrt(32.0), 0.06);
  const model_config n = load_model(llmtest::model_path("tiny"), {"attention.qk_norm=false"});
  const weight_image wn(n, plan_of(n), 1);
  EXPECT_NEAR(rms(wn.matrix(2, "attn_q")) * 8, 3 / std::sqrt(32.0), 0.03);  // x sqrt(64 inputs)
  EXPECT_NEAR(rms(wn.matrix(2, "attn_k")) * 8, 1.0, 0.05);
}

TEST(WeightImage, PerLayerEmbeddingRows) {
  const model_config m = llmtest::tiny();  // 10 layers x 16, INT4, a scale per 16
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 9);
  const uint32_t width = m.layers * m.per_layer_input.dim;
  const auto rec = w.ple_record(17);
  ASSERT_EQ(rec.size(), ple_row_bytes(m));
  EXPECT_EQ(rec.size(), 112u);  // 10 scales + 80 bytes = 100 -> 112
  const auto row = w.ple_row(17);
  ASSERT_EQ(row.size(), width);
  double sum = 0;
  for (uint32_t k = 0; k < width; ++k) {
    const uint8_t byte = rec[20 + k / 2];
    int v = (k % 2 == 0) ? (byte & 0xF) : (byte >> 4);
    if (v > 7) v -= 16;
    EXPECT_EQ(row[k], float(v) * bf16::to_float(bf16::load(rec.data(), k / 16)));
    sum += double(row[k]) * row[k];
  }
  // Values of RMS about 1 / sqrt(dim).
  EXPECT_NEAR(std::sqrt(sum / width) * std::sqrt(16.0), 1.0, 0.15);

  // One blob per distinct row; ids beyond the table read its last row.
  const auto blobs = w.ple_blobs({17, 3, 17, 600});
  ASSERT_EQ(blobs.size(), 3u);
  EXPECT_EQ(blobs[0].addr, p.ple_row_addr(m, 3));
  EXPECT_EQ(blobs[1].addr, p.ple_row_addr(m, 17));
  EXPECT_EQ(blobs[1].bytes, rec);
  EXPECT_EQ(blobs[2].addr, p.ple_row_addr(m, 511));
  EXPECT_EQ(blobs[2].bytes, w.ple_record(511));
  EXPECT_THROW(w.ple_row(512), std::invalid_argument);

  // The other table formats.
  for (const char* fmt : {"int8", "bf16"}) {
    SCOPED_TRACE(fmt);
    const model_config m2 = load_model(llmtest::model_path("tiny"),
                                       {std::string("per_layer_input.table_format=") + fmt});
    const weight_image w2(m2, plan_of(m2), 9);
    const auto r2 = w2.ple_record(5);
    const auto v2 = w2.ple_row(5);
    double s2 = 0;
    for (uint32_t k = 0; k < width; ++k) {
      const float want =
          std::string(fmt) == "bf16"
              ? bf16::to_float(bf16::load(r2.data(), k))
              : float(int8_t(r2[20 + k])) * bf16::to_float(bf16::load(r2.data(), k / 16));
      EXPECT_EQ(v2[k], want);
      s2 += double(v2[k]) * v2[k];
    }
    EXPECT_NEAR(std::sqrt(s2 / width) * 4.0, 1.0, 0.15);
  }
}

TEST(WeightImage, EmbeddingRows) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 2);
  // Tied: the lm_head row, and no separate blobs.
  EXPECT_EQ(w.embedding(42), w.matrix_row(-1, "lm_head", 42));
  EXPECT_TRUE(w.embedding_blobs({1, 2}).empty());
  EXPECT_EQ(w.token_blobs({1, 2}).size(), 2u);  // the PLE rows
  EXPECT_THROW(w.embedding(512), std::invalid_argument);
  EXPECT_THROW(w.embedding_blobs({512}), std::invalid_argument);

  const model_config u = load_model(llmtest::model_path("tiny"), {"tie_embeddings=false"});
  const ddr_plan pu = plan_of(u);
  const weight_image wu(u, pu, 2);
  const auto blobs = wu.embedding_blobs({9, 4, 9});
  ASSERT_EQ(blobs.size(), 2u);
  EXPECT_EQ(blobs[0].addr, pu.embedding_row_addr(u, 4));
  EXPECT_EQ(blobs[1].addr, pu.embedding_row_addr(u, 9));
  EXPECT_EQ(by_hand(blobs[1].bytes.data(), 64, 1, 64), wu.embedding(9));
  EXPECT_NE(wu.embedding(9), wu.matrix_row(-1, "lm_head", 9));
}

TEST(WeightImage, SetRecordAndSetVector) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  weight_image w(m, p, 2);
  const weight_image copy = w;
  std::vector<int> ints(64, 0);
  ints[3] = -7;
  w.set_record(1, "attn_o", 6, encode_weight_record(m.weights, ints, {0x3F80}));
  auto row = w.matrix_row(1, "attn_o", 6);
  EXPECT_EQ(row[3], -7.0f);
  EXPECT_EQ(row[4], 0.0f);
  EXPECT_NE(copy.matrix_row(1, "attn_o", 6), row);  // the copy keeps its own bytes
  EXPECT_THROW(w.set_record(1, "attn_o", 6, {1, 2}), std::invalid_argument);
  std::vector<uint16_t> g(64, 0x4000);
  w.set_vector(3, "input_norm", g);
  EXPECT_EQ(w.vector(3, "input_norm")[10], 2.0f);
  EXPECT_THROW(w.set_vector(3, "input_norm", {1}), std::invalid_argument);
}

TEST(WeightImage, ErrorsNameWhatIsWrong) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_of(m);
  const weight_image w(m, p, 2);
  try {
    w.matrix(0, "attn_x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"attn_x\" of layer 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(w.matrix(7, "attn_k"), std::invalid_argument);  // layer 7 stores no K
  EXPECT_THROW(w.record(0, "attn_q", 64), std::invalid_argument);

  // Gemma 3n is refused before anything is allocated.
  const model_config g = llmtest::gemma();
  const ddr_plan pg = plan_ddr(g, kv_fp16(g), 1024, 0, llmtest::kKv260Ddr);
  try {
    weight_image big(g, pg, 1);
    FAIL();
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("gemma3n-e4b has 4,485,832,704 matrix values"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("holds at most 2,147,483,648 (a model of a few layers"),
              std::string::npos)
        << e.what();
  }
  // A plan of another model.
  EXPECT_THROW(weight_image(m, pg, 1), std::invalid_argument);
}
