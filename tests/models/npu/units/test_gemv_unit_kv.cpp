// GEMV over KV records (flags[2:0] = 1 key rows, 2 value accumulate): bit-
// exact against the host codec's decoded values for every format, the
// engine's part/round-robin record order, the dequantize stage's timing and
// stall counter, and the errors.
#include <gtest/gtest.h>

#include "gemv_bench.h"
#include "gemv_kv_reference.h"
#include "kv_section.h"
#include "pccx_isa.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {
constexpr uint32_t kSrc = 0x100, kDst = 0x2000;

gemv_bench_options kv_bench(const kv::kv_format& f) {
  gemv_bench_options o;
  o.gemv.kv = kv_section(f, f);
  return o;
}

// Timing only: 64 key records of `f` (64 elements each) preloaded, 32 per
// FIFO, one query row on 4 cores.
gemv_outcome timed_key_rows(gemv_bench& b, const kv::kv_format& f) {
  gemv_outcome o;
  b.run([&](gemv_driver& d) {
    for (uint32_t i = 0; i < 64; ++i)
      b.fifos[i / 32]->push(f.record_bytes(), sc_core::SC_ZERO_TIME, nullptr);
    gemv_call c;
    c.M = 1, c.N = 64, c.K = 64, c.src = kSrc, c.dst = kDst;
    c.flags = PCCX_WFMT_KV_KEY_ROWS;
    o = d.execute(c);
  });
  return o;
}

gemv_outcome run_kv(gemv_bench& b, const kv_gemv_problem& p, uint8_t lanes,
                    std::vector<uint16_t>& out, uint8_t extra_flags = 0) {
  b.put(kSrc, p.x);
  gemv_outcome o;
  const uint32_t F = static_cast<uint32_t>(b.fifos.size());
  b.run([&](gemv_driver& d) {
    for (uint32_t f = 0; f < F; ++f) {
      const auto bytes = p.part_bytes(f, F);
      if (!bytes.empty()) b.fifos[f]->push(bytes.size(), sc_core::sc_time_stamp(), bytes.data());
    }
    gemv_call c;
    c.M = p.M, c.N = p.N(), c.K = p.K(), c.src = kSrc, c.dst = kDst, c.lanes = lanes;
    c.flags = static_cast<uint8_t>(
        (p.values ? PCCX_WFMT_KV_VALUE_ACCUMULATE : PCCX_WFMT_KV_KEY_ROWS) | extra_flags);
    o = d.execute(c);
  });
  out = b.get(kDst, p.M * p.N());
  return o;
}

struct kv_case {
  const char* name;
  kv::kv_format format;
};

std::vector<kv_case> formats() {
  return {{"fp16", kv_fmt(kv::kv_kind::fp16)},
          {"int8_g64", kv_fmt(kv::kv_kind::int8, 64)},
          {"int8_static", kv_fmt(kv::kv_kind::int8, 0)},
          {"int4_static", kv_fmt(kv::kv_kind::int4, 0)},
          {"int4_g32", kv_fmt(kv::kv_kind::int4, 32)},
          {"rot3", kv_fmt(kv::kv_kind::rotated, 0, 3)},
          {"rot2_sketch", [] {
             auto f = kv_fmt(kv::kv_kind::rotated, 0, 2);
             f.residual_sketch = true;
             return f;
           }()}};
}

class GemvKv : public ::testing::TestWithParam<std::tuple<kv_case, bool>> {};

std::string case_name(const ::testing::TestParamInfo<GemvKv::ParamType>& i) {
  return std::string(std::get<0>(i.param).name) + (std::get<1>(i.param) ? "_values" : "_keys");
}
}  // namespace

// 37 records (odd: the two FIFOs get 18 and 19), 4 query heads.
TEST_P(GemvKv, MatchesTheHostCodec) {
  const auto& [c, values] = GetParam();
  gemv_bench b(kv_bench(c.format));
  const auto p = kv_gemv_problem::random(c.format, values, 4, 37, 7);
  std::vector<uint16_t> out;
  const auto o = run_kv(b, p, 0, out);
  ASSERT_EQ(o.err, 0u) << o.detail;
  const auto want = p.expected(2);
  ASSERT_EQ(out.size(), want.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], want[i]) << "element " << i;
  EXPECT_EQ(b.gemv->statistics().kv_records, 37u);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_MACS), 4u * 37 * 64);
}
INSTANTIATE_TEST_SUITE_P(Formats, GemvKv,
                         ::testing::Combine(::testing::ValuesIn(formats()), ::testing::Bool()),
                         case_name);

TEST(GemvKvModes, HeadParallelKeysGiveTheSameValues) {
  const auto f = kv_fmt(kv::kv_kind::int4, 32);
  gemv_bench b(kv_bench(f));
  const auto p = kv_gemv_problem::random(f, false, 4, 20, 3);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_kv(b, p, PCCX_LANES_HEAD_PARALLEL, out).err, 0u);
  EXPECT_EQ(out, p.expected(2));
}

// The unit keeps the record order of the shapes it saw last. More shapes
// than it keeps, keys and values, then some of them again (kept ones and
// rebuilt ones): every instruction must still take its records in its own
// shape's order.
TEST(GemvKvModes, ShapesSeenBeforeKeepTheirRecordOrder) {
  const auto f = kv_fmt(kv::kv_kind::int4, 32);
  gemv_bench b(kv_bench(f));
  std::vector<kv_gemv_problem> ps;
  for (uint32_t i = 0; i < 11; ++i)
    ps.push_back(kv_gemv_problem::random(f, i % 2 == 1, 1 + i % 4, 9 + 3 * i, 11 + i));
  const std::vector<size_t> sequence = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 0, 1, 9, 3, 2};
  const auto F = static_cast<uint32_t>(b.fifos.size());
  std::vector<std::vector<uint16_t>> got;
  b.run([&](gemv_driver& d) {
    for (size_t i : sequence) {
      const kv_gemv_problem& p = ps[i];
      b.put(kSrc, p.x);
      for (uint32_t k = 0; k < F; ++k) {
        const auto bytes = p.part_bytes(k, F);
        if (!bytes.empty()) b.fifos[k]->push(bytes.size(), sc_core::sc_time_stamp(), bytes.data());
      }
      gemv_call c;
      c.M = p.M, c.N = p.N(), c.K = p.K(), c.src = kSrc, c.dst = kDst;
      c.flags = p.values ? PCCX_WFMT_KV_VALUE_ACCUMULATE : PCCX_WFMT_KV_KEY_ROWS;
      const auto o = d.execute(c);
      ASSERT_EQ(o.err, 0u) << o.detail;
      got.push_back(b.get(kDst, p.M * p.N()));
    }
  });
  ASSERT_EQ(got.size(), sequence.size());
  for (size_t s = 0; s < sequence.size(); ++s)
    EXPECT_EQ(got[s], ps[sequence[s]].expected(F))
        << "instruction " << s << ", shape " << sequence[s];
}

// Timing (no data): 64-element FP16 key records, one query head, 4 cores.
// Each core needs 2 clocks per record, so the engine could take 2 records
// per clock-pair; a dequantize stage of 4 elements per clock takes 16
// clocks per record and sets the pace: 64 records = 1,024 clocks of stage
// time, the rest of the wait is counted as dequantize stall.
TEST(GemvKvModes, NarrowDequantStageSetsThePace) {
  const auto f = kv_fmt(kv::kv_kind::fp16);
  auto opt = kv_bench(f);
  opt.functional = false;
  opt.gemv.kv.dequant_elements_per_cycle = 4;
  gemv_bench b(opt);
  const gemv_outcome o = timed_key_rows(b, f);
  ASSERT_EQ(o.err, 0u) << o.detail;
  // The stage fetches its first record at once (the bytes are there), so
  // it overlaps the 11-clock activation load: 64 x 16 clocks of stage time,
  // then the last record computes 2 clocks, the pipeline 6, the last word 1.
  EXPECT_DOUBLE_EQ(o.cycles(), 64 * 16 + 2 + 6 + 1);
  EXPECT_GT(b.counters.value(PCCX_PERF_GEMV_DEQUANT_STALL), 900u);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_WEIGHT_STALL), 0u);
}

// Unscaled INT4 goes to the LUT multipliers directly: no dequantize time.
TEST(GemvKvModes, StaticInt4SkipsTheDequantStage) {
  const auto f = kv_fmt(kv::kv_kind::int4, 0);
  auto opt = kv_bench(f);
  opt.functional = false;
  opt.gemv.kv.dequant_elements_per_cycle = 1;
  gemv_bench b(opt);
  const gemv_outcome o = timed_key_rows(b, f);
  ASSERT_EQ(o.err, 0u) << o.detail;
  // Activations 8 words + 3, then 16 records per core x 2 clocks, as INT4
  // weight rows; the pipeline 6. Records come round-robin from the two
  // halves, so the words of n = 24..31 and n = 56..63 finish on the same
  // clock and their writes queue: 2 clocks.
  EXPECT_DOUBLE_EQ(o.cycles(), 11 + 16 * 2 + 6 + 2);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_DEQUANT_STALL), 0u);
}

TEST(GemvKvModes, Errors) {
  const auto f = kv_fmt(kv::kv_kind::fp16);
  gemv_bench b(kv_bench(f));
  std::vector<gemv_outcome> o;
  b.run([&](gemv_driver& d) {
    gemv_call c;
    c.M = 1, c.N = 4, c.K = 64, c.src = kSrc, c.dst = kDst;
    c.flags = PCCX_WFMT_KV_KEY_ROWS | UCA_FLAG_W_SCALE;
    o.push_back(d.execute(c));
    c.flags = PCCX_WFMT_KV_KEY_ROWS, c.K = 32;
    o.push_back(d.execute(c));
    c.flags = PCCX_WFMT_KV_VALUE_ACCUMULATE, c.K = 4, c.N = 32;
    o.push_back(d.execute(c));
  });
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[0].err, uint32_t(PCCX_ERR_UNIT_FAULT));
  EXPECT_NE(o[0].detail.find("w_scale"), std::string::npos) << o[0].detail;
  EXPECT_EQ(o[1].err, uint32_t(PCCX_ERR_UNIT_FAULT));
  EXPECT_NE(o[1].detail.find("K = 32 must equal npu.kv.head_dim 64"), std::string::npos)
      << o[1].detail;
  EXPECT_NE(o[2].detail.find("N = 32 must equal npu.kv.head_dim 64"), std::string::npos)
      << o[2].detail;
}

// A long FP16 key stream at 4 GB/s per HP channel: 4,096 records of 64
// elements (128 bytes), 2,048 per FIFO, one every 32 ns on each. A core
// needs 2 clocks per record (one query row) and the stage 1, far less than
// the 12.8 clocks per record the two channels deliver, so the stream sets
// the pace: the instruction takes the port-limited time within 2 % and the
// waiting shows as weight stall.
TEST(GemvKvModes, LongKeyStreamTakesThePortLimitedTime) {
  const auto f = kv_fmt(kv::kv_kind::fp16);
  auto opt = kv_bench(f);
  opt.functional = false;
  opt.fifo_bytes = 16 * 1024;
  gemv_bench b(opt);
  constexpr uint32_t kRecords = 4096;
  const uint64_t rec = f.record_bytes();
  const sc_core::sc_time per_record = ns(rec / 4.0);  // 4 GB/s = 4 bytes/ns
  b.producer->body = [&] {
    for (uint32_t i = 0; i < kRecords / 2; ++i) {
      sc_core::wait(per_record);
      for (auto& fifo : b.fifos) fifo->push(rec, sc_core::sc_time_stamp(), nullptr);
    }
  };
  gemv_outcome o;
  b.run([&](gemv_driver& d) {
    gemv_call c;
    c.M = 1, c.N = kRecords, c.K = 64, c.src = kSrc, c.dst = kDst;
    c.flags = PCCX_WFMT_KV_KEY_ROWS;
    o = d.execute(c);
  });
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double ideal_ns = double(kRecords) * rec / 8.0;  // 8 GB/s over both channels
  const double got_ns = (o.retire - o.start).to_seconds() * 1e9;
  EXPECT_NEAR(got_ns / ideal_ns, 1.0, 0.02) << got_ns << " ns vs " << ideal_ns;
  EXPECT_GT(b.counters.value(PCCX_PERF_GEMV_WEIGHT_STALL), 0.5 * o.cycles());
  // Both channels deliver a record at the same moment; the second waits one
  // clock for the stage: 2,048 core clocks, 512 for the engine (4 cores).
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_DEQUANT_STALL), kRecords / 2 / 4);
  RecordProperty("ratio_to_ideal", std::to_string(got_ns / ideal_ns));
}
