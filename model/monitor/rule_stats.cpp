// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rule_stats.h"

#include "model/limiter/library_problem.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::RuleStats)
};

constexpr qsizetype fieldsPerPolicy = 9;

} // namespace

std::optional<RuleStatsReading> RuleStatsReading::parse(const redis::RespValue &reply, QString *problem)
{
    if (reply.isError()) {
        if (reply.toString().contains(QLatin1String("Function not found")))
            return RuleStatsReading{};
        *problem = libraryCallProblem(reply.toString());
        return std::nullopt;
    }
    const QVector<redis::RespValue> &fields = reply.elements;
    if (!reply.isArray() || fields.size() < 2 || (fields.size() - 2) % fieldsPerPolicy != 0 || !fields.at(0).isInteger()
        || !fields.at(1).isInteger()) {
        *problem = Text::tr("unexpected reply to sluice_rule_stats");
        return std::nullopt;
    }
    RuleStatsReading reading;
    reading.nowMs = fields.at(0).integer;
    reading.epochMs = fields.at(1).integer;
    for (qsizetype i = 2; i < fields.size(); i += fieldsPerPolicy) {
        quint64 counts[fieldsPerPolicy - 1];
        for (qsizetype j = 1; j < fieldsPerPolicy; ++j) {
            const redis::RespValue &count = fields.at(i + j);
            if (!count.isInteger() || count.integer < 0) {
                *problem = Text::tr("unexpected reply to sluice_rule_stats");
                return std::nullopt;
            }
            counts[j - 1] = quint64(count.integer);
        }
        reading.policies.insert(
            QString::fromUtf8(fields.at(i).bytes),
            {counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7]});
    }
    return reading;
}

} // namespace sluice::model
