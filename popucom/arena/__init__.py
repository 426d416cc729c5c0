"""Arena: matches where every player searches with its own tree and network,
Bradley-Terry ratings over all games, SPRT gating."""
