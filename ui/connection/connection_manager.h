// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "model/connection/secret_store.h"
#include "model/deploy/deployment_probe.h"
#include "ui/connection/credential_resolver.h"
#include "ui/widgets/state_palette.h"

#include <QDialog>
#include <QPointer>

class QLabel;
class QListWidget;
class QPushButton;
class QSettings;

namespace sluice::ui {

class ProfileForm;

// The connection profiles: list, add, edit, duplicate, delete, test (in the background, with a
// clear result) and connect. Profiles live in `settings`, their secrets in `secrets`.
class ConnectionManager : public QDialog {
    Q_OBJECT
public:
    ConnectionManager(QSettings *settings, model::SecretStore *secrets, QWidget *parent = nullptr);

    void selectProfile(const QString &name);
    // The profile this window is connected with: it cannot be deleted while its session would keep writing
    // its watch list and rate history.
    void setProfileInUse(const QString &name);
    // Where sessions keep their rate history, so deleting a profile removes its files too.
    void setRateHistoryDirectory(const QString &directory) { m_rateHistoryDirectory = directory; }
    QString testResult() const;

Q_SIGNALS:
    // The operator chose to connect, with these secrets.
    void connectRequested(const model::ConnectionProfile &profile, const model::ConnectionSecrets &secrets);

private:
    void reload(const QString &select);
    void showSelected();
    void updateState();
    void addProfile();
    void duplicateProfile();
    void deleteProfile();
    // Saves the form; false (and the reason shown) when it cannot be saved.
    bool saveProfile();
    void testConnection();
    void connectProfile();
    void showTestResult(const QString &text, Tone tone);
    void copySecrets(const model::ConnectionProfile &from, const model::ConnectionProfile &to, bool removeSource);
    void storeTypedSecrets(const model::ConnectionProfile &profile);
    void forgetSecrets(const model::ConnectionProfile &profile);
    QString unusedName(const QString &base) const;

    QSettings *m_settings;
    model::SecretStore *m_secrets;
    CredentialResolver *m_resolver;
    QListWidget *m_list;
    ProfileForm *m_form;
    QLabel *m_problems;
    QLabel *m_testResult;
    QLabel *m_keychainNote;
    QPushButton *m_duplicate;
    QPushButton *m_delete;
    QPushButton *m_save;
    QPushButton *m_test;
    QPushButton *m_connect;
    QString m_storedName; // the selected profile's name as saved
    QString m_profileInUse;
    QString m_rateHistoryDirectory;
    bool m_dirty = false;
    QPointer<model::ConnectionTest> m_runningTest;
};

} // namespace sluice::ui
