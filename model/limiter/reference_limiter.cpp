// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/reference_limiter.h"

#include <QDateTime>
#include <QMap>

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <vector>

namespace sluice::model {

__extension__ typedef __int128 Int; // exact beyond 2^63 products; GCC and Clang have it

class ReferenceLimiter::Model {
public:
    explicit Model(const Policy &policy)
        : limit(policy.limit)
        , window(policy.windowMs)
        , burst(policy.effectiveBurst())
    {
    }
    Model(qint64 limit, qint64 window, qint64 burst)
        : limit(limit)
        , window(window)
        , burst(burst)
    {
    }
    virtual ~Model() = default;

    virtual bool fits(qint64 t, qint64 cost) const = 0;
    // Whether a call of `cost` fits a full bucket: what the policy admits at once is `limit`, or `burst`
    // for the buckets that hold one.
    virtual bool canEverFit(qint64 cost) const { return cost <= limit; }
    virtual qint64 available(qint64 t) const = 0;
    virtual bool full(qint64 t) const = 0;
    virtual QByteArray consume(qint64 t, qint64 cost) = 0; // returns the reply's extra element
    virtual void reject(qint64, qint64) { }                // for limiters whose rejections change state
    virtual bool release(const QByteArray &, qint64) { return false; }
    // Settling: give back `units` of a reservation made at `reservedAt`, returning what could not be given
    // back; take `units` more, into debt down to `maxDebt` units, returning what could not be taken.
    virtual qint64 refund(qint64, qint64 units, qint64) { return units; }
    virtual qint64 charge(qint64, qint64 units, qint64) { return units; }

    const Int limit, window, burst;
};

namespace {

qint64 floorDiv(Int a, Int b)
{
    Int q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return static_cast<qint64>(q);
}

qint64 ceilDiv(Int a, Int b)
{
    return -floorDiv(-a, b);
}

// Continuous refill toward `burst` units at `limit` per `window` ms; levels in 1/window units.
class TokenBucket : public ReferenceLimiter::Model {
public:
    using Model::Model;
    bool canEverFit(qint64 cost) const override { return cost <= burst; }
    Int level(qint64 t) const
    {
        const Int capacity = burst * window;
        if (!started)
            return capacity;
        return std::min(capacity, scaled + Int(std::max<qint64>(0, t - stamp)) * limit);
    }
    bool fits(qint64 t, qint64 cost) const override { return level(t) >= Int(cost) * window; }
    qint64 available(qint64 t) const override { return floorDiv(level(t), window); }
    bool full(qint64 t) const override { return level(t) == burst * window; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        set(t, level(t) - Int(cost) * window);
        return {};
    }
    // A bucket refills whatever it gave: the units go back (up to full, where a refill would have put it).
    qint64 refund(qint64 t, qint64 units, qint64) override
    {
        set(t, std::min(burst * window, level(t) + Int(units) * window));
        return 0;
    }
    qint64 charge(qint64 t, qint64 units, qint64 maxDebt) override
    {
        const Int level = this->level(t);
        const qint64 charged = std::clamp<qint64>(floorDiv(level + Int(maxDebt) * window, window), 0, units);
        set(t, level - Int(charged) * window);
        return units - charged;
    }

private:
    void set(qint64 t, Int level)
    {
        scaled = level;
        stamp = started ? std::max(stamp, t) : t;
        started = true;
    }
    bool started = false;
    Int scaled = 0;
    qint64 stamp = 0;
};

// GCRA: one theoretical arrival time, absolute, in 1/limit ms.
class Gcra : public ReferenceLimiter::Model {
public:
    using Model::Model;
    bool canEverFit(qint64 cost) const override { return cost <= burst; }
    Int backlog(qint64 t) const { return std::max(Int(0), tat - Int(t) * limit); }
    bool fits(qint64 t, qint64 cost) const override { return backlog(t) + Int(cost) * window <= burst * window; }
    qint64 available(qint64 t) const override { return floorDiv(burst * window - backlog(t), window); }
    bool full(qint64 t) const override { return backlog(t) == 0; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        tat = std::max(tat, Int(t) * limit) + Int(cost) * window;
        return {};
    }
    qint64 refund(qint64 t, qint64 units, qint64) override
    {
        tat = std::max(Int(t) * limit, tat - Int(units) * window);
        return 0;
    }
    qint64 charge(qint64 t, qint64 units, qint64 maxDebt) override
    {
        const qint64 charged = std::clamp<qint64>(floorDiv((burst + maxDebt) * window - backlog(t), window), 0, units);
        consume(t, charged);
        return units - charged;
    }

private:
    Int tat = 0;
};

// Leaky bucket as a queue: the time it empties, in 1/limit ms; an admitted call waits for the
// queue ahead of it.
class LeakyBucket : public ReferenceLimiter::Model {
public:
    using Model::Model;
    bool canEverFit(qint64 cost) const override { return cost <= burst; }
    Int queued(qint64 t) const { return std::max(Int(0), emptyAt - Int(t) * limit); }
    bool fits(qint64 t, qint64 cost) const override { return queued(t) + Int(cost) * window <= burst * window; }
    qint64 available(qint64 t) const override { return floorDiv(burst * window - queued(t), window); }
    bool full(qint64 t) const override { return queued(t) == 0; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        const qint64 delay = ceilDiv(queued(t), limit);
        emptyAt = std::max(emptyAt, Int(t) * limit) + Int(cost) * window;
        return QByteArray::number(delay);
    }

private:
    Int emptyAt = 0;
};

// Fixed windows aligned to the epoch: a count per window, and a settlement's debt: units owed beyond a
// full window, carried into the windows after it (each window that passes pays up to `limit` of it, and the
// first one called in takes what is left into its count, so the subject is rejected until it is paid).
class FixedWindow : public ReferenceLimiter::Model {
public:
    using Model::Model;
    // The window in progress at t, numbered so that the next is one more.
    virtual qint64 windowId(qint64 t) const { return floorDiv(t, window); }
    struct Window {
        qint64 count; // units counted in the window, the debt it took on included
        qint64 debt;  // units still owed beyond it
    };
    // Window `id` as its first call finds it, the debt carried in.
    Window at(qint64 id) const
    {
        const qint64 count = counts.value(id);
        if (debt == 0 || id <= debtWindow)
            return {count, debt};
        const qint64 left = debt - (id - debtWindow - 1) * static_cast<qint64>(limit);
        if (left <= 0)
            return {count, 0};
        const qint64 carried = std::min<qint64>(left, limit);
        return {count + carried, left - carried};
    }
    bool fits(qint64 t, qint64 cost) const override { return available(t) >= cost; }
    qint64 available(qint64 t) const override
    {
        const Window now = at(windowId(t));
        return static_cast<qint64>(limit) - now.count - now.debt;
    }
    bool full(qint64 t) const override
    {
        const Window now = at(windowId(t));
        return now.count == 0 && now.debt == 0;
    }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        const qint64 id = enter(t);
        counts[id] += cost;
        return {};
    }
    // Only while the window the reservation was counted in still counts: a window that no longer does took
    // its units with it.
    qint64 refund(qint64 t, qint64 units, qint64 reservedAt) override
    {
        const qint64 id = enter(t);
        const qint64 reservedIn = windowId(reservedAt);
        if (reservedIn < id - windowsCountedBefore())
            return units;
        const qint64 fromDebt = std::min(units, debt);
        debt -= fromDebt;
        counts[reservedIn] -= units - fromDebt;
        return 0;
    }
    qint64 charge(qint64 t, qint64 units, qint64 maxDebt) override
    {
        const qint64 id = enter(t);
        const qint64 intoWindow = std::clamp<qint64>(available(t), 0, units);
        counts[id] += intoWindow;
        const qint64 intoDebt = std::clamp<qint64>(maxDebt - debt, 0, units - intoWindow);
        debt += intoDebt;
        return units - intoWindow - intoDebt;
    }

protected:
    // How many windows before the one in progress still count toward it.
    virtual qint64 windowsCountedBefore() const { return 0; }
    // The window in progress at t, as its first call makes it: the debt carried into it and the one before,
    // the older windows gone.
    qint64 enter(qint64 t)
    {
        const qint64 id = windowId(t);
        const Window now = at(id);
        counts[id - 1] = at(id - 1).count;
        counts[id] = now.count;
        debt = now.debt;
        debtWindow = id;
        while (!counts.isEmpty() && counts.firstKey() < id - 1)
            counts.erase(counts.begin());
        return id;
    }
    QMap<qint64, qint64> counts;
    qint64 debt = 0;
    qint64 debtWindow = std::numeric_limits<qint64>::min();
};

// A fixed window that opens at the bucket's first call and lasts `window` ms (window_start
// first_call): only the window in progress counts; the first call after it ends opens the next.
// A rejection happens only inside an open window and leaves it as it is.
class FirstCallWindow : public ReferenceLimiter::Model {
public:
    using Model::Model;
    qint64 count(qint64 t) const { return t < endsAt ? used : 0; }
    bool fits(qint64 t, qint64 cost) const override { return count(t) + cost <= limit; }
    qint64 available(qint64 t) const override { return static_cast<qint64>(limit) - count(t); }
    bool full(qint64 t) const override { return count(t) == 0; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        if (t >= endsAt) {
            used = 0;
            endsAt = t + static_cast<qint64>(window);
        }
        used += cost;
        return {};
    }

private:
    qint64 used = 0;
    qint64 endsAt = 0;
};

// A fixed window on the calendar (Policy::calendar): the period in progress at t, found with Qt's
// calendar at the policy's offset from UTC (no arithmetic shared with the library's), numbered days, weeks
// or months since the epoch; counted, and in debt, as aligned windows are.
class CalendarWindow : public FixedWindow {
public:
    explicit CalendarWindow(const Policy &policy)
        : FixedWindow(policy)
        , calendar(policy.calendar)
        , offsetSeconds(policy.utcOffsetMinutes * 60)
        , anchorDay(policy.anchorDay)
    {
    }
    qint64 windowId(qint64 t) const override
    {
        const QDate date = QDateTime::fromMSecsSinceEpoch(t, Qt::OffsetFromUTC, offsetSeconds).date();
        QDate first = date;
        if (calendar == Calendar::Week) {
            first = date.addDays(1 - date.dayOfWeek());
        } else if (calendar == Calendar::Month) {
            first = anchorIn(date.year(), date.month());
            if (date < first)
                first = anchorIn(date.addMonths(-1).year(), date.addMonths(-1).month());
            return qint64(first.year()) * 12 + first.month() - 1;
        }
        const qint64 day = QDate(1970, 1, 1).daysTo(first);
        return calendar == Calendar::Week ? floorDiv(day, 7) : day; // a week's Monday: its number is the same
    }

private:
    // A month's anchor day, or its last day when it has fewer.
    QDate anchorIn(int year, int month) const
    {
        const QDate first(year, month, 1);
        return QDate(year, month, std::min(anchorDay, first.daysInMonth()));
    }
    const Calendar calendar;
    const int offsetSeconds;
    const int anchorDay;
};

// The weighted estimate over aligned windows, scaled by the window. A settlement's debt is carried as the
// fixed window's: the units a window takes in weigh as its calls do, and what is still owed beyond the
// window in progress counts whole.
class SlidingWindow : public FixedWindow {
public:
    using FixedWindow::FixedWindow;
    Int load(qint64 t) const
    {
        const qint64 id = windowId(t);
        const Int elapsed = Int(t) - Int(id) * window;
        const Window now = at(id);
        return Int(at(id - 1).count) * (window - elapsed) + Int(now.count + now.debt) * window;
    }
    bool fits(qint64 t, qint64 cost) const override { return load(t) + Int(cost) * window <= limit * window; }
    qint64 available(qint64 t) const override { return floorDiv(limit * window - load(t), window); }
    bool full(qint64 t) const override { return load(t) == 0; }

protected:
    // A window's units weigh on the next one too, so a reservation made in it can still be given back there.
    qint64 windowsCountedBefore() const override { return 1; }
};

// Every admission, kept; the trailing window is (t - window, t].
class SlidingLog : public ReferenceLimiter::Model {
public:
    using Model::Model;
    qint64 used(qint64 t) const
    {
        qint64 sum = 0;
        for (const auto &[at, cost] : entries)
            if (at > t - window && at <= t)
                sum += cost;
        return sum;
    }
    bool fits(qint64 t, qint64 cost) const override { return used(t) + cost <= limit; }
    qint64 available(qint64 t) const override { return static_cast<qint64>(limit) - used(t); }
    bool full(qint64 t) const override { return used(t) == 0; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        while (!entries.empty() && entries.front().first <= t - window)
            entries.pop_front();
        entries.emplace_back(t, cost);
        return {};
    }

private:
    std::deque<std::pair<qint64, qint64>> entries;
};

// Leases held until released or until window ms after they were granted.
class Concurrency : public ReferenceLimiter::Model {
public:
    using Model::Model;
    qint64 held(qint64 t) const
    {
        qint64 sum = 0;
        for (const Lease &lease : leases)
            if (lease.expiry > t)
                sum += lease.cost;
        return sum;
    }
    bool fits(qint64 t, qint64 cost) const override { return held(t) + cost <= limit; }
    qint64 available(qint64 t) const override { return static_cast<qint64>(limit) - held(t); }
    bool full(qint64 t) const override { return held(t) == 0; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        leases.erase(std::remove_if(leases.begin(), leases.end(), [t](const Lease &l) { return l.expiry <= t; }),
                     leases.end());
        const QByteArray id
            = QByteArray::number(t) + '-' + QByteArray::number(++granted) + ':' + QByteArray::number(cost);
        leases.push_back({id, t + static_cast<qint64>(window), cost});
        return id;
    }
    bool release(const QByteArray &id, qint64 t) override
    {
        const auto found = std::find_if(leases.begin(), leases.end(), [&](const Lease &l) { return l.id == id; });
        if (found == leases.end())
            return false;
        const bool live = found->expiry > t;
        leases.erase(found);
        return live;
    }

private:
    struct Lease {
        QByteArray id;
        qint64 expiry;
        qint64 cost;
    };
    std::vector<Lease> leases;
    qint64 granted = 0;
};

// The Spring Cloud Gateway bucket (compat_scg_token_bucket.lua): whole seconds of the server's
// clock, `limit` tokens a second up to `burst`, both keys rewritten (and their expiry renewed) by
// every call, admitted or not; keys kept for 2 * capacity / rate seconds, none at all below one.
class ScgTokenBucket : public ReferenceLimiter::Model {
public:
    using Model::Model;
    bool canEverFit(qint64 cost) const override { return cost <= burst; }
    Int filled(qint64 t) const
    {
        if (!stored || t >= expiresAt)
            return burst;
        return std::min(burst, tokens + Int(std::max<qint64>(0, floorDiv(t, 1000) - stampSeconds)) * limit);
    }
    bool fits(qint64 t, qint64 cost) const override { return filled(t) >= cost; }
    qint64 available(qint64 t) const override { return static_cast<qint64>(filled(t)); }
    bool full(qint64 t) const override { return filled(t) == burst; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        write(t, filled(t) - cost);
        return {};
    }
    void reject(qint64 t, qint64) override { write(t, filled(t)); }

private:
    void write(qint64 t, Int level)
    {
        const Int keptSeconds = 2 * burst / limit;
        stored = keptSeconds > 0;
        tokens = level;
        stampSeconds = floorDiv(t, 1000);
        expiresAt = t + static_cast<qint64>(keptSeconds) * 1000;
    }
    bool stored = false;
    Int tokens = 0;
    qint64 stampSeconds = 0;
    qint64 expiresAt = 0;
};

// The INCR + EXPIRE counter (compat_fixed_window_counter.lua): a window opens at the first call and
// lasts `window` ms; every call counts, rejected ones too, and the ones past `limit` are rejected.
class CallCounter : public ReferenceLimiter::Model {
public:
    using Model::Model;
    bool open(qint64 t) const { return count > 0 && t < expiresAt; }
    bool fits(qint64 t, qint64) const override { return !open(t) || count < limit; }
    bool canEverFit(qint64) const override { return true; } // it counts calls, whatever they cost
    qint64 available(qint64 t) const override
    {
        return open(t) ? std::max<qint64>(0, static_cast<qint64>(limit) - count) : static_cast<qint64>(limit);
    }
    bool full(qint64 t) const override { return !open(t); }
    QByteArray consume(qint64 t, qint64) override
    {
        countCall(t);
        return {};
    }
    void reject(qint64 t, qint64) override { countCall(t); }

private:
    void countCall(qint64 t)
    {
        if (!open(t)) {
            count = 0;
            expiresAt = t + static_cast<qint64>(window);
        }
        ++count;
    }
    qint64 count = 0;
    qint64 expiresAt = 0;
};

// The interval-refill bucket (compat_interval_token_bucket.lua): whole batches of `limit` tokens every
// `window` ms (whole seconds of the caller's clock), counted from the last refill so part of an interval
// carries over, up to `burst`. A refused call changes nothing; an admitted one keeps the keys for
// ceil(burst / limit) intervals, after which the bucket starts again full, from the second of its next call.
class IntervalTokenBucket : public ReferenceLimiter::Model {
public:
    using Model::Model;
    bool canEverFit(qint64 cost) const override { return cost <= burst; }
    Int tokensAt(qint64 t) const { return live(t) ? std::min(burst, tokens + batches(t) * limit) : burst; }
    bool fits(qint64 t, qint64 cost) const override { return tokensAt(t) >= cost; }
    qint64 available(qint64 t) const override { return static_cast<qint64>(tokensAt(t)); }
    bool full(qint64 t) const override { return tokensAt(t) == burst; }
    QByteArray consume(qint64 t, qint64 cost) override
    {
        const Int level = tokensAt(t);
        if (live(t)) {
            lastSecond += batches(t) * intervalSeconds();
        } else {
            lastSecond = floorDiv(t, 1000);
            stored = true;
        }
        tokens = level - cost;
        expiresAt = t + static_cast<qint64>(ceilDiv(burst, limit) * intervalSeconds()) * 1000;
        return {};
    }

private:
    Int intervalSeconds() const { return window / 1000; }
    // Redis drops a key once its expiry has passed.
    bool live(qint64 t) const { return stored && t <= expiresAt; }
    // A clock behind the last refill brings nothing back.
    Int batches(qint64 t) const
    {
        return std::max<qint64>(0, floorDiv(floorDiv(t, 1000) - lastSecond, intervalSeconds()));
    }
    bool stored = false;
    Int tokens = 0;
    Int lastSecond = 0;
    qint64 expiresAt = 0;
};

// The first time in [from, from + 2^53) at which a condition that never turns false again holds.
qint64 firstTime(qint64 from, const std::function<bool(qint64)> &holds)
{
    if (holds(from))
        return from;
    qint64 low = from, high = from + (qint64(1) << 53);
    while (high - low > 1) {
        const qint64 middle = low + (high - low) / 2;
        (holds(middle) ? high : low) = middle;
    }
    return high;
}

} // namespace

bool Decision::operator==(const Decision &other) const
{
    return allowed == other.allowed && remaining == other.remaining && retryAfterMs == other.retryAfterMs
        && resetAfterMs == other.resetAfterMs && extra == other.extra;
}

QByteArray Decision::toString() const
{
    return QByteArray("[") + (allowed ? "1" : "0") + ", " + QByteArray::number(remaining) + ", "
        + QByteArray::number(retryAfterMs) + ", " + QByteArray::number(resetAfterMs)
        + (extra.isEmpty() ? "" : ", " + extra) + "]";
}

ReferenceLimiter::ReferenceLimiter(const Policy &given, const QByteArray &subject)
{
    Policy policy = given;
    if (const SubjectOverride *override = matchingOverride(given.overrides, subject)) {
        m_listed = override->kind;
        policy = overriddenPolicy(given, *override);
    }
    m_blockMs = policy.shadow ? 0 : policy.blockMs;
    m_maxDebt = policy.maxDebt;
    m_reserveTimeoutMs = policy.effectiveReserveTimeoutMs();
    m_capacity = algorithmUsesBurst(policy.algorithm) ? policy.effectiveBurst() : policy.limit;
    if (policy.algorithm == Algorithm::LeakyBucket)
        m_allowedExtra = "0";
    switch (policy.algorithm) {
    case Algorithm::TokenBucket: m_model = std::make_unique<TokenBucket>(policy); break;
    case Algorithm::Gcra: m_model = std::make_unique<Gcra>(policy); break;
    case Algorithm::LeakyBucket: m_model = std::make_unique<LeakyBucket>(policy); break;
    case Algorithm::FixedWindow:
        if (policy.calendar != Calendar::None)
            m_model = std::make_unique<CalendarWindow>(policy);
        else if (policy.windowStart == WindowStart::FirstCall)
            m_model = std::make_unique<FirstCallWindow>(policy);
        else
            m_model = std::make_unique<FixedWindow>(policy);
        break;
    case Algorithm::SlidingWindow: m_model = std::make_unique<SlidingWindow>(policy); break;
    case Algorithm::SlidingLog: m_model = std::make_unique<SlidingLog>(policy); break;
    case Algorithm::Concurrency: m_model = std::make_unique<Concurrency>(policy); break;
    }
}

ReferenceLimiter::ReferenceLimiter(SeedLayout layout, qint64 limit, qint64 windowMs, qint64 burst)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket: m_model = std::make_unique<ScgTokenBucket>(limit, windowMs, burst); break;
    case SeedLayout::FixedWindowCounter: m_model = std::make_unique<CallCounter>(limit, windowMs, burst); break;
    case SeedLayout::MsTokenBucket: m_model = std::make_unique<TokenBucket>(limit, windowMs, burst); break;
    case SeedLayout::IntervalTokenBucket:
        m_model = std::make_unique<IntervalTokenBucket>(limit, windowMs, burst);
        break;
    }
}

ReferenceLimiter::ReferenceLimiter(ReferenceLimiter &&) noexcept = default;
ReferenceLimiter &ReferenceLimiter::operator=(ReferenceLimiter &&) noexcept = default;
ReferenceLimiter::~ReferenceLimiter() = default;

Decision ReferenceLimiter::decide(qint64 now, qint64 cost) const
{
    const Model &model = *m_model;
    Decision decision;
    decision.allowed = model.fits(now, cost);
    decision.remaining = model.available(now);
    if (decision.allowed)
        decision.retryAfterMs = -1;
    else if (!model.canEverFit(cost))
        decision.retryAfterMs = retryNeverMs;
    else
        decision.retryAfterMs = firstTime(now, [&](qint64 t) { return model.fits(t, cost); }) - now;
    decision.resetAfterMs = firstTime(now, [&](qint64 t) { return model.full(t); }) - now;
    return decision;
}

std::optional<Decision> ReferenceLimiter::gated(qint64 now) const
{
    Decision decision;
    if (m_listed == SubjectOverride::Kind::Allow) {
        decision.allowed = true;
        decision.remaining = m_capacity;
        decision.extra = m_allowedExtra;
    } else if (m_listed == SubjectOverride::Kind::Deny) {
        decision.retryAfterMs = retryDeniedMs;
    } else if (now < m_blockedUntil) {
        decision.retryAfterMs = decision.resetAfterMs = m_blockedUntil - now;
    } else {
        return std::nullopt;
    }
    return decision;
}

bool ReferenceLimiter::startBlock(qint64 now, qint64 cost)
{
    if (m_blockMs == 0 || !m_model->canEverFit(cost))
        return false;
    m_blockedUntil = now + m_blockMs;
    return true;
}

Decision ReferenceLimiter::peek(qint64 now, qint64 cost) const
{
    if (std::optional<Decision> listedOrBlocked = gated(now)) {
        listedOrBlocked->extra.clear(); // a peek admits nothing, so holds no lease and queues nowhere
        return *listedOrBlocked;
    }
    return decide(now, cost);
}

Decision ReferenceLimiter::acquire(qint64 now, qint64 cost)
{
    if (const std::optional<Decision> listedOrBlocked = gated(now))
        return *listedOrBlocked;
    Decision decision = decide(now, cost);
    if (!decision.allowed) {
        m_model->reject(now, cost);
        if (startBlock(now, cost)) {
            decision.retryAfterMs = std::max(decision.retryAfterMs, m_blockMs);
            decision.resetAfterMs = std::max(decision.resetAfterMs, m_blockMs);
        }
        return decision;
    }
    decision.extra = m_model->consume(now, cost);
    decision.remaining = m_model->available(now);
    decision.resetAfterMs = firstTime(now, [&](qint64 t) { return m_model->full(t); }) - now;
    return decision;
}

bool ReferenceLimiter::admit(qint64 now, qint64 cost)
{
    if (const std::optional<Decision> listedOrBlocked = gated(now))
        return listedOrBlocked->allowed;
    if (!m_model->fits(now, cost)) {
        m_model->reject(now, cost);
        startBlock(now, cost);
        return false;
    }
    m_model->consume(now, cost);
    return true;
}

void ReferenceLimiter::forgetOldReservations(qint64 now)
{
    for (auto it = m_reservations.begin(); it != m_reservations.end();)
        it = it->expiry <= now - m_reserveTimeoutMs ? m_reservations.erase(it) : std::next(it);
}

Decision ReferenceLimiter::reserve(qint64 now, qint64 estimate)
{
    const bool listed = m_listed != SubjectOverride::Kind::Limits;
    Decision decision = acquire(now, estimate);
    if (!decision.allowed || listed)
        return decision;
    forgetOldReservations(now);
    decision.extra = "r" + QByteArray::number(++m_reserved) + ':' + QByteArray::number(estimate);
    m_reservations.insert(decision.extra, {estimate, now + m_reserveTimeoutMs, false});
    return decision;
}

Settlement ReferenceLimiter::settle(const QByteArray &id, qint64 now, qint64 actual)
{
    Settlement settlement;
    if (id.isEmpty())
        return settlement; // an allow-listed subject's: nothing was reserved
    forgetOldReservations(now);
    const auto found = m_reservations.find(id);
    if (found == m_reservations.end())
        settlement.problem = Settlement::Problem::Unknown;
    else if (found->settled)
        settlement.problem = Settlement::Problem::AlreadySettled;
    else if (found->expiry <= now)
        settlement.problem = Settlement::Problem::Expired;
    if (settlement.problem != Settlement::Problem::None)
        return settlement;
    found->settled = true;
    qint64 kept = 0; // of a refund, what could not be given back
    if (actual < found->estimate)
        kept = m_model->refund(now, found->estimate - actual, found->expiry - m_reserveTimeoutMs);
    else if (actual > found->estimate)
        settlement.uncharged = m_model->charge(now, actual - found->estimate, m_maxDebt);
    settlement.settled = actual - settlement.uncharged + kept;
    settlement.remaining = m_model->available(now);
    return settlement;
}

bool ReferenceLimiter::release(const QByteArray &lease, qint64 now)
{
    return m_model->release(lease, now);
}

qint64 ReferenceLimiter::available(qint64 now) const
{
    if (const std::optional<Decision> listedOrBlocked = gated(now))
        return listedOrBlocked->remaining;
    return m_model->available(now);
}

bool ReferenceLimiter::isFull(qint64 now) const
{
    return now >= m_blockedUntil && m_model->full(now);
}

} // namespace sluice::model
