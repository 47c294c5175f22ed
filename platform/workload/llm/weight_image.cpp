#include "platform/workload/llm/weight_image.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/npu/units/bf16.h"

namespace pccx::llm {

namespace bf16 = npu::bf16;

namespace {

constexpr double kPi = 3.14159265358979323846;

uint64_t finalise(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t mix(uint64_t h, uint64_t v) {
  return finalise(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)));
}

uint32_t ceil_div(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((uint64_t(a) + b - 1) / b);
}

int nibble(uint8_t byte, bool high) {
  const int v = high ? (byte >> 4) : (byte & 0xF);
  return v >= 8 ? v - 16 : v;
}

std::string where(int32_t layer, const std::string& name) {
  return layer < 0 ? "\"" + name + "\"" : "\"" + name + "\" of layer " + std::to_string(layer);
}

// BF16 scales of `values` in groups of `group` (0: one group): each is
// (1 + spread u) / (rms of the group's integers x sqrt(inputs)), so the
// dequantised values have an RMS of about 1 / sqrt(inputs).
std::vector<uint16_t> group_scales(const std::vector<int>& values, uint32_t group, double inputs,
                                   double spread, synthetic_rng& rng) {
  const uint32_t n = static_cast<uint32_t>(values.size());
  const uint32_t g = group == 0 ? n : group;
  std::vector<uint16_t> scales;
  for (uint32_t first = 0; first < n; first += g) {
    const uint32_t last = std::min(n, first + g);
    double sum = 0;
    for (uint32_t k = first; k < last; ++k) sum += double(values[k]) * values[k];
    const double rms = std::sqrt(sum / (last - first));
    const double nominal = 1.0 / ((rms > 0 ? rms : 1.0) * std::sqrt(inputs));
    scales.push_back(bf16::from_double((1.0 + spread * rng.uniform()) * nominal));
  }
  return scales;
}

// One weight row record: INT4 in [-7, 7], then its scales.
std::vector<uint8_t> make_weight_row(const weights_config& w, uint32_t cols, double inputs,
                                     double spread, uint64_t key) {
  synthetic_rng rng(key);
  std::vector<int> values(cols);
  for (auto& v : values) v = rng.int4();
  std::vector<uint16_t> scales;
  if (w.scales) scales = group_scales(values, w.scale_group, inputs, spread, rng);
  return encode_weight_record(w, values, scales);
}

}  // namespace

// ---- synthetic_rng ----

uint64_t synthetic_rng::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  return finalise(state_);
}

double synthetic_rng::uniform() {
  return double(next() >> 11) * 0x1.0p-52 - 1.0;
}

int synthetic_rng::int4() {
  return symmetric(7);
}

int synthetic_rng::symmetric(int qmax) {
  // Multiply-shift maps 32 random bits onto 2 qmax + 1 values.
  const uint64_t span = 2ull * uint64_t(qmax) + 1;
  return static_cast<int>(((next() >> 32) * span) >> 32) - qmax;
}

double synthetic_rng::normal() {
  // u1 in (0, 1], so the logarithm is finite.
  const double u1 = (double(next() >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = double(next() >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

uint64_t synthetic_key(uint64_t seed, const std::string& name, int64_t a, int64_t b, int64_t c) {
  uint64_t h = finalise(seed ^ 0x6A09E667F3BCC909ull);
  for (unsigned char ch : name) h = mix(h, ch);
  h = mix(h, static_cast<uint64_t>(a));
  h = mix(h, static_cast<uint64_t>(b));
  return mix(h, static_cast<uint64_t>(c));
}

// ---- records ----

std::vector<uint8_t> encode_weight_record(const weights_config& w, const std::vector<int>& values,
                                          const std::vector<uint16_t>& scales) {
  const uint32_t cols = static_cast<uint32_t>(values.size());
  const uint32_t want = !w.scales ? 0 : w.scale_group == 0 ? 1 : ceil_div(cols, w.scale_group);
  if (scales.size() != want)
    throw std::invalid_argument("weight record of " + std::to_string(cols) + " inputs needs " +
                                std::to_string(want) + " scales, found " +
                                std::to_string(scales.size()));
  std::vector<uint8_t> r(weight_record_bytes(w, cols), 0);
  for (size_t s = 0; s < scales.size(); ++s) bf16::store(r.data(), s, scales[s]);
  uint8_t* q = r.data() + 2 * scales.size();
  for (uint32_t k = 0; k < cols; ++k) {
    if (values[k] < -8 || values[k] > 7)
      throw std::invalid_argument("INT4 value " + std::to_string(values[k]) + " out of range");
    const uint8_t nib = static_cast<uint8_t>(values[k] & 0xF);
    q[k / 2] |= (k & 1) ? static_cast<uint8_t>(nib << 4) : nib;
  }
  return r;
}

void decode_weight_record_into(const weights_config& w, const uint8_t* record, uint32_t cols,
                               float* out) {
  const uint32_t scales = !w.scales ? 0 : w.scale_group == 0 ? 1 : ceil_div(cols, w.scale_group);
  const uint32_t group = w.scale_group == 0 ? cols : w.scale_group;
  const uint8_t* q = record + 2 * scales;
  for (uint32_t k = 0; k < cols; ++k) {
    const float s = scales == 0 ? 1.0f : bf16::to_float(bf16::load(record, k / group));
    out[k] = static_cast<float>(nibble(q[k / 2], k & 1)) * s;
  }
}

std::vector<float> decode_weight_record(const weights_config& w, const uint8_t* record,
                                        uint32_t cols) {
  std::vector<float> out(cols);
  decode_weight_record_into(w, record, cols, out.data());
  return out;
}

std::vector<float> decode_table_row(const std::string& format, uint32_t scale_group, uint32_t width,
                                    const uint8_t* row) {
  std::vector<float> out(width);
  if (format == "bf16") {
    for (uint32_t k = 0; k < width; ++k) out[k] = bf16::to_float(bf16::load(row, k));
    return out;
  }
  if (format != "int4" && format != "int8")
    throw std::invalid_argument("table format \"" + format + "\" is not int4, int8 or bf16");
  const uint32_t group = scale_group == 0 ? width : scale_group;
  const uint8_t* q = row + 2 * ceil_div(width, group);
  for (uint32_t k = 0; k < width; ++k) {
    const int v = format == "int4" ? nibble(q[k / 2], k & 1) : static_cast<int8_t>(q[k]);
    out[k] = static_cast<float>(v) * bf16::to_float(bf16::load(row, k / group));
  }
  return out;
}

// ---- weight_image ----

weight_image::weight_image(const model_config& m, const ddr_plan& plan, uint64_t seed,
                           const weight_image_options& options)
    : m_(m), plan_(plan), seed_(seed), options_(options) {
  const auto shapes = all_matrices(m);
  if (plan.model != m.name || plan.matrices.size() != shapes.size() ||
      plan.vectors.size() != vector_params(m).size())
    throw std::invalid_argument("weight_image: the DDR plan of \"" + plan.model +
                                "\" is not a plan of model \"" + m.name + "\"");
  uint64_t values = 0;
  for (const auto& s : shapes) values += s.macs();
  if (values > options.max_values)
    throw std::length_error("weight_image: " + m.name + " has " + grouped(values) +
                            " matrix values (" + grouped(total_weight_bytes(m).records) +
                            " record bytes); a synthetic image holds at most " +
                            grouped(options.max_values) +
                            " (a model of a few layers at most; configs/models/"
                            "gemma3n-e4b-5layers.json has every matrix at its real shape)");

  // Queries of RMS a make scores q.k (keys of RMS 1, times attention.scale)
  // of standard deviation query_logit_std.
  const auto& at = m.attention;
  const double query_rms =
      options.query_logit_std > 0 && at.scale > 0
          ? options.query_logit_std / (std::sqrt(double(at.head_dim)) * at.scale)
          : 1.0;

  for (const auto& pm : plan_.matrices) {
    if (pm.record_bytes != weight_record_bytes(m.weights, pm.shape.cols))
      throw std::invalid_argument("weight_image: the plan's records of " +
                                  where(pm.shape.layer, pm.shape.name) +
                                  " do not match the model's weights format");
    std::vector<uint8_t> bytes(pm.bytes, 0);
    // The nominal input count: a matrix stored by unit (ffn_down) is
    // applied transposed, so its inputs are its rows. Without qk_norm the
    // queries take the query RMS from W_q itself (RMS a / sqrt(cols)).
    double inputs = pm.shape.by_unit ? pm.shape.rows : pm.shape.cols;
    if (pm.shape.name == "attn_q" && !m.attention.qk_norm) inputs /= query_rms * query_rms;
    for (uint32_t r = 0; r < pm.shape.rows; ++r) {
      const auto rec =
          make_weight_row(m.weights, pm.shape.cols, inputs, options.scale_spread,
                          synthetic_key(seed, "matrix:" + pm.shape.name, pm.shape.layer, r));
      std::copy(rec.begin(), rec.end(), bytes.begin() + (pm.row_addr(r) - pm.base));
    }
    matrices_.push_back(std::move(bytes));
  }

  for (const auto& pv : plan_.vectors) {
    const auto& v = pv.param;
    synthetic_rng rng(synthetic_key(seed, "vector:" + v.name, v.layer));
    std::vector<uint16_t> out(v.elements, 0);
    if (v.name == "altup_prediction_coefs" || v.name == "altup_correction_coefs") {
      // One coefficient per 8-element word, in element 0.
      for (uint32_t w = 0; w * 8 < v.elements; ++w)
        out[w * 8] = bf16::from_double(options.coefficient_spread * rng.uniform());
    } else {
      // Norm gammas and altup_output_scale around 1, q_norm around the
      // query RMS; the router norm is stored divided by hidden
      // (docs/models/decode-model.md, storage transforms).
      const double centre = v.name == "q_norm" ? query_rms : 1.0;
      const double div = v.name == "altup_router_norm" ? double(m.hidden) : 1.0;
      for (auto& e : out)
        e = bf16::from_double(centre * (1.0 + options.gamma_spread * rng.uniform()) / div);
    }
    vectors_[{v.layer, v.name}] = std::move(out);
  }
}

size_t weight_image::find_matrix(int32_t layer, const std::string& name) const {
  for (size_t i = 0; i < plan_.matrices.size(); ++i)
    if (plan_.matrices[i].shape.layer == layer && plan_.matrices[i].shape.name == name) return i;
  throw std::invalid_argument("weight_image: " + m_.name + " has no matrix " + where(layer, name));
}

std::vector<blob> weight_image::blobs() const {
  std::vector<blob> out;
  for (size_t i = 0; i < matrices_.size(); ++i)
    out.push_back({plan_.matrices[i].base, matrices_[i]});
  const region& params = plan_.find("parameters");
  blob p{params.base, std::vector<uint8_t>(params.bytes, 0)};
  for (const auto& pv : plan_.vectors) {
    const auto& v = vectors_.at({pv.param.layer, pv.param.name});
    for (size_t i = 0; i < v.size(); ++i)
      bf16::store(p.bytes.data() + (pv.addr - params.base), i, v[i]);
  }
  out.push_back(std::move(p));
  return out;
}

std::vector<uint8_t> weight_image::record(int32_t layer, const std::string& name,
                                          uint32_t row) const {
  const size_t i = find_matrix(layer, name);
  const planned_matrix& pm = plan_.matrices[i];
  if (row >= pm.shape.rows)
    throw std::invalid_argument("weight_image: " + where(layer, name) + " has no row " +
                                std::to_string(row));
  const auto at = matrices_[i].begin() + (pm.row_addr(row) - pm.base);
  return std::vector<uint8_t>(at, at + pm.record_bytes);
}

void weight_image::set_record(int32_t layer, const std::string& name, uint32_t row,
                              const std::vector<uint8_t>& record) {
  const size_t i = find_matrix(layer, name);
  const planned_matrix& pm = plan_.matrices[i];
  if (row >= pm.shape.rows || record.size() != pm.record_bytes)
    throw std::invalid_argument("weight_image: row " + std::to_string(row) + " of " +
                                where(layer, name) + " takes " + std::to_string(pm.record_bytes) +
                                " bytes, found " + std::to_string(record.size()));
  std::copy(record.begin(), record.end(), matrices_[i].begin() + (pm.row_addr(row) - pm.base));
}

void weight_image::set_vector(int32_t layer, const std::string& name,
                              const std::vector<uint16_t>& values) {
  const size_t elements = vector_bf16(layer, name).size();  // checks the name
  if (values.size() != elements)
    throw std::invalid_argument("weight_image: vector " + where(layer, name) + " has " +
                                std::to_string(elements) + " elements, found " +
                                std::to_string(values.size()));
  vectors_[{layer, name}] = values;
}

std::vector<float> weight_image::matrix_row(int32_t layer, const std::string& name,
                                            uint32_t row) const {
  const auto rec = record(layer, name, row);
  return decode_weight_record(m_.weights, rec.data(),
                              plan_.matrices[find_matrix(layer, name)].shape.cols);
}

size_t weight_image::matrix_index(int32_t layer, const std::string& name) const {
  return find_matrix(layer, name);
}

void weight_image::matrix_row_into(size_t index, uint32_t row, float* out) const {
  const planned_matrix& pm = plan_.matrices.at(index);
  if (row >= pm.shape.rows)
    throw std::invalid_argument("weight_image: " + where(pm.shape.layer, pm.shape.name) +
                                " has no row " + std::to_string(row));
  decode_weight_record_into(m_.weights, matrices_[index].data() + (pm.row_addr(row) - pm.base),
                            pm.shape.cols, out);
}

std::vector<float> weight_image::matrix(int32_t layer, const std::string& name) const {
  const size_t i = find_matrix(layer, name);
  const planned_matrix& pm = plan_.matrices[i];
  const auto& s = pm.shape;
  std::vector<float> out;
  out.reserve(size_t(s.rows) * s.cols);
  for (uint32_t r = 0; r < s.rows; ++r) {
    const uint8_t* rec = matrices_[i].data() + (pm.row_addr(r) - pm.base);
    const auto row = decode_weight_record(m_.weights, rec, s.cols);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

std::vector<uint16_t> weight_image::vector_bf16(int32_t layer, const std::string& name) const {
  const auto it = vectors_.find({layer, name});
  if (it == vectors_.end())
    throw std::invalid_argument("weight_image: " + m_.name + " has no parameter vector " +
                                where(layer, name));
  return it->second;
}

std::vector<float> weight_image::vector(int32_t layer, const std::string& name) const {
  const auto b = vector_bf16(layer, name);
  std::vector<float> out(b.size());
  for (size_t i = 0; i < b.size(); ++i) out[i] = bf16::to_float(b[i]);
  return out;
}

std::vector<uint8_t> weight_image::ple_record(uint32_t token) const {
  const auto& p = m_.per_layer_input;
  if (!m_.has_ple())
    throw std::invalid_argument("weight_image: " + m_.name + " has no per-layer inputs");
  if (token >= p.vocab)
    throw std::invalid_argument("weight_image: token " + std::to_string(token) +
                                " has no per-layer embedding row (the table has " +
                                std::to_string(p.vocab) + ")");
  const uint32_t width = m_.layers * p.dim;
  synthetic_rng rng(synthetic_key(seed_, "ple_table", token));
  std::vector<uint8_t> row(ple_row_bytes(m_), 0);
  // Values of RMS about 1 / sqrt(dim): the decode adds T x sqrt(dim).
  if (p.table_format == "bf16") {
    for (uint32_t k = 0; k < width; ++k)
      bf16::store(row.data(), k, bf16::from_double(rng.uniform() * std::sqrt(3.0 / p.dim)));
    return row;
  }
  const bool int4 = p.table_format == "int4";
  std::vector<int> values(width);
  for (auto& v : values) v = int4 ? rng.int4() : rng.symmetric(127);
  const auto scales = group_scales(values, p.table_scale_group, p.dim, options_.scale_spread, rng);
  for (size_t s = 0; s < scales.size(); ++s) bf16::store(row.data(), s, scales[s]);
  uint8_t* q = row.data() + 2 * scales.size();
  for (uint32_t k = 0; k < width; ++k) {
    if (int4)
      q[k / 2] |= static_cast<uint8_t>((values[k] & 0xF) << ((k & 1) ? 4 : 0));
    else
      q[k] = static_cast<uint8_t>(values[k] & 0xFF);
  }
  return row;
}

std::vector<float> weight_image::ple_row(uint32_t token) const {
  const auto rec = ple_record(token);
  const auto& p = m_.per_layer_input;
  return decode_table_row(p.table_format, p.table_scale_group, m_.layers * p.dim, rec.data());
}

std::vector<uint8_t> weight_image::embedding_record(uint32_t token) const {
  if (token >= m_.vocab)
    throw std::invalid_argument("weight_image: token " + std::to_string(token) +
                                " is outside the vocabulary of " + std::to_string(m_.vocab));
  if (m_.tie_embeddings) return record(-1, "lm_head", token);
  return make_weight_row(m_.weights, m_.hidden, m_.hidden, options_.scale_spread,
                         synthetic_key(seed_, "embedding", -1, token));
}

std::vector<float> weight_image::embedding(uint32_t token) const {
  const auto rec = embedding_record(token);
  return decode_weight_record(m_.weights, rec.data(), m_.hidden);
}

std::vector<blob> weight_image::ple_blobs(const std::vector<uint32_t>& tokens) const {
  std::vector<blob> out;
  if (!m_.has_ple()) return out;
  std::vector<uint32_t> rows;
  for (uint32_t t : tokens) rows.push_back(std::min(t, m_.per_layer_input.vocab - 1));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (uint32_t r : rows) out.push_back({plan_.ple_row_addr(m_, r), ple_record(r)});
  return out;
}

std::vector<blob> weight_image::embedding_blobs(const std::vector<uint32_t>& tokens) const {
  std::vector<blob> out;
  std::vector<uint32_t> rows = tokens;
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (uint32_t t : rows) {
    const auto rec = embedding_record(t);  // checks the vocabulary
    if (!m_.tie_embeddings) out.push_back({plan_.embedding_row_addr(m_, t), rec});
  }
  return out;
}

std::vector<blob> weight_image::token_blobs(const std::vector<uint32_t>& tokens) const {
  std::vector<blob> out = ple_blobs(tokens);
  for (auto& b : embedding_blobs(tokens)) out.push_back(std::move(b));
  return out;
}

}  // namespace pccx::llm
