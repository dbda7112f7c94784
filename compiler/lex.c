/* lex.c - the values of literals, for the scanner (grammar/ufn.l).
 *
 * The scanner's patterns decide where a literal ends; this file decides what
 * it means, in Python's terms: integers with '_' separators and 0x/0o/0b
 * prefixes, floats, imaginary numbers, and string literals with their
 * prefixes and escapes.  Messages use CPython's words where it has them. */
#include "ufnc.h"

#include <stdlib.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------------------ */

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* The patterns guarantee well-formed digits; only the size can be wrong.
 * Values of 2**64 and more are flagged rather than wrapped. */
Node *lex_int(const char *text, size_t len, int base, Loc loc)
{
    size_t i = base == 10 ? 0 : 2;
    uint64_t v = 0;
    bool too_big = false;
    for (; i < len; i++) {
        if (text[i] == '_')
            continue;
        uint64_t d = (uint64_t)digit_value(text[i]);
        if (v > (UINT64_MAX - d) / (uint64_t)base)
            too_big = true;
        v = v * (uint64_t)base + d;
    }
    return new_int(loc, too_big ? 0 : v, too_big);
}

/* strtod does not know '_': copy the literal without it. */
static double float_value(const char *text, size_t len)
{
    char *buf = arena_alloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] != '_')
            buf[n++] = text[i];
    buf[n] = '\0';
    return strtod(buf, NULL);
}

Node *lex_float(const char *text, size_t len, Loc loc)
{
    return new_float(loc, float_value(text, len));
}

Node *lex_imag(const char *text, size_t len, Loc loc)
{
    return new_imag(loc, float_value(text, len - 1));      /* drop the j */
}

/* Digits that run into letters, or underscores not between digits. */
Node *lex_bad_number(const char *text, size_t len, Loc loc)
{
    static const struct { char letter; int base; const char *name; } prefixes[] = {
        {'x', 16, "hexadecimal"}, {'o', 8, "octal"}, {'b', 2, "binary"},
    };
    if (len >= 2 && text[0] == '0') {
        for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
            if ((text[1] | 0x20) != prefixes[k].letter)
                continue;
            size_t i = 2;
            while (i < len && (text[i] == '_' || digit_value(text[i]) < prefixes[k].base))
                i++;
            if (i < len && text[i] >= '0' && text[i] <= '9')
                diag_error(loc, "invalid digit '%c' in %s literal", text[i], prefixes[k].name);
            else
                diag_error(loc, "invalid %s literal", prefixes[k].name);
            return new_int(loc, 0, false);
        }
    }
    diag_error(loc, "invalid decimal literal");
    return new_int(loc, 0, false);
}

/* ---- UTF-8 ------------------------------------------------------------------------- */

/* The code point at s (n bytes available), or -1 if the bytes are not
 * UTF-8; *size receives the sequence's length. */
static long utf8_decode(const unsigned char *s, size_t n, int *size)
{
    static const long min_of[] = {0, 0, 0x80, 0x800, 0x10000};
    int len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
            : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
    *size = 1;
    if (len == 0 || (size_t)len > n)
        return -1;
    long cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min_of[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
        return -1;
    *size = len;
    return cp;
}

static size_t utf8_encode(long cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Spaces that look like spaces: saying "invalid character ' '" would not help. */
static bool invisible(long cp)
{
    return cp == 0xa0 || (cp >= 0x2000 && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029
        || cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}

bool lex_non_ascii(const char *text, size_t len, Loc loc)
{
    bool letters = false;
    size_t first = len;
    for (size_t i = 0; i < len; i++) {
        if (name_char(text[i]) && !(text[i] >= '0' && text[i] <= '9'))
            letters = true;
        if ((unsigned char)text[i] >= 0x80 && first == len)
            first = i;
    }
    int size;
    long cp = utf8_decode((const unsigned char *)text + first, len - first, &size);
    Loc at = {loc.file, loc.line, loc.col + (int)first, loc.line, loc.col + (int)first + size};
    unsigned char byte = (unsigned char)text[first];
    if (cp < 0)
        diag_error(at, "invalid character 0x%02x (the source is not UTF-8)", byte);
    else if (letters)
        diag_error(at, "non-ASCII character '%.*s' in name '%.*s'; ufn names are ASCII",
                   size, text + first, (int)len, text);
    else if (invisible(cp))
        diag_error(at, "invalid non-printable character U+%04lX", (unsigned long)cp);
    else
        diag_error(at, "invalid character '%.*s' (U+%04lX)", size, text + first, (unsigned long)cp);
    return letters;
}

void lex_comment(const char *text, size_t len, Loc loc)
{
    for (size_t i = 0; i < len;) {
        int size = 1;
        if ((unsigned char)text[i] >= 0x80 && utf8_decode((const unsigned char *)text + i, len - i, &size) < 0) {
            Loc at = {loc.file, loc.line, loc.col + (int)i, loc.line, loc.col + (int)i + 1};
            diag_error(at, "invalid character 0x%02x in a comment (the source is not UTF-8)",
                       (unsigned char)text[i]);
            return;
        }
        i += (size_t)size;
    }
}

/* ---- strings ------------------------------------------------------------------------- */

typedef struct StrLit {
    const char *text;      /* the whole token */
    Loc loc;               /* of the token */
    bool raw, bytes;
    char *out;             /* the decoded value */
    size_t n;
} StrLit;

/* Where byte `off` of the token is, for messages about one escape. */
static Loc loc_at(const StrLit *s, size_t off, size_t width)
{
    Loc l = s->loc;
    for (size_t i = 0; i < off; i++) {
        if (s->text[i] == '\n') {
            l.line++;
            l.col = 1;
        } else {
            l.col++;
        }
    }
    l.end_line = l.line;
    l.end_col = l.col + (int)width;
    return l;
}

/* `count` hex digits at s[i..]; -1 if there are fewer. */
static long hex_digits(const char *s, size_t i, size_t end, int count)
{
    long v = 0;
    for (int k = 0; k < count; k++) {
        if (i + (size_t)k >= end || digit_value(s[i + (size_t)k]) > 15)
            return -1;
        v = v * 16 + digit_value(s[i + (size_t)k]);
    }
    return v;
}

/* A code point (str) or a byte value (bytes) from an escape. */
static void put_value(StrLit *s, long v)
{
    if (s->bytes)
        s->out[s->n++] = (char)v;
    else
        s->n += utf8_encode(v, s->out + s->n);
}

/* \x, \u, \U: a fixed number of hex digits.  Returns the bytes consumed
 * after the letter. */
static size_t hex_escape(StrLit *s, size_t at, size_t end, char letter)
{
    int count = letter == 'x' ? 2 : letter == 'u' ? 4 : 8;
    long v = hex_digits(s->text, at + 2, end, count);
    if (v < 0) {
        diag_error(loc_at(s, at, 2), "truncated \\%c%s escape", letter,
                   count == 2 ? "XX" : count == 4 ? "XXXX" : "XXXXXXXX");
        return 1;
    }
    if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
        diag_error(loc_at(s, at, 2 + (size_t)count), "illegal Unicode character in \\%c escape", letter);
    else
        put_value(s, v);
    return 1 + (size_t)count;
}

static size_t octal_escape(StrLit *s, size_t at, size_t end)
{
    long v = 0;
    size_t k = 1;
    while (k <= 3 && at + k < end && s->text[at + k] >= '0' && s->text[at + k] <= '7')
        v = v * 8 + (s->text[at + k++] - '0');
    if (s->bytes && v > 0377)
        diag_error(loc_at(s, at, k), "octal escape value \\%lo is too big for a byte", v);
    put_value(s, s->bytes ? (v & 0xff) : v);
    return k - 1;
}

/* One escape at s->text[at] == '\\'; returns the bytes consumed after the
 * backslash. */
static size_t escape(StrLit *s, size_t at, size_t end)
{
    static const char simple_in[] = "\\'\"abfnrtv", simple_out[] = "\\'\"\a\b\f\n\r\t\v";
    char c = s->text[at + 1];
    const char *hit = strchr(simple_in, c);
    if (c && hit) {
        s->out[s->n++] = simple_out[hit - simple_in];
        return 1;
    }
    if (c == '\n')
        return 1;                                   /* line continuation */
    if (c == '\r' && at + 2 < end && s->text[at + 2] == '\n')
        return 2;
    if (c >= '0' && c <= '7')
        return octal_escape(s, at, end);
    if (c == 'x' || (!s->bytes && (c == 'u' || c == 'U')))
        return hex_escape(s, at, end, c);
    if (c == 'N' && !s->bytes) {
        diag_error(loc_at(s, at, 2), "\\N{...} escapes are not supported in ufn");
        size_t k = 1;
        if (at + 2 < end && s->text[at + 2] == '{')
            while (at + k < end && s->text[at + k] != '}')
                k++;
        return k;
    }
    /* Python keeps an unknown escape as written, and warns. */
    diag_warning_group(loc_at(s, at, 2), "invalid-escape", "invalid escape sequence '\\%c'", c);
    s->out[s->n++] = '\\';
    return 0;
}

/* Source text is UTF-8, as Python requires; a str literal holds what it
 * says, so a stray byte there would reach the generated C.  Copies one
 * character and returns its size. */
static size_t utf8_char(StrLit *s, size_t i, size_t end, bool *reported)
{
    int size;
    if (utf8_decode((const unsigned char *)s->text + i, end - i, &size) < 0 && !*reported) {
        diag_error(loc_at(s, i, 1), "invalid character 0x%02x in string (the source is not UTF-8)",
                   (unsigned char)s->text[i]);
        *reported = true;
    }
    memcpy(s->out + s->n, s->text + i, (size_t)size);
    s->n += (size_t)size;
    return (size_t)size;
}

static void decode(StrLit *s, size_t begin, size_t end)
{
    bool non_ascii = false, bad_utf8 = false;
    for (size_t i = begin; i < end; i++) {
        char c = s->text[i];
        if (c == '\r' && i + 1 < end && s->text[i + 1] == '\n')
            continue;                                /* CRLF reads as LF */
        if (c == '\\' && !s->raw && i + 1 < end) {
            i += escape(s, i, end);
            continue;
        }
        if (c == '\\' && s->raw && i + 1 < end) {
            s->out[s->n++] = c;                      /* \' keeps both */
            c = s->text[++i];
            if (c == '\r' && i + 1 < end && s->text[i + 1] == '\n')
                c = s->text[++i];
        }
        if ((unsigned char)c >= 0x80 && !s->bytes) {
            i += utf8_char(s, i, end, &bad_utf8) - 1;
            continue;
        }
        if ((unsigned char)c >= 0x80 && !non_ascii) {
            diag_error(loc_at(s, i, 1), "bytes can only contain ASCII literal characters");
            non_ascii = true;
        }
        s->out[s->n++] = c;
    }
}

Node *lex_string(const char *text, size_t len, Loc loc, StrForm form)
{
    StrLit s = {.text = text, .loc = loc};
    size_t i = 0;
    for (; i < len && text[i] && strchr("rRbBuUfF", text[i]); i++) {
        s.raw |= (text[i] | 0x20) == 'r';
        s.bytes |= (text[i] | 0x20) == 'b';
    }
    char q = text[i];
    bool triple = i + 2 < len && text[i + 1] == q && text[i + 2] == q;
    size_t quotes = triple ? 3 : 1;
    size_t begin = i + quotes;
    size_t end = len;
    if (form != STR_OPEN)
        end = len >= begin + quotes ? len - quotes : begin;
    if (form == STR_FSTRING)
        diag_error(loc, "f-strings are not supported in ufn");
    else if (form == STR_OPEN)
        diag_error(loc_at(&s, i, quotes), "unterminated %sstring literal",
                   triple ? "triple-quoted " : "");
    /* Escapes only shrink: \U0010FFFF is 10 bytes in, 4 out. */
    s.out = arena_alloc(end - begin + 1);
    decode(&s, begin, end);
    Node *n = new_node(N_STR, loc);
    n->str.value = s.out;
    n->str.len = s.n;
    n->str.bytes = s.bytes;
    return n;
}
