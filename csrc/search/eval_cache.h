// A bounded, thread-safe table of network evaluations keyed by position, so a
// position reached by different move orders or in different games is sent to
// the network once. Entries are verified with a second, independent 64-bit
// hash (128 bits in all). Memory is fixed at construction (the cap in MB);
// buckets of 4 entries replace their least recently used entry.
//
// Thread safety: lookup() and store() may be called concurrently (striped
// mutexes); clear() and the constructor/destructor may not race with them.
#ifndef POPUCOM_SEARCH_EVAL_CACHE_H_
#define POPUCOM_SEARCH_EVAL_CACHE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "../game/position.h"

namespace popucom {

// One evaluation as the search uses it: priors over the legal moves
// (quantised to 1/65535, zero elsewhere), win/draw/loss probabilities, the
// expected final score margin and the predicted squared error of win - loss
// (value_error, >= 0; negative when the model has no such head), all from the
// side to move's point of view. Fresh network results are quantised the same
// way before use, so a cache hit and a miss build identical trees.
struct Evaluation {
  std::array<uint16_t, NUM_SQUARES> prior_q{};
  float wdl[3] = {0, 1, 0};
  float score = 0;
  float value_error = -1.0f;  // the search's uncertainty weighting reads it (params.h)

  static constexpr float PRIOR_SCALE = 65535.0f;
  float prior(int sq) const { return prior_q[sq] / PRIOR_SCALE; }
};

// A position's two independent 64-bit hashes: the table index and the check.
struct CacheKey {
  uint64_t key = 0;
  uint64_t check = 0;
  static CacheKey of(const Position& p);
};

class EvalCache {
 public:
  static constexpr int BUCKET_SIZE = 4;

  // megabytes == 0 gives a cache that stores nothing (every lookup misses).
  explicit EvalCache(double megabytes);

  bool lookup(const CacheKey& k, Evaluation* out);
  void store(const CacheKey& k, const Evaluation& e);
  bool lookup(const Position& p, Evaluation* out) { return lookup(CacheKey::of(p), out); }
  void store(const Position& p, const Evaluation& e) { store(CacheKey::of(p), e); }
  void clear();

  int64_t capacity() const { return static_cast<int64_t>(entries_.size()); }
  int64_t size() const { return used_.load(); }
  int64_t lookups() const { return lookups_.load(); }
  int64_t hits() const { return hits_.load(); }
  double hit_rate() const { return lookups_ ? static_cast<double>(hits_) / lookups_ : 0.0; }
  int64_t bytes() const { return capacity() * static_cast<int64_t>(sizeof(Entry)); }
  static constexpr int64_t bytes_per_entry() { return sizeof(Entry); }

 private:
  struct Entry {
    uint64_t key = 0;
    uint64_t check = 0;
    uint64_t last_used = 0;  // 0 = empty
    Evaluation eval;
  };
  static constexpr int NUM_LOCKS = 1024;

  size_t bucket_of(uint64_t key) const;
  std::mutex& lock_for(size_t bucket) { return locks_[bucket % NUM_LOCKS]; }

  std::vector<Entry> entries_;
  size_t num_buckets_ = 0;
  std::unique_ptr<std::mutex[]> locks_;
  std::atomic<uint64_t> clock_{0};
  std::atomic<int64_t> used_{0}, lookups_{0}, hits_{0};
};

}  // namespace popucom

#endif  // POPUCOM_SEARCH_EVAL_CACHE_H_
