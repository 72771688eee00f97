// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/connection/profile_form.h"

#include "ui/widgets/named.h"
#include "ui/widgets/state_palette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace sluice::ui {

using Environment = model::ConnectionProfile::Environment;
using model::ConnectionRoute;

ProfileForm::ProfileForm(QWidget *parent)
    : QWidget(parent)
{
    auto *profileBox = new QGroupBox(tr("Profile"), this);
    auto *profileForm = new QFormLayout(profileBox);
    m_name = named(new QLineEdit(profileBox), "nameEdit");
    m_environment = named(new QComboBox(profileBox), "environmentCombo");
    for (Environment environment : {Environment::Dev, Environment::Staging, Environment::Production})
        m_environment->addItem(model::ConnectionProfile::environmentName(environment), static_cast<int>(environment));
    m_environment->setToolTip(tr("Production connections ask before every write."));
    m_readOnly = named(new QCheckBox(tr("Read-only: refuse every write"), profileBox), "readOnlyCheck");
    m_namespace = named(new QLineEdit(profileBox), "namespaceEdit");
    profileForm->addRow(tr("Name"), m_name);
    profileForm->addRow(tr("Environment"), m_environment);
    profileForm->addRow(QString(), m_readOnly);
    profileForm->addRow(tr("Namespace"), m_namespace);

    auto *serverBox = new QGroupBox(tr("Server"), this);
    m_serverForm = new QFormLayout(serverBox);
    m_url = named(new QLineEdit(serverBox), "urlEdit");
    m_url->setPlaceholderText(tr("Paste a redis://, rediss://, unix:// or redis-sentinel:// URL"));
    m_urlError = named(new QLabel(serverBox), "urlError");
    m_urlError->setStyleSheet(textStyle(Tone::Error));
    m_urlError->setWordWrap(true);
    m_urlError->hide();
    m_via = named(new QComboBox(serverBox), "viaCombo");
    m_via->addItem(tr("Host and port, or a Cluster"), static_cast<int>(ConnectionRoute::Host));
    m_via->addItem(tr("Unix socket"), static_cast<int>(ConnectionRoute::Socket));
    m_via->addItem(tr("Sentinel"), static_cast<int>(ConnectionRoute::Sentinel));
    m_host = named(new QLineEdit(serverBox), "hostEdit");
    m_port = named(new QSpinBox(serverBox), "portSpin");
    m_port->setRange(1, 65535);
    m_socket = named(new QLineEdit(serverBox), "socketEdit");
    m_sentinels = named(new QLineEdit(serverBox), "sentinelsEdit");
    m_sentinels->setPlaceholderText(tr("host:port, host:port"));
    m_service = named(new QLineEdit(serverBox), "serviceEdit");
    m_database = named(new QSpinBox(serverBox), "databaseSpin");
    m_database->setRange(0, 15);
    m_serverForm->addRow(tr("URL"), m_url);
    m_serverForm->addRow(QString(), m_urlError);
    m_serverForm->addRow(tr("Connect via"), m_via);
    m_serverForm->addRow(tr("Host"), m_host);
    m_serverForm->addRow(tr("Port"), m_port);
    m_serverForm->addRow(tr("Socket"), m_socket);
    m_serverForm->addRow(tr("Sentinels"), m_sentinels);
    m_serverForm->addRow(tr("Service"), m_service);
    m_serverForm->addRow(tr("Database"), m_database);

    auto *authBox = new QGroupBox(tr("Authentication"), this);
    auto *authForm = new QFormLayout(authBox);
    m_user = named(new QLineEdit(authBox), "userEdit");
    m_user->setPlaceholderText(tr("empty: the default user"));
    m_password = named(new QLineEdit(authBox), "passwordEdit");
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("unchanged"));
    m_savePassword = named(new QCheckBox(tr("Keep the secrets in the keychain"), authBox), "savePasswordCheck");
    m_savePassword->setToolTip(
        tr("The password and the client key's passphrase. Unchecked: asked for at each connection, never stored."));
    m_noPassword = named(new QCheckBox(tr("The server asks for no password"), authBox), "noPasswordCheck");
    m_noPassword->setToolTip(tr("Never asked for a password at Test or Connect, even without a keychain."));
    connect(m_noPassword, &QCheckBox::toggled, this, [this](bool none) {
        if (none)
            m_password->clear();
        m_password->setEnabled(!none);
    });
    authForm->addRow(tr("User"), m_user);
    authForm->addRow(tr("Password"), m_password);
    authForm->addRow(QString(), m_noPassword);
    authForm->addRow(QString(), m_savePassword);

    auto *tlsBox = new QGroupBox(tr("TLS"), this);
    m_tlsForm = new QFormLayout(tlsBox);
    m_tls = named(new QCheckBox(tr("Connect with TLS"), tlsBox), "tlsCheck");
    m_tlsForm->addRow(QString(), m_tls);
    m_caFile = addFileRow(m_tlsForm, tr("CA file"), "caEdit");
    m_certFile = addFileRow(m_tlsForm, tr("Client certificate"), "certEdit");
    m_keyFile = addFileRow(m_tlsForm, tr("Client key"), "keyEdit");
    m_keyPassphrase = named(new QLineEdit(tlsBox), "passphraseEdit");
    m_keyPassphrase->setEchoMode(QLineEdit::Password);
    m_keyPassphrase->setPlaceholderText(tr("unchanged (only for an encrypted key)"));
    m_serverName = named(new QLineEdit(tlsBox), "sniEdit");
    m_serverName->setPlaceholderText(tr("the host name"));
    m_verify = named(new QCheckBox(tr("Verify the server certificate"), tlsBox), "verifyCheck");
    m_insecureWarning
        = named(new QLabel(tr("\u26a0 Not verifying lets anyone on the path read and change the traffic."), tlsBox),
                "insecureWarning");
    m_insecureWarning->setStyleSheet(textStyle(Tone::Error));
    m_insecureWarning->setWordWrap(true);
    m_tlsForm->addRow(tr("Key passphrase"), m_keyPassphrase);
    m_tlsForm->addRow(tr("Server name (SNI)"), m_serverName);
    m_tlsForm->addRow(QString(), m_verify);
    m_tlsForm->addRow(QString(), m_insecureWarning);

    auto *left = new QVBoxLayout;
    left->addWidget(profileBox);
    left->addWidget(serverBox);
    left->addStretch();
    auto *right = new QVBoxLayout;
    right->addWidget(authBox);
    right->addWidget(tlsBox);
    right->addStretch();
    auto *columns = new QHBoxLayout(this);
    columns->setContentsMargins(0, 0, 0, 0);
    columns->addLayout(left, 1);
    columns->addLayout(right, 1);

    connect(m_url, &QLineEdit::editingFinished, this, &ProfileForm::fillFromUrl);
    connect(m_via, &QComboBox::currentIndexChanged, this, &ProfileForm::updateVisibility);
    connect(m_tls, &QCheckBox::toggled, this, &ProfileForm::updateVisibility);
    connect(m_verify, &QCheckBox::toggled, this, &ProfileForm::updateVisibility);
    for (QLineEdit *edit : findChildren<QLineEdit *>())
        connect(edit, &QLineEdit::textEdited, this, &ProfileForm::edited);
    for (QComboBox *combo : findChildren<QComboBox *>())
        connect(combo, &QComboBox::currentIndexChanged, this, &ProfileForm::edited);
    for (QCheckBox *check : findChildren<QCheckBox *>())
        connect(check, &QCheckBox::toggled, this, &ProfileForm::edited);
    for (QSpinBox *spin : findChildren<QSpinBox *>())
        connect(spin, &QSpinBox::valueChanged, this, &ProfileForm::edited);
    setProfile({});
}

QLineEdit *ProfileForm::addFileRow(QFormLayout *form, const QString &label, const char *objectName)
{
    auto *row = new QWidget(form->parentWidget());
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *edit = new QLineEdit(row);
    edit->setObjectName(QLatin1String(objectName));
    auto *browse = new QToolButton(row);
    browse->setText(QStringLiteral("\u2026"));
    browse->setToolTip(tr("Choose a file"));
    layout->addWidget(edit);
    layout->addWidget(browse);
    connect(browse, &QToolButton::clicked, this, [this, edit, label] {
        const QString path = QFileDialog::getOpenFileName(this, label, edit->text());
        if (!path.isEmpty()) {
            edit->setText(path);
            Q_EMIT edited();
        }
    });
    form->addRow(label, row);
    return edit;
}

void ProfileForm::setProfile(const model::ConnectionProfile &profile)
{
    const QSignalBlocker blocker(this); // filling the form is not an edit
    const auto &options = profile.options;
    m_name->setText(profile.name);
    m_environment->setCurrentIndex(m_environment->findData(static_cast<int>(profile.environment)));
    m_readOnly->setChecked(profile.readOnly);
    m_namespace->setText(profile.ns);
    m_url->clear();
    m_urlError->hide();
    m_via->setCurrentIndex(m_via->findData(static_cast<int>(profile.route())));
    m_host->setText(options.host);
    m_port->setValue(options.port);
    m_socket->setText(options.socketPath);
    m_sentinels->setText(profile.sentinelList());
    m_service->setText(options.sentinelService);
    m_database->setValue(options.database);
    m_user->setText(options.user);
    m_password->clear();
    m_savePassword->setChecked(profile.savePassword);
    m_noPassword->setChecked(profile.noPassword);
    m_tls->setChecked(profile.usesTls());
    m_caFile->setText(options.caFile);
    m_certFile->setText(options.certFile);
    m_keyFile->setText(options.keyFile);
    m_keyPassphrase->clear();
    m_serverName->setText(options.serverName);
    m_verify->setChecked(options.verifyPeer);
    updateVisibility();
}

model::ConnectionProfile ProfileForm::profile() const
{
    model::ConnectionProfile profile;
    profile.name = m_name->text().trimmed();
    profile.environment = static_cast<Environment>(m_environment->currentData().toInt());
    profile.readOnly = m_readOnly->isChecked();
    profile.ns = m_namespace->text().trimmed();
    profile.savePassword = m_savePassword->isChecked();
    profile.noPassword = m_noPassword->isChecked();
    auto &options = profile.options;
    const auto route = static_cast<ConnectionRoute>(m_via->currentData().toInt());
    profile.setRoute(route, m_tls->isChecked());
    options.host = m_host->text().trimmed();
    options.port = static_cast<quint16>(m_port->value());
    if (route == ConnectionRoute::Socket)
        options.socketPath = m_socket->text().trimmed();
    if (route == ConnectionRoute::Sentinel) {
        profile.setSentinelList(m_sentinels->text()); // its problems are reported by problems()
        options.sentinelService = m_service->text().trimmed();
    }
    options.database = m_database->value();
    options.user = m_user->text().trimmed();
    if (profile.usesTls()) {
        options.caFile = m_caFile->text().trimmed();
        options.certFile = m_certFile->text().trimmed();
        options.keyFile = m_keyFile->text().trimmed();
        options.serverName = m_serverName->text().trimmed();
        options.verifyPeer = m_verify->isChecked();
    }
    return profile;
}

model::ConnectionSecrets ProfileForm::typedSecrets() const
{
    return {m_password->text(), m_tls->isChecked() ? m_keyPassphrase->text() : QString()};
}

QStringList ProfileForm::sentinelProblems() const
{
    if (static_cast<ConnectionRoute>(m_via->currentData().toInt()) != ConnectionRoute::Sentinel)
        return {};
    model::ConnectionProfile checked;
    return checked.setSentinelList(m_sentinels->text());
}

QStringList ProfileForm::problems() const
{
    QStringList found = m_urlError->isHidden() ? QStringList() : QStringList{m_urlError->text()};
    found << sentinelProblems() << profile().problems();
    return found;
}

void ProfileForm::fillFromUrl()
{
    const QString url = m_url->text().trimmed();
    if (url.isEmpty()) {
        m_urlError->hide();
        Q_EMIT edited();
        return;
    }
    model::ConnectionProfile filled = profile();
    QString password, error; // a password in the URL goes to the password field only
    if (!filled.setFromUrl(url, &password, &error)) {
        m_urlError->setText(tr("URL: %1").arg(error));
        m_urlError->show();
        Q_EMIT edited();
        return;
    }
    setProfile(filled);
    if (!password.isEmpty())
        m_noPassword->setChecked(false); // a URL with a password says there is one
    m_password->setText(password);
    Q_EMIT edited();
}

void ProfileForm::updateVisibility()
{
    const auto via = static_cast<ConnectionRoute>(m_via->currentData().toInt());
    m_serverForm->setRowVisible(m_host, via == ConnectionRoute::Host);
    m_serverForm->setRowVisible(m_port, via == ConnectionRoute::Host);
    m_serverForm->setRowVisible(m_socket, via == ConnectionRoute::Socket);
    m_serverForm->setRowVisible(m_sentinels, via == ConnectionRoute::Sentinel);
    m_serverForm->setRowVisible(m_service, via == ConnectionRoute::Sentinel);
    m_tls->setEnabled(via != ConnectionRoute::Socket);
    const bool tls = m_tls->isChecked() && via != ConnectionRoute::Socket;
    for (int row = 1; row < m_tlsForm->rowCount(); ++row)
        m_tlsForm->setRowVisible(row, tls);
    m_tlsForm->setRowVisible(m_insecureWarning, tls && !m_verify->isChecked());
}

} // namespace sluice::ui
