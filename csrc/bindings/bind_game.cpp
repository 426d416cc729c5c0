// Python bindings of the rules: constants, Color/Result/EndReason, notation
// and symmetries, Position, Game and random playouts, one function each. They
// only translate (arguments, errors, numpy arrays, dicts); the rules live in
// csrc/game.
#include <pybind11/native_enum.h>
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include <optional>

#include "../game/game.h"
#include "../game/notation.h"
#include "../game/playout.h"
#include "../game/symmetry.h"
#include "common.h"

namespace popucom {
namespace bindings {

namespace {

std::vector<int> squares_of(Bitboard b) {
  std::vector<int> out;
  out.reserve(b.count());
  b.for_each([&](int sq) { out.push_back(sq); });
  return out;
}

std::optional<Color> color_at(Bitboard black, Bitboard white, int sq) {
  if (black.test(sq)) return BLACK;
  if (white.test(sq)) return WHITE;
  return std::nullopt;
}

py::array_t<uint64_t> packed_to_array(const PackedPosition& packed) {
  py::array_t<uint64_t> out(PACKED_WORDS);
  std::copy(packed.begin(), packed.end(), out.mutable_data());
  return out;
}

PackedPosition packed_from_array(const py::array& a) {
  check_array(a, "packed position", py::dtype::of<uint64_t>(), {PACKED_WORDS}, false);
  PackedPosition packed;
  std::copy_n(static_cast<const uint64_t*>(a.data()), PACKED_WORDS, packed.begin());
  return packed;
}

Position checked_play(const Position& p, int sq) {
  const std::string why = p.illegal_reason(sq);
  if (!why.empty()) throw py::value_error("illegal move: " + why);
  Position next = p;
  next.play_unchecked(sq);
  return next;
}

int checked_symmetry(int sym) {
  if (sym < 0 || sym >= NUM_SYMMETRIES) throw py::value_error("symmetry must be in 0..7, got " + std::to_string(sym));
  return sym;
}

Position setup_position(py::handle black_stones, py::handle white_stones, py::handle black_floors,
                        py::handle white_floors, Color to_move, std::optional<std::pair<int, int>> moves_left,
                        int32_t komi) {
  const Bitboard bs = squares_from_object(black_stones, "black_stones");
  const Bitboard ws = squares_from_object(white_stones, "white_stones");
  const Bitboard bf = squares_from_object(black_floors, "black_floors");
  const Bitboard wf = squares_from_object(white_floors, "white_floors");
  if (!moves_left) moves_left = Position::fewest_moves_left(bs, ws, to_move);
  return Position::from_parts(bs, ws, bf, wf, to_move, moves_left->first, moves_left->second, komi);
}

py::array_t<uint64_t> packed_history(const Game& g) {
  const auto& h = g.history();
  py::array_t<uint64_t> out({static_cast<py::ssize_t>(h.size()), static_cast<py::ssize_t>(PACKED_WORDS)});
  uint64_t* dst = out.mutable_data();
  for (const Position& p : h) {
    const PackedPosition packed = p.pack();
    dst = std::copy(packed.begin(), packed.end(), dst);
  }
  return out;
}

py::dict playout_stats_dict(const PlayoutStats& s) {
  py::dict d;
  d["games"] = s.games;
  d["plies"] = s.plies;
  d["black_wins"] = s.black_wins;
  d["white_wins"] = s.white_wins;
  d["draws"] = s.draws;
  d["no_legal_move_endings"] = s.no_legal_move_endings;
  return d;
}

// Methods shared by Position and Game, read from the current position.
template <typename Class, typename Get>
void bind_position_queries(Class& cls, Get get) {
  cls.def(
         "legal_moves",
         [get](const typename Class::type& self) {
           const Position& p = get(self);
           return p.moves_exhausted() ? std::vector<int>{} : squares_of(p.legal_moves());
         },
         "Legal squares for the side to move, ascending (empty once the game is over).")
      .def(
          "is_legal",
          [get](const typename Class::type& self, py::handle move) {
            return get(self).is_legal(move_from_object(move));
          },
          py::arg("move"))
      .def(
          "illegal_reason",
          [get](const typename Class::type& self, py::handle move) {
            return get(self).illegal_reason(move_from_object(move));
          },
          py::arg("move"), "Why a move is illegal here, or '' if it is legal.")
      .def_property_readonly("to_move", [get](const typename Class::type& self) { return get(self).to_move(); })
      .def_property_readonly(
          "moves_left",
          [get](const typename Class::type& self) {
            const Position& p = get(self);
            return std::make_pair(p.moves_left(BLACK), p.moves_left(WHITE));
          },
          "(Black's, White's) moves left.")
      .def_property_readonly("komi", [get](const typename Class::type& self) { return get(self).komi(); })
      .def_property_readonly("ply", [get](const typename Class::type& self) { return get(self).ply(); })
      .def_property_readonly(
          "score", [get](const typename Class::type& self) { return get(self).score(); },
          "Black floors - White floors (komi not included).")
      .def_property_readonly(
          "final_margin", [get](const typename Class::type& self) { return get(self).final_margin(); },
          "Black's final margin as training and search see it: floors + komi, or for a no-legal-move "
          "result at least one floor with the result's sign.")
      .def_property_readonly("result", [get](const typename Class::type& self) { return get(self).result(); })
      .def_property_readonly("end_reason", [get](const typename Class::type& self) { return get(self).end_reason(); })
      .def_property_readonly("is_over", [get](const typename Class::type& self) { return get(self).is_terminal(); })
      .def_property_readonly("hash", [get](const typename Class::type& self) { return get(self).hash(); })
      .def("__str__", [get](const typename Class::type& self) { return get(self).diagram(); });
}

void bind_constants(py::module_& m) {
  m.attr("BOARD_SIZE") = BOARD_SIZE;
  m.attr("NUM_SQUARES") = NUM_SQUARES;
  m.attr("MOVES_PER_PLAYER") = MOVES_PER_PLAYER;
  m.attr("MAX_GAME_PLIES") = MAX_GAME_PLIES;
  m.attr("MATCH_LENGTH") = MATCH_LENGTH;
  m.attr("NUM_SYMMETRIES") = NUM_SYMMETRIES;
  m.attr("PACKED_WORDS") = PACKED_WORDS;
}

void bind_enums(py::module_& m) {
  py::native_enum<Color>(m, "Color", "enum.IntEnum").value("BLACK", BLACK).value("WHITE", WHITE).finalize();
  py::native_enum<Result>(m, "Result", "enum.IntEnum")
      .value("ONGOING", Result::ONGOING)
      .value("BLACK_WIN", Result::BLACK_WIN)
      .value("WHITE_WIN", Result::WHITE_WIN)
      .value("DRAW", Result::DRAW)
      .finalize();
  py::native_enum<EndReason>(m, "EndReason", "enum.IntEnum")
      .value("NONE", EndReason::NONE)
      .value("MOVES_EXHAUSTED", EndReason::MOVES_EXHAUSTED)
      .value("NO_LEGAL_MOVE", EndReason::NO_LEGAL_MOVE)
      .finalize();
}

void bind_notation_and_symmetry(py::module_& m) {
  m.def("square_to_text", &square_to_text, py::arg("square"), "Square index -> text, e.g. 40 -> 'e5'.");
  m.def(
      "parse_square", [](py::handle move) { return move_from_object(move); }, py::arg("move"),
      "Text like 'e5' (or an index) -> square index, with a ValueError naming bad input.");
  m.def("parse_record", &parse_record, py::arg("record"), "A record 'e5 d4 ...' -> list of square indices.");
  m.def("format_record", [](const std::vector<int>& moves) { return format_record(moves); }, py::arg("moves"));
  m.def(
      "transform_square",
      [](int sym, py::handle move) { return symmetry::apply(checked_symmetry(sym), move_from_object(move)); },
      py::arg("symmetry"), py::arg("square"), "Maps a square through one of the 8 board symmetries.");
  m.def("inverse_symmetry", [](int sym) { return symmetry::inverse(checked_symmetry(sym)); }, py::arg("symmetry"));
}

void bind_position(py::module_& m) {
  auto position = py::class_<Position>(m, "Position", "An immutable-by-convention Match-n-POP position.");
  position.def(py::init<int32_t>(), py::arg("komi") = 0, "The empty board, Black to move.")
      .def_static("setup", &setup_position, py::arg("black_stones") = "", py::arg("white_stones") = "",
                  py::arg("black_floors") = "", py::arg("white_floors") = "", py::arg("to_move") = BLACK,
                  py::arg("moves_left") = py::none(), py::arg("komi") = 0,
                  "A position from square lists ('d5 f5' or [31, 33]); moves_left defaults to the fewest "
                  "moves that fit the stones and the side to move.")
      .def(
          "play", [](const Position& p, py::handle move) { return checked_play(p, move_from_object(move)); },
          py::arg("move"), "The position after a legal move (this one is unchanged).")
      .def(
          "stones", [](const Position& p, Color c) { return bitboard_to_int(p.stones(c)); }, py::arg("color"),
          "Bitmask (bit sq) of that colour's stones.")
      .def(
          "floors", [](const Position& p, Color c) { return bitboard_to_int(p.floors(c)); }, py::arg("color"),
          "Bitmask (bit sq) of floors painted in that colour.")
      .def(
          "stone_at",
          [](const Position& p, py::handle move) {
            return color_at(p.stones(BLACK), p.stones(WHITE), move_from_object(move));
          },
          py::arg("square"))
      .def(
          "floor_at",
          [](const Position& p, py::handle move) {
            return color_at(p.floors(BLACK), p.floors(WHITE), move_from_object(move));
          },
          py::arg("square"))
      .def("compute_hash", &Position::compute_hash, "The hash recomputed from scratch (equals .hash).")
      .def(
          "transformed", [](const Position& p, int sym) { return p.transformed(checked_symmetry(sym)); },
          py::arg("symmetry"))
      .def(
          "pack", [](const Position& p) { return packed_to_array(p.pack()); },
          "The 9-word uint64 packed form used by data files and the batch encoder.")
      .def_static(
          "unpack", [](const py::array& a) { return Position::unpack(packed_from_array(a)); }, py::arg("packed"))
      .def("copy", [](const Position& p) { return p; })
      .def("__copy__", [](const Position& p) { return p; })
      .def(
          "__deepcopy__", [](const Position& p, py::dict) { return p; }, py::arg("memo"))
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", &Position::hash)
      .def("__repr__",
           [](const Position& p) {
             return "<Position ply " + std::to_string(p.ply()) + ", " + (p.to_move() == BLACK ? "Black" : "White") +
                    " to move, score " + std::to_string(p.score()) + ", komi " + std::to_string(p.komi()) + ">";
           })
      .def(py::pickle([](const Position& p) { return packed_to_array(p.pack()); },
                      [](const py::array& a) { return Position::unpack(packed_from_array(a)); }));
  bind_position_queries(position, [](const Position& p) -> const Position& { return p; });
}

void bind_game_class(py::module_& m) {
  auto game = py::class_<Game>(m, "Game", "A game from a start position, with checked play, undo and a record.");
  game.def(py::init<int32_t>(), py::arg("komi") = 0)
      .def(py::init<const Position&>(), py::arg("start"))
      .def_static("from_record", &Game::from_record, py::arg("record"), py::arg("komi") = 0,
                  "Replays a record like 'e5 d4 c3' from the empty board.")
      .def(
          "play", [](Game& g, py::handle move) { g.play(move_from_object(move)); }, py::arg("move"),
          "Plays a square index or text like 'e5'; ValueError says why an illegal move is refused.")
      .def("undo",
           [](Game& g) {
             if (g.moves().empty()) throw py::value_error("nothing to undo: no move has been played");
             g.undo();
           })
      // Copies: the history vector reallocates as moves are played, so a
      // reference into it would dangle.
      .def_property_readonly(
          "position", [](const Game& g) { return Position(g.position()); }, "A copy of the current position.")
      .def_property_readonly("start", [](const Game& g) { return Position(g.start()); })
      .def_property_readonly("moves", &Game::moves, "The moves played, as square indices.")
      .def_property_readonly("record", &Game::record, "The moves as text, e.g. 'e5 d4 c3'.")
      .def("positions", &Game::history, "Every position from the start to now (len(moves) + 1).")
      .def("packed_history", &packed_history,
           "Packed positions from the start to now, shape (len(moves) + 1, PACKED_WORDS).")
      .def("copy", [](const Game& g) { return g; })
      .def("__copy__", [](const Game& g) { return g; })
      .def(
          "__deepcopy__", [](const Game& g, py::dict) { return g; }, py::arg("memo"))
      .def("__len__", [](const Game& g) { return g.moves().size(); })
      .def("__repr__", [](const Game& g) {
        return "Game.from_record('" + g.record() + "', komi=" + std::to_string(g.position().komi()) + ")";
      });
  bind_position_queries(game, [](const Game& g) -> const Position& { return g.position(); });
}

void bind_playouts(py::module_& m) {
  m.def(
      "random_playouts",
      [](int64_t games, uint64_t seed, int32_t komi) {
        if (games < 0) throw py::value_error("games must be >= 0");
        PlayoutStats s;
        {
          py::gil_scoped_release release;
          s = random_playouts(games, seed, komi);
        }
        return playout_stats_dict(s);
      },
      py::arg("games"), py::arg("seed") = 0, py::arg("komi") = 0,
      "Plays uniformly random games from the empty board in C++ (GIL released); returns counts.");
}

}  // namespace

// Enums before the classes whose defaults use them, Position before Game.
void bind_game(py::module_& m) {
  bind_constants(m);
  bind_enums(m);
  bind_notation_and_symmetry(m);
  bind_position(m);
  bind_game_class(m);
  bind_playouts(m);
}

}  // namespace bindings
}  // namespace popucom
