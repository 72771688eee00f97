// SPDX-License-Identifier: GPL-3.0-or-later
// The state palette: every tone readable on the application's window colour, light and dark, and
// a widget styled with it changes with the palette (a dark theme keeps the meaning legible); and a
// control with keyboard focus shows a ring in every style Qt offers here.

#include "ui/widgets/focus_ring_style.h"
#include "ui/widgets/state_palette.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QPushButton>
#include <QStyleFactory>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtTest>

#include <cmath>

using namespace sluice::ui;

namespace {

// WCAG 2 relative luminance and contrast ratio.
double luminance(const QColor &color)
{
    auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QPalette darkPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(0x20, 0x21, 0x24));
    palette.setColor(QPalette::WindowText, QColor(0xe8, 0xea, 0xed));
    palette.setColor(QPalette::Base, QColor(0x17, 0x18, 0x1a));
    palette.setColor(QPalette::Text, QColor(0xe8, 0xea, 0xed));
    return palette;
}

QPalette lightPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    palette.setColor(QPalette::WindowText, Qt::black);
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    return palette;
}

// WCAG AA: text at 4.5:1, lines and marks in charts at 3:1.
struct ToneUse {
    Tone tone;
    double minimumContrast;
};
const ToneUse allTones[] = {{Tone::Ok, 4.5},    {Tone::Warning, 4.5}, {Tone::Error, 4.5},    {Tone::Info, 4.5},
                            {Tone::Muted, 4.5}, {Tone::Allowed, 3.0}, {Tone::Rejected, 3.0}, {Tone::Level, 3.0}};

// How many pixels of the control's outer 3 px band are (nearly) the highlight colour.
int highlightedEdgePixels(QWidget *control)
{
    const QImage image = control->grab().toImage();
    const QColor highlight = control->palette().color(QPalette::Highlight);
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const bool edge = x < 3 || y < 3 || x >= image.width() - 3 || y >= image.height() - 3;
            const QColor pixel = image.pixelColor(x, y);
            if (edge
                && std::abs(pixel.red() - highlight.red()) + std::abs(pixel.green() - highlight.green())
                        + std::abs(pixel.blue() - highlight.blue())
                    < 60)
                ++count;
        }
    return count;
}

} // namespace

class TestStatePalette : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { QApplication::setPalette(lightPalette()); }

    void everyToneReadsOnItsWindow_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void everyToneReadsOnItsWindow()
    {
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? darkPalette() : lightPalette());
        QCOMPARE(isDarkPalette(), dark);
        const QColor window = QApplication::palette().color(QPalette::Window);
        for (const ToneUse &use : allTones) {
            const double onWindow = contrast(toneColor(use.tone), window);
            const double onFill = contrast(toneColor(use.tone), toneFill(use.tone));
            const QString tone = QString::number(int(use.tone));
            QVERIFY2(onWindow >= use.minimumContrast,
                     qPrintable(QStringLiteral("tone %1: %2:1 on the window").arg(tone).arg(onWindow)));
            QVERIFY2(onFill >= use.minimumContrast,
                     qPrintable(QStringLiteral("tone %1: %2:1 on its fill").arg(tone).arg(onFill)));
        }
    }

    void meaningsKeepTheirOwnColour()
    {
        for (const bool dark : {false, true}) {
            QApplication::setPalette(dark ? darkPalette() : lightPalette());
            QVERIFY(toneColor(Tone::Error) != toneColor(Tone::Ok));
            QVERIFY(toneColor(Tone::Warning) != toneColor(Tone::Error));
            QVERIFY(toneColor(Tone::Allowed) != toneColor(Tone::Rejected));
            QVERIFY(toneColor(Tone::Muted) != toneColor(Tone::Info));
        }
    }

    void aFocusedControlShowsARing_data()
    {
        QTest::addColumn<QString>("style");
        QTest::addColumn<bool>("dark");
        for (const QString &style : QStyleFactory::keys()) {
            QTest::newRow(qPrintable(style + QLatin1String(", light"))) << style << false;
            QTest::newRow(qPrintable(style + QLatin1String(", dark"))) << style << true;
        }
    }

    // Which button Space would press must be plain to see: the ring covers most of the control's edge.
    void aFocusedControlShowsARing()
    {
        QFETCH(QString, style);
        QFETCH(bool, dark);
        QApplication::setStyle(style);
        QApplication::setStyle(new FocusRingStyle);
        QApplication::setPalette(dark ? darkPalette() : lightPalette());
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        auto *elsewhere = new QLineEdit(&window);
        auto *tool = new QToolButton(&window);
        tool->setText(QStringLiteral("Back"));
        auto *combo = new QComboBox(&window);
        combo->addItem(QStringLiteral("last 5 minutes"));
        const QList<QWidget *> controls = {new QPushButton(QStringLiteral("Publish version 2"), &window),
                                           new QCheckBox(QStringLiteral("Fire at real keys"), &window), tool, combo};
        layout->addWidget(elsewhere);
        for (QWidget *control : controls) {
            control->setFocusPolicy(Qt::StrongFocus);
            layout->addWidget(control);
        }
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        for (QWidget *control : controls) {
            elsewhere->setFocus(Qt::TabFocusReason);
            QTRY_VERIFY(elsewhere->hasFocus());
            const int without = highlightedEdgePixels(control);
            control->setFocus(Qt::TabFocusReason);
            QTRY_VERIFY(control->hasFocus());
            const int with = highlightedEdgePixels(control);
            const int perimeter = 2 * (control->width() + control->height());
            QVERIFY2(with - without >= perimeter,
                     qPrintable(QStringLiteral("%1: %2 highlighted edge pixels focused, %3 not, around %4 px")
                                    .arg(QString::fromLatin1(control->metaObject()->className()))
                                    .arg(with)
                                    .arg(without)
                                    .arg(perimeter)));
        }
    }

    void styleSheetsFollowThePalette()
    {
        QApplication::setPalette(lightPalette());
        const QString light = textStyle(Tone::Error);
        const QString lightBanner = bannerStyle(Tone::Warning);
        QApplication::setPalette(darkPalette());
        QVERIFY(textStyle(Tone::Error) != light);
        QVERIFY(bannerStyle(Tone::Warning) != lightBanner);
        QVERIFY(textStyle(Tone::Error).contains(toneColor(Tone::Error).name()));
        QVERIFY(textStyle(Tone::Error, true).contains(QLatin1String("bold")));

        QLabel label;
        label.setStyleSheet(textStyle(Tone::Error));
        label.setText(QStringLiteral("refused"));
        label.ensurePolished();
        QCOMPARE(label.palette().color(QPalette::WindowText), toneColor(Tone::Error));
    }
};

QTEST_MAIN(TestStatePalette)
#include "tst_state_palette.moc"
