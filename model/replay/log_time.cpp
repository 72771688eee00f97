// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/log_time.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogTime)
};

// Days from 1970-01-01 to a proleptic Gregorian date (the civil calendar count by eras of 400 years).
qint64 daysFromCivil(qint64 year, unsigned month, unsigned day)
{
    year -= month <= 2;
    const qint64 era = (year >= 0 ? year : year - 399) / 400;
    const unsigned yearOfEra = static_cast<unsigned>(year - era * 400);
    const unsigned dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const unsigned dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146097 + static_cast<qint64>(dayOfEra) - 719468;
}

bool isLeap(qint64 year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

unsigned daysInMonth(qint64 year, unsigned month)
{
    static constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && isLeap(year) ? 29 : days[month - 1];
}

// Reads exactly `count` digits at `*at`, moving past them.
bool digits(QByteArrayView text, qsizetype *at, int count, qint64 *value)
{
    if (*at + count > text.size())
        return false;
    qint64 result = 0;
    for (int i = 0; i < count; ++i) {
        const char c = text.at(*at + i);
        if (c < '0' || c > '9')
            return false;
        result = result * 10 + (c - '0');
    }
    *at += count;
    *value = result;
    return true;
}

bool expect(QByteArrayView text, qsizetype *at, char wanted)
{
    if (*at >= text.size() || text.at(*at) != wanted)
        return false;
    ++*at;
    return true;
}

// "+hh:mm", "+hhmm", "+hh", "Z", or "-" forms of those; the offset east of UTC in minutes.
bool zoneOffset(QByteArrayView text, qsizetype *at, qint64 *minutes)
{
    if (*at < text.size() && (text.at(*at) == 'Z' || text.at(*at) == 'z')) {
        ++*at;
        *minutes = 0;
        return true;
    }
    if (*at >= text.size() || (text.at(*at) != '+' && text.at(*at) != '-'))
        return false;
    const qint64 sign = text.at(*at) == '-' ? -1 : 1;
    ++*at;
    qint64 hours = 0, mins = 0;
    if (!digits(text, at, 2, &hours))
        return false;
    if (*at < text.size() && text.at(*at) == ':')
        ++*at;
    if (*at < text.size() && !digits(text, at, 2, &mins))
        return false;
    if (hours > 23 || mins > 59)
        return false;
    *minutes = sign * (hours * 60 + mins);
    return true;
}

struct Civil {
    qint64 year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0, zoneMinutes = 0;
    bool fraction = false;
};

std::optional<LogTime> fromCivil(const Civil &c, QString *problem)
{
    if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > daysInMonth(c.year, unsigned(c.month)) || c.hour > 23
        || c.minute > 59 || c.second > 60) {
        *problem = Text::tr("no such date or time");
        return std::nullopt;
    }
    const qint64 seconds = daysFromCivil(c.year, unsigned(c.month), unsigned(c.day)) * 86400 + c.hour * 3600
        + c.minute * 60 + std::min<qint64>(c.second, 59) - c.zoneMinutes * 60;
    return LogTime{seconds * 1000 + c.millis, !c.fraction};
}

// Up to three digits of a fraction of a second as milliseconds; further digits are read and dropped.
void fraction(QByteArrayView text, qsizetype *at, Civil *c)
{
    if (*at >= text.size() || (text.at(*at) != '.' && text.at(*at) != ','))
        return;
    ++*at;
    int count = 0;
    qint64 millis = 0;
    while (*at < text.size() && text.at(*at) >= '0' && text.at(*at) <= '9') {
        if (count < 3)
            millis = millis * 10 + (text.at(*at) - '0');
        ++count;
        ++*at;
    }
    for (int i = count; i < 3; ++i)
        millis *= 10;
    c->millis = millis;
    c->fraction = count > 0;
}

std::optional<LogTime> nginxLocal(QByteArrayView text, QString *problem)
{
    static constexpr const char *months[]
        = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    Civil c;
    qsizetype at = 0;
    if (!digits(text, &at, 2, &c.day) || !expect(text, &at, '/') || at + 3 > text.size()) {
        *problem = Text::tr("not a time");
        return std::nullopt;
    }
    const QByteArrayView month = text.sliced(at, 3);
    for (int i = 0; i < 12; ++i)
        if (month == QByteArrayView(months[i]))
            c.month = i + 1;
    at += 3;
    if (c.month == 0 || !expect(text, &at, '/') || !digits(text, &at, 4, &c.year) || !expect(text, &at, ':')
        || !digits(text, &at, 2, &c.hour) || !expect(text, &at, ':') || !digits(text, &at, 2, &c.minute)
        || !expect(text, &at, ':') || !digits(text, &at, 2, &c.second)) {
        *problem = Text::tr("not a time of the form 10/Oct/2000:13:55:36 -0700");
        return std::nullopt;
    }
    fraction(text, &at, &c);
    if (!expect(text, &at, ' ') || !zoneOffset(text, &at, &c.zoneMinutes) || at != text.size()) {
        *problem = Text::tr("no time zone (+hhmm) after the time");
        return std::nullopt;
    }
    return fromCivil(c, problem);
}

std::optional<LogTime> rfc3339(QByteArrayView text, QString *problem)
{
    Civil c;
    qsizetype at = 0;
    if (!digits(text, &at, 4, &c.year) || !expect(text, &at, '-') || !digits(text, &at, 2, &c.month)
        || !expect(text, &at, '-') || !digits(text, &at, 2, &c.day)
        || (at < text.size() && text.at(at) != 'T' && text.at(at) != 't' && text.at(at) != ' ')) {
        *problem = Text::tr("not a time of the form 2000-10-10T13:55:36Z");
        return std::nullopt;
    }
    ++at;
    if (!digits(text, &at, 2, &c.hour) || !expect(text, &at, ':') || !digits(text, &at, 2, &c.minute)
        || !expect(text, &at, ':') || !digits(text, &at, 2, &c.second)) {
        *problem = Text::tr("not a time of the form 2000-10-10T13:55:36Z");
        return std::nullopt;
    }
    fraction(text, &at, &c);
    if (at < text.size() && text.at(at) == ' ')
        ++at;
    if (!zoneOffset(text, &at, &c.zoneMinutes) || at != text.size()) {
        *problem = Text::tr("no time zone (Z or +hh:mm) after the time");
        return std::nullopt;
    }
    return fromCivil(c, problem);
}

std::optional<LogTime> epoch(QByteArrayView text, QString *problem)
{
    qsizetype at = 0;
    qint64 whole = 0;
    int count = 0;
    while (at < text.size() && text.at(at) >= '0' && text.at(at) <= '9') {
        if (++count > 16) {
            *problem = Text::tr("a number too large for a time");
            return std::nullopt;
        }
        whole = whole * 10 + (text.at(at++) - '0');
    }
    Civil fractionOnly;
    fraction(text, &at, &fractionOnly);
    if (count == 0 || at != text.size()) {
        *problem = Text::tr("not a time");
        return std::nullopt;
    }
    if (count >= 12) // 1e11 seconds is the year 5138: a number this long counts milliseconds
        return LogTime{whole, false};
    return LogTime{whole * 1000 + fractionOnly.millis, !fractionOnly.fraction};
}

} // namespace

std::optional<LogTime> parseLogTime(QByteArrayView text, QString *problem)
{
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
        text = text.sliced(1, text.size() - 2);
    if (text.isEmpty()) {
        *problem = Text::tr("no time");
        return std::nullopt;
    }
    if (text.size() > 2 && text.at(2) == '/')
        return nginxLocal(text, problem);
    if (text.size() > 4 && text.at(4) == '-')
        return rfc3339(text, problem);
    return epoch(text, problem);
}

} // namespace sluice::model
