// Python bindings of the search: parameters, the eval cache, the multi-game
// batched search, the baseline bots, the solver and the serial benchmark, one
// function per bound class. They only translate (arguments, errors, numpy
// arrays, dicts, the GIL); the search lives in csrc/search.
#include <pybind11/stl.h>

#include <array>
#include <atomic>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "../eval/features.h"
#include "../search/bots.h"
#include "../search/multi_search.h"
#include "../search/solver.h"
#include "common.h"

namespace popucom {
namespace bindings {

namespace {

py::dict move_stats_dict(const MoveStats& m) {
  py::dict d;
  d["move"] = m.move;
  d["visits"] = m.visits;
  d["weight"] = m.weight;
  d["utility"] = m.utility;
  d["value"] = m.value;
  d["winrate"] = (m.value + 1.0) / 2.0;
  d["score"] = m.score;
  d["prior"] = m.prior;
  d["lcb"] = m.lcb;
  d["pv"] = m.pv;
  // The exact outcome the search proved for the move (proven_backup), else None.
  d["proven"] = m.proven ? py::object(py::int_(m.exact_value)) : py::object(py::none());
  d["exact_score"] = m.proven ? py::object(py::float_(m.exact_score)) : py::object(py::none());
  return d;
}

py::dict root_stats_dict(const RootStats& r) {
  py::dict d;
  d["visits"] = r.visits;
  d["weight"] = r.weight;
  d["utility"] = r.utility;
  d["value"] = r.value;
  d["winrate"] = (r.value + 1.0) / 2.0;
  d["score"] = r.score;
  return d;
}

// Holds an object's busy flag for the length of a call that releases the GIL:
// a second thread calling in meanwhile gets a RuntimeError, not a corrupt tree.
class ExclusiveUse {
 public:
  ExclusiveUse(std::atomic<bool>& flag, const char* what) : flag_(flag) {
    if (flag_.exchange(true))
      throw std::runtime_error(std::string(what) +
                               " is in use by another thread; give each thread its own or serialise the calls");
  }
  ~ExclusiveUse() { flag_.store(false); }
  ExclusiveUse(const ExclusiveUse&) = delete;
  ExclusiveUse& operator=(const ExclusiveUse&) = delete;

 private:
  std::atomic<bool>& flag_;
};

const MultiSearch& idle(const MultiSearch& ms) {
  if (ms.busy())
    throw std::runtime_error(
        "MultiSearch is in use by another thread (inside gather or backup); "
        "give each thread its own or serialise the calls");
  return ms;
}

int checked_game(const MultiSearch& ms, int game) {
  idle(ms);
  if (game < 0 || game >= ms.num_games())
    throw py::index_error("game " + std::to_string(game) + " out of range 0.." + std::to_string(ms.num_games() - 1));
  return game;
}

py::array_t<float> squares_to_array(const std::array<float, NUM_SQUARES>& values) {
  py::array_t<float> out(NUM_SQUARES);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

const float* checked_output(const py::array& a, const char* name, std::vector<py::ssize_t> shape) {
  check_array(a, name, py::dtype::of<float>(), shape, false);
  return static_cast<const float*>(a.data());
}

using PyMultiSearch = py::class_<MultiSearch>;

void bind_search_params(py::module_& m) {
  py::class_<SearchParams> params(m, "SearchParams", "Search settings (see csrc/search/params.h for units).");
  params.def(py::init<>());
  std::vector<std::string> names;
#define POPUCOM_BIND_FIELD(type, name, value, lowest, highest, doc) \
  params.def_readwrite(#name, &SearchParams::name, doc);            \
  names.push_back(#name);
  POPUCOM_SEARCH_PARAMS(POPUCOM_BIND_FIELD)
#undef POPUCOM_BIND_FIELD
  params.def("validate", &validate,
             "Raises ValueError naming the first setting out of its range (the bounds are in csrc/search/params.h).");
  params.def_property_readonly_static("fields", [names](py::object) { return names; }, "Every field, in order.");
  params.def("__repr__", [names](const SearchParams& p) {
    const py::object self = py::cast(p);
    std::string out = "SearchParams(";
    for (size_t i = 0; i < names.size(); ++i)
      out += (i ? ", " : "") + names[i] + "=" + std::string(py::repr(self.attr(names[i].c_str())));
    return out + ")";
  });
}

void bind_eval_cache(py::module_& m) {
  py::class_<EvalCache, std::shared_ptr<EvalCache>>(
      m, "EvalCache", "Bounded, thread-safe cache of network evaluations keyed by a 128-bit position hash.")
      .def(py::init<double>(), py::arg("megabytes"))
      .def_property_readonly("capacity", &EvalCache::capacity, "Entries that fit in the cap.")
      .def_property_readonly("size", &EvalCache::size, "Entries in use.")
      .def_property_readonly("bytes", &EvalCache::bytes)
      .def_property_readonly_static("bytes_per_entry", [](py::object) { return EvalCache::bytes_per_entry(); })
      .def_property_readonly("lookups", &EvalCache::lookups)
      .def_property_readonly("hits", &EvalCache::hits)
      .def_property_readonly("hit_rate", &EvalCache::hit_rate)
      .def("clear", &EvalCache::clear);
}

// Construction, counters and the visit targets of every game.
void def_multi_search_setup(PyMultiSearch& cls) {
  cls.def(py::init([](int num_games, const SearchParams& params, std::shared_ptr<EvalCache> cache, int threads,
                      uint64_t seed) { return new MultiSearch(num_games, params, std::move(cache), threads, seed); }),
          py::arg("num_games"), py::arg("params") = SearchParams(), py::arg("cache") = nullptr, py::arg("threads") = 1,
          py::arg("seed") = 0)
      .def_property_readonly("num_games", &MultiSearch::num_games)
      .def_property_readonly("max_batch", &MultiSearch::max_batch, "Slots one gather() can fill.")
      .def_property_readonly("pending", &MultiSearch::pending, "Slots waiting for backup().")
      .def_property_readonly("threads", &MultiSearch::threads)
      .def_property_readonly(
          "cache", [](MultiSearch& ms) { return ms.cache(); }, py::return_value_policy::reference_internal)
      .def_property_readonly("leaves_evaluated", &MultiSearch::leaves_evaluated)
      .def_property_readonly("cache_resolved", &MultiSearch::cache_resolved)
      .def_property_readonly("terminal_resolved", &MultiSearch::terminal_resolved)
      .def(
          "reset", [](MultiSearch& ms, int g, const Position& p) { ms.reset(checked_game(ms, g), p); }, py::arg("game"),
          py::arg("position"), "Starts a fresh tree for a game at `position`.")
      .def(
          "set_visit_target", [](MultiSearch& ms, int g, int v) { ms.set_visit_target(checked_game(ms, g), v); },
          py::arg("game"), py::arg("visits"))
      .def(
          "set_visit_targets",
          [](MultiSearch& ms, int v) {
            idle(ms);
            ms.set_visit_targets(v);
          },
          py::arg("visits"))
      .def(
          "set_deadline",
          [](MultiSearch& ms, std::optional<double> seconds) {
            if (!seconds) return ms.deadline().clear();
            if (!std::isfinite(*seconds) || *seconds < 0)
              throw std::invalid_argument("set_deadline: seconds must be a finite number >= 0, got " +
                                          std::to_string(*seconds));
            ms.deadline().set_from_now(*seconds);
          },
          py::arg("seconds"),
          "The exact solves of every game (leaf solves in gather, the endgame choice in choose_move) give up "
          "`seconds` from now, as when their node budgets run out; None: no deadline (the default).")
      .def(
          "expire_deadline", [](MultiSearch& ms) { ms.deadline().expire(); },
          "Ends the exact solves now, from any thread, even while another thread is inside gather or "
          "choose_move: they give up within a fraction of a millisecond. set_deadline() sets a new one.")
      .def(
          "done", [](const MultiSearch& ms, int g) { return ms.done(checked_game(ms, g)); }, py::arg("game"))
      .def("all_done", [](const MultiSearch& ms) { return idle(ms).all_done(); })
      .def(
          "done_games", [](const MultiSearch& ms) { return idle(ms).done_games(); },
          "Indices of the games whose search has reached its target (or whose game is over).");
}

// One batch step: gather leaves into a numpy buffer, back the network's answers up.
void def_multi_search_batch_step(PyMultiSearch& cls) {
  cls.def(
         "gather",
         [](MultiSearch& ms, const py::array& out) {
           check_array(out, "out", py::dtype::of<float>(), {-1, features::NUM_PLANES, BOARD_SIZE, BOARD_SIZE}, true);
           auto* data = static_cast<float*>(py::array(out).mutable_data());
           const int capacity = static_cast<int>(out.shape(0));
           ExclusiveUse exclusive(ms.busy_flag(), "MultiSearch");
           py::gil_scoped_release release;
           return ms.gather(data, capacity);
         },
         py::arg("out"),
         "Advances every unfinished tree to its next leaves and encodes them into out[:n]; returns n. "
         "The GIL is released.")
      .def(
          "backup",
          [](MultiSearch& ms, const py::array& policy_logits, const py::array& wdl, const py::array& score,
             const std::optional<py::array>& value_error) {
            const py::ssize_t n = ms.pending();
            const float* l = checked_output(policy_logits, "policy_logits", {n, NUM_SQUARES});
            const float* w = checked_output(wdl, "wdl", {n, 3});
            const float* s = checked_output(score, "score", {n});
            // None: the model has no value_error head (every weight 1, see SearchParams.uncertainty_weighting).
            const float* e = value_error ? checked_output(*value_error, "value_error", {n}) : nullptr;
            ExclusiveUse exclusive(ms.busy_flag(), "MultiSearch");
            py::gil_scoped_release release;
            ms.backup(l, w, s, e, static_cast<int>(n));
          },
          py::arg("policy_logits"), py::arg("wdl"), py::arg("score"), py::arg("value_error") = std::nullopt,
          "Feeds network outputs for the pending slots, row i answering slot i: policy logits (n, 81), "
          "win/draw/loss probabilities (n, 3), score margin (n,) and, from a model with the head, the predicted "
          "squared error of win - loss (n,) (>= 0; None: no such head), all float32 and from the side to move. "
          "A bad output raises ValueError naming its slot, and no tree changes. The GIL is released.")
      .def("cancel_pending",
           [](MultiSearch& ms) {
             idle(ms);
             ms.cancel_pending();
           })
      .def(
          "total_in_flight", [](const MultiSearch& ms) { return ms.total_in_flight(); },
          "Virtual losses outstanding in all trees (0 after every backup).");
}

// What one game's search found, and moving its root on.
void def_multi_search_results(PyMultiSearch& cls) {
  cls.def(
         "position", [](const MultiSearch& ms, int g) { return ms.tree(checked_game(ms, g)).root_position(); },
         py::arg("game"))
      .def(
          "visits", [](const MultiSearch& ms, int g) { return ms.tree(checked_game(ms, g)).root_visits(); },
          py::arg("game"))
      .def(
          "root_info",
          [](const MultiSearch& ms, int g) { return root_stats_dict(ms.tree(checked_game(ms, g)).root_stats()); },
          py::arg("game"), "Root visits, utility, value, winrate and score, from the side to move.")
      .def(
          "move_infos",
          [](const MultiSearch& ms, int g, int pv_length) {
            py::list out;
            for (const MoveStats& s : ms.tree(checked_game(ms, g)).move_stats(pv_length))
              out.append(move_stats_dict(s));
            return out;
          },
          py::arg("game"), py::arg("pv_length") = 10,
          "Per root move: visits, utility, value, winrate, score, prior, lcb, pv, and the exact value and margin "
          "the search proved for it (proven, exact_score; None when not proven); most visited first.")
      .def(
          "visit_counts",
          [](const MultiSearch& ms, int g) {
            py::array_t<float> out(NUM_SQUARES);
            std::fill(out.mutable_data(), out.mutable_data() + NUM_SQUARES, 0.0f);
            for (const MoveStats& s : ms.tree(checked_game(ms, g)).move_stats(1)) out.mutable_data()[s.move] = s.visits;
            return out;
          },
          py::arg("game"), "Root child visits as float32 (81,).")
      .def(
          "policy_target",
          [](const MultiSearch& ms, int g) { return squares_to_array(ms.tree(checked_game(ms, g)).policy_target()); },
          py::arg("game"),
          "The search's training target (81,): visit shares with forced playouts pruned (PUCT), or "
          "softmax(logits + sigma(completed Q)) (Gumbel).")
      .def(
          "choose_move",
          [](MultiSearch& ms, int g, double temperature) {
            SearchTree& tree = ms.tree(checked_game(ms, g));
            // An endgame move is solved exactly (up to about a second): other threads (a GUI) run
            // on, but not on this search (the tree keeps what it solved).
            ExclusiveUse exclusive(ms.busy_flag(), "MultiSearch");
            py::gil_scoped_release release;
            return tree.choose_move(temperature);
          },
          py::arg("game"), py::arg("temperature") = 0.0)
      .def(
          "play", [](MultiSearch& ms, int g, py::handle move) { ms.play(checked_game(ms, g), move_from_object(move)); },
          py::arg("game"), py::arg("move"), "Plays a move in a game, keeping the searched subtree.")
      .def(
          "num_nodes", [](const MultiSearch& ms, int g) { return ms.tree(checked_game(ms, g)).num_nodes(); },
          py::arg("game"))
      .def(
          "keep_endgame_table",
          [](MultiSearch& ms, int g, double megabytes) {
            SearchTree& tree = ms.tree(checked_game(ms, g));
            const double most = static_cast<double>(SearchTree::MAX_ENDGAME_TABLE_BYTES) / (1 << 20);
            if (!(megabytes >= 0 && megabytes <= most))
              throw std::invalid_argument("keep_endgame_table: megabytes must be a number in [0, " +
                                          std::to_string(static_cast<int>(most)) + "], got " +
                                          std::to_string(megabytes));
            idle(ms);
            tree.keep_endgame_table(static_cast<size_t>(megabytes * (1 << 20)));
          },
          py::arg("game"), py::arg("megabytes"),
          "One exact-solver table for the game's whole session, at most `megabytes` (0: none, each move's endgame "
          "choice solves with a table of its own): the endgame choice of every move and the leaf solves share it, "
          "play() keeps it and reset() empties it.")
      .def(
          "solves_endgame_at_root",
          [](const MultiSearch& ms, int g) { return ms.tree(checked_game(ms, g)).solves_endgame_at_root(); },
          py::arg("game"),
          "Whether choose_move at the game's root asks the exact solver (endgame_solve_plies, or an endgame try).")
      .def(
          "endgame_table_bytes",
          [](const MultiSearch& ms, int g) { return ms.tree(checked_game(ms, g)).endgame_table_bytes(); },
          py::arg("game"), "The bytes the game's kept solver table holds now (0 without one).")
      .def(
          "endgame_nodes", [](const MultiSearch& ms, int g) { return ms.tree(checked_game(ms, g)).endgame_nodes(); },
          py::arg("game"), "Positions the endgame choice has visited for this game's tree so far.");
}

// How one game's next search treats its root (RootMode).
void def_multi_search_root_mode(PyMultiSearch& cls) {
  cls.def(
         "set_root_noise",
         [](MultiSearch& ms, int g, bool on) {
           SearchTree& tree = ms.tree(checked_game(ms, g));
           RootMode mode = tree.root_mode();
           mode.noise = on;
           tree.set_root_mode(mode);
         },
         py::arg("game"), py::arg("enabled"), "Dirichlet noise at the root for this game's next search only.")
      .def(
          "set_root_mode",
          [](MultiSearch& ms, int g, bool noise, bool forced_playouts, bool gumbel) {
            ms.tree(checked_game(ms, g)).set_root_mode(RootMode{noise, forced_playouts, gumbel});
          },
          py::arg("game"), py::arg("noise") = false, py::arg("forced_playouts") = false, py::arg("gumbel") = false,
          "How this game's next search treats its root: Dirichlet noise, forced playouts (pruned from the "
          "target again), Gumbel root search. play() returns to the SearchParams defaults.")
      .def(
          "root_mode",
          [](const MultiSearch& ms, int g) {
            const SearchTree& tree = ms.tree(checked_game(ms, g));
            py::dict d;
            d["noise"] = tree.root_mode().noise;
            d["forced_playouts"] = tree.root_mode().forced_playouts;
            d["gumbel"] = tree.root_mode().gumbel;
            d["noise_applied"] = tree.root_noise_applied();
            return d;
          },
          py::arg("game"), "The root mode of the game's current search, and whether noise is in its priors now.");
}

void bind_multi_search(py::module_& m) {
  PyMultiSearch cls(m, "MultiSearch",
                    "G games searched at once; leaves of all trees are batched for one network call.");
  def_multi_search_setup(cls);
  def_multi_search_batch_step(cls);
  def_multi_search_results(cls);
  def_multi_search_root_mode(cls);
}

void bind_bot(py::module_& m) {
  py::class_<Bot>(m, "Bot", "A network-free player: 'random', 'greedy' or 'uct:N'.")
      .def(py::init([](const std::string& spec, uint64_t seed) { return make_bot(spec, seed).release(); }),
           py::arg("spec"), py::arg("seed") = 0)
      .def_property_readonly("name", &Bot::name)
      .def(
          "select_move",
          [](Bot& bot, const Position& p) {
            ExclusiveUse exclusive(bot.busy_flag(), "Bot");
            py::gil_scoped_release release;
            return bot.select_move(p);
          },
          py::arg("position"), "A legal move for the side to move (the GIL is released while it thinks).")
      .def(
          "last_policy", [](const Bot& bot) { return squares_to_array(bot.last_policy()); },
          "The distribution behind the last move: root visit shares for uct:N, one-hot otherwise.")
      .def("__repr__", [](const Bot& b) { return "Bot('" + b.name() + "')"; });
}

void bind_solver_and_benchmark(py::module_& m) {
  m.def("solve", &solve, py::arg("position"), py::arg("max_plies") = 6,
        "Exact value for the side to move (+1, 0, -1) by alpha-beta; refuses deep positions.");
  m.def(
      "solve_counted",
      [](const Position& p, int max_plies) {
        SolveCount count;
        {
          py::gil_scoped_release release;
          count = solve_counted(p, max_plies);
        }
        return py::make_tuple(count.value, count.nodes);
      },
      py::arg("position"), py::arg("max_plies") = 6,
      "solve(), with the positions it visited: (value, nodes). For measuring the solver.");
  m.def(
      "solve_moves",
      [](const Position& p, int max_plies) {
        MoveValues values;
        {
          py::gil_scoped_release release;
          values = solve_moves(p, max_plies);
        }
        py::dict moves;
        for (const auto& [move, value] : values.moves) moves[py::int_(move)] = value;
        return py::make_tuple(values.value, moves, values.nodes);
      },
      py::arg("position"), py::arg("max_plies") = 6,
      "Exact values for the side to move of the position and of each legal move, one solver's table shared: "
      "(value, {move: value}, nodes). Refuses deep positions like solve().");
  m.def(
      "audit_move",
      [](const Position& p, int move, int max_plies) {
        MoveAudit audit;
        {
          py::gil_scoped_release release;
          audit = audit_move(p, move, max_plies);
        }
        return py::make_tuple(audit.best, audit.played, audit.critical, audit.nodes);
      },
      py::arg("position"), py::arg("move"), py::arg("max_plies") = 6,
      "The exact values an audit of a played move needs: (best value, the move's value, whether the legal moves "
      "differ in value, nodes), cheaper than solve_moves(). Refuses deep positions like solve().");
  m.def(
      "bench_serial_search",
      [](int visits, uint64_t seed) {
        SerialBenchResult result;
        {
          py::gil_scoped_release release;
          result = bench_serial_search(visits, seed);
        }
        py::dict d;
        d["visits"] = result.visits;
        d["seconds"] = result.seconds;
        d["nodes"] = result.nodes;
        return d;
      },
      py::arg("visits"), py::arg("seed") = 0,
      "Times one tree searched in C++ with the uniform evaluator (no Python in the loop).");
}

}  // namespace

// SearchParams first: MultiSearch's default argument needs its type bound.
void bind_search(py::module_& m) {
  bind_search_params(m);
  bind_eval_cache(m);
  bind_multi_search(m);
  bind_bot(m);
  bind_solver_and_benchmark(m);
}

}  // namespace bindings
}  // namespace popucom
