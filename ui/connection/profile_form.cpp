// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/connection/profile_form.h"
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
using Transport = model::ConnectionOptions::Transport;

namespace {

template <typename Widget>
Widget *named(Widget *widget, const char *name)
{
    widget->setObjectName(QLatin1String(name));
    return widget;
}

QStringList splitList(const QString &text)
{
    QStringList items;
    for (const QString &item : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!item.trimmed().isEmpty())
            items << item.trimmed();
    return items;
}

} // namespace

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
    m_via->addItem(tr("Host and port, or a Cluster"), ViaHost);
    m_via->addItem(tr("Unix socket"), ViaSocket);
    m_via->addItem(tr("Sentinel"), ViaSentinel);
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
    m_savePassword
        = named(new QCheckBox(tr("Keep the secrets in the keychain"), authBox), "savePasswordCheck");
    m_savePassword->setToolTip(
        tr("The password and the client key's passphrase. Unchecked: asked for at each connection, never stored."));
    authForm->addRow(tr("User"), m_user);
    authForm->addRow(tr("Password"), m_password);
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
    const model::ConnectionOptions &options = profile.options;
    m_name->setText(profile.name);
    m_environment->setCurrentIndex(m_environment->findData(static_cast<int>(profile.environment)));
    m_readOnly->setChecked(profile.readOnly);
    m_namespace->setText(profile.ns);
    m_url->clear();
    m_urlError->hide();
    m_via->setCurrentIndex(options.usesSentinel()                     ? ViaSentinel
                               : options.transport == Transport::Unix ? ViaSocket
                                                                      : ViaHost);
    m_host->setText(options.host);
    m_port->setValue(options.port);
    m_socket->setText(options.socketPath);
    QStringList sentinels;
    for (const model::HostPort &sentinel : options.sentinels)
        sentinels << sentinel.toString();
    m_sentinels->setText(sentinels.join(QLatin1String(", ")));
    m_service->setText(options.sentinelService);
    m_database->setValue(options.database);
    m_user->setText(options.user);
    m_password->clear();
    m_savePassword->setChecked(profile.savePassword);
    m_tls->setChecked(options.transport == Transport::Tls);
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
    model::ConnectionOptions &options = profile.options;
    const int via = m_via->currentData().toInt();
    options.transport = via == ViaSocket ? Transport::Unix : m_tls->isChecked() ? Transport::Tls : Transport::Tcp;
    options.host = m_host->text().trimmed();
    options.port = static_cast<quint16>(m_port->value());
    if (via == ViaSocket)
        options.socketPath = m_socket->text().trimmed();
    if (via == ViaSentinel) {
        for (const QString &item : splitList(m_sentinels->text())) {
            model::HostPort sentinel;
            QString ignored; // reported by problems()
            if (model::HostPort::parse(item, &sentinel, &ignored))
                options.sentinels << sentinel;
        }
        options.sentinelService = m_service->text().trimmed();
    }
    options.database = m_database->value();
    options.user = m_user->text().trimmed();
    if (options.transport == Transport::Tls) {
        options.caFile = m_caFile->text().trimmed();
        options.certFile = m_certFile->text().trimmed();
        options.keyFile = m_keyFile->text().trimmed();
        options.serverName = m_serverName->text().trimmed();
        options.verifyPeer = m_verify->isChecked();
    }
    return profile;
}

CredentialResolver::Typed ProfileForm::typedSecrets() const
{
    return {m_password->text(), m_tls->isChecked() ? m_keyPassphrase->text() : QString()};
}

QStringList ProfileForm::sentinelProblems() const
{
    if (m_via->currentData().toInt() != ViaSentinel)
        return {};
    const QStringList items = splitList(m_sentinels->text());
    if (items.isEmpty())
        return {tr("a Sentinel profile needs at least one sentinel as host:port")};
    QStringList found;
    for (int i = 0; i < items.size(); ++i) {
        model::HostPort sentinel;
        QString error;
        // Named by position: an entry typed as user:password@host must not be repeated on screen.
        if (!model::HostPort::parse(items.at(i), &sentinel, &error))
            found << tr("sentinel %1 of %2: %3").arg(i + 1).arg(items.size()).arg(error);
    }
    return found;
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
    model::ConnectionOptions options;
    QString error;
    if (!model::ConnectionOptions::fromUrl(url, &options, &error)) {
        m_urlError->setText(tr("URL: %1").arg(error));
        m_urlError->show();
        Q_EMIT edited();
        return;
    }
    model::ConnectionProfile filled = profile();
    const QString password = options.password; // a password in the URL goes to the password field only
    options.password.clear();
    filled.options = options;
    setProfile(filled);
    m_password->setText(password);
    Q_EMIT edited();
}

void ProfileForm::updateVisibility()
{
    const int via = m_via->currentData().toInt();
    m_serverForm->setRowVisible(m_host, via == ViaHost);
    m_serverForm->setRowVisible(m_port, via == ViaHost);
    m_serverForm->setRowVisible(m_socket, via == ViaSocket);
    m_serverForm->setRowVisible(m_sentinels, via == ViaSentinel);
    m_serverForm->setRowVisible(m_service, via == ViaSentinel);
    m_tls->setEnabled(via != ViaSocket);
    const bool tls = m_tls->isChecked() && via != ViaSocket;
    for (int row = 1; row < m_tlsForm->rowCount(); ++row)
        m_tlsForm->setRowVisible(row, tls);
    m_tlsForm->setRowVisible(m_insecureWarning, tls && !m_verify->isChecked());
}

} // namespace sluice::ui
