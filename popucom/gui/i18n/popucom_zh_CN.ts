<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AnalysisPanel</name>
    <message>
        <source>Analyze</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Search the current position until stopped (A)</source>
        <translation>持续搜索当前局面，直到停止（A）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the search now; the AI plays its best move so far (Esc)</source>
        <translation>立即停止搜索；AI 下出目前最好的一手（Esc）</translation>
    </message>
    <message>
        <source>move</source>
        <translation>着法</translation>
    </message>
    <message>
        <source>visits</source>
        <translation>访问数</translation>
    </message>
    <message>
        <source>win %</source>
        <translation>胜率 %</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分差</translation>
    </message>
    <message>
        <source>prior %</source>
        <translation>先验 %</translation>
    </message>
    <message>
        <source>PV</source>
        <comment>principal variation: the line the search expects</comment>
        <translation>主变</translation>
    </message>
    <message>
        <source>no analysis</source>
        <translation>暂无分析</translation>
    </message>
    <message>
        <source>Black</source>
        <translation>黑方</translation>
    </message>
    <message>
        <source>White</source>
        <translation>白方</translation>
    </message>
    <message>
        <source>{side} to move: win rate {winrate}%, expected score {score} | {visits} visits ({rate}/s) {note}</source>
        <translation>{side}走棋：胜率 {winrate}%，预期分差 {score} | {visits} 次访问（{rate}/秒）{note}</translation>
    </message>
    <message>
        <source>proven by the search: the exact result and margin under best play</source>
        <translation>搜索已证明：双方最佳应对下的确切结果与分差</translation>
    </message>
    <message>
        <source>the move the AI plays from this search</source>
        <translation>本次搜索后 AI 要下的一手</translation>
    </message>
    <message>
        <source>proven win</source>
        <translation>已证胜</translation>
    </message>
    <message>
        <source>proven draw</source>
        <translation>已证和</translation>
    </message>
    <message>
        <source>proven loss</source>
        <translation>已证负</translation>
    </message>
</context>
<context>
    <name>GameController</name>
    <message>
        <source>no legal move</source>
        <translation>无棋可下</translation>
    </message>
    <message>
        <source>floors {margin}</source>
        <translation>染色格差 {margin}</translation>
    </message>
    <message>
        <source>Black wins</source>
        <translation>黑方胜</translation>
    </message>
    <message>
        <source>White wins</source>
        <translation>白方胜</translation>
    </message>
    <message>
        <source>draw</source>
        <translation>和棋</translation>
    </message>
    <message>
        <source>{winner} ({how})</source>
        <translation>{winner}（{how}）</translation>
    </message>
    <message>
        <source>The AI is thinking: wait, or press Stop to make it move now ({square} not played)</source>
        <translation>AI 正在思考：请稍候，或按“停止”让它立即落子（未下 {square}）</translation>
    </message>
    <message>
        <source>The game is over ({result}); go back to try another move</source>
        <translation>对局已结束：{result}；可后退尝试其他下法</translation>
    </message>
    <message>
        <source>It is the AI&apos;s turn in this mode: press &apos;AI move&apos; (Ctrl+G) or change the mode ({square} not played)</source>
        <translation>此模式下轮到 AI：请按“AI 落子”（Ctrl+G）或更换模式（未下 {square}）</translation>
    </message>
    <message>
        <source>{square} is illegal: it already holds a stone</source>
        <translation>不能下 {square}：该格已有棋子</translation>
    </message>
    <message>
        <source>{square} is illegal: it is painted in the opponent&apos;s colour</source>
        <translation>不能下 {square}：该格已被对方染色</translation>
    </message>
    <message>
        <source>Game over: {result}</source>
        <translation>对局结束：{result}</translation>
    </message>
    <message>
        <source>The game is over</source>
        <translation>对局已结束</translation>
    </message>
    <message>
        <source>{visits} visits</source>
        <translation>{visits} 次访问</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>AI ({opponent}) is thinking: {budget}</source>
        <translation>AI（{opponent}）正在思考：{budget}</translation>
    </message>
    <message>
        <source>AI played {move} ({visits} visits, win rate {winrate}%)</source>
        <translation>AI 下了 {move}（{visits} 次访问，胜率 {winrate}%）</translation>
    </message>
    <message>
        <source>AI played {move}</source>
        <translation>AI 下了 {move}</translation>
    </message>
    <message>
        <source>The AI failed: {error}</source>
        <translation>AI 出错：{error}</translation>
    </message>
    <message>
        <source>Analysis needs a model: choose one as the opponent (or open a model file)</source>
        <translation>分析需要模型：请选择一个模型作为对手（或打开模型文件）</translation>
    </message>
    <message>
        <source>The game is over: nothing to analyse</source>
        <translation>对局已结束：没有可分析的局面</translation>
    </message>
    <message>
        <source>A bot&apos;s move cannot be interrupted; it is almost done</source>
        <translation>机器人的思考无法中断，马上就好</translation>
    </message>
    <message>
        <source>The start of the game cannot be deleted</source>
        <translation>不能删除开局</translation>
    </message>
    <message>
        <source>The line through this move is now the main line</source>
        <translation>经过这一手的变化已设为主线</translation>
    </message>
</context>
<context>
    <name>GameTree</name>
    <message>
        <source>start</source>
        <comment>the empty board before the first move</comment>
        <translation>开局</translation>
    </message>
    <message>
        <source>B</source>
        <comment>Black&apos;s move</comment>
        <translation>黑</translation>
    </message>
    <message>
        <source>W</source>
        <comment>White&apos;s move</comment>
        <translation>白</translation>
    </message>
    <message>
        <source>(variation {number})</source>
        <translation>（变化 {number}）</translation>
    </message>
</context>
<context>
    <name>HistoryChart</name>
    <message>
        <source>Black win rate</source>
        <translation>黑方胜率</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>No installed font has {language} characters, which show as boxes; install one: {command}</source>
        <translation>没有已安装的字体含{language}字符，这些字会显示为方框；请安装一个：{command}</translation>
    </message>
</context>
<context>
    <name>Level</name>
    <message>
        <source>Beginner</source>
        <translation>入门</translation>
    </message>
    <message>
        <source>An early model, a very short noisy search, every move sampled: the greedy bot beats it at times</source>
        <translation>早期模型，极短且带噪声的搜索，每一手都随机抽样：贪心机器人有时能赢它</translation>
    </message>
    <message>
        <source>Novice</source>
        <translation>新手</translation>
    </message>
    <message>
        <source>An early model with a very short search, its moves sampled for most of the game</source>
        <translation>早期模型，极短的搜索，大半盘的着法随机抽样</translation>
    </message>
    <message>
        <source>Casual</source>
        <translation>休闲</translation>
    </message>
    <message>
        <source>An early model with a very short search, varying its opening</source>
        <translation>早期模型，极短的搜索，开局有变化</translation>
    </message>
    <message>
        <source>Intermediate</source>
        <translation>中级</translation>
    </message>
    <message>
        <source>An older model with a very short search, varying its opening</source>
        <translation>较早的模型，极短的搜索，开局有变化</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>An older model with a short search, varying its opening</source>
        <translation>较早的模型，较短的搜索，开局有变化</translation>
    </message>
    <message>
        <source>Expert</source>
        <translation>专家</translation>
    </message>
    <message>
        <source>A recent model with a short search, varying its opening a little</source>
        <translation>较新的模型，较短的搜索，开局略有变化</translation>
    </message>
    <message>
        <source>Strongest</source>
        <translation>最强</translation>
    </message>
    <message>
        <source>The newest model at the engine&apos;s default search: its full strength</source>
        <translation>最新模型，使用引擎的默认搜索：全力以赴</translation>
    </message>
    <message>
        <source>{level} (rating {rating})</source>
        <comment>Elo, the random bot at 0</comment>
        <translation>{level}（等级分 {rating}）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>You (Black) vs AI</source>
        <translation>你执黑 对 AI</translation>
    </message>
    <message>
        <source>You (White) vs AI</source>
        <translation>你执白 对 AI</translation>
    </message>
    <message>
        <source>Human vs human</source>
        <translation>双人对弈</translation>
    </message>
    <message>
        <source>AI vs AI (watch)</source>
        <translation>AI 对 AI（观战）</translation>
    </message>
    <message>
        <source>opponent: {opponent} | {threads}</source>
        <translation>对手：{opponent} | {threads}</translation>
    </message>
    <message>
        <source>Popucom Zero</source>
        <translation>泡姆棋 Zero</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Game</source>
        <comment>the dock holding the game tree, move list and comment</comment>
        <translation>棋谱</translation>
    </message>
    <message>
        <source>comment on this move</source>
        <translation>为这一手写评注</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>对局</translation>
    </message>
    <message>
        <source>The AI: a model (searched) or a baseline bot</source>
        <translation>AI 对手：模型（配合搜索）或基准机器人</translation>
    </message>
    <message>
        <source>visits</source>
        <translation>次访问</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source> per move: </source>
        <translation> 每步：</translation>
    </message>
    <message>
        <source>  AI vs AI delay ms: </source>
        <translation>  AI 对 AI 间隔（毫秒）：</translation>
    </message>
    <message>
        <source>Pause between moves when two AIs play (the watching speed)</source>
        <translation>两个 AI 对弈时每步之间的停顿（观战速度）</translation>
    </message>
    <message>
        <source>AI move</source>
        <translation>AI 落子</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New game</source>
        <translation>新对局(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message>
        <source>Open &amp;model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Difficulty</source>
        <translation>难度(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Go</source>
        <translation>跳转(&amp;G)</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退一手</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前进一手</translation>
    </message>
    <message>
        <source>Previous variation</source>
        <translation>上一个变化</translation>
    </message>
    <message>
        <source>Next variation</source>
        <translation>下一个变化</translation>
    </message>
    <message>
        <source>Start</source>
        <comment>go to the start of the game</comment>
        <translation>到开局</translation>
    </message>
    <message>
        <source>End</source>
        <comment>go to the end of the line</comment>
        <translation>到末手</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Delete this variation</source>
        <translation>删除此变化(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Promote to main line</source>
        <translation>设为主线(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Analysis</source>
        <translation>分析(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Analyze</source>
        <translation>开始分析(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>threads: search {search} + network {network}</source>
        <translation>线程：搜索 {search} + 网络 {network}</translation>
    </message>
    <message>
        <source>{level} level</source>
        <translation>{level}难度</translation>
    </message>
    <message>
        <source>Open model file…</source>
        <translation>打开模型文件…</translation>
    </message>
    <message>
        <source>game over: {result}</source>
        <translation>对局结束：{result}</translation>
    </message>
    <message>
        <source>Black to move</source>
        <translation>黑方走棋</translation>
    </message>
    <message>
        <source>White to move</source>
        <translation>白方走棋</translation>
    </message>
    <message>
        <source>Black ● {black_left} left, {black_floors} floors   |   White ○ {white_left} left, {white_floors} floors   |   komi {komi}   |   {turn}</source>
        <translation>黑方 ● 剩 {black_left} 手，染色 {black_floors} 格   |   白方 ○ 剩 {white_left} 手，染色 {white_floors} 格   |   贴目 {komi}   |   {turn}</translation>
    </message>
    <message>
        <source>stored analysis: Black win rate {winrate}%, score {score} ({visits} visits)</source>
        <translation>已存分析：黑方胜率 {winrate}%，分差 {score}（{visits} 次访问）</translation>
    </message>
    <message>
        <source>Mode: {mode}</source>
        <translation>模式：{mode}</translation>
    </message>
    <message>
        <source>Cannot use {spec} as the AI: {error}</source>
        <translation>无法将 {spec} 用作 AI：{error}</translation>
    </message>
    <message>
        <source>AI: {opponent}</source>
        <translation>AI：{opponent}</translation>
    </message>
    <message>
        <source>Open a model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Models (*.onnx *.pt *.pth *.plan *.engine *.pcnet);;All files (*)</source>
        <translation>模型 (*.onnx *.pt *.pth *.plan *.engine *.pcnet);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Not a usable model</source>
        <translation>模型不可用</translation>
    </message>
    <message>
        <source>Open cancelled: the game in progress is kept</source>
        <translation>已取消打开：保留当前对局</translation>
    </message>
    <message>
        <source>Cannot open {name}: {error}</source>
        <translation>无法打开 {name}：{error}</translation>
    </message>
    <message>
        <source>Opened {name}</source>
        <translation>已打开 {name}</translation>
    </message>
    <message>
        <source>{number}: {black} vs {white}, {result}, {moves} moves</source>
        <translation>{number}：{black} 对 {white}，{result}，共 {moves} 手</translation>
    </message>
    <message>
        <source>Choose a game</source>
        <translation>选择对局</translation>
    </message>
    <message>
        <source>{count} games in the file:</source>
        <translation>文件中共有 {count} 局：</translation>
    </message>
    <message>
        <source>Cannot save {path}: {error}</source>
        <translation>无法保存 {path}：{error}</translation>
    </message>
    <message>
        <source>Saved {name}</source>
        <translation>已保存 {name}</translation>
    </message>
    <message>
        <source>Open a game</source>
        <translation>打开棋谱</translation>
    </message>
    <message>
        <source>Games (*.sgf *.jsonl);;SGF (*.sgf);;Game records (*.jsonl)</source>
        <translation>棋谱 (*.sgf *.jsonl);;SGF (*.sgf);;对局记录 (*.jsonl)</translation>
    </message>
    <message>
        <source>Cannot open</source>
        <translation>无法打开</translation>
    </message>
    <message>
        <source>Save the game</source>
        <translation>保存棋谱</translation>
    </message>
    <message>
        <source>Cannot save</source>
        <translation>无法保存</translation>
    </message>
</context>
<context>
    <name>Opponent</name>
    <message>
        <source>uct:{visits}</source>
        <comment>a tree-search bot with this many visits</comment>
        <translation>UCT {visits} 次模拟（uct:{visits}）</translation>
    </message>
    <message>
        <source>greedy</source>
        <comment>a bot taking the best immediate floor difference</comment>
        <translation>贪心（greedy）</translation>
    </message>
    <message>
        <source>random</source>
        <comment>a bot playing random legal moves</comment>
        <translation>随机（random）</translation>
    </message>
    <message>
        <source>{model} on {backend}</source>
        <translation>{model}，运行于 {backend}</translation>
    </message>
    <message>
        <source>bot {name}</source>
        <translation>机器人 {name}</translation>
    </message>
    <message>
        <source>level {level}: {player}</source>
        <translation>难度 {level}：{player}</translation>
    </message>
</context>
<context>
    <name>WdlBar</name>
    <message>
        <source>W {win}%  D {draw}%  L {loss}%</source>
        <translation>胜 {win}%  和 {draw}%  负 {loss}%</translation>
    </message>
</context>
</TS>
