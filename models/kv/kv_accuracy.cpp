#include "models/kv/kv_accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "models/kv/kv_codec.h"

namespace pccx::kv {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr uint32_t kGemmaKvHeads = 2;

kv_format make(kv_kind kind, uint32_t d, uint32_t group = 0, uint32_t bits = 4,
               bool sketch = false) {
  kv_format f;
  f.kind = kind, f.head_dim = d, f.group = group, f.bits = bits, f.residual_sketch = sketch;
  return f;
}

uint32_t qmax(const kv_format& f) {
  return f.kind == kv_kind::int8 ? 127 : 7;
}

bool static_scaled(const kv_format& f) {
  return (f.kind == kv_kind::int8 || f.kind == kv_kind::int4) && f.group == 0;
}

// Static scales calibrated on a separate draw: keys per channel, values
// per head (one scalar), as the driver would set them before the append.
std::vector<float> calibrate(const std::vector<float>& x, uint32_t d, const kv_format& f,
                             bool per_channel) {
  std::vector<float> s(d, 1.0f);
  if (!static_scaled(f)) return s;
  std::vector<float> amax(d, 0.0f);
  for (size_t i = 0; i < x.size(); ++i) amax[i % d] = std::max(amax[i % d], std::fabs(x[i]));
  if (!per_channel) {
    const float m = *std::max_element(amax.begin(), amax.end());
    std::fill(amax.begin(), amax.end(), m);
  }
  for (uint32_t c = 0; c < d; ++c)
    s[c] = amax[c] > 0 ? amax[c] / static_cast<float>(qmax(f)) : 1.0f;
  return s;
}

// x -> record -> x_hat for every vector, with static scales around the codec.
std::vector<float> round_trip(const std::vector<float>& x, uint32_t d, const kv_codec& codec,
                              const std::vector<float>& scale) {
  std::vector<float> out(x.size()), in(d), dec(d);
  std::vector<uint8_t> rec(codec.format().record_bytes());
  for (size_t t = 0; t < x.size() / d; ++t) {
    for (uint32_t c = 0; c < d; ++c) in[c] = x[t * d + c] / scale[c];
    codec.encode(in.data(), rec.data());
    codec.decode(rec.data(), dec.data());
    for (uint32_t c = 0; c < d; ++c) out[t * d + c] = dec[c] * scale[c];
  }
  return out;
}

double rel_mse(const std::vector<float>& x, const std::vector<float>& y) {
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    num += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
    den += double(x[i]) * x[i];
  }
  return den > 0 ? num / den : 0.0;
}

// Softmax attention of one query over all tokens (no 1/sqrt(d) scale, as
// Gemma 3n), in double.
std::vector<double> attend(const float* q, const std::vector<float>& k, const std::vector<float>& v,
                           uint32_t d, std::vector<double>& p) {
  const size_t T = k.size() / d;
  p.assign(T, 0.0);
  double mx = -INFINITY;
  for (size_t t = 0; t < T; ++t) {
    double s = 0;
    for (uint32_t c = 0; c < d; ++c) s += double(q[c]) * k[t * d + c];
    p[t] = s;
    mx = std::max(mx, s);
  }
  double z = 0;
  for (double& x : p) z += (x = std::exp(x - mx));
  std::vector<double> o(d, 0.0);
  for (size_t t = 0; t < T; ++t) {
    p[t] /= z;
    for (uint32_t c = 0; c < d; ++c) o[c] += p[t] * v[t * d + c];
  }
  return o;
}

std::string fmt(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::vector<kv_strategy> standard_strategies(uint32_t d) {
  return {
      {"FP16", make(kv_kind::fp16, d), make(kv_kind::fp16, d)},
      {"INT8 per-channel K / per-token V", make(kv_kind::int8, d, 0), make(kv_kind::int8, d, d)},
      {"INT8 per-token", make(kv_kind::int8, d, d), make(kv_kind::int8, d, d)},
      {"INT4 per-channel K / per-token V g32", make(kv_kind::int4, d, 0),
       make(kv_kind::int4, d, 32)},
      {"INT4 per-channel K / per-token V g128", make(kv_kind::int4, d, 0),
       make(kv_kind::int4, d, 128)},
      {"INT4 per-token g32", make(kv_kind::int4, d, 32), make(kv_kind::int4, d, 32)},
      {"Rotated 4-bit", make(kv_kind::rotated, d, 0, 4), make(kv_kind::rotated, d, 0, 4)},
      {"Rotated 3-bit", make(kv_kind::rotated, d, 0, 3), make(kv_kind::rotated, d, 0, 3)},
      {"Rotated 3-bit + sketch", make(kv_kind::rotated, d, 0, 3, true),
       make(kv_kind::rotated, d, 0, 3, true)},
      {"Rotated 2-bit", make(kv_kind::rotated, d, 0, 2), make(kv_kind::rotated, d, 0, 2)},
  };
}

kv_accuracy_report measure_kv_accuracy(const kv_accuracy_options& options) {
  kv_accuracy_report rep;
  rep.options = options;
  if (rep.options.strategies.empty())
    rep.options.strategies = standard_strategies(options.head.head_dim);
  const uint32_t d = options.head.head_dim;
  const uint32_t H = std::max<uint32_t>(1, options.heads);

  std::vector<synthetic_head> heads, calib;
  for (uint32_t h = 0; h < H; ++h) {
    synthetic_params p = options.head;
    p.seed = options.head.seed + h;
    heads.push_back(make_synthetic_head(p));
    p.token_seed = options.head.seed + h + 1000003;  // same model, other tokens
    calib.push_back(make_synthetic_head(p));
  }

  for (const kv_strategy& s : rep.options.strategies) {
    const kv_codec kc(s.key), vc(s.value);
    kv_accuracy_row row;
    row.strategy = s.name;
    row.key_format = s.key.name();
    row.value_format = s.value.name();
    row.bytes_per_token_layer = kGemmaKvHeads * (s.key.record_bytes() + s.value.record_bytes());
    row.key_bits = s.key.bits_per_element();
    row.value_bits = s.value.bits_per_element();
    double kmse = 0, vmse = 0, logit_se = 0, logit_ss = 0, logit_n = 0, cos_sum = 0, rel_sum = 0;
    double cos_min = 1.0;
    uint32_t nq = 0;
    for (uint32_t h = 0; h < H; ++h) {
      const synthetic_head& x = heads[h];
      const auto ks = calibrate(calib[h].k, d, s.key, true);
      const auto vs = calibrate(calib[h].v, d, s.value, false);
      const auto kh = round_trip(x.k, d, kc, ks);
      const auto vh = round_trip(x.v, d, vc, vs);
      kmse += rel_mse(x.k, kh) / H;
      vmse += rel_mse(x.v, vh) / H;
      std::vector<double> p, ph;
      for (uint32_t i = 0; i < x.queries; ++i) {
        const float* q = &x.q[size_t{i} * d];
        for (uint32_t t = 0; t < x.tokens; ++t) {
          double a = 0, b = 0;
          for (uint32_t c = 0; c < d; ++c) {
            a += double(q[c]) * x.k[size_t{t} * d + c];
            b += double(q[c]) * kh[size_t{t} * d + c];
          }
          logit_se += (a - b) * (a - b);
          logit_ss += a * a;
          logit_n += 1;
        }
        const auto o = attend(q, x.k, x.v, d, p);
        const auto oh = attend(q, kh, vh, d, ph);
        double dot = 0, no = 0, nh = 0, err = 0;
        for (uint32_t c = 0; c < d; ++c) {
          dot += o[c] * oh[c], no += o[c] * o[c], nh += oh[c] * oh[c];
          err += (o[c] - oh[c]) * (o[c] - oh[c]);
        }
        const double cs = dot / std::sqrt(no * nh);
        cos_sum += cs;
        cos_min = std::min(cos_min, cs);
        rel_sum += std::sqrt(err / no);
        ++nq;
      }
    }
    row.key_rel_mse = kmse;
    row.value_rel_mse = vmse;
    // Logits have mean near zero apart from the sink: their RMS is their scale.
    row.logit_rmse = std::sqrt(logit_se / logit_n) / std::sqrt(logit_ss / logit_n);
    row.output_cosine = cos_sum / nq;
    row.output_min_cosine = cos_min;
    row.output_rel_error = rel_sum / nq;
    rep.formats.push_back(row);
  }

  // Rotated distortion on the normalised, rotated keys against 4^-b.
  for (uint32_t bits : {2u, 3u, 4u})
    for (bool sketch : {false, true}) {
      if (sketch && bits != 3) continue;
      const kv_codec c(make(kv_kind::rotated, d, 0, bits, sketch));
      double num = 0, den = 0;
      std::vector<float> dec(d);
      std::vector<uint8_t> rec(c.format().record_bytes());
      for (const auto& x : heads)
        for (uint32_t t = 0; t < x.tokens; ++t) {
          const float* k = &x.k[size_t{t} * d];
          c.encode(k, rec.data());
          c.decode(rec.data(), dec.data());
          for (uint32_t i = 0; i < d; ++i) {
            num += (double(k[i]) - dec[i]) * (double(k[i]) - dec[i]);
            den += double(k[i]) * k[i];
          }
        }
      rotated_curve_row r;
      r.bits = bits, r.sketch = sketch;
      r.measured = num / den;
      r.reference = std::pow(4.0, -double(bits));
      r.upper = std::sqrt(3.0) * kPi / 2.0 * r.reference;
      rep.rotated.push_back(r);
    }

  // Softmax mass kept by sink + window on a longer history (exact attention).
  if (!options.sink_window.empty()) {
    std::vector<synthetic_head> longer;
    for (uint32_t h = 0; h < H; ++h) {
      synthetic_params p = options.head;
      p.tokens = options.window_tokens;
      p.seed = options.head.seed + h;
      longer.push_back(make_synthetic_head(p));
    }
    for (auto [sink, window] : options.sink_window) {
      window_row w;
      w.sink = sink, w.window = window, w.tokens = options.window_tokens;
      double sum = 0, mn = 1.0;
      uint32_t n = 0;
      std::vector<double> p;
      for (const auto& x : longer)
        for (uint32_t i = 0; i < x.queries; ++i) {
          attend(&x.q[size_t{i} * d], x.k, x.v, d, p);
          double kept = 0;
          for (uint32_t t = 0; t < x.tokens; ++t)
            if (t < sink || t + window >= x.tokens) kept += p[t];
          sum += kept, mn = std::min(mn, kept), ++n;
        }
      w.mass_kept = sum / n;
      w.min_mass_kept = mn;
      rep.windows.push_back(w);
    }
  }
  return rep;
}

std::string to_markdown(const kv_accuracy_report& r) {
  const auto& o = r.options;
  std::ostringstream s;
  s << "Synthetic heads: head_dim " << o.head.head_dim << ", " << o.head.tokens << " tokens, "
    << o.head.queries << " queries x " << o.heads << " heads (seed " << o.head.seed
    << "), RoPE theta " << fmt(o.head.rope_theta) << ", logit std " << fmt(o.head.logit_std) << ", "
    << o.head.outlier_channels << " outlier key channels.\n\n";
  s << "| Strategy | K | V | B/token/layer | K bits | V bits | K rel MSE | V rel MSE | logit RMSE "
       "/ "
       "std | output cosine (min) | output rel err |\n";
  s << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : r.formats)
    s << "| " << f.strategy << " | " << f.key_format << " | " << f.value_format << " | "
      << f.bytes_per_token_layer << " | " << fmt(f.key_bits, "%.2f") << " | "
      << fmt(f.value_bits, "%.2f") << " | " << fmt(f.key_rel_mse, "%.3e") << " | "
      << fmt(f.value_rel_mse, "%.3e") << " | " << fmt(f.logit_rmse, "%.3e") << " | "
      << fmt(f.output_cosine, "%.6f") << " (" << fmt(f.output_min_cosine, "%.6f") << ") | "
      << fmt(f.output_rel_error, "%.3e") << " |\n";
  s << "\nRotated formats: distortion of the keys against the 4^-b reference\n\n";
  s << "| bits | sketch | measured | 4^-b | ratio | upper bound (sqrt(3) pi/2 4^-b) |\n";
  s << "|---|---|---|---|---|---|\n";
  for (const auto& c : r.rotated)
    s << "| " << c.bits << " | " << (c.sketch ? "yes" : "no") << " | " << fmt(c.measured, "%.4e")
      << " | " << fmt(c.reference, "%.4e") << " | " << fmt(c.measured / c.reference, "%.3f")
      << " | " << fmt(c.upper, "%.4e") << " |\n";
  if (!r.windows.empty()) {
    s << "\nSink + window: share of the exact softmax mass on the kept tokens\n\n";
    s << "| sinks | window | history | mass kept (mean) | worst query |\n|---|---|---|---|---|\n";
    for (const auto& w : r.windows)
      s << "| " << w.sink << " | " << w.window << " | " << w.tokens << " | "
        << fmt(w.mass_kept, "%.4f") << " | " << fmt(w.min_mass_kept, "%.4f") << " |\n";
  }
  return s.str();
}

std::string formats_csv(const kv_accuracy_report& r) {
  std::ostringstream s;
  s << "strategy,key_format,value_format,bytes_per_token_layer,key_bits,value_bits,key_rel_mse,"
       "value_rel_mse,logit_rmse,output_cosine,output_min_cosine,output_rel_error\n";
  for (const auto& f : r.formats)
    s << '"' << f.strategy << "\"," << f.key_format << ',' << f.value_format << ','
      << f.bytes_per_token_layer << ',' << fmt(f.key_bits, "%.6g") << ','
      << fmt(f.value_bits, "%.6g") << ',' << fmt(f.key_rel_mse, "%.6e") << ','
      << fmt(f.value_rel_mse, "%.6e") << ',' << fmt(f.logit_rmse, "%.6e") << ','
      << fmt(f.output_cosine, "%.9f") << ',' << fmt(f.output_min_cosine, "%.9f") << ','
      << fmt(f.output_rel_error, "%.6e") << '\n';
  return s.str();
}

std::string rotated_csv(const kv_accuracy_report& r) {
  std::ostringstream s;
  s << "bits,sketch,measured,reference_4^-b,upper_bound\n";
  for (const auto& c : r.rotated)
    s << c.bits << ',' << (c.sketch ? 1 : 0) << ',' << fmt(c.measured, "%.6e") << ','
      << fmt(c.reference, "%.6e") << ',' << fmt(c.upper, "%.6e") << '\n';
  return s.str();
}

std::string windows_csv(const kv_accuracy_report& r) {
  std::ostringstream s;
  s << "sinks,window,tokens,mass_kept,min_mass_kept\n";
  for (const auto& w : r.windows)
    s << w.sink << ',' << w.window << ',' << w.tokens << ',' << fmt(w.mass_kept, "%.6f") << ','
      << fmt(w.min_mass_kept, "%.6f") << '\n';
  return s.str();
}

}  // namespace pccx::kv
