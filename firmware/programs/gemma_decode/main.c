/* gemma_decode: the per-token decode of a Gemma-3n-style model on the NPU,
 * N tokens after a context of L tokens already in the KV rings. The
 * arithmetic is docs/models/decode-model.md; the instruction sequence and the
 * parameter block are docs/models/decode.md.
 *
 * The CPU's share per token: the embedding row and the per-layer embedding
 * row of the token (read from DDR, dequantised, scaled and staged as BF16),
 * the RoPE cos/sin tables of the position (in double precision: a BF16
 * angle cannot hold pos x frequency) and the KV rings' write position.
 * Everything else is NPU instructions: GEMVs for every matrix, the SFU for
 * norms, AltUp, softmax, GELU, the FFN cutoff and the softcap, MEMCPY for
 * moves, KV appends and logits.
 *
 * Scalars on the SFU: a scalar lives in element 0 of an L2 word. SCALE
 * takes its scalar from the word before its vector, so every vector that
 * is scaled by a computed scalar has a slot word in front of it; a 1-row
 * GEMV leaves its result in element 0 of a word (elements 1..7 zero).
 *
 * Weight streams: row n of a matrix on the (n mod F)-th of the GEMV's F
 * weight FIFOs (HP2 and HP3 by default; a 1-row GEMV takes its record on
 * the first), CLASS weights. K/V streams: pccx_kv_submit_stream_split over
 * the same channels, CLASS kv_read. Appends:
 * ACP_RESULT, CLASS kv_write. Norm weights and AltUp coefficients: ACP_FMAP,
 * CLASS weights. Staged rows and tables: ACP_FMAP, CLASS activations.
 * Logits: ACP_RESULT, CLASS activations. Constants, once per run: ACP_FMAP,
 * CLASS host.
 *
 * Markers: "decode: token <t>" and "decode: token <t> end" around each
 * token (the end after uca_sync and every DMA status), "decode: token <t>
 * layer <l>" and "decode: token <t> exit" as the parts are issued. Per token
 * it prints "decode: token <t> latency_ns <ns> instructions <n>". */

#include "gemma_decode_internal.h"
#include "pccx_firmware.h"

void gd_line_start(pccx_line* l, const char* what) {
  pccx_line_start(l, "decode: ");
  pccx_line_str(l, what);
}

int gd_fail_npu_error(void) {
  pccx_npu_error err;
  (void)pccx_npu_read_error(&err);
  pccx_line l;
  gd_line_start(&l, "NPU error ");
  pccx_line_dec(&l, err.code);
  pccx_line_str(&l, " on instruction #");
  pccx_line_dec(&l, err.sequence);
  pccx_simctl_print(l.text);
  pccx_simctl_exit(GD_EXIT_NPU_ERROR);
  return GD_EXIT_NPU_ERROR;
}

/* A failure is often the symptom of an NPU error latched earlier (a step
 * that waits for a halted NPU): the symptom is said, then the error, which
 * is the cause the run reports. Only failing runs read STATUS here. */
int gd_fail(pccx_line* l, int code) {
  pccx_simctl_print(l->text);
  if (code != GD_EXIT_NPU_ERROR && (uca_hal_read_status() & PCCX_STAT_ERROR) != 0u)
    return gd_fail_npu_error();
  pccx_simctl_exit(code);
  return code;
}

int gd_fail_msg(const char* what, int code) {
  pccx_line l;
  gd_line_start(&l, what);
  return gd_fail(&l, code);
}

static void marker2(const char* a, uint32_t t, const char* b, uint32_t l, int with_l) {
  pccx_line m;
  gd_line_start(&m, a);
  pccx_line_dec(&m, t);
  pccx_line_str(&m, b);
  if (with_l) pccx_line_dec(&m, l);
  pccx_simctl_marker(m.text);
}

/* With GD_F_PART_STARTS: "decode: token <t> part <name> from <seq>", the
 * sequence number of the part's first instruction. */
static void part_start(uint32_t t, const char* name, uint32_t index, int with_index) {
  if (!(gd_m.flags & GD_F_PART_STARTS)) return;
  pccx_line l;
  gd_line_start(&l, "token ");
  pccx_line_dec(&l, t);
  pccx_line_str(&l, " part ");
  pccx_line_str(&l, name);
  if (with_index) pccx_line_dec(&l, index);
  pccx_line_str(&l, " from ");
  pccx_line_dec(&l, pccx_npu_issued());
  pccx_simctl_print(l.text);
}

/* "decode: token <t> latency_ns <ns> instructions <n>". */
static void print_token(uint32_t t, uint64_t ns, uint64_t instructions) {
  pccx_line l;
  gd_line_start(&l, "token ");
  pccx_line_dec(&l, t);
  pccx_line_str(&l, " latency_ns ");
  pccx_line_dec(&l, ns);
  pccx_line_str(&l, " instructions ");
  pccx_line_dec(&l, instructions);
  pccx_simctl_print(l.text);
}

/* One token through every layer: the rings' write position, entry, the
 * layers and, with a logits slot (>= 0), exit and the LM head; then the
 * sync. `id` indexes the block's token ids. Markers "<name>", "<name>
 * layer <l>", "<name> exit", "<name> end"; 0 or the exit code. */
typedef struct {
  uint64_t t0, i0, t1,
      i1; /* time and retired instructions after the start marker, before the end */
} token_span;

static int run_token(const char* name, uint32_t t, uint32_t id, int32_t slot, token_span* span) {
  marker2(name, t, "", 0, 0);
  span->t0 = pccx_simctl_time_ns();
  span->i0 = pccx_npu_retired();
  const uint32_t pos = gd_m.kv[0].appended;
  uint64_t kv_tokens = 0;
  for (uint32_t r = 0; r < gd_m.rings; ++r) {
    if (pccx_kv_append_token(&gd_m.kv[r], 0) != PCCX_KV_OK)
      return gd_fail_msg("KV append refused", GD_EXIT_KV);
    kv_tokens += pccx_kv_valid_tokens(&gd_m.kv[r]);
  }
  pccx_simctl_counter("kv tokens", kv_tokens);
  part_start(t, "entry", 0, 0);
  if (gd_stage_token(gd_token_id(id), pos) != 0 || gd_entry() != 0) return GD_EXIT_DMA;
  for (uint32_t l = 0; l < gd_m.layers; ++l) {
    marker2(name, t, " layer ", l, 1);
    part_start(t, "layer ", l, 1);
    if (gd_layer(l) != 0) return GD_EXIT_DMA;
  }
  if (slot >= 0) {
    marker2(name, t, " exit", 0, 0);
    part_start(t, "exit", 0, 0);
    if (gd_exit_streams() != 0 || gd_lm_head((uint32_t)slot) != 0) return GD_EXIT_DMA;
  }
  part_start(t, "end", 0, 0);
  if (gd_finish_token() != 0) return GD_EXIT_TIMEOUT;
  span->t1 = pccx_simctl_time_ns();
  span->i1 = pccx_npu_retired();
  marker2(name, t, " end", 0, 0);
  return 0;
}

/* Token t of the N decoded: "decode: token <t>" ... and its printed
 * latency; its id follows the prompt's, its logits the prompt's last. */
static int decode_token(uint32_t t) {
  token_span s;
  const uint32_t first = gd_m.prompt != 0u ? 1u : 0u;
  const int rc = run_token("token ", t, gd_m.prompt + t, (int32_t)(first + t), &s);
  if (rc != 0) return rc;
  print_token(t, s.t1 - s.t0, s.i1 - s.i0);
  return 0;
}

/* The prompt, token by token: each prompt token's K/V appended in every
 * storing layer, the logits of the last one into slot 0. Markers
 * "decode: prefill" and "decode: prefill end" around it (time to first
 * token), "decode: prompt <t>" ... per token. */
static int prefill(void) {
  pccx_simctl_marker("decode: prefill");
  if (gd_m.chunk > 1u) {
    const int rc = gd_prefill_chunks();
    if (rc != 0) return rc;
    pccx_simctl_marker("decode: prefill end");
    return 0;
  }
  for (uint32_t t = 0; t < gd_m.prompt; ++t) {
    token_span s;
    const int rc = run_token("prompt ", t, t, t + 1u == gd_m.prompt ? 0 : -1, &s);
    if (rc != 0) return rc;
  }
  pccx_simctl_marker("decode: prefill end");
  return 0;
}

int pccx_gemma_decode_run(const uint8_t* block, uint32_t bytes) {
  if (uca_init() != 0) return gd_fail_msg("NPU does not answer", GD_EXIT_NO_NPU);
  gd_dma_reset();
  if (gd_parse_block(block, bytes) != 0) return GD_EXIT_BAD_BLOCK;
  const int rc = gd_setup();
  if (rc != 0) return rc;
  if (gd_m.prompt != 0u) {
    const int prefill_rc = prefill();
    if (prefill_rc != 0) return prefill_rc;
  }
  for (uint32_t t = 0; t < gd_m.tokens; ++t) {
    const int token_rc = decode_token(t);
    if (token_rc != 0) return token_rc;
  }
  uca_deinit();
  return 0;
}

/* Where the parameter block is: GD_PARAM_ADDR_DEFAULT unless whoever
 * loads the program writes another address here before it starts (a boot
 * argument; the virtual platform does for the ELF build). */
volatile uint64_t gd_param_addr = GD_PARAM_ADDR_DEFAULT;

int pccx_firmware_main(void) {
  static uint8_t block[GD_MAX_BLOCK];
  gd_block_header h;
  const uint64_t at = gd_param_addr;
  /* The magic and the size first. */
  pccx_host_read(at, &h, (uint32_t)offsetof(gd_block_header, layers));
  const uint32_t bytes = h.bytes;
  if (h.magic != GD_MAGIC || bytes < sizeof h || bytes > GD_MAX_BLOCK)
    return gd_fail_msg("no parameter block at gd_param_addr", GD_EXIT_BAD_BLOCK);
  pccx_host_read(at, block, bytes);
  return pccx_gemma_decode_run(block, bytes);
}
