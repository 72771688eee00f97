// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Driving real widgets from GUI tests: find a named child, type into a line edit, click a button,
// find the dialog that is open now.

#include <QApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>

#include <algorithm>

namespace sluice::test {

template <typename Widget> Widget *child(QWidget *parent, const char *name)
{
    auto *found = parent->findChild<Widget *>(QLatin1String(name));
    if (!found)
        qWarning("no child %s", name);
    return found;
}

inline void typeInto(QWidget *parent, const char *name, const QString &text)
{
    auto *edit = child<QLineEdit>(parent, name);
    edit->selectAll();
    const bool ascii
        = std::all_of(text.begin(), text.end(), [](QChar c) { return c.unicode() >= 0x20 && c.unicode() < 0x7f; });
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Backspace); // typing nothing would not clear it
    else if (ascii)
        QTest::keyClicks(edit, text);
    else
        edit->insert(text); // QTest types ASCII only: anything else arrives as a paste would
}

// Clicks an enabled button; a disabled one fails the calling test.
inline void click(QWidget *parent, const char *name)
{
    auto *button = child<QPushButton>(parent, name);
    QVERIFY2(button && button->isEnabled(), name);
    QTest::mouseClick(button, Qt::LeftButton);
}

// The top-level dialog of a kind that is open now, by object name.
template <typename Dialog> Dialog *openDialog(const char *name)
{
    for (QWidget *widget : QApplication::topLevelWidgets())
        if (auto *dialog = qobject_cast<Dialog *>(widget);
            dialog && dialog->objectName() == QLatin1String(name) && dialog->isVisible())
            return dialog;
    return nullptr;
}

} // namespace sluice::test
