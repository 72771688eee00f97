// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy_overrides.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <optional>

namespace sluice::model {

enum class Algorithm { TokenBucket, FixedWindow, SlidingLog, SlidingWindow, LeakyBucket, Gcra, Concurrency };

// The stored and JSON spelling ("token_bucket", ...).
QString algorithmName(Algorithm algorithm);
std::optional<Algorithm> algorithmFromName(const QString &name);
QStringList algorithmNames();
// Whether the algorithm reads `burst` (token bucket, GCRA, leaky bucket); the others ignore it.
bool algorithmUsesBurst(Algorithm algorithm);
// Whether the algorithm settles reservations (sluice_reserve, sluice_settle): token bucket, GCRA and fixed
// windows (aligned or on the calendar, not first-call ones: see validatePolicy).
bool algorithmSettles(Algorithm algorithm);

// Where a fixed window starts. Aligned windows (the default, and what a policy stored without the field
// has) are multiples of window_ms since the epoch, the same for every subject: calendar quotas ("1000
// per day" resets at midnight UTC). A first-call window opens at a subject's first call and is timed by
// its key's expiry: no clock read on the decision's path, the cheapest fixed window.
enum class WindowStart { Aligned, FirstCall };

// The stored and JSON spelling ("aligned", "first_call").
QString windowStartName(WindowStart start);
std::optional<WindowStart> windowStartFromName(const QString &name);

// A fixed window on the calendar: a day from midnight, a week from Monday, a month (from anchor_day,
// on a shorter month its last day), at a fixed offset from UTC. Its window_ms is not given but
// derived: the nominal length (a day, a week, 31 days), which summaries and rates use.
enum class Calendar { None, Day, Week, Month };

// The stored and JSON spelling ("day", "week", "month"; empty for None).
QString calendarName(Calendar calendar);
std::optional<Calendar> calendarFromName(const QString &name);
qint64 calendarNominalMs(Calendar calendar);

// The largest values a policy may hold. The limiter does exact integer arithmetic in Lua's doubles
// (splitting products that would pass 2^53), so every value it replies or stores must stay below 2^53:
// these bounds guarantee that, with room for a sum.
namespace policy_limits {
constexpr qint64 maxLimit = 1'000'000'000; // 1e9 per window
constexpr qint64 maxBurst = 1'000'000'000;
constexpr qint64 maxWindowMs = 7LL * 24 * 3600 * 1000; // one week
constexpr qint64 maxStoredEntries = 100'000;           // sliding_log entries and concurrency leases per key
constexpr qint64 maxFillMs = 4'503'599'627'370'496;    // 2^52: an empty bucket fills within it (waits, expiry)
constexpr int maxDescriptionLength = 1024;
constexpr qint64 maxBlockMs = 31LL * 24 * 3600 * 1000; // a penalty of up to 31 days
constexpr int minUtcOffsetMinutes = -720;              // UTC-12:00
constexpr int maxUtcOffsetMinutes = 840;               // UTC+14:00
// Policies per namespace: each is code in every primary's library (at 10,000, about 28 MB of Lua memory
// outside maxmemory, an apply of all of them blocks Redis about 0.2 s; bench_policy_scale).
constexpr int maxPoliciesPerNamespace = 10'000;
// The library's code, in bytes: overrides are code too (up to 10,000 a policy), so the number of policies
// alone does not bound the Lua memory a library takes on every primary, outside maxmemory. Checked by apply
// (the policies' part) and publish (all of it) before anything is written; docs/benchmarks.md#policy-scale
// gives the Lua memory at this size.
constexpr qint64 maxLibraryBytes = 16LL * 1024 * 1024;
// Buckets a spread policy's subject is split into (Policy::spread): enough to reach every primary of a large
// Cluster, few enough that each bucket's share of a limit stays meaningful.
constexpr int maxSpread = 256;
} // namespace policy_limits

struct Policy {
    QString name;
    Algorithm algorithm = Algorithm::TokenBucket;
    qint64 limit = 0;
    qint64 windowMs = 0;
    qint64 burst = 0; // 0 in input means "same as limit"
    bool shadow = false;
    WindowStart windowStart = WindowStart::Aligned; // fixed_window only
    Calendar calendar = Calendar::None;             // fixed_window only; sets windowMs
    int utcOffsetMinutes = 0;                       // a calendar's offset from UTC
    int anchorDay = 1;                              // a month's first day, 1 to 31
    // A shadow twin: the live policy whose every call this shadow policy also decides, as if it alone
    // decided it, on the same subject, so a candidate limit sees live traffic without a service changing
    // its calls. Empty: an ordinary policy.
    QString shadowOf;
    // A twin's prediction from the replay it was chosen by: the share of requests it would reject,
    // 0 to 1, shown beside the share it measures live; -1 when there is none.
    double predictedRejectedShare = -1;
    // Exceptions for some subjects (other limits, allow, deny), sorted; see SubjectOverride.
    QVector<SubjectOverride> overrides;
    // A penalty: once this policy rejects a subject for real, the subject stays rejected this long
    // (ms; 0: no penalty).
    qint64 blockMs = 0;
    // Reserve then settle (token_bucket, gcra, fixed_window): how far a settled excess may put a subject in debt
    // (units; 0: an excess beyond what is left is not charged), and how long a reservation may wait
    // for its settlement (ms; 0: the policy's window) before its estimate stands.
    qint64 maxDebt = 0;
    qint64 reserveTimeoutMs = 0;
    // A hot subject (one global key) spread over this many buckets, each in its own Cluster slot and holding
    // its share of the limit and burst (spreadPart()); callers pick one at random per call by the key form
    // <namespace>:<policy>:{<subject>#<i>}, i from 0 to spread - 1. 0: not spread. See docs/limiter-contract.md.
    int spread = 0;
    QString description;
    // Fields of a stored policy that this version does not know: it refuses to save the policy rather
    // than drop them (see PolicyPlan).
    QStringList unknownFields;

    // Bookkeeping the store keeps beside the definition.
    qint64 version = 0;
    qint64 updatedAtMs = 0;
    QString updatedBy;

    qint64 effectiveBurst() const { return burst > 0 ? burst : limit; }
    qint64 effectiveReserveTimeoutMs() const { return reserveTimeoutMs > 0 ? reserveTimeoutMs : windowMs; }
    // Same definition (bookkeeping ignored): what decides whether an apply changes anything.
    bool sameDefinition(const Policy &other) const;
};

// One problem with one field of one policy, phrased for an operator.
struct PolicyError {
    QString policy; // may be empty (a problem with the file as a whole)
    QString field;  // may be empty (a problem with the policy as a whole)
    QString message;
    QString toString() const;
};

bool isValidPolicyName(const QString &name);

// The fields of a definition as policy files and the store spell them, "name" first: the one list that
// files, the store and lua/store_commit.lua (a test checks it) agree on.
const QStringList &definitionFieldNames();

// Bucket `index` (0 to spread - 1) of a spread policy as a policy of its own: the share of the limit and of the
// burst that bucket holds (the first limit % spread buckets one unit more; an algorithm without a burst, its
// limit), the rest unchanged and not spread.
Policy spreadPart(const Policy &policy, int index);

// Every problem with the definition; empty when it is valid.
QVector<PolicyError> validatePolicy(const Policy &policy);
// What is wrong between policies meant to be stored together: a shadow twin whose live policy is not
// among them, is itself a shadow policy, or is a twin.
QVector<PolicyError> twinProblems(const QVector<Policy> &policies);
// Why a stored policy that holds fields this version does not know cannot be saved by it.
PolicyError unknownFieldsProblem(const Policy &stored);

} // namespace sluice::model
