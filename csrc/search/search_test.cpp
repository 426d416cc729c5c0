// The search: exact endgames, bookkeeping, determinism, the eval cache,
// batching (slot order, threads) and the baseline bots.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "../eval/features.h"
#include "../game/notation.h"
#include "../tests/helpers.h"
#include "../tests/testing.h"
#include "bots.h"
#include "multi_search.h"
#include "solver.h"

using namespace popucom;

namespace {

// Black's last move (then White's last): only c5 completes b5-c5-d5 and
// paints row 5, turning a 2-floor deficit into a win; every other move loses.
Position endgame() {
  return Position::from_parts(testing::squares("b5 d5"), testing::squares("a1 i9"), testing::squares("a9"),
                              testing::squares("a2 b2 c2"), BLACK, 1, 1, 0);
}

// An evaluator that knows the exact result (alpha-beta) with uniform priors.
void exact_evaluation(const Position& p, Rng& rng, Evaluation* out) {
  uniform_evaluation(p, rng, out);
  const int v = solve(p, 6);
  out->wdl[0] = v > 0;
  out->wdl[1] = v == 0;
  out->wdl[2] = v < 0;
}

// Runs the multi-game search with a deterministic fake network, returning
// every tree's root move stats; `shuffle` feeds results back permuted. The
// net's value_error (the least sure of an even position) is only made when asked.
struct FakeNet {
  void operator()(const float* features, int n, std::vector<float>* logits, std::vector<float>* wdl,
                  std::vector<float>* score, std::vector<float>* value_error = nullptr) const {
    logits->assign(static_cast<size_t>(n) * NUM_SQUARES, 0);
    wdl->assign(static_cast<size_t>(n) * 3, 0);
    score->assign(n, 0);
    if (value_error) value_error->assign(n, 0);
    for (int i = 0; i < n; ++i) {
      const float* f = features + static_cast<int64_t>(i) * features::FLOATS_PER_POSITION;
      double own = 0, opp = 0;
      for (int sq = 0; sq < NUM_SQUARES; ++sq) {
        own += f[2 * NUM_SQUARES + sq];
        opp += f[3 * NUM_SQUARES + sq];
        (*logits)[i * NUM_SQUARES + sq] = 0.05f * static_cast<float>(sq % 9);
      }
      const double v = std::tanh((own - opp) / 10.0);
      (*wdl)[3 * i] = static_cast<float>((1 + v) / 2 * 0.9);
      (*wdl)[3 * i + 1] = 0.1f;
      (*wdl)[3 * i + 2] = static_cast<float>((1 - v) / 2 * 0.9);
      (*score)[i] = static_cast<float>(own - opp);
      if (value_error) (*value_error)[i] = static_cast<float>(0.02 + 0.5 * (1 - std::abs(v)));
    }
  }
};

SearchParams multi_params() {
  SearchParams params;
  params.root_noise = true;
  params.leaves_per_game = 4;
  return params;
}

// What run_multi_search found, per game.
struct MultiRun {
  std::vector<std::vector<MoveStats>> moves;  // root move stats
  std::vector<RootStats> roots;
  std::vector<int> chosen;  // choose_move(0)
  uint64_t leftover_in_flight = 0, terminals = 0;
};

MultiRun run_multi_search(const SearchParams& params, int games, int visits, int threads, bool shuffle, uint64_t seed,
                          bool value_errors = false) {
  MultiSearch ms(games, params, std::make_shared<EvalCache>(4), threads, seed);
  Rng move_rng(5);
  for (int g = 0; g < games; ++g) {
    Position p;
    for (int k = 0; k < g % 5; ++k) {
      const Bitboard legal = p.legal_moves();
      p.play_unchecked(legal.select(static_cast<int>(move_rng.below(legal.count()))));
    }
    ms.reset(g, p);
    ms.set_visit_target(g, visits);
  }
  std::vector<float> input(static_cast<size_t>(ms.max_batch()) * features::FLOATS_PER_POSITION);
  std::vector<float> logits, wdl, score, error;
  Rng perm_rng(17);
  FakeNet net;
  MultiRun run;
  while (!ms.all_done()) {
    const int n = ms.gather(input.data(), ms.max_batch());
    if (shuffle) {
      // Evaluate in a permuted order, then put each result back at its slot.
      std::vector<int> order(n);
      std::iota(order.begin(), order.end(), 0);
      for (int i = n - 1; i > 0; --i) std::swap(order[i], order[perm_rng.below(i + 1)]);
      std::vector<float> permuted(static_cast<size_t>(n) * features::FLOATS_PER_POSITION);
      for (int i = 0; i < n; ++i)
        std::copy_n(&input[static_cast<size_t>(order[i]) * features::FLOATS_PER_POSITION],
                    features::FLOATS_PER_POSITION, &permuted[static_cast<size_t>(i) * features::FLOATS_PER_POSITION]);
      std::vector<float> l, w, s, e;
      net(permuted.data(), n, &l, &w, &s, &e);
      logits.assign(static_cast<size_t>(n) * NUM_SQUARES, 0);
      wdl.assign(static_cast<size_t>(n) * 3, 0);
      score.assign(n, 0);
      error.assign(n, 0);
      for (int i = 0; i < n; ++i) {
        std::copy_n(&l[i * NUM_SQUARES], NUM_SQUARES, &logits[order[i] * NUM_SQUARES]);
        std::copy_n(&w[3 * i], 3, &wdl[3 * order[i]]);
        score[order[i]] = s[i];
        error[order[i]] = e[i];
      }
    } else {
      net(input.data(), n, &logits, &wdl, &score, &error);
    }
    ms.backup(logits.data(), wdl.data(), score.data(), value_errors ? error.data() : nullptr, n);
    for (int g = 0; g < games; ++g) run.leftover_in_flight += ms.tree(g).total_in_flight();
  }
  for (int g = 0; g < games; ++g) {
    run.moves.push_back(ms.tree(g).move_stats(4));
    run.roots.push_back(ms.tree(g).root_stats());
    run.chosen.push_back(ms.tree(g).choose_move(0));
  }
  run.terminals = ms.terminal_resolved();
  return run;
}

std::vector<std::vector<MoveStats>> run_multi(int games, int visits, int threads, bool shuffle, uint64_t seed,
                                              uint64_t* leftover_in_flight) {
  MultiRun run = run_multi_search(multi_params(), games, visits, threads, shuffle, seed);
  *leftover_in_flight = run.leftover_in_flight;
  return run.moves;
}

bool same_stats(const std::vector<std::vector<MoveStats>>& a, const std::vector<std::vector<MoveStats>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t g = 0; g < a.size(); ++g) {
    if (a[g].size() != b[g].size()) return false;
    for (size_t i = 0; i < a[g].size(); ++i)
      if (a[g][i].move != b[g][i].move || a[g][i].visits != b[g][i].visits || a[g][i].utility != b[g][i].utility ||
          a[g][i].pv != b[g][i].pv)
        return false;
  }
  return true;
}

}  // namespace

TEST(search, endgame_is_solved_as_expected) {
  CHECK_EQ(solve(endgame(), 4), 1);
  Position losing = endgame();
  losing.play_unchecked(parse_square("e5"));
  CHECK_EQ(solve(losing, 4), 1);  // White to move after Black's blunder: White wins
}

TEST(search, exact_evaluator_finds_the_winning_move) {
  SearchTree tree(SearchParams(), 1);
  tree.reset(endgame());
  search_serial(tree, 4000, exact_evaluation);
  CHECK_EQ(tree.choose_move(0), parse_square("c5"));
  CHECK(tree.move_stats(1)[0].value > 0.999);
  CHECK(tree.root_stats().value > 0.95);  // every visit but the early exploration is a win
}

TEST(search, uniform_evaluator_converges_to_true_result) {
  // Terminal positions are scored by the rules, so even a clueless
  // evaluator's search converges on this two-ply endgame.
  SearchTree tree(SearchParams(), 2);
  tree.reset(endgame());
  search_serial(tree, 20000, uniform_evaluation);
  CHECK_EQ(tree.choose_move(0), parse_square("c5"));
  CHECK(tree.root_stats().value > 0.9);
  const auto stats = tree.move_stats(3);
  CHECK_EQ(stats[0].move, parse_square("c5"));
  CHECK(stats[0].lcb > stats[1].utility);
}

TEST(search, visit_counts_add_up_and_virtual_loss_is_removed) {
  SearchTree tree(SearchParams(), 3);
  tree.reset(Position());
  search_serial(tree, 500, uniform_evaluation);
  const auto stats = tree.move_stats(1);
  uint32_t children = 0;
  for (const auto& m : stats) children += m.visits;
  CHECK_EQ(tree.root_visits(), 500u);
  CHECK_EQ(children + 1, tree.root_visits());  // the root's own evaluation is the extra visit
  CHECK_EQ(tree.total_in_flight(), 0u);
}

TEST(search, multi_search_is_deterministic_and_slot_order_free) {
  uint64_t in_flight = 1;
  const auto base = run_multi(12, 120, 1, false, 9, &in_flight);
  CHECK_EQ(in_flight, 0u);
  CHECK(same_stats(base, run_multi(12, 120, 1, false, 9, &in_flight)));
  CHECK(same_stats(base, run_multi(12, 120, 1, true, 9, &in_flight)));
  CHECK(same_stats(base, run_multi(12, 120, 3, false, 9, &in_flight)));
  CHECK(same_stats(base, run_multi(12, 120, 2, true, 9, &in_flight)));
  CHECK(!same_stats(base, run_multi(12, 120, 1, false, 10, &in_flight)));  // the seed drives the noise
  for (const auto& game : base) {
    uint32_t total = 0;
    for (const auto& m : game) total += m.visits;
    CHECK(total + 1 >= 120u);
  }
}

TEST(search, transpositions_hit_the_cache) {
  // e5 d4 c3 and c3 d4 e5 reach the same position; the second search gets it from the cache.
  auto cache = std::make_shared<EvalCache>(1);
  Evaluation e;
  Rng rng(1);
  uniform_evaluation(Position(), rng, &e);
  Position a, b;
  for (const char* m : {"e5", "d4", "c3"}) a.play_unchecked(parse_square(m));
  for (const char* m : {"c3", "d4", "e5"}) b.play_unchecked(parse_square(m));
  CHECK(a == b);
  CHECK_EQ(a.hash(), b.hash());
  cache->store(a, e);
  Evaluation got;
  CHECK(cache->lookup(b, &got));
  CHECK_EQ(cache->hits(), 1);
  Position c = a;
  c.play_unchecked(parse_square("a1"));
  CHECK(!cache->lookup(c, &got));
}

TEST(search, cache_stays_within_its_cap) {
  EvalCache cache(0.5);
  const int64_t cap = cache.capacity();
  CHECK(cap > 0);
  CHECK(cache.bytes() <= static_cast<int64_t>(0.5 * 1024 * 1024));
  Rng rng(4);
  Evaluation e;
  for (int i = 0; i < 150000; ++i) {
    Position p(static_cast<int32_t>(i));  // distinct komi: distinct positions
    p.play_unchecked(static_cast<int>(rng.below(NUM_SQUARES)));
    cache.store(p, e);
    Evaluation got;
    cache.lookup(p, &got);
    CHECK(cache.size() <= cap);
  }
  CHECK_EQ(cache.size(), cap);
  CHECK(cache.hit_rate() > 0.99);  // just-stored positions are found
}

TEST(search, subtree_reuse_keeps_visits) {
  SearchTree tree(SearchParams(), 6);
  tree.reset(Position());
  search_serial(tree, 800, uniform_evaluation);
  const auto stats = tree.move_stats(1);
  const int best = stats[0].move;
  const uint32_t kept = stats[0].visits;
  tree.advance(best);
  CHECK_EQ(tree.root_visits(), kept);
  CHECK_EQ(tree.root_position().stones(BLACK).count(), 1);
  search_serial(tree, 100, uniform_evaluation);
  CHECK_EQ(tree.root_visits(), kept + 100);
  CHECK_EQ(tree.total_in_flight(), 0u);
  CHECK_THROWS(tree.advance(best), std::invalid_argument);  // now occupied
}

TEST(search, reset_gives_a_big_trees_memory_back) {
  SearchTree tree(SearchParams(), 6);
  tree.reset(Position());
  search_serial(tree, 200, uniform_evaluation);
  const size_t small = tree.reserved_bytes();
  CHECK(small < SearchTree::KEPT_BYTES);
  tree.reset(Position());
  CHECK_EQ(tree.reserved_bytes(), small);  // a small tree keeps its arrays for the next search
  search_serial(tree, 20000, uniform_evaluation);
  CHECK(tree.reserved_bytes() > SearchTree::KEPT_BYTES);
  tree.reset(Position());
  CHECK(tree.reserved_bytes() < 1024);  // a long analysis's tree is freed
  CHECK_EQ(tree.num_nodes(), 1u);
  search_serial(tree, 100, uniform_evaluation);
  CHECK_EQ(tree.root_visits(), 100u);
}

TEST(search, lcb_selection_plays_the_best_lower_bound_among_well_visited_moves) {
  SearchParams params;
  params.lcb_selection_share = 0.1;
  SearchTree tree(params, 11);
  tree.reset(Position());
  search_serial(tree, 600, uniform_evaluation);
  const auto stats = tree.move_stats(1);  // most visited first
  const MoveStats* expected = &stats[0];
  for (const auto& m : stats)
    if (m.visits >= std::max(2.0, 0.1 * stats[0].visits) && m.lcb > expected->lcb) expected = &m;
  CHECK_EQ(tree.choose_move(0), expected->move);
  tree.mutable_params().lcb_selection_share = 0;
  CHECK_EQ(tree.choose_move(0), stats[0].move);
  // A share of 1 leaves only the most visited move.
  tree.mutable_params().lcb_selection_share = 1;
  CHECK_EQ(tree.choose_move(0), stats[0].move);
}

namespace {

// The moves two searches of `p` (same seed and visits, a clueless evaluator)
// play: one without the endgame solve, one with it at six plies, that one
// also at temperature 1.
struct EndgameChoices {
  int own, played, sampled;
};
EndgameChoices endgame_choices(const Position& p, uint64_t seed, int visits, int max_nodes = 50000000) {
  SearchParams params;
  params.endgame_solve_plies = 0;
  SearchTree plain(params, seed), solved(params, seed);
  solved.mutable_params().endgame_solve_plies = 6;
  solved.mutable_params().endgame_solve_max_nodes = max_nodes;
  plain.reset(p);
  solved.reset(p);
  search_serial(plain, visits, uniform_evaluation);
  search_serial(solved, visits, uniform_evaluation);
  const int played = solved.choose_move(0);
  return {plain.choose_move(0), played, solved.choose_move(1.0)};
}

}  // namespace

TEST(search, endgame_solving_plays_the_winning_move_a_short_search_misses) {
  // Black's last move: c5 alone wins. Three visits of a clueless evaluator
  // cannot know; the solver can.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SearchParams params;
    params.endgame_solve_plies = 2;
    SearchTree tree(params, seed);
    tree.reset(endgame());
    search_serial(tree, 3, uniform_evaluation);
    CHECK_EQ(tree.choose_move(0), parse_square("c5"));
    // A move sampled for variety (self-play) keeps the exact result too.
    CHECK_EQ(tree.choose_move(1.0), parse_square("c5"));
    tree.mutable_params().endgame_solve_plies = 1;  // two plies left: too many for it
    const int unsolved = tree.choose_move(0);
    CHECK(unsolved >= 0 && unsolved < NUM_SQUARES);
  }
  // White's last move after Black's blunder: the search's choice stands when
  // it is as good as the best, else the move played has the best result.
  Position last = endgame();
  last.play_unchecked(parse_square("e5"));
  CHECK_EQ(plies_left(last), 1);
  auto exact_after = [&](int move) {
    Position next = last;
    next.play_unchecked(move);
    return -solve(next, 0);
  };
  int best_value = -1;
  for (Bitboard legal = last.legal_moves(); legal.any();)
    best_value = std::max(best_value, exact_after(legal.pop_lowest()));
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const EndgameChoices choices = endgame_choices(last, seed, 20);
    CHECK_EQ(exact_after(choices.played), best_value);
    if (exact_after(choices.own) == best_value) CHECK_EQ(choices.played, choices.own);
    // What a root's solve found is kept for that root (asked again, after more
    // visits: the same exact answer) and forgotten when the root moves on.
    SearchParams params;
    params.endgame_solve_plies = 6;
    SearchTree moved(params, seed);
    moved.reset(endgame());
    search_serial(moved, 20, uniform_evaluation);
    CHECK_EQ(moved.choose_move(0), parse_square("c5"));
    const uint64_t solved_nodes = moved.endgame_nodes();
    CHECK(solved_nodes > 0);
    search_serial(moved, 20, uniform_evaluation);
    CHECK_EQ(moved.choose_move(0), parse_square("c5"));
    CHECK_EQ(moved.endgame_nodes(), solved_nodes);  // nothing solved again
    moved.advance(parse_square("e5"));
    search_serial(moved, 20, uniform_evaluation);
    CHECK_EQ(exact_after(moved.choose_move(0)), best_value);
    CHECK(moved.endgame_nodes() > solved_nodes);  // a new root, solved anew
  }
}

namespace {

// Plain minimax over (result, margin) pairs, compared as the side to move
// prefers them: the reference for the solver's pruning and transposition table.
std::pair<int, int> minimax_outcome(const Position& p) {
  if (p.is_terminal()) {
    const Result r = p.result();
    const int sign = p.to_move() == BLACK ? 1 : -1;
    const int margin = static_cast<int>(sign * p.final_margin());
    if (r == Result::DRAW) return {0, margin};
    return {(r == Result::BLACK_WIN) == (sign == 1) ? 1 : -1, margin};
  }
  std::pair<int, int> best{-2, 0};
  for (Bitboard legal = p.legal_moves(); legal.any();) {
    Position next = p;
    next.play_unchecked(legal.pop_lowest());
    const auto [value, margin] = minimax_outcome(next);
    best = std::max(best, std::make_pair(-value, -margin));
  }
  return best;
}

int minimax(const Position& p) { return minimax_outcome(p).first; }

// `p` played on with random legal moves until `plies` plies are left (or the game ends first).
Position played_randomly_to(Position p, int plies, Rng& rng) {
  while (plies_left(p) > plies && !p.is_terminal()) {
    const Bitboard legal = p.legal_moves();
    p.play_unchecked(legal.select(static_cast<int>(rng.below(static_cast<uint32_t>(legal.count())))));
  }
  return p;
}

// A random game's position `plies` from the end, with komi -4..4.
Position random_endgame(int plies, Rng& rng) {
  return played_randomly_to(Position(static_cast<int32_t>(rng.below(9)) - 4), plies, rng);
}

// The exact value of `move` at `p` for its mover: minus its child's, by `value_of` (minimax or a solve).
template <class ValueOf>
int value_after(const Position& p, int move, ValueOf value_of) {
  Position next = p;
  next.play_unchecked(move);
  return -value_of(next);
}

}  // namespace

TEST(search, solver_with_its_table_matches_plain_minimax) {
  Rng rng(2026);
  int decided = 0;
  for (int game = 0; game < 24; ++game) {
    // Komi on either side and 3 or 4 plies left, so the last move is Black's or White's.
    const Position p = random_endgame(3 + game % 2, rng);
    if (p.is_terminal()) continue;
    Solver solver;  // one table for the position and all its children, as the endgame choice uses it
    int value = 9;
    CHECK(solver.solve(p, &value));
    CHECK_EQ(value, minimax(p));
    for (Bitboard legal = p.legal_moves(); legal.any();) {
      Position next = p;
      next.play_unchecked(legal.pop_lowest());
      int child = 9;
      CHECK(solver.solve(next, &child));
      CHECK_EQ(child, minimax(next));
    }
    decided += value != 0;
    // The full-window search: the same result, and the best margin that keeps it.
    Solver fresh;
    ExactOutcome outcome;
    CHECK(fresh.solve_outcome(p, &outcome));
    CHECK_EQ(outcome.value, value);
    CHECK_EQ(outcome.margin, minimax_outcome(p).second);
    CHECK(solver.solve_outcome(p, &outcome));  // after the probes' bounds in the table
    CHECK_EQ(outcome.margin, minimax_outcome(p).second);
  }
  CHECK(decided > 0);
}

SLOW_TEST(search, the_endgame_choice_keeps_the_exact_value_and_the_searchs_move_when_it_can) {
  // Random positions 2-4 plies from the end: the move played has the best
  // exact result, and is the search's own choice whenever that has it. Every
  // way the probes can settle the root is met: a root won, drawn or lost, its
  // value kept by the search's choice or not.
  Rng rng(31);
  std::map<std::pair<int, bool>, int> seen;  // (root value, the search's choice keeps it) -> positions
  for (int tried = 0; tried < 2000 && seen.size() < 5; ++tried) {
    const Position p = random_endgame(2 + tried % 3, rng);
    if (p.is_terminal()) continue;
    const auto exact_after = [&](int move) { return value_after(p, move, minimax); };
    int best = -1;
    for (Bitboard legal = p.legal_moves(); legal.any();) best = std::max(best, exact_after(legal.pop_lowest()));
    const EndgameChoices choices = endgame_choices(p, tried, 12);
    CHECK_EQ(exact_after(choices.played), best);
    const bool keeps = exact_after(choices.own) == best;
    if (keeps) CHECK_EQ(choices.played, choices.own);
    CHECK_EQ(exact_after(choices.sampled), best);  // sampled, as self-play does
    ++seen[{best, keeps || best < 0}];
  }
  CHECK_EQ(static_cast<int>(seen.size()), 5);  // won/drawn, kept or not; lost (always kept)
}

TEST(search, a_short_endgame_budget_never_plays_worse_than_the_searchs_choice) {
  // Positions 3-6 plies from the end, budgets from one position up: the move
  // played is never worse than the search's own choice (a move replaces it
  // only when proven better), and the budgets still find better moves.
  Rng rng(43);
  int improved = 0;
  for (int tried = 0; tried < 60; ++tried) {
    const Position p = random_endgame(3 + tried % 4, rng);
    if (p.is_terminal()) continue;
    // The solver, held to minimax by solver_test (minimax itself takes minutes at six plies).
    const auto exact_after = [&](int move) {
      return value_after(p, move, [](const Position& q) { return solve(q, 6); });
    };
    for (int max_nodes : {1, 30, 300, 3000}) {
      const EndgameChoices choices = endgame_choices(p, tried, 12, max_nodes);
      const int played = exact_after(choices.played), own = exact_after(choices.own);
      CHECK(played >= own);
      improved += played > own;
    }
  }
  CHECK(improved > 0);
}

TEST(search, leaves_near_the_end_are_solved_not_evaluated) {
  // Five plies left: with leaf solving every child of the root is a solved
  // terminal node after one visit each, its value and score exact, and no
  // leaf below the root needs the network.
  Rng rng(7);
  const Position p = played_randomly_to(Position(-2), 5, rng);
  CHECK_EQ(plies_left(p), 5);
  SearchParams params;
  params.leaf_solve_plies = 4;
  params.endgame_solve_plies = 0;
  SearchTree tree(params, 5);
  tree.reset(p);
  int evaluations = 0;
  const auto counting = [&](const Position& q, Rng& r, Evaluation* out) {
    ++evaluations;
    uniform_evaluation(q, r, out);
  };
  search_serial(tree, 400, counting);
  CHECK_EQ(evaluations, 1);  // the root alone
  for (const MoveStats& m : tree.move_stats(1)) {
    Position next = p;
    next.play_unchecked(m.move);
    const auto [value, margin] = minimax_outcome(next);
    CHECK_EQ(m.value, -value);
    CHECK_EQ(m.score, -margin);
  }
  // The best exact move is the most visited, and a solved child that becomes
  // the root is expanded again to have moves of its own.
  const int best = tree.move_stats(1)[0].move;
  tree.advance(best);
  search_serial(tree, 50, counting);
  CHECK_EQ(evaluations, 2);
  Position after = p;
  after.play_unchecked(best);
  CHECK_EQ(static_cast<int>(tree.move_stats(1).size()), after.legal_moves().count());
}

TEST(search, leaf_solves_of_one_root_share_a_budget) {
  // Twelve plies left and every leaf within reach of the solver: each leaf
  // may spend leaf_solve_max_nodes, but all of one root's leaves together no
  // more than leaf_solve_move_nodes; past it the leaves go to the network.
  // A new root (a move, or a jump) starts a budget of its own.
  Rng rng(5);
  const Position p = played_randomly_to(Position(-2), 12, rng);
  SearchParams params;
  params.leaf_solve_plies = MAX_GAME_PLIES;
  params.leaf_solve_max_nodes = 5000;
  params.leaf_solve_move_nodes = 20000;
  params.endgame_solve_plies = 0;
  constexpr uint64_t OVERSHOOT = 2 * NUM_SQUARES;  // the last solve's children before it stops
  int evaluations = 0;
  const auto counting = [&](const Position& q, Rng& r, Evaluation* out) {
    ++evaluations;
    uniform_evaluation(q, r, out);
  };
  SearchTree tree(params, 3);
  tree.reset(p);
  search_serial(tree, 300, counting);
  CHECK(tree.leaf_solve_nodes() > 0);
  CHECK(tree.leaf_solve_nodes() <= 20000 + OVERSHOOT);
  CHECK(evaluations > 1);  // leaves past the budget were evaluated
  const int best = tree.move_stats(1)[0].move;
  tree.advance(best);
  CHECK_EQ(tree.leaf_solve_nodes(), 0u);
  search_serial(tree, 100, counting);
  CHECK(tree.leaf_solve_nodes() <= 20000 + OVERSHOOT);
  tree.reset(p);
  CHECK_EQ(tree.leaf_solve_nodes(), 0u);
  // A generous budget solves more of the same root's leaves.
  params.leaf_solve_move_nodes = 500000000;
  SearchTree generous(params, 3);
  generous.reset(p);
  search_serial(generous, 300, uniform_evaluation);
  CHECK(generous.leaf_solve_nodes() > 20000 + OVERSHOOT);
}

TEST(search, endgame_solving_gives_up_on_a_position_too_big_to_solve) {
  // Six plies left on an empty board: far past the budget, so the search's
  // choice stands, and quickly.
  const Position open = Position::from_parts(Bitboard(), Bitboard(), Bitboard(), Bitboard(), BLACK, 3, 3, 0);
  Solver small_budget(1000);
  int value = 7;
  CHECK(!small_budget.solve(open, &value));
  CHECK_EQ(value, 7);
  CHECK(small_budget.nodes() > 1000);
  SearchParams params;
  params.endgame_solve_plies = 6;
  params.endgame_solve_max_nodes = 100000;
  SearchParams no_solving;
  no_solving.endgame_solve_plies = 0;
  SearchTree solved(params, 3), plain(no_solving, 3);
  solved.reset(open);
  plain.reset(open);
  search_serial(solved, 30, uniform_evaluation);
  search_serial(plain, 30, uniform_evaluation);
  CHECK_EQ(solved.choose_move(0), plain.choose_move(0));
}

TEST(search, settings_out_of_range_are_refused) {
  validate(SearchParams());  // the defaults are in range
  SearchParams negative_budget;
  negative_budget.endgame_solve_max_nodes = -5;
  CHECK_THROWS(SearchTree(negative_budget, 1), std::invalid_argument);
  SearchParams not_a_number;
  not_a_number.c_puct = std::nan("");
  CHECK_THROWS(validate(not_a_number), std::invalid_argument);
  SearchParams no_leaves;
  no_leaves.leaves_per_game = 0;
  CHECK_THROWS(MultiSearch(2, no_leaves, nullptr, 1, 1), std::invalid_argument);
  SearchParams edge;  // inclusive bounds
  edge.dirichlet_epsilon = 1;
  edge.lcb_selection_share = 0;
  validate(edge);
}

// Every field at its upper bound (or lower with `lowest`), through the X-macro
// so a new field is covered without touching this test.
SearchParams at_bounds(bool lowest) {
  SearchParams params;
#define POPUCOM_AT_BOUND(type, name, value, low, high, doc) params.name = static_cast<type>(lowest ? low : high);
  POPUCOM_SEARCH_PARAMS(POPUCOM_AT_BOUND)
#undef POPUCOM_AT_BOUND
  return params;
}

// A network as hostile as check_outputs lets through: all the prior on one
// square (often illegal), a sure result and the largest score, alternating.
void hostile_evaluation(const Position& p, Rng& rng, Evaluation* out) {
  out->prior_q.fill(0);
  out->prior_q[rng.below(NUM_SQUARES)] = static_cast<uint16_t>(Evaluation::PRIOR_SCALE);
  const bool win = rng.below(2) == 0;
  out->wdl[0] = win ? 1.0f : 0.0f;
  out->wdl[1] = 0;
  out->wdl[2] = win ? 0.0f : 1.0f;
  out->score = win ? NUM_SQUARES : -NUM_SQUARES;
  out->value_error = rng.below(2) == 0 ? 0.0f : 4.0f;
  (void)p;
}

void search_to_the_end(const SearchParams& params, Position p, int visits, uint64_t seed) {
  SearchTree tree(params, seed);
  tree.reset(p);
  while (!p.is_terminal()) {
    search_serial(tree, visits, hostile_evaluation);
    CHECK_EQ(tree.total_in_flight(), 0u);
    const int move = tree.choose_move(0);
    CHECK(p.is_legal(move));
    p.play_unchecked(move);
    tree.advance(move);
  }
}

TEST(search, settings_at_their_bounds_search_to_the_end) {
  // Each setting's range is one inside which the search stays correct: at the
  // ends (all at once, and the combinations that used to overflow a score into
  // NaN or -inf), a search against a hostile network plays legal moves to the
  // end. The node budgets at their tops would take seconds per solve from the
  // opening, so there they start a few plies from the end.
  validate(at_bounds(true));
  validate(at_bounds(false));
  Rng rng(11);
  SearchParams lowest = at_bounds(true);
  search_to_the_end(lowest, Position(), 8, 1);
  SearchParams highest = at_bounds(false);
  highest.endgame_solve_max_nodes = 2000;
  highest.leaf_solve_max_nodes = 200;
  highest.leaves_per_game = 1;
  search_to_the_end(highest, Position(), 24, 2);
  highest.uncertainty_weighting = false;
  search_to_the_end(highest, played_randomly_to(Position(), 12, rng), 24, 3);
  search_to_the_end(at_bounds(false), played_randomly_to(Position(), 6, rng), 24, 4);
  SearchParams mixed;  // huge exploration and reductions, one leaf at a time, leaf solving
  mixed.c_puct = mixed.fpu_reduction = mixed.root_fpu_reduction = mixed.lcb_stdevs = mixed.virtual_loss = 1e3;
  mixed.score_utility_weight = 1e3;
  mixed.leaves_per_game = 1;
  mixed.leaf_solve_plies = 4;
  search_to_the_end(mixed, Position(), 32, 5);
  // The same through the batched search, whose leaves wait under virtual loss.
  highest = at_bounds(false);
  highest.endgame_solve_max_nodes = 2000;
  highest.leaf_solve_max_nodes = 200;
  highest.leaves_per_game = 64;
  const MultiRun run = run_multi_search(highest, 3, 64, 1, false, 6, true);
  CHECK_EQ(run.leftover_in_flight, 0u);
  for (int move : run.chosen) CHECK(move >= 0 && move < NUM_SQUARES);
}

TEST(search, bots_play_legal_moves_and_uct_beats_random) {
  int uct_wins = 0, greedy_wins = 0;
  for (int game = 0; game < 20; ++game) {
    for (const char* strong : {"uct:300", "greedy"}) {
      auto a = make_bot(strong, 100 + game), b = make_bot("random", 200 + game);
      const bool strong_is_black = game % 2 == 0;
      Position p;
      while (!p.is_terminal()) {
        Bot& bot = (p.to_move() == BLACK) == strong_is_black ? *a : *b;
        const int move = bot.select_move(p);
        CHECK(p.is_legal(move));
        p.play_unchecked(move);
      }
      const bool black_won = p.result() == Result::BLACK_WIN, white_won = p.result() == Result::WHITE_WIN;
      if ((strong_is_black && black_won) || (!strong_is_black && white_won))
        (std::string(strong) == "greedy" ? greedy_wins : uct_wins) += 1;
    }
  }
  CHECK(uct_wins >= 18);
  CHECK(greedy_wins >= 16);
  CHECK_THROWS(make_bot("uct:x", 1), std::invalid_argument);
  CHECK_THROWS(make_bot("minimax", 1), std::invalid_argument);
}

TEST(search, threaded_search_matches_serial_under_load) {
  // Many games over 4 threads (the ThreadSanitizer build runs this too).
  uint64_t in_flight = 1;
  const auto serial = run_multi(64, 200, 1, false, 21, &in_flight);
  CHECK(same_stats(serial, run_multi(64, 200, 4, false, 21, &in_flight)));
  CHECK_EQ(in_flight, 0u);
}

TEST(search, root_noise_belongs_to_one_search) {
  SearchParams params;
  SearchTree tree(params, 3);
  tree.reset(Position());
  search_serial(tree, 50, uniform_evaluation);
  const auto raw = tree.move_stats(1);
  tree.set_root_mode(RootMode{true, true, false});
  CHECK(tree.root_noise_applied());
  const auto noisy = tree.move_stats(1);
  bool changed = false;
  for (size_t i = 0; i < raw.size(); ++i) changed |= std::abs(raw[i].prior - noisy[i].prior) > 1e-6;
  CHECK(changed);
  tree.set_root_mode(RootMode{});  // a fast search: the exact raw priors come back
  CHECK(!tree.root_noise_applied());
  const auto restored = tree.move_stats(1);
  for (size_t i = 0; i < raw.size(); ++i) CHECK_EQ(raw[i].prior, restored[i].prior);
  tree.set_root_mode(RootMode{true, false, false});
  tree.advance(tree.choose_move(0));
  CHECK(!tree.root_mode().noise);  // the next search starts from the defaults
  CHECK(!tree.root_noise_applied());
}

TEST(search, gumbel_root_search_finds_the_only_winning_move) {
  // Every legal move takes part (with uniform priors and m = 16 of ~70 moves,
  // Gumbel-Top-k would leave out c5 most of the time, by design).
  SearchParams params;
  params.gumbel_actions = NUM_SQUARES;
  SearchTree tree(params, 11);
  tree.reset(endgame());
  tree.set_root_mode(RootMode{false, false, true});
  tree.set_visit_target(400);
  search_serial(tree, 400, exact_evaluation);
  CHECK_EQ(tree.choose_move(1.0), parse_square("c5"));
  const auto target = tree.policy_target();
  const int best = static_cast<int>(std::max_element(target.begin(), target.end()) - target.begin());
  CHECK_EQ(best, parse_square("c5"));
  double total = 0;
  for (float t : target) total += t;
  CHECK(std::abs(total - 1.0) < 1e-5);
  CHECK_EQ(tree.total_in_flight(), 0u);
}

TEST(search, pruned_target_never_adds_visits) {
  SearchParams params;
  params.forced_playouts_k = 2.0;
  SearchTree tree(params, 5);
  tree.reset(Position());
  tree.set_root_mode(RootMode{true, true, false});
  search_serial(tree, 300, uniform_evaluation);
  const auto stats = tree.move_stats(1);
  const auto target = tree.policy_target();
  const double best_share = target[stats[0].move] / static_cast<double>(stats[0].visits);
  for (const MoveStats& m : stats) CHECK(target[m.move] <= best_share * m.visits + 1e-6);
}

namespace {

// Every statistic of two runs the same, bit for bit.
bool identical_runs(const MultiRun& a, const MultiRun& b) {
  if (a.chosen != b.chosen || a.roots.size() != b.roots.size() || !same_stats(a.moves, b.moves)) return false;
  for (size_t g = 0; g < a.roots.size(); ++g) {
    const RootStats &r = a.roots[g], &s = b.roots[g];
    if (r.visits != s.visits || r.weight != s.weight || r.utility != s.utility || r.value != s.value ||
        r.score != s.score)
      return false;
    for (size_t i = 0; i < a.moves[g].size(); ++i) {
      const MoveStats &m = a.moves[g][i], &n = b.moves[g][i];
      if (m.weight != n.weight || m.value != n.value || m.score != n.score || m.lcb != n.lcb) return false;
    }
  }
  return true;
}

// Sets an evaluation's value (win - loss, no draws) and a score of four times it.
void set_value(Evaluation* out, float value) {
  out->wdl[0] = (1 + value) / 2;
  out->wdl[1] = 0;
  out->wdl[2] = (1 - value) / 2;
  out->score = 4 * value;
}

}  // namespace

TEST(search, weighted_playouts_pull_the_mean_toward_the_confident_evaluation) {
  // The root's own evaluation, then two children whose values (for their
  // side to move) are opposite: one near certain, one vague. The root's
  // means are the weighted means of the three backups, w = 1 / (value_error + floor).
  const float values[3] = {0.25f, 0.5f, -0.5f}, errors[3] = {0.25f, 0.01f, 1.0f};
  for (const bool weighted : {false, true}) {
    SearchParams params;
    params.uncertainty_weighting = weighted;
    params.uncertainty_floor = 0.05;
    SearchTree tree(params, 1);
    tree.reset(Position());
    int calls = 0;
    search_serial(tree, 3, [&](const Position& p, Rng& rng, Evaluation* out) {
      uniform_evaluation(p, rng, out);
      set_value(out, values[calls]);
      out->value_error = errors[calls++];
    });
    CHECK_EQ(calls, 3);
    double w[3];
    for (int i = 0; i < 3; ++i) w[i] = weighted ? 1.0 / (static_cast<double>(errors[i]) + 0.05) : 1.0;
    // The children's values count against the root's side to move.
    const double weight = w[0] + w[1] + w[2];
    const double value = (w[0] * values[0] - w[1] * values[1] - w[2] * values[2]) / weight;
    const RootStats root = tree.root_stats();
    CHECK_EQ(root.visits, 3u);
    CHECK(std::abs(root.weight - weight) < 1e-12);
    CHECK(std::abs(root.value - value) < 1e-12);
    CHECK(std::abs(root.utility - value) < 1e-12);  // no score term in the utility
    CHECK(std::abs(root.score - 4 * value) < 1e-12);
    if (weighted) {
      CHECK(std::abs(value - -0.3352) < 1e-4);  // toward the confident child's -0.5 ...
    } else {
      CHECK_EQ(root.value, 0.25 / 3);  // ... from the plain mean
    }
    // Each child keeps its own weight; the visit counts stay whole playouts.
    int seen = 0;
    for (const MoveStats& m : tree.move_stats(1)) {
      if (m.visits == 0) continue;
      CHECK_EQ(m.visits, 1u);
      const int i = m.value < 0 ? 1 : 2;
      CHECK_EQ(m.value, -static_cast<double>(values[i]));
      CHECK(std::abs(m.weight - w[i]) < 1e-12);
      seen |= 1 << i;
    }
    CHECK_EQ(seen, 6);
  }
}

TEST(search, weighting_without_value_errors_searches_exactly_as_without_weighting) {
  // A model without the head (every value_error absent) weighs each playout
  // 1: the same trees, bit for bit, as long as no exact leaf is met (those
  // weigh 1 / floor). With weighting off, value_errors fed in change nothing.
  SearchParams off = multi_params(), on = multi_params();
  on.uncertainty_weighting = true;
  const MultiRun plain = run_multi_search(off, 8, 150, 2, false, 5);
  CHECK_EQ(plain.terminals, 0u);
  CHECK(identical_runs(plain, run_multi_search(on, 8, 150, 2, false, 5)));
  CHECK(identical_runs(plain, run_multi_search(off, 8, 150, 1, true, 5, true)));
  for (const RootStats& r : plain.roots) CHECK_EQ(r.weight, static_cast<double>(r.visits));
  // The value errors do change the weighted search, and it stays consistent.
  const MultiRun weighted = run_multi_search(on, 8, 150, 2, true, 5, true);
  CHECK(!identical_runs(plain, weighted));
  CHECK_EQ(weighted.leftover_in_flight, 0u);
  for (size_t g = 0; g < weighted.roots.size(); ++g) {
    CHECK(weighted.roots[g].visits >= 150u);
    CHECK(weighted.roots[g].weight > weighted.roots[g].visits);  // value_error < 0.52: every weight above 1.9
    double total = 0;
    for (const MoveStats& m : weighted.moves[g]) total += m.weight;
    CHECK(total < weighted.roots[g].weight);  // the root's own evaluation is in the root's sum alone
  }
}

TEST(search, exact_leaves_back_up_with_the_largest_weight) {
  SearchParams params;
  params.uncertainty_weighting = true;
  params.uncertainty_floor = 0.05;
  params.endgame_solve_plies = 0;
  const double exact = 1.0 / params.uncertainty_floor;
  // White's last move: every child of the root is a terminal position.
  Position last = endgame();
  last.play_unchecked(parse_square("e5"));
  SearchTree tree(params, 2);
  tree.reset(last);
  const float root_error = 0.45f, root_value = 0.25f;
  search_serial(tree, 40, [&](const Position& p, Rng& rng, Evaluation* out) {
    uniform_evaluation(p, rng, out);
    set_value(out, root_value);
    out->value_error = root_error;
  });
  const double root_weight = 1.0 / (static_cast<double>(root_error) + params.uncertainty_floor);
  double weight = root_weight, value_sum = root_weight * root_value;
  for (const MoveStats& m : tree.move_stats(1)) {
    if (m.visits == 0) continue;
    CHECK_EQ(m.weight, m.visits * exact);
    weight += m.weight;
    value_sum += m.weight * m.value;  // move stats are from the root's side already
  }
  const RootStats root = tree.root_stats();
  CHECK_EQ(root.visits, 40u);
  CHECK(std::abs(root.weight - (root_weight + 39 * exact)) < 1e-9);
  CHECK(std::abs(root.weight - weight) < 1e-9);
  CHECK(std::abs(root.value - value_sum / weight) < 1e-12);
  // Leaves solved exactly (leaf_solve_plies) weigh as much; a model without
  // the head weighs its root evaluation 1.
  Rng rng(7);
  const Position p = played_randomly_to(Position(-2), 5, rng);
  params.leaf_solve_plies = 4;
  SearchTree solved(params, 5);
  solved.reset(p);
  search_serial(solved, 200, uniform_evaluation);
  CHECK_EQ(solved.root_stats().weight, 1 + 199 * exact);
  for (const MoveStats& m : solved.move_stats(1)) CHECK_EQ(m.weight, m.visits * exact);
}

TEST(search, a_negative_or_nan_value_error_is_refused_before_any_tree_changes) {
  SearchParams params = multi_params();
  params.uncertainty_weighting = true;
  MultiSearch ms(2, params, nullptr, 1, 3);
  ms.set_visit_targets(20);
  std::vector<float> input(static_cast<size_t>(ms.max_batch()) * features::FLOATS_PER_POSITION);
  std::vector<float> logits(static_cast<size_t>(ms.max_batch()) * NUM_SQUARES, 0), wdl(3 * ms.max_batch(), 1.0f / 3),
      score(ms.max_batch(), 0);
  CHECK_EQ(ms.gather(input.data(), ms.max_batch()), 2);  // the two roots
  ms.backup(logits.data(), wdl.data(), score.data(), nullptr, 2);
  const int n = ms.gather(input.data(), ms.max_batch());
  CHECK(n >= 3);
  const uint64_t in_flight = ms.total_in_flight();
  const RootStats before = ms.tree(0).root_stats();
  for (const float bad : {-0.5f, std::nanf(""), -INFINITY, INFINITY}) {
    std::vector<float> error(n, 0.1f);
    error[2] = bad;
    std::string message;
    try {
      ms.backup(logits.data(), wdl.data(), score.data(), error.data(), n);
    } catch (const std::invalid_argument& e) { message = e.what(); }
    CHECK(message.find("value_error for slot 2 is") != std::string::npos);
    CHECK_EQ(ms.pending(), n);
    CHECK_EQ(ms.total_in_flight(), in_flight);
    CHECK_EQ(ms.tree(0).root_visits(), before.visits);
    CHECK_EQ(ms.tree(0).root_stats().weight, before.weight);
  }
  std::vector<float> error(n, 0.0f);  // a sure evaluation is fine: weight 1 / floor
  ms.backup(logits.data(), wdl.data(), score.data(), error.data(), n);
  CHECK_EQ(ms.pending(), 0);
  CHECK_EQ(ms.total_in_flight(), 0u);
  const RootStats after = ms.tree(0).root_stats();
  CHECK_EQ(after.weight, before.weight + (after.visits - before.visits) * (1.0 / params.uncertainty_floor));
}

namespace {

// A random game's unfinished position `plies` from the end.
Position unfinished_endgame(int plies, Rng& rng) {
  for (;;)
    if (const Position p = random_endgame(plies, rng); !p.is_terminal()) return p;
}

int best_exact_value(const Position& p) { return solve(p, MAX_GAME_PLIES); }
int exact_value_of(const Position& p, int move) {
  return value_after(p, move, [](const Position& next) { return solve(next, MAX_GAME_PLIES); });
}

}  // namespace

TEST(search, a_table_kept_across_the_game_plays_exactly_as_one_table_a_move) {
  // Two sessions follow the same games from 10 plies out (a few visits a
  // move, the same seed): one keeps its solver table across moves, one solves
  // each move afresh. Both play a move with the best exact value at every
  // position within the horizon; the kept table asks the solver for less;
  // a jump (reset) empties it.
  Rng rng(41);
  SearchParams params;
  params.endgame_solve_plies = 8;
  params.endgame_try_plies = 0;
  uint64_t kept_nodes = 0, fresh_nodes = 0;
  for (int game = 0; game < 3; ++game) {
    const Position start = unfinished_endgame(10, rng);
    SearchTree kept(params, 5), fresh(params, 5);
    kept.keep_endgame_table(size_t{8} << 20);
    kept.reset(start);
    fresh.reset(start);
    while (!kept.root_is_terminal()) {
      const Position& p = kept.root_position();
      search_serial(kept, 12, uniform_evaluation);
      search_serial(fresh, 12, uniform_evaluation);
      const int move = kept.choose_move(0), fresh_move = fresh.choose_move(0);
      if (plies_left(p) <= params.endgame_solve_plies) {
        CHECK_EQ(exact_value_of(p, move), best_exact_value(p));
        CHECK_EQ(exact_value_of(p, fresh_move), best_exact_value(p));
      }
      kept.advance(move);
      fresh.advance(move);
    }
    CHECK(kept.endgame_table_bytes() > 0);
    CHECK(kept.endgame_table_bytes() <= size_t{8} << 20);
    kept_nodes += kept.endgame_nodes();
    fresh_nodes += fresh.endgame_nodes();
    kept.reset(start);  // a jump: the table is emptied, its memory given back
    CHECK_EQ(kept.endgame_table_bytes(), size_t{0});
  }
  CHECK(kept_nodes < fresh_nodes);
}

TEST(search, an_endgame_try_past_its_time_keeps_the_searched_choice_and_is_not_retried) {
  // Twenty plies left: no try finishes in a millisecond, so the search's own
  // choice stands, and asking again at the same root solves nothing more.
  Rng rng(42);
  const Position p = unfinished_endgame(20, rng);
  SearchParams params;
  params.endgame_solve_plies = 6;
  params.endgame_try_plies = 20;
  params.endgame_try_seconds = 0.001;
  SearchParams plain_params = params;
  plain_params.endgame_try_plies = 0;
  SearchTree tried(params, 7), plain(plain_params, 7);
  tried.keep_endgame_table(size_t{1} << 20);  // a session's tree: the tries are its own
  plain.keep_endgame_table(size_t{1} << 20);
  tried.reset(p);
  plain.reset(p);
  search_serial(tried, 40, uniform_evaluation);
  search_serial(plain, 40, uniform_evaluation);
  CHECK_EQ(tried.choose_move(0), plain.choose_move(0));
  const uint64_t nodes = tried.endgame_nodes();
  CHECK_EQ(tried.choose_move(0), plain.choose_move(0));
  CHECK_EQ(tried.endgame_nodes(), nodes);
  CHECK_EQ(plain.endgame_nodes(), uint64_t{0});
}

TEST(search, an_endgame_try_with_time_plays_the_best_exact_move) {
  // Within the try's horizon and time, a session's tree solves a short
  // position as within endgame_solve_plies; a tree of batched play does not try.
  Rng rng(43);
  for (int i = 0; i < 4; ++i) {
    const Position p = unfinished_endgame(5, rng);
    SearchParams params;
    params.endgame_solve_plies = 1;
    params.endgame_try_plies = 5;
    params.endgame_try_seconds = 30;
    SearchTree tree(params, 9), batched(params, 9);
    tree.keep_endgame_table(size_t{1} << 20);
    tree.reset(p);
    batched.reset(p);
    search_serial(tree, 6, uniform_evaluation);
    search_serial(batched, 6, uniform_evaluation);
    CHECK_EQ(exact_value_of(p, tree.choose_move(0)), best_exact_value(p));
    batched.choose_move(0);
    CHECK_EQ(batched.endgame_nodes(), uint64_t{0});  // no table kept, no session: no try
  }
}

TEST(search, proofs_backed_up_in_the_tree_are_the_solvers_values) {
  // Short endgames searched with a clueless evaluator until the tree holds
  // proofs: every root move it proves has the solver's value and, when all
  // its replies were proven, the solver's margin; a proven win is played even
  // without the endgame solve; after a move the kept proofs still hold.
  Rng rng(44);
  int proven_moves = 0, wins_played = 0;
  for (int game = 0; game < 12; ++game) {
    const Position p = unfinished_endgame(3 + game % 3, rng);
    SearchParams params;
    params.endgame_solve_plies = 0;
    SearchTree tree(params, 11);
    tree.reset(p);
    for (int moves = 0; moves < 2 && !tree.root_is_terminal(); ++moves) {
      const Position& root = tree.root_position();
      search_serial(tree, 3000, uniform_evaluation);
      bool a_win = false;
      for (const MoveStats& m : tree.move_stats(1)) {
        if (!m.proven) continue;
        ++proven_moves;
        Position next = root;
        next.play_unchecked(m.move);
        CHECK_EQ(m.exact_value, -solve(next, MAX_GAME_PLIES));
        a_win |= m.exact_value > 0;
      }
      const int move = tree.choose_move(0);
      if (a_win) {
        CHECK_EQ(exact_value_of(root, move), 1);
        ++wins_played;
      }
      tree.advance(move);
    }
  }
  CHECK(proven_moves > 50 && wins_played > 2);
}

TEST(search, a_proven_loss_is_not_searched_while_a_move_is_open) {
  // Black's last move (endgame()): every move but c5 loses, proven so once
  // White's winning reply (the game's end) is visited. With proofs the visits
  // go to the move still open; without them PUCT keeps sampling the lost
  // moves, which a network that has it backwards makes look won.
  SearchParams params;
  params.endgame_solve_plies = 0;
  SearchParams off = params;
  off.proven_backup = false;
  SearchTree proving(params, 3), plain(off, 3);
  proving.reset(endgame());
  plain.reset(endgame());
  // A network that gets every position backwards: the lost moves look won.
  const auto backwards = [](const Position& p, Rng& rng, Evaluation* out) {
    exact_evaluation(p, rng, out);
    std::swap(out->wdl[0], out->wdl[2]);
  };
  search_serial(proving, 400, backwards);
  search_serial(plain, 400, backwards);
  const int c5 = parse_square("c5");
  uint32_t lost_visits = 0, plain_lost_visits = 0;
  int proven_losses = 0;
  for (const MoveStats& m : proving.move_stats(1)) {
    if (m.move != c5 && m.proven) CHECK_EQ(m.exact_value, -1);
    proven_losses += m.move != c5 && m.proven;
    if (m.move != c5) lost_visits += m.visits;
  }
  for (const MoveStats& m : plain.move_stats(1)) {
    CHECK(!m.proven);
    if (m.move != c5) plain_lost_visits += m.visits;
  }
  CHECK(proven_losses > 40);
  CHECK(lost_visits < plain_lost_visits);
  CHECK_EQ(proving.choose_move(0), c5);
}
