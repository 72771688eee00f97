// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/subject_rules_table.h"

#include "model/policy/namespace_lists.h"
#include "model/policy/policy.h"
#include "ui/widgets/named.h"
#include "ui/widgets/state_palette.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace sluice::ui {

using model::SubjectOverride;

namespace {

QString ruleName(SubjectOverride::Kind kind)
{
    switch (kind) {
    case SubjectOverride::Kind::Allow: return QStringLiteral("allow");
    case SubjectOverride::Kind::Deny: return QStringLiteral("deny");
    case SubjectOverride::Kind::Limits: break;
    }
    return QStringLiteral("limit");
}

// The rule column's editor: a choice of the rules the table takes, made when a cell is edited.
class RuleDelegate : public QStyledItemDelegate {
public:
    RuleDelegate(bool limits, QObject *parent)
        : QStyledItemDelegate(parent)
        , m_limits(limits)
    {
    }
    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &, const QModelIndex &) const override
    {
        auto *choice = new QComboBox(parent);
        if (m_limits)
            choice->addItem(ruleName(SubjectOverride::Kind::Limits));
        choice->addItem(ruleName(SubjectOverride::Kind::Allow));
        choice->addItem(ruleName(SubjectOverride::Kind::Deny));
        return choice;
    }
    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        auto *choice = static_cast<QComboBox *>(editor);
        choice->setCurrentIndex(std::max(0, choice->findText(index.data().toString())));
    }
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        model->setData(index, static_cast<QComboBox *>(editor)->currentText());
    }

private:
    bool m_limits;
};

} // namespace

SubjectRulesTable::SubjectRulesTable(bool limits, QWidget *parent)
    : QWidget(parent)
    , m_limits(limits)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *tools = new QHBoxLayout;
    m_search = named(new QLineEdit(this), "rulesSearch");
    m_search->setPlaceholderText(tr("Search subjects and prefixes"));
    m_search->setAccessibleName(tr("Search subjects and prefixes"));
    m_search->setClearButtonEnabled(true);
    m_add = named(new QPushButton(tr("&Add"), this), "addRuleButton");
    m_remove = named(new QPushButton(tr("&Remove"), this), "removeRuleButton");
    m_import = named(new QPushButton(tr("&Import CSV\u2026"), this), "importRulesButton");
    m_import->setToolTip(limits ? tr("Lines of pattern,allow or pattern,deny or pattern,limit[,burst]")
                                : tr("Lines of pattern,allow or pattern,deny"));
    m_count = named(new QLabel(this), "rulesCount");
    m_count->setStyleSheet(textStyle(Tone::Muted));
    tools->addWidget(m_search, 1);
    tools->addWidget(m_count);
    tools->addWidget(m_add);
    tools->addWidget(m_remove);
    tools->addWidget(m_import);
    layout->addLayout(tools);

    m_table = named(new QTableWidget(0, ColumnCount, this), "rulesTable");
    m_table->setHorizontalHeaderLabels({tr("Subject or prefix*"), tr("Rule"), tr("Limit"), tr("Burst")});
    m_table->setAccessibleName(limits ? tr("Overrides") : tr("Allow and deny lists"));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setItemDelegateForColumn(Rule, new RuleDelegate(limits, m_table));
    m_table->horizontalHeader()->setSectionResizeMode(Pattern, QHeaderView::Stretch);
    m_table->setColumnHidden(Limit, !limits);
    m_table->setColumnHidden(Burst, !limits);
    layout->addWidget(m_table, 1);

    m_problem = named(new QLabel(this), "rulesProblem");
    m_problem->setStyleSheet(textStyle(Tone::Error));
    m_problem->setWordWrap(true);
    m_problem->hide();
    layout->addWidget(m_problem);

    connect(m_search, &QLineEdit::textChanged, this, &SubjectRulesTable::filter);
    connect(m_add, &QPushButton::clicked, this, &SubjectRulesTable::addEmptyRow);
    connect(m_remove, &QPushButton::clicked, this, &SubjectRulesTable::removeSelected);
    connect(m_import, &QPushButton::clicked, this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(this, tr("Import rules"), QString(), tr("CSV files (*.csv);;All files (*)"));
        if (!path.isEmpty())
            importCsv(path);
    });
    connect(m_table, &QTableWidget::itemChanged, this, [this] {
        m_importProblem.clear();
        rowsChanged();
    });
    rowsChanged();
}

void SubjectRulesTable::appendRow(const SubjectOverride &rule)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, Pattern, new QTableWidgetItem(rule.writtenPattern()));
    m_table->setItem(row, Rule, new QTableWidgetItem(ruleName(rule.kind)));
    for (const Column column : {Limit, Burst}) {
        const qint64 value = column == Limit ? rule.limit : rule.burst;
        auto *item = new QTableWidgetItem(value > 0 ? QString::number(value) : QString());
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter); // numbers, as every table of the app shows them
        m_table->setItem(row, column, item);
    }
}

void SubjectRulesTable::setRules(const QVector<SubjectOverride> &rules)
{
    const QSignalBlocker quiet(m_table);
    m_table->setRowCount(0);
    for (const SubjectOverride &rule : rules)
        appendRow(rule);
    filter();
    rowsChanged();
}

std::optional<QVector<SubjectOverride>> SubjectRulesTable::rules(QString *problem) const
{
    *problem = m_rowProblem;
    return m_rules;
}

std::optional<QVector<SubjectOverride>> SubjectRulesTable::readRows(QString *problem) const
{
    QVector<SubjectOverride> rules;
    QSet<QString> seen;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto text = [&](Column column) {
            const QTableWidgetItem *item = m_table->item(row, column);
            return item ? item->text().trimmed() : QString();
        };
        const QString where = tr("row %1: ").arg(row + 1);
        QString patternProblem;
        std::optional<SubjectOverride> rule = model::patternFromWritten(text(Pattern), &patternProblem);
        if (!rule) {
            *problem = where + patternProblem;
            return std::nullopt;
        }
        const QString kind = text(Rule);
        if (kind == ruleName(SubjectOverride::Kind::Allow) || kind == ruleName(SubjectOverride::Kind::Deny)) {
            rule->kind = kind == ruleName(SubjectOverride::Kind::Allow) ? SubjectOverride::Kind::Allow
                                                                        : SubjectOverride::Kind::Deny;
        } else if (!m_limits || kind != ruleName(SubjectOverride::Kind::Limits)) {
            *problem = where + (m_limits ? tr("the rule is limit, allow or deny") : tr("the rule is allow or deny"));
            return std::nullopt;
        } else {
            for (const Column column : {Limit, Burst}) {
                if (column == Burst && m_table->isColumnHidden(Burst))
                    continue;
                if (text(column).isEmpty())
                    continue;
                bool ok = false;
                const qint64 value = text(column).toLongLong(&ok);
                if (!ok || value < 1 || value > model::policy_limits::maxLimit) {
                    *problem = where
                        + tr("the %1 is a whole number from 1 to %2")
                              .arg(column == Limit ? tr("limit") : tr("burst"))
                              .arg(model::policy_limits::maxLimit);
                    return std::nullopt;
                }
                (column == Limit ? rule->limit : rule->burst) = value;
            }
            if (rule->limit == 0 && rule->burst == 0) {
                *problem = where + tr("a limit rule needs a limit or a burst");
                return std::nullopt;
            }
        }
        const QString written = rule->writtenPattern();
        if (seen.contains(written)) {
            *problem = where + tr("\u201c%1\u201d is on an earlier row too").arg(rule->printablePattern());
            return std::nullopt;
        }
        seen.insert(written);
        rules.append(*rule);
    }
    std::sort(rules.begin(), rules.end());
    return rules;
}

void SubjectRulesTable::setBurstShown(bool shown)
{
    m_table->setColumnHidden(Burst, !m_limits || !shown);
    rowsChanged();
}

void SubjectRulesTable::setEditable(bool editable)
{
    m_editable = editable;
    m_table->setEditTriggers(editable ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                                     | QAbstractItemView::AnyKeyPressed
                                      : QAbstractItemView::NoEditTriggers);
    for (QPushButton *button : {m_add, m_remove, m_import})
        button->setEnabled(editable);
}

QString SubjectRulesTable::importCsv(const QString &path)
{
    QString problem;
    const std::optional<QVector<SubjectOverride>> imported = model::rulesFromCsvFile(path, m_limits, &problem);
    if (imported) {
        const QSignalBlocker quiet(m_table);
        QHash<QString, int> rowOf;
        for (int row = 0; row < m_table->rowCount(); ++row)
            if (const QTableWidgetItem *pattern = m_table->item(row, Pattern))
                rowOf.insert(pattern->text().trimmed(), row);
        QList<int> replaced;
        for (const SubjectOverride &rule : *imported)
            if (const auto found = rowOf.constFind(rule.writtenPattern()); found != rowOf.cend())
                replaced << *found;
        std::sort(replaced.begin(), replaced.end(), std::greater<>());
        for (const int row : std::as_const(replaced))
            m_table->removeRow(row);
        for (const SubjectOverride &rule : *imported)
            appendRow(rule);
        filter();
    }
    m_importProblem = imported ? QString() : tr("%1; nothing was imported").arg(problem);
    rowsChanged();
    return m_importProblem;
}

void SubjectRulesTable::setOuterProblem(const QString &problem)
{
    m_outerProblem = problem;
    showProblem();
}

void SubjectRulesTable::addEmptyRow()
{
    m_search->clear();
    appendRow(SubjectOverride{{}, false, m_limits ? SubjectOverride::Kind::Limits : SubjectOverride::Kind::Deny, 0, 0});
    const int row = m_table->rowCount() - 1;
    m_table->setCurrentCell(row, Pattern);
    m_table->editItem(m_table->item(row, Pattern));
}

void SubjectRulesTable::removeSelected()
{
    QList<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (const int row : std::as_const(rows))
        m_table->removeRow(row);
    rowsChanged();
}

void SubjectRulesTable::filter()
{
    const QString needle = m_search->text().trimmed();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem *pattern = m_table->item(row, Pattern);
        m_table->setRowHidden(row,
                              !needle.isEmpty() && !(pattern && pattern->text().contains(needle, Qt::CaseInsensitive)));
    }
}

void SubjectRulesTable::rowsChanged()
{
    m_rowProblem.clear();
    m_rules = readRows(&m_rowProblem);
    m_count->setText(tr("%n rule(s)", nullptr, m_table->rowCount()));
    showProblem();
    Q_EMIT changed();
}

void SubjectRulesTable::showProblem()
{
    QString problem = m_rowProblem;
    if (problem.isEmpty())
        problem = m_importProblem.isEmpty() ? m_outerProblem : m_importProblem;
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
}

} // namespace sluice::ui
