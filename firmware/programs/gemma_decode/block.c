/* Reading the parameter block (pccx_gemma_decode.h): the header's fields
 * into gd_m, the AltUp matrices and the layer records as the block has
 * them, the KV rings configured; every field checked against what the
 * program handles. */
#include "gemma_decode_internal.h"

gd_model gd_m;
gd_block_layer gd_layers[GD_MAX_LAYERS];

/* The block may sit at any address: structs and values are copied out of
 * it (little endian, as the CPU). */
static void copy_in(void* dst, const uint8_t* src, uint32_t bytes) {
  __builtin_memcpy(dst, src, bytes);
}

/* Token t's id. */
uint32_t gd_token_id(uint32_t t) {
  uint32_t id;
  copy_in(&id, gd_m.token_ids + t * sizeof id, sizeof id);
  return id;
}

/* RoPE inverse frequency i (local first, then global). */
float gd_inv_freq(uint32_t i) {
  float f;
  copy_in(&f, gd_m.inv_freq + i * sizeof f, sizeof f);
  return f;
}

static int bad_block(const char* what) {
  pccx_line l;
  gd_line_start(&l, "bad parameter block: ");
  pccx_line_str(&l, what);
  return gd_fail(&l, GD_EXIT_BAD_BLOCK);
}

/* The header's fields as the program uses them (L2 words 0: the KV260
 * build's). */
static void read_header(const gd_block_header* h) {
  gd_m.layers = h->layers;
  gd_m.hidden = h->hidden;
  gd_m.heads = h->heads;
  gd_m.kv_heads = h->kv_heads;
  gd_m.head_dim = h->head_dim;
  gd_m.vocab = h->vocab;
  gd_m.tokens = h->tokens;
  gd_m.prompt = h->prompt;
  gd_m.chunk = h->chunk;
  gd_m.prefill_scratch = h->prefill_scratch;
  gd_m.ffn_part = h->ffn_part;
  gd_m.context = h->context;
  gd_m.lm_tile = h->lm_tile;
  gd_m.rings = h->rings;
  gd_m.eps = h->eps;
  gd_m.flags = h->flags;
  gd_m.scratch = h->scratch;
  gd_m.logits = h->logits;
  gd_m.embed_table = h->embedding;
  gd_m.final_norm = h->final_norm;
  gd_m.lm = h->lm_head;
  gd_m.streams = h->streams;
  gd_m.active = h->active_stream;
  gd_m.ple_dim = h->ple_dim;
  gd_m.laurel = h->laurel_rank;
  gd_m.ple_vocab = h->ple_vocab;
  gd_m.sparse_layers = h->sparse_ffn_layers;
  gd_m.z = h->cutoff_z;
  gd_m.softcap = h->final_softcap;
  gd_m.q_scale = h->q_scale;
  gd_m.table_format = h->table_format;
  gd_m.table_group = h->table_scale_group;
  gd_m.table_row_bytes = h->table_row_bytes;
  gd_m.ple_table = h->ple_table;
  gd_m.ple_proj_norm = h->ple_proj_norm;
  gd_m.weight_group = h->weight_scale_group;
  gd_m.weight_scales = h->weight_scales;
  gd_m.ple_model_proj = h->ple_model_proj;
  gd_m.rotation = h->rotation;
  gd_m.logits_stride = h->logits_stride;
  gd_m.wf = h->weight_streams;
  gd_m.l2_words = h->l2_words;
  if (gd_m.l2_words == 0u) gd_m.l2_words = GD_L2_WORDS_DEFAULT;
  for (uint32_t f = 0; f < GD_MAX_WEIGHT_STREAMS; ++f) gd_m.wch[f] = h->weight_channels[f];
}

/* Dimensions, weight streams, AltUp, per-layer input and LAuReL fields
 * (the limits the host checks too: pccx_gemma_decode_limits.h) and flags
 * within what the program handles. */
static int check_header(const gd_block_header* h) {
  const uint32_t hd = gd_m.head_dim;
  const gd_limit_problem p = gd_header_limits(h);
  if (p.field) {
    pccx_line l;
    gd_line_start(&l, "bad parameter block: ");
    pccx_line_str(&l, p.field);
    pccx_line_str(&l, " must be ");
    pccx_line_str(&l, p.rule);
    return gd_fail(&l, GD_EXIT_BAD_BLOCK);
  }
  if ((gd_m.flags &
       ~(GD_F_QK_NORM | GD_F_V_NORM | GD_F_ROTATED_K | GD_F_ROTATED_V | GD_F_PART_STARTS)) != 0u ||
      ((gd_m.flags & (GD_F_ROTATED_K | GD_F_ROTATED_V)) && gd_m.rotation.rows != hd))
    return bad_block("flags");
  return 0;
}

/* The sections where the header says they are, the block ending after the
 * last. */
static int check_sections(const gd_block_header* h, uint32_t bytes) {
  const uint32_t hd = gd_m.head_dim, S = gd_m.streams;
  const uint32_t off_altup = h->altup_offset, off_layers = h->layers_offset;
  const uint32_t off_tokens = h->tokens_offset, off_rope = h->rope_offset;
  if (off_altup != sizeof(gd_block_header) ||
      off_layers != off_altup + 2u * (S - 1u) * sizeof(gd_block_matrix) ||
      off_tokens != off_layers + gd_m.layers * sizeof(gd_block_layer) ||
      off_rope != off_tokens + (gd_m.prompt + gd_m.tokens) * sizeof(uint32_t) ||
      bytes != off_rope + hd * sizeof(float))
    return bad_block("section offsets");
  return 0;
}

/* The AltUp matrices, and where the token ids and the RoPE frequencies are. */
static int read_sections(const uint8_t* b, const gd_block_header* h) {
  const uint32_t S = gd_m.streams, off_altup = h->altup_offset;
  const uint32_t off_tokens = h->tokens_offset, off_rope = h->rope_offset;
  for (uint32_t j = 0; j + 1u < S; ++j) {
    copy_in(&gd_m.altup_proj[j], b + off_altup + j * sizeof(gd_block_matrix),
            sizeof(gd_block_matrix));
    copy_in(&gd_m.altup_unproj[j], b + off_altup + (S - 1u + j) * sizeof(gd_block_matrix),
            sizeof(gd_block_matrix));
  }
  gd_m.token_ids = b + off_tokens;
  gd_m.inv_freq = b + off_rope;
  for (uint32_t t = 0; t < gd_m.prompt + gd_m.tokens; ++t)
    if (gd_token_id(t) >= gd_m.vocab) return bad_block("a token id >= vocab");
  return 0;
}

/* The KV ring groups, configured as the driver lays them out. */
static int read_rings(const gd_block_header* h) {
  for (uint32_t r = 0; r < gd_m.rings; ++r) {
    const gd_block_ring* g = &h->ring[r];
    pccx_kv_handle* kv = &gd_m.kv[r];
    pccx_kv_configure(kv, g->layers, gd_m.kv_heads, g->k_record_bytes, g->v_record_bytes, g->base,
                      g->bytes);
    if (pccx_kv_set_sinks(kv, g->sinks) != PCCX_KV_OK ||
        pccx_kv_set_window(kv, g->window) != PCCX_KV_OK ||
        pccx_kv_init(kv, g->max_tokens) != PCCX_KV_OK)
      return gd_fail_msg("KV ring configuration refused", GD_EXIT_KV);
    /* The ring already holds the context: the write position is advanced
     * directly (no prefill is simulated). */
    kv->appended = gd_m.context;
  }
  return 0;
}

/* The layer records as the block has them, each checked. */
static int read_layers(const uint8_t* b, uint32_t off_layers) {
  const uint32_t S = gd_m.streams;
  for (uint32_t l = 0; l < gd_m.layers; ++l) {
    gd_block_layer* ly = &gd_layers[l];
    copy_in(ly, b + off_layers + l * sizeof *ly, sizeof *ly);
    if (ly->ring >= gd_m.rings || ly->ffn == 0u || ly->ffn > SHAPE_MAX ||
        (S > 1u && ly->matrices[GD_ROUTER].rows != S))
      return bad_block("a layer record");
  }
  return 0;
}

int gd_parse_block(const uint8_t* b, uint32_t bytes) {
  gd_block_header h;
  if (bytes < sizeof h) return bad_block("magic or size");
  copy_in(&h, b, sizeof h);
  if (h.magic != GD_MAGIC || h.bytes != bytes) return bad_block("magic or size");
  read_header(&h);
  if (check_header(&h) != 0 || check_sections(&h, bytes) != 0 || read_sections(b, &h) != 0 ||
      read_rings(&h) != 0)
    return -1;
  return read_layers(b, h.layers_offset);
}
