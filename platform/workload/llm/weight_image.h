// Deterministic synthetic parameters of a model, laid out as a DDR plan
// places them: every matrix as INT4 row records in the GEMV's format
// (docs/models/gemv.md), every parameter vector as BF16 (with the storage
// transforms of docs/models/decode-model.md), and the rows of the per-layer
// embedding table for given tokens. The bytes go into the platform's DDR;
// the accessors return the dequantised values the host reference
// (reference_decoder.h) computes with. docs/models/decode-reference.md.
//
// Every value comes from splitmix64 streams keyed by (seed, name, layer,
// row): no std:: distribution, so the bytes are the same with every
// standard library. Meant for small models (configs/models/tiny.json); a
// model above the image's value limit is refused.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"

namespace pccx::llm {

// Bytes to place at a DDR address.
struct blob {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};

// A splitmix64 stream. The key of a stream mixes a seed, a name and up to
// three indices (synthetic_key), so each row, vector or KV head vector has
// its own stream, independent of the order anything is generated in.
class synthetic_rng {
 public:
  explicit synthetic_rng(uint64_t key) : state_(key) {}
  uint64_t next();
  // Uniform in [-1, 1): 53 random bits.
  double uniform();
  // Uniform integer in [-7, 7].
  int int4();
  // Uniform integer in [-qmax, qmax].
  int symmetric(int qmax);
  // N(0, 1), Box-Muller (std::log, std::sqrt, std::cos, std::sin in
  // double); pairs are not cached, so every call draws two numbers.
  double normal();

 private:
  uint64_t state_;
};

uint64_t synthetic_key(uint64_t seed, const std::string& name, int64_t a = 0, int64_t b = 0,
                       int64_t c = 0);

struct weight_image_options {
  // Matrix values (sum of rows x cols) the image accepts; a larger model is
  // refused with std::length_error. The image holds the INT4 records (half
  // a byte a value) and the platform's DDR a copy of them: 2^31 values is
  // about 2 GB in all, which admits every matrix of Gemma 3n E4B at its
  // real shape over a few layers, not all 35.
  uint64_t max_values = uint64_t{1} << 31;
  // Spread of the generated parameters (docs/models/decode-reference.md).
  double gamma_spread = 0.2;        // norm gammas and altup_output_scale: 1 + spread u
  double coefficient_spread = 0.1;  // AltUp coefficients: spread u
  double scale_spread = 0.25;       // a row's or group's scale: (1 + spread u) x nominal
  // Standard deviation of the attention scores q.k x attention.scale
  // against keys of RMS 1: the queries get an RMS of a = std / (sqrt(head_dim)
  // x scale), through the q_norm gammas (a (1 + spread u)) or, without
  // qk_norm, through W_q's rows. 3 is what real decoder caches show
  // (docs/reference/kv-formats.md); sharper attention makes the logits chaotic in
  // small errors. 0: q_norm gammas around 1 like the other norms.
  double query_logit_std = 3.0;
};

class weight_image {
 public:
  // The plan must be the model's (plan_ddr of the same config). Throws
  // std::invalid_argument when it is not, std::length_error when the model
  // is too big for a synthetic image.
  weight_image(const model_config& m, const ddr_plan& plan, uint64_t seed,
               const weight_image_options& options = {});

  const model_config& model() const { return m_; }
  const ddr_plan& plan() const { return plan_; }
  uint64_t seed() const { return seed_; }

  // The matrices (one blob per matrix region: part 0 then part 1, as
  // planned) and the parameters region (every vector at its address, the
  // padding zero).
  std::vector<blob> blobs() const;
  // The per-layer embedding rows the tokens read: row min(t,
  // per_layer_input.vocab - 1) of each token, once each, at
  // ddr_plan::ple_row_addr. Empty without per-layer inputs.
  std::vector<blob> ple_blobs(const std::vector<uint32_t>& tokens) const;
  // The embedding rows of the tokens for an untied model (at
  // embedding_row_addr); empty when the embeddings are tied (the rows are
  // lm_head records, part of blobs()). std::invalid_argument for a token
  // outside the vocabulary.
  std::vector<blob> embedding_blobs(const std::vector<uint32_t>& tokens) const;
  // ple_blobs and embedding_blobs together.
  std::vector<blob> token_blobs(const std::vector<uint32_t>& tokens) const;

  // Replace a row record or a vector (BF16 values as stored), e.g. to see
  // a test's logits move; std::invalid_argument for a wrong size or name.
  void set_record(int32_t layer, const std::string& name, uint32_t row,
                  const std::vector<uint8_t>& record);
  void set_vector(int32_t layer, const std::string& name, const std::vector<uint16_t>& values);

  // Dequantised matrix (layer -1 for the matrices outside the layers), row
  // major rows x cols as stored (ffn_down by unit: ffn x hidden). Value =
  // INT4 x the row's or group's BF16 scale, exactly as the GEMV forms it.
  // std::invalid_argument for a matrix the plan does not have.
  std::vector<float> matrix(int32_t layer, const std::string& name) const;
  // One row of it.
  std::vector<float> matrix_row(int32_t layer, const std::string& name, uint32_t row) const;
  // The same by the matrix's index in plan().matrices, into cols floats:
  // what a consumer that never holds a whole matrix dequantised reads
  // (the host reference at real dimensions).
  size_t matrix_index(int32_t layer, const std::string& name) const;
  void matrix_row_into(size_t index, uint32_t row, float* out) const;
  // The stored record of a row (record_bytes of the plan).
  std::vector<uint8_t> record(int32_t layer, const std::string& name, uint32_t row) const;
  // A parameter vector as stored (BF16 values as floats; the coefficient
  // vectors in their word-per-coefficient layout, the router norm already
  // divided by hidden). std::invalid_argument for an unknown vector.
  std::vector<float> vector(int32_t layer, const std::string& name) const;
  std::vector<uint16_t> vector_bf16(int32_t layer, const std::string& name) const;
  // Row of the per-layer embedding table, dequantised: layers x dim values,
  // layer i's at i x dim. std::invalid_argument for a token without a row
  // (at or above per_layer_input.vocab) or a model without per-layer inputs.
  std::vector<float> ple_row(uint32_t token) const;
  // The stored table row (ple_row_bytes).
  std::vector<uint8_t> ple_record(uint32_t token) const;
  // Embedding row of a token (hidden values): an lm_head row when tied.
  // std::invalid_argument for a token outside the vocabulary.
  std::vector<float> embedding(uint32_t token) const;

 private:
  // Index of a matrix in plan_.matrices and matrices_ (an index, not a
  // pointer, so copies of the image stay valid).
  size_t find_matrix(int32_t layer, const std::string& name) const;
  std::vector<uint8_t> embedding_record(uint32_t token) const;
  std::vector<float> decode_record(const uint8_t* record, uint32_t cols) const;

  model_config m_;
  ddr_plan plan_;
  uint64_t seed_;
  weight_image_options options_;
  std::vector<std::vector<uint8_t>> matrices_;  // each region's bytes, from its base
  std::map<std::pair<int32_t, std::string>, std::vector<uint16_t>> vectors_;
};

// The row-record bytes of docs/models/gemv.md for `values` (cols INT4 in [-8, 7])
// and their BF16 scales (none when !w.scales, one per row when
// w.scale_group is 0, else ceil(cols / scale_group)); zero padded to
// weight_record_bytes(w, cols).
std::vector<uint8_t> encode_weight_record(const weights_config& w, const std::vector<int>& values,
                                          const std::vector<uint16_t>& scales);
// The reverse: cols dequantised values (int4 x scale, in float, exact).
void decode_weight_record_into(const weights_config& w, const uint8_t* record, uint32_t cols,
                               float* out);
std::vector<float> decode_weight_record(const weights_config& w, const uint8_t* record,
                                        uint32_t cols);
// A table row of `width` values (table_row_bytes(format, scale_group,
// width)): "int4" / "int8": the BF16 scales first (one per scale_group
// values, one per row when scale_group is 0), then the values (INT4: value
// 2j in the low nibble of byte j, 2j + 1 in the high one; INT8: one byte
// each, two's complement); "bf16": the values. Dequantised: value x the
// scale of its group.
std::vector<float> decode_table_row(const std::string& format, uint32_t scale_group, uint32_t width,
                                    const uint8_t* row);

}  // namespace pccx::llm
