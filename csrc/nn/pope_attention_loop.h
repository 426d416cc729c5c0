// What the attention kernels share (pope_attention.cpp, pope_attention_dots.cpp): the loop
// over every (position, head) of a batch through one head's workspace, which builds the
// head's query and key rows, loads its values and writes its output rows Head::ROWS at a
// time. Included by each kernel's file, so it compiles for that kernel's instruction set.
#ifndef POPUCOM_NN_POPE_ATTENTION_LOOP_H_
#define POPUCOM_NN_POPE_ATTENTION_LOOP_H_

#include <cstddef>

#include "../game/constants.h"

namespace popucom {
namespace nn {

template <int HD, typename Head, typename Act>
void attend_each_head(Head& head, const Act* qkv, const float* tables, std::size_t batch, int heads, Act* out) {
  constexpr int T = NUM_SQUARES;
  const int d = heads * HD;
  const std::size_t stride = static_cast<std::size_t>(3) * d;
  const std::size_t table_size = static_cast<std::size_t>(T) * 2 * HD;
  for (std::size_t b = 0; b < batch; ++b) {
    const Act* x = qkv + b * T * stride;
    Act* o = out + b * static_cast<std::size_t>(T) * d;
    for (int h = 0; h < heads; ++h) {
      head.build(x + h * HD, stride, tables + h * table_size, false);
      head.build(x + d + h * HD, stride, tables + (heads + h) * table_size, true);
      head.load_values(x + 2 * d + h * HD, stride);
      int i = 0;
      for (; i + Head::ROWS <= T; i += Head::ROWS) head.template rows<Head::ROWS>(i, o + h * HD, d);
      for (; i < T; ++i) head.template rows<1>(i, o + h * HD, d);
    }
  }
}

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_POPE_ATTENTION_LOOP_H_
