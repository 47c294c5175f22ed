/* One layer, its steps in the order of docs/models/decode-model.md: AltUp
 * prediction, input norm, LAuReL, attention, FFN, AltUp correction, the
 * per-layer input. */
#include "gemma_decode_internal.h"

/* LAuReL on the input norm: lau = xn + norm(W_right W_left xn). */
static int laurel(const gd_block_layer* ly) {
  if (gd_m.laurel == 0u) return 0;
  if (gd_gemv_matrix(&ly->matrices[GD_LAUREL_LEFT], gd_a.lt, gd_a.xn, F_D, W_LL) != 0 ||
      gd_gemv_matrix(&ly->matrices[GD_LAUREL_RIGHT], gd_a.lau, gd_a.lt, F_R, W_LR) != 0 ||
      gd_norm_h(ly->vectors[GD_V_LAUREL_NORM], gd_a.lau, gd_a.lau) != 0)
    return -1;
  uca_cvo(PCCX_CVO_ADD, gd_a.xn, gd_a.lau, (uint16_t)gd_m.hidden, 0, 0);
  return 0;
}

/* The FFN's input: the attention block's output a, with LAuReL
 * (a + lau) / sqrt(2). */
static uint32_t laurel_join(uint32_t a) {
  if (gd_m.laurel == 0u) return a;
  uca_cvo(PCCX_CVO_ADD, gd_a.lau, a, (uint16_t)gd_m.hidden, 0, 0);
  copy_word(gd_a.ao, kw(K_INV_SQRT2));
  scale_after(gd_a.ao, gd_a.a, gd_m.hidden);
  return gd_a.a;
}

int gd_layer(uint32_t li) {
  const gd_block_layer* ly = &gd_layers[li];
  const uint32_t x = gd_a.pred + gd_m.active * gd_a.wh;
  uint32_t a = 0;
  gd_attention_shapes(ly);
  if (gd_predict(ly) != 0) return -1;
  if (gd_norm_h(ly->vectors[GD_V_INPUT_NORM], x, gd_a.xn) != 0) return -1;
  if (laurel(ly) != 0 || gd_attention(ly, x, &a) != 0) return -1;
  if (gd_ffn(ly, laurel_join(a)) != 0) return -1;
  if (gd_correct(ly, gd_a.t2) != 0) return -1;
  return gd_per_layer_input(ly, li);
}
