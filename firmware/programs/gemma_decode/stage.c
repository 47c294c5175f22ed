/* The CPU's share per token: the embedding row and the per-layer embedding
 * row of the token (read from DDR, dequantised, scaled and staged as BF16)
 * and the RoPE cos/sin tables of its position (in double precision: a BF16
 * angle cannot hold pos x frequency), then their loads into L2. */
#include "gemma_decode_internal.h"

static uint8_t g_row[GD_ROW_BYTES];
static uint16_t g_stage[65536];

/* Embedding row x sqrt(hidden). */
static void stage_embedding(uint32_t tok, uint64_t base) {
  const uint32_t H = gd_m.hidden;
  const uint64_t row =
      gd_m.embed_table != 0u
          ? gd_m.embed_table + (uint64_t)tok * gd_m.lm.record_bytes
          : gd_m.lm.part[tok % gd_m.wf] + (uint64_t)(tok / gd_m.wf) * gd_m.lm.record_bytes;
  pccx_host_read(row, g_row, gd_m.lm.record_bytes);
  const float sh = (float)gd_sqrt((double)H);
  for (uint32_t k = 0; k < H; ++k)
    g_stage[k] = pccx_bf16_from_float(
        gd_dequant(g_row, k, H, 0u, gd_m.weight_group, (int)gd_m.weight_scales) * sh);
  pccx_host_write(base + S_EMBED, g_stage, 2u * H);
}

/* Per-layer embedding row x sqrt(P) / sqrt(2) (the 1/sqrt(2) of the
 * per-layer input sum applied here and, for the projection, by the norm). */
static void stage_ple(uint32_t tok, uint64_t base) {
  const uint32_t w = gd_m.layers * gd_m.ple_dim;
  const uint32_t t = tok < gd_m.ple_vocab ? tok : gd_m.ple_vocab - 1u;
  const float sp = (float)(gd_sqrt((double)gd_m.ple_dim) / gd_sqrt(2.0));
  pccx_host_read(gd_m.ple_table + (uint64_t)t * gd_m.table_row_bytes, g_row, gd_m.table_row_bytes);
  for (uint32_t k = 0; k < w; ++k)
    g_stage[k] = pccx_bf16_from_float(
        gd_dequant(g_row, k, w, gd_m.table_format, gd_m.table_group, gd_m.table_format != 2u) * sp);
  pccx_host_write(base + S_PLE, g_stage, 2u * w);
}

/* RoPE tables: cos and the signed sin ([-sin | sin] per head) of both
 * bases, for the queries (times the q scale) and, when that scale is
 * not 1, separately for the keys. */
static void stage_rope(uint32_t pos, uint64_t at) {
  const uint32_t hd = gd_m.head_dim, half = hd / 2u, nq = gd_m.heads * hd;
  const int separate_k = gd_m.q_scale != 1.0f;
  for (uint32_t set = 0; set < (separate_k ? 2u : 1u); ++set) {
    const float sc = set == 0u ? gd_m.q_scale : 1.0f;
    const uint32_t heads = set == 0u ? gd_m.heads : gd_m.kv_heads;
    for (uint32_t base = 0; base < 2u; ++base) {
      uint16_t* cs = g_stage;
      uint16_t* sn = g_stage + heads * hd;
      for (uint32_t m = 0; m < half; ++m) {
        const double f = (double)gd_inv_freq(base * half + m);
        double s, c;
        gd_sincos((double)pos * f, &s, &c);
        for (uint32_t h = 0; h < heads; ++h) {
          cs[h * hd + m] = cs[h * hd + m + half] = pccx_bf16_from_float((float)c * sc);
          sn[h * hd + m] = pccx_bf16_from_float((float)-s * sc);
          sn[h * hd + m + half] = pccx_bf16_from_float((float)s * sc);
        }
      }
      pccx_host_write(at + S_ROPE + (uint64_t)(set * 4u + base * 2u) * 2u * nq, g_stage,
                      2u * heads * hd);
      pccx_host_write(at + S_ROPE + (uint64_t)(set * 4u + base * 2u + 1u) * 2u * nq, sn,
                      2u * heads * hd);
    }
  }
}

void gd_stage_cpu(uint32_t tok, uint32_t pos, uint64_t base) {
  stage_embedding(tok, base);
  if (gd_m.ple_dim != 0u) stage_ple(tok, base);
  stage_rope(pos, base);
}

int gd_load_rows(uint64_t base, uint32_t xs_active, uint32_t pli) {
  if (gd_load(base + S_EMBED, 2u * gd_m.hidden, xs_active, F_D, PCCX_DMA_CLASS_ACTIVATIONS) != 0)
    return -1;
  if (gd_m.ple_dim != 0u && gd_load(base + S_PLE, 2u * gd_m.layers * gd_m.ple_dim, pli, F_LP,
                                    PCCX_DMA_CLASS_ACTIVATIONS) != 0)
    return -1;
  return 0;
}

int gd_load_rope(uint64_t base) {
  const uint32_t nq = gd_m.heads * gd_m.head_dim;
  const int separate_k = gd_m.q_scale != 1.0f;
  for (uint32_t i = 0; i < (separate_k ? 8u : 4u); ++i) {
    const int is_k = i >= 4u;
    if (gd_load(base + S_ROPE + (uint64_t)i * 2u * nq,
                2u * (is_k ? gd_m.kv_heads : gd_m.heads) * gd_m.head_dim,
                gd_a.rope + i * gd_a.rope_words, is_k ? F_KV : F_ATTN,
                PCCX_DMA_CLASS_ACTIVATIONS) != 0)
      return -1;
  }
  return 0;
}

int gd_stage_token(uint32_t tok, uint32_t pos) {
  gd_stage_cpu(tok, pos, gd_m.scratch);
  if (gd_load_rows(gd_m.scratch, gd_a.xs + gd_m.active * gd_a.xs_stride + 1u, gd_a.pli) != 0)
    return -1;
  return gd_load_rope(gd_m.scratch);
}
