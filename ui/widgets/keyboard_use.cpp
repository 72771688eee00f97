// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/keyboard_use.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QSet>
#include <QWidget>

namespace sluice::ui {

namespace {

// The letter after a single '&' ("&&" is a literal ampersand), or a null QChar.
QChar mnemonicOf(const QString &text)
{
    for (qsizetype at = 0; at + 1 < text.size(); ++at) {
        if (text.at(at) != QLatin1Char('&'))
            continue;
        if (text.at(at + 1) != QLatin1Char('&'))
            return text.at(at + 1).toLower();
        ++at;
    }
    return {};
}

// The text with '&' before the first letter not taken yet: one that starts a word if it can, else any of
// its letters; the text as it is when all of them are taken.
QString withMnemonic(const QString &text, QSet<QChar> &taken)
{
    for (const bool wordStartsOnly : {true, false})
        for (qsizetype at = 0; at < text.size(); ++at) {
            const QChar letter = text.at(at).toLower();
            const bool startsWord = at == 0 || !text.at(at - 1).isLetterOrNumber();
            if ((startsWord || !wordStartsOnly) && letter.isLetter() && !taken.contains(letter)) {
                taken.insert(letter);
                return text.left(at) + QLatin1Char('&') + text.mid(at);
            }
        }
    return text;
}

} // namespace

void readyForKeyboard(QWidget *dialog)
{
    for (QAbstractItemView *view : dialog->findChildren<QAbstractItemView *>())
        view->setTabKeyNavigation(false);
    const QList<QAbstractButton *> buttons = dialog->findChildren<QAbstractButton *>();
    QSet<QChar> taken;
    for (const QAbstractButton *button : buttons)
        if (const QChar letter = mnemonicOf(button->text()); !letter.isNull())
            taken.insert(letter);
    for (QAbstractButton *button : buttons)
        if (!button->text().isEmpty() && mnemonicOf(button->text()).isNull())
            button->setText(withMnemonic(button->text(), taken));
}

} // namespace sluice::ui
