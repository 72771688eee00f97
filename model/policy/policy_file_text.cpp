// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_file_text.h"

#include <QCoreApplication>
#include <QSet>
#include <QStringDecoder>

#include <algorithm>
#include <cctype>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyFile)
};

// As deep as QJsonDocument goes.
constexpr int maxDepth = 1024;

// The first UTF-16 unit of `text` that is half a surrogate pair standing alone, or 0.
char16_t loneSurrogate(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i).isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
            ++i;
        else if (text.at(i).isSurrogate())
            return text.at(i).unicode();
    }
    return 0;
}

// A string of the file: its value, and what keeps its text from being Unicode (empty when nothing does).
struct JsonString {
    QString value;
    QString problem;
};

// Walks the JSON text as QJsonDocument reads it, keeping track of the policy and field each value
// belongs to. Every step returns false where the text is no longer JSON.
class TextScanner {
public:
    explicit TextScanner(const QByteArray &text)
        : m_text(text)
    {
    }

    QVector<PolicyError> problems()
    {
        if (peek() == '{')
            object(1, Level::Top, {});
        else
            value(1, {});
        return m_problems;
    }

private:
    // Whose keys an object holds: the file's, a policy's, or a field value's.
    enum class Level { Top, Policy, Nested };

    char peek()
    {
        while (m_pos < m_text.size() && QByteArrayView(" \t\r\n").contains(m_text.at(m_pos)))
            ++m_pos;
        return m_pos < m_text.size() ? m_text.at(m_pos) : '\0';
    }

    bool expect(char token)
    {
        if (peek() != token)
            return false;
        ++m_pos;
        return true;
    }

    // A problem of the policy being read is named once its "name" has been read (see policies()).
    void report(const QString &field, const QString &message) { m_problems.append({{}, field, message}); }

    bool value(int depth, const QString &field)
    {
        switch (peek()) {
        case '{': return object(depth + 1, Level::Nested, field);
        case '[': return array(depth + 1, field);
        case '"': return string(field, nullptr);
        default: break;
        }
        // A number, true, false or null.
        const qsizetype start = m_pos;
        while (m_pos < m_text.size() && QByteArrayView("+-.0123456789Eaeflnrstu").contains(m_text.at(m_pos)))
            ++m_pos;
        return m_pos > start;
    }

    bool array(int depth, const QString &field)
    {
        if (depth > maxDepth || !expect('['))
            return false;
        if (expect(']'))
            return true;
        do {
            if (!value(depth, field))
                return false;
        } while (expect(','));
        return expect(']');
    }

    // The policies array: each policy's problems are named after it once it has been read whole.
    bool policies(int depth)
    {
        if (peek() != '[')
            return value(depth, QStringLiteral("policies"));
        ++m_pos;
        if (expect(']'))
            return true;
        int position = 0;
        do {
            ++position;
            const qsizetype first = m_problems.size();
            m_policyName.clear();
            const bool read = peek() == '{' ? object(depth + 1, Level::Policy, {}) : value(depth + 1, {});
            const QString label = m_policyName.isEmpty() ? QStringLiteral("#%1").arg(position) : m_policyName;
            for (qsizetype i = first; i < m_problems.size(); ++i)
                m_problems[i].policy = label;
            if (!read)
                return false;
        } while (expect(','));
        return expect(']');
    }

    bool object(int depth, Level level, const QString &field)
    {
        if (depth > maxDepth || !expect('{'))
            return false;
        if (expect('}'))
            return true;
        QSet<QString> keys;
        do {
            JsonString key;
            if (peek() != '"' || !readString(&key) || !expect(':'))
                return false;
            const QString memberField = level == Level::Nested ? field : displayed(key.value);
            if (!key.problem.isEmpty())
                report(memberField, Text::tr("this key %1").arg(key.problem));
            if (keys.contains(key.value))
                report(memberField, duplicateKey(level, key.value));
            keys.insert(key.value);
            bool read = false;
            if (level == Level::Top && key.value == QLatin1String("policies"))
                read = policies(depth);
            else if (level == Level::Policy && key.value == QLatin1String("name") && peek() == '"')
                read = string(memberField, &m_policyName);
            else
                read = value(depth, memberField);
            if (!read)
                return false;
        } while (expect(','));
        return expect('}');
    }

    static QString duplicateKey(Level level, const QString &key)
    {
        switch (level) {
        case Level::Top: return Text::tr("is given more than once at the top level");
        case Level::Policy: return Text::tr("is given more than once in this policy (JSON keeps one value per key)");
        case Level::Nested: break;
        }
        return Text::tr("holds the key \"%1\" more than once").arg(displayed(key));
    }

    // A key fit to print: a lone surrogate shown as the replacement character.
    static QString displayed(const QString &key)
    {
        const char16_t lone = loneSurrogate(key);
        return lone ? QString(key).replace(QChar(lone), QChar::ReplacementCharacter) : key;
    }

    // A string value of `field`; its value in *readable when its text is Unicode.
    bool string(const QString &field, QString *readable)
    {
        JsonString text;
        if (!readString(&text))
            return false;
        if (!text.problem.isEmpty())
            report(field, text.problem);
        else if (readable)
            *readable = text.value;
        return true;
    }

    bool readString(JsonString *out)
    {
        const qsizetype start = m_pos++;
        bool utf8 = true;
        while (m_pos < m_text.size() && m_text.at(m_pos) != '"') {
            if (m_text.at(m_pos) == '\\') {
                if (!readEscape(&out->value))
                    return false;
                continue;
            }
            // A run of raw bytes, decoded on its own: '"' and '\\' never sit inside a UTF-8 sequence.
            qsizetype end = m_pos;
            while (end < m_text.size() && m_text.at(end) != '"' && m_text.at(end) != '\\')
                ++end;
            QStringDecoder decoder(QStringDecoder::Utf8, QStringConverter::Flag::Stateless);
            out->value += decoder.decode(QByteArrayView(m_text).sliced(m_pos, end - m_pos));
            utf8 = utf8 && !decoder.hasError();
            m_pos = end;
        }
        if (m_pos >= m_text.size())
            return false;
        ++m_pos;
        if (!utf8)
            out->problem = Text::tr("holds bytes that are not UTF-8 (the string at byte %1)").arg(start);
        else if (const char16_t lone = loneSurrogate(out->value))
            out->problem
                = Text::tr("holds \\u%1, half of a UTF-16 surrogate pair, alone: it is no character (the string "
                           "at byte %2)")
                      .arg(QString::number(lone, 16))
                      .arg(start);
        return true;
    }

    bool readEscape(QString *value)
    {
        if (m_pos + 1 >= m_text.size())
            return false;
        const char kind = m_text.at(m_pos + 1);
        m_pos += 2;
        static const QByteArrayView simple("\"\\/bfnrt");
        static const char16_t meaning[] = u"\"\\/\b\f\n\r\t";
        if (const qsizetype at = simple.indexOf(kind); at >= 0) {
            value->append(QChar(meaning[at]));
            return true;
        }
        const QByteArray digits = m_text.mid(m_pos, 4);
        if (kind != 'u' || digits.size() != 4
            || !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isxdigit(uchar(c)); }))
            return false;
        m_pos += 4;
        value->append(QChar(digits.toUShort(nullptr, 16)));
        return true;
    }

    const QByteArray &m_text;
    qsizetype m_pos = 0;
    QString m_policyName; // of the policy being read, once its "name" has been read
    QVector<PolicyError> m_problems;
};

} // namespace

QVector<PolicyError> policyFileTextProblems(const QByteArray &json)
{
    return TextScanner(json).problems();
}

} // namespace sluice::model
