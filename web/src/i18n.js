// Every visible string of the page in English and Simplified Chinese (the Qt GUI's vocabulary:
// popucom/gui/i18n/popucom_zh_CN.ts). The pure part (STRINGS, translate, translateReason) has
// no DOM, so records.js and node tests use it; applyLanguage fills the page's elements that
// carry data-i18n (text), data-i18n-title (tooltip) or data-i18n-placeholder keys.
// Templates take {name} parameters (see paramText for the kinds a parameter may be).

export const LANGUAGES = { en: 'English', 'zh-CN': '简体中文' }; // each named in its own language

const EN = {
  title: 'Popucom Zero',
  subtitle: 'Match-n-POP against the AI, in your browser',
  loading: 'Loading the engine…',
  ready: 'The AI is ready',
  mode: 'Mode',
  'mode.human-black': 'You (Black) vs AI',
  'mode.human-white': 'You (White) vs AI',
  'mode.human-human': 'Human vs human',
  'mode.ai-ai': 'AI vs AI (watch)',
  level: 'Difficulty',
  levelEntry: '{level} (rating {rating})',
  language: 'Language',
  newGame: 'New game',
  undo: 'Undo',
  moveNow: 'Move now',
  moveNowTip: 'Stop the search now; the AI plays its best move so far (Esc)',
  analyze: 'Analyze',
  analyzeTip: 'Search the current position until stopped (A)',
  stopAnalysis: 'Stop',
  open: 'Open…',
  openTip: 'Open a game (SGF or JSONL)',
  saveSgf: 'Save SGF',
  saveJsonl: 'Save JSONL',
  chooseGame: 'Choose a game',
  gameEntry: '{number}: {black} vs {white}, {result}, {moves} moves',
  start: 'Start',
  back: 'Back',
  forward: 'Forward',
  end: 'End',
  prevVariation: 'Previous variation',
  nextVariation: 'Next variation',
  navTip: '←/→ back and forward, ↑/↓ between variations, Home/End',
  deleteVariation: 'Delete this variation',
  promote: 'Promote to main line',
  gamePanel: 'Game',
  analysisPanel: 'Analysis',
  comment: 'comment on this move',
  chart: 'Black win rate',
  'tree.start': 'start',
  'tree.B': 'B',
  'tree.W': 'W',
  'tree.variation': '(variation {number})',
  black: 'Black',
  white: 'White',
  'turn.black': 'Black to move',
  'turn.white': 'White to move',
  status: 'Black ● {blackLeft} left, {blackFloors} floors  |  White ○ {whiteLeft} left, {whiteFloors} floors  |  komi {komi}  |  {turn}',
  gameOver: 'Game over: {result}',
  'result.black': 'Black wins',
  'result.white': 'White wins',
  'result.draw': 'draw',
  resultHow: '{winner} ({how})',
  'end.no_legal_move': 'no legal move',
  floors: 'floors {margin}',
  thinking: 'AI ({level}) is thinking…',
  aiPlayed: 'AI played {move} ({visits} visits, win rate {winrate}%)',
  aiFailed: 'The AI failed: {error}',
  engineFailed: 'The engine could not start: {error}',
  aiTurn: "It is the AI's turn: wait, or press Move now ({square} not played)",
  notYourTurn: "It is the AI's turn in this mode ({square} not played)",
  overNoMove: 'The game is over ({result}); go back to try another move',
  illegal: 'Cannot play {square}: {reason}',
  'reason.stone': '{square} already holds a stone',
  'reason.floor': "{square} is on {owner}'s floor",
  'reason.over': 'the game is over',
  undone: 'Move taken back',
  nothingToUndo: 'Nothing to undo',
  analysing: 'Analysing…',
  noAnalysis: 'no analysis',
  analysisOver: 'The game is over: nothing to analyse',
  sideToMove: '{side} to move: win rate {winrate}%, expected score {score}',
  visitsRate: '{visits} visits, {seconds} s',
  wdl: 'W {win}%  D {draw}%  L {loss}%',
  'col.move': 'move',
  'col.visits': 'visits',
  'col.winrate': 'win %',
  'col.score': 'score',
  'col.prior': 'prior %',
  'col.pv': 'PV',
  storedAnalysis: 'stored analysis: Black win rate {winrate}%, score {score} ({visits} visits)',
  opened: 'Opened {name}',
  cannotOpen: 'Cannot open {name}: {error}',
  keptGame: 'the current game is kept',
  saved: 'Saved {name}',
  offlineReady: 'Ready to play offline',
  you: 'you',
  opponent: 'the opponent',
  // records.js errors
  'record.tooBig': 'the file is larger than {max} MB: not a game record',
  'record.badKomi': 'komi must be a whole number from -{max} to {max}, got {value}',
  'record.badResult': 'result {value} is not one of black, white, draw',
  'record.badScore': 'score {value} is not a margin within ±{max} floors',
  'record.notText': 'the file is not UTF-8 text',
  'sgf.expected': "SGF line {line}: expected '{char}', found {found}",
  'sgf.tooDeep': 'SGF line {line}: variations nested deeper than {max}',
  'sgf.noNode': "SGF line {line}: a game tree needs at least one node ';'",
  'sgf.lowerCase': "SGF line {line}: property '{key}' must be upper case",
  'sgf.noValue': 'SGF line {line}: property {key} has no value',
  'sgf.unclosed': "SGF line {line}: a property value is not closed with ']'",
  'sgf.endInEscape': 'SGF line {line}: the file ends inside an escape',
  'sgf.trailing': 'SGF line {line}: unexpected text after the game (one game per file)',
  'sgf.otherGame': 'SGF GM[{value}] is another game (Match-n-POP is GM[{id}])',
  'sgf.boardSize': 'SGF SZ[{value}]: the board is {size}x{size}',
  'sgf.twoMoves': 'SGF node {node}: more than one move',
  'sgf.wrongTurn': "SGF node {node}: {move} but it is {side}'s turn",
  'sgf.illegal': 'SGF node {node}: {move}: illegal move: {reason}',
  'sgf.badAnalysis': 'SGF node {node}: ZA[{value}] is not visits:winrate:score',
  'sgf.analysisRange': 'SGF node {node}: ZA[{value}] is out of range (visits >= 0, win rate in [0, 1], score within ±{max})',
  'jsonl.line': 'line {line}: not a game record ({reason})',
  'jsonl.notJson': 'not JSON: {reason}',
  'jsonl.notObject': 'a line holds a JSON object, not {type}',
  'jsonl.noMoves': 'no "moves" field',
  'jsonl.badMoves': 'moves must be a record text or a list of squares, not {type}',
  'jsonl.badMove': 'move {number} is {value}, not a square',
  'jsonl.tooLong': '{count} moves, more than a game has ({max})',
  'jsonl.illegal': 'move {number} ({move}): illegal move: {reason}',
  'jsonl.empty': 'the file holds no game records',
  // the seven levels (levels.json gives the English description; these are the GUI's texts)
  'level.beginner': 'Beginner',
  'level.novice': 'Novice',
  'level.casual': 'Casual',
  'level.intermediate': 'Intermediate',
  'level.advanced': 'Advanced',
  'level.expert': 'Expert',
  'level.strongest': 'Strongest',
  'levelDesc.beginner': 'An early model, a very short noisy search, every move sampled: the greedy bot beats it at times',
  'levelDesc.novice': 'An early model with a very short search, its moves sampled for most of the game',
  'levelDesc.casual': 'An early model with a very short search, varying its opening',
  'levelDesc.intermediate': 'An older model with a very short search, varying its opening',
  'levelDesc.advanced': 'An older model with a short search, varying its opening',
  'levelDesc.expert': 'A recent model with a short search, varying its opening a little',
  'levelDesc.strongest': "The newest model at the engine's default search: its full strength",
};

const ZH = {
  title: '泡姆棋 Zero',
  subtitle: '在浏览器中与 AI 对弈泡姆棋',
  loading: '正在加载引擎…',
  ready: 'AI 已就绪',
  mode: '模式',
  'mode.human-black': '你执黑 对 AI',
  'mode.human-white': '你执白 对 AI',
  'mode.human-human': '双人对弈',
  'mode.ai-ai': 'AI 对 AI（观战）',
  level: '难度',
  levelEntry: '{level}（等级分 {rating}）',
  language: '语言',
  newGame: '新对局',
  undo: '悔棋',
  moveNow: '立即落子',
  moveNowTip: '立即停止搜索；AI 下出目前最好的一手（Esc）',
  analyze: '分析',
  analyzeTip: '持续搜索当前局面，直到停止（A）',
  stopAnalysis: '停止',
  open: '打开…',
  openTip: '打开棋谱（SGF 或 JSONL）',
  saveSgf: '保存 SGF',
  saveJsonl: '保存 JSONL',
  chooseGame: '选择对局',
  gameEntry: '{number}：{black} 对 {white}，{result}，共 {moves} 手',
  start: '到开局',
  back: '后退一手',
  forward: '前进一手',
  end: '到末手',
  prevVariation: '上一个变化',
  nextVariation: '下一个变化',
  navTip: '←/→ 后退与前进，↑/↓ 切换变化，Home/End 到开局与末手',
  deleteVariation: '删除此变化',
  promote: '设为主线',
  gamePanel: '棋谱',
  analysisPanel: '分析',
  comment: '为这一手写评注',
  chart: '黑方胜率',
  'tree.start': '开局',
  'tree.B': '黑',
  'tree.W': '白',
  'tree.variation': '（变化 {number}）',
  black: '黑方',
  white: '白方',
  'turn.black': '黑方走棋',
  'turn.white': '白方走棋',
  status: '黑方 ● 剩 {blackLeft} 手，染色 {blackFloors} 格  |  白方 ○ 剩 {whiteLeft} 手，染色 {whiteFloors} 格  |  贴目 {komi}  |  {turn}',
  gameOver: '对局结束：{result}',
  'result.black': '黑方胜',
  'result.white': '白方胜',
  'result.draw': '和棋',
  resultHow: '{winner}（{how}）',
  'end.no_legal_move': '无棋可下',
  floors: '染色格差 {margin}',
  thinking: 'AI（{level}）正在思考…',
  aiPlayed: 'AI 下了 {move}（{visits} 次访问，胜率 {winrate}%）',
  aiFailed: 'AI 出错：{error}',
  engineFailed: '引擎无法启动：{error}',
  aiTurn: 'AI 正在思考：请稍候，或按“立即落子”（未下 {square}）',
  notYourTurn: '此模式下轮到 AI（未下 {square}）',
  overNoMove: '对局已结束：{result}；可后退尝试其他下法',
  illegal: '不能下 {square}：{reason}',
  'reason.stone': '{square} 已有棋子',
  'reason.floor': '{square} 是{owner}的染色格',
  'reason.over': '对局已结束',
  undone: '已悔棋',
  nothingToUndo: '没有可悔的棋',
  analysing: '正在分析…',
  noAnalysis: '暂无分析',
  analysisOver: '对局已结束：没有可分析的局面',
  sideToMove: '{side}走棋：胜率 {winrate}%，预期分差 {score}',
  visitsRate: '{visits} 次访问，{seconds} 秒',
  wdl: '胜 {win}%  和 {draw}%  负 {loss}%',
  'col.move': '着法',
  'col.visits': '访问数',
  'col.winrate': '胜率 %',
  'col.score': '分差',
  'col.prior': '先验 %',
  'col.pv': '主变',
  storedAnalysis: '已存分析：黑方胜率 {winrate}%，分差 {score}（{visits} 次访问）',
  opened: '已打开 {name}',
  cannotOpen: '无法打开 {name}：{error}',
  keptGame: '保留当前对局',
  saved: '已保存 {name}',
  offlineReady: '已可离线对弈',
  you: '你',
  opponent: '对方',
  'record.tooBig': '文件大于 {max} MB：不是棋谱',
  'record.badKomi': '贴目必须是 -{max} 到 {max} 之间的整数，实为 {value}',
  'record.badResult': '结果 {value} 不是 black、white、draw 之一',
  'record.badScore': '分差 {value} 不在 ±{max} 格之内',
  'record.notText': '文件不是 UTF-8 文本',
  'sgf.expected': 'SGF 第 {line} 行：应为“{char}”，实为 {found}',
  'sgf.tooDeep': 'SGF 第 {line} 行：变化嵌套超过 {max} 层',
  'sgf.noNode': 'SGF 第 {line} 行：棋谱树至少需要一个节点“;”',
  'sgf.lowerCase': 'SGF 第 {line} 行：属性“{key}”必须大写',
  'sgf.noValue': 'SGF 第 {line} 行：属性 {key} 没有值',
  'sgf.unclosed': 'SGF 第 {line} 行：属性值没有以“]”结束',
  'sgf.endInEscape': 'SGF 第 {line} 行：文件在转义符中结束',
  'sgf.trailing': 'SGF 第 {line} 行：对局之后还有多余内容（每个文件一局）',
  'sgf.otherGame': 'SGF GM[{value}] 是另一种棋（泡姆棋是 GM[{id}]）',
  'sgf.boardSize': 'SGF SZ[{value}]：棋盘是 {size}x{size}',
  'sgf.twoMoves': 'SGF 第 {node} 个节点：多于一手棋',
  'sgf.wrongTurn': 'SGF 第 {node} 个节点：{move}，但轮到{side}',
  'sgf.illegal': 'SGF 第 {node} 个节点：{move}：非法着法：{reason}',
  'sgf.badAnalysis': 'SGF 第 {node} 个节点：ZA[{value}] 不是 访问数:胜率:分差',
  'sgf.analysisRange': 'SGF 第 {node} 个节点：ZA[{value}] 超出范围（访问数 >= 0，胜率在 [0, 1]，分差在 ±{max} 之内）',
  'jsonl.line': '第 {line} 行：不是对局记录（{reason}）',
  'jsonl.notJson': '不是 JSON：{reason}',
  'jsonl.notObject': '每行应为 JSON 对象，而不是 {type}',
  'jsonl.noMoves': '缺少“moves”字段',
  'jsonl.badMoves': 'moves 必须是棋谱文本或格子列表，而不是 {type}',
  'jsonl.badMove': '第 {number} 手是 {value}，不是格子',
  'jsonl.tooLong': '{count} 手，超过一局的手数（{max}）',
  'jsonl.illegal': '第 {number} 手（{move}）：非法着法：{reason}',
  'jsonl.empty': '文件中没有对局记录',
  'level.beginner': '入门',
  'level.novice': '新手',
  'level.casual': '休闲',
  'level.intermediate': '中级',
  'level.advanced': '高级',
  'level.expert': '专家',
  'level.strongest': '最强',
  'levelDesc.beginner': '早期模型，极短且带噪声的搜索，每一手都随机抽样：贪心机器人有时能赢它',
  'levelDesc.novice': '早期模型，极短的搜索，大半盘的着法随机抽样',
  'levelDesc.casual': '早期模型，极短的搜索，开局有变化',
  'levelDesc.intermediate': '较早的模型，极短的搜索，开局有变化',
  'levelDesc.advanced': '较早的模型，较短的搜索，开局有变化',
  'levelDesc.expert': '较新的模型，较短的搜索，开局略有变化',
  'levelDesc.strongest': '最新模型，使用引擎的默认搜索：全力以赴',
};

const OPPONENT = { black: 'white', white: 'black' };

export const STRINGS = { en: EN, 'zh-CN': ZH };

/** The supported language closest to a browser language list (navigator.languages). */
export function pickLanguage(preferred = []) {
  for (const tag of preferred) {
    const lower = String(tag).toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

/** The English reason an illegal move was refused (rules.js) in `lang`; `mover` ('black' or
 * 'white', when known) names whose floor the square is. */
export function translateReason(lang, reason, mover = null) {
  const text = String(reason);
  const stone = /^([a-i][1-9]) already holds a stone$/.exec(text);
  if (stone) return translate(lang, 'reason.stone', { square: stone[1] });
  const floor = /^([a-i][1-9]) is painted in the opponent's colour$/.exec(text);
  if (floor) return translate(lang, 'reason.floor', { square: floor[1], owner: translate(lang, OPPONENT[mover] ?? 'opponent') });
  if (/^the game is over/.test(text)) return translate(lang, 'reason.over');
  return text;
}

/** A parameter in `lang`: a {key, params} (a RecordError too) or an Error is translated, a
 * function (lang) -> text is called, so a message shown stays right when the language changes. */
function paramText(lang, value) {
  if (typeof value === 'function') return value(lang);
  if (value && typeof value === 'object' && value.key) return translate(lang, value.key, value.params);
  if (value instanceof Error) return errorText(lang, value);
  return String(value);
}

/** `key`'s template in `lang` (English, then the key itself, as fallbacks) with {params} filled. */
export function translate(lang, key, params = {}) {
  const template = STRINGS[lang]?.[key] ?? EN[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    if (name === 'reason' && typeof params[name] === 'string') return translateReason(lang, params[name], params.mover);
    return paramText(lang, params[name]);
  });
}

/** An error in `lang`: a RecordError by its key, anything else by its message. */
export function errorText(lang, error) {
  if (error?.key) return translate(lang, error.key, error.params);
  return translateReason(lang, String(error?.message ?? error).replace(/^illegal move:\s*/i, ''));
}

/** Fills every data-i18n / data-i18n-title / data-i18n-placeholder element under `root`. */
export function applyLanguage(root, lang) {
  root.querySelectorAll('[data-i18n]').forEach((el) => (el.textContent = translate(lang, el.dataset.i18n)));
  root.querySelectorAll('[data-i18n-title]').forEach((el) => (el.title = translate(lang, el.dataset.i18nTitle)));
  root.querySelectorAll('[data-i18n-placeholder]').forEach((el) => (el.placeholder = translate(lang, el.dataset.i18nPlaceholder)));
  root.querySelectorAll('[data-i18n-aria]').forEach((el) => el.setAttribute('aria-label', translate(lang, el.dataset.i18nAria)));
  if (root.documentElement) root.documentElement.lang = lang;
}
