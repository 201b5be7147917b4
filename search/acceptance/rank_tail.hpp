#pragma once
// Where the target's token ranks among the draft's candidates once the draft's top-1 probability
// p at a context is known: the acceptance process's rank law (acceptance_process.hpp), shared by
// its exact expectations and by every sampler that draws ranks from it.
//
// The draft is taken as calibrated: its rank-r candidate (0-based) is the target's token with the
// probability the draft lists for it. Two laws for those listed probabilities:
//  - geometric (shape 0, the process's original assumption): rank r with p (1 - p)^r, so
//    P(rank < k) = 1 - (1 - p)^k;
//  - log-logistic (shape beta in (0, 1]): P(rank < k) = p k^beta / (p k^beta + 1 - p), the form
//    the hit curve fits to paper 002's Fig. 7 (hit_curve.hpp) with its top-1 set to p. Its tail
//    is far heavier than the geometric one: with p = 0.8 the geometric law puts 0.99 of the
//    tokens within the top 3, the log-logistic at beta = 0.9 within the top 36. It was built for
//    paper 002's 1B draft (top-32 0.99 with a top-1 no better than the 8B's 0.81) and fitted
//    there, but it meets SpecPipe's stated level accuracy worse than the geometric law (0.92
//    against 0.94: a beam misses the deep ranks it spreads the misses over), so that band keeps
//    the geometric tail (configs/acceptance/statistics/paper002-specpipe-llama1b-llama70b.yaml);
//    it stays an option for pairs whose published top-k hits need it. For beta <= 1 the listed
//    probabilities never rise with the rank (the CDF is concave in k), which the trees'
//    best-first searches rely on.
#include <functional>

namespace search {

// P(rank < k) given the draft's top-1 probability p in [0, 1], k >= 0 candidates.
double rank_cdf_given_top1(double p, double k, double tail_shape);
// P(rank = r), r >= 0 (0-based), given p: exact for the geometric law (no cancellation).
double rank_probability_given_top1(double p, int rank, double tail_shape);
// The 1-based rank (>= 2) below the top-1 at quantile w in [0, 1) of the law's lower ranks: the
// smallest j with (P(rank < j) - p) / (1 - p) > w, capped at `beyond` (also returned for w >= 1
// or p outside (0, 1)). The geometric law's closed form is floor(ln(1 - w) / ln(1 - p)) + 2.
long long lower_rank_for_quantile(double p, double w, double tail_shape, long long beyond);

// E[f(P)] for P ~ Beta(c, 1), c = a / (1 - a): the calibrated draft's top-1 probability of mean
// a in (0, 1). Composite Gauss-Legendre in s = -ln P, whose density c exp(-c s) and every f
// above are smooth there; panels double in width from 1e-4 / max(1, c) to 40 / c (the density's
// mass beyond is below exp(-40)). Accurate to about 1e-9 for the rank laws above (checked
// against the closed form of the geometric law in tests/search/test_rank_tail.cpp).
double calibrated_top1_expectation(double a, const std::function<double(double)>& f);

}  // namespace search
