// Many games searched at once, their leaves batched into one network call.
//
//   gather(out)  advances every unfinished tree to its next leaves (several
//                per tree, spread by virtual loss), resolves terminal leaves
//                and cache hits on the spot, encodes the rest into `out` and
//                returns how many slots it filled;
//   backup(...)  takes the network's outputs for those slots, matched by slot
//                index, expands the leaves and backs their values up.
//
// Tree work is spread over a thread pool by game (each tree is touched by one
// thread per step); the eval cache is shared and thread-safe. The object
// itself is not: call it from one thread at a time (Python holds it under
// the GIL and releases the GIL inside gather and backup).
//
// One deadline serves every game: the exact solves (leaf solves in gather,
// the endgame choice in choose_move) give up once it has passed, as when
// their node budgets run out. deadline() is the one member any thread may
// use while another searches: a front end expires it to stop a search that
// is inside a long solve.
#ifndef POPUCOM_SEARCH_MULTI_SEARCH_H_
#define POPUCOM_SEARCH_MULTI_SEARCH_H_

#include <atomic>
#include <memory>
#include <vector>

#include "../core/deadline.h"
#include "../core/thread_pool.h"
#include "eval_cache.h"
#include "tree.h"

namespace popucom {

class MultiSearch {
 public:
  MultiSearch(int num_games, const SearchParams& params, std::shared_ptr<EvalCache> cache, int threads, uint64_t seed);

  int num_games() const { return static_cast<int>(trees_.size()); }
  // The most slots one gather() can fill: num_games * leaves_per_game.
  int max_batch() const { return num_games() * params_.leaves_per_game; }
  int pending() const { return static_cast<int>(slots_.size()); }

  void reset(int game, const Position& root);
  // The root visit count at which a game's search stops (reused visits count).
  void set_visit_target(int game, int visits);
  void set_visit_targets(int visits);  // the same target for every game
  int visit_target(int game) const { return targets_.at(game); }
  // True when the game's root has reached its visit target or is terminal.
  bool done(int game) const;
  bool all_done() const;
  std::vector<int> done_games() const;  // ascending

  // Fills features for up to max_batch() leaves into `out` (float32,
  // [slot][plane][9][9]); returns the number of slots. Throws std::logic_error
  // if the previous batch was not backed up.
  int gather(float* out, int capacity);
  // policy_logits [n][81], wdl [n][3] (probabilities), score [n] and
  // value_error [n] (>= 0; nullptr when the model has no such head);
  // n == pending(). Throws std::invalid_argument naming the slot of a
  // non-finite output or a negative value_error, before any tree is touched.
  void backup(const float* policy_logits, const float* wdl, const float* score, const float* value_error, int n);
  // Drops the pending batch, taking back its virtual losses.
  void cancel_pending();

  // When the solves of every game must end (none at first). Thread-safe.
  Deadline& deadline() { return deadline_; }

  SearchTree& tree(int game) { return trees_.at(game); }
  const SearchTree& tree(int game) const { return trees_.at(game); }
  void play(int game, int move) {
    tree(game).advance(move);
    tree(game).set_visit_target(targets_.at(game));
  }

  EvalCache* cache() { return cache_.get(); }
  int threads() const { return pool_.size(); }
  uint64_t leaves_evaluated() const { return leaves_evaluated_; }
  uint64_t cache_resolved() const { return cache_resolved_; }
  uint64_t terminal_resolved() const { return terminal_resolved_; }
  // Virtual losses outstanding in all trees (0 after every backup).
  uint64_t total_in_flight() const;
  // Set while gather() or backup() runs with the GIL released (bindings), so
  // a second thread gets an error instead of corrupting the trees.
  std::atomic<bool>& busy_flag() { return busy_; }
  bool busy() const { return busy_.load(); }

 private:
  struct Slot {
    int game;
    int32_t node;
    Position position;
    CacheKey key;
  };
  void gather_games(int begin, int end, std::vector<Slot>* out, uint64_t* cache_hits, uint64_t* terminals);
  std::pair<int, int> chunk(int task, int tasks, int count) const;

  SearchParams params_;
  std::vector<SearchTree> trees_;
  std::vector<int> targets_;
  std::shared_ptr<EvalCache> cache_;
  ThreadPool pool_;
  std::vector<Slot> slots_;
  std::vector<int> chunk_start_;  // slot index where each gather task's slots begin
  uint64_t leaves_evaluated_ = 0, cache_resolved_ = 0, terminal_resolved_ = 0;
  std::atomic<bool> busy_{false};
  Deadline deadline_;  // the trees hold its address: the object is never moved (busy_ rules it out)
};

// Turns raw network outputs for one position into the search's quantised
// form: softmax of the logits over the legal moves only, WDL clamped and
// renormalised, value_error kept as it is (negative: the model has none).
// Returns false if an output is not finite.
bool make_evaluation(const Position& p, const float* policy_logits, const float* wdl, float score, Evaluation* out,
                     float value_error = -1.0f);

}  // namespace popucom

#endif  // POPUCOM_SEARCH_MULTI_SEARCH_H_
