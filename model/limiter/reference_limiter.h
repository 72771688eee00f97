// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/seed_layouts.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QMap>

#include <memory>
#include <optional>

namespace sluice::model {

// retry_after_ms of a rejected call that can never pass, its cost above what the policy admits at
// once (-1 means admitted; any other wait is positive).
constexpr qint64 retryNeverMs = -2;

// What a limiter answers for one call (the sluice_acquire reply, minus limit and policy name).
struct Decision {
    bool allowed = false;
    qint64 remaining = 0;
    qint64 retryAfterMs = -1;
    qint64 resetAfterMs = 0;
    QByteArray extra; // lease id (concurrency) or queue delay in ms (leaky bucket), when admitted

    bool operator==(const Decision &other) const;
    QByteArray toString() const;
};

// An exact model of one bucket of a policy, written from the policy's definition: each algorithm
// keeps its state in its most natural form in 128-bit integers and answers "would a call of this
// cost fit at time t?", "how many whole units are available at t?" and "is it as good as new at
// t?". Time never goes backwards from one call to the next (state older than any window is
// dropped). retry_after and reset_after are then found by searching time, not by formula, so the model
// shares no arithmetic with the Lua library it checks; a call that no full bucket fits never passes
// (retryNeverMs).
//
// Built for one subject, it also answers as the policy treats that subject: its override (other limits;
// allow: admitted without consuming, the capacity available; deny: rejected with retryDeniedMs), and the
// policy's penalty: a real rejection (not in shadow, not a call that can never pass) blocks the subject
// for block_ms, its reply's waits at least that; while blocked, a call gets 0 available and both waits
// the time left, and changes nothing. A listed or blocked subject's call is answered whatever its cost.
// What settling a reservation answers (sluice_settle): what it finally cost the bucket, the part of an
// excess that was not charged (beyond max_debt), and the units available after; or why nothing was done.
struct Settlement {
    enum class Problem { None, Unknown, AlreadySettled, Expired };
    Problem problem = Problem::None;
    qint64 settled = 0;
    qint64 uncharged = 0;
    qint64 remaining = 0;
};

class ReferenceLimiter {
public:
    explicit ReferenceLimiter(const Policy &policy, const QByteArray &subject = {});
    // A seed layout's script as its code behaves (see lua/compat_*.lua): `limit` per `windowMs`
    // with `burst` for the token buckets (rate per second, window 1000, capacity; for the interval
    // bucket a batch of `limit` every `windowMs`, whole seconds), `limit` per `windowMs` (whole
    // seconds) for the INCR counter. The buckets that read their callers' clocks (ms, interval) are
    // modelled with one true clock: what their clients would see if their clocks agreed.
    ReferenceLimiter(SeedLayout layout, qint64 limit, qint64 windowMs, qint64 burst);
    ReferenceLimiter(ReferenceLimiter &&) noexcept;
    ReferenceLimiter &operator=(ReferenceLimiter &&) noexcept;
    ~ReferenceLimiter();

    Decision acquire(qint64 nowMs, qint64 cost);
    Decision peek(qint64 nowMs, qint64 cost) const;
    // acquire() without working out the reply's waits, for callers that need only the verdict.
    bool admit(qint64 nowMs, qint64 cost);
    bool release(const QByteArray &lease, qint64 nowMs); // true when the lease was still held
    // Reserve then settle (token bucket and GCRA): an acquire of `estimate` that, admitted, carries a
    // reservation id in `extra` (empty for an allow-listed subject, which reserves nothing). Settling
    // refunds what the call did not use or charges its excess, into debt down to max_debt; a reservation
    // waits for its settlement reserve_timeout_ms, and is forgotten one timeout after that.
    Decision reserve(qint64 nowMs, qint64 estimate);
    Settlement settle(const QByteArray &id, qint64 nowMs, qint64 actual);
    qint64 available(qint64 nowMs) const; // whole units a call could take now
    // As good as new: a new bucket would decide every later call the same (the library's key may expire).
    bool isFull(qint64 nowMs) const;

    class Model;

private:
    Decision decide(qint64 nowMs, qint64 cost) const;
    // The answer to a call decided without the bucket (listed, or blocked), if it is one.
    std::optional<Decision> gated(qint64 nowMs) const;
    // A real rejection of a call that could fit starts the penalty's block; true when it did.
    bool startBlock(qint64 nowMs, qint64 cost);

    std::unique_ptr<Model> m_model;
    SubjectOverride::Kind m_listed = SubjectOverride::Kind::Limits; // Allow or Deny: decided by the list
    qint64 m_capacity = 0;     // what an allow-listed subject's reply says is available
    QByteArray m_allowedExtra; // an allow-listed admission's extra element (leaky bucket 0, concurrency "")
    qint64 m_blockMs = 0;      // 0 for no penalty, and for a shadow policy
    qint64 m_blockedUntil = 0;
    struct Reservation {
        qint64 estimate;
        qint64 expiry;
        bool settled;
    };
    void forgetOldReservations(qint64 nowMs);
    QMap<QByteArray, Reservation> m_reservations;
    qint64 m_reserved = 0; // numbers the model's reservation ids
    qint64 m_maxDebt = 0;
    qint64 m_reserveTimeoutMs = 0;
};

} // namespace sluice::model
