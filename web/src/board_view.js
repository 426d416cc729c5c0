// The board: draws one position as SVG and reports clicks; it holds no game logic.
//
// Orientation as in docs/rules.md (Coordinates and records): square = row * 9 + col, row 0 (rank 1) at the top, col 0 (file a)
// at the left, so a1 is the top-left cell; file letters along the top, rank numbers down the
// left. Each square is one <g data-square="e5"> holding, bottom to top: its floor, a heat-map
// cell (visit shares), the legal-move dot, the stone, the last-move mark and a principal-variation
// number. Layers are attributes set by render(), so a redraw touches no more than 81 groups.

const SVG = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefghi';
const CELL = 50;
const MARGIN = 26; // room for the coordinates, left of and above the board

function svg(tag, attributes = {}, parent = null) {
  const el = document.createElementNS(SVG, tag);
  Object.entries(attributes).forEach(([key, value]) => el.setAttribute(key, value));
  parent?.appendChild(el);
  return el;
}

export function squareName(index, size = 9) {
  return FILES[index % size] + String(Math.floor(index / size) + 1);
}

export class BoardView {
  /** Draws into `container` (emptied); `onClick(square)` gets each clicked square's name. */
  constructor(container, onClick, size = 9) {
    this.size = size;
    this.onClick = onClick;
    const side = MARGIN + size * CELL + 4;
    container.replaceChildren();
    this.svg = svg('svg', { viewBox: `0 0 ${side} ${side}`, class: 'board-svg', role: 'grid' }, container);
    svg('rect', { x: MARGIN, y: MARGIN, width: size * CELL, height: size * CELL, class: 'board-bg' }, this.svg);
    this.drawCoordinates();
    this.squares = Array.from({ length: size * size }, (_, i) => this.drawSquare(i));
    this.svg.addEventListener('click', (event) => {
      const square = event.target.closest?.('[data-square]');
      if (square) this.onClick(square.dataset.square);
    });
  }

  drawCoordinates() {
    for (let i = 0; i < this.size; i++) {
      const middle = MARGIN + (i + 0.5) * CELL;
      svg('text', { x: middle, y: MARGIN - 8, class: 'coord' }, this.svg).textContent = FILES[i];
      svg('text', { x: MARGIN - 13, y: middle + 5, class: 'coord' }, this.svg).textContent = String(i + 1);
    }
  }

  drawSquare(index) {
    const x = MARGIN + (index % this.size) * CELL;
    const y = MARGIN + Math.floor(index / this.size) * CELL;
    const cx = x + CELL / 2;
    const cy = y + CELL / 2;
    const name = squareName(index, this.size);
    const group = svg('g', { 'data-square': name, class: 'square', role: 'gridcell', 'aria-label': name }, this.svg);
    return {
      group,
      floor: svg('rect', { x, y, width: CELL, height: CELL, class: 'floor' }, group),
      heat: svg('rect', { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 4, class: 'heat' }, group),
      legal: svg('circle', { cx, cy, r: 4, class: 'legal' }, group),
      stone: svg('circle', { cx, cy, r: CELL * 0.4, class: 'stone' }, group),
      mark: svg('circle', { cx, cy, r: CELL * 0.13, class: 'last-mark' }, group),
      label: svg('text', { x: cx, y: cy + 6, class: 'pv-label' }, group),
    };
  }

  /**
   * Shows a position. `cells`: rules.js's 81 {stone, floor}; `legal`: the squares to mark (a
   * Set of names, empty when it is not a human's turn); `lastMove`: a name or null; `heat`: a
   * Map name -> share in [0, 1] or null; `preview`: a principal variation [{move, colour}].
   */
  render({ cells, legal = new Set(), lastMove = null, heat = null, preview = [] }) {
    const previewAt = new Map(preview.map((step, i) => [step.move, { ...step, number: i + 1 }]));
    this.squares.forEach((square, i) => {
      const name = square.group.dataset.square;
      const cell = cells[i] ?? { stone: null, floor: null };
      square.group.dataset.floor = cell.floor ?? 'none';
      square.group.dataset.stone = cell.stone ?? 'none';
      square.group.classList.toggle('is-legal', legal.has(name));
      square.group.classList.toggle('is-last', name === lastMove);
      const share = heat?.get(name) ?? 0;
      square.heat.style.opacity = share > 0 ? String(0.15 + 0.7 * Math.min(1, share)) : '0';
      const ghost = !cell.stone && previewAt.get(name);
      square.group.dataset.preview = ghost ? ghost.colour : 'none';
      square.label.textContent = ghost ? String(ghost.number) : '';
    });
  }
}
