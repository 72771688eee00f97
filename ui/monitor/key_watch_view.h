// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/monitor/key_watch.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QTableWidget;

namespace sluice::ui {

class TimeSeriesChart;

// The per-key view: a watch list of buckets (a policy's subjects, or keys of the seed systems'
// layouts) with what each holds now, and for the selected one its level over time with the
// refill projected between readings, and its rejections per second.
class KeyWatchView : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit KeyWatchView(model::ConnectionSession *session, QWidget *parent = nullptr);

    model::KeyWatch *watch() const { return m_watch; }
    // Watches what `settings` kept for `profile` and keeps the list there from now on (each change saved).
    void keepListIn(QSettings *settings, const QString &profile);
    // Adds a policy's subject to the list and selects it; false (and the reason shown) if refused.
    bool watchSubject(const QString &policy, const QByteArray &subject);
    // A seed layout's key; with its parameters its state is refilled to now.
    bool watchSeedKey(model::SeedLayout layout, const QByteArray &id,
                      const std::optional<model::SeedParameters> &parameters);
    void select(int id);
    int selectedId() const;

    QTableWidget *table() const { return m_table; }
    TimeSeriesChart *chart() const { return m_chart; }
    QString errorText() const;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    void addFromForm();
    void showParameterField(); // for a seed layout
    void updatePolicies(const model::RateSample &sample);
    void markShadow(const QSet<QString> &shadow);
    void rebuildTable();
    void showReadings(); // every row and the chart, as last read
    void markStale(int row, const model::WatchedKey &key);
    void showRow(int row); // the row's key as last read
    void redrawChart();
    void showError(const QString &error);
    bool showAdded(const std::optional<model::Failure> &refused); // selects the new key, or shows why not

    QPointer<model::ConnectionSession> m_session;
    QSet<QString> m_shadowPolicies; // as published: marked "[shadow]" in the list and the table
    model::KeyWatch *m_watch = nullptr;
    QComboBox *m_source;
    QLineEdit *m_subject;
    QLineEdit *m_parameters; // a seed layout's, optional
    QPushButton *m_add;
    QPushButton *m_remove;
    QLabel *m_error;
    QTableWidget *m_table;
    QLabel *m_chartTitle;
    TimeSeriesChart *m_chart;
};

} // namespace sluice::ui
