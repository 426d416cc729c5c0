// A stand-in for rules.js in pure tests: stones only (no matches, no painting), 25 moves a
// side, the same error texts as the C++ rules for an occupied square and a finished game, and
// one square (i9) "painted" for White so a floor refusal can be tested.
const FILES = 'abcdefghi';

export function squareName(i) {
  return FILES[i % 9] + String(Math.floor(i / 9) + 1);
}

export function squareIndex(name) {
  const m = /^([a-i])([1-9])$/.exec(String(name).toLowerCase());
  if (!m) throw new Error(`cannot read move '${name}': want a column a-i then a row 1-9, like e5`);
  return (Number(m[2]) - 1) * 9 + FILES.indexOf(m[1]);
}

class FakeGame {
  constructor(komi) {
    this.komi = komi;
    this.moves = [];
    this.freed = false;
  }
  get toMove() {
    return this.moves.length % 2 ? 'white' : 'black';
  }
  get ply() {
    return this.moves.length;
  }
  get over() {
    return this.moves.length >= 50;
  }
  get result() {
    return this.over ? (this.komi > 0 ? 'black' : this.komi < 0 ? 'white' : 'draw') : null;
  }
  get endReason() {
    return this.over ? 'moves_exhausted' : null;
  }
  get score() {
    return 0;
  }
  play(move) {
    if (this.freed) throw new Error('game used after free');
    const sq = squareIndex(move);
    const name = squareName(sq);
    if (this.over) throw new Error(`illegal move: the game is over (${this.result})`);
    if (this.moves.includes(name)) throw new Error(`illegal move: ${name} already holds a stone`);
    if (name === 'i9' && this.toMove === 'black') throw new Error("illegal move: i9 is painted in the opponent's colour");
    this.moves.push(name);
  }
  copy() {
    const g = new FakeGame(this.komi);
    g.moves = [...this.moves];
    return g;
  }
  free() {
    this.freed = true;
  }
}

export const fakeRules = {
  live: 0,
  newGame(komi = 0) {
    return new FakeGame(komi);
  },
  squareName,
  squareIndex,
};
