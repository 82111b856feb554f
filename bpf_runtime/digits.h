/* A character's digit value, for the text parsers (strtol in strings.c,
 * sprint_stack's hex words in ksym_text.c): 0-9, then a/A = 10 up to
 * z/Z = 35; 99 for any other character. */
#ifndef STAP_DIGITS_H
#define STAP_DIGITS_H

static inline __attribute__((always_inline)) long stp_digit(unsigned long c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

#endif
