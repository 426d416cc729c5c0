// The rules for the page's main thread: games played by the C++ core compiled to wasm (the same
// csrc/game code as the engine; nothing is re-implemented here). Moves are square names, "a1"
// the top left square, files a..i left to right, ranks 1..9 top to bottom.
//
//   const rules = await loadRules(siteUrl);
//   const game = rules.newGame(komi);  game.play('e5');  game.legalMoves().has('d4');
//
// A refused move or bad input throws a RulesError whose message says why. A Game holds memory
// in the core: free() it when done (a game that is garbage collected is freed as a safety net).

import { CoreError, loadCore } from './core.js';

export class RulesError extends Error {}

const COLOURS = ['black', 'white'];
const RESULTS = [null, 'black', 'white', 'draw']; // popucom::Result
const END_REASONS = [null, 'moves-exhausted', 'no-legal-move']; // popucom::EndReason
const NUM_SQUARES = 81;

let loaded = null; // the Rules of the last loadRules(), for squareName and squareIndex

/** The rules from the core under `siteUrl` (the site's root); moduleOptions: see core.js. */
export async function loadRules(siteUrl, moduleOptions = {}) {
  loaded = new Rules(await loadCore(siteUrl, moduleOptions));
  return loaded;
}

function translated(fn) {
  try {
    return fn();
  } catch (error) {
    throw error instanceof CoreError ? new RulesError(error.message) : error;
  }
}

function loadedCore() {
  if (!loaded) throw new RulesError('the rules are not loaded yet: await loadRules() first');
  return loaded.core;
}

/** The name of square `index` (0..80): 0 is "a1". */
export function squareName(index) {
  return translated(() => loadedCore().squareName(index));
}

/** The index (0..80) of a square name such as "e5" (either case). */
export function squareIndex(name) {
  return translated(() => {
    if (typeof name === 'string' && name.includes('\0')) throw new RulesError('a square name holds no NUL character');
    return loadedCore().squareIndex(name);
  });
}

export class Rules {
  constructor(core) {
    this.core = core;
    this.finalizer = new FinalizationRegistry((handle) => core.m._pc_game_free(handle));
  }

  /** A game from the empty board; komi: floors White gives Black, a whole number. */
  newGame(komi = 0) {
    return translated(() => {
      if (typeof komi !== 'number') throw new RulesError(`komi must be a number, not ${typeof komi}`);
      return new Game(this, this.core.check(this.core.m._pc_game_new(komi)), []);
    });
  }

  /** The game after `moves` (square names) from the empty board; RulesError naming the first bad move. */
  gameFromMoves(moves, komi = 0) {
    const game = this.newGame(komi);
    moves.forEach((move, i) => {
      try {
        game.play(move);
      } catch (error) {
        game.free();
        throw new RulesError(`move ${i + 1} (${String(move).slice(0, 20)}): ${error.message}`);
      }
    });
    return game;
  }
}

export class Game {
  constructor(rules, handle, moves) {
    this.rules = rules;
    this.handle = handle;
    this.history = moves;
    rules.finalizer.register(this, handle, this);
  }

  call(name, ...args) {
    return this.callChecked('check', name, ...args);
  }

  callSigned(name, ...args) {
    return this.callChecked('checkSigned', name, ...args);
  }

  callChecked(check, name, ...args) {
    if (this.handle === 0) throw new RulesError('this game was freed');
    const core = this.rules.core;
    return translated(() => core[check](core.m[name](this.handle, ...args)));
  }

  /** Plays a square name; RulesError (the game unchanged) when the move is illegal or unreadable. */
  play(move) {
    const square = squareIndexOf(this.rules.core, move);
    this.call('_pc_game_play', square);
    this.history.push(this.rules.core.squareName(square));
  }

  /** Takes back the last move; RulesError when there is none. */
  undo() {
    this.call('_pc_game_undo');
    this.history.pop();
  }

  legalMoves() {
    const core = this.rules.core;
    const legal = core.readBytes(NUM_SQUARES, (p) => this.call('_pc_game_legal', p));
    const moves = new Set();
    legal.forEach((isLegal, square) => isLegal && moves.add(core.squareName(square)));
    return moves;
  }

  cells() {
    const bits = this.rules.core.readBytes(NUM_SQUARES, (p) => this.call('_pc_game_cells', p));
    return Array.from(bits, (b) => ({
      stone: b & 1 ? 'black' : b & 2 ? 'white' : null,
      floor: b & 4 ? 'black' : b & 8 ? 'white' : null,
    }));
  }

  get toMove() {
    return COLOURS[this.call('_pc_game_to_move')];
  }
  get ply() {
    return this.call('_pc_game_ply');
  }
  get over() {
    return this.call('_pc_game_over') === 1;
  }
  /** 'black' | 'white' | 'draw', or null while the game goes on. */
  get result() {
    return RESULTS[this.call('_pc_game_result')];
  }
  /** 'moves-exhausted' | 'no-legal-move', or null while the game goes on. */
  get endReason() {
    return END_REASONS[this.call('_pc_game_end_reason')];
  }
  /** Black's floors minus White's (komi not included). */
  get score() {
    return this.callSigned('_pc_game_score');
  }
  get komi() {
    return this.callSigned('_pc_game_komi');
  }
  get movesLeft() {
    return { black: this.call('_pc_game_moves_left', 0), white: this.call('_pc_game_moves_left', 1) };
  }
  /** The moves played, as square names (a copy). */
  get moves() {
    return [...this.history];
  }

  copy() {
    return new Game(this.rules, this.call('_pc_game_copy'), [...this.history]);
  }

  free() {
    if (this.handle === 0) return;
    this.rules.finalizer.unregister(this);
    this.rules.core.m._pc_game_free(this.handle);
    this.handle = 0;
  }
}

function squareIndexOf(core, move) {
  if (typeof move === 'string' && move.includes('\0')) throw new RulesError('a move holds no NUL character');
  return translated(() => core.squareIndex(move));
}
