// Search settings. Every field names its unit or scale.
#ifndef POPUCOM_SEARCH_PARAMS_H_
#define POPUCOM_SEARCH_PARAMS_H_

namespace popucom {

struct SearchParams {
  double c_puct = 1.1;               // exploration constant of PUCT
  double fpu_reduction = 0.2;        // unvisited child's Q = parent Q - this * sqrt(visited prior mass)
  double root_fpu_reduction = 0.0;   // the same at the root (0: no reduction, as in self-play)
  bool root_noise = false;           // Dirichlet noise on the root priors (self-play)
  double dirichlet_alpha_total = 10.83;  // alpha = this / number of legal moves (KataGo's scaling)
  double dirichlet_epsilon = 0.25;   // share of noise in the noisy root priors
  double score_utility_weight = 0.0; // utility = (win - loss) + weight * tanh(score / score_utility_scale)
  double score_utility_scale = 10.0; // floors
  double forced_playouts_k = 0.0;     // root children get at least sqrt(k * prior * N) visits (KataGo: 2; 0 = off)
  int leaves_per_game = 4;           // leaves gathered per tree per batch step (virtual loss spreads them)
  double virtual_loss = 1.0;         // each in-flight visit counts as this many losses
  double lcb_stdevs = 1.96;          // z of the lower confidence bound reported by analysis
  // Gumbel root search (Danihelka et al. 2022), used by searches started in Gumbel mode.
  int gumbel_actions = 16;           // m: root moves sampled by Gumbel-Top-k, then halved
  double gumbel_c_visit = 50.0;      // sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q rescaled to [0, 1]
  double gumbel_c_scale = 0.1;
};

}  // namespace popucom

#endif  // POPUCOM_SEARCH_PARAMS_H_
