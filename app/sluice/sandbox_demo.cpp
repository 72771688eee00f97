// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/sluice/sandbox_demo.h"

#include "model/deploy/library_publisher.h"
#include "model/limiter/bucket_key.h"
#include "model/policy/policy_store.h"
#include "redis/redis_client.h"

namespace sluice::app {

namespace {

const QString kNamespace = QStringLiteral("sluice");
const model::LibraryOwner kOwner{kNamespace, 0}; // the sandbox server's database 0: sluice_acquire and friends
const QString kWho = QStringLiteral("sluice sandbox");
constexpr int kTickMs = 100;
constexpr int kMaxInFlight = 500; // a slow server gets fewer calls, never a growing queue

model::Policy demoPolicy(const char *name, model::Algorithm algorithm, qint64 limit, qint64 windowMs, qint64 burst,
                         const char *description, bool shadow = false)
{
    model::Policy policy;
    policy.name = QString::fromLatin1(name);
    policy.algorithm = algorithm;
    policy.limit = limit;
    policy.windowMs = windowMs;
    policy.burst = burst;
    policy.shadow = shadow;
    policy.description = QString::fromLatin1(description);
    return policy;
}

QByteArray numbered(const char *prefix, int n)
{
    return QByteArray(prefix) + (n < 10 ? "-0" : "-") + QByteArray::number(n);
}

} // namespace

SandboxDemo::SandboxDemo(redis::RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &SandboxDemo::tick);
}

QVector<model::Policy> SandboxDemo::demoPolicies()
{
    using model::Algorithm;
    using Rule = model::SubjectOverride;
    // A partner tier and an uncounted health check on the API; a ten-minute penalty after a login breach.
    model::Policy api = demoPolicy("api", Algorithm::TokenBucket, 100, 60'000, 150, "Public API, per user");
    api.overrides
        = {{"health-check", false, Rule::Kind::Allow, 0, 0}, {"partner-", true, Rule::Kind::Limits, 1000, 1500}};
    model::Policy login = demoPolicy("login", Algorithm::FixedWindow, 5, 60'000, 0, "Login attempts per account");
    login.blockMs = 600'000;
    login.windowStart = model::WindowStart::FirstCall; // seed 001's counter: the window opens at the first attempt
    // One global subject for the whole service, spread so its calls do not all land on one primary.
    model::Policy signups = demoPolicy("signups", Algorithm::FixedWindow, 240, 60'000, 0,
                                       "Sign-ups across the service: one global subject over 4 buckets");
    signups.spread = 4;
    return {
        api,
        demoPolicy("api-next", Algorithm::TokenBucket, 60, 60'000, 60,
                   "Proposed tighter API limit, watched in shadow mode", true),
        login,
        demoPolicy("search", Algorithm::SlidingWindow, 30, 10'000, 0, "Search queries per client"),
        demoPolicy("exports", Algorithm::Concurrency, 3, 30'000, 0, "Report exports running at once per team"),
        demoPolicy("webhooks", Algorithm::LeakyBucket, 10, 1'000, 20, "Webhook deliveries per partner"),
        demoPolicy("payments", Algorithm::Gcra, 20, 1'000, 5, "Payment calls per merchant"),
        signups,
    };
}

void SandboxDemo::start()
{
    const model::PolicyStore store(m_client, kNamespace);
    store.list(this, [this, store](const model::PolicyStore::ListResult &stored) {
        if (stored.failure) {
            Q_EMIT failed(tr("Could not read the sandbox's policies: %1").arg(stored.failure->message));
            return;
        }
        QVector<model::PolicyChange> creations;
        for (const model::Policy &policy : demoPolicies()) {
            const bool present = std::any_of(stored.policies.begin(), stored.policies.end(),
                                             [&](const model::Policy &p) { return p.name == policy.name; });
            if (!present)
                creations.append({model::PolicyChange::Kind::Put, policy, 0});
        }
        store.commit(creations, kWho, this, [this](const model::PolicyStore::CommitResult &result) {
            if (result.failure) {
                Q_EMIT failed(tr("Could not store the demo policies: %1").arg(result.failure->message));
                return;
            }
            publish();
        });
    });
}

void SandboxDemo::publish()
{
    const model::LibraryPublisher publisher(m_client, kOwner);
    publisher.publish(kWho, this, [this](const model::PublishResult &result) {
        if (!result.ok()) {
            Q_EMIT failed(tr("Could not publish the demo policies: %1").arg(model::messageOf(result.failure)));
            return;
        }
        m_timer.start();
        Q_EMIT trafficStarted();
    });
}

// Per tick: twenty API users well within their limit plus a scraper far beyond it, a partner on its tier
// and a health check (each API call also checked against the shadow policy), logins with one account under
// attack (blocked by the penalty), searches with a
// crawler, exports that hold a lease for a few seconds, a partner flooding webhooks, merchants
// paying at a steady pace, and sign-ups on the global subject's buckets, a little faster than they admit.
void SandboxDemo::tick()
{
    if (m_inFlight > kMaxInFlight)
        return;
    ++m_tick;
    for (int user = 1; user <= 20; ++user) {
        if (m_random.bounded(15) == 0)
            acquire("api", numbered("user", user));
    }
    for (int i = 0; i < 3; ++i)
        acquire("api", "scraper");
    acquire("api", "partner-acme");
    if (m_tick % 10 == 0)
        acquire("api", "health-check");
    if (m_random.bounded(50) == 0)
        acquire("login", m_random.bounded(2) == 0 ? "alice" : "bob");
    acquire("login", "mallory");
    for (int client = 1; client <= 5; ++client) {
        if (m_random.bounded(5) == 0)
            acquire("search", numbered("client", client));
    }
    acquire("search", "crawler");
    if (m_random.bounded(20) == 0)
        acquire("exports", m_random.bounded(2) == 0 ? "team-a" : "team-b");
    acquire("webhooks", "partner-x");
    acquire("webhooks", "partner-x");
    if (m_tick % 5 == 0)
        acquire("webhooks", "partner-y");
    for (int merchant = 1; merchant <= 8; ++merchant) {
        if (m_random.bounded(4) == 0)
            acquire("payments", numbered("merchant", merchant));
    }
    if (m_random.bounded(2) == 0)
        acquire("signups", model::spreadSubject("all", int(m_random.bounded(4))));
}

void SandboxDemo::acquire(const QByteArray &policy, const QByteArray &subject)
{
    const QByteArray key = model::bucketKey(kNamespace, QString::fromLatin1(policy), subject);
    QByteArrayList command;
    if (policy == "api") {
        command = {"FCALL",
                   kOwner.function("acquire"),
                   "2",
                   key,
                   model::bucketKey(kNamespace, QStringLiteral("api-next"), subject),
                   "api",
                   "api-next"};
    } else {
        command = {"FCALL", kOwner.function("acquire"), "1", key, policy};
    }
    ++m_inFlight;
    ++m_sent;
    m_client->send(command, this, [this, key, policy](const redis::RedisReply &reply) {
        --m_inFlight;
        const QVector<redis::RespValue> &fields = reply.value.elements;
        // An admitted export holds its lease (the seventh element) for one to six seconds.
        if (policy == "exports" && reply.ok() && fields.size() > 6 && fields.at(0).integer == 1) {
            const QByteArray lease = fields.at(6).bytes;
            QTimer::singleShot(1000 + int(m_random.bounded(5000)), this, [this, key, lease] { release(key, lease); });
        }
    });
}

void SandboxDemo::release(const QByteArray &key, const QByteArray &lease)
{
    m_client->send({"FCALL", kOwner.function("release"), "1", key, "exports", lease}, this,
                   [](const redis::RedisReply &) {});
}

} // namespace sluice::app
