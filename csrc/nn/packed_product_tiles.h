// The packed products' loops (packed_product.h), written once for every instruction set:
// each packed_product_<isa>.cpp instantiates them with a Kernel of its own, which names
//   V           the register's float vector (FloatLanes<LANES>),
//   Act         the activations' type,
//   ROWS, VECTORS  the tile: ROWS x VECTORS registers of sums, sized to the register file,
//   multiply_add(sum, a, step, weights)  sum += the packed word `step` of the row a times
//               the weights' vector,
//   store(out, y)  one vector of results in the activations' type.
// The loops have internal linkage for the reason vector_math.h gives.
#ifndef POPUCOM_NN_PACKED_PRODUCT_TILES_H_
#define POPUCOM_NN_PACKED_PRODUCT_TILES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "packed_product.h"
#include "vector_math.h"

// Only the kernels' copies include this, and what they instantiate from it passes vectors
// wider than the build's registers between inlined functions: no call changes the ABI that
// -Wpsabi warns of, for the rest of the including file too.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace popucom {
namespace nn {
namespace {

template <typename Kernel, int R, int C, ProductOutput OUT>
POPUCOM_VECTOR_INLINE void product_tile(const typename Kernel::Act* a, int inputs, const std::uint32_t* w, int outputs,
                                        int column, void* out) {
  using V = typename Kernel::V;
  using Act = typename Kernel::Act;
  constexpr int LANES = sizeof(V) / sizeof(float);
  constexpr int PER_WORD = std::is_same_v<Act, float> ? 1 : 2;
  V sum[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) sum[r][c] = V{};
  for (int step = 0; step < inputs / PER_WORD; ++step) {
    V weights[C];
    for (int c = 0; c < C; ++c)
      std::memcpy(&weights[c], w + static_cast<std::size_t>(step) * outputs + column + c * LANES, sizeof(V));
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        sum[r][c] = Kernel::multiply_add(sum[r][c], a + static_cast<std::size_t>(r) * inputs, step, weights[c]);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const std::size_t at = static_cast<std::size_t>(r) * outputs + column + c * LANES;
      const V y = OUT == ProductOutput::kGeluActivation ? gelu_lanes<V>(sum[r][c]) : sum[r][c];
      if constexpr (OUT == ProductOutput::kFloat)
        store_lanes<V>(static_cast<float*>(out) + at, y);
      else
        Kernel::store(static_cast<Act*>(out) + at, y);
    }
}

// The column tiles of one block of R rows: VECTORS registers wide, then what is left.
template <typename Kernel, int R, ProductOutput OUT>
void product_rows(const typename Kernel::Act* a, const PackedMatrix& w, void* out) {
  constexpr int LANES = sizeof(typename Kernel::V) / sizeof(float);
  constexpr int WIDTH = Kernel::VECTORS * LANES;
  const std::uint32_t* words = w.words.data();
  int column = 0;
  for (; column + WIDTH <= w.outputs; column += WIDTH)
    product_tile<Kernel, R, Kernel::VECTORS, OUT>(a, w.inputs, words, w.outputs, column, out);
  for (; column < w.outputs; column += LANES)  // outputs are whole vectors (pack_matrix)
    product_tile<Kernel, R, 1, OUT>(a, w.inputs, words, w.outputs, column, out);
}

template <typename Kernel, int R, ProductOutput OUT>
void product_rows_of(int rows, const typename Kernel::Act* a, const PackedMatrix& w, void* out) {
  if constexpr (R > 1) {
    if (rows < R) return product_rows_of<Kernel, R - 1, OUT>(rows, a, w, out);
  }
  product_rows<Kernel, R, OUT>(a, w, out);
}

template <typename Kernel, ProductOutput OUT>
void product_blocks(const typename Kernel::Act* a, std::size_t rows, const PackedMatrix& w, void* out) {
  using Act = typename Kernel::Act;
  const std::size_t element = OUT == ProductOutput::kFloat ? sizeof(float) : sizeof(Act);
  for (std::size_t r0 = 0; r0 < rows; r0 += Kernel::ROWS) {
    const int r = static_cast<int>(std::min<std::size_t>(Kernel::ROWS, rows - r0));
    void* target = static_cast<char*>(out) + r0 * w.outputs * element;
    product_rows_of<Kernel, Kernel::ROWS, OUT>(r, a + r0 * w.inputs, w, target);
  }
}

// out = output(a . W^T) for the product of packed_product.h, on Kernel's registers.
template <typename Kernel>
void product_with(const typename Kernel::Act* a, std::size_t rows, const PackedMatrix& w, ProductOutput output,
                  void* out) {
  switch (output) {
    case ProductOutput::kActivation: return product_blocks<Kernel, ProductOutput::kActivation>(a, rows, w, out);
    case ProductOutput::kGeluActivation: return product_blocks<Kernel, ProductOutput::kGeluActivation>(a, rows, w, out);
    case ProductOutput::kFloat: return product_blocks<Kernel, ProductOutput::kFloat>(a, rows, w, out);
  }
}

// The float32 kernel of every instruction set: a broadcast input times LANES columns.
template <int LANES, int TILE_ROWS, int TILE_VECTORS>
struct FloatKernel {
  using V = FloatLanes<LANES>;
  using Act = float;
  static constexpr int ROWS = TILE_ROWS;
  static constexpr int VECTORS = TILE_VECTORS;

  static POPUCOM_VECTOR_INLINE V multiply_add(V sum, const float* a, int step, V weights) {
    return sum + a[step] * (V)weights;
  }
  static POPUCOM_VECTOR_INLINE void store(float* out, V y) { store_lanes<V>(out, y); }
};

}  // namespace
}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_PACKED_PRODUCT_TILES_H_
