// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "model/limiter/reference_limiter.h"
#include "model/limiter/seed_layouts.h"
#include "model/policy/policy.h"
#include "redis/resp_value.h"

#include <QByteArrayList>
#include <QString>

#include <optional>

namespace sluice::model {

// One limiter test-fire sends calls to: a policy, or a seed layout's script (an existing
// deployment's keys, or the same layout in the test-fire key space).
struct FireTarget {
    enum class Kind { Policy, SeedScript };
    Kind kind = Kind::Policy;
    // The limiter's definition. A seed script's parameters are kept in the same fields, as
    // SeedParameters says.
    Policy policy;
    SeedLayout layout = SeedLayout::ScgTokenBucket;
    // For the seed buckets that read their callers' clocks (ms, interval): connection k of C runs
    // k * skew / (C - 1) ms ahead of the first, so calls alternate between clocks that disagree by up
    // to this much.
    qint64 clockSkewMs = 0;
    // The namespace's allow and deny lists, which the library applies on the policy's own keys.
    QVector<SubjectOverride> namespaceLists;

    static FireTarget forPolicy(const Policy &policy);
    static FireTarget forSeedScript(SeedLayout layout, qint64 limit, qint64 windowMs, qint64 burst);
    // "scg_token_bucket:RATE:CAPACITY", "ms_token_bucket:RATE:CAPACITY",
    // "fixed_window_counter:LIMIT:WINDOW_SECONDS" or "interval_token_bucket:CAPACITY:ADD:INTERVAL_SECONDS",
    // as the CLI names a seed script (seedParameterForm()); nullopt with *problem set when `spec` is not one.
    static std::optional<FireTarget> fromSeedSpec(const QString &spec, QString *problem);
    static bool looksLikeSeedSpec(const QString &spec);

    // What charts and summaries call it: "api (token_bucket 100/60s, burst 150)".
    QString label() const;
    // Why it cannot be fired at with calls of `cost`; empty when it can.
    QString problem(qint64 cost) const;
    // A model of one of its buckets, starting full.
    // The model of one subject's bucket: on the policy's own keys (`realKeys`) as the policy treats that
    // subject (overrides, the namespace's lists, penalty); on test fire's keys (sluice_check) the policy's
    // limits alone.
    ReferenceLimiter reference(const QByteArray &subject, bool realKeys) const;
};

// The test-fire key space of one run: "<ns>-fire:<run>:".
QByteArray fireKeyPrefix(const QString &ns, const QByteArray &runId);

// The Redis commands of target `index` of a run. Test-fire keys (the default) live under
// "<namespace>-fire:<run>:<index + 1>:", so a run never touches a real subject's bucket and starts from full
// buckets; a policy is then called through sluice_check with its definition, which works before it
// is published and leaves the policy's own counters alone (sluice_check takes these keys: they lie outside
// "<namespace>:", where it refuses every key a policy could own). Real keys are the policy's buckets
// (sluice_acquire, as services call it) or the script's keys exactly as named.
class FireCommands {
public:
    // `reserving`: the calls are reservations (<library>_reserve), settled with settleCommand().
    FireCommands(const FireTarget &target, int index, const LibraryOwner &owner, const QByteArray &runId, bool realKeys,
                 qint64 cost, bool reserving = false);

    // callerClockMs: the caller's clock, for the layouts that read it (seedLayoutReadsCallerClock()).
    QByteArrayList command(const QByteArray &subject, qint64 callerClockMs) const;
    // Settles reservation `id` of `subject`'s bucket with the call's actual cost.
    QByteArrayList settleCommand(const QByteArray &subject, const QByteArray &id, qint64 actual) const;
    // The reservation id of an admitted reservation's reply (empty for an allow-listed subject's, which
    // reserved nothing); nullopt when the reply carries none.
    static std::optional<QByteArray> reservationId(const redis::RespValue &reply);
    // A settlement's reply: what the call finally cost and the units of its excess not charged; nullopt for
    // anything else.
    struct Settled {
        qint64 settled = 0;
        qint64 uncharged = 0;
    };
    static std::optional<Settled> settled(const redis::RespValue &reply);
    // The keys one subject's call touches (what a run leaves behind until they expire).
    QByteArrayList keys(const QByteArray &subject) const;
    // The script to SCRIPT LOAD on every primary before the run; empty for a policy.
    QByteArray script() const;

    // Whether a reply admitted the call; nullopt when it is not a reply of this target's command
    // (an error reply or a malformed one).
    std::optional<bool> admitted(const redis::RespValue &reply) const;

private:
    FireTarget m_target;
    LibraryOwner m_owner;
    QByteArray m_keyPrefix;         // test-fire key space, empty for real keys
    QByteArray m_script;            // a seed script's source, empty for a policy
    QByteArrayList m_head;          // before the keys: FCALL <function> 1, or EVALSHA <digest> <key count>
    QByteArrayList m_tail;          // after the keys: the policy or script arguments and the cost
    int m_callerClockAt = -1;       // where in m_tail the caller's clock goes, for a script that reads it
    qint64 m_callerClockUnitMs = 1; // the clock in ms, or (1000) in whole seconds
    mutable QByteArray m_lastSubject;
    mutable QByteArrayList m_lastKeys;
};

} // namespace sluice::model
