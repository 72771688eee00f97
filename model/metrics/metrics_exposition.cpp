// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/metrics/metrics_exposition.h"

#include "model/monitor/eviction_risk.h"

#include <deque>
#include <prometheus/text_serializer.h>
#include <sstream>

namespace sluice::model {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

std::string text(const QString &value)
{
    return value.toStdString();
}

class Families {
public:
    MetricFamily &family(const char *name, MetricType type, const char *help)
    {
        m_families.push_back({name, help, type, {}});
        return m_families.back();
    }
    static void add(MetricFamily &family, Labels labels, double value)
    {
        ClientMetric metric;
        metric.label = std::move(labels);
        if (family.type == MetricType::Counter)
            metric.counter.value = value;
        else
            metric.gauge.value = value;
        family.metric.push_back(std::move(metric));
    }
    std::vector<MetricFamily> take()
    {
        // A family without samples says nothing and would only add HELP and TYPE lines.
        std::vector<MetricFamily> kept;
        for (MetricFamily &family : m_families)
            if (!family.metric.empty())
                kept.push_back(std::move(family));
        return kept;
    }

private:
    std::deque<MetricFamily> m_families; // references to its elements stay valid as it grows
};

const char *stateLabel(NodeLibrary::State state)
{
    switch (state) {
    case NodeLibrary::State::Current: return "current";
    case NodeLibrary::State::Stale: return "stale";
    case NodeLibrary::State::Missing: return "missing";
    case NodeLibrary::State::Foreign: return "foreign";
    case NodeLibrary::State::Unreachable: break;
    }
    return "";
}

void addPolicies(Families &out, const MetricsSnapshot &s)
{
    const std::string ns = text(s.ns);
    auto &allowed = out.family("sluice_allowed_total", MetricType::Counter,
                               "Calls the policy allowed, summed over the primaries.");
    auto &rejected = out.family("sluice_rejected_total", MetricType::Counter,
                                "Calls an enforcing policy rejected (0 for shadow policies).");
    auto &shadowRejected = out.family("sluice_shadow_rejected_total", MetricType::Counter,
                                      "Calls a shadow policy would have rejected and let through.");
    // What the subject rules and reservations did (sluice_rule_stats), per policy.
    struct RuleCounter {
        quint64 DecisionTotals::*counter;
        MetricFamily &family;
    };
    const RuleCounter ruleCounters[] = {
        {&DecisionTotals::allowListed,
         out.family(
             "sluice_allow_listed_total", MetricType::Counter,
             "Calls an allow rule (an override or the namespace's list) admitted uncounted; among the allowed.")},
        {&DecisionTotals::denied,
         out.family("sluice_denied_total", MetricType::Counter,
                    "Calls a deny rule (an override or the namespace's list) rejected; among the rejected.")},
        {&DecisionTotals::blocksStarted,
         out.family("sluice_blocks_started_total", MetricType::Counter, "Penalties the policy started (block_ms).")},
        {&DecisionTotals::reservations,
         out.family("sluice_reservations_total", MetricType::Counter, "Reservations made (sluice_reserve).")},
        {&DecisionTotals::settlements,
         out.family("sluice_settlements_total", MetricType::Counter, "Reservations settled (sluice_settle).")},
        {&DecisionTotals::debtUnits,
         out.family("sluice_debt_units_total", MetricType::Counter,
                    "Units settlements charged beyond what was left, putting subjects in debt.")},
        {&DecisionTotals::unchargedUnits,
         out.family("sluice_uncharged_units_total", MetricType::Counter,
                    "Units of settled excess not charged because they would pass max_debt.")},
    };
    auto &blocked = out.family("sluice_blocked_subjects", MetricType::Gauge,
                               "Subjects the policy's penalty blocks now (each counted to the end of a 64th of "
                               "block_ms).");
    auto &limit
        = out.family("sluice_policy_limit", MetricType::Gauge, "The policy's limit in units per window, per subject.");
    auto &window = out.family("sluice_policy_window_seconds", MetricType::Gauge, "The policy's window.");
    auto &burst = out.family("sluice_policy_burst", MetricType::Gauge, "The policy's burst (0: none).");
    auto &shadow
        = out.family("sluice_policy_shadow", MetricType::Gauge, "1 when the policy only records what it would reject.");
    auto &firstCall = out.family("sluice_policy_window_from_first_call", MetricType::Gauge,
                                 "1 when the policy's windows open at each subject's first call, 0 when aligned to "
                                 "the clock.");
    for (const PolicyMetrics &policy : s.policies) {
        const Labels labels{{"namespace", ns}, {"policy", text(policy.name)}};
        if (s.totals) {
            const DecisionTotals totals = s.totals->value(policy.name);
            Families::add(allowed, labels, double(totals.allowed));
            Families::add(rejected, labels, double(totals.rejected));
            Families::add(shadowRejected, labels, double(totals.shadowRejected));
            if (const auto ruled = s.blockedSubjects.constFind(policy.name); ruled != s.blockedSubjects.cend()) {
                for (const RuleCounter &rule : ruleCounters)
                    Families::add(rule.family, labels, double(totals.*rule.counter));
                Families::add(blocked, labels, double(*ruled));
            }
        }
        Families::add(limit, {{"algorithm", text(policy.algorithm)}, {"namespace", ns}, {"policy", text(policy.name)}},
                      policy.limit);
        Families::add(window, labels, policy.windowSeconds);
        Families::add(burst, labels, policy.burst);
        Families::add(shadow, labels, policy.shadow ? 1 : 0);
        Families::add(firstCall, labels, policy.windowFromFirstCall ? 1 : 0);
    }
    auto &subjects = out.family(
        "sluice_subject_rejected_total", MetricType::Counter,
        "Rejections of a policy's most rejected subjects (opt-in, the --top N per policy rejected most in the "
        "exporter's last 5 minutes), each since it entered the library's summary: it restarts from 0 when the "
        "library is reloaded or the subject enters the summary again, which rate() and increase() take as a reset.");
    for (const SubjectRejections &subject : s.topSubjects)
        Families::add(subjects,
                      {{"namespace", ns}, {"policy", text(subject.policy)}, {"subject", text(subject.subject)}},
                      double(subject.rejections));
}

void addPrimaries(Families &out, const MetricsSnapshot &s)
{
    const std::string ns = text(s.ns);
    auto &up = out.family("sluice_primary_up", MetricType::Gauge, "1 when the primary answered this scrape.");
    auto &state = out.family("sluice_library_state", MetricType::Gauge,
                             "The limiter library on the primary: 1 for the state it is in.");
    auto &version = out.family("sluice_library_version", MetricType::Gauge, "The library version the primary runs.");
    auto &persistence = out.family("sluice_primary_persistence", MetricType::Gauge,
                                   "1 when the primary persists its data (RDB or AOF), 0 when a restart loses it.");
    auto &evictionRisk = out.family(
        "sluice_primary_eviction_risk", MetricType::Gauge,
        "What the primary's maxmemory-policy may evict when memory runs out: 0 nothing (noeviction), 1 keys with a "
        "TTL, every bucket among them (volatile-*), 2 any key, the policy store and audit log too (allkeys-*).");
    auto &evicted = out.family("sluice_primary_evicted_keys_total", MetricType::Counter,
                               "Keys the primary evicted since it started (evicted_keys: the whole server's count, "
                               "not only Sluice's keys); an evicted bucket lets its subject in at the full limit.");
    const NodeLibrary::State states[] = {NodeLibrary::State::Current, NodeLibrary::State::Stale,
                                         NodeLibrary::State::Missing, NodeLibrary::State::Foreign};
    for (const PrimaryMetrics &primary : s.primaries) {
        const Labels labels{{"namespace", ns}, {"primary", text(primary.node)}};
        Families::add(up, labels, primary.up ? 1 : 0);
        if (primary.library != NodeLibrary::State::Unreachable) {
            for (const NodeLibrary::State each : states)
                Families::add(state, {{"namespace", ns}, {"primary", text(primary.node)}, {"state", stateLabel(each)}},
                              each == primary.library ? 1 : 0);
        }
        if (primary.library == NodeLibrary::State::Current || primary.library == NodeLibrary::State::Stale)
            Families::add(version, labels, double(primary.libraryVersion));
        if (primary.persistence != NodeLibrary::Persistence::Unknown)
            Families::add(persistence, labels, primary.persistence == NodeLibrary::Persistence::Persisted ? 1 : 0);
        if (const int risk = evictionRiskLevel(evictionRiskOf(primary.maxmemoryPolicy)); risk >= 0)
            Families::add(evictionRisk, labels, risk);
        if (primary.evictedKeys >= 0)
            Families::add(evicted, labels, double(primary.evictedKeys));
    }
}

} // namespace

std::vector<MetricFamily> metricFamilies(const MetricsSnapshot &snapshot, quint64 scrapeErrors)
{
    const Labels labels{{"namespace", text(snapshot.ns)}};
    Families out;
    Families::add(out.family("sluice_up", MetricType::Gauge, "1 when every primary answered this scrape."), labels,
                  snapshot.up() ? 1 : 0);
    addPolicies(out, snapshot);
    addPrimaries(out, snapshot);
    if (snapshot.publishedVersion)
        Families::add(
            out.family("sluice_published_version", MetricType::Gauge, "The library version last published (0: never)."),
            labels, double(*snapshot.publishedVersion));
    Families::add(
        out.family("sluice_scrape_duration_seconds", MetricType::Gauge, "How long reading Redis took for this scrape."),
        labels, snapshot.durationSeconds);
    Families::add(out.family("sluice_scrape_commands", MetricType::Gauge, "Commands sent to Redis for this scrape."),
                  labels, double(snapshot.commands));
    Families::add(out.family("sluice_scrape_errors_total", MetricType::Counter,
                             "Scrapes that could not read everything, since the exporter started."),
                  labels, double(scrapeErrors));
    return out.take();
}

std::string exposition(const std::vector<MetricFamily> &families)
{
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, families);
    return out.str();
}

} // namespace sluice::model
