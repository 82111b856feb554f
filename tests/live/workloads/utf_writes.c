/* Workload for the UTF-16/UTF-32 readers and the user_*_error readers:
 * writes known buffers to /dev/null, each of its own length so a probe
 * can tell them apart.  With "wait" first it blocks until stdin closes
 * (a case can attach with -x before the writes).  Prints nothing. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "wait") == 0) {
    char c;
    while (read(0, &c, 1) > 0) {
    }
  }
  int fd = open("/dev/null", O_WRONLY);
  /* "hé€𝄞" in UTF-16 (U+1D11E as a surrogate pair), its NUL, two more
   * units: 14 bytes. */
  static const uint16_t utf16[] = {'h', 0xe9, 0x20ac, 0xd834, 0xdd1e, 0, 'x'};
  write(fd, utf16, sizeof utf16);
  /* The same in UTF-32: 20 bytes. */
  static const uint32_t utf32[] = {'h', 0xe9, 0x20ac, 0x1d11e, 0};
  write(fd, utf32, sizeof utf32);
  /* A lone high surrogate before 'a': 6 bytes. */
  static const uint16_t lone[] = {0xd800, 'a', 0};
  write(fd, lone, sizeof lone);
  /* Past U+10FFFF: 8 bytes. */
  static const uint32_t big[] = {0x110000, 0};
  write(fd, big, sizeof big);
  /* Numbers for the _error readers: 3 bytes of -1, then 0x7f: 4 bytes. */
  static const uint8_t bytes[] = {0xff, 0xff, 0xff, 0x7f};
  write(fd, bytes, sizeof bytes);
  close(fd);
  return 0;
}
