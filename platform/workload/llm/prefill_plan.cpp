#include "platform/workload/llm/prefill_plan.h"

#include <algorithm>

#include "models/npu/units/gemm_stream.h"

namespace pccx::llm {

namespace {


uint32_t ceil32(uint64_t v) {
  return static_cast<uint32_t>((v + npu::kGemmTileK - 1) / npu::kGemmTileK * npu::kGemmTileK);
}

std::string where(const matrix_shape& s) {
  return s.layer < 0 ? s.name : "layer " + std::to_string(s.layer) + " " + s.name;
}

// Parts along K so that an N-tile's 32 columns of one part fit the block
// buffer: K itself when it fits, else the fewest equal parts of a multiple
// of 32 inputs (the cut must start on a 16-byte boundary of the record).
void split_k(prefill_matrix& pm, bool scales, uint32_t block_bytes) {
  const uint32_t K = pm.shape.cols;
  if (npu::gemm_block_bytes(K, scales) <= block_bytes) {
    pm.k_parts = 1, pm.k_part = K;
    return;
  }
  for (uint32_t p = 2;; ++p) {
    const uint32_t kp = ceil32((uint64_t{K} + p - 1) / p);
    if (npu::gemm_block_bytes(kp, scales) <= block_bytes) {
      pm.k_parts = (K + kp - 1) / kp, pm.k_part = kp;
      return;
    }
    if (kp <= npu::kGemmTileK)
      throw prefill_plan_error(where(pm.shape) + ": npu.gemm.weight_block_bytes (" +
                               grouped(block_bytes) + ") holds less than an N-tile of 32 inputs (" +
                               grouped(npu::gemm_block_bytes(npu::kGemmTileK, scales)) +
                               " bytes per FIFO)");
  }
}

uint64_t part_stream_bytes(uint32_t n, uint32_t k, bool scales) {
  return npu::gemm_stream_bytes_of_fifo(n, k, scales, 0) +
         npu::gemm_stream_bytes_of_fifo(n, k, scales, 1);
}

// Every part of every N-slice, once.
uint64_t stream_bytes(const prefill_matrix& pm, bool scales) {
  uint64_t bytes = 0;
  const uint32_t N = pm.shape.rows, K = pm.shape.cols;
  for (uint32_t n0 = 0; n0 < N; n0 += pm.n_slice())
    for (uint32_t k0 = 0; k0 < K; k0 += pm.k_part)
      bytes +=
          part_stream_bytes(std::min(pm.n_slice(), N - n0), std::min(pm.k_part, K - k0), scales);
  return pm.passes * bytes;
}

void check_model(const model_config& m) {
  if (m.weights.scales && m.weights.scale_group != 0)
    throw prefill_plan_error(
        m.name + ": weights.scale_group " + std::to_string(m.weights.scale_group) +
        ": the GEMM array applies one scale per output column, so prefill needs one scale per "
        "row record (weights.scale_group 0)");
  if (m.skip_masked_down_rows && m.sparse_ffn_layers > 0)
    throw prefill_plan_error(m.name +
                             ": skip_masked_down_rows stores W_down by FFN unit, but the GEMM's "
                             "row records are output columns: prefill needs it false");
}

void check_ring(const prefill_options& o, uint32_t cap, uint32_t chunk) {
  const uint64_t need = uint64_t{o.prompt} + o.generated;
  if (need > cap && !o.evict)
    throw prefill_plan_error(
        "a prompt of " + grouped(o.prompt) + " tokens and " + grouped(o.generated) +
        " generated need " + grouped(need) + " records per KV stream, above the ring cap of " +
        grouped(cap) +
        ": without eviction the ring would overwrite tokens still attended; raise the cap or "
        "allow eviction (sinks + window)");
  if (o.sinks >= cap)
    throw prefill_plan_error(std::to_string(o.sinks) + " sinks leave no room in a ring of " +
                             grouped(cap) + " records");
  if (chunk > cap - o.sinks)
    throw prefill_plan_error("a chunk of " + grouped(chunk) +
                             " rows appends its tokens before they attend, but the "
                             "ring keeps " +
                             grouped(cap - o.sinks) + " non-sink records (cap " + grouped(cap) +
                             ", " + std::to_string(o.sinks) + " sinks): at most " +
                             grouped(cap - o.sinks) + " rows per chunk");
}

}  // namespace

uint64_t chunk_attention_span(const model_config& m, uint32_t layer, uint64_t p0, uint32_t rows,
                              uint64_t ring_cap) {
  // Row t attends the span(t + 1) tokens ending at itself; the spans start
  // no earlier for a later row, so the union starts at row p0's start.
  const uint64_t span0 = m.attention_span(layer, p0 + 1);
  const uint64_t start = p0 + 1 - span0;
  return std::min<uint64_t>(p0 + rows - start, ring_cap);
}

prefill_plan plan_prefill(const model_config& m, const kv_formats& f, const prefill_options& o,
                          const config::gemm_config& gemm) {
  if (o.prompt == 0) throw prefill_plan_error("a prompt of 0 tokens: nothing to prefill");
  check_model(m);
  prefill_plan p;
  p.options = o;
  p.gemm = gemm;
  const bool scales = m.weights.scales;

  std::vector<matrix_shape> shapes = entry_matrices(m);
  for (uint32_t l = 0; l < m.layers; ++l)
    for (auto& s : layer_matrices(m, l)) shapes.push_back(std::move(s));
  p.last_token = exit_matrices(m);

  // K-splits first: the widest part bounds the chunk. The FFN runs in
  // slices of one width, the K-part of the widest down projection: gate and
  // up by their columns, down by its inputs (the firmware's ffn_part).
  for (auto& s : shapes) {
    prefill_matrix pm;
    pm.shape = std::move(s);
    split_k(pm, scales, gemm.weight_block_bytes);
    if (pm.shape.name == "ffn_down") p.ffn_part = std::max(p.ffn_part, pm.k_part);
    p.matrices.push_back(std::move(pm));
  }
  for (auto& pm : p.matrices) {
    const bool ffn_in = pm.shape.name == "ffn_gate" || pm.shape.name == "ffn_up";
    if (ffn_in && p.ffn_part != 0) pm.n_part = std::min(p.ffn_part, pm.shape.rows);
    if (pm.shape.name == "ffn_down" && p.ffn_part != 0) {
      pm.k_part = std::min(p.ffn_part, pm.shape.cols);
      pm.k_parts = (pm.shape.cols + pm.k_part - 1) / pm.k_part;
    }
    // A sparse layer's gate runs twice: its statistics over the whole
    // width first, then slice by slice with the cutoff.
    if (pm.shape.name == "ffn_gate" && pm.shape.layer >= 0 &&
        m.is_sparse_ffn(static_cast<uint32_t>(pm.shape.layer)))
      pm.passes = 2;
  }
  const prefill_matrix* widest = &*std::max_element(
      p.matrices.begin(), p.matrices.end(),
      [](const prefill_matrix& a, const prefill_matrix& b) { return a.k_part < b.k_part; });
  p.chunk_limit = gemm.act_buffer_bytes / widest->k_part;
  if (p.chunk_limit == 0)
    throw prefill_plan_error(where(widest->shape) + ": one row of " + grouped(widest->k_part) +
                             " INT8 activations exceeds npu.gemm.act_buffer_bytes (" +
                             grouped(gemm.act_buffer_bytes) + ")");
  if (o.chunk > p.chunk_limit) {
    const std::string split = widest->k_parts > 1
                                  ? " takes K = " + grouped(widest->shape.cols) + " in " +
                                        std::to_string(widest->k_parts) + " parts of " +
                                        grouped(widest->k_part) +
                                        " inputs (an N-tile of more would "
                                        "exceed npu.gemm.weight_block_bytes, " +
                                        grouped(gemm.weight_block_bytes) + ")"
                                  : " takes K = " + grouped(widest->k_part) + " inputs";
    throw prefill_plan_error(
        "a prefill chunk of " + grouped(o.chunk) + " rows: " + where(widest->shape) + split +
        ", and " + grouped(o.chunk) + " x " + grouped(widest->k_part) + " = " +
        grouped(uint64_t{o.chunk} * widest->k_part) +
        " INT8 activations exceed npu.gemm.act_buffer_bytes (" + grouped(gemm.act_buffer_bytes) +
        "): at most " + grouped(p.chunk_limit) + " rows");
  }
  p.chunk = std::min(o.chunk ? o.chunk : p.chunk_limit, o.prompt);
  p.chunks = (o.prompt + p.chunk - 1) / p.chunk;
  p.ring_cap = o.ring_cap ? o.ring_cap : o.prompt + o.generated;
  check_ring(o, p.ring_cap, p.chunk);

  uint64_t chunk_stream = 0, row_macs = 0;
  for (auto& pm : p.matrices) {
    pm.group = npu::gemm_group_ntiles(gemm, p.chunk, std::min(pm.shape.rows, pm.n_slice()),
                                      pm.k_part, scales);
    pm.stream_bytes = stream_bytes(pm, scales);
    chunk_stream += pm.stream_bytes;
    row_macs += pm.passes * pm.shape.macs();
    p.gemm_instructions += pm.gemms();
  }
  uint64_t last_records = 0;
  for (const auto& s : p.last_token) {
    last_records += matrix_bytes(m, s).records;
    p.gemv_macs += s.macs();
  }
  p.weight_bytes = uint64_t{p.chunks} * chunk_stream +
                   uint64_t{o.prompt} * (embedding_row_bytes(m) + ple_row_bytes(m)) + last_records;
  p.gemm_macs = uint64_t{o.prompt} * row_macs;
  p.kv_write_bytes = uint64_t{o.prompt} * kv_bytes_per_token(m, f);

  // The least a chunk reads: each layer's source cache once, the union of
  // its rows' spans (a query tile of the whole chunk; the firmware's tiles
  // are as large as the L2 allows, so it reads at least this).
  const uint64_t per_layer_token = kv_bytes_per_token_per_layer(m, f);
  const uint64_t per_key = 2ull * m.attention.heads * m.attention.head_dim;
  for (uint32_t l = 0; l < m.layers; ++l)
    for (uint64_t p0 = 0; p0 < o.prompt; p0 += p.chunk)
      p.kv_read_bytes +=
          chunk_attention_span(m, l, p0,
                               static_cast<uint32_t>(std::min<uint64_t>(p.chunk, o.prompt - p0)),
                               p.ring_cap) *
          per_layer_token;
  for (uint32_t l = 0; l < m.layers; ++l)
    for (uint64_t t = 0; t < o.prompt; ++t)
      p.attention_macs += per_key * std::min<uint64_t>(m.attention_span(l, t + 1), p.ring_cap);
  return p;
}

roofline prefill_roofline(const prefill_plan& p, const roofline_inputs& in) {
  return roofline_of(p.weight_bytes, p.kv_read_bytes, p.kv_write_bytes, p.macs(), in);
}

double gemm_peak_macs_per_second(double core_clock_hz) {
  return double(npu::kGemmTileK) * npu::kGemmTileN * core_clock_hz;
}

}  // namespace pccx::llm
