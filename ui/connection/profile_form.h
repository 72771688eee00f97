// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "ui/connection/credential_resolver.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace sluice::ui {

// The fields of one connection profile. A URL typed at the top fills the fields below; the
// fields that do not apply to the chosen way of connecting are hidden. Secrets typed here are
// handed over separately and never become part of the profile.
class ProfileForm : public QWidget {
    Q_OBJECT
public:
    explicit ProfileForm(QWidget *parent = nullptr);

    void setProfile(const model::ConnectionProfile &profile); // clears the typed secrets
    model::ConnectionProfile profile() const;
    model::ConnectionSecrets typedSecrets() const;
    // What stops the profile from being saved or used, one sentence each; empty when none.
    QStringList problems() const;

Q_SIGNALS:
    void edited();

private:
    void fillFromUrl();
    void updateVisibility();
    QLineEdit *addFileRow(QFormLayout *form, const QString &label, const char *objectName);
    QStringList sentinelProblems() const;

    QLineEdit *m_name;
    QComboBox *m_environment;
    QCheckBox *m_readOnly;
    QLineEdit *m_namespace;

    QLineEdit *m_url;
    QLabel *m_urlError;
    QComboBox *m_via;
    QLineEdit *m_host;
    QSpinBox *m_port;
    QLineEdit *m_socket;
    QLineEdit *m_sentinels;
    QLineEdit *m_service;
    QSpinBox *m_database;
    QFormLayout *m_serverForm;

    QLineEdit *m_user;
    QLineEdit *m_password;
    QCheckBox *m_savePassword;
    QCheckBox *m_noPassword;

    QCheckBox *m_tls;
    QLineEdit *m_caFile;
    QLineEdit *m_certFile;
    QLineEdit *m_keyFile;
    QLineEdit *m_keyPassphrase;
    QLineEdit *m_serverName;
    QCheckBox *m_verify;
    QLabel *m_insecureWarning;
    QFormLayout *m_tlsForm;
};

} // namespace sluice::ui
