// SPDX-License-Identifier: GPL-3.0-or-later
// A shadow policy with traffic, offscreen, on a real redis-server: the Overview row, the Live tab and
// the Policies list mark it "shadow - would reject", and the Overview's totals count only real
// rejections, its would-rejects apart.

#include "model/connection/connection_session.h"
#include "model/tables/policy_list_model.h"
#include "model/tables/policy_rates_model.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"
#include "support/window_support.h"
#include "ui/main_window.h"
#include "ui/policy_live_view.h"
#include "ui/policy_panel.h"
#include "ui/policy_rates_table.h"

#include <QLocale>
#include <QTableView>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using model::PolicyRatesModel;

namespace {

QVariant shown(const QAbstractItemModel *model, const QString &policy, int column, int role = Qt::DisplayRole)
{
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, 0).data(PolicyRatesModel::NameRole).toString() == policy)
            return model->index(row, column).data(role);
    return {};
}

} // namespace

class TestShadowMarks : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_traffic;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_traffic = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_traffic));
    }

    void shadowPolicyIsMarkedAndKeptApartFromRejections()
    {
        const QString ns = test::uniqueNamespace("shadow-");
        const QString next = QStringLiteral("api-next");
        const QString real = QStringLiteral("api");
        // Buckets of 5 that refill one token an hour: 20 calls are 15 rejections, or 15 would-rejects.
        QCOMPARE(test::storeAndPublish(*m_traffic, ns,
                                       {test::makePolicy(next, Algorithm::TokenBucket, 1, 3600000, 5, true),
                                        test::makePolicy(real, Algorithm::TokenBucket, 1, 3600000, 5)}),
                 QString());
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("shadow");
        profile.options = m_server.options();
        profile.ns = ns;
        auto window = test::openMainWindow(profile);
        model::PolicyRateSampler *sampler = window->session()->rates();
        QTRY_VERIFY_WITH_TIMEOUT(sampler->lastSample().spanMs > 0, 5000);

        // Both policies' traffic in one sample (fired right after one; tried again if a tick split it).
        model::RateSample sample;
        for (int attempt = 0; attempt < 3; ++attempt) {
            const qint64 after = sampler->lastSample().endMs;
            QTRY_VERIFY_WITH_TIMEOUT(sampler->lastSample().endMs > after, 5000);
            const qint64 fired = sampler->lastSample().endMs;
            const QByteArray subject = "s" + QByteArray::number(attempt);
            QCOMPARE(test::fireAcquires(*m_traffic, ns, next, 20, [&](int) { return subject; }).allowed, 20u);
            QCOMPARE(test::fireAcquires(*m_traffic, ns, real, 20, [&](int) { return subject; }).rejected, 15u);
            QTRY_VERIFY_WITH_TIMEOUT(sampler->lastSample().endMs > fired, 5000);
            sample = sampler->lastSample();
            const auto rejectedOf = [&](const QString &policy) -> quint64 {
                for (const model::PolicyRate &rate : sample.policies)
                    if (rate.policy == policy)
                        return rate.point.rejected;
                return 0;
            };
            if (rejectedOf(next) == 15 && rejectedOf(real) == 15)
                break;
            sample = {};
        }
        QVERIFY2(sample.spanMs > 0, "no sample held both policies' traffic");
        sampler->stop(); // the figures below stay this sample's

        // The Overview: the row says shadow, brackets its would-rejects and ranks it as rejecting nothing.
        const QAbstractItemModel *rates = window->policyRates()->view()->model();
        QTRY_VERIFY(shown(rates, next, PolicyRatesModel::Name).toString().contains(QLatin1String("would reject")));
        QVERIFY(shown(rates, next, PolicyRatesModel::Name).toString().contains(QLatin1String("shadow")));
        QVERIFY(!shown(rates, real, PolicyRatesModel::Name).toString().contains(QLatin1String("shadow")));
        const QLocale locale;
        const double perSecond = 15 * 1000.0 / sample.spanMs;
        const QString figure = locale.toString(perSecond, 'f', perSecond < 10 ? 1 : 0);
        QTRY_COMPARE(shown(rates, next, PolicyRatesModel::RejectedPerSecond).toString(),
                     QStringLiteral("(%1)").arg(figure));
        QCOMPARE(shown(rates, real, PolicyRatesModel::RejectedPerSecond).toString(), figure);
        QCOMPARE(shown(rates, next, PolicyRatesModel::RejectedPerSecond, PolicyRatesModel::SortRole).toDouble(), 0.0);
        QCOMPARE(rates->index(0, 0).data(PolicyRatesModel::NameRole).toString(), real);
        QVERIFY(shown(rates, next, PolicyRatesModel::AllowedPerSecond, Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String("Shadow policy: it rejects nothing.")));

        // The totals: the real rejections alone, the would-rejects apart.
        const QString totals = window->policyRates()->totalsText();
        QVERIFY2(totals.startsWith(QStringLiteral("Rejected %1/s of %2/s")
                                       .arg(locale.toString(perSecond, 'f', 1),
                                            locale.toString(40 * 1000.0 / sample.spanMs, 'f', 1))),
                 qPrintable(totals));
        QVERIFY2(totals.contains(
                     QStringLiteral("shadow policies would reject %1/s").arg(locale.toString(perSecond, 'f', 1))),
                 qPrintable(totals));

        // The Live tab: a badge on the shadow policy, none on the other.
        ui::PolicyLiveView *live = window->liveView();
        live->showPolicy(next);
        QTRY_VERIFY(live->shadowBadgeText().contains(QStringLiteral("Shadow \u2013 would reject")));
        live->showPolicy(real);
        QVERIFY(live->shadowBadgeText().isEmpty());

        // The Policies list.
        const model::PolicyListModel *list = window->policyPanel()->listModel();
        QTRY_COMPARE(list->rowCount(), 2);
        for (int row = 0; row < list->rowCount(); ++row) {
            const QString name = list->index(row, model::PolicyListModel::Name).data().toString();
            const QString mark = list->index(row, model::PolicyListModel::Shadow).data().toString();
            QCOMPARE(mark, name == next ? QStringLiteral("shadow \u2013 would reject") : QString());
        }
    }
};

QTEST_MAIN(TestShadowMarks)
#include "tst_shadow_marks.moc"
