// SPDX-License-Identifier: GPL-3.0-or-later
// The catalogues both programs carry: English is built in and loads for an English system (its strings stay as
// written); a language with no catalogue loads none, and the strings show in English.

#include "app/common/translations.h"

#include <QCoreApplication>
#include <QFile>
#include <QLocale>
#include <QTest>

using namespace sluice;

class TestTranslations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void englishIsBuiltIn()
    {
        QVERIFY(QFile::exists(QStringLiteral(":/i18n/sluice_en.qm")));
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedKingdom));
        QVERIFY(app::installTranslations(QCoreApplication::instance()));
        QCOMPARE(QCoreApplication::translate("sluicectl", "no command given"), QStringLiteral("no command given"));
    }

    void aLanguageWithoutACatalogueShowsEnglish()
    {
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QVERIFY(!app::installTranslations(QCoreApplication::instance()));
        QCOMPARE(QCoreApplication::translate("sluicectl", "no command given"), QStringLiteral("no command given"));
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
