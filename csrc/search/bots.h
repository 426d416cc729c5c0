// Network-free players (the arena's fixed yardsticks and the bot opponents of
// the engine and the GUI), the C++-side leaf evaluators they search with, and
// the serial search benchmark. Each Bot owns its RNG and tree; not thread-safe.
#ifndef POPUCOM_SEARCH_BOTS_H_
#define POPUCOM_SEARCH_BOTS_H_

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "../core/random.h"
#include "tree.h"

namespace popucom {

using LeafEvaluator = std::function<void(const Position&, Rng&, Evaluation*)>;

// Uniform priors over the legal moves, a drawish value and score 0.
void uniform_evaluation(const Position& p, Rng& rng, Evaluation* out);
// Uniform priors; value and score from one uniformly random playout.
void rollout_evaluation(const Position& p, Rng& rng, Evaluation* out);

// Runs visits more playouts on `tree`, one leaf at a time, with a C++ evaluator.
void search_serial(SearchTree& tree, int visits, const LeafEvaluator& evaluate);

struct SerialBenchResult {
  uint32_t visits = 0;  // root visits reached
  double seconds = 0;   // wall time of the search alone
  size_t nodes = 0;     // tree nodes allocated
};
// Times one tree searching `visits` playouts from the empty board with
// uniform_evaluation, entirely in C++: the search's throughput without a network.
SerialBenchResult bench_serial_search(int visits, uint64_t seed);

class Bot {
 public:
  virtual ~Bot() = default;
  // Set while a Python thread is inside select_move with the GIL released.
  std::atomic<bool>& busy_flag() { return busy_; }
  // A legal move for the side to move; throws std::invalid_argument if the game is over.
  virtual int select_move(const Position& p) = 0;
  virtual std::string name() const = 0;
  // The move distribution behind the last selected move: the root visit
  // shares of a searching bot, one-hot for the others.
  virtual std::array<float, NUM_SQUARES> last_policy() const {
    std::array<float, NUM_SQUARES> policy{};
    if (last_move_ >= 0) policy[last_move_] = 1.0f;
    return policy;
  }

 protected:
  int last_move_ = -1;

 private:
  std::atomic<bool> busy_{false};
};

// "random", "greedy" (best immediate floor difference; ties go to the move
// leaving the opponent the least immediate gain, then lining up most own
// stones, then at random) or
// "uct:N" (Monte-Carlo tree search with N random rollouts per move, N from 1
// to MAX_UCT_ROLLOUTS). Throws std::invalid_argument naming a bad spec.
std::unique_ptr<Bot> make_bot(const std::string& spec, uint64_t seed);

// The most rollouts a uct:N bot takes: its tree holds a node with its edges per
// rollout (~1.6 KB), so this keeps one bot's move within ~2 GB and seconds, as
// the largest visit budget does for a network's search.
constexpr int MAX_UCT_ROLLOUTS = 1000000;

}  // namespace popucom

#endif  // POPUCOM_SEARCH_BOTS_H_
