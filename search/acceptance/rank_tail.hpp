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
//    tokens within the top 3, the log-logistic at beta = 0.9 within the top 36. That is what a
//    weak draft shows (paper 002 §3.3.1: a 1B draft reaches 0.99 only at top 32, while an 8B
//    draft with top-1 0.81 reaches it at top 8), and what a geometric tail can only match by
//    raising the top-1. For beta <= 1 the listed probabilities never rise with the rank (the
//    CDF is concave in k), which the trees' best-first searches rely on.
#include <functional>

namespace search {

// P(rank < k) given the draft's top-1 probability p in [0, 1], k >= 0 candidates.
double rank_cdf_given_top1(double p, double k, double tail_shape);
// P(rank = r), r >= 0 (0-based), given p: exact for the geometric law (no cancellation).
double rank_probability_given_top1(double p, int rank, double tail_shape);
// The smallest k >= 1 with P(rank < k) >= h (the 1-based rank a uniform h in [p, 1) stands for);
// `beyond` when no finite rank reaches h (h >= 1) or the rank would exceed it.
long long rank_count_for_cdf(double p, double h, double tail_shape, long long beyond);

// E[f(P)] for P ~ Beta(c, 1), c = a / (1 - a): the calibrated draft's top-1 probability of mean
// a in (0, 1). Composite Gauss-Legendre in s = -ln P, whose density c exp(-c s) and every f
// above are smooth there; panels double in width from 1e-4 / max(1, c) to 40 / c (the density's
// mass beyond is below exp(-40)). Accurate to about 1e-9 for the rank laws above (checked
// against the closed form of the geometric law in tests/search/test_rank_tail.cpp).
double calibrated_top1_expectation(double a, const std::function<double(double)>& f);

}  // namespace search
