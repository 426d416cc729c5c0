// An 81-bit set of squares held in two 64-bit words (squares 0..63 in `lo`,
// 64..80 in the low 17 bits of `hi`). Every operation keeps the bits above
// square 80 clear, so equality and popcount need no masking.
#ifndef POPUCOM_GAME_BITBOARD_H_
#define POPUCOM_GAME_BITBOARD_H_

#include <cstdint>

#include "constants.h"

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace popucom {

namespace bits {
inline int popcount(uint64_t x) { return __builtin_popcountll(x); }
inline int ctz(uint64_t x) { return __builtin_ctzll(x); }
inline int clz(uint64_t x) { return __builtin_clzll(x); }

// select_in_byte[b][k]: position of the k-th set bit of byte b (8 if none).
struct SelectTable {
  uint8_t pos[256][8];
};
constexpr SelectTable make_select_table() {
  SelectTable t{};
  for (int b = 0; b < 256; ++b) {
    int k = 0;
    for (int i = 0; i < 8; ++i) t.pos[b][i] = 8;
    for (int i = 0; i < 8; ++i)
      if ((b >> i) & 1) t.pos[b][k++] = static_cast<uint8_t>(i);
  }
  return t;
}
inline constexpr SelectTable SELECT_IN_BYTE = make_select_table();

// Index of the k-th (0-based) set bit of x; requires k < popcount(x).
inline int select(uint64_t x, int k) {
#if defined(__BMI2__)
  return ctz(_pdep_u64(uint64_t{1} << k, x));
#else
  // Broadword select (after Vigna, "Broadword implementation of rank/select
  // queries"): prefix popcounts per byte, a parallel compare to find the byte,
  // then a table lookup inside it. Branch-free.
  constexpr uint64_t ONES = 0x0101010101010101ULL, HIGHS = 0x8080808080808080ULL;
  uint64_t s = x - ((x >> 1) & 0x5555555555555555ULL);
  s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
  s = ((s + (s >> 4)) & 0x0F0F0F0F0F0F0F0FULL) * ONES;  // byte i: bits set in bytes 0..i
  const uint64_t at_or_below = ((static_cast<uint64_t>(k) * ONES | HIGHS) - s) & HIGHS;
  const int byte = popcount(at_or_below);  // bytes wholly before the k-th bit
  const int before = static_cast<int>((s << 8 >> (8 * byte)) & 0xFF);
  return 8 * byte + SELECT_IN_BYTE.pos[(x >> (8 * byte)) & 0xFF][k - before];
#endif
}
}  // namespace bits

struct Bitboard {
  static constexpr uint64_t HI_MASK = (uint64_t{1} << (NUM_SQUARES - 64)) - 1;

  uint64_t lo = 0;
  uint64_t hi = 0;

  constexpr Bitboard() = default;
  constexpr Bitboard(uint64_t lo_, uint64_t hi_) : lo(lo_), hi(hi_ & HI_MASK) {}

  static constexpr Bitboard full() { return Bitboard(~uint64_t{0}, HI_MASK); }
  static constexpr Bitboard square(int sq) {
    return sq < 64 ? Bitboard(uint64_t{1} << sq, 0) : Bitboard(0, uint64_t{1} << (sq - 64));
  }

  constexpr bool test(int sq) const { return sq < 64 ? (lo >> sq) & 1 : (hi >> (sq - 64)) & 1; }
  constexpr void set(int sq) {
    // Branch-free: both words are updated, one of them with a zero mask.
    lo |= sq < 64 ? uint64_t{1} << (sq & 63) : 0;
    hi |= sq >= 64 ? uint64_t{1} << (sq & 63) : 0;
  }
  constexpr void reset(int sq) {
    if (sq < 64)
      lo &= ~(uint64_t{1} << sq);
    else
      hi &= ~(uint64_t{1} << (sq - 64));
  }

  constexpr bool any() const { return (lo | hi) != 0; }
  constexpr bool none() const { return (lo | hi) == 0; }
  int count() const { return bits::popcount(lo) + bits::popcount(hi); }

  // Lowest set square; requires any().
  int lowest() const { return lo ? bits::ctz(lo) : 64 + bits::ctz(hi); }
  int pop_lowest() {
    if (lo) {
      const int sq = bits::ctz(lo);
      lo &= lo - 1;
      return sq;
    }
    const int sq = 64 + bits::ctz(hi);
    hi &= hi - 1;
    return sq;
  }
  // The k-th (0-based) set square in increasing order; requires k < count().
  int select(int k) const {
    const int in_lo = bits::popcount(lo);
    return k < in_lo ? bits::select(lo, k) : 64 + bits::select(hi, k - in_lo);
  }

  constexpr Bitboard operator&(Bitboard o) const { return Bitboard(lo & o.lo, hi & o.hi); }
  constexpr Bitboard operator|(Bitboard o) const { return Bitboard(lo | o.lo, hi | o.hi); }
  constexpr Bitboard operator^(Bitboard o) const { return Bitboard(lo ^ o.lo, hi ^ o.hi); }
  constexpr Bitboard operator~() const { return Bitboard(~lo, ~hi); }  // masked by the ctor
  constexpr Bitboard& operator&=(Bitboard o) {
    lo &= o.lo;
    hi &= o.hi;
    return *this;
  }
  constexpr Bitboard& operator|=(Bitboard o) {
    lo |= o.lo;
    hi |= o.hi;
    return *this;
  }
  constexpr Bitboard& operator^=(Bitboard o) {
    lo ^= o.lo;
    hi ^= o.hi;
    return *this;
  }
  // Shift towards lower square indices (square s moves to s - n), 0 <= n < 64.
  constexpr Bitboard shifted_down(int n) const {
    return n == 0 ? *this : Bitboard((lo >> n) | (hi << (64 - n)), hi >> n);
  }

  // Squares strictly below the lowest set square (all squares if none).
  Bitboard below_lowest() const {
    if (lo) return Bitboard((lo & (0 - lo)) - 1, 0);
    if (hi) return Bitboard(~uint64_t{0}, (hi & (0 - hi)) - 1);
    return full();
  }
  // Squares strictly above the highest set square (all squares if none).
  Bitboard above_highest() const {
    if (hi) {
      const int top = 63 - bits::clz(hi);
      return Bitboard(0, top == 63 ? 0 : ~uint64_t{0} << (top + 1));
    }
    if (lo) {
      const int top = 63 - bits::clz(lo);
      return Bitboard(top == 63 ? 0 : ~uint64_t{0} << (top + 1), ~uint64_t{0});
    }
    return full();
  }

  constexpr bool operator==(Bitboard o) const { return lo == o.lo && hi == o.hi; }
  constexpr bool operator!=(Bitboard o) const { return !(*this == o); }

  // Calls f(sq) for each set square in increasing order.
  template <typename F>
  void for_each(F&& f) const {
    Bitboard b = *this;
    while (b.any()) f(b.pop_lowest());
  }
};

}  // namespace popucom

#endif  // POPUCOM_GAME_BITBOARD_H_
