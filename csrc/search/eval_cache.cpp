#include "eval_cache.h"

#include <stdexcept>
#include <string>

namespace popucom {

EvalCache::EvalCache(double megabytes) : locks_(new std::mutex[NUM_LOCKS]) {
  if (!(megabytes >= 0) || megabytes > 1 << 20)
    throw std::invalid_argument("eval cache size must be in 0..1048576 MB, got " + std::to_string(megabytes));
  const auto entries = static_cast<size_t>(megabytes * 1024.0 * 1024.0 / sizeof(Entry));
  num_buckets_ = entries / BUCKET_SIZE;
  entries_.resize(num_buckets_ * BUCKET_SIZE);
}

CacheKey CacheKey::of(const Position& p) {
  // The check mixes the packed position with SplitMix64, independent of the
  // Zobrist keys behind p.hash().
  uint64_t check = 0x243F6A8885A308D3ULL;
  for (uint64_t w : p.pack()) {
    uint64_t state = check ^ w;
    check = splitmix64(state);
  }
  return {p.hash(), check};
}

size_t EvalCache::bucket_of(uint64_t key) const {
  // Lemire's fast range reduction: no power-of-two size needed.
  return static_cast<size_t>((static_cast<unsigned __int128>(key) * num_buckets_) >> 64);
}

bool EvalCache::lookup(const CacheKey& k, Evaluation* out) {
  lookups_.fetch_add(1, std::memory_order_relaxed);
  if (num_buckets_ == 0) return false;
  const uint64_t key = k.key, check = k.check;
  const size_t bucket = bucket_of(key);
  std::lock_guard<std::mutex> lock(lock_for(bucket));
  for (int i = 0; i < BUCKET_SIZE; ++i) {
    Entry& e = entries_[bucket * BUCKET_SIZE + i];
    if (e.last_used != 0 && e.key == key && e.check == check) {
      e.last_used = clock_.fetch_add(1, std::memory_order_relaxed) + 1;
      *out = e.eval;
      hits_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

void EvalCache::store(const CacheKey& k, const Evaluation& eval) {
  if (num_buckets_ == 0) return;
  const uint64_t key = k.key, check = k.check;
  const size_t bucket = bucket_of(key);
  std::lock_guard<std::mutex> lock(lock_for(bucket));
  Entry* victim = nullptr;
  for (int i = 0; i < BUCKET_SIZE; ++i) {
    Entry& e = entries_[bucket * BUCKET_SIZE + i];
    if (e.last_used != 0 && e.key == key && e.check == check) {
      victim = &e;
      break;
    }
    if (!victim || e.last_used < victim->last_used) victim = &e;
  }
  if (victim->last_used == 0) used_.fetch_add(1, std::memory_order_relaxed);
  victim->key = key;
  victim->check = check;
  victim->eval = eval;
  victim->last_used = clock_.fetch_add(1, std::memory_order_relaxed) + 1;
}

void EvalCache::clear() {
  for (Entry& e : entries_) e = Entry();
  used_ = 0;
  lookups_ = 0;
  hits_ = 0;
}

}  // namespace popucom
