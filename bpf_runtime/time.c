/* ctime() in kernel context: the broken-down UTC time of epoch seconds
 * (the caller has refused what a 32-bit time_t cannot hold, as stap's
 * ctime does).  BPF before CPU v4 has no signed division, so the seconds
 * are first shifted to a non-negative count and all arithmetic is
 * unsigned (days-from-civil inverse, after H. Hinnant's algorithm).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STP_INLINE __attribute__((always_inline))

/* Days from 1901-12-13 (before the earliest 32-bit time) to 1970-01-01. */
#define STP_DAYS_SHIFT 24856UL

/* out: weekday (0 = Sunday), month (0 = January), day of the month, hour,
 * minute, second, year. */
STP_INLINE void stp_ctime_fields(long secs, long *out)
{
	unsigned long s = (unsigned long)(secs + (long)(STP_DAYS_SHIFT * 86400));
	unsigned long days = s / 86400, rem = s % 86400;
	out[0] = (days + 4 + 7 * 100000 - STP_DAYS_SHIFT) % 7; /* 1970-01-01 was a Thursday */
	out[3] = rem / 3600;
	out[4] = rem % 3600 / 60;
	out[5] = rem % 60;
	/* Civil date of day z counted from 0000-03-01. */
	unsigned long z = days - STP_DAYS_SHIFT + 719468;
	unsigned long era = z / 146097;
	unsigned long doe = z - era * 146097;
	unsigned long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned long mp = (5 * doy + 2) / 153;
	unsigned long d = doy - (153 * mp + 2) / 5 + 1;
	unsigned long m = mp < 10 ? mp + 3 : mp - 9;
	unsigned long y = yoe + era * 400 + (m <= 2);
	out[1] = m - 1;
	out[2] = d;
	out[6] = y;
}
