// The game tree panel (#tree): the moves as lines, as the Qt GUI's tree (tree_model.py) shows
// them. Lines are flattened so a long game does not nest 50 levels deep: a list holds a line
// (the main line from the root, or a variation from its head, continued by first children);
// under a node sit the variations that branch after it, each its own list. Clicking a node
// reports it; the current node is highlighted and kept in view.

import { translate } from './i18n.js';

/** `start`, or the move number, the mover and the square: `3. B c3` (tree_model.node_text). */
export function nodeText(node, lang) {
  if (node.move === null) return translate(lang, 'tree.start');
  const colour = translate(lang, node.colour === 'black' ? 'tree.B' : 'tree.W');
  return `${node.depth}. ${colour} ${node.move}`;
}

export class TreeView {
  constructor(container, onSelect) {
    this.container = container;
    this.onSelect = onSelect;
    this.nodes = []; // element index -> node, rebuilt by render
    container.addEventListener('click', (event) => {
      const row = event.target.closest?.('[data-node]');
      if (row) this.onSelect(this.nodes[Number(row.dataset.node)]);
    });
  }

  render(tree, lang) {
    this.nodes = [];
    this.current = null;
    this.container.replaceChildren(this.line(tree.root, tree, lang, 'main-line'));
    this.keepInView(this.current);
  }

  /** Scrolls the panel (never the page, as scrollIntoView would) to show `row`. */
  keepInView(row) {
    if (!row) return;
    const box = this.container;
    const top = row.offsetTop;
    const bottom = top + row.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
  }

  line(head, tree, lang, className) {
    const list = document.createElement('ol');
    list.className = className;
    for (let node = head; node; node = node.children[0]) {
      const item = document.createElement('li');
      item.append(this.row(node, tree, lang));
      if (node.children.length > 1) {
        const variations = document.createElement('ul');
        variations.className = 'variations';
        node.children.slice(1).forEach((child) => {
          const holder = document.createElement('li');
          holder.append(this.line(child, tree, lang, 'variation'));
          variations.append(holder);
        });
        item.append(variations);
      }
      list.append(item);
    }
    return list;
  }

  row(node, tree, lang) {
    const row = document.createElement('span');
    row.className = 'tree-node';
    row.dataset.node = String(this.nodes.length);
    row.dataset.move = node.move ?? 'start';
    this.nodes.push(node);
    let text = nodeText(node, lang);
    if (node.isVariationHead) {
      text += '  ' + translate(lang, 'tree.variation', { number: node.parent.children.indexOf(node) });
      row.classList.add('variation-head');
    }
    if (node.comment) {
      text += '  ✎';
      row.title = node.comment;
    }
    row.textContent = text;
    if (node === tree.current) {
      row.classList.add('current');
      row.setAttribute('aria-current', 'true');
      this.current = row;
    }
    return row;
  }
}
