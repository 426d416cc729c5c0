// The page's controller: one game tree, the mode and the level, wired to the board, the tree
// panel, the analysis panel, the record files and the language. Everything visible is redrawn
// from the tree by render(); the engine worker (engine_client.js) searches off the main thread.
//
// One search at a time: every search carries a token; cancelling bumps the token (its late
// result is dropped) and waits for the worker's `done`. "Move now" stops the running search
// without bumping it, so the AI plays the best move found so far.

import { AnalysisView } from './analysis_view.js';
import { BoardView } from './board_view.js';
import { bindControls } from './controls.js';
import { GameTree } from './game_tree.js';
import { applyLanguage, LANGUAGES, pickLanguage, translate } from './i18n.js';
import { levelDescription, levelEntry } from './levels.js';
import { downloadText, readFileText } from './record_files.js';
import { readRecord, resultText, toJsonl, toSgf } from './records.js';
import { TreeView } from './tree_view.js';

const $ = (id) => document.getElementById(id);
const AI_AI_DELAY_MS = 300; // a pause between two AIs' moves, to watch them
const ANALYSIS_VISITS = 1_000_000; // "until stopped", where constants.json gives no cap
const MODES = ['human-black', 'human-white', 'human-human', 'ai-ai'];
const LANG_KEY = 'popucom.lang';

export class App {
  constructor(rules, constants, levels) {
    this.rules = rules;
    this.constants = constants;
    this.levels = levels;
    this.engine = null; // the EngineClient once started
    this.engineStarting = Promise.reject(new Error('no engine')); // main.js sets the real start
    this.engineStarting.catch(() => {});
    this.mode = 'human-black';
    this.level = levels[levels.length - 1];
    this.lang = this.initialLanguage();
    this.seed = null; // null: a fresh random seed each game
    this.visits = null; // null: the level's own
    this.searchParams = {}; // search settings over the level's (newGame's `params`)
    this.messageKey = null; // the message shown, kept as key + params to follow the language
    this.thinking = null; // null | 'move' | 'analysis'
    this.searchToken = 0;
    this.pending = null; // the running search's promise
    this.analyzing = false;
    this.previewLine = [];
    this.shown = null; // {node, analysis, toMove}: the search result on screen
    this.recordGames = []; // the games of the last JSONL file opened
    this.tree = new GameTree(rules, 0, this.gameInfo());
    this.board = new BoardView($('board'), (square) => this.clickSquare(square), constants.boardSize ?? 9);
    this.treeView = new TreeView($('tree'), (node) => this.navigate(() => this.tree.goTo(node)));
    this.analysisView = new AnalysisView(
      $('analysis'),
      $('winrate-chart'),
      (line) => this.preview(line),
      (node) => this.navigate(() => this.tree.goTo(node)),
    );
    bindControls(this);
    this.fillLevels();
    this.messageKey = ['loading', {}];
    this.setLang(this.lang);
  }

  initialLanguage() {
    const stored = globalThis.localStorage?.getItem(LANG_KEY);
    return stored in LANGUAGES ? stored : pickLanguage(navigator.languages ?? [navigator.language]);
  }

  t(key, params) {
    return translate(this.lang, key, params);
  }

  setComment(text) {
    this.tree.current.comment = text;
    this.treeView.render(this.tree, this.lang);
  }

  fillLevels() {
    const select = $('level-select');
    select.replaceChildren(...this.levels.map((level) => new Option(levelEntry(level, this.lang), level.name)));
    select.value = this.level.name;
    $('level-description').textContent = levelDescription(this.level, this.lang);
  }

  setLang(lang) {
    if (!(lang in LANGUAGES)) throw new Error(`unknown language '${lang}' (known: ${Object.keys(LANGUAGES).join(', ')})`);
    this.lang = lang;
    globalThis.localStorage?.setItem(LANG_KEY, lang);
    $('lang-select').value = lang;
    applyLanguage(document, lang);
    document.title = this.t('title');
    this.fillLevels();
    const chosen = $('record-games').value;
    this.showRecordChooser(this.recordGames);
    $('record-games').value = chosen;
    this.render();
  }

  async setMode(mode) {
    if (!MODES.includes(mode)) throw new Error(`unknown mode '${mode}' (known: ${MODES.join(', ')})`);
    this.mode = mode;
    $('mode-select').value = mode;
    this.tree.properties = { ...this.tree.properties, ...this.players() };
    if (this.thinking === 'move' && !this.isAiTurn()) await this.cancelSearch();
    this.render();
    this.afterPositionChange();
  }

  setLevel(name) {
    const level = this.levels.find((l) => l.name === name);
    if (!level) throw new Error(`unknown level '${name}' (known: ${this.levels.map((l) => l.name).join(', ')})`);
    this.level = level;
    $('level-select').value = name;
    $('level-description').textContent = levelDescription(level, this.lang);
    this.tree.properties = { ...this.tree.properties, ...this.players() };
  }

  // --- messages and drawing -------------------------------------------------------------
  say(key, params = {}) {
    this.messageKey = [key, params];
    $('message').textContent = this.t(key, params);
    $('message').classList.toggle('is-error', /^(illegal|cannotOpen|aiFailed|engineFailed|notYourTurn|aiTurn|overNoMove)$/.test(key));
  }

  /** The game's result as a message parameter: `Black wins (floors +3)` in any language. */
  resultText(game) {
    const winner = `result.${game.result}`;
    const margin = game.score + this.tree.komi;
    const how = endReasonName(game.endReason) === 'no_legal_move'
      ? { key: 'end.no_legal_move' }
      : { key: 'floors', params: { margin: (margin >= 0 ? '+' : '') + margin } };
    return (lang) => translate(lang, 'resultHow', { winner: { key: winner }, how });
  }

  statusText(game) {
    const cells = game.cells();
    const floors = (colour) => cells.filter((cell) => cell.floor === colour).length;
    const left = game.movesLeft;
    const turn = game.over ? this.t('gameOver', { result: this.resultText(game) }) : this.t(`turn.${game.toMove}`);
    return this.t('status', {
      blackLeft: left.black, blackFloors: floors('black'), whiteLeft: left.white, whiteFloors: floors('white'), komi: this.tree.komi, turn,
    });
  }

  /** Redraws everything from the tree (after a move, a navigation, a load, a language change). */
  render() {
    if (this.messageKey) this.say(...this.messageKey);
    const game = this.tree.game;
    const node = this.tree.current;
    this.renderBoard();
    $('status').textContent = this.statusText(game);
    this.treeView.render(this.tree, this.lang);
    this.renderAnalysis();
    const comment = $('comment');
    if (comment.value !== node.comment) comment.value = node.comment;
    $('move-now').disabled = game.over && this.thinking !== 'move';
    $('analyze').setAttribute('aria-pressed', String(this.analyzing));
    $('analyze').classList.toggle('active', this.analyzing);
    $('analyze').textContent = this.t(this.analyzing ? 'stopAnalysis' : 'analyze');
    document.body.classList.toggle('thinking', this.thinking === 'move');
  }

  renderAnalysis() {
    const node = this.tree.current;
    const shown = this.shown?.node === node ? this.shown : null;
    let note = '';
    if (!shown && node.analysis) {
      const a = node.analysis;
      note = this.t('storedAnalysis', { winrate: (100 * a.blackWinrate).toFixed(1), score: (a.blackScore >= 0 ? '+' : '') + a.blackScore.toFixed(1), visits: a.visits });
    } else if (!shown && this.analyzing) note = this.t('analysing');
    this.analysisView.render(shown?.analysis, shown?.toMove ?? this.tree.game.toMove, this.lang, note);
    this.analysisView.renderChart(this.tree.currentLine(), node, this.lang, this.constants.maxGamePlies ?? 50);
  }

  /** The board: the position, the squares a human may play, the heat map and a PV preview. */
  renderBoard() {
    const game = this.tree.game;
    const node = this.tree.current;
    const humanTurn = !game.over && !this.isAiTurn() && this.thinking !== 'move';
    const shown = this.shown?.node === node ? this.shown : null;
    this.board.render({
      cells: game.cells(),
      legal: humanTurn ? game.legalMoves() : new Set(),
      lastMove: node.move,
      heat: shown ? visitShares(shown.analysis) : null,
      preview: this.previewLine,
    });
  }

  preview(line) {
    const same = line.length === this.previewLine.length && line.every((step, i) => step.move === this.previewLine[i].move);
    if (same) return;
    this.previewLine = line;
    this.renderBoard();
  }

  // --- playing --------------------------------------------------------------------------
  isAiTurn(game = this.tree.game) {
    const black = game.toMove === 'black';
    return { 'human-black': !black, 'human-white': black, 'human-human': false, 'ai-ai': true }[this.mode];
  }

  clickSquare(square) {
    const game = this.tree.game;
    if (this.thinking === 'move') return this.say('aiTurn', { square });
    if (game.over) return this.say('overNoMove', { square, result: this.resultText(game) });
    if (this.isAiTurn()) return this.say('notYourTurn', { square });
    const mover = game.toMove;
    try {
      this.tree.play(square);
    } catch (error) {
      return this.say('illegal', { square, reason: String(error.message ?? error).replace(/^illegal move:\s*/i, ''), mover });
    }
    this.afterMove();
  }

  async afterMove() {
    this.previewLine = [];
    this.messageKey = null;
    $('message').textContent = '';
    await this.cancelSearch();
    this.render();
    this.afterPositionChange();
  }

  /** Starts what the new position asks for: the AI's move, the analysis, or nothing. */
  afterPositionChange() {
    const game = this.tree.game;
    if (game.over) {
      this.tree.properties.RE = resultText(game.result, game.score + this.tree.komi);
      this.say('gameOver', { result: this.resultText(game) });
      this.render();
    } else if (this.isAiTurn() && this.thinking === null) {
      if (this.mode !== 'ai-ai' || !this.tree.current.parent) return this.aiMove();
      const token = this.searchToken; // a pause to watch two AIs, unless something else happens
      setTimeout(() => token === this.searchToken && this.thinking === null && this.isAiTurn() && this.aiMove(), AI_AI_DELAY_MS);
    } else if (this.analyzing && this.thinking === null) {
      this.search('analysis');
    }
  }

  aiMove() {
    if (this.tree.game.over) return this.say('gameOver', { result: this.resultText(this.tree.game) });
    this.say('thinking', { level: { key: `level.${this.level.name}` } });
    this.search('move');
  }

  searchRequest(kind) {
    const params = { ...this.level.params, ...this.searchParams };
    if (this.visits !== null) params.visits = this.visits;
    if (kind === 'analysis') params.visits = this.constants.max_visits ?? ANALYSIS_VISITS;
    return {
      moves: this.tree.current.moves(),
      komi: this.tree.komi,
      model: this.level.model,
      params,
      seed: this.gameSeed,
      temperature: kind === 'move' ? this.level.temperature : 0,
      temperaturePlies: kind === 'move' ? this.level.temperaturePlies : 0,
      reportEveryMs: 200,
      analysis: kind === 'analysis',
    };
  }

  /** Runs one search at the current node; a 'move' search plays its move there when it ends. */
  async search(kind) {
    const token = ++this.searchToken;
    const node = this.tree.current;
    const toMove = this.tree.game.toMove;
    this.thinking = kind;
    this.render();
    if (!this.engine) {
      try {
        this.engine = await this.engineStarting; // a move asked for while the engine still loads
      } catch (error) {
        if (token === this.searchToken) this.thinking = null;
        this.say('engineFailed', { error });
        return this.render();
      }
      if (token !== this.searchToken) return;
    }
    const onProgress = (analysis) => {
      if (token !== this.searchToken) return;
      this.shown = { node, analysis, toMove };
      storeAnalysis(node, analysis, toMove);
      if (this.tree.current === node) this.renderLive();
    };
    this.pending = this.engine.search(this.searchRequest(kind), onProgress);
    let done;
    try {
      done = await this.pending;
    } catch (error) {
      if (token === this.searchToken) {
        this.thinking = null;
        this.say('aiFailed', { error });
        this.render();
      }
      return;
    } finally {
      if (token === this.searchToken) this.pending = null;
    }
    if (token !== this.searchToken) return; // cancelled: the position moved on
    this.thinking = null;
    if (done?.analysis) onProgress(done.analysis);
    if (kind === 'move' && this.tree.current === node) this.playAiMove(done);
    else this.render();
  }

  playAiMove(done) {
    try {
      this.tree.play(done.move);
    } catch (error) {
      this.say('aiFailed', { error });
      return this.render();
    }
    const a = done.analysis;
    this.render();
    this.afterPositionChange();
    if (!this.tree.game.over && this.thinking !== 'move') {
      this.say('aiPlayed', { move: done.move, visits: a?.visits ?? 0, winrate: a ? (100 * a.winrate).toFixed(1) : '–' });
    }
  }

  /** Only the board, the analysis and the chart: what a search's progress changes. */
  renderLive() {
    this.renderBoard();
    this.renderAnalysis();
  }

  /** Ends the running search (or one waiting for the engine) and drops its result. */
  async cancelSearch() {
    this.searchToken++;
    this.thinking = null;
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    this.engine.stop();
    await pending.catch(() => {});
  }

  /** Esc / Move now: a thinking AI plays its best move so far; an idle one moves for the side to move. */
  moveNow() {
    if (this.thinking === 'move') return this.engine?.stop();
    if (this.tree.game.over) return this.say('gameOver', { result: this.resultText(this.tree.game) });
    this.cancelSearch().then(() => this.aiMove());
  }

  async toggleAnalysis() {
    this.analyzing = !this.analyzing;
    if (!this.analyzing && this.thinking === 'analysis') await this.cancelSearch();
    if (this.analyzing && this.thinking === null) {
      if (this.tree.game.over) {
        this.analyzing = false;
        this.say('analysisOver');
      } else this.search('analysis');
    }
    this.render();
  }

  /** Moves in the tree by `step` (a GameTree call); a thinking AI stops as in the Qt GUI,
   * and a running analysis follows to the new position. */
  async navigate(step) {
    const before = this.tree.current;
    step();
    if (this.tree.current === before) return;
    this.previewLine = [];
    if (this.thinking !== null) await this.cancelSearch();
    this.render();
    if (this.analyzing && !this.tree.game.over) this.search('analysis');
  }

  promoteCurrent() {
    this.tree.promote(this.tree.current);
    this.render();
  }

  async deleteCurrent() {
    if (!this.tree.current.parent) return;
    await this.cancelSearch();
    this.tree.delete(this.tree.current);
    this.render();
  }

  /** Takes back the last move, and the AI's reply before it, back to a human's turn. */
  async undo() {
    await this.cancelSearch();
    if (!this.tree.current.parent) return this.say('nothingToUndo');
    do {
      const node = this.tree.current;
      this.tree.back();
      if (!node.children.length) this.tree.delete(node);
    } while (this.tree.current.parent && this.isAiTurn() && this.mode !== 'ai-ai');
    this.say('undone');
    this.render();
  }

  players() {
    const ai = `popucom ${this.level.name}`;
    const you = this.mode === 'human-human' ? '' : 'you';
    return {
      PB: this.mode === 'human-white' || this.mode === 'ai-ai' ? ai : you,
      PW: this.mode === 'human-black' || this.mode === 'ai-ai' ? ai : you,
    };
  }

  gameInfo() {
    return { ...this.players(), DT: new Date().toISOString().slice(0, 10) };
  }

  async newGame({ mode, level, seed, visits, params } = {}) {
    if (mode !== undefined && !MODES.includes(mode)) throw new Error(`unknown mode '${mode}' (known: ${MODES.join(', ')})`);
    await this.cancelSearch();
    if (level !== undefined) this.setLevel(level);
    if (mode !== undefined) this.mode = mode;
    $('mode-select').value = this.mode;
    if (seed !== undefined) this.seed = seed;
    if (visits !== undefined) this.visits = visits;
    if (params !== undefined) this.searchParams = { ...params };
    this.gameSeed = this.seed ?? Math.floor(Math.random() * 2 ** 31);
    this.replaceTree(new GameTree(this.rules, 0, this.gameInfo()));
    this.recordGames = [];
    this.showRecordChooser([]);
    this.engine?.newGame();
    this.say('turn.black');
    this.render();
    this.afterPositionChange();
  }

  /** Makes `tree` the game shown and frees the one shown before (a game of a record file is
   * read again from the file when chosen again). */
  replaceTree(tree) {
    if (this.tree !== tree) this.tree.free();
    this.tree = tree;
    this.shown = null;
    this.previewLine = [];
  }

  // --- records --------------------------------------------------------------------------
  async openFile(input) {
    const file = input.files?.[0];
    input.value = ''; // the same file can be chosen again
    if (!file) return;
    try {
      await this.loadRecordText(await readFileText(file), file.name);
    } catch (error) {
      this.say('cannotOpen', { name: file.name, error });
    }
  }

  /** Opens a record's text; on any problem says why and keeps the current game. */
  async loadRecordText(text, filename = 'game.sgf') {
    let games;
    try {
      games = readRecord(String(text), filename, this.rules, this.constants);
    } catch (error) {
      this.say('cannotOpen', { name: filename, error });
      return false;
    }
    await this.cancelSearch();
    this.replaceTree(games[0].tree);
    this.recordGames = games.length > 1 ? games : [];
    this.showRecordChooser(this.recordGames);
    this.mode = 'human-human'; // a game opened is reviewed: no AI moves by itself
    $('mode-select').value = this.mode;
    this.say('opened', { name: filename });
    this.render();
    return true;
  }

  showRecordChooser(games) {
    const select = $('record-games');
    $('record-games-label').hidden = games.length < 2;
    select.replaceChildren(
      ...(games.length < 2 ? [] : games).map((game, i) =>
        new Option(this.t('gameEntry', { number: i + 1, black: game.info.PB || '?', white: game.info.PW || '?', result: game.info.RE || '?', moves: game.moves }), String(i)),
      ),
    );
  }

  async chooseRecordGame(index) {
    const game = this.recordGames[index];
    if (!game) return;
    await this.cancelSearch();
    this.replaceTree(game.tree);
    this.tree.toStart();
    this.render();
  }

  saveRecordText(format) {
    if (format === 'sgf') return toSgf(this.tree, this.constants);
    if (format === 'jsonl') return toJsonl(this.tree);
    throw new Error(`unknown record format '${format}' (sgf or jsonl)`);
  }

  download(format) {
    const stamp = new Date().toISOString().slice(0, 16).replace(/[-:T]/g, '');
    const name = `popucom-${stamp}.${format}`;
    downloadText(name, this.saveRecordText(format), format === 'sgf' ? 'application/x-go-sgf' : 'application/jsonl');
    this.say('saved', { name });
  }

  // --- the test hook --------------------------------------------------------------------
  state() {
    const game = this.tree.game;
    return {
      moves: this.tree.current.moves(),
      toMove: game.toMove,
      over: game.over,
      result: game.result,
      mode: this.mode,
      level: this.level.name,
      lang: this.lang,
      message: $('message').textContent,
      thinking: this.thinking !== null,
    };
  }
}

/** An end reason as the records spell it (no_legal_move, moves_exhausted). */
export function endReasonName(reason) {
  return reason === null || reason === undefined ? null : String(reason).replaceAll('-', '_');
}

/** A search's visits as shares of the most visited move, for the heat map. */
function visitShares(analysis) {
  const moves = analysis?.moves ?? [];
  const most = Math.max(0, ...moves.map((m) => m.visits));
  return new Map(most > 0 ? moves.map((m) => [m.move, m.visits / most]) : []);
}

/** Keeps a search's summary on its node, from Black's point of view (saved as ZA), unless the
 * node holds one of more visits (a file's deeper analysis outlives a glance). */
function storeAnalysis(node, analysis, toMove) {
  if (!analysis?.visits || (node.analysis?.visits ?? 0) > analysis.visits) return;
  const black = toMove === 'black';
  node.analysis = {
    visits: analysis.visits,
    blackWinrate: black ? analysis.winrate : 1 - analysis.winrate,
    blackScore: black ? analysis.score : -analysis.score,
  };
}

