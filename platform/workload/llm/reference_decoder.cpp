#include "platform/workload/llm/reference_decoder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/npu/units/bf16.h"

namespace pccx::llm {

namespace bf16 = npu::bf16;

namespace {

std::vector<double> slice(const std::vector<double>& x, size_t first, size_t count) {
  return std::vector<double>(x.begin() + first, x.begin() + first + count);
}

std::string stream_matrix(const char* kind, uint32_t j) {
  return std::string(kind) + "." + std::to_string(j);
}

bool is_static(const kv::kv_format& f) {
  return (f.kind == kv::kv_kind::int8 || f.kind == kv::kv_kind::int4) && f.group == 0;
}

}  // namespace

// ---- pieces ----

std::vector<double> rms_norm(const std::vector<double>& x, const float* g, double eps) {
  const double inv = 1.0 / magnitude(x, eps);
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * inv * (g ? double(g[i]) : 1.0);
  return out;
}

double magnitude(const std::vector<double>& x, double eps) {
  double sum = 0;
  for (double v : x) sum += v * v;
  return std::sqrt(sum / double(x.size()) + eps);
}

double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
}

std::vector<double> softmax(const std::vector<double>& scores) {
  std::vector<double> p(scores.size());
  if (scores.empty()) return p;
  const double mx = *std::max_element(scores.begin(), scores.end());
  double sum = 0;
  for (size_t i = 0; i < scores.size(); ++i) sum += p[i] = std::exp(scores[i] - mx);
  for (double& v : p) v /= sum;
  return p;
}

void rope(double* x, uint32_t d, double position, double theta) {
  const uint32_t half = d / 2;
  for (uint32_t m = 0; m < half; ++m) {
    const double a = position * std::pow(theta, -2.0 * m / d);
    const double c = std::cos(a), s = std::sin(a);
    const double lo = x[m], hi = x[m + half];
    x[m] = lo * c - hi * s;
    x[m + half] = hi * c + lo * s;
  }
}

double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("cosine_similarity: lengths " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()) + " differ");
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa == 0 || bb == 0 ? 0.0 : ab / std::sqrt(aa * bb);
}

// ---- reference_decoder ----

reference_decoder::reference_decoder(const weight_image& w, kv_history_fn history,
                                     const reference_options& o)
    : w_(w),
      m_(w.model()),
      history_(std::move(history)),
      o_(o),
      eps_(w.model().rms_norm_eps),
      ring_cap_(o.ring_cap != 0 ? o.ring_cap : w.plan().max_tokens),
      pos_(o.context) {
  if (!history_ && o.context != 0)
    throw std::invalid_argument("reference_decoder: a context of " + std::to_string(o.context) +
                                " tokens needs a KV history");
  for (uint32_t l = 0; l < m_.storing_layers(); ++l) {
    const ring_view r = ring_of(m_, l, ring_cap_, o.sinks, o.window_extra);
    if (r.sinks >= r.cap)
      throw std::invalid_argument("reference_decoder: " + std::to_string(r.sinks) +
                                  " sinks do not fit a ring of " + std::to_string(r.cap) +
                                  " records (layer " + std::to_string(l) + ")");
  }
  if (o.kv_codec) {
    const std::string problem = check_kv_formats(m_, o.formats);
    if (!problem.empty()) throw std::invalid_argument("reference_decoder: " + problem);
    for (const auto* f : {&o.formats.key, &o.formats.value})
      if (is_static(*f))
        throw std::invalid_argument(
            "reference_decoder: " + f->name() +
            " has no stored scale (the driver's static scales are not modelled); use a grouped "
            "format");
    key_codec_.emplace(o.formats.key);
    value_codec_.emplace(o.formats.value);
  }
  for (const auto& pm : w.plan().matrices) {
    matrix_d d;
    d.rows = pm.shape.rows;
    d.cols = pm.shape.cols;
    d.transposed = pm.shape.by_unit;
    d.index = w.matrix_index(pm.shape.layer, pm.shape.name);
    mats_[{pm.shape.layer, pm.shape.name}] = std::move(d);
  }
  for (const auto& pv : w.plan().vectors)
    vecs_[{pv.param.layer, pv.param.name}] = w.vector(pv.param.layer, pv.param.name);
}

const reference_decoder::matrix_d& reference_decoder::mat(int32_t layer,
                                                          const std::string& name) const {
  const auto it = mats_.find({layer, name});
  if (it == mats_.end())
    throw std::logic_error("reference_decoder: no matrix " + name + " in layer " +
                           std::to_string(layer));
  return it->second;
}

const float* reference_decoder::vec(int32_t layer, const std::string& name) const {
  const auto it = vecs_.find({layer, name});
  if (it == vecs_.end())
    throw std::logic_error("reference_decoder: no vector " + name + " in layer " +
                           std::to_string(layer));
  return it->second.data();
}

std::vector<double> reference_decoder::apply(const matrix_d& a,
                                             const std::vector<double>& x) const {
  std::vector<float> row(a.cols);
  if (!a.transposed) {
    std::vector<double> y(a.rows, 0.0);
    for (uint32_t r = 0; r < a.rows; ++r) {
      w_.matrix_row_into(a.index, r, row.data());
      double s = 0;
      for (uint32_t c = 0; c < a.cols; ++c) s += double(row[c]) * x[c];
      y[r] = s;
    }
    return y;
  }
  // Stored by unit: row r is input r's column of W.
  std::vector<double> y(a.cols, 0.0);
  for (uint32_t r = 0; r < a.rows; ++r) {
    w_.matrix_row_into(a.index, r, row.data());
    for (uint32_t c = 0; c < a.cols; ++c) y[c] += double(row[c]) * x[r];
  }
  return y;
}

std::vector<double> reference_decoder::through_codec(const std::vector<double>& x,
                                                     bool is_value) const {
  if (!o_.kv_codec) return x;
  const kv::kv_codec& c = is_value ? *value_codec_ : *key_codec_;
  std::vector<float> f(x.begin(), x.end()), back(x.size());
  std::vector<uint8_t> rec(c.format().record_bytes());
  c.encode(f.data(), rec.data());
  c.decode(rec.data(), back.data());
  return std::vector<double>(back.begin(), back.end());
}

void reference_decoder::store_kv(uint32_t layer, uint32_t head, uint32_t pos, bool is_value,
                                 const std::vector<double>& x) {
  cache_[{layer, head, is_value}][pos] = through_codec(x, is_value);
}

const std::vector<double>* reference_decoder::stored_kv(uint32_t layer, uint32_t head,
                                                       uint32_t pos, bool is_value) const {
  const auto stream = cache_.find({layer, head, is_value});
  if (stream == cache_.end() || pos < o_.context) return nullptr;
  const auto it = stream->second.find(pos);
  return it != stream->second.end() ? &it->second : nullptr;
}

const std::vector<double>& reference_decoder::kv(uint32_t layer, uint32_t head, uint32_t pos,
                                                 bool is_value) {
  auto& stream = cache_[{layer, head, is_value}];
  auto it = stream.find(pos);
  if (it != stream.end()) return it->second;
  if (pos >= o_.context)
    throw std::logic_error("reference_decoder: no K/V of position " + std::to_string(pos));
  std::vector<float> f(m_.attention.head_dim);
  history_(layer, head, pos, is_value, f.data());
  return stream[pos] = through_codec(std::vector<double>(f.begin(), f.end()), is_value);
}

std::vector<double> reference_decoder::router(uint32_t layer, const std::vector<double>& x) const {
  const int32_t l = static_cast<int32_t>(layer);
  auto r = apply(l, "altup_router", norm(x, l, "altup_router_norm"));
  for (double& v : r) v = std::tanh(v);
  return r;
}

std::vector<std::vector<double>> reference_decoder::run(const std::vector<uint32_t>& tokens) {
  std::vector<std::vector<double>> out;
  for (uint32_t t : tokens) out.push_back(step(t));
  return out;
}

std::vector<double> reference_decoder::step(uint32_t token) {
  if (token >= m_.vocab)
    throw std::invalid_argument("reference_decoder: token " + std::to_string(token) +
                                " is outside the vocabulary of " + std::to_string(m_.vocab));
  const auto& at = m_.attention;
  const uint32_t H = m_.hidden, S = m_.altup.streams, A = m_.altup.active_stream;
  const uint32_t P = m_.per_layer_input.dim, d = at.head_dim, G = at.heads / at.kv_heads;
  const uint32_t pos = pos_;

  // Entry: e = Emb[tok] sqrt(H), rounded to BF16.
  const auto emb = w_.embedding(token);
  std::vector<double> e(H);
  for (uint32_t i = 0; i < H; ++i)
    e[i] = bf16::to_float(bf16::from_double(double(emb[i]) * std::sqrt(double(H))));
  std::vector<std::vector<double>> xs(S);
  xs[A] = e;
  if (S > 1) {
    const double me = magnitude(e, eps_);
    uint32_t j = 0;
    for (uint32_t s = 0; s < S; ++s) {
      if (s == A) continue;
      xs[s] = rms_norm(apply(-1, stream_matrix("altup_proj", ++j), e), nullptr, eps_);
      for (double& v : xs[s]) v *= me;
    }
  }
  std::vector<std::vector<double>> pli(m_.layers);
  if (P > 0) {
    const auto pp = apply(-1, "ple_model_proj", e);
    const auto table = w_.ple_row(std::min(token, m_.per_layer_input.vocab - 1));
    for (uint32_t i = 0; i < m_.layers; ++i) {
      pli[i] = rms_norm(slice(pp, size_t(i) * P, P), vec(-1, "ple_proj_norm"), eps_);
      for (uint32_t k = 0; k < P; ++k)
        pli[i][k] =
            (pli[i][k] + double(table[size_t(i) * P + k]) * std::sqrt(double(P))) / std::sqrt(2.0);
    }
  }

  for (uint32_t layer = 0; layer < m_.layers; ++layer) {
    const int32_t l = static_cast<int32_t>(layer);
    const double theta = m_.is_global(layer) ? at.rope_theta_global : at.rope_theta_local;

    // 1. AltUp prediction.
    std::vector<std::vector<double>> pred = xs;
    if (S > 1) {
      const auto r = router(layer, xs[A]);
      const float* wp = vec(l, "altup_prediction_coefs");
      for (uint32_t s = 0; s < S; ++s)
        for (uint32_t j = 0; j < S; ++j) {
          double c = 0;
          for (uint32_t k = 0; k < S; ++k)
            c += double(wp[8 * (size_t(k) * S * S + s * S + j)]) * r[k];
          for (uint32_t i = 0; i < H; ++i) pred[s][i] += c * xs[j][i];
        }
    }
    // 2.
    const std::vector<double>& x = pred[A];
    const auto xn = norm(x, l, "input_norm");
    // 3. LAuReL.
    std::vector<double> lau;
    if (m_.has_laurel()) {
      lau = norm(apply(l, "laurel_right", apply(l, "laurel_left", xn)), l, "laurel_norm");
      for (uint32_t i = 0; i < H; ++i) lau[i] += xn[i];
    }
    // 4. Q, K, V.
    auto q = apply(l, "attn_q", xn);
    for (uint32_t h = 0; h < at.heads; ++h) {
      auto qh = slice(q, size_t(h) * d, d);
      if (at.qk_norm) qh = norm(qh, l, "q_norm");
      rope(qh.data(), d, pos, theta);
      for (uint32_t i = 0; i < d; ++i) q[size_t(h) * d + i] = qh[i] * at.scale;
    }
    if (m_.stores_kv(layer)) {
      const auto k = apply(l, "attn_k", xn), v = apply(l, "attn_v", xn);
      for (uint32_t h = 0; h < at.kv_heads; ++h) {
        auto kh = slice(k, size_t(h) * d, d), vh = slice(v, size_t(h) * d, d);
        if (at.qk_norm) kh = norm(kh, l, "k_norm");
        rope(kh.data(), d, pos, theta);
        if (at.v_norm) vh = rms_norm(vh, nullptr, eps_);
        store_kv(layer, h, pos, false, kh);
        store_kv(layer, h, pos, true, vh);
      }
    }
    // 5. Attention over the source ring's valid set after this append.
    const uint32_t source = m_.kv_source(layer);
    const auto valid =
        ring_valid_positions(pos + 1, ring_of(m_, source, ring_cap_, o_.sinks, o_.window_extra));
    std::vector<double> o(size_t(at.heads) * d, 0.0);
    for (uint32_t h = 0; h < at.heads; ++h) {
      const uint32_t kvh = h / G;
      const double* qh = q.data() + size_t(h) * d;
      std::vector<double> scores(valid.size());
      for (size_t t = 0; t < valid.size(); ++t) {
        const auto& kt = kv(source, kvh, valid[t], false);
        double s = 0;
        for (uint32_t i = 0; i < d; ++i) s += qh[i] * kt[i];
        if (at.logit_softcap > 0) s = at.logit_softcap * std::tanh(s / at.logit_softcap);
        scores[t] = s;
      }
      const auto p = softmax(scores);
      for (size_t t = 0; t < valid.size(); ++t) {
        const auto& vt = kv(source, kvh, valid[t], true);
        for (uint32_t i = 0; i < d; ++i) o[size_t(h) * d + i] += p[t] * vt[i];
      }
    }
    // 6. Output.
    const auto po = norm(apply(l, "attn_o", o), l, "post_attn_norm");
    std::vector<double> a(H);
    for (uint32_t i = 0; i < H; ++i) {
      a[i] = x[i] + po[i];
      if (m_.has_laurel()) a[i] = (a[i] + lau[i]) / std::sqrt(2.0);
    }
    // 7. FFN.
    const auto hf = norm(a, l, "pre_ffn_norm");
    auto gt = apply(l, "ffn_gate", hf);
    const auto u = apply(l, "ffn_up", hf);
    if (m_.is_sparse_ffn(layer)) {
      double mean = 0, sq = 0;
      for (double g : gt) mean += g, sq += g * g;
      mean /= double(gt.size());
      sq /= double(gt.size());
      const double sigma = std::sqrt(std::max(sq - mean * mean, 0.0));
      const double cut = mean + m_.sparse_ffn_cutoff_z * sigma;
      for (double& g : gt) g = std::max(g - cut, 0.0);
    }
    std::vector<double> hid(gt.size());
    for (size_t i = 0; i < gt.size(); ++i) hid[i] = gelu_tanh(gt[i]) * u[i];
    const auto pf = norm(apply(l, "ffn_down", hid), l, "post_ffn_norm");
    std::vector<double> y(H);
    for (uint32_t i = 0; i < H; ++i) y[i] = a[i] + pf[i];
    // 8. AltUp correction.
    if (S > 1) {
      const auto r = router(layer, y);
      const float* wc = vec(l, "altup_correction_coefs");
      for (uint32_t s = 0; s < S; ++s) {
        double c = 1.0;
        for (uint32_t k = 0; k < S; ++k) c += double(wc[8 * (size_t(k) * S + s)]) * r[k];
        for (uint32_t i = 0; i < H; ++i) xs[s][i] = pred[s][i] + c * (y[i] - pred[A][i]);
      }
    } else {
      xs[0] = y;
    }
    // 9. Per-layer input.
    if (P > 0) {
      std::vector<double> t = xs[A];
      if (S > 1) {
        const float* g = vec(l, "altup_output_scale");
        for (uint32_t i = 0; i < H; ++i) t[i] *= double(g[i]);
      }
      auto gp = apply(l, "ple_gate", t);
      for (uint32_t k = 0; k < P; ++k) gp[k] = gelu_tanh(gp[k]) * pli[layer][k];
      const auto pe = norm(apply(l, "ple_proj", gp), l, "ple_post_norm");
      for (uint32_t s = 0; s < S; ++s) {
        if (S > 1 && s == A) continue;
        for (uint32_t i = 0; i < H; ++i) xs[s][i] += pe[i];
      }
    }
  }

  // Exit.
  std::vector<double> ybar = xs[A];
  if (S > 1) {
    const double ma = magnitude(xs[A], eps_);
    uint32_t j = 0;
    for (uint32_t s = 0; s < S; ++s) {
      if (s == A) continue;
      const auto un = rms_norm(apply(-1, stream_matrix("altup_unproj", ++j), xs[s]), nullptr, eps_);
      for (uint32_t i = 0; i < H; ++i) ybar[i] += un[i] * ma;
    }
    for (double& v : ybar) v /= S;
  }
  auto logits = apply(-1, "lm_head", norm(ybar, -1, "final_norm"));
  const double c = m_.final_logit_softcap;
  if (c > 0)
    for (double& v : logits) v = c * std::tanh(v / c);
  ++pos_;
  return logits;
}

}  // namespace pccx::llm
