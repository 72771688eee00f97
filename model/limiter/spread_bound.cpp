// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/spread_bound.h"

#include <algorithm>
#include <cmath>

namespace sluice::model {

qint64 spreadShortfallBound(qint64 limit, int spread, qint64 calls, double deviation)
{
    // Per bucket, L_i - T_i (T >= L) or T_i - L_i (T < L) is below D + 1 - |T - L| / N: a share is within one
    // unit of L / N, a bucket's calls within D of T / N.
    const double perBucket = deviation + 1 - std::fabs(double(calls - limit)) / spread;
    const qint64 bound = qint64(std::floor(spread * std::max(0.0, perBucket)));
    return std::min(bound, std::min(calls, limit));
}

double spreadDeviationBound(qint64 calls, int spread, double failureChance)
{
    // P(|T_i - T/N| >= d) <= 2 exp(-d^2 / (2 sigma^2 + 2d/3)), sigma^2 = T (1/N)(1 - 1/N); solved for the d at
    // which N of those sum to failureChance.
    const double p = 1.0 / spread;
    const double variance = double(calls) * p * (1 - p);
    const double c = std::log(2.0 * spread / failureChance);
    return c / 3 + std::sqrt(c * c / 9 + 2 * variance * c);
}

} // namespace sluice::model
