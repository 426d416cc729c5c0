#include "multi_search.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "../eval/features.h"

namespace popucom {

bool make_evaluation(const Position& p, const float* logits, const float* wdl, float score, Evaluation* out,
                     float value_error) {
  const Bitboard legal = p.legal_moves();
  float top = -INFINITY;
  bool finite = std::isfinite(score) && std::isfinite(value_error);
  legal.for_each([&](int sq) {
    finite = finite && std::isfinite(logits[sq]);
    top = std::max(top, logits[sq]);
  });
  for (int i = 0; i < 3; ++i) finite = finite && std::isfinite(wdl[i]);
  if (!finite) return false;
  double total = 0;
  double prob[NUM_SQUARES];
  legal.for_each([&](int sq) { total += prob[sq] = std::exp(static_cast<double>(logits[sq]) - top); });
  out->prior_q.fill(0);
  legal.for_each([&](int sq) {
    out->prior_q[sq] = static_cast<uint16_t>(std::lround(prob[sq] / total * Evaluation::PRIOR_SCALE));
  });
  double w[3], wsum = 0;
  for (int i = 0; i < 3; ++i) wsum += w[i] = std::max(0.0f, wdl[i]);
  for (int i = 0; i < 3; ++i) out->wdl[i] = static_cast<float>(wsum > 0 ? w[i] / wsum : (i == 1 ? 1.0 : 0.0));
  out->score = score;
  out->value_error = value_error;
  return true;
}

MultiSearch::MultiSearch(int num_games, const SearchParams& params, std::shared_ptr<EvalCache> cache, int threads,
                         uint64_t seed)
    : params_(params), cache_(std::move(cache)), pool_(std::max(1, threads)) {
  if (num_games < 1) throw std::invalid_argument("num_games must be at least 1");  // its trees check params
  if (threads < 1) throw std::invalid_argument("threads must be at least 1");
  if (!cache_) cache_ = std::make_shared<EvalCache>(0);
  trees_.reserve(num_games);
  uint64_t state = seed;
  for (int g = 0; g < num_games; ++g) trees_.emplace_back(params, splitmix64(state));  // own RNG per game
  for (SearchTree& tree : trees_) tree.set_deadline(&deadline_);
  targets_.assign(num_games, 0);
}

void MultiSearch::reset(int game, const Position& root) {
  if (!slots_.empty()) throw std::logic_error("reset: a batch is pending; back it up or cancel it first");
  tree(game).reset(root);
  tree(game).set_visit_target(targets_[game]);
}

void MultiSearch::set_visit_target(int game, int visits) {
  if (visits < 0) throw std::invalid_argument("visit target must be >= 0");
  targets_.at(game) = visits;
  tree(game).set_visit_target(visits);
}

void MultiSearch::set_visit_targets(int visits) {
  for (int g = 0; g < num_games(); ++g) set_visit_target(g, visits);
}

bool MultiSearch::done(int game) const {
  const SearchTree& t = tree(game);
  return t.root_is_terminal() || static_cast<int>(t.root_visits()) >= targets_[game];
}

bool MultiSearch::all_done() const {
  for (int g = 0; g < num_games(); ++g)
    if (!done(g)) return false;
  return true;
}

std::vector<int> MultiSearch::done_games() const {
  std::vector<int> out;
  for (int g = 0; g < num_games(); ++g)
    if (done(g)) out.push_back(g);
  return out;
}

uint64_t MultiSearch::total_in_flight() const {
  uint64_t total = 0;
  for (const SearchTree& t : trees_) total += t.total_in_flight();
  return total;
}

std::pair<int, int> MultiSearch::chunk(int task, int tasks, int count) const {
  return {static_cast<int>(static_cast<int64_t>(count) * task / tasks),
          static_cast<int>(static_cast<int64_t>(count) * (task + 1) / tasks)};
}

void MultiSearch::gather_games(int begin, int end, std::vector<Slot>* out, uint64_t* cache_hits, uint64_t* terminals) {
  // Terminal leaves and cache hits cost no network call; cap them per step so
  // one step stays short even when a tree is solved.
  const int free_visit_cap = 8 * params_.leaves_per_game + 64;
  for (int g = begin; g < end; ++g) {
    SearchTree& t = trees_[g];
    int queued = 0, free_visits = 0;
    while (queued < params_.leaves_per_game && free_visits < free_visit_cap && !t.root_is_terminal() &&
           static_cast<int>(t.root_visits() + t.root_in_flight()) < targets_[g]) {
      Slot slot{g, -1, Position(), CacheKey()};
      const SearchTree::Descent d = t.descend(&slot.node, &slot.position);
      if (d == SearchTree::Descent::COLLISION) break;
      if (d == SearchTree::Descent::RESOLVED) {
        ++free_visits;
        ++*terminals;
        continue;
      }
      Evaluation cached;
      slot.key = CacheKey::of(slot.position);
      if (cache_->lookup(slot.key, &cached)) {
        t.expand_and_backup(slot.node, slot.position, cached);
        ++free_visits;
        ++*cache_hits;
        continue;
      }
      out->push_back(slot);
      ++queued;
    }
  }
}

int MultiSearch::gather(float* out, int capacity) {
  if (!slots_.empty()) throw std::logic_error("gather: the previous batch has not been backed up");
  if (capacity < max_batch())
    throw std::invalid_argument("the input buffer holds " + std::to_string(capacity) +
                                " positions but a step can need " + std::to_string(max_batch()) +
                                " (num_games * leaves_per_game)");
  const int tasks = std::min(pool_.size(), num_games());
  std::vector<std::vector<Slot>> found(tasks);
  std::vector<uint64_t> hits(tasks, 0), terminals(tasks, 0);
  pool_.run(tasks, [&](int task) {
    const auto [begin, end] = chunk(task, tasks, num_games());
    gather_games(begin, end, &found[task], &hits[task], &terminals[task]);
  });
  chunk_start_.assign(tasks + 1, 0);
  for (int task = 0; task < tasks; ++task) {
    chunk_start_[task + 1] = chunk_start_[task] + static_cast<int>(found[task].size());
    cache_resolved_ += hits[task];
    terminal_resolved_ += terminals[task];
  }
  slots_.resize(chunk_start_[tasks]);
  pool_.run(tasks, [&](int task) {
    int at = chunk_start_[task];
    for (Slot& s : found[task]) {
      features::encode(s.position, out + static_cast<int64_t>(at) * features::FLOATS_PER_POSITION);
      slots_[at++] = std::move(s);
    }
  });
  return static_cast<int>(slots_.size());
}

void MultiSearch::backup(const float* policy_logits, const float* wdl, const float* score, const float* value_error,
                         int n) {
  if (n != pending())
    throw std::invalid_argument("backup got " + std::to_string(n) + " results for " + std::to_string(pending()) +
                                " pending slots");
  // Check every output before touching any tree, so a bad batch changes nothing.
  std::vector<Evaluation> evals(n);
  for (int i = 0; i < n; ++i) {
    // A model with the head predicts a squared error (negative means "no head" inside the search).
    if (value_error && !(value_error[i] >= 0 && std::isfinite(value_error[i]))) {
      const float e = value_error[i];
      throw std::invalid_argument("network output value_error for slot " + std::to_string(i) + " is " +
                                  (std::isnan(e)   ? "NaN"
                                   : std::isinf(e) ? "infinite"
                                                   : "negative") +
                                  "; a predicted squared error is finite and >= 0");
    }
    if (!make_evaluation(slots_[i].position, policy_logits + static_cast<int64_t>(i) * NUM_SQUARES, wdl + 3 * i,
                         score[i], &evals[i], value_error ? value_error[i] : -1.0f))
      throw std::invalid_argument("network output for slot " + std::to_string(i) + " is not finite (NaN or inf)");
  }
  const int tasks = static_cast<int>(chunk_start_.size()) - 1;
  pool_.run(tasks, [&](int task) {
    for (int i = chunk_start_[task]; i < chunk_start_[task + 1]; ++i) {
      const Slot& s = slots_[i];
      cache_->store(s.key, evals[i]);
      trees_[s.game].expand_and_backup(s.node, s.position, evals[i]);
    }
  });
  leaves_evaluated_ += n;
  slots_.clear();
}

void MultiSearch::cancel_pending() {
  for (const Slot& s : slots_) trees_[s.game].cancel(s.node);
  slots_.clear();
}

}  // namespace popucom
