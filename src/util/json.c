/* json.c: the JSON string writer of json.h. */
#include "util/json.h"

#include <string.h>

#include "util/buf.h"

/* The length of the UTF-8 sequence at s (n bytes left), or 0 when it is not one (RFC 3629). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return len;
}

void json_add_escaped(struct buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, from = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		buf_add(b, s + from, i - from);
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			buf_add(b, e, 2);
			i++;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			char e[2] = {'\\', c == '\n' ? 'n' : c == '\t' ? 't' : 'r'};
			buf_add(b, e, 2);
			i++;
		} else if (c < 0x80) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			buf_add(b, e, 6);
			i++;
		} else {
			size_t len = utf8_len(s + i, n - i);
			if (len == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
				buf_adds(b, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
				i += 3;
			} else if (len) {
				buf_add(b, s + i, len);
				i += len;
			} else {
				buf_adds(b, "\\ufffd");
				i++;
			}
		}
		from = i;
	}
	buf_add(b, s + from, i - from);
}

void json_add_str(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	if (s)
		json_add_escaped(b, s, strlen(s));
	buf_addc(b, '"');
}
