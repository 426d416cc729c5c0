// The analysis panel (#analysis) and the win-rate chart (#winrate-chart): a search's result as
// win/draw/loss, expected score and the top moves with their principal variations, and Black's
// win rate over the current line as an SVG chart. Results come from the engine worker from the
// side to move's point of view; the chart shows Black's (as the Qt GUI's).
// Hovering a move's row previews its principal variation on the board (onPreview).

import { translate } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';
const TOP_MOVES = 10;
const percent = (x) => (100 * x).toFixed(1);
const signed = (x) => (x >= 0 ? '+' : '') + x.toFixed(1);

function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** The moves worth listing: those searched, most visited first, else the first few. */
function listedMoves(analysis) {
  const searched = analysis.moves.filter((m) => m.visits > 0).slice(0, TOP_MOVES);
  return searched.length ? searched : analysis.moves.slice(0, 5);
}

export class AnalysisView {
  constructor(panel, chart, onPreview, onChartClick) {
    this.panel = panel;
    this.chart = chart;
    this.onPreview = onPreview;
    this.onChartClick = onChartClick;
    chart.addEventListener('click', (event) => this.chartClicked(event));
    // The table is redrawn with every search report, so a row removed under the pointer never
    // sees its mouseleave: leaving the panel ends the preview.
    panel.addEventListener('mouseleave', () => onPreview([]));
  }

  /** Shows `analysis` for a position with `toMove` to play; `note` replaces it when empty. */
  render(analysis, toMove, lang, note = '') {
    const t = (key, params) => translate(lang, key, params);
    this.panel.replaceChildren();
    if (!analysis || !analysis.visits) {
      this.panel.append(element('p', 'analysis-summary', note || t('noAnalysis')));
      return;
    }
    const wdl = analysis.wdl ?? [analysis.winrate, 0, 1 - analysis.winrate];
    this.panel.append(
      element('p', 'analysis-summary', t('sideToMove', {
        side: t(toMove), winrate: percent(analysis.winrate), score: signed(analysis.score),
      })),
      this.wdlBar(wdl, t),
      element('p', 'analysis-meta', [t('visitsRate', { visits: analysis.visits, seconds: (analysis.seconds ?? 0).toFixed(1) }), note].filter(Boolean).join('  ')),
      this.movesTable(analysis, toMove, t),
    );
  }

  wdlBar([win, draw, loss], t) {
    const bar = element('div', 'wdl');
    const parts = element('div', 'wdl-bar');
    [['wdl-win', win], ['wdl-draw', draw], ['wdl-loss', loss]].forEach(([className, share]) => {
      const part = element('span', className);
      part.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
      parts.append(part);
    });
    bar.append(parts, element('span', 'wdl-text', t('wdl', { win: percent(win), draw: percent(draw), loss: percent(loss) })));
    return bar;
  }

  movesTable(analysis, toMove, t) {
    const table = element('table', 'top-moves');
    const head = element('tr');
    ['col.move', 'col.visits', 'col.winrate', 'col.score', 'col.prior', 'col.pv'].forEach((key) => head.append(element('th', '', t(key))));
    table.append(element('thead'), element('tbody'));
    table.tHead.append(head);
    const opponent = toMove === 'black' ? 'white' : 'black';
    listedMoves(analysis).forEach((m) => {
      const pv = m.pv?.length ? m.pv : [m.move];
      const row = element('tr', m.move === analysis.chosen ? 'chosen' : '');
      row.dataset.move = m.move;
      [m.move, String(m.visits), percent(m.winrate), signed(m.score), percent(m.prior ?? 0), pv.join(' ')].forEach((text) => row.append(element('td', '', text)));
      const preview = pv.map((move, i) => ({ move, colour: i % 2 ? opponent : toMove }));
      row.addEventListener('mouseenter', () => this.onPreview(preview));
      table.tBodies[0].append(row);
    });
    return table;
  }

  /**
   * Black's win rate along `line` (nodes from the root; a node's analysis may be null) with
   * the current node marked; x is the ply, y the win rate (1 at the top).
   */
  renderChart(line, current, lang, maxPlies = 50) {
    const width = 400;
    const height = 110;
    const pad = 6;
    this.chartLine = line;
    this.chartGeometry = { width, pad, maxPlies };
    const x = (ply) => pad + (ply / Math.max(maxPlies, line.length - 1)) * (width - 2 * pad);
    const y = (rate) => pad + (1 - rate) * (height - 2 * pad);
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('class', 'chart-svg');
    const add = (tag, attributes, text) => {
      const el = document.createElementNS(SVG, tag);
      Object.entries(attributes).forEach(([key, value]) => el.setAttribute(key, value));
      if (text) el.textContent = text;
      svg.append(el);
      return el;
    };
    add('rect', { x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad, class: 'chart-bg' });
    add('line', { x1: pad, x2: width - pad, y1: y(0.5), y2: y(0.5), class: 'chart-mid' });
    const points = line.map((node, ply) => (node.analysis ? [x(ply), y(node.analysis.blackWinrate)] : null)).filter(Boolean);
    if (points.length) add('polyline', { points: points.map((p) => p.join(',')).join(' '), class: 'chart-line' });
    points.forEach(([px, py]) => add('circle', { cx: px, cy: py, r: 2, class: 'chart-dot' }));
    const at = line.indexOf(current);
    if (at >= 0) add('line', { x1: x(at), x2: x(at), y1: pad, y2: height - pad, class: 'chart-current' });
    add('text', { x: pad + 4, y: pad + 12, class: 'chart-title' }, translate(lang, 'chart'));
    this.chart.replaceChildren(svg);
  }

  chartClicked(event) {
    const svg = this.chart.querySelector('svg');
    if (!svg || !this.chartLine?.length) return;
    const box = svg.getBoundingClientRect();
    const { width, pad, maxPlies } = this.chartGeometry;
    const fraction = ((event.clientX - box.left) / box.width * width - pad) / (width - 2 * pad);
    const ply = Math.round(fraction * Math.max(maxPlies, this.chartLine.length - 1));
    const node = this.chartLine[Math.max(0, Math.min(this.chartLine.length - 1, ply))];
    this.onChartClick(node);
  }
}
