#include "bots.h"

#include <chrono>
#include <stdexcept>

#include "../game/playout.h"

namespace popucom {

namespace {

void uniform_priors(const Position& p, Evaluation* out) {
  const Bitboard legal = p.legal_moves();
  const auto share = static_cast<uint16_t>(Evaluation::PRIOR_SCALE / std::max(1, legal.count()));
  out->prior_q.fill(0);
  legal.for_each([&](int sq) { out->prior_q[sq] = share; });
}

void require_playable(const Position& p) {
  if (p.is_terminal()) throw std::invalid_argument("the game is over: there is no move to select");
}

class RandomBot : public Bot {
 public:
  explicit RandomBot(uint64_t seed) : rng_(seed) {}
  int select_move(const Position& p) override {
    require_playable(p);
    const Bitboard legal = p.legal_moves();
    return last_move_ = legal.select(static_cast<int>(rng_.below(static_cast<uint32_t>(legal.count()))));
  }
  std::string name() const override { return "random"; }

 private:
  Rng rng_;
};

int floor_difference(const Position& p, Color c) { return p.floors(c).count() - p.floors(opponent(c)).count(); }

// The most the side to move can raise its floor difference with one move.
int best_immediate_gain(const Position& p) {
  if (p.is_terminal()) return 0;
  const Color me = p.to_move();
  const int before = floor_difference(p, me);
  int best = 0;
  p.legal_moves().for_each([&](int sq) {
    Position next = p;
    next.play_unchecked(sq);
    best = std::max(best, floor_difference(next, me) - before);
  });
  return best;
}

class GreedyBot : public Bot {
 public:
  explicit GreedyBot(uint64_t seed) : rng_(seed) {}
  // The best immediate floor difference. Among equal moves: the one leaving
  // the opponent the smallest immediate gain, then the one lining up the most
  // own stones (a step towards a later match), then at random.
  int select_move(const Position& p) override {
    require_playable(p);
    const Color me = p.to_move();
    int best = -1, ties = 0;
    long best_key = -1;
    p.legal_moves().for_each([&](int sq) {
      Position next = p;
      next.play_unchecked(sq);
      int lined_up = 0;
      for (int axis = 0; axis < geometry::NUM_AXES; ++axis)
        lined_up += (p.stones(me) & geometry::TABLES.window[sq][axis]).count();
      const long key = (static_cast<long>(floor_difference(next, me) + NUM_SQUARES) * 128 +
                        (NUM_SQUARES - best_immediate_gain(next))) *
                           64 +
                       lined_up;
      if (key > best_key) {
        best_key = key;
        best = sq;
        ties = 1;
      } else if (key == best_key && rng_.below(static_cast<uint32_t>(++ties)) == 0) {
        best = sq;  // reservoir sampling: a uniformly random move among the ties
      }
    });
    return last_move_ = best;
  }
  std::string name() const override { return "greedy"; }

 private:
  Rng rng_;
};

SearchParams uct_params() {
  SearchParams params;
  // Uniform priors shrink PUCT's exploration term by the number of moves, so
  // a rollout search wants a larger constant and no first-play penalty.
  params.c_puct = 4.0;
  params.fpu_reduction = 0.0;
  params.root_fpu_reduction = 0.0;
  return params;
}

class UctBot : public Bot {
 public:
  UctBot(int rollouts, uint64_t seed) : rollouts_(rollouts), tree_(uct_params(), seed) {}
  int select_move(const Position& p) override {
    require_playable(p);
    tree_.reset(p);
    search_serial(tree_, rollouts_, rollout_evaluation);
    return last_move_ = tree_.choose_move(0.0);
  }
  std::string name() const override { return "uct:" + std::to_string(rollouts_); }
  std::array<float, NUM_SQUARES> last_policy() const override {
    std::array<float, NUM_SQUARES> policy{};
    double total = 0;
    const auto stats = tree_.move_stats(1);
    for (const MoveStats& m : stats) total += m.visits;
    for (const MoveStats& m : stats) policy[m.move] = total > 0 ? static_cast<float>(m.visits / total) : 0.0f;
    return policy;
  }

 private:
  int rollouts_;
  SearchTree tree_;
};

}  // namespace

void uniform_evaluation(const Position& p, Rng&, Evaluation* out) {
  uniform_priors(p, out);
  out->wdl[0] = 0;
  out->wdl[1] = 1;
  out->wdl[2] = 0;
  out->score = 0;
}

void rollout_evaluation(const Position& p, Rng& rng, Evaluation* out) {
  uniform_priors(p, out);
  const Position end = random_playout(p, rng);
  const Result r = end.result();
  const bool black = p.to_move() == BLACK;
  const bool win = (r == Result::BLACK_WIN) == black && r != Result::DRAW;
  const bool loss = (r == Result::WHITE_WIN) == black && r != Result::DRAW;
  out->wdl[0] = win ? 1.0f : 0.0f;
  out->wdl[1] = (!win && !loss) ? 1.0f : 0.0f;
  out->wdl[2] = loss ? 1.0f : 0.0f;
  const float margin = static_cast<float>(end.score() + end.komi());
  out->score = black ? margin : -margin;
}

void search_serial(SearchTree& tree, int visits, const LeafEvaluator& evaluate) {
  Evaluation eval;
  for (int i = 0; i < visits && !tree.root_is_terminal(); ++i) {
    int32_t node;
    Position leaf;
    if (tree.descend(&node, &leaf) == SearchTree::Descent::NEED_EVAL) {
      evaluate(leaf, tree.rng(), &eval);
      tree.expand_and_backup(node, leaf, eval);
    }
  }
}

SerialBenchResult bench_serial_search(int visits, uint64_t seed) {
  SearchTree tree(SearchParams(), seed);
  tree.reset(Position());
  const auto start = std::chrono::steady_clock::now();
  search_serial(tree, visits, uniform_evaluation);
  SerialBenchResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.visits = tree.root_visits();
  result.nodes = tree.num_nodes();
  return result;
}

std::unique_ptr<Bot> make_bot(const std::string& spec, uint64_t seed) {
  if (spec == "random") return std::make_unique<RandomBot>(seed);
  if (spec == "greedy") return std::make_unique<GreedyBot>(seed);
  if (spec.rfind("uct:", 0) == 0) {
    const std::string count = spec.substr(4);
    size_t used = 0;
    long n = 0;
    try {
      n = std::stol(count, &used);
    } catch (const std::exception&) { used = 0; }
    if (used != count.size() || count.empty() || n < 1 || n > MAX_UCT_ROLLOUTS)
      throw std::invalid_argument("bot '" + spec.substr(0, 100) +
                                  "': want uct:N with N a whole number of rollouts from 1 to " +
                                  std::to_string(MAX_UCT_ROLLOUTS));
    return std::make_unique<UctBot>(static_cast<int>(n), seed);
  }
  throw std::invalid_argument("unknown bot '" + spec + "' (want random, greedy or uct:N)");
}

}  // namespace popucom
