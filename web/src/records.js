// Game files: the SGF dialect and the JSONL game records of docs/data_formats.md, read and
// written exactly as popucom/gui/records.py does, so a game saved here opens in `popucom gui`
// and the reverse. Pure (no DOM): the rules come in as rules.js's `rules` object and every move
// is validated by it while reading.
//
// SGF: (;GM[81]FF[4]CA[UTF-8]AP[popucom:VERSION]SZ[9]KM[0]PB[..]PW[..] ;B[e5];W[d4]C[..]ZA[v:w:s] (..)(..))
// KM is an integer komi, C[] a comment (`\]` and `\\` escaped), ZA[visits:winrate:score] a node's
// last analysis (Black's win rate in [0, 1], Black's expected floor margin), `(`..`)` variations.
// JSONL: one JSON object per game: moves, komi, result, score, end, black, white.
//
// Every problem is a RecordError: a translation key and its parameters (i18n.js) plus the
// English message, naming the place (SGF line or node number, JSONL line) and the reason. The
// parser keeps its own stack, and the text is capped in size, so no file can exhaust the page.

import { GameTree } from './game_tree.js';
import { translate } from './i18n.js';
import { quoted } from './quoted.js';

export const GAME_ID = '81';
export const GAME_INFO = ['PB', 'PW', 'RE', 'DT', 'GN', 'EV'];
export const MAX_RECORD_BYTES = 4 * 1024 * 1024; // far above any real file: a game is a few KB
const RESULTS = { black: 'B+', white: 'W+', draw: '0' };
const DEFAULT_CONSTANTS = { boardSize: 9, numSquares: 81, maxGamePlies: 50, version: 'web' };

export class RecordError extends Error {
  constructor(key, params = {}) {
    super(translate('en', key, params));
    this.name = 'RecordError';
    this.key = key;
    this.params = params;
  }
}

/** The constants records need, from constants.json's names (either spelling) or defaults. */
function limits(constants = {}) {
  const pick = (...names) => names.map((n) => constants[n]).find((v) => v !== undefined);
  const boardSize = pick('boardSize', 'BOARD_SIZE', 'board_size') ?? DEFAULT_CONSTANTS.boardSize;
  return {
    boardSize,
    numSquares: pick('numSquares', 'NUM_SQUARES', 'num_squares') ?? boardSize * boardSize,
    maxGamePlies: pick('maxGamePlies', 'MAX_GAME_PLIES', 'max_game_plies') ?? DEFAULT_CONSTANTS.maxGamePlies,
    version: pick('version') ?? DEFAULT_CONSTANTS.version,
  };
}

// Numbers written as text: ASCII decimal notation only, as popucom/limits.py's DECIMAL_TEXT and
// WHOLE_TEXT (Number() alone would take '0x1', '0b1' and a blank as 0).
const DECIMAL_TEXT = /^[ \t\r\n]*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?[ \t\r\n]*$/i;
const WHOLE_TEXT = /^[ \t\r\n]*[-+]?\d+[ \t\r\n]*$/;
const decimal = (text) => (DECIMAL_TEXT.test(text) ? Number(text) : NaN);

/** popucom.limits.check_komi: a whole number within the board's floors, from a number or text. */
export function checkKomi(value, numSquares = DEFAULT_CONSTANTS.numSquares) {
  let number = value;
  if (typeof value === 'string') number = decimal(value);
  if (typeof number !== 'number' || !Number.isFinite(number) || !Number.isInteger(number) || Math.abs(number) > numSquares) {
    throw new RecordError('record.badKomi', { value: quoted(value), max: numSquares });
  }
  return number;
}

// --- writing ------------------------------------------------------------------------------
const escape = (text) => String(text).replaceAll('\\', '\\\\').replaceAll(']', '\\]');

function nodeProps(node) {
  const props = [];
  if (node.move !== null) props.push([node.colour === 'black' ? 'B' : 'W', node.move]);
  if (node.comment) props.push(['C', node.comment]);
  if (node.analysis) {
    const a = node.analysis;
    props.push(['ZA', `${Math.trunc(a.visits)}:${a.blackWinrate.toFixed(4)}:${a.blackScore.toFixed(2)}`]);
  }
  return props.map(([key, value]) => `${key}[${escape(value)}]`).join('');
}

/** A node and its line, then its variations in parentheses (records.py _sequence_text). */
function sequenceText(node) {
  const parts = [`;${nodeProps(node)}`];
  while (node.children.length === 1) {
    node = node.children[0];
    parts.push(`;${nodeProps(node)}`);
  }
  node.children.forEach((child) => parts.push(`\n(${sequenceText(child)})`));
  return parts.join('');
}

/** The whole tree as SGF text (the root's game info first, then its own comment and analysis). */
export function toSgf(tree, constants) {
  const { boardSize, version } = limits(constants);
  const info = [
    ['GM', GAME_ID],
    ['FF', '4'],
    ['CA', 'UTF-8'],
    ['AP', `popucom:${version}`],
    ['SZ', String(boardSize)],
    ['KM', String(tree.komi)],
  ];
  GAME_INFO.forEach((key) => tree.properties[key] && info.push([key, tree.properties[key]]));
  const head = ';' + info.map(([key, value]) => `${key}[${escape(value)}]`).join('');
  const body = sequenceText(tree.root).slice(1 + nodeProps(tree.root).length);
  return `(${head}${nodeProps(tree.root)}${body})\n`;
}

/** The line through the current node as one JSONL record (with the result when it ended). */
export function toJsonl(tree) {
  const moves = tree.currentLine().slice(1).map((node) => node.move);
  const record = { moves: moves.join(' '), komi: tree.komi };
  const game = tree.rules.newGame(tree.komi);
  try {
    moves.forEach((move) => game.play(move));
    if (game.over) Object.assign(record, { result: game.result, score: game.score, end: String(game.endReason).replaceAll('-', '_') });
  } finally {
    game.free();
  }
  record.black = tree.properties.PB ?? '';
  record.white = tree.properties.PW ?? '';
  return JSON.stringify(record) + '\n';
}

/** RE as SGF writes it (B+3, W+1, 0) from a result and a score. */
export function resultText(result, score, numSquares = DEFAULT_CONSTANTS.numSquares) {
  if (typeof result !== 'string' || !Object.hasOwn(RESULTS, result)) {
    throw new RecordError('record.badResult', { value: quoted(result) });
  }
  if (typeof score !== 'number' || !Number.isFinite(score) || Math.abs(score) > numSquares) {
    throw new RecordError('record.badScore', { value: quoted(score), max: numSquares });
  }
  return RESULTS[result] + (result === 'draw' ? '' : String(Math.abs(score)));
}

// --- reading SGF --------------------------------------------------------------------------
/** Recursive-descent SGF syntax over its own stack: GameTree = "(" Node+ GameTree* ")". */
class SgfParser {
  constructor(text, maxNesting) {
    this.text = text;
    this.i = 0;
    this.maxNesting = maxNesting;
  }

  error(key, params = {}) {
    let line = 1;
    for (let j = 0; j < this.i && j < this.text.length; j++) if (this.text[j] === '\n') line++;
    return new RecordError(key, { line, ...params });
  }

  peek() {
    while (this.i < this.text.length && /\s/.test(this.text[this.i])) this.i++;
    return this.i < this.text.length ? this.text[this.i] : '';
  }

  expect(char) {
    const found = this.peek();
    if (found !== char) throw this.error('sgf.expected', { char, found: found ? `'${found}'` : 'EOF' });
    this.i++;
  }

  /** The outermost game tree as [nodes, variations], each variation the same pair. */
  gameTree() {
    this.expect('(');
    const root = [this.sequence(), []];
    const open = [root]; // trees whose ')' is still to come, innermost last
    while (open.length) {
      if (this.peek() === '(') {
        if (open.length >= this.maxNesting) throw this.error('sgf.tooDeep', { max: this.maxNesting });
        this.i++;
        const variation = [this.sequence(), []];
        open[open.length - 1][1].push(variation);
        open.push(variation);
      } else {
        this.expect(')');
        open.pop();
      }
    }
    return root;
  }

  sequence() {
    const nodes = [];
    while (this.peek() === ';') {
      this.i++;
      nodes.push(this.node());
    }
    if (!nodes.length) throw this.error('sgf.noNode');
    return nodes;
  }

  node() {
    const props = new Map();
    while (/[A-Za-z]/.test(this.peek())) {
      const start = this.i;
      while (this.i < this.text.length && /[A-Za-z]/.test(this.text[this.i])) this.i++;
      const key = this.text.slice(start, this.i);
      if (key !== key.toUpperCase()) throw this.error('sgf.lowerCase', { key: quoted(key) });
      const values = [];
      while (this.peek() === '[') values.push(this.value());
      if (!values.length) throw this.error('sgf.noValue', { key: quoted(key) });
      props.set(key, [...(props.get(key) ?? []), ...values]);
    }
    return props;
  }

  value() {
    this.i++; // '['
    const out = [];
    for (;;) {
      if (this.i >= this.text.length) throw this.error('sgf.unclosed');
      const c = this.text[this.i];
      if (c === '\\') {
        if (this.i + 1 >= this.text.length) throw this.error('sgf.endInEscape');
        const next = this.text[this.i + 1];
        if (next !== '\n') out.push(next); // an escaped newline is a soft line break: removed
        this.i += 2;
        continue;
      }
      this.i++;
      if (c === ']') return out.join('');
      out.push(c);
    }
  }
}

/** ZA[visits:winrate:score] as an analysis, range-checked (a NaN would reach the chart). */
function parseAnalysis(text, number, numSquares) {
  const parts = text.split(':');
  if (parts.length !== 3 || !WHOLE_TEXT.test(parts[0]) || !DECIMAL_TEXT.test(parts[1]) || !DECIMAL_TEXT.test(parts[2])) {
    throw new RecordError('sgf.badAnalysis', { node: number, value: quoted(text) });
  }
  const [visits, winrate, score] = parts.map(Number);
  // Visits up to popucom/gui/records.py's MAX_ANALYSIS_VISITS: the largest whole number held exactly.
  if (!(visits >= 0 && visits <= Number.MAX_SAFE_INTEGER && winrate >= 0 && winrate <= 1 && Math.abs(score) <= numSquares)) {
    throw new RecordError('sgf.analysisRange', { node: number, value: quoted(text), max: numSquares });
  }
  return { visits, blackWinrate: winrate, blackScore: score };
}

/** The reason an illegal move was refused, without rules.js's "illegal move: " prefix. */
export function illegalReason(error) {
  return String(error?.message ?? error).replace(/^illegal move:\s*/i, '');
}

function applyNode(tree, props, number, numSquares) {
  const moves = ['B', 'W'].flatMap((colour) => (props.get(colour) ?? []).map((text) => [colour, text]));
  if (moves.length > 1) throw new RecordError('sgf.twoMoves', { node: number });
  if (moves.length) {
    const [colour, text] = moves[0];
    const toMove = tree.game.toMove === 'black' ? 'B' : 'W';
    if (colour !== toMove) {
      throw new RecordError('sgf.wrongTurn', { node: number, move: `${colour}[${quoted(text)}]`, side: { key: tree.game.toMove } });
    }
    try {
      tree.play(text);
    } catch (error) {
      throw new RecordError('sgf.illegal', { node: number, move: `${colour}[${quoted(text)}]`, reason: illegalReason(error), mover: tree.game.toMove });
    }
  }
  if (props.has('C')) tree.current.comment = props.get('C').join('\n');
  if (props.has('ZA')) tree.current.analysis = parseAnalysis(props.get('ZA')[0], number, numSquares);
}

/** SGF text as a GameTree (its current node the root); RecordError naming any problem. */
export function fromSgf(text, rules, constants) {
  const { boardSize, numSquares, maxGamePlies } = limits(constants);
  checkSize(text);
  const parser = new SgfParser(text, 10 * maxGamePlies);
  const [nodes, variations] = parser.gameTree();
  if (parser.peek()) throw parser.error('sgf.trailing');
  const info = nodes[0];
  const first = (key, fallback) => (info.get(key) ?? [fallback])[0];
  if (first('GM', GAME_ID) !== GAME_ID) throw new RecordError('sgf.otherGame', { value: quoted(first('GM')), id: GAME_ID });
  if (first('SZ', String(boardSize)) !== String(boardSize)) {
    throw new RecordError('sgf.boardSize', { value: quoted(first('SZ')), size: boardSize });
  }
  const komi = checkKomi(first('KM', '0'), numSquares);
  const properties = {};
  GAME_INFO.forEach((key) => info.has(key) && (properties[key] = info.get(key)[0]));
  const tree = new GameTree(rules, komi, properties);
  try {
    // Depth first in the file's order: (the node a sequence starts from, its nodes, its variations).
    const pending = [[tree.root, nodes, variations]];
    let number = 0;
    while (pending.length) {
      const [start, sequence, branches] = pending.pop();
      tree.goTo(start);
      for (const props of sequence) applyNode(tree, props, ++number, numSquares);
      for (let b = branches.length - 1; b >= 0; b--) pending.push([tree.current, ...branches[b]]);
    }
    tree.toStart();
  } catch (error) {
    tree.free();
    throw error;
  }
  return tree;
}

// --- reading JSONL ------------------------------------------------------------------------
function checkSize(text) {
  if (text.length > MAX_RECORD_BYTES) throw new RecordError('record.tooBig', { max: MAX_RECORD_BYTES / (1024 * 1024) });
}

function squareText(index, boardSize) {
  return String.fromCharCode(97 + (index % boardSize)) + String(Math.floor(index / boardSize) + 1);
}

/** A record's `moves` (a text `e5 d4 ..` or a list of squares, names or indexes) as names. */
function recordMoves(moves, numSquares, boardSize) {
  if (typeof moves === 'string') return moves.split(/[\s,;]+/).filter(Boolean);
  if (!Array.isArray(moves)) throw new RecordError('jsonl.badMoves', { type: moves === null ? 'null' : typeof moves });
  return moves.map((move, i) => {
    if (typeof move === 'string') return move;
    if (Number.isInteger(move) && move >= 0 && move < numSquares) return squareText(move, boardSize);
    throw new RecordError('jsonl.badMove', { number: i + 1, value: quoted(JSON.stringify(move)) });
  });
}

/** One JSONL line as {info, tree}; RecordError naming the field at fault. */
function recordGame(line, rules, lim) {
  let record;
  try {
    record = JSON.parse(line);
  } catch (error) {
    throw new RecordError('jsonl.notJson', { reason: quoted(error.message) });
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new RecordError('jsonl.notObject', { type: Array.isArray(record) ? 'array' : record === null ? 'null' : typeof record });
  }
  if (!('moves' in record)) throw new RecordError('jsonl.noMoves');
  const moves = recordMoves(record.moves, lim.numSquares, lim.boardSize);
  if (moves.length > lim.maxGamePlies) throw new RecordError('jsonl.tooLong', { count: moves.length, max: lim.maxGamePlies });
  const komi = checkKomi('komi' in record ? record.komi : 0, lim.numSquares); // null is no komi, as in records.py
  const info = { PB: String(record.black ?? '').slice(0, 200), PW: String(record.white ?? '').slice(0, 200) };
  if ('result' in record) info.RE = resultText(record.result, 'score' in record ? record.score : 0, lim.numSquares);
  const game = rules.newGame(komi);
  try {
    moves.forEach((move, i) => {
      try {
        game.play(move);
      } catch (error) {
        throw new RecordError('jsonl.illegal', { number: i + 1, move: quoted(move), reason: illegalReason(error), mover: game.toMove });
      }
    });
  } finally {
    game.free();
  }
  return lazyGame(rules, info, komi, moves);
}

/**
 * A game read from a record file, its tree made when first asked for and again after it was
 * freed: a file of thousands of games holds no rules game of its own until one is opened.
 */
function lazyGame(rules, info, komi, moves) {
  let tree = null;
  return {
    info,
    moves: moves.length,
    get tree() {
      if (!tree?.game) tree = GameTree.fromMoves(rules, moves, komi, info);
      return tree;
    },
  };
}

/** Every game of a JSONL text as [{info, tree, moves}]; RecordError naming the line. */
export function fromJsonl(text, rules, constants) {
  const lim = limits(constants);
  checkSize(text);
  const games = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      games.push(recordGame(line, rules, lim));
    } catch (error) {
      const reason = error instanceof RecordError ? error : String(error.message ?? error);
      throw new RecordError('jsonl.line', { line: i + 1, reason });
    }
  });
  if (!games.length) throw new RecordError('jsonl.empty');
  return games;
}

/**
 * A record file's text as [{info, tree, moves}] (one game for SGF), choosing the format from the
 * file name (.jsonl/.json: JSONL, otherwise SGF; a text starting with '{' is JSONL too).
 */
export function readRecord(text, filename, rules, constants) {
  checkSize(text);
  const name = String(filename ?? '').toLowerCase();
  const jsonl = /\.jsonl?$/.test(name) || (!/\.sgf$/.test(name) && text.trimStart().startsWith('{'));
  if (jsonl) return fromJsonl(text, rules, constants);
  const tree = fromSgf(text, rules, constants);
  return [{ info: tree.properties, tree, moves: tree.mainLine().length - 1 }];
}
