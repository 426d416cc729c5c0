// The C API the browser calls (compiled to WebAssembly by `popucom web build`):
// the rules and the batched search of csrc/, unchanged, behind plain C
// functions prefixed pc_. JavaScript holds small integer handles, never
// pointers to C++ objects, and moves cross as square indices (0..80).
//
// Errors: a function that can fail returns a negative number (INT32_MIN for
// the two whose values may be negative: score, komi) and keeps a message for
// pc_last_error(); no C++ exception ever reaches JavaScript (the
// module is built with -fwasm-exceptions so the catch blocks below exist).
//
// A search session mirrors popucom/search/game_search.py's GameSearch: one
// game's MultiSearch with its own evaluation cache and seed, driven by the
// caller through gather -> network -> backup. Settings are staged by
// pc_search_set_param and take effect at the next tree reset, which is when a
// Python GameSearch is built with them. The module is single-threaded: call
// it from one thread (the worker) only.
//
// A network is a network file's weights (csrc/nn/native_net_file.h) on the
// native forward's portable kernels (wasm SIMD128), one thread: the page's
// default in place of an ONNX model on onnxruntime-web.
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../eval/features.h"
#include "../game/game.h"
#include "../game/notation.h"
#include "../nn/native_net.h"
#include "../nn/native_net_file.h"
#include "../search/multi_search.h"
#include "../search/params.h"

namespace popucom {
namespace web {
namespace {

std::string last_error;

// Returned instead of a value that may be negative (a score, a komi) when the call failed.
constexpr int SIGNED_ERROR = INT32_MIN;

// Runs `body`, turning any exception into the error message and `failed`.
template <typename F>
int guarded(F&& body, int failed = -1) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    last_error = "out of memory (the search tree or the cache does not fit in the page's memory)";
  } catch (const std::exception& e) { last_error = e.what(); } catch (...) {
    last_error = "internal error (an unknown exception)";
  }
  return failed;
}

// Objects behind handles 1, 2, ...; a freed slot is reused.
template <typename T>
class Registry {
 public:
  int add(std::unique_ptr<T> object) {
    for (size_t i = 0; i < slots_.size(); ++i)
      if (!slots_[i]) {
        slots_[i] = std::move(object);
        return static_cast<int>(i) + 1;
      }
    slots_.push_back(std::move(object));
    return static_cast<int>(slots_.size());
  }
  T& at(int handle, const char* what) {
    if (handle < 1 || handle > static_cast<int>(slots_.size()) || !slots_[handle - 1])
      throw std::invalid_argument(std::string("no ") + what + " has handle " + std::to_string(handle));
    return *slots_[handle - 1];
  }
  void remove(int handle, const char* what) {
    at(handle, what);
    slots_[handle - 1].reset();
  }

 private:
  std::vector<std::unique_ptr<T>> slots_;
};

// The game's positions from the empty board, with undo (the rules' own Game).
Registry<Game> games;

constexpr int GAME = 0;  // a session's MultiSearch holds one game
// The exact solver's table kept for a session's game (GameSearch's
// endgame_table_mb): smaller than on a desktop, a page shares a phone's memory.
constexpr size_t ENDGAME_TABLE_BYTES = size_t{32} << 20;

struct Session {
  uint64_t seed = 0;
  double cache_mb = 0;
  SearchParams params;  // staged: the search below was built from `built_params`
  SearchParams built_params;
  std::shared_ptr<EvalCache> cache;
  std::unique_ptr<MultiSearch> search;
  int visit_target = 0;
  std::string snapshot;  // the text pc_search_snapshot returned last
};

Registry<Session> sessions;

Registry<nn::NativeNet> networks;

bool same_params(const SearchParams& a, const SearchParams& b) {
#define POPUCOM_FIELD_EQUAL(type, name, value, lowest, highest, doc) \
  if (a.name != b.name) return false;
  POPUCOM_SEARCH_PARAMS(POPUCOM_FIELD_EQUAL)
#undef POPUCOM_FIELD_EQUAL
  return true;
}

// `value` stored in the field called `name`, checked against the field's type
// (a whole number for int fields, 0 or 1 for bools) and bounds (validate()).
void set_param(SearchParams* params, const std::string& name, double value) {
  if (!std::isfinite(value))
    throw std::invalid_argument("SearchParams." + name.substr(0, 100) + " must be a finite number");
  SearchParams changed = *params;
  bool known = false;
#define POPUCOM_SET_FIELD(type, field, value_, lowest, highest, doc)                                                   \
  if (name == #field) {                                                                                                \
    known = true;                                                                                                      \
    if (!std::is_same<type, double>::value && value != std::floor(value))                                              \
      throw std::invalid_argument("SearchParams." + name + " wants a whole number, got " + std::to_string(value));     \
    if (std::is_same<type, int>::value && !(value >= INT32_MIN && value <= INT32_MAX))                                 \
      throw std::invalid_argument("SearchParams." + name + " = " + std::to_string(value) +                             \
                                  " does not fit a 32-bit integer");                                                   \
    changed.field = static_cast<type>(value);                                                                          \
    if (std::is_same<type, bool>::value && value != 0 && value != 1)                                                   \
      throw std::invalid_argument("SearchParams." + name + " is true (1) or false (0), got " + std::to_string(value)); \
  }
  POPUCOM_SEARCH_PARAMS(POPUCOM_SET_FIELD)
#undef POPUCOM_SET_FIELD
  if (!known) {
    std::string fields;
#define POPUCOM_NAME_FIELD(type, field, value_, lowest, highest, doc) \
  fields += (fields.empty() ? "" : ", ") + std::string(#field);
    POPUCOM_SEARCH_PARAMS(POPUCOM_NAME_FIELD)
#undef POPUCOM_NAME_FIELD
    throw std::invalid_argument("unknown search setting '" + name.substr(0, 100) + "' (known: " + fields + ")");
  }
  validate(changed);
  *params = changed;
}

MultiSearch& built(Session& s) {
  if (!s.search) throw std::logic_error("the search has no position yet: call pc_search_reset first");
  return *s.search;
}

// A fresh tree at `root`, rebuilding the search (with its seed) when the
// settings changed since it was built; the evaluation cache is kept.
void reset_session(Session& s, const Position& root) {
  if (!s.search || !same_params(s.params, s.built_params)) {
    if (s.search && s.search->pending()) throw std::logic_error("reset: a batch is pending; back it up or cancel it");
    s.search = std::make_unique<MultiSearch>(1, s.params, s.cache, 1, s.seed);
    s.search->tree(GAME).keep_endgame_table(ENDGAME_TABLE_BYTES);
    s.built_params = s.params;
    s.search->set_visit_target(GAME, s.visit_target);
  }
  s.search->reset(GAME, root);
}

// GameSearch.set_position: keep the tree when `position` is its root, move
// the root down when `position` is one move below it, else a fresh tree.
// Returns 0 (kept), 1 (moved down) or 2 (fresh).
int set_position(Session& s, const Position& position) {
  if (s.search && same_params(s.params, s.built_params)) {
    MultiSearch& search = *s.search;
    const Position root = search.tree(GAME).root_position();
    if (root == position) return 0;
    if (position.ply() == root.ply() + 1 && !root.is_terminal()) {
      int found = -1;
      root.legal_moves().for_each([&](int move) {
        Position next = root;
        next.play_unchecked(move);
        if (found < 0 && next == position) found = move;
      });
      if (found >= 0) {
        search.play(GAME, found);
        return 1;
      }
    }
  }
  reset_session(s, position);
  return 2;
}

// JSON text of numbers and square names; no user text ever goes into it.
class Json {
 public:
  Json& raw(const char* text) {
    out_ += text;
    return *this;
  }
  Json& key(const char* name) {
    comma();
    out_ += '"';
    out_ += name;
    out_ += "\":";
    fresh_ = false;
    return *this;
  }
  Json& number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", std::isfinite(x) ? x : 0.0);
    out_ += text;
    return *this;
  }
  Json& square(int sq) {
    out_ += '"' + square_to_text(sq) + '"';
    return *this;
  }
  Json& open(char bracket) {
    comma();
    out_ += bracket;
    fresh_ = true;
    return *this;
  }
  Json& close(char bracket) {
    out_ += bracket;
    fresh_ = false;
    return *this;
  }
  Json& item() {  // before an array element
    comma();
    fresh_ = false;
    return *this;
  }
  const std::string& text() const { return out_; }

 private:
  void comma() {
    if (!fresh_ && !out_.empty() && out_.back() != ':') out_ += ',';
    fresh_ = false;
  }
  std::string out_;
  bool fresh_ = true;
};

// popucom/search/analysis.py's snapshot(): the root and every root move from
// the side to move's point of view, most visited first. `chosen` is the move
// the search plays at temperature 0 (it may run the endgame solver), asked
// only when `with_chosen` and the root has visits, as snapshot() does.
std::string snapshot(MultiSearch& search, int pv_length, bool with_chosen) {
  SearchTree& tree = search.tree(GAME);
  const RootStats root = tree.root_stats();
  Json j;
  j.open('{');
  j.key("visits").number(root.visits);
  j.key("weight").number(root.weight);
  j.key("utility").number(root.utility);
  j.key("value").number(root.value);
  j.key("winrate").number((root.value + 1.0) / 2.0);
  j.key("score").number(root.score);
  j.key("chosen");
  if (with_chosen && root.visits > 0 && !tree.root_is_terminal())
    j.square(tree.choose_move(0.0));
  else
    j.raw("null");
  j.key("moves").open('[');
  for (const MoveStats& m : tree.move_stats(pv_length)) {
    j.open('{');
    j.key("move").square(m.move);
    j.key("visits").number(m.visits);
    j.key("weight").number(m.weight);
    j.key("utility").number(m.utility);
    j.key("value").number(m.value);
    j.key("winrate").number((m.value + 1.0) / 2.0);
    j.key("score").number(m.score);
    j.key("prior").number(m.prior);
    j.key("lcb").number(m.lcb);
    j.key("proven");
    if (m.proven)
      j.number(m.exact_value);
    else
      j.raw("null");
    j.key("exact_score");
    if (m.proven)
      j.number(m.exact_score);
    else
      j.raw("null");
    j.key("pv").open('[');
    for (int sq : m.pv) j.item().square(sq);
    j.close(']');
    j.close('}');
  }
  j.close(']');
  j.close('}');
  return j.text();
}

int count_into(Bitboard squares, uint8_t* out) {
  for (int sq = 0; sq < NUM_SQUARES; ++sq) out[sq] = squares.test(sq) ? 1 : 0;
  return squares.count();
}

}  // namespace
}  // namespace web
}  // namespace popucom

using popucom::web::guarded;

extern "C" {

const char* pc_last_error() { return popucom::web::last_error.c_str(); }

// --- rules -----------------------------------------------------------------------

// A new game from the empty board; komi: White gives Black this many floors,
// a whole number within the board's floors (-81..81).
int pc_game_new(double komi) {
  return guarded([&] {
    using namespace popucom;
    if (!(std::isfinite(komi) && komi == std::floor(komi) && std::fabs(komi) <= NUM_SQUARES))
      throw std::invalid_argument("komi must be a whole number from " + std::to_string(-NUM_SQUARES) + " to " +
                                  std::to_string(NUM_SQUARES) + " (the board has that many floors)");
    return web::games.add(std::make_unique<Game>(static_cast<int32_t>(komi)));
  });
}

int pc_game_copy(int g) {
  return guarded([&] {
    using namespace popucom;
    return web::games.add(std::make_unique<Game>(web::games.at(g, "game")));
  });
}

int pc_game_free(int g) {
  return guarded([&] {
    popucom::web::games.remove(g, "game");
    return 0;
  });
}

// Plays square `sq` (0..80); an illegal move is refused with the reason.
int pc_game_play(int g, int sq) {
  return guarded([&] {
    popucom::web::games.at(g, "game").play(sq);
    return 0;
  });
}

int pc_game_undo(int g) {
  return guarded([&] {
    popucom::web::games.at(g, "game").undo();
    return 0;
  });
}

// out81[sq] = 1 where the side to move may play (all 0 once the game is over);
// returns the number of legal moves.
int pc_game_legal(int g, uint8_t* out81) {
  return guarded([&] {
    const popucom::Position& p = popucom::web::games.at(g, "game").position();
    return popucom::web::count_into(p.is_terminal() ? popucom::Bitboard() : p.legal_moves(), out81);
  });
}

// out81[sq]: the stone (1 black, 2 white, 0 none) plus 4 for a black floor,
// 8 for a white floor.
int pc_game_cells(int g, int8_t* out81) {
  return guarded([&] {
    using namespace popucom;
    const Position& p = web::games.at(g, "game").position();
    for (int sq = 0; sq < NUM_SQUARES; ++sq)
      out81[sq] = static_cast<int8_t>((p.stones(BLACK).test(sq) ? 1 : 0) | (p.stones(WHITE).test(sq) ? 2 : 0) |
                                      (p.floors(BLACK).test(sq) ? 4 : 0) | (p.floors(WHITE).test(sq) ? 8 : 0));
    return 0;
  });
}

int pc_game_to_move(int g) {
  return guarded([&] { return static_cast<int>(popucom::web::games.at(g, "game").position().to_move()); });
}

int pc_game_ply(int g) {
  return guarded([&] { return popucom::web::games.at(g, "game").position().ply(); });
}

int pc_game_over(int g) {
  return guarded([&] { return popucom::web::games.at(g, "game").position().is_terminal() ? 1 : 0; });
}

// 0 ongoing, 1 Black won, 2 White won, 3 draw (popucom::Result).
int pc_game_result(int g) {
  return guarded([&] { return static_cast<int>(popucom::web::games.at(g, "game").position().result()); });
}

// 0 not over, 1 every move played, 2 the side to move has no legal move (popucom::EndReason).
int pc_game_end_reason(int g) {
  return guarded([&] { return static_cast<int>(popucom::web::games.at(g, "game").position().end_reason()); });
}

// Black's floors minus White's (komi not included); INT32_MIN on error (a score may be negative).
int pc_game_score(int g) {
  return guarded([&] { return popucom::web::games.at(g, "game").position().score(); }, popucom::web::SIGNED_ERROR);
}

// The komi (may be negative); INT32_MIN on error.
int pc_game_komi(int g) {
  return guarded([&] { return static_cast<int>(popucom::web::games.at(g, "game").position().komi()); },
                 popucom::web::SIGNED_ERROR);
}

// color: 0 Black, 1 White.
int pc_game_moves_left(int g, int color) {
  return guarded([&] {
    if (color != 0 && color != 1) throw std::invalid_argument("colour must be 0 (Black) or 1 (White)");
    return popucom::web::games.at(g, "game").position().moves_left(static_cast<popucom::Color>(color));
  });
}

// Writes the square's name ("e5") and a NUL into out (3 bytes).
int pc_square_name(int sq, char* out) {
  return guarded([&] {
    const std::string name = popucom::square_to_text(sq);
    std::memcpy(out, name.c_str(), name.size() + 1);
    return 0;
  });
}

int pc_parse_square(const char* text) {
  return guarded([&] { return popucom::parse_square(text); });
}

// --- search ----------------------------------------------------------------------

// A search session with the core's default settings; seed: a whole number
// 0..2^53 (a JavaScript number), cache_mb: the evaluation cache's cap.
int pc_search_new(double seed, double cache_mb) {
  return guarded([&] {
    using namespace popucom;
    if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == std::floor(seed)))
      throw std::invalid_argument("seed must be a whole number from 0 to 2^53");
    auto s = std::make_unique<web::Session>();
    s->seed = static_cast<uint64_t>(seed);
    s->cache_mb = cache_mb;
    s->cache = std::make_shared<EvalCache>(cache_mb);  // checks the size
    return web::sessions.add(std::move(s));
  });
}

int pc_search_free(int s) {
  return guarded([&] {
    popucom::web::sessions.remove(s, "search");
    return 0;
  });
}

// Sets any SearchParams field by name; it applies from the next fresh tree.
int pc_search_set_param(int s, const char* name, double value) {
  return guarded([&] {
    popucom::web::set_param(&popucom::web::sessions.at(s, "search").params, name, value);
    return 0;
  });
}

// A fresh tree at the game's current position.
int pc_search_reset(int s, int g) {
  return guarded([&] {
    using namespace popucom;
    web::reset_session(web::sessions.at(s, "search"), web::games.at(g, "game").position());
    return 0;
  });
}

// Makes the game's position the root as GameSearch.set_position does:
// 0 kept, 1 moved one move down (subtree kept), 2 fresh tree.
int pc_search_set_position(int s, int g) {
  return guarded([&] {
    using namespace popucom;
    return web::set_position(web::sessions.at(s, "search"), web::games.at(g, "game").position());
  });
}

// Moves the root down by `sq`, keeping its subtree.
int pc_search_play(int s, int sq) {
  return guarded([&] {
    popucom::web::built(popucom::web::sessions.at(s, "search")).play(popucom::web::GAME, sq);
    return 0;
  });
}

// The root visit count at which the search stops (visits kept from earlier searches count).
int pc_search_set_visits(int s, int visits) {
  return guarded([&] {
    popucom::web::Session& session = popucom::web::sessions.at(s, "search");
    if (visits < 1) throw std::invalid_argument("visits must be at least 1, got " + std::to_string(visits));
    session.visit_target = visits;
    if (session.search) session.search->set_visit_target(popucom::web::GAME, visits);
    return 0;
  });
}

// The most positions one gather can fill (leaves_per_game).
int pc_search_max_batch(int s) {
  return guarded([&] { return popucom::web::built(popucom::web::sessions.at(s, "search")).max_batch(); });
}

// Gathers the next leaves and writes their features to out ([n][12][9][9]
// float32, capacity positions); returns n (0: nothing needs the network now).
int pc_search_gather(int s, float* out, int capacity) {
  return guarded([&] { return popucom::web::built(popucom::web::sessions.at(s, "search")).gather(out, capacity); });
}

// The network's outputs for the n gathered positions: policy logits [n][81],
// wdl [n][3], score [n], value_error [n] or null (no such head). Refused
// outputs (NaN, a negative value_error) leave the tree as before the gather.
int pc_search_backup(int s, const float* policy, const float* wdl, const float* score, const float* value_error,
                     int n) {
  return guarded([&] {
    popucom::MultiSearch& search = popucom::web::built(popucom::web::sessions.at(s, "search"));
    try {
      search.backup(policy, wdl, score, value_error, n);
    } catch (...) {
      search.cancel_pending();
      throw;
    }
    return 0;
  });
}

// Drops a gathered batch (its network call failed), taking its virtual losses back.
int pc_search_cancel(int s) {
  return guarded([&] {
    popucom::web::built(popucom::web::sessions.at(s, "search")).cancel_pending();
    return 0;
  });
}

// 1 when the root has its visits or the game is over.
int pc_search_done(int s) {
  return guarded([&] { return popucom::web::built(popucom::web::sessions.at(s, "search")).done(0) ? 1 : 0; });
}

int pc_search_visits(int s) {
  return guarded([&] {
    return static_cast<int>(popucom::web::built(popucom::web::sessions.at(s, "search")).tree(0).root_visits());
  });
}

// The move to play: the search's choice at temperature 0, else sampled with
// p ~ N^(1/T) (SearchTree::choose_move).
int pc_search_choose(int s, double temperature) {
  return guarded([&] {
    if (!std::isfinite(temperature) || temperature < 0)
      throw std::invalid_argument("temperature must be a finite number >= 0");
    return popucom::web::built(popucom::web::sessions.at(s, "search")).tree(0).choose_move(temperature);
  });
}

// Features of the root position ([12][9][9] float32): the root's own network call.
int pc_search_root_features(int s, float* out) {
  return guarded([&] {
    popucom::features::encode(popucom::web::built(popucom::web::sessions.at(s, "search")).tree(0).root_position(), out);
    return 0;
  });
}

// The search as JSON text (see snapshot() above), valid until the next call;
// null on error.
const char* pc_search_snapshot(int s, int pv_length, int with_chosen) {
  popucom::web::Session* session = nullptr;
  const int ok = guarded([&] {
    session = &popucom::web::sessions.at(s, "search");
    if (pv_length < 1 || pv_length > popucom::MAX_GAME_PLIES)
      throw std::invalid_argument("pv_length must be 1.." + std::to_string(popucom::MAX_GAME_PLIES));
    session->snapshot = popucom::web::snapshot(popucom::web::built(*session), pv_length, with_chosen != 0);
    return 0;
  });
  return ok < 0 ? nullptr : session->snapshot.c_str();
}

// --- networks ------------------------------------------------------------------

// A network from a network file's bytes; its error names what is wrong with them.
int pc_net_load(const uint8_t* bytes, int size) {
  return guarded([&] {
    using namespace popucom;
    if (size < 0) throw std::invalid_argument("a network file's size cannot be negative");
    const nn::NativeNetWeights weights = nn::read_native_net_file(bytes, static_cast<size_t>(size));
    if (weights.shape.planes != features::NUM_PLANES)
      throw std::invalid_argument("network file: the network reads " + std::to_string(weights.shape.planes) +
                                  " feature planes, the page's positions have " + std::to_string(features::NUM_PLANES));
    if (weights.shape.feature_version != features::FEATURE_VERSION)
      throw std::invalid_argument("network file: the network reads features of version " +
                                  std::to_string(weights.shape.feature_version) + ", the page encodes version " +
                                  std::to_string(features::FEATURE_VERSION));
    return web::networks.add(std::make_unique<nn::NativeNet>(weights, 1, nn::DEFAULT_PIECE_POSITIONS, false));
  });
}

int pc_net_free(int net) {
  return guarded([&] {
    popucom::web::networks.remove(net, "network");
    return 0;
  });
}

// 1 when the network has the value-error head (pc_net_forward writes value_error).
int pc_net_has_value_error(int net) {
  return guarded([&] { return popucom::web::networks.at(net, "network").has_value_error() ? 1 : 0; });
}

// The outputs of n positions' features ([n][12][9][9] float32): policy logits [n][81],
// wdl [n][3], score [n], ownership [n][81] and, where the network has that head,
// value_error [n].
int pc_net_forward(int net, const float* features, int n, float* policy, float* wdl, float* score, float* ownership,
                   float* value_error) {
  return guarded([&] {
    popucom::nn::NativeNet& network = popucom::web::networks.at(net, "network");
    if (n < 0) throw std::invalid_argument("a batch cannot have " + std::to_string(n) + " positions");
    const popucom::nn::NativeNetOutputs out{policy, wdl, score, ownership,
                                            network.has_value_error() ? value_error : nullptr};
    network.forward(features, static_cast<size_t>(n), out);
    return 0;
  });
}

// The network's input size per position, so JavaScript reads it from here.
int pc_feature_planes() { return popucom::features::NUM_PLANES; }
int pc_feature_version() { return popucom::features::FEATURE_VERSION; }

}  // extern "C"
