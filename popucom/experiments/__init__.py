"""Experiments: questions answered by playing, training or re-reading games, each a module run as
`python -m popucom.experiments.NAME` that prints ONE JSON line (figures, settings, machine).

  strength       a model's strength table against the bots (and other models), Bradley-Terry rated
  paired         two players against one opponent, paired by opening and colour
  recipe_ab      a training recipe change at equal wall time: two arms of one run, then head to head
  versions       the shipped models' learning curve from their strength tables
  endgame        what exact endgame play would have changed in recorded games
  balance        Black's score at komi 0 and the balancing komi, from self-play games
  arch_ablation  network variants trained on one fixed dataset
  learning       the default pipeline for a budget, then the strength ladder over its models
  precision      two inference paths of one checkpoint: outputs, speed, and head to head
  levels         the difficulty levels rated on one scale with the bots (popucom/levels.py)

Throughput timers (how fast, not how strong) stay scripts in bench/. Experiments may import any
part of popucom; nothing in popucom imports them but each other and the command line.
"""
