// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/metrics/metrics_scrape.h"

#include <prometheus/metric_family.h>
#include <string>
#include <vector>

namespace sluice::model {

// A scrape as Prometheus metric families (prometheus-cpp's model, which its text serializer and its
// HTTP exposer take): per policy its counters and definition, per primary its state, the exporter's
// own scrape duration and error count. docs/monitoring.md lists them.
std::vector<prometheus::MetricFamily> metricFamilies(const MetricsSnapshot &snapshot, quint64 scrapeErrors);

// The families in the Prometheus text format (version 0.0.4).
std::string exposition(const std::vector<prometheus::MetricFamily> &families);

} // namespace sluice::model
