// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

namespace sluice::model {

// How far a spread policy (Policy::spread) can stray from one exact bucket, for the docs and the tests that
// hold the library to them. Of T calls in one window (or one burst into full buckets), T_i reach bucket i,
// whose share of the limit (or burst) L is L_i; the buckets admit A = sum of min(T_i, L_i) where one bucket
// would admit E = min(T, L). So A never passes L, and the shortfall E - A (calls turned away that one bucket
// would have admitted) is at most N * max(0, D + 1 - |T - L| / N), D = max |T_i - T / N| measuring how
// unevenly the calls spread. docs/limiter-contract.md#spread derives it.
qint64 spreadShortfallBound(qint64 limit, int spread, qint64 calls, double deviation);

// A D that callers picking buckets uniformly at random exceed with probability at most `failureChance`
// (Bernstein's inequality for each bucket's binomial count, and the union over the buckets).
double spreadDeviationBound(qint64 calls, int spread, double failureChance);

} // namespace sluice::model
