// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/connection/connection_manager.h"

#include "model/deploy/deployment_probe.h"
#include "model/monitor/rate_history_store.h"
#include "ui/connection/profile_form.h"
#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/state_palette.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace sluice::ui {

using model::ConnectionProfile;
using model::ProfileSettings;

namespace {

QPushButton *button(const QString &text, const char *name, QWidget *parent)
{
    auto *result = new QPushButton(text, parent);
    result->setObjectName(QLatin1String(name));
    return result;
}

QLabel *noteLabel(const char *name, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->hide();
    return label;
}

} // namespace

ConnectionManager::ConnectionManager(QSettings *settings, model::SecretStore *secrets, QWidget *parent)
    : QDialog(parent)
    , m_settings(settings)
    , m_secrets(secrets)
    , m_resolver(new CredentialResolver(secrets, this))
{
    setObjectName(QStringLiteral("connectionManager"));
    setWindowTitle(tr("Connections"));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("profileList"));
    m_list->setAccessibleName(tr("Connection profiles"));
    m_list->setMinimumWidth(190);
    auto *add = button(tr("Add"), "addButton", this);
    m_duplicate = button(tr("Duplicate"), "duplicateButton", this);
    m_delete = button(tr("Delete"), "deleteButton", this);
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(add);
    listButtons->addWidget(m_duplicate);
    listButtons->addWidget(m_delete);
    auto *listColumn = new QVBoxLayout;
    listColumn->addWidget(m_list);
    listColumn->addLayout(listButtons);

    m_form = new ProfileForm(this);
    m_problems = noteLabel("problemsLabel", this);
    m_problems->setStyleSheet(textStyle(Tone::Error));
    m_keychainNote = noteLabel("keychainNote", this);
    m_keychainNote->setStyleSheet(textStyle(Tone::Warning));
    m_testResult = noteLabel("testResultLabel", this);
    m_save = button(tr("Save"), "saveButton", this);
    m_test = button(tr("Test connection"), "testButton", this);
    m_connect = button(tr("Connect"), "connectButton", this);
    m_connect->setDefault(true);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_test);
    actions->addStretch();
    actions->addWidget(m_save);
    actions->addWidget(m_connect);
    actions->addWidget(close);
    auto *formColumn = new QVBoxLayout;
    formColumn->addWidget(m_form);
    formColumn->addWidget(m_problems);
    formColumn->addWidget(m_keychainNote);
    formColumn->addWidget(m_testResult);
    formColumn->addStretch();
    formColumn->addLayout(actions);

    auto *layout = new QHBoxLayout(this);
    layout->addLayout(listColumn);
    layout->addLayout(formColumn, 1);

    connect(m_list, &QListWidget::currentItemChanged, this, &ConnectionManager::showSelected);
    connect(add, &QPushButton::clicked, this, &ConnectionManager::addProfile);
    connect(m_duplicate, &QPushButton::clicked, this, &ConnectionManager::duplicateProfile);
    connect(m_delete, &QPushButton::clicked, this, &ConnectionManager::deleteProfile);
    connect(m_save, &QPushButton::clicked, this, &ConnectionManager::saveProfile);
    connect(m_test, &QPushButton::clicked, this, &ConnectionManager::testConnection);
    connect(m_connect, &QPushButton::clicked, this, &ConnectionManager::connectProfile);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_form, &ProfileForm::edited, this, [this] {
        m_dirty = true;
        updateState();
    });
    readyForKeyboard(this);
    reload({});
}

void ConnectionManager::selectProfile(const QString &name)
{
    reload(name);
}

QString ConnectionManager::testResult() const
{
    return m_testResult->isHidden() ? QString() : m_testResult->text();
}

void ConnectionManager::reload(const QString &select)
{
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (const ConnectionProfile &profile : ProfileSettings(m_settings).profiles()) {
        QString text = profile.name;
        if (profile.environment != ConnectionProfile::Environment::Dev)
            text += QStringLiteral("  \u00b7 ") + ConnectionProfile::environmentName(profile.environment);
        if (profile.readOnly)
            text += tr("  \u00b7 read-only");
        auto *item = new QListWidgetItem(text, m_list);
        item->setData(Qt::UserRole, profile.name);
        if (profile.writesNeedConfirmation())
            item->setForeground(toneColor(Tone::Error));
        if (profile.name == select || (select.isEmpty() && m_list->count() == 1))
            m_list->setCurrentItem(item);
    }
    showSelected();
}

void ConnectionManager::showSelected()
{
    const QListWidgetItem *item = m_list->currentItem();
    m_storedName = item ? item->data(Qt::UserRole).toString() : QString();
    const auto profile = ProfileSettings(m_settings).profile(m_storedName);
    m_form->setProfile(profile.value_or(ConnectionProfile{}));
    m_form->setEnabled(profile.has_value());
    m_dirty = false;
    m_testResult->hide();
    m_keychainNote->hide();
    updateState();
}

void ConnectionManager::setProfileInUse(const QString &name)
{
    m_profileInUse = name;
    updateState();
}

void ConnectionManager::updateState()
{
    const bool selected = !m_storedName.isEmpty();
    const QStringList problems = selected ? m_form->problems() : QStringList();
    m_problems->setText(QStringLiteral("\u2022 ") + problems.join(QStringLiteral("\n\u2022 ")));
    m_problems->setVisible(!problems.isEmpty());
    if (!selected) {
        m_testResult->setText(tr("No connection profiles yet: Add one, or paste a URL into a new profile."));
        m_testResult->setStyleSheet({});
        m_testResult->show();
    }
    m_duplicate->setEnabled(selected);
    const bool inUse = selected && m_storedName == m_profileInUse;
    m_delete->setEnabled(selected && !inUse);
    m_delete->setToolTip(inUse ? tr("This window is connected with \u201c%1\u201d: connect with another profile to "
                                    "delete it.")
                                     .arg(m_storedName)
                               : QString());
    m_save->setEnabled(selected && m_dirty && problems.isEmpty());
    m_test->setEnabled(selected && problems.isEmpty());
    m_connect->setEnabled(selected && problems.isEmpty());
}

QString ConnectionManager::unusedName(const QString &base) const
{
    ProfileSettings profiles(m_settings);
    QString name = base;
    for (int n = 2; profiles.profile(name); ++n)
        name = QStringLiteral("%1 %2").arg(base).arg(n);
    return name;
}

void ConnectionManager::addProfile()
{
    ConnectionProfile profile;
    profile.name = unusedName(tr("new profile"));
    if (!ProfileSettings(m_settings).save(profile, {}))
        reload(profile.name);
}

void ConnectionManager::duplicateProfile()
{
    const auto source = ProfileSettings(m_settings).profile(m_storedName);
    if (!source)
        return;
    ConnectionProfile copy = *source;
    copy.name = unusedName(tr("%1 copy").arg(source->name));
    if (ProfileSettings(m_settings).save(copy, {}))
        return;
    copySecrets(*source, copy, false);
    reload(copy.name);
}

void ConnectionManager::deleteProfile()
{
    const auto profile = ProfileSettings(m_settings).profile(m_storedName);
    if (!profile)
        return;
    auto *confirm
        = new QMessageBox(QMessageBox::Question, tr("Delete profile"),
                          tr("Delete the connection profile \u201c%1\u201d, its saved password and what the dashboard "
                             "kept for it (watch list, Test fire settings, rate history)?")
                              .arg(profile->name),
                          QMessageBox::Yes | QMessageBox::Cancel, this);
    confirm->setObjectName(QStringLiteral("deleteConfirmation"));
    confirm->setAttribute(Qt::WA_DeleteOnClose);
    connect(confirm, &QMessageBox::finished, this, [this, profile = *profile](int answer) {
        if (answer != QMessageBox::Yes)
            return;
        ProfileSettings(m_settings).remove(profile.name);
        ProfileSettings(m_settings).forgetKept(profile.name);
        forgetSecrets(profile);
        reload({});
        if (!m_rateHistoryDirectory.isEmpty())
            if (const auto failure = model::RateHistoryStore::forgetProfile(m_rateHistoryDirectory, profile.name))
                showTestResult(failure->message, Tone::Error);
    });
    confirm->open();
}

bool ConnectionManager::saveProfile()
{
    const ConnectionProfile profile = m_form->profile();
    if (!m_form->problems().isEmpty())
        return false;
    const auto previous = ProfileSettings(m_settings).profile(m_storedName);
    if (const auto failure = ProfileSettings(m_settings).save(profile, m_storedName)) {
        m_problems->setText(QStringLiteral("\u2022 ") + failure->message);
        m_problems->show();
        return false;
    }
    if (previous && previous->name != profile.name) {
        copySecrets(*previous, profile, true);
        ProfileSettings(m_settings).moveKept(previous->name, profile.name);
    }
    storeTypedSecrets(profile);
    reload(profile.name);
    return true;
}

// The keychain holds secrets under the profile's name: a copy or a rename carries them along.
// A secret typed in the form is not copied: storeTypedSecrets writes it.
void ConnectionManager::copySecrets(const ConnectionProfile &from, const ConnectionProfile &to, bool removeSource)
{
    const model::ConnectionSecrets typed = m_form->typedSecrets();
    const QList<QPair<QString, QString>> keys
        = {{from.passwordKey(), typed.password.isEmpty() ? to.passwordKey() : QString()},
           {from.keyPassphraseKey(), typed.keyPassphrase.isEmpty() ? to.keyPassphraseKey() : QString()}};
    for (const auto &[source, target] : keys) {
        if (target.isEmpty()) {
            if (removeSource)
                m_secrets->remove(source, this, [](const model::SecretStore::Result &) {});
            continue;
        }
        m_secrets->read(source, this, [this, source, target, removeSource](const model::SecretStore::Result &read) {
            if (!read.ok())
                return;
            m_secrets->write(target, read.secret, this,
                             [this, source, removeSource](const model::SecretStore::Result &written) {
                if (written.ok() && removeSource)
                    m_secrets->remove(source, this, [](const model::SecretStore::Result &) {});
            });
        });
    }
}

void ConnectionManager::storeTypedSecrets(const ConnectionProfile &profile)
{
    const model::ConnectionSecrets typed = m_form->typedSecrets();
    if (!profile.savePassword) {
        forgetSecrets(profile); // asked for each time: nothing of this profile stays in the keychain
        return;
    }
    if (profile.noPassword)
        m_secrets->remove(profile.passwordKey(), this, [](const model::SecretStore::Result &) {});
    const QList<QPair<QString, QString>> entries
        = {{profile.passwordKey(), typed.password}, {profile.keyPassphraseKey(), typed.keyPassphrase}};
    for (const auto &[key, secret] : entries) {
        if (secret.isEmpty())
            continue; // unchanged
        m_secrets->write(key, secret, this, [this](const model::SecretStore::Result &written) {
            if (written.ok())
                return;
            m_keychainNote->setText(tr("The keychain did not answer (%1): the secret was not saved, and Sluice "
                                       "will ask for it at each connection.")
                                        .arg(model::messageOf(written.failure)));
            m_keychainNote->show();
        });
    }
}

void ConnectionManager::forgetSecrets(const ConnectionProfile &profile)
{
    for (const QString &key : {profile.passwordKey(), profile.keyPassphraseKey()})
        m_secrets->remove(key, this, [](const model::SecretStore::Result &) {});
}

void ConnectionManager::showTestResult(const QString &text, Tone tone)
{
    m_testResult->setText(text);
    m_testResult->setStyleSheet(textStyle(tone));
    m_testResult->show();
}

void ConnectionManager::testConnection()
{
    delete m_runningTest; // a new test replaces one still running
    const ConnectionProfile profile = m_form->profile();
    showTestResult(tr("Testing %1\u2026").arg(profile.options.redactedUrl()), Tone::Info);
    m_resolver->resolve(profile, m_form->typedSecrets(),
                        [this, profile](const std::optional<model::ConnectionSecrets> &secrets) {
        if (!secrets) {
            showTestResult(tr("Test cancelled."), Tone::Muted);
            return;
        }
        auto *test = new model::ConnectionTest(profile, *secrets, this);
        m_runningTest = test;
        connect(test, &model::ConnectionTest::finished, this, [this, test](const model::DeploymentProbe &probe) {
            if (!probe.ok()) {
                showTestResult(tr("\u2717 Cannot use this connection: %1").arg(probe.problem()), Tone::Error);
            } else if (!probe.server.known()) {
                showTestResult(tr("\u2713 Connected in %1 ms (server details refused: %2)")
                                   .arg(probe.elapsedMs)
                                   .arg(probe.infoError),
                               Tone::Ok);
            } else {
                showTestResult(tr("\u2713 Connected in %1 ms: %2, %3")
                                   .arg(probe.elapsedMs)
                                   .arg(probe.server.displayName(), probe.description),
                               Tone::Ok);
            }
            test->deleteLater();
        });
        test->start();
    });
}

void ConnectionManager::connectProfile()
{
    const model::ConnectionSecrets typed = m_form->typedSecrets(); // saving clears the form's secrets
    if (m_dirty && !saveProfile())
        return;
    const auto profile = ProfileSettings(m_settings).profile(m_storedName);
    if (!profile)
        return;
    m_resolver->resolve(*profile, typed,
                        [this, profile = *profile](const std::optional<model::ConnectionSecrets> &secrets) {
        if (!secrets) {
            // Said where the operator looks: the switch did not happen, the window keeps its connection.
            showTestResult(
                tr("Not connected: the secret was not given, so \u201c%1\u201d was not opened.").arg(profile.name),
                Tone::Muted);
            return;
        }
        Q_EMIT connectRequested(profile, *secrets);
        accept();
    });
}

} // namespace sluice::ui
