// The search settings fuzzer, native: the same kinds of draws as
// tests/search/test_settings_fuzz.py, here so that the sanitizer builds run
// them (CI's ASan + UBSan ctest). Each example draws every SearchParams field
// straight from the X-macro's bounds (at its default, at an end, one step
// inside one, or anywhere inside, uniform or on a log scale), or several
// fields at their ends at once, or every field at one end; a hostile but
// finite network (all the prior on one square, every logit at the float
// extremes, sure or split results, the largest scores, value errors from 0 to
// the float maximum); a position from a random game or one with one or two
// legal moves. It searches through the serial tree (the root modes drawn,
// sometimes with a kept endgame table) and through the batched search of the
// arena and self-play. Whatever is drawn, the settings validate, no leaf is
// left in flight, the move played is legal, every statistic is finite and in
// its range, and the tree goes on after the move. A deadline bounds each
// example's solves (the node budgets at their tops would take seconds).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "../core/deadline.h"
#include "../eval/features.h"
#include "../tests/testing.h"
#include "bots.h"
#include "multi_search.h"

using namespace popucom;

namespace {

enum class Pick { DEFAULT, END, NEAR_END, INSIDE };

double drawn(double value, double lowest, double highest, Pick pick, Rng& rng) {
  switch (pick) {
    case Pick::DEFAULT: return value;
    case Pick::END: return rng.below(2) ? highest : lowest;
    case Pick::NEAR_END: return rng.below(2) ? std::nextafter(highest, lowest) : std::nextafter(lowest, highest);
    case Pick::INSIDE: break;
  }
  if (rng.below(2)) return lowest + rng.uniform() * (highest - lowest);
  // A uniform draw over [0, 1e3] is rarely tiny: a log-scale one gives small magnitudes their share.
  const double low = std::max(lowest, DBL_MIN);
  if (highest <= low) return highest;
  const double x = std::exp(std::log(low) + rng.uniform() * (std::log(highest) - std::log(low)));
  return std::clamp(x, low, highest);
}

int drawn(int value, int lowest, int highest, Pick pick, Rng& rng) {
  switch (pick) {
    case Pick::DEFAULT: return value;
    case Pick::END: return rng.below(2) ? highest : lowest;
    case Pick::NEAR_END: return rng.below(2) ? std::max(highest - 1, lowest) : std::min(lowest + 1, highest);
    case Pick::INSIDE: break;
  }
  return lowest + static_cast<int>(rng.below(static_cast<uint32_t>(highest - lowest) + 1));
}

bool drawn(bool value, bool, bool, Pick pick, Rng& rng) { return pick == Pick::DEFAULT ? value : rng.below(2) == 1; }

constexpr int NUM_FIELDS = 0
#define POPUCOM_COUNT_FIELD(type, name, value, lowest, highest, doc) +1
    POPUCOM_SEARCH_PARAMS(POPUCOM_COUNT_FIELD)
#undef POPUCOM_COUNT_FIELD
    ;

enum class Style { EACH, SEVERAL_AT_ENDS, ALL_LOWEST, ALL_HIGHEST };

SearchParams drawn_settings(Rng& rng) {
  const auto style = static_cast<Style>(rng.below(4));
  std::vector<Pick> picks(NUM_FIELDS, Pick::DEFAULT);
  if (style == Style::EACH) {
    for (Pick& p : picks) p = static_cast<Pick>(rng.below(4));
  } else if (style == Style::SEVERAL_AT_ENDS) {
    for (int k = 2 + static_cast<int>(rng.below(7)); k > 0; --k) picks[rng.below(NUM_FIELDS)] = Pick::END;
  }
  SearchParams params;
  int field = 0;
#define POPUCOM_DRAW_FIELD(type, name, value, lowest, highest, doc)                                                \
  if (style == Style::ALL_LOWEST || style == Style::ALL_HIGHEST) {                                                 \
    params.name = static_cast<type>(style == Style::ALL_LOWEST ? (lowest) : (highest));                            \
  } else {                                                                                                         \
    params.name =                                                                                                  \
        drawn(static_cast<type>(value), static_cast<type>(lowest), static_cast<type>(highest), picks[field], rng); \
  }                                                                                                                \
  ++field;
  POPUCOM_SEARCH_PARAMS(POPUCOM_DRAW_FIELD)
#undef POPUCOM_DRAW_FIELD
  return params;
}

// --- a hostile but finite network -------------------------------------------------------------

// One output row's kinds, drawn once per example; each row draws among them.
struct Hostility {
  uint32_t logits, wdl, score, value_error;  // bit masks over the kinds below
};

Hostility drawn_hostility(Rng& rng) {
  const auto some = [&](int kinds) { return 1 + rng.below((1u << kinds) - 1); };
  return Hostility{some(5), some(6), some(4), some(5)};
}

int one_of(uint32_t mask, Rng& rng) {
  int kinds[32], n = 0;
  for (int k = 0; k < 32; ++k)
    if (mask >> k & 1) kinds[n++] = k;
  return kinds[rng.below(static_cast<uint32_t>(n))];
}

struct Row {
  float logits[NUM_SQUARES];
  float wdl[3];
  float score, value_error;
};

Row hostile_row(const Hostility& h, Rng& rng) {
  Row row{};
  const float sign = rng.below(2) ? 1.0f : -1.0f;
  switch (one_of(h.logits, rng)) {
    case 0:  // equal, at an extreme or not
      std::fill_n(row.logits, NUM_SQUARES, std::array<float, 4>{0.0f, FLT_MAX, -FLT_MAX, 1e30f}[rng.below(4)]);
      break;
    case 1:  // each at one float extreme or the other
      for (float& x : row.logits) x = rng.below(2) ? FLT_MAX : -FLT_MAX;
      break;
    case 2:  // subnormal
      for (float& x : row.logits) x = static_cast<float>(rng.uniform() - 0.5) * 1e-40f;
      break;
    case 3:  // all the prior on one square, often an illegal one
      std::fill_n(row.logits, NUM_SQUARES, -FLT_MAX);
      row.logits[rng.below(NUM_SQUARES)] = FLT_MAX;
      break;
    default:  // spread wide
      for (float& x : row.logits) x = static_cast<float>(rng.uniform() * 2e4 - 1e4);
  }
  static constexpr float WDL[6][3] = {{1, 0, 0},       {0, 1, 0},       {0, 0, 1},
                                      {0.5f, 0, 0.5f}, {1, 0, 0.0099f}, {0, 0, 0.9901f}};
  std::copy_n(WDL[one_of(h.wdl, rng)], 3, row.wdl);
  static constexpr float SCORES[4] = {0.0f, FLT_MAX, static_cast<float>(NUM_SQUARES), 1e-45f};
  row.score = sign * SCORES[one_of(h.score, rng)];
  static constexpr float ERRORS[5] = {-1.0f, 0.0f, FLT_MAX, 1e-45f, 1.0f};  // -1: a model without the head
  const int error = one_of(h.value_error, rng);
  row.value_error = error == 4 ? static_cast<float>(-std::log(1 - rng.uniform())) : ERRORS[error];
  return row;
}

// --- positions --------------------------------------------------------------------------------

// One or two squares open to the side to move, every other one painted the opponent's.
Position few_moves_position(Rng& rng) {
  Bitboard open;
  const int count = 1 + static_cast<int>(rng.below(2));
  while (open.count() < count) open.set(static_cast<int>(rng.below(NUM_SQUARES)));
  const Bitboard painted = ~open;
  const Color to_move = rng.below(2) ? BLACK : WHITE;
  const int left = 1 + static_cast<int>(rng.below(MOVES_PER_PLAYER));
  const auto komi = static_cast<int32_t>(rng.below(2 * NUM_SQUARES + 1)) - NUM_SQUARES;
  const Position p =
      to_move == BLACK ? Position::from_parts(Bitboard(), Bitboard(), Bitboard(), painted, BLACK, left, left, komi)
                       : Position::from_parts(Bitboard(), Bitboard(), painted, Bitboard(), WHITE, left - 1, left, komi);
  CHECK_EQ(p.legal_moves().count(), count);
  return p;
}

// A random game's position after up to MAX_GAME_PLIES - 1 plies (stopping before its end).
Position played_position(Rng& rng) {
  Position p(static_cast<int32_t>(rng.below(2 * NUM_SQUARES + 1)) - NUM_SQUARES);
  for (int plies = static_cast<int>(rng.below(MAX_GAME_PLIES)); plies > 0; --plies) {
    const Bitboard legal = p.legal_moves();
    Position next = p;
    next.play_unchecked(legal.select(static_cast<int>(rng.below(static_cast<uint32_t>(legal.count())))));
    if (next.is_terminal()) break;
    p = next;
  }
  return p;
}

// --- the checks -------------------------------------------------------------------------------

void check_statistics(const SearchTree& tree) {
  const SearchParams& params = tree.params();
  const double utility_bound = 1 + params.score_utility_weight + 1e-9;
  for (const MoveStats& m : tree.move_stats(8)) {
    CHECK(tree.root_position().is_legal(m.move));
    CHECK(std::isfinite(m.utility) && std::abs(m.utility) <= utility_bound);
    CHECK(std::isfinite(m.value) && std::abs(m.value) <= 1 + 1e-9);
    CHECK(std::isfinite(m.score));
    CHECK(std::isfinite(m.weight) && m.weight >= 0);
    CHECK(m.prior >= 0 && m.prior <= 1 + 1e-6);
    CHECK(!std::isnan(m.lcb));
    for (int move : m.pv) CHECK(move >= 0 && move < NUM_SQUARES);
  }
  const RootStats root = tree.root_stats();
  CHECK(std::isfinite(root.utility) && std::isfinite(root.value) && std::isfinite(root.score));
}

// Plays the chosen move (legal) into the tree; false when the game has ended.
bool play_chosen(SearchTree& tree, Rng& rng) {
  CHECK_EQ(tree.total_in_flight(), 0u);
  if (tree.root_position().is_terminal()) return false;
  check_statistics(tree);
  const int move = tree.choose_move(rng.below(2) ? 0.0 : 1.0);
  CHECK(tree.root_position().is_legal(move));
  tree.advance(move);
  return !tree.root_position().is_terminal();
}

constexpr double SOLVE_SECONDS = 0.2;  // what an example's solves may take in all, per search

void serial_example(const SearchParams& params, const Position& start, const Hostility& h, Rng& rng) {
  SearchTree tree(params, rng.next());
  Deadline deadline;
  tree.set_deadline(&deadline);
  if (rng.below(2)) tree.keep_endgame_table(size_t{1} << 20);
  tree.reset(start);
  const auto hostile = [&](const Position& p, Rng& r, Evaluation* out) {
    const Row row = hostile_row(h, r);
    CHECK(make_evaluation(p, row.logits, row.wdl, row.score, out, row.value_error));
  };
  const int visits = std::array<int, 4>{1, 2, 8, 32}[rng.below(4)];
  for (int search = 0; search < 2; ++search) {
    tree.set_root_mode(RootMode{rng.below(2) == 1, rng.below(2) == 1, rng.below(2) == 1});
    tree.set_visit_target(tree.root_visits() + visits);
    deadline.set_from_now(SOLVE_SECONDS);
    search_serial(tree, visits, hostile);
    if (!play_chosen(tree, rng)) return;
  }
}

void batched_example(const SearchParams& params, const Position& start, const Hostility& h, Rng& rng) {
  constexpr int GAMES = 2;
  MultiSearch ms(GAMES, params, std::make_shared<EvalCache>(1), 1 + static_cast<int>(rng.below(2)), rng.next());
  const int visits = std::array<int, 4>{1, 2, 8, 32}[rng.below(4)];
  const RootMode mode{rng.below(2) == 1, rng.below(2) == 1, rng.below(2) == 1};
  for (int g = 0; g < GAMES; ++g) {
    ms.reset(g, start);
    ms.tree(g).set_root_mode(mode);
    ms.set_visit_target(g, visits);
  }
  ms.deadline().set_from_now(SOLVE_SECONDS);
  std::vector<float> input(static_cast<size_t>(ms.max_batch()) * features::FLOATS_PER_POSITION);
  std::vector<float> logits, wdl, score, error;
  const bool has_error_head = rng.below(2) == 1;
  while (!ms.all_done()) {
    const int n = ms.gather(input.data(), ms.max_batch());
    logits.resize(static_cast<size_t>(n) * NUM_SQUARES);
    wdl.resize(static_cast<size_t>(n) * 3);
    score.resize(n);
    error.resize(n);
    for (int i = 0; i < n; ++i) {
      const Row row = hostile_row(h, rng);
      std::copy_n(row.logits, NUM_SQUARES, &logits[static_cast<size_t>(i) * NUM_SQUARES]);
      std::copy_n(row.wdl, 3, &wdl[3 * static_cast<size_t>(i)]);
      score[i] = row.score;
      error[i] = std::max(row.value_error, 0.0f);
    }
    ms.backup(logits.data(), wdl.data(), score.data(), has_error_head ? error.data() : nullptr, n);
    CHECK_EQ(ms.total_in_flight(), 0u);
  }
  CHECK(ms.leaves_evaluated() <= static_cast<uint64_t>(GAMES) * (visits + params.leaves_per_game));
  for (int g = 0; g < GAMES; ++g) play_chosen(ms.tree(g), rng);
}

// POPUCOM_FUZZ_EXAMPLES overrides the count (a long run by hand).
int examples(int fallback) {
  const char* text = std::getenv("POPUCOM_FUZZ_EXAMPLES");
  const int n = text ? std::atoi(text) : 0;
  return n > 0 ? n : fallback;
}

void fuzz(int count, uint64_t seed) {
  Rng rng(seed);
  for (int example = 0; example < count; ++example) {
    const SearchParams params = drawn_settings(rng);
    validate(params);  // every draw lies inside the declared bounds
    const Position start = rng.below(3) == 0 ? few_moves_position(rng) : played_position(rng);
    const Hostility hostility = drawn_hostility(rng);
    if (rng.below(2)) {
      serial_example(params, start, hostility, rng);
    } else {
      batched_example(params, start, hostility, rng);
    }
  }
}

}  // namespace

TEST(settings_fuzz, drawn_settings_search_legally_against_a_hostile_network) { fuzz(examples(40), 1); }

SLOW_TEST(settings_fuzz, many_drawn_settings_search_legally_against_a_hostile_network) { fuzz(examples(300), 2); }
