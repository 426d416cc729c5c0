// The game tree a player reviews: every move a node, other moves from the same position
// variations. Pure data (no DOM, no wasm of its own): the rules come in as a `rules` object
// with rules.js's API (newGame(komi) -> Game with play/copy/free/toMove/...), so tests can
// pass a stand-in. Mirrors popucom/gui/game_tree.py.
//
// A node's first child continues its line (the main line from the root follows first
// children); promoting a node makes it the first child at every branch above it. A node
// stores its move and its mover, not a position: the position of the current node is one
// Game kept by the tree and replayed from the root when the current node jumps (a game has at
// most 50 moves, so a replay is cheap, and only one wasm game is alive per tree).
// `analysis` holds a node's last search summary {visits, blackWinrate, blackScore}.

export class Node {
  constructor(move, colour, parent) {
    this.move = move; // 'e5', or null at the root
    this.colour = colour; // the mover: 'black' | 'white', null at the root
    this.parent = parent;
    this.children = [];
    this.comment = '';
    this.analysis = null;
    this.depth = parent ? parent.depth + 1 : 0;
  }

  /** From the root down to this node. */
  path() {
    const nodes = [];
    for (let node = this; node; node = node.parent) nodes.push(node);
    return nodes.reverse();
  }

  /** The moves from the root to this node. */
  moves() {
    return this.path().slice(1).map((node) => node.move);
  }

  lineEnd() {
    let node = this;
    while (node.children.length) node = node.children[0];
    return node;
  }

  root() {
    let node = this;
    while (node.parent) node = node.parent;
    return node;
  }

  /** A node that starts a variation: not the first child of its parent. */
  get isVariationHead() {
    return this.parent !== null && this.parent.children[0] !== this;
  }
}

export class GameTree {
  /** An empty game with `komi`; `properties` is the game info (PB, PW, RE, DT, GN, EV). */
  constructor(rules, komi = 0, properties = {}) {
    this.rules = rules;
    this.komi = komi;
    this.properties = { ...properties };
    this.root = new Node(null, null, null);
    this.current = this.root;
    this.game = rules.newGame(komi); // the position at `current`
  }

  /** A tree holding one line of moves, its current node the root. Throws on an illegal move. */
  static fromMoves(rules, moves, komi = 0, properties = {}) {
    const tree = new GameTree(rules, komi, properties);
    try {
      moves.forEach((move) => tree.play(move));
    } catch (error) {
      tree.free();
      throw error;
    }
    tree.toStart();
    return tree;
  }

  /** Releases the wasm game; the tree is unusable afterwards. */
  free() {
    this.game?.free();
    this.game = null;
  }

  /**
   * Plays `move` at the current node: goes to the existing child for it or adds a new one
   * (a variation when the node already has children). Throws the rules' error, with its
   * reason, for an illegal move; the tree is unchanged then.
   */
  play(move) {
    const text = String(move).trim().toLowerCase();
    const existing = this.current.children.find((child) => child.move === text);
    if (existing) return this.goTo(existing);
    const colour = this.game.toMove;
    this.game.play(text); // throws with the reason; the game is unchanged then
    const child = new Node(text, colour, this.current);
    this.current.children.push(child);
    this.current = child;
    return child;
  }

  // --- navigation -------------------------------------------------------------------------
  goTo(node) {
    if (node.root() !== this.root) throw new Error('that node is not in this game tree');
    if (node === this.current) return node;
    if (node.parent === this.current) {
      this.game.play(node.move);
    } else {
      this.game.free();
      this.game = this.rules.newGame(this.komi);
      node.moves().forEach((move) => this.game.play(move));
    }
    this.current = node;
    return node;
  }

  back() {
    if (!this.current.parent) return false;
    this.goTo(this.current.parent);
    return true;
  }

  forward() {
    if (!this.current.children.length) return false;
    this.goTo(this.current.children[0]);
    return true;
  }

  toStart() {
    this.goTo(this.root);
  }

  toEnd() {
    this.goTo(this.current.lineEnd());
  }

  /** Moves to the previous (-1) or next (+1) variation at the current node's branch. */
  sibling(step) {
    const parent = this.current.parent;
    if (!parent) return false;
    const i = parent.children.indexOf(this.current) + step;
    if (i < 0 || i >= parent.children.length) return false;
    this.goTo(parent.children[i]);
    return true;
  }

  // --- editing ----------------------------------------------------------------------------
  /** Removes a node and everything below it; the current node moves to its parent if inside. */
  delete(node) {
    if (!node.parent) throw new Error('the start of the game cannot be deleted');
    let inside = this.current;
    while (inside && inside !== node) inside = inside.parent;
    if (inside === node) this.goTo(node.parent);
    node.parent.children.splice(node.parent.children.indexOf(node), 1);
  }

  /** Makes the line through `node` the main line: first child at every branch above. */
  promote(node) {
    for (; node.parent; node = node.parent) {
      const siblings = node.parent.children;
      siblings.splice(siblings.indexOf(node), 1);
      siblings.unshift(node);
    }
  }

  mainLine() {
    return this.root.lineEnd().path();
  }

  /** The current node's path from the root, continued by first children to the end. */
  currentLine() {
    return this.current.lineEnd().path();
  }

  /** Every node, depth first in the order of the children. */
  nodes() {
    const out = [];
    const stack = [this.root];
    while (stack.length) {
      const node = stack.pop();
      out.push(node);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
    return out;
  }
}
